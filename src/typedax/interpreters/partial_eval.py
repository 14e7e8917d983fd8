"""Partial evaluation: split a computation into the part that can run now
(on known values) and a jaxpr for the part that must wait for unknown ones.

Two faces, as for every transformation:

* ``PartialEvalTrace`` runs Python code: operations on known values are
  evaluated on the spot (so Python control flow on them works), and every
  operation touching an unknown value is recorded as a recipe on the tracer
  it produces. ``tracers_to_jaxpr`` sorts the recipes into a jaxpr;
  ``partial_eval_flat`` is the driver.
* ``partial_eval_jaxpr`` unzips a jaxpr into a known and an unknown jaxpr.

Known values are plain values -- arrays, scalars, tracers of enclosing
traces; only unknown values are ``PartialEvalTracer``s. Primitives that need
special treatment (higher-order ones: jit, cond, scan) register one rule in
its primitive's ``rules.partial_eval``; the trace uses the same rule, so one entry
serves both faces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TypeAlias

import numpy as np

from ..core.avals import ShapedArray
from ..core.errors import ConcretizationError, JaxprTypeError
from ..core.ir import Atom, Eqn, Jaxpr, Lit, NDArray, Params, Primitive, Var, new_eqn, new_var
from ..core.memo import IdentityMemo
from ..core.rules import PartialEvalRule
from ..core.result_types import weak_types
from ..core.trace import Trace, Tracer, Value, aval_of, bind, current_trace, register_aval_getter, using_trace
from ..core.typecheck import typecheck_jaxpr

_SCALARS = (bool, int, float, complex)


@dataclass(frozen=True, slots=True)
class PartialVal:
    """A known value (``const``), or an unknown one of which only the type is known."""

    aval: ShapedArray
    const: Value | None

    @staticmethod
    def known(value: Value) -> PartialVal:
        return PartialVal(aval_of(value), value)

    @staticmethod
    def unknown(aval: ShapedArray) -> PartialVal:
        return PartialVal(aval, None)

    @property
    def is_known(self) -> bool:
        return self.const is not None


# -- recipes: how an unknown value will be computed ---------------------------
@dataclass(frozen=True, slots=True)
class LambdaBindingRecipe:
    """An unknown input of the function being partially evaluated."""


@dataclass(frozen=True, slots=True, eq=False)
class ConstRecipe:
    """A known value used by an unknown computation (becomes a constant binder)."""

    val: Value


@dataclass(frozen=True, slots=True, eq=False)
class JaxprEqnRecipe:
    """An equation staged because an operand is unknown. ``seq`` orders
    recipes by creation, which is a topological order."""

    eqn: Eqn
    parents: tuple[PartialEvalTracer, ...]
    seq: int


Recipe: TypeAlias = LambdaBindingRecipe | ConstRecipe | JaxprEqnRecipe

_LAMBDA = LambdaBindingRecipe()


class PartialEvalTracer(Tracer):
    """An unknown value: the variable ``var`` of the jaxpr being recorded."""

    __slots__ = ("ir_var", "recipe")
    _trace: PartialEvalTrace

    def __init__(self, trace: PartialEvalTrace, var: Var, recipe: Recipe) -> None:
        self._trace = trace
        self.ir_var = var
        self.recipe = recipe

    @property
    def aval(self) -> ShapedArray:
        return self.ir_var.aval

    def concrete(self, why: str) -> NDArray:
        raise ConcretizationError(
            f"{why} of a value of type {self.aval.str_short()} that depends on the "
            f"unknown inputs of {self._trace.describe()}: it is only known when the "
            "staged (linear) part runs. Python control flow may depend on primal "
            "values, not on tangents or other unknown inputs."
        )


_new = object.__new__
# (``aval_of`` of an unknown value: its var's aval, read in C, as staging's)
register_aval_getter(PartialEvalTracer, attrgetter("ir_var.aval"))


# A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``
# (about 1 us for three); the recipes made per staged equation set their
# slots directly (they validate nothing).
_set_const_val: Callable[[ConstRecipe, Value], None] = ConstRecipe.__dict__["val"].__set__
_set_recipe_eqn: Callable[[JaxprEqnRecipe, Eqn], None] = JaxprEqnRecipe.__dict__["eqn"].__set__
_set_recipe_parents: Callable[[JaxprEqnRecipe, tuple[PartialEvalTracer, ...]], None] = (
    JaxprEqnRecipe.__dict__["parents"].__set__)
_set_recipe_seq: Callable[[JaxprEqnRecipe, int], None] = JaxprEqnRecipe.__dict__["seq"].__set__


def _eqn_recipe(eqn: Eqn, parents: tuple[PartialEvalTracer, ...], seq: int) -> JaxprEqnRecipe:
    """``JaxprEqnRecipe(eqn, parents, seq)``, faster."""
    r: JaxprEqnRecipe = _new(JaxprEqnRecipe)
    _set_recipe_eqn(r, eqn)
    _set_recipe_parents(r, parents)
    _set_recipe_seq(r, seq)
    return r


def _new_tracer(trace: PartialEvalTrace, var: Var, recipe: Recipe) -> PartialEvalTracer:
    """``PartialEvalTracer(trace, var, recipe)``, without ``__init__``'s call."""
    t: PartialEvalTracer = _new(PartialEvalTracer)
    t._trace = trace
    t.ir_var = var
    t.recipe = recipe
    return t


