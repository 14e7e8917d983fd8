"""The linear structural primitives, and every rule for them: ``broadcast``,
``reshape``, ``transpose``, ``reduce_sum``.

They sit at the bottom of the families: each one's JVP is itself, and each
one's transpose is another of the four (``broadcast`` <-> ``reduce_sum``),
so this module needs no other family. The helpers that every other family's
rules use to move batch axes (``move_batch_axis``) and to make zeros
(``zeros_like_aval``, ``full_like``, ``instantiate_zeros``) live here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import from_numpy
from ..core.avals import ShapedArray, physical_aval
from ..core.dtypes import EXTENDED, DType, bool_
from ..core.errors import PrimitiveTypeError, ShapeError
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import (
    BatchDim,
    BatchRule,
    Family,
    JvpRule,
    Primal,
    Rules,
    Tangent,
    UndefPrimal,
    Zero,
    floats_on_device,
)
from ..core.trace import EVAL_TRACE, Value, aval_of, bind1, current_trace, exact, memo_abstract
from ..hlo import HloValue, LoweringContext, reduce, tensor_type
from ._params import get_ints, params_of

Values = Sequence[HloValue]


def types_str(avals: Sequence[ShapedArray]) -> str:
    return ", ".join(a.str_short() for a in avals)


def check_arity(name: str, avals: Sequence[ShapedArray], n: int) -> None:
    if len(avals) != n:
        raise PrimitiveTypeError(f"{name} takes {n} operand(s), got {len(avals)}: ({types_str(avals)})")


def primal_aval(x: Primal) -> ShapedArray:
    """The type of a transpose rule's operand, defined or not."""
    return x.aval if isinstance(x, UndefPrimal) else aval_of(x)


# -- the ops rules build with ---------------------------------------------------
def broadcast_to(x: Value, shape: tuple[int, ...], axes: tuple[int, ...]) -> Value:
    """``broadcast``: ``x`` in ``shape``, with output ``axes`` the ones it lacks."""
    return bind1(broadcast_p, (x,), params_of(("shape", shape), ("axes", axes)))


def reshape(x: Value, new_sizes: tuple[int, ...]) -> Value:
    return bind1(reshape_p, (x,), params_of(("new_sizes", new_sizes)))


def transpose(x: Value, perm: tuple[int, ...]) -> Value:
    return bind1(transpose_p, (x,), params_of(("perm", perm)))


def reduce_sum(x: Value, axis: tuple[int, ...]) -> Value:
    return bind1(reduce_sum_p, (x,), params_of(("axis", axis)))


def full_like(value: float, like: Value) -> Value:
    """``value`` broadcast to ``like``'s shape and dtype (a literal when staged)."""
    a = aval_of(like)
    s = np.asarray(value, a.dtype)
    if not a.shape:
        return s
    return broadcast_to(s, a.shape, tuple(range(len(a.shape))))


def _no_keys(words: Value) -> Value:
    raise RuntimeError("zeros of typed keys: typedax.primitives.keys is not imported (import typedax)")


#: ``random_wrap``: typed keys of their words. The key family
#: (``keys.py``) builds on this module and installs it here when imported.
_WRAP_KEYS: list[Callable[[Value], Value]] = [_no_keys]


def install_wrap_keys(wrap: Callable[[Value], Value]) -> None:
    _WRAP_KEYS[0] = wrap


def zeros_like_aval(aval: ShapedArray) -> Value:
    """Zeros of type ``aval``: a NumPy array when evaluating eagerly, else a
    broadcast scalar (so staged jaxprs get a literal, not an array constant).
    For typed keys, the keys whose words are zeros (a key is never a literal)."""
    if aval.dtype in EXTENDED:
        return _WRAP_KEYS[0](zeros_like_aval(physical_aval(aval)))
    if current_trace() is EVAL_TRACE:  # an Array, as every eager result
        return from_numpy(np.zeros(aval.shape, aval.dtype))
    z = exact(np.zeros((), aval.dtype))
    if not aval.shape:
        return z
    return broadcast_to(z, aval.shape, tuple(range(len(aval.shape))))


_ZEROS: dict[tuple[tuple[int, ...], DType], Zero] = {}


def zero_of(shape: tuple[int, ...], dtype: DType) -> Zero:
    """``Zero(ShapedArray(shape, dtype))``, shared (constants' tangents are
    made on every operation, so this is on the eager hot path)."""
    z = _ZEROS.get((shape, dtype))
    if z is None:
        if len(_ZEROS) > 4096:
            _ZEROS.clear()
        z = _ZEROS[(shape, dtype)] = Zero(ShapedArray(shape, dtype))
    return z


def zero_like(x: Value) -> Zero:
    a = aval_of(x)
    return zero_of(a.shape, a.dtype)


def instantiate_zeros(t: Tangent) -> Value:
    """A tangent's value: ``Zero`` becomes an array of zeros."""
    return zeros_like_aval(t.aval) if isinstance(t, Zero) else t


