"""Elementwise primitives: unary math, binary arithmetic, comparisons,
``select_n`` and ``convert_element_type``.

Binary primitives demand operands of one dtype, and of one shape except that
a rank-0 operand meets an operand of any shape (as ``jax.lax``'s n-ary
primitives do: ``mul a 2.0:f32[]``); the result has the other's shape.
``typedax.numpy`` promotes, and broadcasts the rest, before it binds them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import (
    COMPLEX,
    float32,
    FLOATING,
    INEXACT,
    INTEGER,
    SIGNED,
    SMALL_FLOATS,
    SUPPORTED,
    DType,
    bool_,
    int32,
    int_range,
    is_inexact,
    real_dtype,
)
from ..core.errors import NonLinearError, PrimitiveTypeError
from ..core.ir import NO_PARAMS, Eqn, NDArray, Params, Primitive
from ..core.rules import (
    BatchDim,
    BatchRule,
    EvalOnDevice,
    Family,
    JvpRule,
    LoweringRule,
    Primal,
    Rules,
    Tangent,
    TransposeRule,
    UndefPrimal,
    Zero,
    complex_on_device,
    unbatched_aval,
)
from ..core.trace import Value, aval_of, bind1, memo_abstract, scalar_as
from ..hlo import HloValue, LoweringContext, compare, full, tensor_type
from ._params import get_dtype, get_int, params_of
from .structural import (
    broadcast_to,
    check_arity as _check_arity,
    full_like,
    instantiate_zeros,
    move_batch_axis,
    primal_aval,
    reduce_sum,
    types_str as _types,
    zero_jvp,
    zero_like,
    zero_of,
    zeros_like_aval,
)

NUMERIC: frozenset[DType] = FLOATING | INTEGER
#: What order comparisons accept: the real types and bool (JAX's ``_ordered``;
#: complex numbers have no order). ``max`` and ``min`` take complex numbers
#: too, lexicographically (as JAX's).
ORDERED: frozenset[DType] = NUMERIC | {bool_}
#: The arithmetic types: integers, floats and complex (JAX's ``_num``).
ARITH: frozenset[DType] = NUMERIC | COMPLEX
#: Every number type and bool (JAX's ``_any``): ``eq``, ``ne``.
ANY_DTYPE: frozenset[DType] = ORDERED | COMPLEX

UnaryFn = Callable[[NDArray], object]
BinaryFn = Callable[[NDArray, NDArray], object]


def _kinds(allowed: frozenset[DType]) -> str:
    """The dtypes an error message names: the small floats (issue 29, item 7)
    go without saying, as the floats they are."""
    return "/".join(d.name for d in SUPPORTED if d in allowed and d not in SMALL_FLOATS)


def _unary(
    name: str,
    fn: UnaryFn,
    allowed: frozenset[DType],
    rules_for: Callable[[Primitive], Rules],
    real_out: bool = False,
) -> Primitive:
    """An elementwise primitive of one operand whose result has its type
    (with ``real_out``, the real type of a complex operand: ``abs``)."""
    kinds = _kinds(allowed)

    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        x = args[0]
        return [np.asarray(fn(x), dtype=real_dtype(x.dtype) if real_out else x.dtype)]

    def abstract_eval(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        _check_arity(name, avals, 1)
        (x,) = avals
        if x.dtype not in allowed:
            raise PrimitiveTypeError(f"{name} accepts {kinds} operands, got {x.str_short()}")
        if real_out and x.dtype in COMPLEX:
            return [ShapedArray(x.shape, real_dtype(x.dtype), x.weak_type)]
        return [x]

    return Primitive(name, impl, abstract_eval, rules_for=rules_for, pure_types=True)


def _binary(
    name: str,
    fn: BinaryFn,
    allowed: frozenset[DType],
    out: DType | None,
    rules_for: Callable[[Primitive], Rules],
) -> Primitive:
    kinds = _kinds(allowed)

    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        x, y = args  # a rank-0 operand broadcasts (NumPy's rule)
        return [np.asarray(fn(x, y), dtype=out or x.dtype)]

    def abstract_eval(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        _check_arity(name, avals, 2)
        x, y = avals
        xs, ys = x.shape, y.shape
        if x.dtype != y.dtype or (xs != ys and xs and ys):
            raise PrimitiveTypeError(
                f"{name} requires operands of one shape and dtype (or a rank-0 operand of that "
                f"dtype), got ({_types(avals)})"
            )
        if x.dtype not in allowed:
            raise PrimitiveTypeError(f"{name} accepts {kinds} operands, got ({_types(avals)})")
        big = y if not xs and ys else x  # the result has the non-scalar operand's shape
        return [big if out is None else ShapedArray(big.shape, out)]

    return Primitive(name, impl, abstract_eval, rules_for=rules_for, pure_types=True)


def _logistic(x: NDArray) -> object:
    return 1.0 / (1.0 + np.exp(np.subtract(np.zeros((), x.dtype), x)))


def _div(x: NDArray, y: NDArray) -> object:
    if x.dtype.kind in "fc":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.divide(x, y)
    # XLA's integer division: toward zero; x / 0 is -1 (all ones: for
    # unsigned too); INT_MIN / -1 is INT_MIN (it overflows back)
    zero = y == 0
    if x.dtype.kind == "i":
        overflow = (y == -1) & (x == int_range(x.dtype)[0])
        bad = zero | overflow
    else:
        overflow = np.zeros((), np.bool_)
        bad = zero
    if not bad.any():
        q = np.floor_divide(x, y)
        return q + ((q < 0) & (q * y != x)).astype(x.dtype)
    safe = np.where(bad, np.ones((), y.dtype), y)
    q = np.floor_divide(x, safe)
    q = q + ((q < 0) & (q * safe != x)).astype(x.dtype)
    q = np.where(overflow, x, q)
    return np.where(zero, np.asarray(-1).astype(x.dtype), q)


def _complex_pick(x: NDArray, y: NDArray, greater: bool) -> object:
    """JAX's max (``greater``) or min of complex numbers: lexicographic on
    (real, imag), ``y`` on ties and NaNs (``_minmax_complex_lowering``)."""
    cmp = np.greater if greater else np.less
    with np.errstate(invalid="ignore"):
        pick_x = np.where(x.real == y.real, cmp(x.imag, y.imag), cmp(x.real, y.real))
    return np.where(pick_x, x, y)


def _complex_pick_hlo(greater: bool) -> Callable[[HloValue, HloValue], HloValue]:
    """``_complex_pick`` in StableHLO."""
    direction = "GT" if greater else "LT"

    def op(x: HloValue, y: HloValue) -> HloValue:
        rx, ry, ix, iy = hlo.real(x), hlo.real(y), hlo.imag(x), hlo.imag(y)
        part = ShapedArray((), float32)  # (compare reads only the kind: FLOAT)
        same = compare(rx, ry, part.dtype, "EQ")
        pick_x = hlo.select(same, compare(ix, iy, part.dtype, direction), compare(rx, ry, part.dtype, direction))
        return hlo.select(pick_x, x, y)

    return op


def _minmax_hlo(greater: bool) -> Callable[[HloValue, HloValue], HloValue]:
    real_op = hlo.maximum if greater else hlo.minimum
    complex_op = _complex_pick_hlo(greater)

    def op(x: HloValue, y: HloValue) -> HloValue:
        is_complex = isinstance(ir.RankedTensorType(x.type).element_type, ir.ComplexType)
        return complex_op(x, y) if is_complex else real_op(x, y)

    return op


def _max(x: NDArray, y: NDArray) -> object:
    """XLA's max: NaN if either is; of two zeros, +0 unless both are -0."""
    if x.dtype.kind == "c":
        return _complex_pick(x, y, True)
    m = np.maximum(x, y)
    if x.dtype.kind == "f":
        return np.where((x == 0) & (y == 0), np.add(x, y), m)  # +0 + -0 is +0; -0 + -0 is -0
    return m


