"""Sorting, and every rule for it: ``sort`` (several operands sorted together,
lexicographically by the first ``num_keys``; params ``dimension``,
``is_stable``, ``num_keys``) and ``top_k`` (params ``k``, ``axis``).

``sort`` compares as JAX's default comparator does (``_sort_lt_comparator``):
float keys are canonicalized first -- ``-0.0`` becomes ``0.0`` and every NaN
the positive quiet NaN -- then compared in IEEE total order; so ``-0.0`` and
``0.0`` are *equal* keys (a stable sort keeps their order; the values come
out as they went in) and NaNs go last, equal among themselves. ``impl``
sorts stably whatever ``is_stable`` says (XLA may order equal keys either
way in an unstable sort).

``top_k`` orders by IEEE total order without canonicalizing, as XLA's
``TopK``: ``NaN > inf > ... > 0.0 > -0.0 > ... > -inf > -NaN``; equal
elements come lower index first; indices are int32.

JVPs: the tangent of each sorted operand is the tangent permuted like the
primal. Without a gather: sort an iota with the operands to get the
permutation ``perm``, then its inverse ``inv`` (sort an iota by ``perm``),
and permute a tangent by sorting it with ``inv`` as the key -- a use of
``sort`` linear in its non-key operands, whose transpose sorts the
cotangent by ``perm`` (the inverse permutation). ``top_k``'s tangent is a
``gather`` of the tangent at the indices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import overload

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _chlo
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, REAL_OF, DType, bool_, int32
from ..core.errors import NonLinearError, PrimitiveAxisError, PrimitiveTypeError, ShapeError
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind, bind1
from ..hlo import HloValue, LoweringContext, compare_type, element_type, full, tensor_type
from ._params import get_bool, get_int, params_of
from .elementwise import add, mul
from .gather_scatter import GatherParams, gather_
from .shaping import iota_p
from .slicing import _int, canonical_axis
from .structural import (
    full_like,
    move_batch_axis,
    reshape,
    transpose,
    types_str,
    zero_like,
    zeros_like_aval,
)


# -- sort(*operands; dimension, is_stable, num_keys) --------------------------------
def _sort_params(params: Params) -> tuple[int, bool, int]:
    return (
        get_int("sort", params, "dimension"),
        get_bool("sort", params, "is_stable"),
        get_int("sort", params, "num_keys"),
    )


def _sort_key(x: NDArray) -> NDArray:
    """A key NumPy sorts as JAX's comparator orders ``x`` (floats: -0.0 as
    0.0, NaNs last and equal)."""
    if x.dtype.kind == "f":
        return np.where(x == 0, np.zeros((), x.dtype), x)  # NaNs: NumPy sorts them last
    if x.dtype == np.bool_:
        return x.astype(np.int8)
    return x


def _sort_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    d, _, num_keys = _sort_params(params)
    # a complex key is two: its real part, then its imaginary part (JAX's order)
    keys = [_sort_key(p) for a in args[:num_keys] for p in ((a.real, a.imag) if a.dtype.kind == "c" else (a,))]
    perm = np.lexsort(tuple(reversed(keys)), axis=d)  # stable; the last key is the primary one
    return [np.take_along_axis(a, perm, axis=d) for a in args]


def _sort_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    d, _, num_keys = _sort_params(params)
    if not avals:
        raise PrimitiveTypeError("sort takes at least one operand, got none")
    shape = avals[0].shape
    if any(a.shape != shape for a in avals):
        raise PrimitiveTypeError(f"sort: operands must have one shape, got ({types_str(avals)})")
    if not shape:
        raise PrimitiveTypeError(f"sort: operands must have rank >= 1, got ({types_str(avals)})")
    if not 0 <= d < len(shape):
        raise PrimitiveTypeError(f"sort: dimension={d} is out of bounds for ({types_str(avals)})")
    if not 1 <= num_keys <= len(avals):
        raise PrimitiveTypeError(
            f"sort: num_keys={num_keys} must be between 1 and the number of operands ({len(avals)})"
        )
    return list(avals)


def _sort(ops: Sequence[Value], d: int, is_stable: bool, num_keys: int) -> list[Array]:
    params = params_of(("dimension", d), ("is_stable", is_stable), ("num_keys", num_keys))
    return bind(sort_p, ops, params)


def _iota_like(x: Value, d: int) -> Value:
    shape = aval_of(x).shape
    return bind1(iota_p, (), params_of(("dtype", int32), ("shape", shape), ("dimension", d)))


def _sort_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    d, is_stable, num_keys = _sort_params(params)
    iota = _iota_like(primals[0], d)
    *outs, perm = _sort([*primals, iota], d, is_stable, num_keys)
    live = [(i, t) for i, t in enumerate(tangents) if not isinstance(t, Zero)]
    touts: list[Tangent] = [zero_like(o) for o in outs]
    if live:
        inv = _sort([perm, iota], d, True, 1)[1]
        permuted = _sort([inv, *(t for _, t in live)], d, True, 1)[1:]
        for (i, _), t in zip(live, permuted):
            touts[i] = t
    return list(outs), touts


def _sort_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    d, is_stable, num_keys = _sort_params(params)
    keys: list[Value] = []
    for k in ps[:num_keys]:
        if isinstance(k, UndefPrimal):
            raise NonLinearError("sort", f"a sort key is a linear value ({k.aval.str_short()})")
        keys.append(k)
    undefined = [i for i, p in enumerate(ps) if isinstance(p, UndefPrimal)]
    out: list[Value | None] = [None] * len(ps)
    if not undefined:
        return out
    perm = _sort([*keys, _iota_like(keys[0], d)], d, is_stable, num_keys)[-1]
    back = _sort([perm, *(cts[i] for i in undefined)], d, True, 1)[1:]
    for i, c in zip(undefined, back):
        out[i] = c
    return out


def _sort_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    d, is_stable, num_keys = _sort_params(params)
    moved = [move_batch_axis(size, b, 0, v) for v, b in zip(vals, dims)]
    outs = _sort(moved, d + 1, is_stable, num_keys)
    return list(outs), [0] * len(outs)


def _canonical_key(x: HloValue, dtype: DType) -> HloValue:
    """JAX's ``_canonicalize_float_for_sort``: -0.0 as 0.0, every NaN as NaN."""
    if dtype not in FLOATING:
        return x
    scalar = ShapedArray((), dtype)
    zero = full(0.0, scalar)
    flt = hlo.ComparisonTypeAttr.get("FLOAT")
    is_zero = hlo.compare(x, zero, hlo.ComparisonDirectionAttr.get("EQ"), compare_type=flt)
    r = hlo.select(is_zero, full(0.0, scalar), x)
    is_nan = hlo.compare(x, x, hlo.ComparisonDirectionAttr.get("NE"), compare_type=flt)
    return hlo.select(is_nan, full(float("nan"), scalar), r)