def move_batch_axis(axis_size: int, src: BatchDim, dst: int, x: Value) -> Value:
    """``x`` with its batch axis moved from ``src`` to ``dst``; an unbatched
    ``x`` (``src`` None) is broadcast along a new axis ``dst``."""
    if src is None:
        shape = aval_of(x).shape
        return broadcast_to(x, shape[:dst] + (axis_size,) + shape[dst:], (dst,))
    if src == dst:
        return x
    perm = [i for i in range(aval_of(x).ndim) if i != src]
    perm.insert(dst, src)
    return transpose(x, tuple(perm))


def linear_jvp(prim: Primitive) -> JvpRule:
    """The JVP of a primitive linear in its one operand: the tangent goes through it."""

    def rule(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        (x,), (t,) = primals, tangents
        y = bind1(prim, (x,), params)
        if isinstance(t, Zero):
            return [y], [zero_like(y)]
        return [y], [bind1(prim, (t,), params)]

    return rule


def zero_jvp(prim: Primitive) -> JvpRule:
    """The JVP of a primitive whose result does not move with its operands
    (integer or boolean results, rounding): a zero tangent."""

    def rule(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        out = bind1(prim, primals, params)
        return [out], [zero_like(out)]

    return rule


def _out(eqn: Eqn) -> ShapedArray:
    return eqn.out_binders[0].aval


# -- broadcast(x; shape, axes): ``axes`` are the output axes x does not have --
def broadcast_operand_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    dropped = set(axes)
    return tuple(d for i, d in enumerate(shape) if i not in dropped)


def _broadcast_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    shape = get_ints("broadcast", params, "shape")
    axes = get_ints("broadcast", params, "axes")
    x = np.expand_dims(args[0], axes) if axes else args[0]
    return [np.broadcast_to(x, shape)]


@memo_abstract
def _broadcast_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("broadcast", avals, 1)
    (x,) = avals
    shape = get_ints("broadcast", params, "shape")
    axes = get_ints("broadcast", params, "axes")
    if any(d < 0 for d in shape):
        raise PrimitiveTypeError(f"broadcast: negative size in shape={shape}")
    if len(set(axes)) != len(axes) or any(not 0 <= a < len(shape) for a in axes):
        raise PrimitiveTypeError(f"broadcast: axes={axes} must be distinct axes of shape={shape}")
    kept = broadcast_operand_shape(shape, tuple(sorted(axes)))
    if len(kept) != x.ndim or any(d not in (1, k) for d, k in zip(x.shape, kept)):
        raise PrimitiveTypeError(
            f"broadcast: operand {x.str_short()} does not fit shape={shape} with new axes={axes}"
        )
    return [ShapedArray(shape, x.dtype)]


def _broadcast_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    operand = primal_aval(ps[0]).shape
    shape = get_ints("broadcast", params, "shape")
    new_axes = set(get_ints("broadcast", params, "axes"))
    kept = [i for i in range(len(shape)) if i not in new_axes]
    expanded = {k for k, d in zip(kept, operand) if d == 1 and shape[k] != 1}
    summed = tuple(sorted(new_axes | expanded))
    out = ct
    if summed:
        out = reduce_sum(out, summed)
    if aval_of(out).shape != operand:
        out = reshape(out, operand)
    return [out]


def _broadcast_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    assert b is not None
    shape = get_ints("broadcast", params, "shape")
    axes = get_ints("broadcast", params, "axes")
    new_axes = set(axes)
    kept = [i for i in range(len(shape)) if i not in new_axes]
    # operand axis i lands on output axis kept[i]: the batch axis goes just
    # before the output axis that operand axis b (per example) lands on
    p = kept[b] if b < len(kept) else len(shape)
    out_shape = shape[:p] + (size,) + shape[p:]
    out_axes = tuple(a if a < p else a + 1 for a in axes)
    return [broadcast_to(x, out_shape, out_axes)], [p]


def _broadcast_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    shape = get_ints("broadcast", eqn.params, "shape")
    axes = set(get_ints("broadcast", eqn.params, "axes"))
    kept = [i for i in range(len(shape)) if i not in axes]
    return [hlo.broadcast_in_dim(tensor_type(_out(eqn)), args[0], kept)]


broadcast_p = Primitive(
    "broadcast", _broadcast_impl, _broadcast_abstract,
    rules_for=lambda p: Rules(
        jvp=linear_jvp(p), transpose=_broadcast_t, batch=_broadcast_batch, lower=_broadcast_lower
    ),
)


# -- reshape(x; new_sizes) ---------------------------------------------------
def _reshape_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.reshape(args[0], get_ints("reshape", params, "new_sizes"))]


@memo_abstract
def _reshape_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("reshape", avals, 1)
    (x,) = avals
    new_sizes = get_ints("reshape", params, "new_sizes")
    if any(d < 0 for d in new_sizes) or math.prod(new_sizes) != x.size:
        raise ShapeError(f"reshape: cannot reshape {x.str_short()} to new_sizes={new_sizes}")
    return [ShapedArray(new_sizes, x.dtype)]


def _reshape_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    return [reshape(cts[0], primal_aval(ps[0]).shape)]


def _reshape_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    new_sizes = get_ints("reshape", params, "new_sizes")
    return [reshape(move_batch_axis(size, b, 0, x), (size,) + new_sizes)], [0]


def _reshape_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    return [hlo.reshape(tensor_type(_out(eqn)), args[0])]


reshape_p = Primitive(
    "reshape", _reshape_impl, _reshape_abstract,
    rules_for=lambda p: Rules(
        jvp=linear_jvp(p), transpose=_reshape_t, batch=_reshape_batch, lower=_reshape_lower
    ),
)


# -- transpose(x; perm) ------------------------------------------------------
def _transpose_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.transpose(args[0], get_ints("transpose", params, "perm"))]


