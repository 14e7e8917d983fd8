"""How the generator builds ``bitcast_convert_type`` and ``reduce_precision``.

Bitcasts stay where value ranges are known: a dtype to itself, int64 to
int32 pairs (small values split into a low word equal to the value and a
high word of 0 or -1), and floats to the integers of their width (any bits:
the range is unbounded, so only operations whose result range does not grow
with their operands take it). Integers never become floats: small integers
read as floats are subnormals, which XLA may flush.

``reduce_precision`` keeps at least 5 exponent bits (values up to 65504,
beyond ``LIMIT``); its result lies within a relative ``2**-mantissa_bits`` of
its operand, or is 0 (flushed).
"""

from __future__ import annotations

import hypothesis.strategies as st
from pyrsistent import pmap

from ..core.dtypes import FLOATING, DType, bool_, float32, float64, int32, int64
from ._elementwise import Built, Builder, _result
from ._env import Env
from ._interval import Interval

_TO: dict[DType, tuple[DType, ...]] = {
    bool_: (bool_,), int32: (int32,), int64: (int64, int32),
    float32: (float32, int32), float64: (float64, int64),
}
_BITS: dict[DType, Interval] = {int32: Interval(-(2.0**31), 2.0**31 - 1), int64: Interval(-(2.0**63), 2.0**63 - 1)}


def bitcast_convert_type(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.dtype in _TO and any(t in env.cfg.dtypes for t in _TO[a.dtype]), [])
    if x is None:
        return None
    src = x.aval.dtype
    new = env.draw(st.sampled_from([t for t in _TO[src] if t in env.cfg.dtypes]))
    r = env.range_of(x)
    if new == src:
        out = r
    elif src == int64:
        out = Interval(min(r.lo, -1.0 if r.lo < 0 else 0.0), max(r.hi, 0.0))
    else:
        out = _BITS[new]
    return (x,), pmap({"new_dtype": new}), [out]


def reduce_precision(env: Env) -> Built | None:
    x = env.pick(lambda a, r: a.dtype in FLOATING, [])
    if x is None:
        return None
    m_max = 23 if x.aval.dtype == float32 else 52
    e = env.draw(st.integers(5, 8 if x.aval.dtype == float32 else 11))
    m = env.draw(st.integers(0, m_max))
    r = env.range_of(x)
    slack = 2.0**-m
    out = Interval(min(r.lo - abs(r.lo) * slack, 0.0), max(r.hi + abs(r.hi) * slack, 0.0))
    return _result((x,), pmap({"exponent_bits": e, "mantissa_bits": m}), out)


BITCAST: dict[str, Builder] = {"bitcast_convert_type": bitcast_convert_type, "reduce_precision": reduce_precision}
#: bitcasts give integers (or floats unchanged); reduce_precision is piecewise constant.
NOT_FLOAT_VALUED: frozenset[str] = frozenset({"bitcast_convert_type"})
NOT_SMOOTH: frozenset[str] = NOT_FLOAT_VALUED | {"reduce_precision"}
