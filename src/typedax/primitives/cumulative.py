"""Cumulative reductions along one axis, and every rule for them: ``cumsum``,
``cumprod``, ``cummax``, ``cummin``, ``cumlogsumexp`` (params ``axis``,
``reverse``).

Lowering is what XLA on CPU gets from JAX: a ``stablehlo.reduce_window``
(built by ``windowed.hlo_reduce_window``) with a window of the whole axis,
padded ``(n - 1, 0)`` (``(0, n - 1)`` reversed) with the reduction's identity. ``impl`` folds each window in the
order XLA's reduce_window does (the identity, the padding, then the window's
elements in order), so eager and ``jit`` agree bit for bit up to 17 elements
along the axis; from 18 on XLA rewrites the window into a tree and float sums
and products may differ in the last bits (NumPy's sequential order is kept).

JVPs: ``cumsum`` is linear (its transpose is ``cumsum`` the other way). The
others differentiate the parallel prefix scan JAX uses
(``lax.associative_scan``, ported with the same tree), on pairs of (partial
result, its tangent) with the combine function's own JVP: O(n) work, no
division (``cumprod`` is exact where the operand has zeros), and
``cummax``/``cummin`` split the tangent on ties as JAX does (half to each of
two equal operands of every ``max``/``min`` in the tree). ``cumlogsumexp``'s
tangent weights are ``exp(a - out)`` of each combine (0 for an operand of
-inf).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, HALF, INTEGER, DType, float32
from ..core.errors import PrimitiveTypeError
from ..core.ir import NO_PARAMS, Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, JvpRule, Primal, Rules, Tangent, Zero
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext, compare, dtype_max, dtype_min, full, tensor_type
from ._params import get_bool, get_int, params_of
from .elementwise import (
    _max,
    _min,
    add,
    eq,
    exp_p,
    log,
    max_p,
    min_p,
    mul,
    select,
    sub,
)
from .shaping import concatenate_p, rev_p
from .slicing import _int, pad_, slice_
from .structural import check_arity, full_like, linear_jvp, zero_like
from .windowed import Window, hlo_reduce_window


def exp(x: Value) -> Value:
    return bind1(exp_p, (x,), NO_PARAMS)

NUMERIC: frozenset[DType] = FLOATING | INTEGER
Combine = Callable[[list[Value], list[Value]], list[Value]]

#: Up to this many elements along the axis XLA's reduce_window folds in order.
_EXACT_WINDOW = 17


def _params(name: str, params: Params) -> tuple[int, bool]:
    return get_int(name, params, "axis"), get_bool(name, params, "reverse")


def _logaddexp(a: NDArray, b: NDArray) -> NDArray:
    """JAX's logaddexp as the reduce_window body computes it."""
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.asarray(_max(a, b))
        d = np.subtract(a, b)
        return np.asarray(np.where(d != d, np.add(a, b), m + np.log1p(np.exp(-np.abs(d)))), dtype=a.dtype)


def _fold(x: NDArray, axis: int, reverse: bool, op: Callable[[NDArray, NDArray], NDArray],
          init: bool | int | float) -> NDArray:
    """XLA's reduce_window over the whole (padded) axis, folded in window order."""
    n = x.shape[axis]
    if n == 0:
        return x
    xs = np.moveaxis(x, axis, 0)
    ident = np.full(xs.shape[1:], init, x.dtype)
    out = np.empty_like(xs)
    if reverse and n <= _EXACT_WINDOW:
        # window i is x[i], x[i+1], ..., x[n-1], then identities
        padded = np.concatenate([xs, np.broadcast_to(ident, (n - 1,) + xs.shape[1:])])
        acc = np.broadcast_to(ident, xs.shape)
        for k in range(n):
            acc = np.asarray(op(acc, padded[k:k + n]), dtype=x.dtype)
        out = acc
    else:
        order = range(n - 1, -1, -1) if reverse else range(n)
        acc = ident
        for i in order:
            acc = np.asarray(op(acc, xs[i]), dtype=x.dtype)
            out[i] = acc
    return np.moveaxis(out, 0, axis)


