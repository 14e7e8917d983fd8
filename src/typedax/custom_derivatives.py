"""``custom_jvp`` and ``custom_vjp``: functions with derivative rules of the
user's own, as ``jax.custom_jvp`` / ``jax.custom_vjp``.

A call runs the way JAX's does (its ``process_custom_jvp_call`` per
interpreter), so the function and its rules run as many times as JAX's,
and Python control flow on concrete primal values works in them:

* evaluation (no transformation) calls the function;
* ``jvp`` and ``grad`` (``linearize``) call the JVP rule -- or ``fwd`` --
  on the primals as the interpreter below sees them (concrete when nothing
  below stages), and never the function itself; ``grad`` of a
  ``custom_vjp`` traces ``bwd`` once, to the jaxpr of ``custom_lin``
  (``control_flow/custom_calls.py``) that transposition evaluates;
* ``vmap`` passes the function and its rules, batched, to the interpreter
  below, so whichever of them that one calls runs once;
* partial evaluation passes a call on known values to the interpreter below.

Where something below stages (``jit``, ``make_jaxpr``, a call on unknown
values under partial evaluation), the call is staged where it is made: the
function is traced to a jaxpr and ``custom_jvp_call`` / ``custom_vjp_call``
is bound with its rules as lazily traced jaxprs (``core.ir.LazyJaxpr``, JAX's
Python thunks), traced only when a transformation of the equation needs
them (the rules of those primitives say what each transformation does with
the equation). A rule that calls its own function (``primal_out = f(x)``)
stages that call the same way, so rules nest to any depth, as JAX's.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, ParamSpec, TypeVar, cast

from . import lax
from . import tree
from .control_flow.custom_calls import (
    CustomJvpParams, CustomVjpParams, custom_jvp_call_p, custom_lin_p, custom_vjp_call_p, lin_params,
)
from .core.avals import ShapedArray
from .core.dtypes import is_float, is_inexact
from .core.errors import CustomDerivativeError, MissingCustomRuleError
from .core.ir import ClosedJaxpr, LazyJaxpr
from .core.names import fun_name
from .core.rules import BatchDim, Tangent, Zero
from .core.trace import (
    EVAL_TRACE, EvalTrace, Trace, Tracer, Value, as_value, aval_of, bind, current_trace, using_trace,
)
from .interpreters.batching import BatchTrace, BatchTracer, vmap_flat
from .interpreters.jvp import JVPTrace, JVPTracer
from .interpreters.partial_eval import PartialEvalTrace
from .interpreters.staging import trace_to_jaxpr_flat
from .primitives.structural import move_batch_axis, reduce_sum, zeros_like_aval

__all__ = ["custom_jvp", "custom_vjp"]

P = ParamSpec("P")
R = TypeVar("R")
JvpFn = TypeVar("JvpFn", bound=Callable[..., tuple[object, object]])

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


def _consts(closed: ClosedJaxpr) -> list[Value]:
    return [as_value(c, "constants") for c in closed.consts]


class _Same:
    """An object in a key, compared by identity (a function, a
    non-differentiable argument: what a rule is traced from)."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


def _origin(kind: str, fns: Sequence[object], statics: Sequence[object], in_tree: tree.TreeDef,
            avals: Sequence[ShapedArray]) -> Hashable:
    """What a staged rule is, without tracing it: the user's functions and
    non-differentiable arguments (by identity, as JAX's caches key on
    functions), the arguments' structure and types. Equal keys trace equal
    rules, so a function staged twice compares equal (``LazyJaxpr``)."""
    return (kind, tuple(_Same(f) for f in fns), tuple(_Same(x) for x in statics), in_tree,
            tuple((a, a.weak_type) for a in avals))


def _strong(avals: Sequence[ShapedArray]) -> list[ShapedArray]:
    return [a.weakened(False) for a in avals]


FlatFun = Callable[[list[Value]], list[Value]]
"""A function or rule on flat lists of values (its pytrees flattened)."""
FlatRule = Callable[[list[Value], list[Value]], list[Value]]
"""A JVP rule on flat primals and tangents, giving the primal then the tangent outputs."""


class _Out:
    """What a call learns of its outputs from whichever of the function and
    its rules runs: the output structure; the output types once the function
    is traced (staging); for a ``custom_vjp``, the residuals' structure."""

    __slots__ = ("tree", "avals", "res_tree", "n_res")

    def __init__(self) -> None:
        self.tree: tree.TreeDef | None = None
        self.avals: list[ShapedArray] | None = None
        self.res_tree: tree.TreeDef | None = None
        self.n_res = 0

    def out_tree(self) -> tree.TreeDef:
        if self.tree is None:  # the function or a rule has run by now
            raise AssertionError("custom function: no output structure recorded")
        return self.tree