def _min(x: NDArray, y: NDArray) -> object:
    """XLA's min: NaN if either is; of two zeros, -0 unless both are +0."""
    if x.dtype.kind == "c":
        return _complex_pick(x, y, False)
    m = np.minimum(x, y)
    if x.dtype.kind == "f":
        return np.where((x == 0) & (y == 0), np.negative(np.add(np.negative(x), np.negative(y))), m)
    return m


def _neg(x: NDArray) -> object:
    return np.negative(x)  # -(+0.0) is -0.0, as in XLA


# -- the ops the rules below build with: the primitives, without promotion ----
def neg(x: Value) -> Value:
    return bind1(neg_p, (x,), NO_PARAMS)


def sin(x: Value) -> Value:
    return bind1(sin_p, (x,), NO_PARAMS)


def cos(x: Value) -> Value:
    return bind1(cos_p, (x,), NO_PARAMS)


def log(x: Value) -> Value:
    return bind1(log_p, (x,), NO_PARAMS)


def add(x: Value, y: Value) -> Value:
    return bind1(add_p, (x, y), NO_PARAMS)


def sub(x: Value, y: Value) -> Value:
    return bind1(sub_p, (x, y), NO_PARAMS)


def mul(x: Value, y: Value) -> Value:
    return bind1(mul_p, (x, y), NO_PARAMS)


def div(x: Value, y: Value) -> Value:
    return bind1(div_p, (x, y), NO_PARAMS)


def pow(x: Value, y: Value) -> Value:  # noqa: A001 - jax.lax's name
    return bind1(pow_p, (x, y), NO_PARAMS)


def eq(x: Value, y: Value) -> Value:
    return bind1(eq_p, (x, y), NO_PARAMS)


def select(pred: Value, on_true: Value, on_false: Value) -> Value:
    return bind1(select_n_p, (pred, on_false, on_true), NO_PARAMS)


def convert(x: Value, dtype: DType) -> Value:
    return bind1(convert_element_type_p, (x,), params_of(("new_dtype", dtype)))


def add_tangents(a: Tangent, b: Tangent) -> Tangent:
    """``a + b`` where either may be a symbolic ``Zero``."""
    if isinstance(a, Zero):
        return b
    if isinstance(b, Zero):
        return a
    return add(a, b)


def _defined(name: str, x: Primal, role: str) -> Value:
    if isinstance(x, UndefPrimal):
        raise NonLinearError(name, f"its {role} is a linear value ({x.aval.str_short()})")
    return x


# -- rules shared by the unary and binary primitives --------------------------
def elementwise_batch(prim: Primitive) -> BatchRule:
    """Batching of a one-operand elementwise primitive: the batch axis stays."""

    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        return [bind1(prim, vals, params)], [dims[0]]

    return rule


