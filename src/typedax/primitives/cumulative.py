"""Cumulative reductions along one axis, and every rule for them: ``cumsum``,
``cumprod``, ``cummax``, ``cummin``, ``cumlogsumexp`` (params ``axis``,
``reverse``).

Lowering is what XLA on CPU gets from JAX: a ``stablehlo.reduce_window``
(built by ``windowed.hlo_reduce_window``) with a window of the whole axis,
padded ``(n - 1, 0)`` (``(0, n - 1)`` reversed) with the reduction's
identity. Eagerly, float ``cumsum``, ``cumprod`` and ``cumlogsumexp`` run
that program through XLA (``Rules.eval_on_device``): their values depend on
the order XLA folds in (on the CPU, blocks of 16: ``ReduceWindowRewriter``;
another order on a GPU) and on its ``exp``/``log1p``. ``impl`` serves the
rest -- integers, whose sums and products wrap the same in any order, and
``cummax``/``cummin``, exact in any order -- folding in XLA's CPU blocks
(``_blocked_scan``), which also keeps a long reversed scan vectorized.

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
from ..core.dtypes import COMPLEX, FLOATING, HALF, INTEGER, DType, float32
from ..core.errors import PrimitiveAxisError, PrimitiveTypeError
from ..core.ir import NO_PARAMS, Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, JvpRule, Primal, Rules, Tangent, Zero, floats_on_device
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

#: XLA on CPU folds a reduce_window of up to this many elements in order,
#: and splits a longer one into blocks of this many (``_blocked_scan``).
_BLOCK = 16


def _params(name: str, params: Params) -> tuple[int, bool]:
    return get_int(name, params, "axis"), get_bool(name, params, "reverse")


def _logaddexp(a: NDArray, b: NDArray) -> NDArray:
    """JAX's logaddexp as the reduce_window body computes it."""
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.asarray(_max(a, b))
        d = np.subtract(a, b)
        return np.asarray(np.where(d != d, np.add(a, b), m + np.log1p(np.exp(-np.abs(d)))), dtype=a.dtype)


def _fold(x: NDArray, op: Callable[[NDArray, NDArray], NDArray], init: NDArray, reverse: bool) -> NDArray:
    """The scan along axis 0 as XLA's reduce_window folds each window, in
    order from ``init``: output ``i`` is ``op(...op(op(init, x[0]), x[1])...,
    x[i])``; reversed, ``op(...op(op(init, x[i]), x[i+1])..., x[n-1])`` (the
    suffix, still folded front to back). Forward sums and products use
    ``ufunc.accumulate``, the same fold except that it starts from ``x[0]``,
    not ``0 + x[0]``: they differ only in the sign of a zero, which ``+ 0``
    puts right."""
    n = x.shape[0]
    if not reverse and (op is _np_add or op is _np_mul):
        acc = (np.add if op is _np_add else np.multiply).accumulate(x, axis=0, dtype=x.dtype)
        return np.add(acc, init, dtype=x.dtype) if op is _np_add else acc
    if not reverse:
        out = np.empty_like(x)
        acc = init
        for i in range(n):
            acc = np.asarray(op(acc, x[i]), dtype=x.dtype)
            out[i] = acc
        return out
    # window i is x[i], ..., x[n-1], then identities (which change nothing)
    padded = np.concatenate([x, np.broadcast_to(init, (n - 1,) + x.shape[1:])])
    acc = np.broadcast_to(init, x.shape)
    for k in range(n):
        acc = np.asarray(op(acc, padded[k:k + n]), dtype=x.dtype)
    return acc


def _blocked_scan(x: NDArray, op: Callable[[NDArray, NDArray], NDArray], init: NDArray, reverse: bool) -> NDArray:
    """The scan along axis 0 as XLA on CPU computes the lowering's
    reduce_window: folded window by window (``_fold``) up to ``_BLOCK``
    elements; longer, XLA's ``ReduceWindowRewriter`` pads the axis at the end
    to blocks of ``_BLOCK`` (with ``init``), scans each block (``_fold``),
    scans the block totals the same way (recursively), and combines each
    block with the total of the blocks before it (after it, reversed;
    ``init`` for the first)."""
    n = x.shape[0]
    if n <= _BLOCK:
        return _fold(x, op, init, reverse)
    nb = -(-n // _BLOCK)
    rest = x.shape[1:]
    padded = np.concatenate([x, np.broadcast_to(init, (nb * _BLOCK - n,) + rest)])
    blocks = np.moveaxis(padded.reshape((nb, _BLOCK) + rest), 1, 0)  # (position, block, ...)
    local = _fold(blocks, op, init, reverse)
    totals = _blocked_scan(local[0 if reverse else -1], op, init, reverse)
    first = np.broadcast_to(init, (1,) + rest)
    carry = np.concatenate([totals[1:], first] if reverse else [first, totals[:-1]])
    out = np.asarray(op(carry, local), dtype=x.dtype)  # (carry broadcasts along the positions)
    return np.moveaxis(out, 0, 1).reshape((nb * _BLOCK,) + rest)[:n]


def _cumulative(
    name: str,
    dtypes: frozenset[DType],
    op: Callable[[NDArray, NDArray], NDArray],
    identity: Callable[[DType], bool | int | float],
    body: Callable[[HloValue, HloValue, DType], HloValue],
    jvp_for: Callable[[Primitive], JvpRule],
    transpose_for: Callable[[Primitive], Callable[[Sequence[Value], Sequence[Primal], Params], list[Value | None]]] | None = None,
    order_dependent: bool = True,
) -> Primitive:
    """A cumulative primitive; ``order_dependent``: whether its float values
    depend on the order of the fold (then they are XLA's, eagerly too)."""
    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        axis, reverse = _params(name, params)
        x = args[0]
        if x.shape[axis] <= 1:
            # XLA passes a one-element window through without folding in the
            # identity (so -0.0 stays -0.0 in cumsum)
            return [x]
        out = _blocked_scan(np.moveaxis(x, axis, 0), op, np.asarray(identity(x.dtype)).astype(x.dtype), reverse)
        return [np.moveaxis(out, 0, axis)]

    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        check_arity(name, avals, 1)
        (x,) = avals
        axis, _ = _params(name, params)
        if not 0 <= axis < x.ndim:
            raise PrimitiveAxisError(f"{name}: axis {axis} is out of bounds for {x.str_short()}")
        if x.dtype not in dtypes:
            kinds = "float" if dtypes == FLOATING else "integer or float" if dtypes == NUMERIC else "integer, float or complex"
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
            eval_on_device=floats_on_device if order_dependent else None,
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


cumsum_p = _cumulative("cumsum", NUMERIC | COMPLEX, _np_add, lambda d: 0,
                       lambda a, b, d: hlo.add(a, b), linear_jvp, _cumsum_t)
cumprod_p = _cumulative("cumprod", NUMERIC | COMPLEX, _np_mul, lambda d: 1,
                        lambda a, b, d: hlo.multiply(a, b), _scan_jvp("cumprod", _mul_pair))
cummax_p = _cumulative("cummax", NUMERIC, _np_max, dtype_min, _hlo_max,
                       _scan_jvp("cummax", _jvp_of(max_p)), order_dependent=False)
cummin_p = _cumulative("cummin", NUMERIC, _np_min, dtype_max, _hlo_min,
                       _scan_jvp("cummin", _jvp_of(min_p)), order_dependent=False)
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
