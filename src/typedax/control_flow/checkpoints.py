"""``checkpoint`` (rematerialization) and ``name`` (``checkpoint_name``): the
primitives under ``typedax.checkpoint`` / ``typedax.ad_checkpoint``, with
every rule.

``checkpoint`` takes the constants its function closes over, then the
function's flat arguments; its params (printed as JAX's ``remat2``):

* ``jaxpr``: the function;
* ``prevent_cse``: lower a recomputation behind an optimization barrier;
* ``differentiated``: whether this equation is the recomputing half that
  partial evaluation made (only that half gets the barrier, as JAX's);
* ``policy``: which values the forward pass may save (``Policy.param``: a
  tuple of strings, the policy's name then the names it lists).

Evaluation, batching (``vmap_jaxpr`` of the body), JVP (the JVP of the body,
bound as ``checkpoint`` again), transposition (``transpose_jaxpr`` of the
body: its non-linear part, the recomputation, lands inside the transposed
body) and DCE transform the body and bind ``checkpoint`` again. Partial
evaluation is where it differs from ``jit``: ``remat_partial_eval`` splits
the body so that the known equation computes the known outputs and saves
only what the policy allows (and the inputs the unknown half reads), while
the unknown equation *recomputes* every other known value it needs. The
lowering inlines the body; a ``differentiated`` body with ``prevent_cse``
first passes its operands through ``stablehlo.optimization_barrier`` so XLA
cannot merge the recomputation with the forward pass (JAX's
``_remat_lowering``).

``name`` is the identity with a ``name`` param: a label the name policies
read. Its JVP names the primal only (as JAX's ``name_jvp``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from jaxlib.mlir.dialects import stablehlo as hlo
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.errors import CheckpointError, PrimitiveTypeError
from ..core.eval import eval_jaxpr
from ..core.ir import Atom, Eqn, Jaxpr, NDArray, Param, Params, Primitive, Var
from ..core.memo import IdentityMemo
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Tracer, Value, bind
from ..hlo import HloValue, LoweringContext, lower_jaxpr_body
from ..interpreters.dce import dce_jaxpr
from ..interpreters.transpose import transpose_jaxpr
from ..primitives._params import _get, get_bool, get_jaxpr
from ..primitives.dot import get_dimension_numbers
from .common import (
    PeResult,
    batch_jaxpr,
    check_jaxpr_in_types,
    dims0,
    eval_np,
    forward_deps,
    jvp_jaxpr_nz,
    nonzero,
    tangents_out,
    to_front,
)

__all__ = ["CheckpointParams", "Policy", "checkpoint_p", "name_p", "remat_partial_eval_jaxpr"]


# -- policies --------------------------------------------------------------------
#: The policies that take no names, and those that take a list of names.
PLAIN_POLICIES = ("nothing_saveable", "everything_saveable", "dots_saveable", "dots_with_no_batch_dims_saveable")
NAME_POLICIES = ("save_anything_except_these_names", "save_any_names_but_these", "save_only_these_names")
#: A policy that is not callable (``checkpoint(f, policy=3)``), held by the
#: name of its type: JAX accepts it until the policy is asked (on
#: differentiation), then raises its ``TypeError``; so does ``saveable``.
NOT_CALLABLE = "not_callable"


@dataclass(frozen=True, slots=True)
class Policy:
    """Which values a ``checkpoint``-ed function's forward pass may save for
    its backward pass: JAX's ``checkpoint_policies``, as a value that an
    equation's params hold (``param``) and print. ``saveable`` answers for
    one equation of the (JVP of the) body whose inputs are all known."""

    kind: str
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind == NOT_CALLABLE:
            if len(self.names) != 1:
                raise CheckpointError(f"checkpoint policy {NOT_CALLABLE} takes one type name, got {self.names}")
        elif self.kind in PLAIN_POLICIES:
            if self.names:
                raise CheckpointError(f"checkpoint policy {self.kind} takes no names, got {self.names}")
        elif self.kind not in NAME_POLICIES:
            raise CheckpointError(
                f"unknown checkpoint policy {self.kind!r}; use one of typedax.checkpoint_policies: "
                + ", ".join(PLAIN_POLICIES + NAME_POLICIES)
            )
        for n in self.names:
            if not isinstance(n, str):
                raise CheckpointError(f"checkpoint policy {self.kind}: names must be strings, got {n!r}")

    @property
    def param(self) -> tuple[str, ...]:
        return (self.kind, *self.names)

    @staticmethod
    def of_param(p: Param) -> Policy:
        if not isinstance(p, tuple) or not p or not all(isinstance(x, str) for x in p):
            raise PrimitiveTypeError(f"checkpoint: param 'policy' must be a tuple of strings, got {p!r}")
        kind, *names = (x for x in p if isinstance(x, str))
        try:
            return Policy(kind, tuple(names))
        except CheckpointError as e:
            raise PrimitiveTypeError(f"checkpoint: param 'policy': {e}") from None

    def saveable(self, eqn: Eqn) -> bool:
        kind, prim = self.kind, eqn.primitive.name
        if kind == NOT_CALLABLE:  # JAX's error, when JAX's would call the policy
            raise CheckpointError(
                f"'{self.names[0]}' object is not callable: checkpoint's policy must be one of "
                "typedax.checkpoint_policies"
            )
        if kind == "everything_saveable":
            return True
        if kind == "dots_saveable":
            return prim in ("dot_general", "conv_general_dilated")
        if kind == "dots_with_no_batch_dims_saveable":
            if prim != "dot_general":
                return False
            (_, _), (lhs_b, rhs_b) = get_dimension_numbers(eqn.params)
            return not lhs_b and not rhs_b
        if kind == "save_anything_except_these_names":
            # JAX 0.10.2's policy saves everything, named or not (its source
            # carries a TODO saying the names are not honoured yet)
            return True
        if kind in ("save_any_names_but_these", "save_only_these_names"):
            if prim != "name":
                return False
            label = name_of(eqn.params)
            return (label in self.names) == (kind == "save_only_these_names")
        return False  # nothing_saveable


NOTHING_SAVEABLE = Policy("nothing_saveable")


# -- checkpoint's params ------------------------------------------------------------
class CheckpointParams(NamedTuple):
    """``checkpoint``'s params, typed: ``CheckpointParams.of(eqn.params)``
    reads and checks them; ``to_params()`` makes the map an equation holds."""

    jaxpr: Jaxpr
    prevent_cse: bool
    differentiated: bool
    policy: Policy

    @staticmethod
    def of(params: Params) -> CheckpointParams:
        return CheckpointParams(
            get_jaxpr("checkpoint", params, "jaxpr"),
            get_bool("checkpoint", params, "prevent_cse"),
            get_bool("checkpoint", params, "differentiated"),
            Policy.of_param(_get("checkpoint", params, "policy")),
        )

    def to_params(self) -> Params:
        return pmap({
            "jaxpr": self.jaxpr, "prevent_cse": self.prevent_cse,
            "differentiated": self.differentiated, "policy": self.policy.param,
        })

    def with_jaxpr(self, jaxpr: Jaxpr, differentiated: bool | None = None) -> Params:
        d = self.differentiated if differentiated is None else differentiated
        return CheckpointParams(jaxpr, self.prevent_cse, d, self.policy).to_params()


# Transformed bodies, remembered by the identity of the body they came from
# (core/memo.py): a checkpointed layer called n times traces its body once
# (``ad_checkpoint.checkpoint``'s cache), so its JVP, unzipping, transpose
# and batching are computed once too.
_JVP: IdentityMemo[tuple[Jaxpr, list[bool], list[Value]]] = IdentityMemo()
_BATCH: IdentityMemo[Jaxpr] = IdentityMemo()
_TRANSPOSE: IdentityMemo[Jaxpr] = IdentityMemo()
_TYPES: IdentityMemo[list[ShapedArray]] = IdentityMemo()
_PE: IdentityMemo[_PePlan] = IdentityMemo()


def _impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return eval_np(CheckpointParams.of(params).jaxpr, args)


def _eval_values(args: Sequence[Value], params: Params) -> list[Value]:
    """Eager: the body's equations one by one (device values stay put)."""
    return eval_jaxpr(CheckpointParams.of(params).jaxpr, args)