def _binary_batch(prim: Primitive) -> BatchRule:
    """Batching of a two-operand elementwise primitive: one batch axis for
    both. An unbatched rank-0 operand stays as it is (it meets any shape); a
    batched one (physically ``[B]``) beside a non-scalar operand is broadcast
    to the other's batched shape first."""

    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        (x, y), (dx, dy) = vals, dims
        if dx is None:  # y batched
            assert dy is not None
            y2, x2, d = _one_batched(size, y, dy, x)
            return [bind1(prim, (x2, y2), params)], [d]
        if dy is None:  # x batched
            x2, y2, d = _one_batched(size, x, dx, y)
            return [bind1(prim, (x2, y2), params)], [d]
        nx, ny = aval_of(x).ndim, aval_of(y).ndim
        if nx == 1 and ny > 1:  # a batched scalar beside a batched array
            return [bind1(prim, (_spread_batched(x, dx, aval_of(y).shape, dy), y), params)], [dy]
        if ny == 1 and nx > 1:
            return [bind1(prim, (x, _spread_batched(y, dy, aval_of(x).shape, dx)), params)], [dx]
        if dx == dy:
            return [bind1(prim, (x, y), params)], [dx]
        return [bind1(prim, (x, move_batch_axis(size, dy, dx, y)), params)], [dx]

    return rule


def _one_batched(size: int, b: Value, db: int, u: Value) -> tuple[Value, Value, int]:
    """The operands of a binary primitive when ``b`` is batched (at ``db``)
    and ``u`` is not, as they may be bound, and the result's batch axis."""
    ub = aval_of(u).shape
    if not ub:  # an unbatched scalar meets any shape
        return b, u, db
    if aval_of(b).ndim == 1:  # a batched scalar ([B]) beside u's shape: both to [B, *ub]
        return _spread_batched(b, db, (size,) + ub, 0), move_batch_axis(size, None, 0, u), 0
    return b, move_batch_axis(size, None, db, u), db


def _spread_batched(s: Value, ds: BatchDim, shape: tuple[int, ...], axis: BatchDim) -> Value:
    """A batched scalar ``s`` (physically ``[B]``) broadcast to ``shape``,
    whose batch axis is ``axis``."""
    assert ds == 0 and axis is not None
    return broadcast_to(s, shape, tuple(i for i in range(len(shape)) if i != axis))


def _unary_rules(
    tangent: Callable[[Value, Value, Value], Value] | None,
    op: Callable[[HloValue], HloValue],
    transpose: TransposeRule | None = None,
) -> Callable[[Primitive], Rules]:
    """``tangent(t, x, y)``: the output tangent for input tangent ``t``, input
    ``x`` and output ``y`` (called only for a nonzero ``t``; ``None`` for a
    piecewise-constant function, whose tangent is zero); ``op`` the
    StableHLO op."""

    def rules(prim: Primitive) -> Rules:
        def jvp(
            primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
        ) -> tuple[list[Value], list[Tangent]]:
            (x,), (t,) = primals, tangents
            y = bind1(prim, (x,), params)
            if isinstance(t, Zero):
                return [y], [t]
            if tangent is None:
                return [y], [zero_like(y)]
            return [y], [tangent(t, x, y)]

        def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
            return [op(args[0])]

        return Rules(
            jvp=jvp, transpose=transpose, batch=elementwise_batch(prim), lower=lower, eval_on_device=complex_on_device
        )

    return rules


def _binary_rules(
    jvp: JvpRule | None,
    op: Callable[[HloValue, HloValue], HloValue],
    transpose: TransposeRule | None = None,
    on_device: EvalOnDevice | None = None,
) -> Callable[[Primitive], Rules]:
    def rules(prim: Primitive) -> Rules:
        return Rules(
            jvp=jvp if jvp is not None else _chooser_jvp(prim),
            transpose=transpose,
            batch=_binary_batch(prim),
            lower=lower_binary(op),
            eval_on_device=on_device if on_device is not None else complex_on_device,
        )

    return rules


def lower_binary(op: Callable[[HloValue, HloValue], HloValue]) -> LoweringRule:
    """The lowering of a binary elementwise primitive to ``op``: StableHLO's
    elementwise ops take operands of one shape, so a rank-0 operand beside a
    non-scalar one is broadcast to the result's shape first."""

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
        x, y = _same_shape(eqn, args)
        return [op(x, y)]

    return lower