def _flat_fun(kind: str, fun: Callable[..., object], name: str, nondiff: tuple[int, ...],
              statics: Sequence[object], in_tree: tree.TreeDef, out: _Out) -> FlatFun:
    def run(xs: list[Value]) -> list[Value]:
        dyn = tree.unflatten(in_tree, xs)
        assert isinstance(dyn, tuple)
        flat, out_tree = tree.flatten(fun(*_merge(nondiff, statics, dyn)))
        out.tree = out_tree
        return _values(flat, f"the outputs of the {kind} function {name}")

    return run


# -- how a call runs under each interpreter (JAX's process_custom_*_call) -------------
def _own_jvp(trace: Trace, v: Value) -> bool:
    return type(v) is JVPTracer and v._trace is trace


def _own_batch(trace: Trace, v: Value) -> bool:
    return type(v) is BatchTracer and v._trace is trace


def _runs_below(trace: Trace, vals: Sequence[Value]) -> bool:
    """Whether a call on ``vals`` under ``trace`` reaches evaluation, or a
    JVP interpreter that calls the rule, through interpreters that only hand
    it down (``vmap``; partial evaluation of known values; a JVP perturbing
    none of them): then each passes the function and its rules to the one
    below, as JAX's interpreters do, and only the one called runs. Otherwise
    (staging below) the call is staged where it is made."""
    t: Trace | None = trace
    vs = list(vals)
    while t is not None:
        if isinstance(t, EvalTrace):
            return True
        if isinstance(t, JVPTrace):
            if any(_own_jvp(t, v) for v in vs):
                return True
        elif isinstance(t, PartialEvalTrace):
            if any(t.is_unknown(v) for v in vs):
                return False
        elif isinstance(t, BatchTrace):
            vs = [v.val if type(v) is BatchTracer and v._trace is t else v for v in vs]
        else:
            return False
        t = t.parent
    return False


def _parent(trace: Trace) -> Trace:
    parent = trace.parent
    assert parent is not None  # only evaluation has none
    return parent


def _primals_tangents(trace: JVPTrace, vals: Sequence[Value]) -> tuple[list[Value], list[Value]]:
    """The primals and tangents (zeros where none: a constant, an integer)
    of ``trace``'s operands, as values of the interpreter below."""
    primals: list[Value] = []
    dots: list[Value] = []
    with using_trace(_parent(trace)):
        for v in vals:
            p, t = (v.primal, v.tangent) if type(v) is JVPTracer and v._trace is trace else (v, None)
            primals.append(p)
            dots.append(zeros_like_aval(aval_of(p).weakened(False)) if t is None or isinstance(t, Zero) else t)
    return primals, dots


def _jvp_out(trace: JVPTrace, primal: Value, tangent: Value) -> Value:
    return JVPTracer(trace, primal, tangent) if is_inexact(aval_of(primal).dtype) else primal


def _unbatch(trace: BatchTrace, vals: Sequence[Value]) -> tuple[list[Value], list[BatchDim]]:
    out: list[Value] = []
    dims: list[BatchDim] = []
    for v in vals:
        if type(v) is BatchTracer and v._trace is trace:
            out.append(v.val)
            dims.append(v.batch_dim)
        else:
            out.append(v)
            dims.append(None)
    return out, dims


def _batch(trace: BatchTrace, vals: Sequence[Value], dims: Sequence[BatchDim]) -> list[Value]:
    return [v if d is None else BatchTracer(trace, v, d) for v, d in zip(vals, dims)]


def _to_front(trace: BatchTrace, outs: Sequence[Value], together: int = 0) -> tuple[list[Value], list[BatchDim]]:
    """``trace``'s outputs as values below it, batched along axis 0 (None:
    unbatched). With ``together`` = n, the outputs are n (primal, tangent)
    pairs, ``outs[:n]`` and ``outs[n:]``, batched alike."""
    vals, dims = _unbatch(trace, outs)
    want = [d is not None for d in dims]
    for i in range(together):
        if want[i] or want[together + i]:
            want[i] = want[together + i] = True
    with using_trace(_parent(trace)):  # (an unbatched one of a batched pair is broadcast)
        moved = [move_batch_axis(trace.axis_size, d, 0, v) if w else v for v, d, w in zip(vals, dims, want)]
    return moved, [0 if w else None for w in want]