def _abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    jaxpr = CheckpointParams.of(params).jaxpr
    key = tuple((a, a.weak_type) for a in avals)
    out = _TYPES.get(jaxpr, key)
    if out is None:
        out = list(check_jaxpr_in_types("checkpoint", "jaxpr", jaxpr, avals))
        _TYPES.put(jaxpr, key, out)
    return out


def _jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    p = CheckpointParams.of(params)
    nz = tuple(nonzero(t) for t in tangents)
    known = _JVP.get(p.jaxpr, nz)
    if known is None:
        known = jvp_jaxpr_nz(p.jaxpr, nz, [False] * len(p.jaxpr.outs))
        if not any(isinstance(c, Tracer) for c in known[2]):  # remember no tracer
            _JVP.put(p.jaxpr, nz, known)
    body, out_nz, consts = known  # (the constants its rules staged, taken first)
    dots = [t for t in tangents if not isinstance(t, Zero)]
    outs = bind(checkpoint_p, [*consts, *primals, *dots], p.with_jaxpr(body))
    return tangents_out(outs, len(p.jaxpr.outs), out_nz, p.jaxpr.out_avals)


def _batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    p = CheckpointParams.of(params)
    in_b = tuple(d is not None for d in dims)
    out_b = forward_deps(p.jaxpr, in_b)
    body = _BATCH.get(p.jaxpr, (size, in_b))
    if body is None:
        body = batch_jaxpr(p.jaxpr, size, dims0(in_b), out_b)
        _BATCH.put(p.jaxpr, (size, in_b), body)
    outs = bind(checkpoint_p, to_front(size, vals, dims), p.with_jaxpr(body))
    return list(outs), dims0(out_b)