class PartialEvalTrace(Trace):
    """Evaluates known operations now and records the others."""

    __slots__ = ("_consts", "_seq")

    def __init__(self, parent: Trace | None) -> None:
        super().__init__(parent)
        self._consts: dict[int, PartialEvalTracer] = {}
        self._seq = 0

    def describe(self) -> str:
        return "partial evaluation"

    def new_arg(self, pval: PartialVal) -> Value:
        """The value the function sees for an input: the known value itself,
        or a fresh unknown tracer."""
        if pval.const is not None:
            return pval.const
        return _new_tracer(self, new_var(pval.aval), _LAMBDA)

    def is_unknown(self, x: Value) -> bool:
        return type(x) is PartialEvalTracer and x._trace is self

    def instantiate_const(self, x: Value) -> PartialEvalTracer:
        """``x`` as an unknown value: a known one becomes a constant binder."""
        if type(x) is PartialEvalTracer and x._trace is self:
            return x
        t = self._consts.get(id(x))  # (a value met before passed the foreign check then)
        if t is None:
            if isinstance(x, Tracer):
                self.check_foreign(x)
            recipe: ConstRecipe = _new(ConstRecipe)
            _set_const_val(recipe, x)  # ``ConstRecipe(x)``, without the frozen __init__
            t = self._consts[id(x)] = _new_tracer(self, new_var(aval_of(x)), recipe)
        return t

    def _atom(self, x: Value) -> tuple[Atom, PartialEvalTracer | None]:
        if type(x) in _SCALARS:  # a Python int or float is weak (core/weak.py), of its canonical dtype
            return Lit.of(x, aval_of(x).dtype, type(x) is not bool), None  # type: ignore[arg-type]  # type(x) checked just above
        t = self.instantiate_const(x)
        return t.ir_var, t

    def stage(self, prim: Primitive, args: Sequence[Value], params: Params) -> list[PartialEvalTracer]:
        """Record ``prim(args)`` as an equation; its outputs are unknown."""
        atoms: list[Atom] = []
        parents: list[PartialEvalTracer] = []
        for a in args:
            if type(a) is PartialEvalTracer and a._trace is self:  # (``_atom``'s answer, without its calls)
                atoms.append(a.ir_var)
                parents.append(a)
                continue
            atom, t = self._atom(a)
            atoms.append(atom)
            if t is not None:
                parents.append(t)
        # abstract evaluation and the weak-type rule, remembered (core/result_types.py)
        avals_out = weak_types(prim, [a.aval for a in atoms], params)
        self._seq += 1
        if len(avals_out) == 1:
            v = new_var(avals_out[0])
            recipe = _eqn_recipe(new_eqn(prim, tuple(atoms), params, (v,)), tuple(parents), self._seq)
            return [_new_tracer(self, v, recipe)]
        outs = tuple([new_var(a) for a in avals_out])
        recipe = _eqn_recipe(new_eqn(prim, tuple(atoms), params, outs), tuple(parents), self._seq)
        return [_new_tracer(self, v, recipe) for v in outs]

    def process_primitive(
        self, prim: Primitive, args: Sequence[Value], params: Params
    ) -> list[Value]:
        for a in args:
            if type(a) is PartialEvalTracer and a._trace is self:
                break
        else:  # all known: the interpreter below computes it now
            parent = self.parent
            assert parent is not None  # partial_eval_flat always gives one
            return parent.process_primitive(prim, args, params)
        rule = prim.rules.partial_eval
        if rule is None:
            out: list[Value] = list(self.stage(prim, args, params))
            return out
        unknowns = [type(a) is PartialEvalTracer and a._trace is self for a in args]
        return self._apply_jaxpr_rule(rule, prim, args, unknowns, params)

    def process_primitive1(self, prim: Primitive, args: Sequence[Value], params: Params) -> Value:
        # ``process_primitive``'s first result; a known application goes to
        # the interpreter below's own ``process_primitive1`` (staging's is
        # its fast path)
        for a in args:
            if type(a) is PartialEvalTracer and a._trace is self:
                if prim.rules.partial_eval is None:  # (process_primitive's choice, without its loop again)
                    return self.stage(prim, args, params)[0]
                return self.process_primitive(prim, args, params)[0]
        parent = self.parent
        assert parent is not None  # partial_eval_flat always gives one
        return parent.process_primitive1(prim, args, params)

    def _apply_jaxpr_rule(
        self,
        rule: PartialEvalRule,
        prim: Primitive,
        args: Sequence[Value],
        unknowns: Sequence[bool],
        params: Params,
    ) -> list[Value]:
        """Use a jaxpr-level rule on the fly: run the known equation now and
        record the unknown one."""
        in_vars = [Var(aval_of(a)) for a in args]
        out_avals = prim.abstract_eval([v.aval for v in in_vars], params)
        eqn = Eqn(prim, tuple(in_vars), params, tuple(Var(a) for a in out_avals))
        eqn1, eqn2, unks_out, _ = rule(unknowns, eqn)
        env: dict[Var, Value] = dict(zip(in_vars, args))

        def read(a: Atom) -> Value:
            return np.asarray(a.val, a.aval.dtype) if isinstance(a, Lit) else env[a]

        if eqn1 is not None:
            with using_trace(self.parent or self):
                outs1 = bind(eqn1.primitive, [read(a) for a in eqn1.inputs], eqn1.params)
            env.update(zip(eqn1.out_binders, outs1))
        if eqn2 is not None:
            outs2 = self.stage(eqn2.primitive, [read(a) for a in eqn2.inputs], eqn2.params)
            env.update(zip(eqn2.out_binders, outs2))
        del unks_out
        return [env[v] for v in eqn.out_binders]


