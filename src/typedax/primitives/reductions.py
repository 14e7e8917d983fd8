"""Reductions beyond ``reduce_sum`` (which is structural: it transposes to
``broadcast``), and every rule for them: ``reduce_max`` and ``reduce_min``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.avals import ShapedArray
from ..core.dtypes import DType
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import Family, JvpRule, Rules, Tangent, Zero
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext, dtype_max, dtype_min, reduce
from ._params import get_ints
from .elementwise import convert, div, eq, mul
from .structural import broadcast_to, reduce_sum, reduced_aval, reduction_batch, zero_like


def _extremum(
    name: str,
    np_reduce: Callable[..., NDArray],
    identity: Callable[[DType], bool | int | float],
    hlo_op: Callable[[HloValue, HloValue], HloValue],
) -> Primitive:
    """``reduce_max`` or ``reduce_min`` over ``axis``, with every rule."""

    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        return [np.asarray(np_reduce(args[0], axis=get_ints(name, params, "axis")))]

    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        return reduced_aval(name, avals, params, allow_bool=True, nonempty=True)

    def jvp_rule(prim: Primitive) -> JvpRule:
        def rule(
            primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
        ) -> tuple[list[Value], list[Tangent]]:
            """The mean of the tangents at the positions of the extremum (as JAX)."""
            (x,), (t,) = primals, tangents
            out = bind1(prim, (x,), params)
            if isinstance(t, Zero):
                return [out], [zero_like(out)]
            axis = get_ints(name, params, "axis")
            xa = aval_of(x)
            ind = convert(eq(x, broadcast_to(out, xa.shape, axis)), xa.dtype)
            counts = reduce_sum(ind, axis)
            return [out], [div(reduce_sum(mul(t, ind), axis), counts)]

        return rule

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
        axes = get_ints(name, eqn.params, "axis")
        x_aval = eqn.inputs[0].aval
        return [reduce(args[0], x_aval, eqn.out_binders[0].aval, axes, identity(x_aval.dtype), hlo_op)]

    return Primitive(
        name, impl, abstract,
        rules_for=lambda p: Rules(jvp=jvp_rule(p), batch=reduction_batch(p), lower=lower),
    )


reduce_max_p = _extremum("reduce_max", np.max, dtype_min, hlo.maximum)
reduce_min_p = _extremum("reduce_min", np.min, dtype_max, hlo.minimum)


FAMILY = Family("reductions", (reduce_max_p, reduce_min_p))