def _transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    p = CheckpointParams.of(params)
    lin = tuple(isinstance(x, UndefPrimal) for x in primals)
    body = _TRANSPOSE.get(p.jaxpr, lin)
    if body is None:
        body = transpose_jaxpr(p.jaxpr, lin)
        _TRANSPOSE.put(p.jaxpr, lin, body)
    res = [x for x in primals if not isinstance(x, UndefPrimal)]
    outs = iter(bind(checkpoint_p, [*res, *cts], p.with_jaxpr(body)))
    return [next(outs) if li else None for li in lin]


def _dce(used: Sequence[bool], eqn: Eqn) -> Eqn | None:
    p = CheckpointParams.of(eqn.params)
    body, used_in = dce_jaxpr(p.jaxpr, used)
    ins = tuple(a for a, u in zip(eqn.inputs, used_in) if u)
    outs = tuple(v for v, u in zip(eqn.out_binders, used) if u)
    return Eqn(checkpoint_p, ins, p.with_jaxpr(body), outs)


def _lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    p = CheckpointParams.of(eqn.params)
    if p.differentiated and p.prevent_cse and args:
        args = list(hlo.OptimizationBarrierOp(list(args)).results)
    return lower_jaxpr_body(ctx, p.jaxpr, args)


# -- partial evaluation: recompute instead of saving ----------------------------------
def remat_partial_eval_jaxpr(
    jaxpr: Jaxpr, in_unknowns: Sequence[bool], policy: Policy
) -> tuple[Jaxpr, Jaxpr, list[bool], list[Var]]:
    """Unzip ``jaxpr`` as ``checkpoint`` wants (JAX's
    ``partial_eval_jaxpr_custom`` with a policy).

    Returns ``(known, staged, out_unknowns, residuals)``: ``known : known
    inputs -> (known outputs, residuals)`` computes everything it can, and
    ``staged : (residuals, unknown inputs) -> unknown outputs``. A known
    equation whose outputs the policy does not let us save is *also* put in
    ``staged``, which so recomputes it from the residuals; a residual is a
    value ``staged`` reads and does not compute: a known input of
    ``jaxpr`` or the output of a saveable equation. ``residuals`` are the
    variables of ``jaxpr`` they are (input binders or equation outputs).

    An equation with both known and unknown inputs that has a partial
    evaluation rule (a nested ``checkpoint``, ``cond``, ``scan``, ``jit``)
    is split by it; its known half is then one known equation like any
    other (recomputed whole unless the policy saves it)."""
    unknown: set[Var] = {v for v, u in zip(jaxpr.in_binders, in_unknowns) if u}

    def is_unknown(a: Atom) -> bool:
        return isinstance(a, Var) and a in unknown

    known_eqns: list[Eqn] = []
    staged_eqns: list[Eqn] = []

    def add_known(e: Eqn) -> None:
        known_eqns.append(e)
        if not policy.saveable(e):
            staged_eqns.append(e)  # recomputed on the backward pass

    for eqn in jaxpr.eqns:
        uks = [is_unknown(a) for a in eqn.inputs]
        if not any(uks):
            add_known(eqn)
            continue
        rule = eqn.primitive.rules.partial_eval
        if rule is None:
            staged_eqns.append(eqn)
            unknown.update(eqn.out_binders)
            continue
        e1, e2, uks_out, _ = rule(uks, eqn)
        if e1 is not None:
            add_known(e1)
        if e2 is not None:
            staged_eqns.append(e2)
        unknown.update(v for v, u in zip(eqn.out_binders, uks_out) if u)

    out_unknowns = [is_unknown(a) for a in jaxpr.outs]
    staged_outs = tuple(a for a, u in zip(jaxpr.outs, out_unknowns) if u)
    unknown_ins = tuple(v for v, u in zip(jaxpr.in_binders, in_unknowns) if u)
    # keep only the staged equations the unknown outputs need; what they read
    # and do not compute is a residual
    needed: set[Var] = {a for a in staged_outs if isinstance(a, Var)}
    kept: list[Eqn] = []
    for e in reversed(staged_eqns):
        if any(v in needed for v in e.out_binders):
            kept.append(e)
            needed.update(a for a in e.inputs if isinstance(a, Var))
    kept.reverse()
    defined = set(unknown_ins).union(*(e.out_binders for e in kept))
    residuals: dict[Var, None] = {}
    for e in kept:
        for a in e.inputs:
            if isinstance(a, Var) and a not in defined:
                residuals[a] = None
    for a in staged_outs:
        if isinstance(a, Var) and a not in defined:
            residuals[a] = None
    res = list(residuals)
    staged = Jaxpr((*res, *unknown_ins), tuple(kept), staged_outs)
    known_outs = tuple(a for a, u in zip(jaxpr.outs, out_unknowns) if not u)
    known_ins = tuple(v for v, u in zip(jaxpr.in_binders, in_unknowns) if not u)
    known, _ = dce_jaxpr(Jaxpr(known_ins, tuple(known_eqns), (*known_outs, *res)), [True] * (len(known_outs) + len(res)), instantiate=True)
    return known, staged, out_unknowns, res