def _toposort_recipes(
    outs: Sequence[PartialEvalTracer],
) -> tuple[list[JaxprEqnRecipe], list[PartialEvalTracer], set[Var]]:
    """The equation recipes the outputs depend on (in creation order), the
    constant tracers they read, and the lambda-bound vars they reach."""
    eqns: dict[int, JaxprEqnRecipe] = {}
    consts: dict[Var, PartialEvalTracer] = {}
    lambdas: set[Var] = set()
    seen: set[Var] = set()
    stack = list(outs)
    while stack:
        t = stack.pop()
        if t.ir_var in seen:
            continue
        seen.add(t.ir_var)
        r = t.recipe
        if isinstance(r, JaxprEqnRecipe):
            if r.seq not in eqns:
                eqns[r.seq] = r
                stack.extend(r.parents)
        elif isinstance(r, ConstRecipe):
            consts[t.ir_var] = t
        else:
            lambdas.add(t.ir_var)
    return [eqns[k] for k in sorted(eqns)], list(consts.values()), lambdas


def tracers_to_jaxpr(
    tracers_in: Sequence[PartialEvalTracer], tracers_out: Sequence[PartialEvalTracer]
) -> tuple[Jaxpr, list[Value]]:
    """The jaxpr computing ``tracers_out`` from ``tracers_in``: its inputs are
    one binder per constant (values returned alongside), then ``tracers_in``."""
    recipes, consts, lambdas = _toposort_recipes(tracers_out)
    in_vars = [t.ir_var for t in tracers_in]
    missing = lambdas - set(in_vars)
    if missing:
        raise JaxprTypeError(
            "partial evaluation: an output depends on an unknown input that is not "
            "among the jaxpr's inputs"
        )
    vals: list[Value] = []
    for t in consts:
        assert isinstance(t.recipe, ConstRecipe)
        vals.append(t.recipe.val)
    jaxpr = Jaxpr(
        tuple(t.ir_var for t in consts) + tuple(in_vars),
        tuple(r.eqn for r in recipes),
        tuple(t.ir_var for t in tracers_out),
    )
    return jaxpr, vals


