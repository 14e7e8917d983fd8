"""``typedax.ad_checkpoint``: JAX's ``jax.ad_checkpoint`` -- ``checkpoint``
(alias ``remat``), its ``checkpoint_policies``, ``checkpoint_name`` and
``print_saved_residuals`` / ``saved_residuals``.

``checkpoint(f)`` stages ``f`` as one ``checkpoint`` equation
(``control_flow/checkpoints.py``); differentiating it recomputes, on the
backward pass, every value of ``f`` the policy does not let the forward pass
save. Policies are values (``Policy``), not arbitrary callables: an
equation's params must print and parse, so a policy is one of JAX's named
ones (``offload_dot_with_no_batch_dims`` and ``save_from_both_policies`` are
not provided: the CPU has no second memory space to offload to).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Hashable, Sequence
from typing import ParamSpec, TypeVar, cast

import numpy as np
from pyrsistent import pmap

from . import tree
from .control_flow.checkpoints import NOT_CALLABLE, NOTHING_SAVEABLE, CheckpointParams, Policy, checkpoint_p, name_of, name_p
from .control_flow.common import trace_callable
from .core.avals import ShapedArray
from .core.errors import CheckpointError
from .core.config import matmul_precision, x64_enabled
from .core.ir import Atom, ClosedJaxpr, Eqn, Jaxpr, Lit, Params, Var
from .core.names import fun_name
from .core.trace import Tracer, Value, aval_of, as_value, bind
from .interpreters.linearize import linearize_flat
from .interpreters.staging import trace_to_jaxpr_flat

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

__all__ = [
    "checkpoint", "checkpoint_name", "checkpoint_policies", "print_saved_residuals", "remat",
    "saved_residuals",
]


class checkpoint_policies:  # noqa: N801  (JAX's name: a namespace of policies)
    """JAX's ``jax.checkpoint_policies``: which values the forward pass of a
    ``checkpoint``-ed function may save (the rest are recomputed)."""

    nothing_saveable = NOTHING_SAVEABLE
    everything_saveable = Policy("everything_saveable")
    dots_saveable = Policy("dots_saveable")
    checkpoint_dots = dots_saveable
    dots_with_no_batch_dims_saveable = Policy("dots_with_no_batch_dims_saveable")
    checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable

    @staticmethod
    def save_anything_except_these_names(*names: str) -> Policy:
        """As JAX 0.10.2's: saves every value (its names are not honoured there either)."""
        return Policy("save_anything_except_these_names", names)

    @staticmethod
    def save_any_names_but_these(*names: str) -> Policy:
        """Save only named values (``checkpoint_name``), except these names."""
        return Policy("save_any_names_but_these", names)

    @staticmethod
    def save_only_these_names(*names: str) -> Policy:
        """Save only the values named (``checkpoint_name``) one of these."""
        return Policy("save_only_these_names", names)


def _static_argnums(static_argnums: int | Sequence[int]) -> tuple[int, ...]:
    nums = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
    if isinstance(nums, (str, bytes)) or not all(type(d) is int for d in nums):
        raise CheckpointError(
            "the `static_argnums` argument to `checkpoint` / `remat` must be an int or a "
            f"tuple of ints, got {static_argnums!r}"
        )
    return tuple(nums)


