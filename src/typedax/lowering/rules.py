"""StableHLO lowering rules of the first-order primitives."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from .. import primitives as P
from ..core.avals import ShapedArray
from ..core.dtypes import DType, bool_, int32
from ..core.ir import Eqn, Primitive
from ..primitives._params import get_dtype, get_int, get_ints
from ..primitives.structural import get_dimension_numbers
from ..hlo import HloValue, dtype_min, element_type, full, tensor_type
from ..hlo import LoweringContext
from ..hlo import lowering_rules

Values = Sequence[HloValue]


def _out(eqn: Eqn, i: int = 0) -> ShapedArray:
    return eqn.out_binders[i].aval


def _in(eqn: Eqn, i: int = 0) -> ShapedArray:
    return eqn.inputs[i].aval


# -- elementwise ---------------------------------------------------------------
def _unary(op: Callable[[HloValue], HloValue]) -> Callable[[LoweringContext, Eqn, Values], list[HloValue]]:
    def rule(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
        return [op(args[0])]

    return rule


def _binary(
    op: Callable[[HloValue, HloValue], HloValue],
) -> Callable[[LoweringContext, Eqn, Values], list[HloValue]]:
    def rule(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
        return [op(args[0], args[1])]

    return rule


_UNARY: dict[Primitive, Callable[[HloValue], HloValue]] = {
    P.neg_p: hlo.negate,
    P.sin_p: hlo.sine,
    P.cos_p: hlo.cosine,
    P.exp_p: hlo.exponential,
    P.log_p: hlo.log,
    P.tanh_p: hlo.tanh,
    P.logistic_p: hlo.logistic,
    P.sqrt_p: hlo.sqrt,
}
_BINARY: dict[Primitive, Callable[[HloValue, HloValue], HloValue]] = {
    P.add_p: hlo.add,
    P.sub_p: hlo.subtract,
    P.mul_p: hlo.multiply,
    P.div_p: hlo.divide,  # integer division rounds toward zero, as the primitive's
    P.max_p: hlo.maximum,
    P.min_p: hlo.minimum,
    P.pow_p: hlo.power,
}
for _p, _op in _UNARY.items():
    lowering_rules.register(_p, _unary(_op))
for _p, _op2 in _BINARY.items():
    lowering_rules.register(_p, _binary(_op2))


def compare_type(dtype: DType) -> str:
    """StableHLO's comparison type for operands of ``dtype``."""
    if dtype == bool_:
        return "UNSIGNED"
    return "SIGNED" if dtype.kind == "i" else "FLOAT"


def compare(x: HloValue, y: HloValue, dtype: DType, direction: str) -> HloValue:
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(compare_type(dtype)),
    )


def _comparison(direction: str) -> Callable[[LoweringContext, Eqn, Values], list[HloValue]]:
    def rule(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
        return [compare(args[0], args[1], _in(eqn).dtype, direction)]

    return rule


for _p, _dir in (
    (P.greater_p, "GT"), (P.less_p, "LT"), (P.ge_p, "GE"),
    (P.le_p, "LE"), (P.eq_p, "EQ"), (P.ne_p, "NE"),
):
    lowering_rules.register(_p, _comparison(_dir))


def _integer_pow(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    """``x ** y`` by repeated squaring; ``1 / x ** -y`` for negative ``y``."""
    (x,) = args
    y = get_int("integer_pow", eqn.params, "y")
    aval = _in(eqn)
    n = abs(y)
    acc: HloValue | None = None
    base = x
    while n:
        if n & 1:
            acc = base if acc is None else hlo.multiply(acc, base)
        n >>= 1
        if n:
            base = hlo.multiply(base, base)
    result = full(1, aval) if acc is None else acc
    if y < 0:
        result = hlo.divide(full(1, aval), result)
    return [result]


lowering_rules.register(P.integer_pow_p, _integer_pow)


def _select_n(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    which, *cases = args
    which_aval = _in(eqn)
    if len(cases) == 1:
        return [cases[0]]
    if which_aval.dtype == bool_:
        return [hlo.select(which, cases[1], cases[0])]
    assert which_aval.dtype == int32
    # cases[which]: a chain of selects, last case as the default
    out = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        is_i = compare(which, full(i, which_aval), int32, "EQ")
        out = hlo.select(is_i, cases[i], out)
    return [out]


lowering_rules.register(P.select_n_p, _select_n)


def _convert(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    (x,) = args
    src = _in(eqn)
    new_dtype = get_dtype("convert_element_type", eqn.params, "new_dtype")
    if new_dtype == src.dtype:
        return [x]
    if new_dtype == bool_:  # nonzero is True (NumPy's astype(bool))
        return [compare(x, full(0, src), src.dtype, "NE")]
    return [hlo.convert(tensor_type(_out(eqn)), x)]


lowering_rules.register(P.convert_element_type_p, _convert)


# -- structural ----------------------------------------------------------------
def _broadcast(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    shape = get_ints("broadcast", eqn.params, "shape")
    axes = set(get_ints("broadcast", eqn.params, "axes"))
    kept = [i for i in range(len(shape)) if i not in axes]
    return [hlo.broadcast_in_dim(tensor_type(_out(eqn)), args[0], kept)]


def _reshape(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    return [hlo.reshape(tensor_type(_out(eqn)), args[0])]


def _transpose(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    return [hlo.transpose(args[0], list(get_ints("transpose", eqn.params, "perm")))]


lowering_rules.register(P.broadcast_p, _broadcast)
lowering_rules.register(P.reshape_p, _reshape)
lowering_rules.register(P.transpose_p, _transpose)


def reduce(
    x: HloValue,
    x_aval: ShapedArray,
    out_aval: ShapedArray,
    axes: Sequence[int],
    init: bool | int | float,
    combine: Callable[[HloValue, HloValue], HloValue],
) -> HloValue:
    """``stablehlo.reduce`` of ``x`` over ``axes`` with a scalar ``combine``."""
    scalar = ShapedArray((), x_aval.dtype)
    op = hlo.ReduceOp([tensor_type(out_aval)], [x], [full(init, scalar)], list(axes))
    st = ir.RankedTensorType.get([], element_type(x_aval.dtype))
    block = op.regions[0].blocks.append(st, st)
    with ir.InsertionPoint(block):
        hlo.return_([combine(block.arguments[0], block.arguments[1])])
    return op.result


def _reduce_sum(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    axes = get_ints("reduce_sum", eqn.params, "axis")
    return [reduce(args[0], _in(eqn), _out(eqn), axes, 0, hlo.add)]


def _reduce_max(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    axes = get_ints("reduce_max", eqn.params, "axis")
    init = dtype_min(_in(eqn).dtype)
    return [reduce(args[0], _in(eqn), _out(eqn), axes, init, hlo.maximum)]


lowering_rules.register(P.reduce_sum_p, _reduce_sum)
lowering_rules.register(P.reduce_max_p, _reduce_max)


def _dot_general(ctx: LoweringContext, eqn: Eqn, args: Values) -> list[HloValue]:
    (lc, rc), (lb, rb) = get_dimension_numbers(eqn.params)
    dn = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lb),
        rhs_batching_dimensions=list(rb),
        lhs_contracting_dimensions=list(lc),
        rhs_contracting_dimensions=list(rc),
    )
    return [hlo.dot_general(tensor_type(_out(eqn)), args[0], args[1], dn)]


lowering_rules.register(P.dot_general_p, _dot_general)