class _PePlan(NamedTuple):
    """``remat_partial_eval_jaxpr``'s result arranged for equations: the known
    body returns the known outputs then the residuals it computes; each
    residual is that (``None``) or the body input it is (its index)."""

    known: Jaxpr
    staged: Jaxpr
    out_unknowns: list[bool]
    sources: list[int | None]


def _pe_plan(jaxpr: Jaxpr, unks_in: tuple[bool, ...], policy: Policy) -> _PePlan:
    known, staged, out_uk, res = remat_partial_eval_jaxpr(jaxpr, unks_in, policy)
    index = {v: i for i, v in enumerate(jaxpr.in_binders)}
    sources = [index.get(r) for r in res]
    computed = [r for r, s in zip(res, sources) if s is None]
    n_known = out_uk.count(False)
    known = Jaxpr(known.in_binders, known.eqns, (*known.outs[:n_known], *computed))
    return _PePlan(known, staged, out_uk, sources)


def _partial_eval(unks_in: Sequence[bool], eqn: Eqn) -> PeResult:
    """The known equation saves only what the policy allows; the unknown one
    (``differentiated``) recomputes the rest. A residual that is an input of
    the body is read from the equation's own operand."""
    p = CheckpointParams.of(eqn.params)
    key = (tuple(unks_in), p.policy)
    plan = _PE.get(p.jaxpr, key)
    if plan is None:
        plan = _pe_plan(p.jaxpr, key[0], p.policy)
        _PE.put(p.jaxpr, key, plan)
    fresh = [Var(a.aval) for a in plan.known.outs[plan.out_unknowns.count(False):]]
    it = iter(fresh)
    res_atoms: list[Atom] = [next(it) if s is None else eqn.inputs[s] for s in plan.sources]
    known_outs = tuple(v for v, u in zip(eqn.out_binders, plan.out_unknowns) if not u)
    eqn1: Eqn | None = None
    if known_outs or fresh:
        known_ins = tuple(a for a, u in zip(eqn.inputs, unks_in) if not u)
        eqn1 = Eqn(checkpoint_p, known_ins, p.with_jaxpr(plan.known, False), (*known_outs, *fresh))
    unknown_ins = tuple(a for a, u in zip(eqn.inputs, unks_in) if u)
    unknown_outs = tuple(v for v, u in zip(eqn.out_binders, plan.out_unknowns) if u)
    eqn2 = Eqn(checkpoint_p, (*res_atoms, *unknown_ins), p.with_jaxpr(plan.staged, True), unknown_outs)
    residuals = list(dict.fromkeys(a for a in res_atoms if isinstance(a, Var)))
    return eqn1, eqn2, list(plan.out_unknowns), residuals


checkpoint_p = Primitive(
    "checkpoint", _impl, _abstract,
    Rules(
        jvp=_jvp, transpose=_transpose, batch=_batch, lower=_lowering,
        partial_eval=_partial_eval, dce=_dce, eval_values=_eval_values,
    ),
)


# -- name: the label the name policies read ---------------------------------------------
def name_of(params: Params) -> str:
    v = _get("name", params, "name")
    if not isinstance(v, str):
        raise PrimitiveTypeError(f"name: param 'name' must be a string, got {v!r}")
    return v


def _name_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return list(args)


def _name_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    name_of(params)
    if len(avals) != 1:
        raise PrimitiveTypeError(f"name: takes one operand, got {len(avals)}")
    return list(avals)


def _name_jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    return list(bind(name_p, primals, params)), list(tangents)  # the tangent is not named (JAX's name_jvp)


def _name_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    return list(bind(name_p, vals, params)), list(dims)


def _name_transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    return list(cts)


def _name_lowering(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    return list(args)


name_p = Primitive(
    "name", _name_impl, _name_abstract,
    Rules(jvp=_name_jvp, transpose=_name_transpose, batch=_name_batch, lower=_name_lowering),
)

FAMILY = Family("checkpoint", (checkpoint_p, name_p))