def checkpoint(
    fun: Callable[P, R],
    *,
    prevent_cse: bool = True,
    policy: Policy | None = None,
    static_argnums: int | Sequence[int] = (),
) -> Callable[P, R]:
    """``fun``, recomputing its internal values on the backward pass instead
    of saving them (JAX's ``jax.checkpoint``).

    ``policy`` (``checkpoint_policies``) lets the forward pass save some
    values (``dots_saveable``: matrix products); ``None`` saves none but the
    inputs. ``prevent_cse`` keeps XLA from merging the recomputation with the
    forward pass under ``jit``. ``static_argnums`` are passed to ``fun`` as
    Python values (``fun`` is traced again for each new value).
    """
    if not isinstance(prevent_cse, bool):
        raise CheckpointError(f"checkpoint: prevent_cse must be a bool, got {prevent_cse!r}")
    given: object = policy  # (annotated a Policy; anything may arrive)
    if given is not None and not isinstance(given, Policy) and not callable(given):
        # as JAX's: accepted, and a TypeError once differentiating asks it
        policy = Policy(NOT_CALLABLE, (type(given).__name__,))
    elif policy is not None and not isinstance(policy, Policy):
        raise CheckpointError(
            f"checkpoint: policy must be one of typedax.checkpoint_policies, got {policy!r} "
            "(a custom policy function cannot be held by a jaxpr's params)"
        )
    pol = NOTHING_SAVEABLE if policy is None else policy
    statics = _static_argnums(static_argnums)
    name = fun_name(fun)
    # traced bodies by argument structure and types, static values and the
    # settings tracing reads: a layer called n times is traced once, and its
    # one body is transformed once (control_flow/checkpoints.py's memos), as
    # JAX's weakref_lru_cache does. Bodies that close over a tracer are not
    # kept (the tracer belongs to one trace).
    traced: dict[Hashable, tuple[ClosedJaxpr, tree.TreeDef]] = {}

    @functools.wraps(fun)
    def fun_remat(*args: P.args, **kwargs: P.kwargs) -> R:
        n = len(args)
        if not all(-n <= d < n for d in statics):
            raise CheckpointError(
                "the `static_argnums` argument to `checkpoint` / `remat` can only take integer "
                f"values greater than or equal to `-len(args)` and less than `len(args)`, but got "
                f"{statics}, while `len(args)` = {n}"
            )
        fixed = {d % n for d in statics}
        dyn = tuple(a for i, a in enumerate(args) if i not in fixed)

        def run(dyn_args: tuple[object, ...], kw: dict[str, object]) -> object:
            it = iter(dyn_args)
            full = [args[i] if i in fixed else next(it) for i in range(n)]
            return fun(*full, **kw)  # type: ignore[arg-type]  # the user's own arguments, regrouped

        leaves, in_tree = tree.flatten((dyn, kwargs))
        vals = [as_value(x, f"the arguments of checkpoint of '{name}'") for x in leaves]
        avals = [aval_of(v) for v in vals]
        static_vals = [args[i] for i in sorted(fixed)]
        key = None if any(isinstance(s, Tracer) for s in static_vals) else _cache_key(in_tree, avals, static_vals)
        known = traced.get(key) if key is not None else None
        if known is None:
            known = trace_callable(run, in_tree, avals, f"checkpoint of '{name}'")
            if key is not None and not any(isinstance(c, Tracer) for c in known[0].consts):
                traced[key] = known
        closed, out_tree = known
        params = CheckpointParams(closed.jaxpr, prevent_cse, False, pol).to_params()
        consts = [as_value(c, "constants") for c in closed.consts]
        outs = bind(checkpoint_p, [*consts, *vals], params)
        return tree.unflatten(out_tree, outs)  # type: ignore[return-value]  # fun's own result structure

    return fun_remat


def _cache_key(in_tree: tree.TreeDef, avals: Sequence[ShapedArray], statics: Sequence[object]) -> Hashable | None:
    key = (in_tree, tuple((a, a.weak_type) for a in avals), tuple(statics), x64_enabled(), matmul_precision())
    try:
        hash(key)
    except TypeError:  # an unhashable static argument: trace every call
        return None
    return key


def remat(
    fun: Callable[P, R],
    *,
    prevent_cse: bool = True,
    policy: Policy | None = None,
    static_argnums: int | Sequence[int] = (),
) -> Callable[P, R]:
    """Alias of ``checkpoint``."""
    return checkpoint(fun, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)


def checkpoint_name(x: T, name: str) -> T:
    """``x`` (a pytree of arrays), labelled ``name`` for the name policies
    (``save_only_these_names``, ...)."""
    if not isinstance(name, str):
        raise CheckpointError(f"checkpoint_name: name must be a string, got {name!r}")
    params = _name_params(name)
    return tree.map(lambda v: bind(name_p, [as_value(v, "checkpoint_name")], params)[0], x)


@functools.lru_cache(maxsize=256)
def _name_params(name: str) -> Params:
    return pmap({"name": name})


# -- what the forward pass saves ---------------------------------------------------
def _short(aval: ShapedArray) -> str:
    """JAX's ``str_short(short_dtypes=True)``: ``f32[5,4]``."""
    d = np.dtype(aval.dtype).name
    short = "bf16" if d == "bfloat16" else d.replace("float", "f").replace("uint", "u").replace("int", "i")
    return f"{short}[{','.join(str(s) for s in aval.shape)}]"


