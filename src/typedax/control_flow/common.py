"""Helpers shared by the control-flow primitives: tracing user callables on
pytrees to jaxprs, joining the constants of several jaxprs, and evaluating a
param jaxpr on NumPy values."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from .. import tree
from ..core.avals import ShapedArray
from ..core.errors import PrimitiveTypeError
from ..core.ir import Atom, ClosedJaxpr, Jaxpr, Lit, NDArray, Var
from ..core.trace import EVAL_TRACE, Value, aval_of, bind, using_trace
from ..core.typecheck import typecheck_jaxpr
from ..interpreters.staging import trace_to_jaxpr_flat

T = TypeVar("T")


def fun_name(f: object) -> str:
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    return name if isinstance(name, str) else repr(f)


def types_str(avals: Sequence[ShapedArray]) -> str:
    return "(" + ", ".join(a.str_short() for a in avals) + ")"


def as_value(x: object, what: str) -> Value:
    """``x`` as an array value, or a clear error naming where it came from."""
    try:
        aval_of(x)
    except TypeError:
        raise PrimitiveTypeError(
            f"{what} must be arrays or scalars, got a {type(x).__name__}"
        ) from None
    return x  # type: ignore[return-value]  # aval_of accepted it, so it is a Value


def trace_callable(
    f: Callable[..., object],
    args_tree: tree.TreeDef,
    avals: Sequence[ShapedArray],
    what: str,
) -> tuple[ClosedJaxpr, tree.TreeDef]:
    """Stage ``f(*args)`` where the args tuple has structure ``args_tree`` and
    leaves of types ``avals``; returns the jaxpr and the output structure."""
    out_trees: list[tree.TreeDef] = []

    def run(leaves: list[Value]) -> list[Value]:
        args = tree.unflatten(args_tree, leaves)
        assert isinstance(args, tuple)
        out = f(*args)
        flat, out_tree = tree.flatten(out)
        out_trees.append(out_tree)
        return [as_value(x, f"the outputs of {what}") for x in flat]

    closed = trace_to_jaxpr_flat(run, avals, fun_name(f))
    return closed, out_trees[0]


def fresh_vars(avals: Sequence[ShapedArray]) -> tuple[Var, ...]:
    return tuple(Var(a) for a in avals)


def join_consts(jaxprs: Sequence[Jaxpr], nconsts: Sequence[int]) -> list[Jaxpr]:
    """Give every jaxpr the constant binders of all of them, in order.

    Jaxpr ``i`` takes ``nconsts[i]`` leading constants; afterwards each takes
    the constants of jaxpr 0, then of jaxpr 1, ..., then its own other inputs
    (the constants of the others are unused binders).
    """
    out: list[Jaxpr] = []
    for i, j in enumerate(jaxprs):
        binders: list[Var] = []
        for k, other in enumerate(jaxprs):
            if k == i:
                binders.extend(j.in_binders[: nconsts[i]])
            else:
                binders.extend(fresh_vars(other.in_avals[: nconsts[k]]))
        out.append(Jaxpr(tuple(binders) + j.in_binders[nconsts[i] :], j.eqns, j.outs))
    return out


def eval_np(jaxpr: Jaxpr, args: Sequence[NDArray]) -> list[NDArray]:
    """Evaluate a param jaxpr with NumPy (the impl rules use this); literals
    keep their dtypes (a ``2.0:float32`` literal stays float32)."""
    env: dict[Var, Value] = dict(zip(jaxpr.in_binders, args))

    def read(a: Atom) -> Value:
        return np.asarray(a.val, a.aval.dtype) if isinstance(a, Lit) else env[a]

    with using_trace(EVAL_TRACE):
        for eqn in jaxpr.eqns:
            outs = bind(eqn.primitive, [read(a) for a in eqn.inputs], eqn.params)
            env.update(zip(eqn.out_binders, outs))
    return [np.asarray(read(o), dtype=o.aval.dtype) for o in jaxpr.outs]


def check_jaxpr_in_types(
    prim: str, name: str, jaxpr: Jaxpr, in_types: Sequence[ShapedArray]
) -> tuple[ShapedArray, ...]:
    """Typecheck a param jaxpr against its operand types; its output types."""
    t = typecheck_jaxpr(jaxpr)
    if t.in_types != tuple(in_types):
        raise PrimitiveTypeError(
            f"{prim}: {name} takes {types_str(t.in_types)} but is applied to "
            f"{types_str(in_types)}"
        )
    return t.out_types


def split(xs: Sequence[T], *sizes: int) -> list[list[T]]:
    """Split ``xs`` into consecutive pieces of ``sizes`` and the rest."""
    out: list[list[T]] = []
    i = 0
    for n in sizes:
        out.append(list(xs[i : i + n]))
        i += n
    out.append(list(xs[i:]))
    return out


def forward_deps(jaxpr: Jaxpr, in_flags: Sequence[bool]) -> list[bool]:
    """Which outputs depend on an input whose flag is set (a conservative
    forward analysis: an equation's outputs depend on all of its inputs)."""
    marked: set[Var] = {v for v, f in zip(jaxpr.in_binders, in_flags) if f}
    for eqn in jaxpr.eqns:
        if any(isinstance(a, Var) and a in marked for a in eqn.inputs):
            marked.update(eqn.out_binders)
    return [isinstance(a, Var) and a in marked for a in jaxpr.outs]


def carry_fixpoint(
    step: Callable[[list[bool]], list[bool]], init: Sequence[bool]
) -> list[bool]:
    """The least ``flags >= init`` with ``step(flags) <= flags`` (elementwise):
    which loop-carried values become nonzero / batched / unknown."""
    flags = list(init)
    while True:
        out = step(flags)
        new = [a or b for a, b in zip(flags, out)]
        if new == flags:
            return flags
        flags = new


def permute_binders(jaxpr: Jaxpr, order: Sequence[int]) -> Jaxpr:
    """The same jaxpr taking its inputs in a new order: input ``k`` of the
    result is input ``order[k]`` of ``jaxpr``."""
    return Jaxpr(tuple(jaxpr.in_binders[i] for i in order), jaxpr.eqns, jaxpr.outs)


def permute_outs(jaxpr: Jaxpr, order: Sequence[int]) -> Jaxpr:
    return Jaxpr(jaxpr.in_binders, jaxpr.eqns, tuple(jaxpr.outs[i] for i in order))


def add_unused_binders(jaxpr: Jaxpr, at: int, avals: Sequence[ShapedArray]) -> Jaxpr:
    """``jaxpr`` with binders of ``avals`` it ignores inserted at position ``at``."""
    b = jaxpr.in_binders
    return Jaxpr(b[:at] + fresh_vars(avals) + b[at:], jaxpr.eqns, jaxpr.outs)