def partial_eval_flat(
    fun: Callable[[list[Value]], Sequence[Value]],
    pvals_in: Sequence[PartialVal],
    instantiate: bool | Sequence[bool] = False,
) -> tuple[Jaxpr, list[PartialVal], list[Value]]:
    """Run ``fun`` on partially known inputs.

    Returns ``(jaxpr, pvals_out, consts)``: ``pvals_out`` gives every output,
    known (its value) or unknown (its type); ``jaxpr`` computes the unknown
    outputs, in order, from ``consts`` followed by the unknown inputs, in
    order. ``instantiate`` makes the marked outputs unknown even when known.
    """
    trace = PartialEvalTrace(current_trace())
    args = [trace.new_arg(p) for p in pvals_in]
    try:
        with using_trace(trace):
            outs = list(fun(args))
        inst = [instantiate] * len(outs) if isinstance(instantiate, bool) else list(instantiate)
        pvals_out: list[PartialVal] = []
        unknown_out: list[PartialEvalTracer] = []
        for o, i in zip(outs, inst):
            if i or trace.is_unknown(o):
                t = trace.instantiate_const(o)
                unknown_out.append(t)
                pvals_out.append(PartialVal.unknown(t.aval))
            else:
                pvals_out.append(PartialVal.known(o))
        unknown_in = [a for a in args if isinstance(a, PartialEvalTracer) and a._trace is trace]
        jaxpr, consts = tracers_to_jaxpr(unknown_in, unknown_out)
        return jaxpr, pvals_out, consts
    finally:
        trace.alive = False


# -- the pure face: partial_eval_jaxpr ----------------------------------------
def partial_eval_jaxpr(
    jaxpr: Jaxpr,
    in_unknowns: Sequence[bool],
    instantiate: bool | Sequence[bool] = False,
) -> tuple[Jaxpr, Jaxpr, list[bool], int]:
    """Unzip ``jaxpr`` into the part computable from the known inputs and the
    part that needs the unknown ones.

    Returns ``(jaxpr_known, jaxpr_unknown, out_unknowns, num_residuals)``
    where, for ``jaxpr : (a1, a2) -> (b1, b2)`` with ``a2`` the inputs marked
    in ``in_unknowns`` and ``b2`` the outputs marked in ``out_unknowns``:

    * ``jaxpr_known : a1 -> (b1, res)``  (``num_residuals`` residuals), and
    * ``jaxpr_unknown : (res, a2) -> b2``.

    ``instantiate`` marks outputs to put in ``b2`` even when known (they
    become residuals, or literals).
    """
    if len(in_unknowns) != len(jaxpr.in_binders):
        raise JaxprTypeError(
            f"partial_eval_jaxpr: {len(in_unknowns)} in_unknowns flags for a jaxpr "
            f"with {len(jaxpr.in_binders)} inputs"
        )
    n_out = len(jaxpr.outs)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    if len(inst) != n_out:
        raise JaxprTypeError(
            f"partial_eval_jaxpr: {len(inst)} instantiate flags for a jaxpr with {n_out} outputs"
        )
    key = (tuple(bool(u) for u in in_unknowns), tuple(bool(i) for i in inst))
    known = _MEMO.get(jaxpr, key)
    if known is None:
        known = _partial_eval_jaxpr(jaxpr, in_unknowns, inst)
        _MEMO.put(jaxpr, key, known)
    j1, j2, out_unknowns, nres = known
    return j1, j2, list(out_unknowns), nres