def _same_shape(eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    """The operands of a binary equation at the result's shape: each rank-0
    operand beside a larger one broadcast (``stablehlo.broadcast_in_dim``)."""
    shape = eqn.out_binders[0].aval.shape
    out: list[HloValue] = []
    for x, a in zip(args, eqn.inputs):
        aval = a.aval
        if aval.shape != shape:
            x = hlo.broadcast_in_dim(tensor_type(ShapedArray(shape, aval.dtype)), x, [])
        out.append(x)
    return out


def _comparison_rules(direction: str) -> Callable[[Primitive], Rules]:
    def rules(prim: Primitive) -> Rules:
        def jvp(
            primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
        ) -> tuple[list[Value], list[Tangent]]:
            out = bind1(prim, primals, params)
            return [out], [zero_of(aval_of(out).shape, bool_)]

        def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
            x, y = _same_shape(eqn, args)
            return [compare(x, y, eqn.inputs[0].aval.dtype, direction)]

        return Rules(jvp=jvp, batch=_binary_batch(prim), lower=lower)

    return rules


# -- JVP and transpose rules of the arithmetic --------------------------------
# A rank-0 operand beside a non-scalar one: its tangent is broadcast to the
# output's shape (``_fit``), and its cotangent is the output's summed over
# every axis (``_unbroadcast``).
def _fit(t: Value, out: Value) -> Value:
    """Tangent ``t`` (of an operand's shape) in the shape of the output ``out``."""
    shape = aval_of(out).shape
    if aval_of(t).shape == shape:
        return t
    return broadcast_to(t, shape, tuple(range(len(shape))))


def _unbroadcast(ct: Value, p: Primal) -> Value:
    """The output's cotangent ``ct`` as the cotangent of operand ``p``:
    summed over every axis when ``p`` is a rank-0 operand beside a larger one."""
    shape = aval_of(ct).shape
    if primal_aval(p).shape == shape:
        return ct
    return reduce_sum(ct, tuple(range(len(shape))))


def _add_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(add_p, (x, y), params)
    t = add_tangents(tx, ty)
    return [out], [zero_like(out) if isinstance(t, Zero) else _fit(t, out)]


def _sub_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(sub_p, (x, y), params)
    if isinstance(ty, Zero):
        return [out], [zero_like(out) if isinstance(tx, Zero) else _fit(tx, out)]
    if isinstance(tx, Zero):
        return [out], [_fit(neg(ty), out)]
    return [out], [sub(tx, ty)]


def _mul_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(mul_p, (x, y), params)
    a: Tangent = tx if isinstance(tx, Zero) else mul(tx, y)
    b: Tangent = ty if isinstance(ty, Zero) else mul(x, ty)
    t = add_tangents(a, b)
    return [out], [zero_like(out) if isinstance(t, Zero) else t]


def _div_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(div_p, (x, y), params)
    a: Tangent = tx if isinstance(tx, Zero) else div(tx, y)
    b: Tangent = (  # d(x/y)/dy = -(x/y)/y
        ty if isinstance(ty, Zero) else neg(mul(ty, div(out, y)))
    )
    t = add_tangents(a, b)
    return [out], [zero_like(out) if isinstance(t, Zero) else t]


def _chooser_jvp(prim: Primitive) -> JvpRule:
    """max/min: the tangent of the chosen operand; half of each on ties (as JAX)."""

    def rule(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        (x, y), (tx, ty) = primals, tangents
        out = bind1(prim, (x, y), params)
        if isinstance(tx, Zero) and isinstance(ty, Zero):
            return [out], [zero_like(out)]

        def weight(mine: Value, other: Value) -> Value:
            # 1 where ``mine`` was chosen alone, 0.5 on a tie, 0 elsewhere
            on_tie = select(eq(other, out), full_like(0.5, out), full_like(1.0, out))
            return select(eq(mine, out), on_tie, full_like(0.0, out))

        a: Tangent = tx if isinstance(tx, Zero) else mul(tx, weight(x, y))
        b: Tangent = ty if isinstance(ty, Zero) else mul(ty, weight(y, x))
        return [out], [add_tangents(a, b)]

    return rule


def _pow_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(pow_p, (x, y), params)
    a: Tangent = tx
    if not isinstance(tx, Zero):  # d/dx = y * x**(y-1), and 0 where y == 0 (as JAX)
        dx = mul(y, pow(x, sub(y, full_like(1.0, y))))
        dx = select(eq(y, full_like(0.0, y)), full_like(0.0, dx), dx)  # a rank-0 y: a rank-0 selector
        a = mul(tx, dx)
    b: Tangent = ty
    if not isinstance(ty, Zero):  # d/dy = log(x) * x**y, with log(0) read as 0 (as JAX)
        is_zero = eq(x, full_like(0.0, x))
        safe_x = select(is_zero, full_like(1.0, x), x)
        b = mul(ty, mul(log(safe_x), out))
    return [out], [add_tangents(a, b)]


#: Exponents XLA's algebraic simplifier may rewrite when they are constants:
#: ``pow`` by 2, 3, -1 and 0.5 becomes ``x*x``, ``x*x*x``, ``1/x`` and
#: ``sqrt(x)`` (measured with jaxlib 0.10.2, ~1e-3 to 25% of results differ
#: from ``pow``'s; 0 and 1 give ``pow``'s value anyway); every half-integer
#: in [-4, 4], a margin for rewrites of a later XLA. A bounded set: one
#: compiled program per value.
_SPECIALIZED_EXPONENTS: frozenset[float] = frozenset(k / 2 for k in range(-8, 9))


def _pow_on_device(
    values: Sequence[NDArray], avals: Sequence[ShapedArray], params: Params
) -> tuple[int, ...] | None:
    """Eager ``pow`` is XLA's (it calls the C library's ``pow``/``powf``;
    NumPy's own differ on 5-20% of inputs, and give -0 for ``(-0.0) ** 0.5``
    and NaN for ``(-inf) ** 0.5``, XLA +0 and +inf). A uniform exponent in
    ``_SPECIALIZED_EXPONENTS`` is a constant of the eager program, as a
    Python or NumPy scalar's broadcast literal is of a staged one, so XLA
    rewrites it as it does under ``jit``; any other is an argument (one
    program for all its values)."""
    y = values[1]
    if y.size and y.dtype not in COMPLEX:
        first = y.reshape(-1)[0]
        if float(first) in _SPECIALIZED_EXPONENTS and (y.ndim == 0 or bool((y == first).all())):
            return (1,)
    return ()


def _add_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    return [_unbroadcast(ct, p) if isinstance(p, UndefPrimal) else None for p in ps]


def _sub_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, y = ps
    return [
        _unbroadcast(ct, x) if isinstance(x, UndefPrimal) else None,
        neg(_unbroadcast(ct, y)) if isinstance(y, UndefPrimal) else None,
    ]


def _neg_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    return [neg(cts[0])]


def _mul_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, y = ps
    if isinstance(x, UndefPrimal):
        return [_unbroadcast(mul(ct, _defined("mul", y, "other operand")), x), None]
    return [None, _unbroadcast(mul(x, ct), y)]


def _div_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    return [_unbroadcast(div(ct, _defined("div", ps[1], "divisor")), ps[0]), None]


def _rem(x: NDArray, y: NDArray) -> object:
    """XLA's remainder: the sign of the dividend (C's ``fmod``); for integers
    ``x rem 0`` is ``x`` and ``INT_MIN rem -1`` is 0, as under ``jit``."""
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            return np.fmod(x, y)
    zero = y == 0
    safe = np.where(zero | (y == -1), np.ones((), y.dtype), y)
    return np.where(zero, x, np.fmod(x, safe))


def _rem_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """d/dx = 1; d/dy = -trunc(x / y), with trunc(x / y) = (x - rem(x, y)) / y."""
    (x, y), (tx, ty) = primals, tangents
    out = bind1(rem_p, (x, y), params)
    b: Tangent = ty if isinstance(ty, Zero) else mul(ty, neg(div(sub(x, out), y)))
    t = add_tangents(tx, b)
    return [out], [zero_like(out) if isinstance(t, Zero) else _fit(t, out)]


# abs: |x| with abs(-0.0) = +0.0 and abs(INT_MIN) = INT_MIN, as in XLA; its
# tangent is t where x >= 0, else -t (so 1 at 0, as in JAX); of a complex x,
# real(t * conj(x)) / |x| (JAX's, with |x| = 0 read as 1), written
# re(t) re(x) + im(t) im(x) with the real part a conversion and the imaginary
# part that of a product by -1j (so this module needs no real_p or conj_p)
def _abs_tangent(t: Value, x: Value, y: Value) -> Value:
    d = aval_of(x).dtype
    if d in COMPLEX:
        r = real_dtype(d)
        minus_i = np.asarray(-1j, d)
        re_x, im_x = convert(x, r), convert(mul(x, minus_i), r)
        safe = select(eq(y, full_like(0.0, y)), full_like(1.0, y), y)
        return div(add(mul(convert(t, r), re_x), mul(convert(mul(t, minus_i), r), im_x)), safe)
    return select(bind1(ge_p, (x, full_like(0.0, x)), NO_PARAMS), t, neg(t))


abs_p = _unary("abs", np.abs, FLOATING | SIGNED | COMPLEX, _unary_rules(_abs_tangent, hlo.abs), real_out=True)  # JAX: no unsigned abs
neg_p = _unary("neg", _neg, ARITH,
    _unary_rules(lambda t, x, y: neg(t), hlo.negate, _neg_t))
sin_p = _unary("sin", np.sin, INEXACT,
    _unary_rules(lambda t, x, y: mul(t, cos(x)), hlo.sine))
cos_p = _unary("cos", np.cos, INEXACT,
    _unary_rules(lambda t, x, y: mul(t, neg(sin(x))), hlo.cosine))
exp_p = _unary("exp", np.exp, INEXACT,
    _unary_rules(lambda t, x, y: mul(t, y), hlo.exponential))
log_p = _unary("log", np.log, INEXACT,
    _unary_rules(lambda t, x, y: div(t, x), hlo.log))
# JAX's form, (t + t y)(1 - y), not t (1 - y^2): the same program as JAX's, so
# XLA makes the same choices for it (on a GPU, which matmul kernels, hence
# which TF32 roundings, a differentiated network's products get)
tanh_p = _unary("tanh", np.tanh, INEXACT,
    _unary_rules(lambda t, x, y: mul(add(t, mul(t, y)), sub(full_like(1.0, y), y)), hlo.tanh))
logistic_p = _unary("logistic", _logistic, INEXACT,
    _unary_rules(lambda t, x, y: mul(t, mul(y, sub(full_like(1.0, y), y))), hlo.logistic))
floor_p = _unary("floor", np.floor, FLOATING, _unary_rules(None, hlo.floor))
ceil_p = _unary("ceil", np.ceil, FLOATING, _unary_rules(None, hlo.ceil))
sqrt_p = _unary("sqrt", np.sqrt, INEXACT,
    _unary_rules(lambda t, x, y: mul(t, div(full_like(0.5, y), y)), hlo.sqrt))

add_p = _binary("add", np.add, ARITH, None, _binary_rules(_add_jvp, hlo.add, _add_t))
sub_p = _binary("sub", np.subtract, ARITH, None, _binary_rules(_sub_jvp, hlo.subtract, _sub_t))
mul_p = _binary("mul", np.multiply, ARITH, None, _binary_rules(_mul_jvp, hlo.multiply, _mul_t))
div_p = _binary("div", _div, ARITH, None, _binary_rules(_div_jvp, hlo.divide, _div_t))
max_p = _binary("max", _max, ANY_DTYPE, None, _binary_rules(None, _minmax_hlo(True)))
min_p = _binary("min", _min, ANY_DTYPE, None, _binary_rules(None, _minmax_hlo(False)))
pow_p = _binary("pow", np.power, INEXACT, None, _binary_rules(_pow_jvp, hlo.power, on_device=_pow_on_device))
rem_p = _binary("rem", _rem, NUMERIC, None, _binary_rules(_rem_jvp, hlo.remainder))

greater_p = _binary("greater", np.greater, ORDERED, bool_, _comparison_rules("GT"))
less_p = _binary("less", np.less, ORDERED, bool_, _comparison_rules("LT"))
ge_p = _binary("ge", np.greater_equal, ORDERED, bool_, _comparison_rules("GE"))
le_p = _binary("le", np.less_equal, ORDERED, bool_, _comparison_rules("LE"))
eq_p = _binary("eq", np.equal, ANY_DTYPE, bool_, _comparison_rules("EQ"))
ne_p = _binary("ne", np.not_equal, ANY_DTYPE, bool_, _comparison_rules("NE"))


# -- integer_pow: x ** y for a static integer y ----------------------------
_T = TypeVar("_T")


def _squarings(x: _T, y: int, mul: Callable[[_T, _T], _T]) -> _T | None:
    """``x ** |y|`` as ``jax.lax.integer_pow`` computes it: binary
    exponentiation, one rounded product per step (``None`` for ``y == 0``).
    The impl and the lowering share it, so eager and ``jit`` agree bit for
    bit (``np.power`` is one correctly rounded ``pow``: 22052.016 for
    ``float32(1.0001) ** 100000`` where JAX's squarings give 22005.54)."""
    n = abs(y)
    acc: _T | None = None
    while n:
        if n & 1:
            acc = x if acc is None else mul(acc, x)
        n >>= 1
        if n:
            x = mul(x, x)
    return acc


def _np_mul(a: NDArray, b: NDArray) -> NDArray:
    return np.asarray(np.multiply(a, b))


def _integer_pow_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    """In the operand's own type, 16-bit floats too (``core/trace.py:
    NATIVE_ON_HALF``): XLA rounds each product to 16 bits."""
    (x,) = args
    y = get_int("integer_pow", params, "y")
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        acc = _squarings(x, y, _np_mul)
        out = np.ones_like(x) if acc is None else acc
        if y < 0:
            out = np.divide(np.ones((), x.dtype), out)
    return [np.asarray(out, dtype=x.dtype)]


@memo_abstract
def _integer_pow_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("integer_pow", avals, 1)
    (x,) = avals
    y = get_int("integer_pow", params, "y")
    if x.dtype not in ARITH:
        raise PrimitiveTypeError(f"integer_pow accepts numeric operands, got {x.str_short()}")
    if y < 0 and x.dtype in INTEGER:
        raise PrimitiveTypeError(
            f"integer_pow of an integer operand {x.str_short()} needs y >= 0, got y={y}"
        )
    return [x]


def _integer_pow_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x,), (t,) = primals, tangents
    out = bind1(integer_pow_p, (x,), params)
    if isinstance(t, Zero):
        return [out], [t]
    y = get_int("integer_pow", params, "y")
    if y == 0:
        return [out], [zero_like(t)]
    if y == 1:
        return [out], [t]
    if y == 2:
        return [out], [mul(t, mul(full_like(2.0, x), x))]
    x_pow = bind1(integer_pow_p, (x,), params_of(("y", y - 1)))
    return [out], [mul(t, mul(full_like(float(y), x), x_pow))]


def _integer_pow_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    """``x ** y`` by repeated squaring; ``1 / x ** -y`` for negative ``y``."""
    (x,) = args
    y = get_int("integer_pow", eqn.params, "y")
    aval = eqn.inputs[0].aval
    acc = _squarings(x, y, hlo.multiply)
    result = full(1, aval) if acc is None else acc
    if y < 0:
        result = hlo.divide(full(1, aval), result)
    return [result]


integer_pow_p = Primitive(
    "integer_pow", _integer_pow_impl, _integer_pow_abstract,
    rules_for=lambda p: Rules(
        jvp=_integer_pow_jvp, batch=elementwise_batch(p), lower=_integer_pow_lower, eval_on_device=complex_on_device
    ),
)


# -- select_n(which, *cases): cases[which] elementwise ----------------------
def _select_n_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    which, *cases = args
    if len(cases) == 1:
        return [np.array(cases[0])]
    if which.dtype == np.bool_:
        return [np.asarray(np.where(which, cases[1], cases[0]), dtype=cases[0].dtype)]
    # an index out of range is clamped to the first or last case (as jit does)
    idx = np.broadcast_to(np.clip(which, 0, len(cases) - 1).astype(np.int64), cases[0].shape)
    return [np.asarray(np.choose(idx, cases), dtype=cases[0].dtype)]


def _select_n_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    if len(avals) < 2:
        raise PrimitiveTypeError(f"select_n needs a selector and at least one case, got ({_types(avals)})")
    which, *cases = avals
    if which.dtype != bool_ and which.dtype not in INTEGER:  # any integer, as JAX's
        raise PrimitiveTypeError(f"select_n selector must be bool or an integer, got {which.str_short()}")
    if which.dtype == bool_ and len(cases) > 2:
        raise PrimitiveTypeError(f"select_n with a bool selector takes at most 2 cases, got {len(cases)}")
    if any(c != cases[0] for c in cases):
        raise PrimitiveTypeError(f"select_n cases must have one type, got ({_types(cases)})")
    if which.shape not in ((), cases[0].shape):
        raise PrimitiveTypeError(
            f"select_n selector shape must be () or the cases' shape, got ({_types(avals)})"
        )
    return [cases[0]]


def _select_n_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    which, *cases = primals
    case_ts = tangents[1:]
    out = bind1(select_n_p, primals, params)
    if all(isinstance(t, Zero) for t in case_ts):
        return [out], [zero_like(out)]
    t = bind1(select_n_p, [which, *(instantiate_zeros(c) for c in case_ts)], params)
    return [out], [t]


def _select_n_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    which = _defined("select_n", ps[0], "selector (predicate)")
    cases = ps[1:]
    out: list[Value | None] = [None]
    zero: Value | None = None
    for i, c in enumerate(cases):
        if not isinstance(c, UndefPrimal):
            out.append(None)
            continue
        if len(cases) == 1:
            out.append(ct)
            continue
        if zero is None:
            zero = zeros_like_aval(c.aval)
        branches = [ct if j == i else zero for j in range(len(cases))]
        out.append(bind1(select_n_p, (which, *branches), NO_PARAMS))
    return out


def _select_n_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    which, *cases = vals
    dw, *dcs = dims
    case_aval = unbatched_aval(aval_of(cases[0]), dcs[0])
    which_shape = unbatched_aval(aval_of(which), dw).shape
    d0 = dcs[0]
    if d0 is not None and all(d == d0 for d in dcs) and (
        (dw == d0 and which_shape == case_aval.shape) or (dw is None and which_shape == ())
    ):
        return [bind1(select_n_p, vals, params)], [d0]
    # otherwise: every case batched at axis 0, and a selector to fit them
    new_cases = [move_batch_axis(size, d, 0, c) for c, d in zip(cases, dcs)]
    if dw is None and which_shape == ():
        new_which = which
    elif dw is not None and which_shape == () and case_aval.shape:
        nd = case_aval.ndim
        new_which = broadcast_to(which, (size,) + case_aval.shape, tuple(range(1, nd + 1)))
    else:
        new_which = move_batch_axis(size, dw, 0, which)
    return [bind1(select_n_p, [new_which, *new_cases], params)], [0]


def _select_n_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    which, *cases = args
    which_aval = eqn.inputs[0].aval
    if len(cases) == 1:
        return [cases[0]]
    if which_aval.dtype == bool_:
        return [hlo.select(which, cases[1], cases[0])]
    # cases[which], an index out of range clamped to the first or last case:
    # a chain of selects on which >= i (compared in the selector's integer type)
    out = cases[0]
    for i in range(1, len(cases)):
        at_least_i = compare(which, full(i, which_aval), which_aval.dtype, "GE")
        out = hlo.select(at_least_i, cases[i], out)
    return [out]


select_n_p = Primitive(
    "select_n", _select_n_impl, _select_n_abstract,
    Rules(jvp=_select_n_jvp, transpose=_select_n_t, batch=_select_n_batch, lower=_select_n_lower),
)


# -- convert_element_type ----------------------------------------------------
def _convert_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    new_dtype = get_dtype("convert_element_type", params, "new_dtype")
    x = np.asarray(args[0])
    if x.dtype in COMPLEX and new_dtype not in COMPLEX:
        if new_dtype == bool_:
            return [x != 0]
        x = x.real  # complex to real: the real part (XLA's, and JAX's with its warning)
    if x.dtype.kind == "f" and new_dtype.kind in "iu":
        return [_float_to_int(x, new_dtype)]
    return [x.astype(new_dtype)]


def _float_to_int(x: NDArray, dtype: DType) -> NDArray:
    """XLA's float-to-integer conversion: toward zero, saturating at the
    integer type's range, NaN to 0 (NumPy's ``astype`` is undefined there)."""
    imin, imax = int_range(dtype)
    hi = np.asarray(float(imax) + 1.0, x.dtype)  # 2**(bits-1): exact in binary
    lo = np.asarray(float(imin), x.dtype)
    inside = np.less(x, hi) & np.greater_equal(x, lo)  # False for NaN
    if inside.all():
        return x.astype(dtype)
    out = np.where(inside, x, 0).astype(dtype)
    out = np.where(np.greater_equal(x, hi), np.asarray(imax, dtype), out)
    return np.where(np.less(x, lo), np.asarray(imin, dtype), out)


@memo_abstract
def _convert_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("convert_element_type", avals, 1)
    new_dtype = get_dtype("convert_element_type", params, "new_dtype")
    return [ShapedArray(avals[0].shape, new_dtype)]


def _convert_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x,), (t,) = primals, tangents
    out = bind1(convert_element_type_p, (x,), params)
    new_dtype = get_dtype("convert_element_type", params, "new_dtype")
    if isinstance(t, Zero) or not is_inexact(new_dtype):
        return [out], [zero_like(out)]
    return [out], [bind1(convert_element_type_p, (t,), params)]