def _cmp(x: HloValue, y: HloValue, dtype: DType, direction: str) -> HloValue:
    kind = "TOTALORDER" if dtype in FLOATING else compare_type(dtype)
    return hlo.compare(
        x, y, hlo.ComparisonDirectionAttr.get(direction), compare_type=hlo.ComparisonTypeAttr.get(kind)
    )


def _sort_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    d, is_stable, num_keys = _sort_params(eqn.params)
    dtypes = [a.aval.dtype for a in eqn.inputs]
    op = hlo.SortOp([tensor_type(a.aval) for a in eqn.out_binders], list(args), dimension=d, is_stable=is_stable)
    scalars = [ir.RankedTensorType.get([], element_type(t)) for t in dtypes for _ in (0, 1)]
    block = op.regions[0].blocks.append(*scalars)
    with ir.InsertionPoint(block):
        a = block.arguments
        # the key components, most significant first: a complex key is its
        # real part, then its imaginary part (JAX's lexicographic order)
        parts: list[tuple[HloValue, HloValue, DType]] = []
        for k in range(num_keys):
            x, y, dt = a[2 * k], a[2 * k + 1], dtypes[k]
            if dt in REAL_OF:
                parts += [(hlo.real(x), hlo.real(y), REAL_OF[dt]), (hlo.imag(x), hlo.imag(y), REAL_OF[dt])]
            else:
                parts.append((x, y, dt))
        p: HloValue | None = None
        for x0, y0, dt in reversed(parts):
            x, y = _canonical_key(x0, dt), _canonical_key(y0, dt)
            lt = _cmp(x, y, dt, "LT")
            p = lt if p is None else hlo.or_(lt, hlo.and_(_cmp(x, y, dt, "EQ"), p))
        assert p is not None
        hlo.return_([p])
    return list(op.results)