def _jvp_call(trace: Trace, fun: FlatFun, rule: FlatRule, vals: Sequence[Value]) -> list[Value]:
    """A ``custom_jvp`` call handed down from interpreter to interpreter
    (where ``_runs_below``)."""
    if isinstance(trace, EvalTrace):
        with using_trace(trace):
            return fun(list(vals))
    parent = _parent(trace)
    if isinstance(trace, JVPTrace):
        if not any(_own_jvp(trace, v) for v in vals):
            return _jvp_call(parent, fun, rule, vals)
        primals, dots = _primals_tangents(trace, vals)
        with using_trace(parent):
            outs = rule(primals, dots)  # the primals as the interpreter below has them
        n = len(outs) // 2
        return [_jvp_out(trace, p, t) for p, t in zip(outs[:n], outs[n:])]
    if isinstance(trace, BatchTrace):
        ins, dims = _unbatch(trace, vals)
        out_dims: list[list[BatchDim]] = []

        def fun_b(xs: list[Value]) -> list[Value]:
            with using_trace(trace):
                outs = fun(_batch(trace, xs, dims))
            moved, d = _to_front(trace, outs)
            out_dims.append(d)
            return moved

        def rule_b(ps: list[Value], ts: list[Value]) -> list[Value]:
            with using_trace(trace):
                outs = rule(_batch(trace, ps, dims), _batch(trace, ts, dims))
            moved, d = _to_front(trace, outs, len(outs) // 2)
            out_dims.append(d[: len(d) // 2])
            return moved

        outs = _jvp_call(parent, fun_b, rule_b, ins)
        return _batch(trace, outs, out_dims[-1])
    return _jvp_call(parent, fun, rule, vals)  # partial evaluation: the values are known


def _vjp_call(trace: Trace, fun: FlatFun, fwd: FlatFun, bwd: FlatFun, out: _Out, name: str,
              vals: Sequence[Value]) -> list[Value]:
    """A ``custom_vjp`` call handed down from interpreter to interpreter
    (where ``_runs_below``). Under a JVP interpreter ``fwd`` runs on the
    primals and ``bwd`` is traced, once, to the jaxpr of ``custom_lin``."""
    if isinstance(trace, EvalTrace):
        with using_trace(trace):
            return fun(list(vals))
    parent = _parent(trace)
    if isinstance(trace, JVPTrace):
        if not any(_own_jvp(trace, v) for v in vals):
            return _vjp_call(parent, fun, fwd, bwd, out, name, vals)
        primals, dots = _primals_tangents(trace, vals)
        with using_trace(parent):
            res_out = fwd(primals)
            n = len(res_out) - out.n_res
            outs, res = res_out[:n], res_out[n:]
            out_avals = [aval_of(o) for o in outs]
            avals = [*(aval_of(r) for r in res), *_strong(out_avals)]
            # bwd is traced when custom_lin is transposed, as JAX calls it only then
            bwd_lazy = LazyJaxpr(lambda: trace_to_jaxpr_flat(bwd, avals, f"{name}_bwd"))
            t_out = bind(custom_lin_p, [*res, *dots], lin_params(bwd_lazy, len(res), out_avals, name))
        return [_jvp_out(trace, p, t) for p, t in zip(outs, t_out)]
    if isinstance(trace, BatchTrace):
        ins, dims = _unbatch(trace, vals)
        out_dims: list[list[BatchDim]] = []
        res_dims: list[list[BatchDim]] = []
        size = trace.axis_size

        def fun_b(xs: list[Value]) -> list[Value]:
            with using_trace(trace):
                outs = fun(_batch(trace, xs, dims))
            moved, d = _to_front(trace, outs)
            out_dims.append(d)
            return moved

        def fwd_b(xs: list[Value]) -> list[Value]:
            with using_trace(trace):
                outs = fwd(_batch(trace, xs, dims))
            moved, d = _to_front(trace, outs)
            n = len(outs) - out.n_res
            out_dims.append(d[:n])
            res_dims.append(d[n:])
            return moved

        def bwd_b(xs: list[Value]) -> list[Value]:
            # traced under a trace of its own: a vmap of bwd on what fwd_b gave
            cts = vmap_flat(lambda ys: bwd(list(ys)), size, [*res_dims[-1], *out_dims[-1]], xs,
                            [0] * len(dims), trace.axis_name)
            # an argument shared by the examples gets the sum of their cotangents
            return [reduce_sum(c, (0,)) if d is None else move_batch_axis(size, 0, d, c)
                    for c, d in zip(cts, dims)]

        outs = _vjp_call(parent, fun_b, fwd_b, bwd_b, out, name, ins)
        return _batch(trace, outs, out_dims[-1])
    return _vjp_call(parent, fun, fwd, bwd, out, name, vals)  # partial evaluation: known values


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
        if current_trace() is EVAL_TRACE:
            return cast(R, self._call(*full))  # the caller's own arguments, resolved to positions
        raw_statics = [full[i] for i in nondiff]
        statics = [lax.stop_gradient(x) for x in raw_statics]
        dyn = tuple(x for i, x in enumerate(full) if i not in nondiff)
        leaves, in_tree = tree.flatten(dyn)
        vals = _values(leaves, f"the arguments of the custom_jvp function {name}")
        out = _Out()
        fun = _flat_fun("custom_jvp", self._call, name, nondiff, statics, in_tree, out)
        jvp = _flat_jvp_rule(rule, name, statics, in_tree, out)
        trace = current_trace()
        if _runs_below(trace, vals):
            outs = _jvp_call(trace, fun, jvp, vals)
        else:
            origin = _origin("custom_jvp", (self._call, rule), raw_statics, in_tree, [aval_of(v) for v in vals])
            outs = _stage_jvp(fun, jvp, out, vals, name, origin)
        return cast(R, tree.unflatten(out.out_tree(), outs))  # the function's own output structure


def _stage_jvp(fun: FlatFun, rule: FlatRule, out: _Out, vals: Sequence[Value], name: str,
               origin: Hashable) -> list[Value]:
    """Trace the function, and bind ``custom_jvp_call`` with the rule to be
    traced when a transformation needs it (JAX's ``jvp_jaxpr_fun``)."""
    avals = [aval_of(v) for v in vals]
    primal = trace_to_jaxpr_flat(fun, avals, name)
    out.avals = list(primal.jaxpr.out_avals)
    n = len(avals)
    rule_avals = [*avals, *_strong(avals)]
    jvp = LazyJaxpr(lambda: trace_to_jaxpr_flat(lambda xs: rule(xs[:n], xs[n:]), rule_avals, f"{name}_jvp"), origin)
    consts = _consts(primal)
    params = CustomJvpParams(primal.jaxpr, jvp, len(consts), name).to_params()
    return list(bind(custom_jvp_call_p, [*consts, *vals], params))


def _flat_jvp_rule(rule: Callable[..., object], name: str, statics: Sequence[object],
                   in_tree: tree.TreeDef, out: _Out) -> FlatRule:
    """The JVP rule on flat values, checking what it gives (against the
    function's output types once the function is traced, else against its
    own primal outputs, as JAX's)."""
    rule_name = fun_name(rule)

    def run(ps: list[Value], ts: list[Value]) -> list[Value]:
        primals = tree.unflatten(in_tree, ps)
        tangents = tree.unflatten(in_tree, ts)
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
        if out.tree is None:  # the function has not run: the rule says what it returns
            out.tree = p_tree
        want = out.avals if out.avals is not None else p_avals
        if p_tree != out.tree:
            raise CustomDerivativeError(
                f"Custom JVP rule {rule_name} for function {name} must produce a pair (list "
                "or tuple of length two) where the first element represents the primal "
                f"output (equal in value to the output of the custom_jvp-decorated function "
                f"{name}, and in particular of the same container/pytree structure), but "
                "instead the JVP rule output's first element had container/pytree "
                f"structure:\n    {_types(p_avals, p_tree)}\nwhile the custom_jvp-decorated "
                f"function {name} had output container/pytree structure:\n"
                f"    {_types(want, out.tree)}."
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

    return run


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
        if current_trace() is EVAL_TRACE:
            return cast(R, self._call(*full))  # the caller's own arguments, resolved to positions
        dyn = tuple(x for i, x in enumerate(full) if i not in nondiff)
        leaves, in_tree = tree.flatten(dyn)
        vals = _values(leaves, f"the arguments of the custom_vjp function {name}")
        out = _Out()
        fun = _flat_fun("custom_vjp", self._call, name, nondiff, statics, in_tree, out)
        fwd_f = _flat_fwd(fwd, name, nondiff, statics, in_tree, out)
        bwd_f = _flat_bwd(bwd, name, statics, dyn, out)
        trace = current_trace()
        if _runs_below(trace, vals):
            outs = _vjp_call(trace, fun, fwd_f, bwd_f, out, name, vals)
        else:
            origin = _origin("custom_vjp", (self._call, fwd, bwd), statics, in_tree, [aval_of(v) for v in vals])
            outs = _stage_vjp(fun, fwd_f, bwd_f, out, vals, name, origin)
        return cast(R, tree.unflatten(out.out_tree(), outs))  # the function's own output structure


def _stage_vjp(fun: FlatFun, fwd: FlatFun, bwd: FlatFun, out: _Out, vals: Sequence[Value],
               name: str, origin: Hashable) -> list[Value]:
    """Trace the function, and bind ``custom_vjp_call`` with ``fwd`` and
    ``bwd`` to be traced when a transformation needs them (JAX's
    ``fwd_jaxpr_thunk`` and ``bwd``): ``bwd`` at the residuals' types, so
    after ``fwd``."""
    avals = [aval_of(v) for v in vals]
    primal = trace_to_jaxpr_flat(fun, avals, name)
    out_avals = list(primal.jaxpr.out_avals)
    out.avals = out_avals
    fwd_lazy = LazyJaxpr(lambda: trace_to_jaxpr_flat(fwd, avals, f"{name}_fwd"), ("fwd", origin))

    def trace_bwd() -> ClosedJaxpr:
        res_avals = list(fwd_lazy.force().jaxpr.out_avals[len(out_avals):])
        return trace_to_jaxpr_flat(bwd, [*res_avals, *_strong(out_avals)], f"{name}_bwd")

    bwd_lazy = LazyJaxpr(trace_bwd, ("bwd", origin))
    consts = _consts(primal)
    params = CustomVjpParams(primal.jaxpr, fwd_lazy, bwd_lazy, len(consts), name).to_params()
    return list(bind(custom_vjp_call_p, [*consts, *vals], params))


def _flat_fwd(fwd: Callable[..., object], name: str, nondiff: tuple[int, ...],
              statics: Sequence[object], in_tree: tree.TreeDef, out: _Out) -> FlatFun:
    """``fwd`` on flat values, giving the outputs then the residuals, checked."""
    fwd_name = fun_name(fwd)

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
        out.res_tree = r_tree
        out.n_res = len(r_leaves)
        p_vals = _values(p_leaves, f"the primal outputs of the fwd rule {fwd_name}")
        p_avals = [aval_of(v) for v in p_vals]
        if out.tree is None:  # the function has not run: fwd says what it returns
            out.tree = p_tree
        want = out.avals if out.avals is not None else p_avals
        if p_tree != out.tree:
            raise CustomDerivativeError(
                f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair "
                "(list or tuple of length two) where the first element represents the "
                f"primal output (equal to the output of the custom_vjp-decorated function "
                f"{name}) and the second element represents residuals, but instead the fwd "
                "rule output's first element had container/pytree structure:\n"
                f"    {_types(p_avals, p_tree)}\nwhile the custom_vjp-decorated function "
                f"{name} had output container/pytree structure:\n"
                f"    {_types(want, out.tree)}."
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

    return run


def _flat_bwd(bwd: Callable[..., object], name: str, statics: Sequence[object],
              dyn: tuple[object, ...], out: _Out) -> FlatFun:
    """``bwd`` on flat residuals and output cotangents, giving the flat
    cotangents of the arguments, checked (zeros for None)."""
    bwd_name = fun_name(bwd)
    arg_trees = [tree.structure(a) for a in dyn]
    arg_avals = [[aval_of(x) for x in tree.leaves(a)] for a in dyn]
    in_tree = tree.structure(dyn)

    def run(xs: list[Value]) -> list[Value]:
        if out.res_tree is None:  # fwd has run by now
            raise AssertionError(f"custom_vjp function {name}: bwd before fwd")
        n_res = out.n_res
        res = tree.unflatten(out.res_tree, xs[:n_res])
        ct = tree.unflatten(out.out_tree(), xs[n_res:])
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
        flat: list[Value] = []
        for i, (ct_i, t_i, avals_i) in enumerate(zip(cts_in, arg_trees, arg_avals)):
            if ct_i is None:
                flat.extend(zeros_like_aval(a.weakened(False)) for a in avals_i)
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
                flat.append(_bwd_leaf(leaf, a, i, bwd_name, name))
        return flat

    return run


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