# nested control flow unzips each body more than once: remembered, the pass
# stays linear in program size (core/memo.py)
_MEMO: IdentityMemo[tuple[Jaxpr, Jaxpr, tuple[bool, ...], int]] = IdentityMemo()


def _partial_eval_jaxpr(
    jaxpr: Jaxpr, in_unknowns: Sequence[bool], inst: Sequence[bool]
) -> tuple[Jaxpr, Jaxpr, tuple[bool, ...], int]:
    unknown: set[Var] = {v for v, u in zip(jaxpr.in_binders, in_unknowns) if u}
    residuals: dict[Var, None] = {}

    def is_unknown(a: Atom) -> bool:
        return isinstance(a, Var) and a in unknown

    eqns1: list[Eqn] = []
    eqns2: list[Eqn] = []
    for eqn in jaxpr.eqns:
        unks_in = [is_unknown(a) for a in eqn.inputs]
        rule = eqn.primitive.rules.partial_eval if any(unks_in) else None
        if rule is not None:
            eqn1, eqn2, unks_out, res = rule(unks_in, eqn)
            if eqn1 is not None:
                eqns1.append(eqn1)
            if eqn2 is not None:
                eqns2.append(eqn2)
            for v in res:
                residuals[v] = None
            unknown.update(v for v, u in zip(eqn.out_binders, unks_out) if u)
        elif any(unks_in):
            for a, u in zip(eqn.inputs, unks_in):
                if not u and isinstance(a, Var):
                    residuals[a] = None
            eqns2.append(eqn)
            unknown.update(eqn.out_binders)
        else:
            eqns1.append(eqn)
    out_unknowns = [is_unknown(a) or i for a, i in zip(jaxpr.outs, inst)]
    for a, i in zip(jaxpr.outs, inst):
        if i and isinstance(a, Var) and a not in unknown:
            residuals[a] = None
    res = list(residuals)
    ins1 = tuple(v for v, u in zip(jaxpr.in_binders, in_unknowns) if not u)
    ins2 = tuple(v for v, u in zip(jaxpr.in_binders, in_unknowns) if u)
    outs1 = tuple(a for a, u in zip(jaxpr.outs, out_unknowns) if not u)
    outs2 = tuple(a for a, u in zip(jaxpr.outs, out_unknowns) if u)
    jaxpr1 = Jaxpr(ins1, tuple(eqns1), outs1 + tuple(res))
    jaxpr2 = Jaxpr(tuple(res) + ins2, tuple(eqns2), outs2)
    _check_partial_eval(jaxpr, in_unknowns, out_unknowns, jaxpr1, jaxpr2)
    return jaxpr1, jaxpr2, tuple(out_unknowns), len(res)


def _check_partial_eval(
    jaxpr: Jaxpr,
    unks_in: Sequence[bool],
    unks_out: Sequence[bool],
    jaxpr1: Jaxpr,
    jaxpr2: Jaxpr,
) -> None:
    t = typecheck_jaxpr(jaxpr)
    t1 = typecheck_jaxpr(jaxpr1)
    t2 = typecheck_jaxpr(jaxpr2)
    a1 = tuple(x for x, u in zip(t.in_types, unks_in) if not u)
    a2 = tuple(x for x, u in zip(t.in_types, unks_in) if u)
    b1 = tuple(x for x, u in zip(t.out_types, unks_out) if not u)
    b2 = tuple(x for x, u in zip(t.out_types, unks_out) if u)
    nres = len(t1.out_types) - len(b1)
    ok = (
        t1.in_types == a1
        and t1.out_types[: len(b1)] == b1
        and t2.in_types[:nres] == t1.out_types[len(b1) :]
        and t2.in_types[nres:] == a2
        and t2.out_types == b2
    )
    if not ok:
        raise JaxprTypeError(
            f"partial_eval_jaxpr produced ill-typed halves: {t} split into {t1} and {t2}"
        )