def _convert_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    old = primal_aval(ps[0]).dtype
    if old == get_dtype("convert_element_type", params, "new_dtype"):
        return [ct]
    return [convert(ct, old)]


def _convert_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    (x,) = args
    src = eqn.inputs[0].aval
    new_dtype = get_dtype("convert_element_type", eqn.params, "new_dtype")
    if new_dtype == src.dtype:
        return [x]
    if new_dtype == bool_:  # nonzero is True (NumPy's astype(bool))
        return [compare(x, full(0, src), src.dtype, "NE")]
    if src.dtype in COMPLEX and new_dtype not in COMPLEX:  # the real part, converted
        x = hlo.real(x)
    return [hlo.convert(tensor_type(eqn.out_binders[0].aval), x)]


convert_element_type_p = Primitive(
    "convert_element_type", _convert_impl, _convert_abstract,
    rules_for=lambda p: Rules(
        jvp=_convert_jvp, transpose=_convert_t, batch=elementwise_batch(p), lower=_convert_lower
    ),
)


# -- clamp(min, x, max): min(max(x, min), max), min/max scalars or x's shape ------
def _clamp_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    lo, x, hi = args
    lo_b, hi_b = np.broadcast_to(lo, x.shape), np.broadcast_to(hi, x.shape)
    return [np.asarray(_min(np.asarray(_max(x, lo_b)), hi_b), dtype=x.dtype)]


