"""How the generator builds ``threefry2x32`` equations.

Its operands are ``uint32``, a type the generated inputs never have, so the
key and counter words are ``uint32`` scalar literals (any 32-bit value) or
``uint32`` variables an earlier ``threefry2x32`` made. Its results span the
whole ``uint32`` range, beyond ``LIMIT``: the other builders' ranges then
come out unbounded and they refuse them, except operations whose result
range does not grow with their operands (comparisons, ``population_count``),
so ``uint32`` wrap-around never reaches the ranges the generator relies on.
"""

from __future__ import annotations

import hypothesis.strategies as st

from ..core.dtypes import uint32
from ..core.ir import NO_PARAMS, Atom, Lit
from ._elementwise import Built, Builder
from ._env import Env
from ._interval import Interval

#: The range of every ``uint32``.
UINT32_RANGE = Interval(0.0, float(2**32 - 1))


def _word(env: Env, shape: tuple[int, ...] | None) -> Atom:
    """A ``uint32`` operand: a variable of ``shape`` (any shape when None) made
    by an earlier threefry2x32, or a literal."""
    cands = [v for v in env.vars if v.aval.dtype == uint32 and (shape is None or v.aval.shape in (shape, ()))]
    reuse = env.draw(st.booleans())
    if cands and reuse:
        v: Atom = env.draw(st.sampled_from(cands))
        return v
    return Lit.of(env.draw(st.integers(0, 2**32 - 1)), uint32)


def threefry2x32(env: Env) -> Built | None:
    ops: list[Atom] = []
    shape: tuple[int, ...] | None = None
    for _ in range(4):
        a = _word(env, shape)
        if a.aval.shape:
            shape = a.aval.shape
        ops.append(a)
    return tuple(ops), NO_PARAMS, [UINT32_RANGE, UINT32_RANGE]


PRNG: dict[str, Builder] = {"threefry2x32": threefry2x32}
#: Integer results: no floats, nothing to differentiate.
NOT_FLOAT_VALUED: frozenset[str] = frozenset(PRNG)