@memo_abstract
def _transpose_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("transpose", avals, 1)
    (x,) = avals
    perm = get_ints("transpose", params, "perm")
    if sorted(perm) != list(range(x.ndim)):
        raise PrimitiveTypeError(f"transpose: perm={perm} is not a permutation of {x.str_short()}'s axes")
    return [ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)]


def _transpose_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    perm = get_ints("transpose", params, "perm")
    return [transpose(cts[0], tuple(int(i) for i in np.argsort(perm)))]


def _transpose_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    assert b is not None
    perm = get_ints("transpose", params, "perm")
    return [transpose(x, (b,) + tuple(p + (p >= b) for p in perm))], [0]


def _transpose_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    return [hlo.transpose(args[0], list(get_ints("transpose", eqn.params, "perm")))]


transpose_p = Primitive(
    "transpose", _transpose_impl, _transpose_abstract,
    rules_for=lambda p: Rules(
        jvp=linear_jvp(p), transpose=_transpose_t, batch=_transpose_batch, lower=_transpose_lower
    ),
)


# -- reduce_sum(x; axis) -------------------------------------------------------
def reduced_aval(
    name: str, avals: Sequence[ShapedArray], params: Params, *, allow_bool: bool, nonempty: bool
) -> list[ShapedArray]:
    """The abstract evaluation shared by the reductions over ``axis``."""
    check_arity(name, avals, 1)
    (x,) = avals
    axis = get_ints(name, params, "axis")
    if len(set(axis)) != len(axis) or any(not 0 <= a < x.ndim for a in axis):
        raise PrimitiveTypeError(f"{name}: axis={axis} must be distinct axes of {x.str_short()}")
    if x.dtype == bool_ and not allow_bool:
        raise PrimitiveTypeError(f"{name} does not accept bool operands, got {x.str_short()}")
    if nonempty and any(x.shape[a] == 0 for a in axis):
        raise PrimitiveTypeError(f"{name}: cannot reduce {x.str_short()} over an empty axis")
    dropped = set(axis)
    return [ShapedArray(tuple(d for i, d in enumerate(x.shape) if i not in dropped), x.dtype)]


def reduction_batch(prim: Primitive) -> BatchRule:
    """The batching rule of a reduction over ``axis``: shift the axes past the batch axis."""

    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        (x,), (b,) = vals, dims
        assert b is not None
        axis = get_ints(prim.name, params, "axis")
        new_axis = tuple(a + (a >= b) for a in axis)
        out_dim = b - sum(1 for a in axis if a < b)
        return [bind1(prim, (x,), params_of(("axis", new_axis)))], [out_dim]

    return rule


def _reduce_sum_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x = args[0]
    return [np.asarray(np.sum(x, axis=get_ints("reduce_sum", params, "axis"), dtype=x.dtype))]


@memo_abstract
def _reduce_sum_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return reduced_aval("reduce_sum", avals, params, allow_bool=False, nonempty=False)


def _reduce_sum_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    shape = primal_aval(ps[0]).shape
    axis = tuple(sorted(get_ints("reduce_sum", params, "axis")))
    if not axis:
        return [ct]
    return [broadcast_to(ct, shape, axis)]


def _reduce_sum_lower(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    axes = get_ints("reduce_sum", eqn.params, "axis")
    return [reduce(args[0], eqn.inputs[0].aval, _out(eqn), axes, 0, hlo.add, wide_halves=True)]


reduce_sum_p = Primitive(
    "reduce_sum", _reduce_sum_impl, _reduce_sum_abstract,
    rules_for=lambda p: Rules(
        jvp=linear_jvp(p), transpose=_reduce_sum_t, batch=reduction_batch(p),
        lower=_reduce_sum_lower,
        eval_on_device=floats_on_device,  # a float sum's order is XLA's
    ),
)


FAMILY = Family("structural", (broadcast_p, reshape_p, transpose_p, reduce_sum_p))
