"""``linear_transpose``, ``custom_gradient`` and ``closure_convert``: JAX's
top-level helpers around linear maps, custom derivatives and closures
(issue 29 item 7)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import ParamSpec, TypeVar, cast

from . import tree
from .core.avals import ShapedArray
from .core.dtypes import is_inexact
from .core.eval import eval_jaxpr
from .core.ir import ClosedJaxpr, Jaxpr
from .core.names import fun_name
from .core.rules import Primal, UndefPrimal
from .core.trace import Tracer, Value, aval_of, as_value
from .custom_derivatives import custom_vjp
from .interpreters.batching import BatchTracer
from .interpreters.staging import trace_to_jaxpr_flat
from .interpreters.transpose import backward_pass

P = ParamSpec("P")
R = TypeVar("R")


def _stage(
    who: str, fun: Callable[..., object], args: Sequence[object]
) -> tuple[ClosedJaxpr, tree.TreeDef, tree.TreeDef]:
    """``fun(*args)`` staged at the types of ``args``: the closed jaxpr on
    the flat leaves, the input structure (of the tuple ``args``) and the
    output structure."""
    leaves, in_tree = tree.flatten(tuple(args))
    avals = [aval_of(as_value(x, f"the arguments of {who}")) for x in leaves]
    out_trees: list[tree.TreeDef] = []

    def run(xs: list[Value]) -> list[Value]:
        out = fun(*tree.unflatten(in_tree, xs))  # type: ignore[misc]  # unflattens to the tuple of args
        flat, out_tree = tree.flatten(out)
        out_trees.append(out_tree)
        return [as_value(x, f"the outputs of the function given to {who}") for x in flat]

    closed = trace_to_jaxpr_flat(run, avals, fun_name(fun))
    return closed, in_tree, out_trees[0]


def _same_type(a: ShapedArray, b: ShapedArray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype


def linear_transpose(fun: Callable[..., object], *primals: object) -> Callable[[object], tuple[object, ...]]:
    """``jax.linear_transpose``: the transpose of the linear function ``fun``,
    traced at the types of ``primals`` (their values are not used). The
    result maps a cotangent of ``fun``'s output (the same structure, shapes
    and dtypes) to a tuple of cotangents, one per primal. A constant offset
    is ignored, as JAX's (``x + 1.0`` transposes as ``x``); a function that
    is not linear raises: ``NonLinearError`` (a ``TypeError``) for a product
    of two linear values, ``MissingRuleError`` (a ``NotImplementedError``,
    as JAX's) for a primitive with no transpose such as ``sin``."""
    closed, in_tree, out_tree = _stage("linear_transpose", fun, primals)
    in_avals = closed.in_avals
    out_avals = closed.out_avals
    in_ok = all(is_inexact(a.dtype) for a in in_avals)
    out_ok = all(is_inexact(a.dtype) for a in out_avals)
    int_ok = not any(is_inexact(a.dtype) for a in (*in_avals, *out_avals))
    if not ((in_ok and out_ok) or int_ok):
        raise TypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], and "
            f"integer -> integer functions, but got {[a.str_short() for a in in_avals]} -> "
            f"{[a.str_short() for a in out_avals]}."
        )
    consts = [as_value(c, "linear_transpose's constants") for c in closed.consts]

    def transposed(out_cotangent: object) -> tuple[object, ...]:
        ct_leaves, ct_tree = tree.flatten(out_cotangent)
        cts = [as_value(c, "the cotangent given to linear_transpose's result") for c in ct_leaves]
        ct_avals = [aval_of(c) for c in cts]
        if ct_tree != out_tree or not all(_same_type(a, b) for a, b in zip(ct_avals, out_avals)):
            raise TypeError(
                "cotangent type does not match function output, expected "
                f"{[a.str_short() for a in out_avals]} with structure {out_tree} but got "
                f"{[a.str_short() for a in ct_avals]} with structure {ct_tree}"
            )
        args: list[Primal] = [*consts, *(UndefPrimal(a) for a in in_avals)]
        outs = backward_pass(closed.jaxpr, args, list(cts), instantiate=True)
        result = tree.unflatten(in_tree, outs)
        assert isinstance(result, tuple)
        return result

    return transposed


