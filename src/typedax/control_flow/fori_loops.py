"""``lax.fori_loop``: a ``scan`` when the trip count is static (so it can be
differentiated in reverse mode), otherwise a ``while_loop``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

from ..core.array import ArrayImpl
from ..core.dtypes import is_float, is_int
from ..core.errors import PrimitiveTypeError, UnrollError
from ..core.ir import NO_PARAMS
from ..core.trace import Tracer, Value, aval_of, bind1, scalar_as
from ..primitives import add_p, less_p
from .scans import scan
from .while_loops import while_loop


C = TypeVar("C")


def _static_int(x: object) -> int | None:
    """A known integer bound's value: a Python or NumPy integer, or an
    integer array of rank 0 that is not traced (JAX's ``is_concrete``)."""
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (np.ndarray, ArrayImpl)) and x.shape == () and x.dtype.kind in "iu":
        return int(x)
    return None


def fori_loop(
    lower: Value,
    upper: Value,
    body_fun: Callable[[Value, C], C],
    init_val: object,
    *,
    unroll: int | bool | None = None,
) -> C:
    """``for i in range(lower, upper): val = body_fun(i, val)``.

    With static (Python int) bounds it is a ``scan`` and can be differentiated
    in reverse mode; with traced bounds it is a ``while_loop``. ``unroll`` is
    the scan's (JAX's): with traced bounds only None, False or 1 are accepted.
    """
    lo, hi = _static_int(lower), _static_int(upper)
    if lo is None or hi is None:
        lower, upper, bounds = _float_bounds(lower, upper)
        if bounds is not None:
            lo, hi = bounds
    for name, b in (("lower", lo), ("upper", hi)):
        if b is not None and not -(2**63) <= b < 2**63:
            raise PrimitiveTypeError(f"fori_loop: {name}={b} does not fit the int64 loop index")
    if lo is not None and hi is not None:
        # the index is the Python int, weakly typed, whatever the known
        # bounds' types (JAX's scan carries ``int(lower)``)
        i0: Value = lo

        def step(carry: tuple[Value, C], _: None) -> tuple[tuple[Value, C], None]:
            i, val = carry
            return (_incr(i), body_fun(i, val)), None

        u = False if unroll is None else unroll
        (_, out), _ = scan(step, (i0, init_val), None, length=max(hi - lo, 0), unroll=u)
        return out
    if unroll is not None and unroll is not False and unroll != 1:  # JAX's test (True == 1 passes)
        raise UnrollError(
            "Can only use `unroll` in `fori_loop` if the loop bounds are statically known "
            f"(got unroll={unroll!r} with bounds of types {aval_of(lower).str_short()} and "
            f"{aval_of(upper).str_short()})."
        )
    lo_a, hi_a = aval_of(lower), aval_of(upper)
    for name, a in (("lower", lo_a), ("upper", hi_a)):
        if a.shape != () or not (is_int(a.dtype) or is_float(a.dtype)):
            raise PrimitiveTypeError(
                f"fori_loop: {name} must be an integer (or float) scalar, got {a.str_short()}"
            )
    lo_v, hi_v = (lower, upper) if is_float(lo_a.dtype) else _same_int_dtype(lower, upper)

    def w_cond(carry: tuple[Value, Value, C]) -> Value:
        return bind1(less_p, carry[:2], NO_PARAMS)

    def w_body(carry: tuple[Value, Value, C]) -> tuple[Value, Value, C]:
        i, n, val = carry
        return (_incr(i), n, body_fun(i, val))

    return while_loop(w_cond, w_body, (lo_v, hi_v, init_val))[2]


def _float_bounds(lower: Value, upper: Value) -> tuple[Value, Value, tuple[int, int] | None]:
    """JAX's float bounds: they must have one dtype (``TypeError`` else, as
    JAX's); known ones count from ``int(lower)`` to ``int(upper)`` (truncated,
    as JAX's ``int()``: a static trip count, a weak int index), traced ones
    make a ``while_loop`` whose index has their float dtype, stepping by 1."""
    lo_a, hi_a = aval_of(lower), aval_of(upper)
    if not (is_float(lo_a.dtype) or is_float(hi_a.dtype)):
        return lower, upper, None
    if lo_a.dtype != hi_a.dtype:
        raise PrimitiveTypeError(
            "lower and upper arguments to fori_loop must have equal types, got "
            f"{lo_a.dtype.name} and {hi_a.dtype.name}"
        )
    for name, a in (("lower", lo_a), ("upper", hi_a)):
        if a.shape != ():
            raise PrimitiveTypeError(f"fori_loop: {name} must be a scalar, got {a.str_short()}")
    if isinstance(lower, Tracer) or isinstance(upper, Tracer):
        return lower, upper, None
    return lower, upper, (int(np.asarray(lower)), int(np.asarray(upper)))


def _incr(i: Value) -> Value:
    return bind1(add_p, [i, scalar_as(1, aval_of(i))], NO_PARAMS)  # a weak index stays weak


def _same_int_dtype(lower: Value, upper: Value) -> tuple[Value, Value]:
    """Bounds in one integer dtype: a Python int takes the other's dtype."""
    lo_a, hi_a = aval_of(lower), aval_of(upper)
    if lo_a.dtype == hi_a.dtype:
        return lower, upper
    if _static_int(lower) is not None and not isinstance(lower, Tracer):
        return np.asarray(lower, hi_a.dtype), upper
    if _static_int(upper) is not None and not isinstance(upper, Tracer):
        return lower, np.asarray(upper, lo_a.dtype)
    raise PrimitiveTypeError(
        f"fori_loop: lower and upper must have one dtype, got {lo_a.str_short()} and "
        f"{hi_a.str_short()}"
    )