def _cumulative(
    name: str,
    dtypes: frozenset[DType],
    op: Callable[[NDArray, NDArray], NDArray],
    identity: Callable[[DType], bool | int | float],
    body: Callable[[HloValue, HloValue, DType], HloValue],
    jvp_for: Callable[[Primitive], JvpRule],
    transpose_for: Callable[[Primitive], Callable[[Sequence[Value], Sequence[Primal], Params], list[Value | None]]] | None = None,
) -> Primitive:
    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        axis, reverse = _params(name, params)
        x = args[0]
        if op is _np_add and x.shape[axis] <= 1:
            # XLA passes a one-element window through without adding the +0
            # identity, so -0.0 stays -0.0 there; longer axes add it
            return [x]
        if op is _np_add and not reverse:  # the same order as the fold, faster
            ident = np.zeros_like(np.take(x, [0], axis=axis))
            acc = np.add.accumulate(np.concatenate([ident, x], axis), axis=axis, dtype=x.dtype)
            return [np.take(acc, range(1, x.shape[axis] + 1), axis=axis).astype(x.dtype, copy=False)]
        return [_fold(x, axis, reverse, op, identity(x.dtype))]

    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        check_arity(name, avals, 1)
        (x,) = avals
        axis, _ = _params(name, params)
        if not 0 <= axis < x.ndim:
            raise PrimitiveTypeError(f"{name}: axis {axis} is out of bounds for {x.str_short()}")
        if x.dtype not in dtypes:
            kinds = "float" if dtypes == FLOATING else "integer or float"
            raise PrimitiveTypeError(f"{name} takes {kinds} operands, got {x.str_short()}")
        return [x]

    def batch(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        (x,), (b,) = vals, dims
        assert b is not None
        axis, reverse = _params(name, params)
        new = params_of(("axis", axis + (axis >= b)), ("reverse", reverse))
        return [bind1(prim, (x,), new)], [b]

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
        axis, reverse = _params(name, eqn.params)
        a = eqn.inputs[0].aval
        n = a.shape[axis]
        if n == 0:
            return [args[0]]
        nd = a.ndim
        ones = (1,) * nd
        pads = tuple(((0, n - 1) if reverse else (n - 1, 0)) if i == axis else (0, 0) for i in range(nd))
        w = Window(tuple(n if i == axis else 1 for i in range(nd)), ones, pads, ones, ones)
        x = args[0]
        if a.dtype in HALF:  # folded in float32, rounded once: as eager evaluation (core/trace.py)
            wide = ShapedArray(a.shape, float32)
            init = full(identity(float32), ShapedArray((), float32))
            out = hlo_reduce_window([wide], [hlo.convert(tensor_type(wide), x)], [init], w,
                                    lambda b: [body(b[0], b[1], float32)])[0]
            return [hlo.convert(tensor_type(a), out)]
        init = full(identity(a.dtype), ShapedArray((), a.dtype))
        return hlo_reduce_window([a], [x], [init], w, lambda b: [body(b[0], b[1], a.dtype)])

    def rules(p: Primitive) -> Rules:
        return Rules(
            jvp=jvp_for(p), transpose=transpose_for(p) if transpose_for else None,
            batch=batch, lower=lower,
        )

    prim = Primitive(name, impl, abstract, rules_for=rules)
    return prim


# -- the associative scan the JVPs differentiate -------------------------------------
def _slice_axis(x: Value, axis: int, start: int, stop: int | None, stride: int = 1) -> Value:
    shape = aval_of(x).shape
    n = shape[axis]
    stop_ = n if stop is None else (stop if stop >= 0 else n + stop)
    lo = tuple(start if i == axis else 0 for i in range(len(shape)))
    hi = tuple(stop_ if i == axis else d for i, d in enumerate(shape))
    st = None if stride == 1 else tuple(stride if i == axis else 1 for i in range(len(shape)))
    return slice_(x, lo, hi, st)


def _interleave(a: Value, b: Value, axis: int) -> Value:
    """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (pads and an add, as JAX)."""
    na, nb = aval_of(a).shape[axis], aval_of(b).shape[axis]
    nd = aval_of(a).ndim
    zero = np.zeros((), aval_of(a).dtype)
    a_cfg = tuple((0, 1 if na == nb else 0, 1) if i == axis else (0, 0, 0) for i in range(nd))
    b_cfg = tuple((1, 0 if na == nb else 1, 1) if i == axis else (0, 0, 0) for i in range(nd))
    return add(pad_(a, zero, a_cfg), pad_(b, zero, b_cfg))


def associative_scan(combine: Combine, elems: list[Value], axis: int) -> list[Value]:
    """The inclusive scan of ``elems`` (arrays of one size along ``axis``)
    with an associative ``combine``: JAX's ``lax.associative_scan`` tree."""

    def scan(es: list[Value]) -> list[Value]:
        n = aval_of(es[0]).shape[axis]
        if n < 2:
            return es
        reduced = combine([_slice_axis(e, axis, 0, -1, 2) for e in es],
                          [_slice_axis(e, axis, 1, None, 2) for e in es])
        odd = scan(reduced)
        if n % 2 == 0:
            even = combine([_slice_axis(e, axis, 0, -1) for e in odd],
                           [_slice_axis(e, axis, 2, None, 2) for e in es])
        else:
            even = combine(odd, [_slice_axis(e, axis, 2, None, 2) for e in es])
        even = [
            bind1(concatenate_p, (_slice_axis(e, axis, 0, 1), r), params_of(("dimension", axis)))
            for e, r in zip(es, even)
        ]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    return scan(elems)


def _rev(x: Value, axis: int) -> Value:
    return bind1(rev_p, (x,), params_of(("dimensions", (axis,))))


def _scan_jvp(name: str, combine: Combine) -> Callable[[Primitive], JvpRule]:
    """The tangent from the scan of (partial result, tangent) pairs."""

    def jvp_for(prim: Primitive) -> JvpRule:
        def rule(
            primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
        ) -> tuple[list[Value], list[Tangent]]:
            (x,), (t,) = primals, tangents
            y = bind1(prim, (x,), params)
            if isinstance(t, Zero) or aval_of(x).dtype not in FLOATING:
                return [y], [zero_like(y)]
            axis, reverse = _params(name, params)
            xs, ts = (_rev(x, axis), _rev(t, axis)) if reverse else (x, t)
            _, tout = associative_scan(combine, [xs, ts], axis)
            return [y], [_rev(tout, axis) if reverse else tout]

        return rule

    return jvp_for


def _jvp_of(prim: Primitive) -> Combine:
    """The combine of (value, tangent) pairs through a binary primitive's JVP rule."""

    def combine(a: list[Value], b: list[Value]) -> list[Value]:
        rule = prim.rules.jvp
        assert rule is not None
        (out,), (t,) = rule([a[0], b[0]], [a[1], b[1]], NO_PARAMS)
        assert not isinstance(t, Zero)
        return [out, t]

    return combine


def _logaddexp_pair(a: list[Value], b: list[Value]) -> list[Value]:
    """``logaddexp`` of the partial results and its tangent
    ``ta * exp(a - out) + tb * exp(b - out)`` (a weight 0 for an operand of -inf)."""
    (x, tx), (y, ty) = a, b
    m = bind1(max_p, (x, y), NO_PARAMS)
    neg_inf = full_like(float("-inf"), x)
    zero = full_like(0.0, x)
    safe_m = select(eq(m, neg_inf), zero, m)
    out = add(safe_m, log(add(exp(sub(x, safe_m)), exp(sub(y, safe_m)))))

    def weight(v: Value) -> Value:
        return select(eq(v, neg_inf), zero, exp(sub(v, out)))

    return [out, add(mul(tx, weight(x)), mul(ty, weight(y)))]


def _mul_pair(a: list[Value], b: list[Value]) -> list[Value]:
    (x, tx), (y, ty) = a, b
    return [mul(x, y), add(mul(tx, y), mul(x, ty))]


def _cumsum_t(prim: Primitive) -> Callable[[Sequence[Value], Sequence[Primal], Params], list[Value | None]]:
    def rule(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
        axis, reverse = _params("cumsum", params)
        return [bind1(prim, (cts[0],), params_of(("axis", axis), ("reverse", not reverse)))]

    return rule


def _hlo_max(a: HloValue, b: HloValue, d: DType) -> HloValue:
    return hlo.maximum(a, b)


def _hlo_min(a: HloValue, b: HloValue, d: DType) -> HloValue:
    return hlo.minimum(a, b)


def _hlo_logaddexp(a: HloValue, b: HloValue, d: DType) -> HloValue:
    """JAX's logaddexp body: ``max + log1p(exp(-|a - b|))``, ``a + b`` where
    ``a - b`` is NaN (equal infinities, or a NaN)."""
    m = hlo.maximum(a, b)
    diff = hlo.subtract(a, b)
    is_nan = compare(diff, diff, d, "NE")
    return hlo.select(is_nan, hlo.add(a, b), hlo.add(m, hlo.log_plus_one(hlo.exponential(hlo.negate(hlo.abs(diff))))))


def _np_max(a: NDArray, b: NDArray) -> NDArray:
    return np.asarray(_max(a, b))


def _np_min(a: NDArray, b: NDArray) -> NDArray:
    return np.asarray(_min(a, b))


def _np_add(a: NDArray, b: NDArray) -> NDArray:
    return np.asarray(np.add(a, b))


def _np_mul(a: NDArray, b: NDArray) -> NDArray:
    return np.asarray(np.multiply(a, b))


cumsum_p = _cumulative("cumsum", NUMERIC, _np_add, lambda d: 0,
                       lambda a, b, d: hlo.add(a, b), linear_jvp, _cumsum_t)
cumprod_p = _cumulative("cumprod", NUMERIC, _np_mul, lambda d: 1,
                        lambda a, b, d: hlo.multiply(a, b), _scan_jvp("cumprod", _mul_pair))
cummax_p = _cumulative("cummax", NUMERIC, _np_max, dtype_min, _hlo_max,
                       _scan_jvp("cummax", _jvp_of(max_p)))
cummin_p = _cumulative("cummin", NUMERIC, _np_min, dtype_max, _hlo_min,
                       _scan_jvp("cummin", _jvp_of(min_p)))
cumlogsumexp_p = _cumulative("cumlogsumexp", FLOATING, _logaddexp, lambda d: float("-inf"),
                             _hlo_logaddexp, _scan_jvp("cumlogsumexp", _logaddexp_pair))

FAMILY = Family("cumulative", (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p))


# -- the jax.lax functions ----------------------------------------------------------
def _bind(prim: Primitive, operand: ArrayLike, axis: int, reverse: bool) -> Array:
    a = _int(prim.name, "axis", axis)
    if not isinstance(reverse, (bool, np.bool_)):
        raise PrimitiveTypeError(f"{prim.name}: reverse must be a bool, got {reverse!r}")
    return bind1(prim, (operand,), params_of(("axis", a), ("reverse", bool(reverse))))


def cumsum(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """The cumulative sum along ``axis`` (``jax.lax.cumsum``; ``axis`` must
    be non-negative, as XLA's)."""
    return _bind(cumsum_p, operand, axis, reverse)


def cumprod(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """The cumulative product along ``axis`` (``jax.lax.cumprod``)."""
    return _bind(cumprod_p, operand, axis, reverse)


def cummax(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """The cumulative maximum along ``axis`` (``jax.lax.cummax``)."""
    return _bind(cummax_p, operand, axis, reverse)


def cummin(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """The cumulative minimum along ``axis`` (``jax.lax.cummin``)."""
    return _bind(cummin_p, operand, axis, reverse)


def cumlogsumexp(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """The cumulative ``log(sum(exp(x)))`` along ``axis`` (``jax.lax.cumlogsumexp``)."""
    return _bind(cumlogsumexp_p, operand, axis, reverse)