class _VjpRule:
    """A ``custom_gradient`` rule traced to a jaxpr (static: the pytree's aux
    data) over the values it closes over (the children: the residuals)."""

    __slots__ = ("jaxpr", "consts", "in_tree", "single")
    jaxpr: Jaxpr
    consts: list[object]
    in_tree: tree.TreeDef
    single: bool

    def __init__(self, jaxpr: Jaxpr, consts: list[object], in_tree: tree.TreeDef, single: bool) -> None:
        self.jaxpr, self.consts, self.in_tree, self.single = jaxpr, consts, in_tree, single


def _rule_flatten(r: _VjpRule) -> tuple[list[object], Hashable]:
    return r.consts, (r.jaxpr, r.in_tree, r.single)


def _rule_unflatten(aux: Hashable, consts: list[object]) -> _VjpRule:
    jaxpr, in_tree, single = cast("tuple[Jaxpr, tree.TreeDef, bool]", aux)  # what _rule_flatten made
    return _VjpRule(jaxpr, consts, in_tree, single)


tree.register_node(_VjpRule, _rule_flatten, _rule_unflatten)


def custom_gradient(fun: Callable[P, tuple[R, Callable[..., object]]]) -> Callable[P, R]:
    """``jax.custom_gradient``: ``fun`` returns ``(output, vjp)``, where
    ``vjp(cotangent)`` gives the cotangents of ``fun``'s positional
    arguments (a tuple, or one value for a single argument); the result
    computes ``output`` and differentiates through ``vjp``. As JAX's, it is a
    ``custom_vjp`` whose residuals are the values ``vjp`` closes over."""

    def primal(*args: P.args, **kwargs: P.kwargs) -> R:
        return fun(*args, **kwargs)[0]

    wrapped = custom_vjp(primal)

    def fwd(*args: P.args, **kwargs: P.kwargs) -> tuple[R, _VjpRule]:
        out, rule = fun(*args, **kwargs)
        closed, in_tree, ct_tree = _stage("custom_gradient", rule, (out,))
        return out, _VjpRule(closed.jaxpr, list(closed.consts), ct_tree, len(args) == 1)

    def bwd(res: _VjpRule, ct: object) -> tuple[object, ...]:
        leaves = tree.flatten(ct)[0]
        cts = tree.unflatten(res.in_tree, eval_jaxpr(res.jaxpr, [*res.consts, *leaves]))  # type: ignore[list-item]  # consts are values
        if res.single and not isinstance(cts, tuple):
            return (cts,)
        assert isinstance(cts, tuple), "custom_gradient: the vjp must return a tuple, one cotangent per argument"
        return cts

    wrapped.defvjp(fwd, bwd)
    return wrapped


def _maybe_perturbed(x: object) -> bool:
    """Whether a closed-over value may carry a derivative (JAX's
    ``_maybe_perturbed``): a tracer, unless it is only a batch of values
    that do not."""
    if not isinstance(x, Tracer):
        return False
    if isinstance(x, BatchTracer):
        return _maybe_perturbed(x.val)
    return is_inexact(x.aval.dtype)


def closure_convert(fun: Callable[..., object], *example_args: object) -> tuple[Callable[..., object], list[object]]:
    """``jax.closure_convert``: ``fun`` with the values it closes over that
    may carry a derivative (traced values of an enclosing ``grad``, ``jit``,
    ...) made explicit: returns ``(converted, consts)`` where
    ``converted(*args, *consts)`` is ``fun(*args)``, for arguments of the
    types of ``example_args`` (a ``custom_vjp`` needs this, as its rules
    must not close over traced values)."""
    closed, in_tree, out_tree = _stage("closure_convert", fun, example_args)
    hoist = [_maybe_perturbed(c) for c in closed.consts]
    hoisted = [c for c, h in zip(closed.consts, hoist) if h]
    kept = [c for c, h in zip(closed.consts, hoist) if not h]
    n_args = len(closed.in_avals)

    def converted(*args_and_consts: object) -> object:
        n = len(args_and_consts) - len(hoisted)
        args, given = args_and_consts[:n], list(args_and_consts[n:])
        leaves, tree_ = tree.flatten(tuple(args))
        if tree_ != in_tree or len(leaves) != n_args:
            raise TypeError(
                f"closure_convert: the converted function takes arguments structured as {in_tree} "
                f"followed by {len(hoisted)} constants; got {tree_}"
            )
        it_given, it_kept = iter(given), iter(kept)
        consts = [next(it_given) if h else next(it_kept) for h in hoist]
        outs = eval_jaxpr(closed.jaxpr, [*consts, *leaves])  # type: ignore[list-item]  # consts are values
        return tree.unflatten(out_tree, outs)

    return converted, hoisted