sort_p = Primitive(
    "sort", _sort_impl, _sort_abstract,
    Rules(jvp=_sort_jvp, transpose=_sort_t, batch=_sort_batch, lower=_sort_lower),
)


# -- top_k(x; k, axis) ----------------------------------------------------------------
def _top_k_params(params: Params) -> tuple[int, int]:
    return get_int("top_k", params, "k"), get_int("top_k", params, "axis")


def _total_order_key(x: NDArray) -> NDArray:
    """Integers that order like ``x`` in IEEE total order (-NaN < -inf < ... <
    -0.0 < 0.0 < ... < inf < NaN)."""
    if x.dtype.kind == "f":
        ints = np.dtype(f"int{x.dtype.itemsize * 8}")
        bits = x.view(ints)
        mask = np.asarray(np.iinfo(ints).max, ints)
        return np.where(bits < 0, bits ^ mask, bits)
    if x.dtype == np.bool_:
        return x.astype(np.int8)
    return x


def _top_k_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    k, axis = _top_k_params(params)
    x = np.moveaxis(args[0], axis, -1)
    order = np.argsort(np.invert(_total_order_key(x)), axis=-1, kind="stable")[..., :k]  # descending
    values = np.take_along_axis(x, order, axis=-1)
    return [np.moveaxis(values, -1, axis), np.moveaxis(order.astype(np.int32), -1, axis)]


def _top_k_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    if len(avals) != 1:
        raise PrimitiveTypeError(f"top_k takes 1 operand, got {len(avals)}: ({types_str(avals)})")
    (x,) = avals
    k, axis = _top_k_params(params)
    if x.ndim == 0:
        raise PrimitiveTypeError(f"top_k: the operand must have rank >= 1, got {x.str_short()}")
    if not 0 <= axis < x.ndim:
        raise PrimitiveAxisError(f"top_k: axis={axis} is out of bounds for {x.str_short()}")
    if not 0 <= k <= x.shape[axis]:
        raise ShapeError(
            f"top_k: k={k} must be between 0 and the size of axis {axis} of {x.str_short()}"
        )
    shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
    return [ShapedArray(shape, x.dtype), ShapedArray(shape, int32)]


def _to_last(x: Value, axis: int) -> Value:
    nd = aval_of(x).ndim
    if axis == nd - 1:
        return x
    return transpose(x, tuple(i for i in range(nd) if i != axis) + (axis,))


def _from_last(x: Value, axis: int) -> Value:
    nd = aval_of(x).ndim
    if axis == nd - 1:
        return x
    perm = list(range(nd - 1))
    perm.insert(axis, nd - 1)
    return transpose(x, tuple(perm))


def take_along_last(t: Value, idx: Value) -> Value:
    """``t[..., idx[..., j]]`` for ``t`` of shape ``(..., n)`` and int32 ``idx``
    of shape ``(..., k)``: one 1-d ``gather`` on the flattened ``t``."""
    ta, ia = aval_of(t), aval_of(idx)
    n, k = ta.shape[-1], ia.shape[-1]
    lead = ia.shape[:-1]
    rows = math.prod(lead)
    if rows * k == 0 or n == 0:
        return zeros_like_aval(ShapedArray(ia.shape, ta.dtype))
    row_start: Value = bind1(iota_p, (), params_of(("dtype", int32), ("shape", ia.shape), ("dimension", 0)))
    if len(lead) != 1:
        flat_rows = bind1(iota_p, (), params_of(("dtype", int32), ("shape", (rows, k)), ("dimension", 0)))
        row_start = reshape(flat_rows, ia.shape)
    flat_idx = add(idx, mul(row_start, full_like(n, row_start))) if lead else idx
    g = GatherParams((), (0,), (0,), (1,), "promise_in_bounds", None, False, False)
    out = gather_(reshape(t, (rows * n,)), reshape(flat_idx, (rows * k, 1)), g)
    return reshape(out, ia.shape)


