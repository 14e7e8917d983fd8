"""``custom_jvp`` and ``custom_vjp``: functions with derivative rules of the
user's own, as ``jax.custom_jvp`` / ``jax.custom_vjp``.

Called eagerly (no transformation running), a custom function is its
Python function. Under a transformation or staging it traces the function
and its rules to jaxprs and binds ``custom_jvp_call`` / ``custom_vjp_call``
(``control_flow/custom_calls.py``, where the rules of those primitives say
what each transformation does with them).

The rules are traced when the function is called, not when it is
differentiated (JAX traces them lazily; a typedax equation holds jaxprs
only, so it prints, parses and compares like the others). A rule usually
calls the function itself (``primal_out = f(x)``), which would trace the
rule again without end; so rules nest ``MAX_RULE_DEPTH`` deep, and a call
deeper than that is its plain function, differentiated as written.
Derivatives up to that order use the custom rules at every level, as JAX's.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, ParamSpec, TypeVar, cast

from . import lax
from . import tree
from .control_flow.common import join_consts
from .control_flow.custom_calls import (
    CustomJvpParams, CustomVjpParams, custom_jvp_call_p, custom_vjp_call_p,
)
from .core.avals import ShapedArray
from .core.dtypes import is_float, is_inexact
from .core.errors import CustomDerivativeError, MissingCustomRuleError
from .core.ir import ClosedJaxpr
from .core.names import fun_name
from .core.trace import EVAL_TRACE, Tracer, Value, as_value, aval_of, bind, current_trace
from .interpreters.staging import trace_to_jaxpr_flat
from .primitives.structural import zeros_like_aval

__all__ = ["MAX_RULE_DEPTH", "custom_jvp", "custom_vjp"]

P = ParamSpec("P")
R = TypeVar("R")
JvpFn = TypeVar("JvpFn", bound=Callable[..., tuple[object, object]])

#: How deep custom rules nest inside the rules that call their own function
#: (``f``'s JVP rule calling ``f``): derivatives up to this order use the
#: custom rules everywhere.
MAX_RULE_DEPTH = 2

_DEPTH: ContextVar[int] = ContextVar("typedax_custom_rule_depth", default=0)


@contextmanager
def _rule_level() -> Iterator[None]:
    token = _DEPTH.set(_DEPTH.get() + 1)
    try:
        yield
    finally:
        _DEPTH.reset(token)


# -- what both share ------------------------------------------------------------------
def _nondiff_argnums(
    kind: str, fun: Callable[..., object], nums: Sequence[int], names: Sequence[str]
) -> tuple[int, ...]:
    out: set[int] = set()
    for n in nums:
        if type(n) is not int or n < 0:
            raise CustomDerivativeError(
                f"{kind} of '{fun_name(fun)}': nondiff_argnums must be non-negative ints, got {n!r}"
            )
        out.add(n)
    if names:
        try:
            params = list(inspect.signature(fun).parameters)
        except (TypeError, ValueError):
            params = []
        for name in names:
            if name not in params:
                raise CustomDerivativeError(
                    f"{kind} of '{fun_name(fun)}': nondiff_argnames names {name!r}, which is "
                    f"not a parameter of the function ({', '.join(params)})"
                )
            out.add(params.index(name))
    return tuple(sorted(out))


def _resolve_args(
    kind: str, fun: Callable[..., object], args: tuple[object, ...], kwargs: dict[str, object]
) -> tuple[object, ...]:
    """The call's arguments, positionally (JAX's ``resolve_kwargs``)."""
    if not kwargs:
        return args
    try:
        ba = inspect.signature(fun).bind(*args, **kwargs)
    except TypeError as e:
        raise CustomDerivativeError(
            f"The input arguments to the {kind}-decorated function {fun_name(fun)} could "
            f"not be resolved to positional-only arguments. Binding failed with the error:\n{e}"
        ) from e
    ba.apply_defaults()
    if ba.kwargs:
        raise CustomDerivativeError(
            f"The input arguments to the {kind}-decorated function {fun_name(fun)} could "
            "not be resolved to positional-only arguments (keyword-only parameters: "
            f"{', '.join(ba.kwargs)})"
        )
    return tuple(ba.args)


def _check_argnums(kind: str, name: str, nondiff: tuple[int, ...], n_args: int) -> None:
    bad = [i for i in nondiff if i >= n_args]
    if bad:
        raise CustomDerivativeError(
            f"{kind} function {name} has nondiff_argnums={nondiff}, but it was called with "
            f"{n_args} positional argument{'s' if n_args != 1 else ''}: argument {bad[0]} "
            "does not exist"
        )


def _values(leaves: Sequence[object], what: str) -> list[Value]:
    return [as_value(x, what) for x in leaves]


def _merge(nondiff: tuple[int, ...], statics: Sequence[object], dyn: Sequence[object]) -> list[object]:
    """The full argument list from the non-differentiable and the other arguments."""
    s, d = iter(statics), iter(dyn)
    n = len(statics) + len(dyn)
    return [next(s) if i in nondiff else next(d) for i in range(n)]


def _types(avals: Sequence[ShapedArray], treedef: tree.TreeDef) -> str:
    return str(tree.unflatten(treedef, [a.str_short() for a in avals])).replace("'", "")


def _fit(v: Value, want: ShapedArray) -> Value | None:
    """``v`` as a value of type ``want``: itself, or a weakly typed float
    (a Python scalar) converted to ``want``'s float dtype; None if it does
    not fit."""
    a = aval_of(v)
    if a.shape != want.shape:
        return None
    if a.dtype == want.dtype:
        return v
    if a.weak_type and is_float(want.dtype) and (is_float(a.dtype) or type(v) is int):
        return lax.convert_element_type(v, want.dtype)
    return None


def _stage(
    run: Callable[[list[Value]], list[Value]], avals: Sequence[ShapedArray], name: str
) -> ClosedJaxpr:
    return trace_to_jaxpr_flat(run, avals, name)


def _consts(closed: Sequence[ClosedJaxpr]) -> list[Value]:
    return [as_value(c, "constants") for c in (x for cj in closed for x in cj.consts)]


def _strong(avals: Sequence[ShapedArray]) -> list[ShapedArray]:
    return [a.weakened(False) for a in avals]


class _Primal:
    """The traced primal function: its jaxpr, output structure and types."""

    def __init__(self, kind: str, fun: Callable[..., object], name: str, nondiff: tuple[int, ...],
                 statics: Sequence[object], in_tree: tree.TreeDef, avals: Sequence[ShapedArray]) -> None:
        trees: list[tree.TreeDef] = []

        def run(xs: list[Value]) -> list[Value]:
            dyn = tree.unflatten(in_tree, xs)
            assert isinstance(dyn, tuple)
            out = fun(*_merge(nondiff, statics, dyn))
            flat, out_tree = tree.flatten(out)
            trees.append(out_tree)
            return _values(flat, f"the outputs of the {kind} function {name}")

        self.closed = _stage(run, avals, name)
        self.out_tree = trees[0]
        self.out_avals = list(self.closed.jaxpr.out_avals)


# -- custom_jvp ----------------------------------------------------------------------
class custom_jvp(Generic[P, R]):  # noqa: N801 - JAX's name
    """A function with a JVP rule of its own (``jax.custom_jvp``).

    Decorate the function, then give the rule with ``defjvp`` (one rule
    taking the tuples of primals and tangents and returning ``(primal_out,
    tangent_out)``) or ``defjvps`` (one function per argument, of the
    argument's tangent, the primal output and the primals)::

        @custom_jvp
        def log1pexp(x):
            return tnp.log(1.0 + tnp.exp(x))

        @log1pexp.defjvp
        def log1pexp_jvp(primals, tangents):
            (x,), (x_dot,) = primals, tangents
            return log1pexp(x), x_dot * (1.0 - 1.0 / (1.0 + tnp.exp(x)))

    ``jvp``, ``grad`` (through ``linearize`` and transposition: the rule's
    tangent output must be linear in the input tangents), ``jacfwd``,
    ``jacrev``, ``hessian`` use the rule; ``vmap`` and ``jit`` work through
    it. ``nondiff_argnums`` marks arguments that are not differentiated
    (passed to the rule first: ``rule(*nondiff_args, primals, tangents)``).
    """

    __name__: str  # the function's, as functools.wraps gives them
    __qualname__: str
    __wrapped__: Callable[P, R]
    fun: Callable[P, R]
    nondiff_argnums: tuple[int, ...]
    jvp: Callable[..., object] | None
    symbolic_zeros: bool

    def __init__(self, fun: Callable[P, R], nondiff_argnums: Sequence[int] = (),
                 nondiff_argnames: Sequence[str] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self._call: Callable[..., object] = fun
        self.nondiff_argnums = _nondiff_argnums("custom_jvp", fun, nondiff_argnums, nondiff_argnames)
        self.jvp = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: JvpFn, symbolic_zeros: bool = False) -> JvpFn:
        """Set the JVP rule (usable as a decorator): ``jvp(primals, tangents)
        -> (primal_out, tangent_out)``, with the non-differentiable
        arguments first when there are ``nondiff_argnums``."""
        if symbolic_zeros:
            raise CustomDerivativeError(
                f"custom_jvp function {fun_name(self.fun)}: symbolic_zeros=True is not "
                "supported by typedax (zero tangents reach the rule as zeros)"
            )
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps: Callable[..., object] | None) -> None:
        """One function per argument, ``jvp_i(x_i_dot, primal_out, *primals)``
        giving that argument's contribution to the tangent output (None: no
        contribution); the rule sums them."""
        if self.nondiff_argnums:
            raise CustomDerivativeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals: tuple[object, ...], tangents: tuple[object, ...]) -> tuple[object, object]:
            primal_out = self._call(*primals)
            outs: list[object] = []
            for t, rule in zip(tangents, jvps):
                if rule is not None:
                    outs.append(rule(t, primal_out, *primals))
            if not outs:
                return primal_out, tree.map(lambda x: zeros_like_aval(aval_of(x).weakened(False)), primal_out)
            total = outs[0]
            for o in outs[1:]:
                total = tree.map(lambda a, b: lax.add(as_value(a), as_value(b)), total, o)
            return primal_out, total

        self.jvp = jvp

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        name = fun_name(self.fun)
        rule = self.jvp
        if rule is None:
            raise MissingCustomRuleError(
                f"No JVP defined for custom_jvp function {name} using defjvp."
            )
        full = _resolve_args("custom_jvp", self.fun, tuple(args), dict(kwargs))
        nondiff = self.nondiff_argnums
        _check_argnums("custom_jvp", name, nondiff, len(full))
        if current_trace() is EVAL_TRACE or _DEPTH.get() >= MAX_RULE_DEPTH:
            return cast(R, self._call(*full))  # the caller's own arguments, resolved to positions
        statics = [lax.stop_gradient(full[i]) for i in nondiff]
        dyn = tuple(x for i, x in enumerate(full) if i not in nondiff)
        leaves, in_tree = tree.flatten(dyn)
        vals = _values(leaves, f"the arguments of the custom_jvp function {name}")
        avals = [aval_of(v) for v in vals]
        primal = _Primal("custom_jvp", self._call, name, nondiff, statics, in_tree, avals)
        with _rule_level():
            jvp_closed = self._trace_rule(rule, name, statics, in_tree, avals, primal)
        call, jvp = join_consts(
            [primal.closed.jaxpr, jvp_closed.jaxpr], [len(primal.closed.consts), len(jvp_closed.consts)]
        )
        consts = _consts([primal.closed, jvp_closed])
        params = CustomJvpParams(call, jvp, len(consts), name).to_params()
        outs = bind(custom_jvp_call_p, [*consts, *vals], params)
        return cast(R, tree.unflatten(primal.out_tree, outs))  # the function's own output structure

    def _trace_rule(self, rule: Callable[..., object], name: str,
                    statics: Sequence[object], in_tree: tree.TreeDef,
                    avals: Sequence[ShapedArray], primal: _Primal) -> ClosedJaxpr:
        n = len(avals)
        rule_name = fun_name(rule)
        want = primal.out_avals

        def run(xs: list[Value]) -> list[Value]:
            primals = tree.unflatten(in_tree, xs[:n])
            tangents = tree.unflatten(in_tree, xs[n:])
            pair = rule(*statics, primals, tangents)
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise CustomDerivativeError(
                    f"Custom JVP rule {rule_name} for function {name} must produce a pair "
                    "(list or tuple of length two) representing primal and tangent outputs, "
                    f"but got {pair!r}."
                )
            p_leaves, p_tree = tree.flatten(pair[0])
            t_leaves, t_tree = tree.flatten(pair[1])
            if p_tree != t_tree:
                raise CustomDerivativeError(
                    f"Custom JVP rule {rule_name} for function {name} must produce primal and "
                    "tangent outputs with equal container (pytree) structures, but got "
                    f"{p_tree} and {t_tree} respectively."
                )
            p_vals = _values(p_leaves, f"the primal outputs of the JVP rule {rule_name}")
            p_avals = [aval_of(v) for v in p_vals]
            if p_tree != primal.out_tree:
                raise CustomDerivativeError(
                    f"Custom JVP rule {rule_name} for function {name} must produce a pair (list "
                    "or tuple of length two) where the first element represents the primal "
                    f"output (equal in value to the output of the custom_jvp-decorated function "
                    f"{name}, and in particular of the same container/pytree structure), but "
                    "instead the JVP rule output's first element had container/pytree "
                    f"structure:\n    {_types(p_avals, p_tree)}\nwhile the custom_jvp-decorated "
                    f"function {name} had output container/pytree structure:\n"
                    f"    {_types(want, primal.out_tree)}."
                )
            fitted = [_fit(v, w) for v, w in zip(p_vals, want)]
            if any(f is None for f in fitted):
                raise CustomDerivativeError(
                    f"Custom JVP rule {rule_name} for function {name} must produce a pair (list "
                    "or tuple of length two) where the first element represents the primal "
                    f"output (equal in value to the output of the custom_jvp-decorated function "
                    f"{name}, and in particular with leaves of the same shape/dtype), but "
                    "instead the JVP rule output's first element had shapes/dtypes of:\n"
                    f"    {_types(p_avals, p_tree)}\nwhile the custom_jvp-decorated function "
                    f"{name} had output shapes/dtypes of:\n    {_types(want, p_tree)}"
                )
            p_out = [f for f in fitted if f is not None]
            t_vals = _values(t_leaves, f"the tangent outputs of the JVP rule {rule_name}")
            t_out: list[Value] = []
            bad: list[str] = []
            for t, w in zip(t_vals, want):
                ta = aval_of(t)
                if not is_inexact(w.dtype):  # no derivative (JAX's float0): zeros of its own type
                    if ta.shape != w.shape:
                        bad.append(f"primal {w.str_short()} with tangent {ta.str_short()}")
                    t_out.append(zeros_like_aval(w.weakened(False)))
                    continue
                ft = _fit(t, w)
                if ft is None:
                    bad.append(f"primal {w.str_short()} with tangent {ta.str_short()}, "
                               f"expecting tangent {w.weakened(False).str_short()}")
                else:
                    t_out.append(ft)
            if bad:
                raise CustomDerivativeError(
                    f"Custom JVP rule {rule_name} for function {name} must produce primal and "
                    "tangent outputs with corresponding shapes and dtypes, but got:\n  "
                    + "\n  ".join(bad)
                )
            return [*p_out, *t_out]

        return _stage(run, [*avals, *_strong(avals)], f"{name}_jvp")


# -- custom_vjp ----------------------------------------------------------------------
class custom_vjp(Generic[P, R]):  # noqa: N801 - JAX's name
    """A function with a reverse-mode rule of its own (``jax.custom_vjp``).

    ``defvjp(fwd, bwd)``: ``fwd`` takes the function's arguments and returns
    ``(output, residuals)``; ``bwd(residuals, output_cotangent)`` returns a
    tuple with one cotangent per argument (None for none). ``grad``, ``vjp``
    and ``jacrev`` use ``bwd``; ``jvp`` (forward mode) of the function is an
    error, as in JAX. ``nondiff_argnums`` marks arguments that are not
    differentiated (non-array values such as functions; ``bwd`` takes them
    first: ``bwd(*nondiff_args, residuals, cotangent)``).
    """

    __name__: str  # the function's, as functools.wraps gives them
    __qualname__: str
    __wrapped__: Callable[P, R]
    fun: Callable[P, R]
    nondiff_argnums: tuple[int, ...]
    fwd: Callable[..., object] | None
    bwd: Callable[..., object] | None

    def __init__(self, fun: Callable[P, R], nondiff_argnums: Sequence[int] = (),
                 nondiff_argnames: Sequence[str] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self._call: Callable[..., object] = fun
        self.nondiff_argnums = _nondiff_argnums("custom_vjp", fun, nondiff_argnums, nondiff_argnames)
        self.fwd = None
        self.bwd = None

    def defvjp(self, fwd: Callable[..., tuple[object, object]], bwd: Callable[..., object],
               symbolic_zeros: bool = False, optimize_remat: bool = False) -> None:
        """Set the forward pass (``fwd(*args) -> (out, residuals)``) and the
        backward pass (``bwd(residuals, out_cotangent) -> args_cotangents``)."""
        if symbolic_zeros:
            raise CustomDerivativeError(
                f"custom_vjp function {fun_name(self.fun)}: symbolic_zeros=True is not "
                "supported by typedax"
            )
        del optimize_remat  # an optimization of JAX's remat, which typedax does not have
        self.fwd = fwd
        self.bwd = bwd

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        name = fun_name(self.fun)
        fwd, bwd = self.fwd, self.bwd
        if fwd is None or bwd is None:
            raise MissingCustomRuleError(
                f"No VJP defined for custom_vjp function {name} using defvjp."
            )
        full = _resolve_args("custom_vjp", self.fun, tuple(args), dict(kwargs))
        nondiff = self.nondiff_argnums
        _check_argnums("custom_vjp", name, nondiff, len(full))
        statics = [full[i] for i in nondiff]
        for s in statics:
            if any(isinstance(leaf, Tracer) for leaf in tree.leaves(s)):
                raise CustomDerivativeError(
                    f"Found a tracer passed as an argument to the custom_vjp function {name} "
                    "in a position indicated by nondiff_argnums as non-differentiable. "
                    "Tracers cannot be passed as non-differentiable arguments to custom_vjp "
                    "functions; instead, nondiff_argnums should only be used for arguments "
                    "that can't be or contain tracers, e.g. function-valued arguments. In "
                    "particular, array-valued arguments should typically not be indicated "
                    "as nondiff_argnums."
                )
        if current_trace() is EVAL_TRACE or _DEPTH.get() >= MAX_RULE_DEPTH:
            return cast(R, self._call(*full))  # the caller's own arguments, resolved to positions
        dyn = tuple(x for i, x in enumerate(full) if i not in nondiff)
        leaves, in_tree = tree.flatten(dyn)
        vals = _values(leaves, f"the arguments of the custom_vjp function {name}")
        avals = [aval_of(v) for v in vals]
        primal = _Primal("custom_vjp", self._call, name, nondiff, statics, in_tree, avals)
        with _rule_level():
            fwd_closed, res_tree = self._trace_fwd(fwd, name, statics, in_tree, avals, primal)
            n_out = len(primal.out_avals)
            res_avals = list(fwd_closed.jaxpr.out_avals[n_out:])
            bwd_closed = self._trace_bwd(bwd, name, statics, dyn, res_tree, res_avals, primal)
        call, fwd_j, bwd_j = join_consts(
            [primal.closed.jaxpr, fwd_closed.jaxpr, bwd_closed.jaxpr],
            [len(primal.closed.consts), len(fwd_closed.consts), len(bwd_closed.consts)],
        )
        consts = _consts([primal.closed, fwd_closed, bwd_closed])
        params = CustomVjpParams(call, fwd_j, bwd_j, len(consts), name).to_params()
        outs = bind(custom_vjp_call_p, [*consts, *vals], params)
        return cast(R, tree.unflatten(primal.out_tree, outs))  # the function's own output structure

    def _trace_fwd(self, fwd: Callable[..., object], name: str,
                   statics: Sequence[object], in_tree: tree.TreeDef,
                   avals: Sequence[ShapedArray], primal: _Primal) -> tuple[ClosedJaxpr, tree.TreeDef]:
        fwd_name = fun_name(fwd)
        nondiff = self.nondiff_argnums
        want = primal.out_avals
        res_trees: list[tree.TreeDef] = []

        def run(xs: list[Value]) -> list[Value]:
            dyn = tree.unflatten(in_tree, xs)
            assert isinstance(dyn, tuple)
            pair = fwd(*_merge(nondiff, statics, dyn))
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise CustomDerivativeError(
                    f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair "
                    "(list or tuple of length two) where the first element represents the "
                    f"primal output (equal to those of the custom_vjp-decorated function {name}) "
                    "and the second element represents residuals (i.e. values stored from the "
                    "forward pass for use on the backward pass), but instead of a pair the fwd "
                    f"rule {fwd_name} produced {pair!r}."
                )
            p_leaves, p_tree = tree.flatten(pair[0])
            r_leaves, r_tree = tree.flatten(pair[1])
            res_trees.append(r_tree)
            p_vals = _values(p_leaves, f"the primal outputs of the fwd rule {fwd_name}")
            p_avals = [aval_of(v) for v in p_vals]
            if p_tree != primal.out_tree:
                raise CustomDerivativeError(
                    f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair "
                    "(list or tuple of length two) where the first element represents the "
                    f"primal output (equal to the output of the custom_vjp-decorated function "
                    f"{name}) and the second element represents residuals, but instead the fwd "
                    "rule output's first element had container/pytree structure:\n"
                    f"    {_types(p_avals, p_tree)}\nwhile the custom_vjp-decorated function "
                    f"{name} had output container/pytree structure:\n"
                    f"    {_types(want, primal.out_tree)}."
                )
            fitted = [_fit(v, w) for v, w in zip(p_vals, want)]
            if any(f is None for f in fitted):
                raise CustomDerivativeError(
                    f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair "
                    "(list or tuple of length two) where the first element represents the "
                    f"primal output (equal to the output of the custom_vjp-decorated function "
                    f"{name}) and the second element represents residuals, but instead the fwd "
                    "rule output's first element had shapes/dtypes of:\n"
                    f"    {_types(p_avals, p_tree)}\nwhile the custom_vjp-decorated function "
                    f"{name} had output shapes/dtypes of:\n    {_types(want, p_tree)}"
                )
            res = _values(r_leaves, f"the residuals of the fwd rule {fwd_name}")
            return [*(f for f in fitted if f is not None), *res]

        closed = _stage(run, avals, f"{name}_fwd")
        return closed, res_trees[0]

    def _trace_bwd(self, bwd: Callable[..., object], name: str, statics: Sequence[object],
                   dyn: tuple[object, ...], res_tree: tree.TreeDef,
                   res_avals: Sequence[ShapedArray], primal: _Primal) -> ClosedJaxpr:
        bwd_name = fun_name(bwd)
        n_res = len(res_avals)
        arg_trees = [tree.structure(a) for a in dyn]
        arg_avals = [[aval_of(x) for x in tree.leaves(a)] for a in dyn]
        in_tree = tree.structure(dyn)

        def run(xs: list[Value]) -> list[Value]:
            res = tree.unflatten(res_tree, xs[:n_res])
            ct = tree.unflatten(primal.out_tree, xs[n_res:])
            cts_in = bwd(*statics, res, ct)
            if isinstance(cts_in, list) and len(cts_in) == len(dyn):
                cts_in = tuple(cts_in)
            if not isinstance(cts_in, tuple) or len(cts_in) != len(dyn):
                raise CustomDerivativeError(
                    "Custom VJP bwd rule must produce an output with the same container "
                    "(pytree) structure as the args tuple of the primal function, and in "
                    "particular must produce a tuple of length equal to the number of "
                    f"arguments to the primal function, but got bwd output structure "
                    f"{tree.structure(cts_in)} for primal input structure {in_tree} "
                    f"(bwd rule {bwd_name} of the custom_vjp function {name})."
                )
            out: list[Value] = []
            for i, (ct_i, t_i, avals_i) in enumerate(zip(cts_in, arg_trees, arg_avals)):
                if ct_i is None:
                    out.extend(zeros_like_aval(a.weakened(False)) for a in avals_i)
                    continue
                leaves, t = tree.flatten(ct_i, is_leaf=lambda x: x is None)
                if t != t_i:
                    raise CustomDerivativeError(
                        "Custom VJP bwd rule must produce an output with the same container "
                        "(pytree) structure as the args tuple of the primal function, but "
                        f"for argument {i} the bwd rule {bwd_name} of the custom_vjp function "
                        f"{name} produced structure {t} for an argument of structure {t_i}."
                    )
                for leaf, a in zip(leaves, avals_i):
                    out.append(_bwd_leaf(leaf, a, i, bwd_name, name))
            return out

        ct_avals = _strong(primal.out_avals)
        return _stage(run, [*res_avals, *ct_avals], f"{name}_bwd")


def _bwd_leaf(leaf: object, a: ShapedArray, i: int, bwd_name: str, name: str) -> Value:
    strong = a.weakened(False)
    if leaf is None or not is_inexact(a.dtype):  # None, or no derivative (JAX's float0)
        return zeros_like_aval(strong)
    v = as_value(leaf, f"the outputs of the bwd rule {bwd_name}")
    va = aval_of(v)
    if va.shape == a.shape and is_inexact(va.dtype):
        # JAX lets a floating cotangent of another precision through; it is cast here
        return v if va.dtype == a.dtype else lax.convert_element_type(v, a.dtype)
    raise CustomDerivativeError(
        "Custom VJP bwd rule must produce an output with the same type as the args tuple "
        f"of the primal function, but at output[{i}] the bwd rule {bwd_name} of the "
        f"custom_vjp function {name} produced an output of type {va.str_short()} "
        f"corresponding to an input of type {a.str_short()}"
    )

