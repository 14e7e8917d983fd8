"""``optimization_barrier``: JAX's identity that XLA may not move computation
across (``stablehlo.optimization_barrier``), with every rule, and
``jax.lax.optimization_barrier`` on a pytree.

It takes any number of operands and returns them unchanged. Its JVP puts
the primals through one barrier and the (nonzero) tangents through another,
its transpose puts the cotangents through one, batching keeps every batch
axis where it is (JAX's rules); eager evaluation is the identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar, cast

from jaxlib.mlir.dialects import stablehlo as hlo

from .. import tree as _tree
from ..core.avals import ShapedArray
from ..core.ir import NO_PARAMS, Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, as_value, bind
from ..hlo import HloValue, LoweringContext

T = TypeVar("T")


def optimization_barrier(operand: T, /) -> T:
    """``operand`` (a pytree of arrays), unchanged, behind a barrier XLA's
    optimizations do not cross (``jax.lax.optimization_barrier``): e.g. to
    keep a recomputation from being merged with the first computation."""
    leaves, treedef = _tree.flatten(operand)
    if not leaves:
        return operand
    vals = [as_value(x, "optimization_barrier's operand") for x in leaves]
    return cast(T, _tree.unflatten(treedef, bind(optimization_barrier_p, vals, NO_PARAMS)))  # the structure of operand


def _abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return list(avals)


def _impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return list(args)


def _jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    outs: list[Value] = list(bind(optimization_barrier_p, primals, params))
    live = [t for t in tangents if not isinstance(t, Zero)]
    barred = iter(bind(optimization_barrier_p, live, params) if live else [])
    return outs, [t if isinstance(t, Zero) else next(barred) for t in tangents]


def _transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    lin = [isinstance(p, UndefPrimal) for p in primals]
    live = [ct for ct, li in zip(cts, lin) if li]
    barred = iter(bind(optimization_barrier_p, live, params) if live else [])
    return [next(barred) if li else None for li in lin]


def _batch(axis_size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    return list(bind(optimization_barrier_p, vals, params)), list(dims)


def _lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    return list(hlo.OptimizationBarrierOp(list(args)).results)


optimization_barrier_p: Primitive = Primitive(
    "optimization_barrier", _impl, _abstract,
    rules=Rules(jvp=_jvp, transpose=_transpose, batch=_batch, lower=_lower),
)

FAMILY = Family("optimization_barrier", (optimization_barrier_p,))