def _clamp_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("clamp", avals, 3)
    lo, x, hi = avals
    if lo.dtype != x.dtype or hi.dtype != x.dtype:
        raise PrimitiveTypeError(f"clamp requires min, x and max of one dtype, got ({_types(avals)})")
    for name, a in (("min", lo), ("max", hi)):
        if a.shape not in ((), x.shape):
            raise PrimitiveTypeError(
                f"clamp requires {name}.shape == x.shape or {name}.shape == (), got ({_types(avals)})"
            )
    return [x]


def _clamp_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """As JAX: x's tangent where min < x < max; min's where min > x and
    min < max; max's where max < x; nothing on ties."""
    lo, x, hi = primals
    t_lo, t_x, t_hi = tangents
    out = bind1(clamp_p, primals, params)
    shape = aval_of(x).shape

    def spread(v: Value) -> Value:
        return v if aval_of(v).shape == shape else broadcast_to(v, shape, tuple(range(len(shape))))

    zero = full_like(0.0, out)

    def gt(a: Value, b: Value) -> Value:
        return bind1(greater_p, (spread(a), spread(b)), NO_PARAMS)

    result: Tangent = zero_like(out)
    if not isinstance(t_lo, Zero):
        result = add_tangents(result, select(gt(lo, x), select(gt(hi, lo), spread(t_lo), zero), zero))
    if not isinstance(t_x, Zero):
        result = add_tangents(result, select(gt(x, lo), select(gt(hi, x), t_x, zero), zero))
    if not isinstance(t_hi, Zero):
        result = add_tangents(result, select(gt(x, hi), spread(t_hi), zero))
    return [out], [result]