def _inline_checkpoints(jaxpr: Jaxpr) -> tuple[list[Eqn], dict[Var, Atom]]:
    """``jaxpr``'s equations with every ``checkpoint`` equation replaced by
    its body's (recursively), as JAX's partial evaluation hoists the known
    half of a checkpoint out of the primitive; and the outer variables that
    became aliases of another atom (a body output that is one of its
    inputs)."""
    alias: dict[Var, Atom] = {}
    out: list[Eqn] = []

    def read(a: Atom) -> Atom:
        return alias.get(a, a) if isinstance(a, Var) else a

    def walk(eqns: Sequence[Eqn], env: dict[Var, Atom]) -> None:
        for e in eqns:
            ins = tuple(read(env.get(a, a)) if isinstance(a, Var) else a for a in e.inputs)
            if e.primitive is not checkpoint_p:
                out.append(Eqn(e.primitive, ins, e.params, e.out_binders))
                continue
            body = CheckpointParams.of(e.params).jaxpr
            inner: dict[Var, Atom] = dict(zip(body.in_binders, ins))
            produced = {v for be in body.eqns for v in be.out_binders}
            renamed: dict[Var, Var] = {}
            for o, v in zip(body.outs, e.out_binders):
                if isinstance(o, Var) and o in produced and o not in renamed:
                    renamed[o] = v
                else:
                    alias[v] = inner.get(o, o) if isinstance(o, Var) else o
                    if isinstance(o, Var) and o in renamed:
                        alias[v] = renamed[o]
            body_eqns = [Eqn(be.primitive, be.inputs, be.params, tuple(renamed.get(v, v) for v in be.out_binders)) for be in body.eqns]
            inner.update(renamed)
            walk(body_eqns, inner)

    walk(jaxpr.eqns, {})
    return out, alias


def _describe_eqn(eqn: Eqn) -> str:
    if eqn.primitive is name_p:
        return f"named '{name_of(eqn.params)}'"
    if eqn.primitive.name == "jit":
        return f"output of jitted function '{eqn.params['name']}'"
    return f"output of {eqn.primitive.name}"


def _arg_names(f: Callable[..., object], args: tuple[object, ...], kwargs: dict[str, object]) -> list[str]:
    """A name per flat leaf of ``(args, kwargs)``: the parameter's name, with
    the leaf's path inside it for a pytree argument (JAX's ``arg_names``)."""
    try:
        bound = inspect.signature(f).bind(*args, **kwargs).arguments
        named: list[tuple[str, object]] = list(bound.items())
    except (TypeError, ValueError):
        named = [(f"args[{i}]", a) for i, a in enumerate(args)] + list(kwargs.items())
    out: list[str] = []
    for pname, value in named:
        for path, _ in tree.flatten_with_path(value)[0]:
            out.append(pname + tree.keystr(path))
    return out


def saved_residuals(f: Callable[..., object], *args: object, **kwargs: object) -> list[tuple[ShapedArray, str]]:
    """What reverse-mode differentiation of ``f`` at ``args`` saves from the
    forward pass for the backward pass: one ``(type, source)`` per residual,
    as JAX's ``jax.ad_checkpoint.saved_residuals`` (the source names no line:
    typedax's equations do not record one)."""
    leaves, in_tree = tree.flatten((args, kwargs))
    vals = [as_value(x, "saved_residuals") for x in leaves]

    def f_flat(xs: list[Value]) -> list[Value]:
        a, k = cast(tuple[tuple[object, ...], dict[str, object]], tree.unflatten(in_tree, xs))
        return [as_value(o, "the outputs") for o in tree.leaves(f(*a, **k))]

    n_out: list[int] = []

    def run(xs: list[Value]) -> list[Value]:
        outs, lin = linearize_flat(f_flat, xs)
        n_out.append(len(outs))
        return [*outs, *lin.consts]

    closed = trace_to_jaxpr_flat(run, [aval_of(v) for v in vals], "saved_residuals")
    jaxpr: Jaxpr = closed.jaxpr
    n_consts = len(closed.consts)
    res = jaxpr.outs[n_out[0]:]
    names = _arg_names(f, args, kwargs)
    const_vars = jaxpr.in_binders[:n_consts]
    arg_vars = jaxpr.in_binders[n_consts:]

    def describe_arg(a: Var) -> str:
        if a in const_vars:
            return "from a constant"
        i = arg_vars.index(a)
        return f"from the argument {names[i]}" if i < len(names) else f"from the argument at flattened index {i}"

    eqns, alias = _inline_checkpoints(jaxpr)
    saved = [alias.get(a, a) if isinstance(a, Var) else a for a in res]
    res_vars = {a for a in saved if isinstance(a, Var)}
    results: list[tuple[ShapedArray, str]] = [(a.aval, "from a literal") for a in saved if isinstance(a, Lit)]
    for v in (*const_vars, *arg_vars):
        if v in res_vars:
            results.append((v.aval, describe_arg(v)))
    for eqn in eqns:
        for v in eqn.out_binders:
            if v in res_vars:
                results.append((v.aval, _describe_eqn(eqn)))
    return results


def print_saved_residuals(f: Callable[..., object], *args: object, **kwargs: object) -> None:
    """Print ``saved_residuals(f, *args, **kwargs)``, one per line, as JAX's
    (``f32[5,4] from the argument W1``, ``f32[5] output of sin``)."""
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{_short(aval)} {src}")
