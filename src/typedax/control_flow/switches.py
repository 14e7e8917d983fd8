"""``lax.switch``: ``branches[clamp(index, 0, n - 1)](*operands)``, built on
``cond`` -- there is no ``switch`` primitive.

Why nested conds, not a select over every branch's result: a ``select``
would evaluate all ``n`` branches on every call, eagerly and under ``jit``,
where JAX evaluates exactly one. A balanced tree of ``cond``\\ s (``index <
mid`` at each node, depth ``ceil(log2(n))``) evaluates one branch, and every
transformation is ``cond``'s own: under ``vmap`` with a batched index each
node's batching rule evaluates both sides and selects, so every branch is
evaluated and the results selected per example -- JAX's semantics (its
``cond`` with a batched index becomes ``select_n`` over all branches); JVP,
partial evaluation and transposition (``grad``) go through ``cond``'s rules.
The tree also clamps: an index below 0 takes the left edge at every node,
one past ``n - 1`` the right edge. The index is first converted to int32 as
JAX does (so a wide index wraps as it does in JAX before the clamp).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from .. import tree
from ..core.dtypes import INTEGER, int32
from ..core.errors import ArgumentValueError, PrimitiveTypeError
from ..core.eval import eval_jaxpr
from ..core.ir import NO_PARAMS, ClosedJaxpr
from ..core.trace import Value, aval_of, bind1
from ..primitives import convert_element_type_p, less_p
from ..primitives._params import params_of
from .common import as_value, trace_callable, types_str
from .conditionals import cond

T = TypeVar("T")


class _NoOperand:
    """The default of ``operand=``: none given (JAX's ``_no_operand_sentinel``)."""

    def __repr__(self) -> str:
        return "<no operand>"


_NO_OPERAND = _NoOperand()


def switch(
    index: Value | int,
    branches: Sequence[Callable[..., T]],
    *operands: object,
    operand: object = _NO_OPERAND,
) -> T:
    """``branches[index](*operands)``, the index clamped to ``[0, len(branches) - 1]``
    (``jax.lax.switch``). ``index`` is an integer scalar (converted to int32, as
    JAX); the operands and results are pytrees, and every branch must return
    the same structure of the same types. Under ``vmap`` with a batched index
    every branch is evaluated and the results are selected per example."""
    branches = tuple(branches)
    if not all(callable(b) for b in branches):
        raise PrimitiveTypeError("switch: branches must be a sequence of callables")
    if operand is not _NO_OPERAND:
        if operands:
            raise PrimitiveTypeError(
                "switch: if the 'operand' keyword is passed then no positional operands can be "
                f"passed, got operand={operand!r} and positional operands {operands!r}"
            )
        operands = (operand,)
    idx = as_value(index, "switch's index")
    a = aval_of(idx)
    if a.shape != ():
        raise PrimitiveTypeError(f"switch: the branch index must be a scalar, got {a.str_short()}")
    if a.dtype not in INTEGER:
        raise PrimitiveTypeError(
            f"switch: the branch index must be an integer, got {a.str_short()} "
            "(convert a bool or float index with lax.convert_element_type)"
        )
    if not branches:
        raise ArgumentValueError("switch: empty branch sequence (give at least one branch)")
    if len(branches) == 1:
        return branches[0](*operands)
    leaves, in_tree = tree.flatten(operands)
    vals = [as_value(x, "switch's operands") for x in leaves]
    avals = [aval_of(v) for v in vals]
    traced = [trace_callable(b, in_tree, avals, f"switch's branch {i}") for i, b in enumerate(branches)]
    _check_outputs([t for t, _ in traced], [o for _, o in traced])
    out_tree = traced[0][1]
    i32 = bind1(convert_element_type_p, (idx,), params_of(("new_dtype", int32)))
    outs = _tree_of_conds([c for c, _ in traced], 0, len(branches))(i32, *vals)
    return tree.unflatten(out_tree, outs)  # type: ignore[return-value]  # the branches' structure


def _check_outputs(closed: Sequence[ClosedJaxpr], out_trees: Sequence[tree.TreeDef]) -> None:
    for i in range(1, len(closed)):
        if out_trees[i] != out_trees[0]:
            raise PrimitiveTypeError(
                f"switch: every branch must return the same structure: branch 0 returns "
                f"{out_trees[0]} but branch {i} returns {out_trees[i]}"
            )
        if closed[i].out_avals != closed[0].out_avals:
            raise PrimitiveTypeError(
                f"switch: every branch must return the same types: branch 0 returns "
                f"{types_str(closed[0].out_avals)} but branch {i} returns {types_str(closed[i].out_avals)}"
            )


def _tree_of_conds(closed: Sequence[ClosedJaxpr], lo: int, hi: int) -> Callable[..., list[Value]]:
    """Branches ``lo .. hi - 1`` as a function of (the int32 index, *flat operands):
    one branch's jaxpr, or a ``cond`` on ``index < mid`` between two halves."""
    if hi - lo == 1:
        leaf = closed[lo]

        def run(_: Value, *ops: Value) -> list[Value]:
            return eval_jaxpr(leaf, ops)

        return run
    mid = (lo + hi) // 2
    left, right = _tree_of_conds(closed, lo, mid), _tree_of_conds(closed, mid, hi)
    bound = np.asarray(mid, np.int32)

    def node(i: Value, *ops: Value) -> list[Value]:
        pred = bind1(less_p, (i, bound), NO_PARAMS)
        return cond(pred, left, right, i, *ops)

    return node


__all__ = ["switch"]