def _clamp_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (lo, x, hi), (b_lo, b_x, b_hi) = vals, dims
    x_shape = unbatched_aval(aval_of(x), b_x).shape
    x = move_batch_axis(size, b_x, 0, x)
    full_shape = (size,) + x_shape

    def bound(v: Value, b: BatchDim) -> Value:
        if b is None:
            if aval_of(v).shape == ():
                return v
            return move_batch_axis(size, None, 0, v)
        v = move_batch_axis(size, b, 0, v)
        if aval_of(v).shape == (size,) and x_shape:
            return broadcast_to(v, full_shape, tuple(range(1, len(full_shape))))
        return v

    return [bind1(clamp_p, (bound(lo, b_lo), x, bound(hi, b_hi)), params)], [0]


def _clamp_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    return [hlo.clamp(args[0], args[1], args[2])]


clamp_p = Primitive(
    "clamp", _clamp_impl, _clamp_abstract,
    Rules(jvp=_clamp_jvp, batch=_clamp_batch, lower=_clamp_lower),
)


def clamp(min: ArrayLike, x: ArrayLike, max: ArrayLike) -> Array:  # noqa: A002 - jax.lax's names
    """``x`` clipped to ``[min, max]`` elementwise (``jax.lax.clamp``): ``min``
    and ``max`` are scalars or of ``x``'s shape, of ``x``'s dtype. As JAX's,
    a Python scalar bound is not converted to ``x``'s dtype: it has its own
    (weak) type, the default int or float, so ``clamp(0.0, x, 1.0)`` works
    for a float32 ``x`` with x64 off and is a ``TypeError`` with x64 on
    (JAX's ``clamp_p.bind`` with no promotion; pass bounds of ``x``'s dtype)."""
    return bind1(clamp_p, (min, x, max), NO_PARAMS)


# -- stop_gradient: the identity, with a zero derivative (JAX's stop_gradient_p) ------
def _stop_gradient_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.array(args[0])]  # a copy: a result owns its value


def _stop_gradient_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    _check_arity("stop_gradient", avals, 1)
    return [avals[0]]


def _stop_gradient_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    return [args[0]]


stop_gradient_p = Primitive(
    "stop_gradient", _stop_gradient_impl, _stop_gradient_abstract,
    rules_for=lambda p: Rules(jvp=zero_jvp(p), batch=elementwise_batch(p), lower=_stop_gradient_lower),
)


FAMILY = Family(
    "elementwise",
    (
        abs_p, neg_p, sin_p, cos_p, exp_p, log_p, tanh_p, logistic_p, sqrt_p, floor_p, ceil_p,
        add_p, sub_p, mul_p, div_p, max_p, min_p, pow_p, rem_p,
        greater_p, less_p, ge_p, le_p, eq_p, ne_p,
        integer_pow_p, select_n_p, convert_element_type_p, clamp_p, stop_gradient_p,
    ),
)