def _top_k_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x,), (t,) = primals, tangents
    values, idx = bind(top_k_p, (x,), params)
    if isinstance(t, Zero):
        return [values, idx], [zero_like(values), zero_like(idx)]
    _, axis = _top_k_params(params)
    tout = _from_last(take_along_last(_to_last(t, axis), _to_last(idx, axis)), axis)
    return [values, idx], [tout, zero_like(idx)]


def _top_k_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    assert b is not None
    k, axis = _top_k_params(params)
    outs = bind(top_k_p, (x,), params_of(("k", k), ("axis", axis + (axis >= b))))
    return list(outs), [b, b]


def _top_k_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    k, axis = _top_k_params(eqn.params)
    nd = eqn.inputs[0].aval.ndim
    x = args[0]
    perm: list[int] | None = None
    if axis != nd - 1:
        perm = list(range(nd))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        x = hlo.transpose(x, perm)
    _chlo.register_dialect(ir.Context.current)  # chlo is not among the context's dialects
    results: list[HloValue] = list(chlo.top_k(x, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k)))
    if perm is not None:
        results = [hlo.transpose(r, perm) for r in results]
    return results


top_k_p = Primitive(
    "top_k", _top_k_impl, _top_k_abstract,
    Rules(jvp=_top_k_jvp, batch=_top_k_batch, lower=_top_k_lower),
)


FAMILY = Family("sorting", (sort_p, top_k_p))


# -- the jax.lax functions ----------------------------------------------------------
def _check_bool(op: str, what: str, v: object) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise PrimitiveTypeError(f"{op}: {what} must be a bool, got {v!r}")
    return bool(v)


@overload
def sort(operand: ArrayLike, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Array: ...


@overload
def sort(
    operand: Sequence[ArrayLike], dimension: int = -1, is_stable: bool = True, num_keys: int = 1
) -> tuple[Array, ...]: ...


def sort(
    operand: ArrayLike | Sequence[ArrayLike], dimension: int = -1, is_stable: bool = True,
    num_keys: int = 1,
) -> Array | tuple[Array, ...]:
    """``jax.lax.sort``: one array sorted along ``dimension``, or a sequence of
    arrays sorted together, lexicographically by the first ``num_keys``."""
    stable = _check_bool("sort", "is_stable", is_stable)
    nk = _int("sort", "num_keys", num_keys)
    if isinstance(operand, (list, tuple)):
        ops = list(operand)
        if not 1 <= nk <= len(ops):
            raise PrimitiveTypeError(
                f"sort: num_keys={nk} must be between 1 and the number of operands ({len(ops)})"
            )
        d = canonical_axis("sort", dimension, aval_of(ops[0]).ndim)
        return tuple(_sort(ops, d, stable, nk))
    if nk != 1:
        raise PrimitiveTypeError(f"sort: num_keys={nk} must be 1 for a single operand")
    single: ArrayLike = operand  # type: ignore[assignment]  # not a list or tuple: one array
    d = canonical_axis("sort", dimension, aval_of(single).ndim)
    return _sort([single], d, stable, 1)[0]


def sort_key_val(
    keys: ArrayLike, values: ArrayLike, dimension: int = -1, is_stable: bool = True
) -> tuple[Array, Array]:
    """``keys`` sorted along ``dimension`` and ``values`` permuted alike
    (``jax.lax.sort_key_val``)."""
    k, v = sort([keys, values], dimension, is_stable, 1)
    return k, v


def top_k(operand: ArrayLike, k: int, *, axis: int = -1) -> tuple[Array, Array]:
    """The ``k`` largest entries along ``axis`` (the last by default) and their
    int32 indices, largest first, equal entries lower index first
    (``jax.lax.top_k``)."""
    kk = _int("top_k", "k", k)
    if kk < 0:
        raise PrimitiveTypeError(f"top_k: k must be nonnegative, got {kk}")
    nd = aval_of(operand).ndim
    if nd == 0:
        raise PrimitiveTypeError(f"top_k: the operand must have rank >= 1, got {aval_of(operand).str_short()}")
    a = canonical_axis("top_k", axis, nd)
    values, indices = bind(top_k_p, (operand,), params_of(("k", kk), ("axis", a)))
    return values, indices
