"""Reductions beyond ``reduce_sum`` (which is structural: it transposes to
``broadcast``), and every rule for them: ``reduce_max``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.avals import ShapedArray
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import Family, Rules, Tangent, Zero
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext, dtype_min, reduce
from ._params import get_ints
from .elementwise import convert, div, eq, mul
from .structural import broadcast_to, reduce_sum, reduced_aval, reduction_batch, zero_like


def _reduce_max_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.asarray(np.max(args[0], axis=get_ints("reduce_max", params, "axis")))]


def _reduce_max_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return reduced_aval("reduce_max", avals, params, allow_bool=True, nonempty=True)


def _reduce_max_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """The mean of the tangents at the positions of the maximum (as JAX)."""
    (x,), (t,) = primals, tangents
    out = bind1(reduce_max_p, (x,), params)
    if isinstance(t, Zero):
        return [out], [zero_like(out)]
    axis = get_ints("reduce_max", params, "axis")
    xa = aval_of(x)
    where = eq(x, broadcast_to(out, xa.shape, axis))
    ind = convert(where, xa.dtype)
    counts = reduce_sum(ind, axis)
    return [out], [div(reduce_sum(mul(t, ind), axis), counts)]


def _reduce_max_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    axes = get_ints("reduce_max", eqn.params, "axis")
    x_aval = eqn.inputs[0].aval
    return [reduce(args[0], x_aval, eqn.out_binders[0].aval, axes, dtype_min(x_aval.dtype), hlo.maximum)]


reduce_max_p = Primitive(
    "reduce_max", _reduce_max_impl, _reduce_max_abstract,
    rules_for=lambda p: Rules(jvp=_reduce_max_jvp, batch=reduction_batch(p), lower=_reduce_max_lower),
)


FAMILY = Family("reductions", (reduce_max_p,))
