"""Staging: the interpreter that records primitive applications into a jaxpr,
and the trace driver ``make_jaxpr``.

With omnistaging, the staging trace becomes the current interpreter while the
function runs, so *every* primitive it applies is recorded -- operations on
constants included. Scalars become literals; arrays and tracers of enclosing
traces become constant binders (the ``ClosedJaxpr``'s ``consts``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter

import numpy as np

from ..core.config import X32_POSSIBLE
from ..core.avals import ShapedArray
from ..core.errors import ConcretizationError
from ..core.ir import (
    Atom, ClosedJaxpr, Eqn, EqnSlots, Jaxpr, Lit, NDArray, Params, Primitive, Types, Var, new_eqn, new_var,
)
from ..core.trace import Trace, Tracer, Value, aval_of, current_trace, register_aval_getter, using_trace
from ..core.result_types import result_types, types1, types2

_LIT_TYPES = (bool, int, float, complex)


class JaxprTracer(Tracer):
    """A staged value: it stands for the variable ``ir_var`` of the jaxpr being built."""

    __slots__ = ("ir_var",)
    _trace: JaxprTrace

    def __init__(self, trace: JaxprTrace, var: Var) -> None:
        self._trace = trace
        self.ir_var = var

    @property
    def aval(self) -> ShapedArray:
        return self.ir_var.aval

    def concrete(self, why: str) -> NDArray:
        raise ConcretizationError(
            f"{why} of a traced value of type {self.aval.str_short()} while staging "
            f"function '{self._trace.fun_name}': its value is not known until the "
            "jaxpr runs. Use lax.cond / lax.while_loop for data-dependent control "
            "flow, or mark the argument static."
        )


_new = object.__new__
_set_var_aval: Callable[[Var, ShapedArray], None] = Var.__dict__["aval"].__set__


# (``aval_of`` of a staged value: its var's aval, read in C)
register_aval_getter(JaxprTracer, attrgetter("ir_var.aval"))


def _new_tracer(trace: JaxprTrace, var: Var) -> JaxprTracer:
    """``JaxprTracer(trace, var)``, faster (without ``__init__``'s call)."""
    t: JaxprTracer = _new(JaxprTracer)
    t._trace = trace
    t.ir_var = var
    return t


class JaxprTrace(Trace):
    """Records every primitive applied while it is the current trace."""

    __slots__ = ("fun_name", "eqns", "constvars", "constvals", "_const_ids")

    def __init__(self, parent: Trace | None, fun_name: str) -> None:
        super().__init__(parent)
        self.fun_name = fun_name
        self.eqns: list[Eqn] = []
        self.constvars: list[Var] = []
        self.constvals: list[object] = []
        self._const_ids: dict[int, tuple[Var, object]] = {}

    def describe(self) -> str:
        return f"staging of '{self.fun_name}'"

    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        return _new_tracer(self, new_var(aval))

    def atom(self, x: Value) -> Atom:
        """The jaxpr atom for an operand: its var, a literal, or a constvar."""
        if type(x) is JaxprTracer and x._trace is self:
            return x.ir_var
        if type(x) in _LIT_TYPES:  # a Python int or float is weak (core/weak.py)
            weak = type(x) is not bool
            if X32_POSSIBLE[0]:  # x64 off: the literal takes its canonical type
                return Lit.of(x, aval_of(x).dtype, weak)  # type: ignore[arg-type]  # as below
            return Lit.of(x, None, weak)  # type: ignore[arg-type]  # type(x) checked just above
        if isinstance(x, Tracer):
            self.check_foreign(x)
        elif isinstance(x, (np.ndarray, np.generic)) and x.shape == () and x.dtype.names is None:  # (a typed key is a constant)
            return Lit.of(x, aval_of(x).dtype) if X32_POSSIBLE[0] else Lit.of(x)
        known = self._const_ids.get(id(x))
        if known is not None:
            return known[0]
        var = Var(aval_of(x))
        self._const_ids[id(x)] = (var, x)  # x kept alive: its id stays its own
        self.constvars.append(var)
        # the value as it is now: a NumPy array the caller mutates later must
        # not change what the staged function computes (as in JAX); with x64
        # off, in its canonical type
        if type(x) is np.ndarray and x.dtype != var.aval.dtype:
            x = x.astype(var.aval.dtype)
        self.constvals.append(_frozen_copy(x) if type(x) is np.ndarray else x)
        return var

    def process_primitive1(self, prim: Primitive, args: Sequence[Value], params: Params) -> Value:
        # The hot path of tracing (``lax``'s functions come here directly):
        # no comprehension (a frame each) for one or two operands, the
        # primitive's last result types compared by identity before asking
        # ``core/result_types.py``, and the IR nodes and the tracer built
        # inline (``new_var``, ``new_eqn``, ``_new_tracer``).
        n = len(args)
        if n == 1:
            x = args[0]
            a = x.ir_var if type(x) is JaxprTracer and x._trace is self else self.atom(x)
            ins: tuple[Atom, ...] = (a,)
            aa = a.aval
            last1 = prim.last_types.one
            if last1 is not None and last1[0] is params and last1[1] is aa:
                avals = last1[2]
            else:
                avals = types1(prim, aa, params)
        elif n == 2:
            x, y = args
            a = x.ir_var if type(x) is JaxprTracer and x._trace is self else self.atom(x)
            b = y.ir_var if type(y) is JaxprTracer and y._trace is self else self.atom(y)
            ins = (a, b)
            aa, ba = a.aval, b.aval
            last2 = prim.last_types.two
            if last2 is not None and last2[0] is params and last2[1] is aa and last2[2] is ba:
                avals = last2[3]
            else:
                avals = types2(prim, aa, ba, params)
        else:
            return self.process_primitive(prim, args, params)[0]
        if len(avals) != 1:
            return self._record(prim, ins, params, avals)[0]
        v: Var = _new(Var)
        _set_var_aval(v, avals[0])
        e = EqnSlots()
        e.primitive = prim
        e.inputs = ins
        e.params = params
        e.out_binders = (v,)
        e.__class__ = Eqn  # type: ignore[assignment]  # an Eqn from here on (ir.EqnSlots)
        self.eqns.append(e)  # type: ignore[arg-type]  # as the line above
        t: JaxprTracer = _new(JaxprTracer)
        t._trace = self  # (a tracer is no frozen dataclass: plain stores)
        t.ir_var = v
        return t

    def process_primitive(
        self, prim: Primitive, args: Sequence[Value], params: Params
    ) -> list[Value]:
        ins = tuple([
            x.ir_var if type(x) is JaxprTracer and x._trace is self else self.atom(x) for x in args
        ])
        n = len(ins)
        if n == 1:
            avals = types1(prim, ins[0].aval, params)
        elif n == 2:
            avals = types2(prim, ins[0].aval, ins[1].aval, params)
        else:
            avals = result_types(prim, [a.aval for a in ins], params)
        return self._record(prim, ins, params, avals)

    def _record(self, prim: Primitive, ins: tuple[Atom, ...], params: Params, avals: Types) -> list[Value]:
        """Record the equation ``prim`` of ``ins`` with results of ``avals``;
        its results' tracers."""
        if len(avals) == 1:
            v = new_var(avals[0])
            self.eqns.append(new_eqn(prim, ins, params, (v,)))
            return [_new_tracer(self, v)]
        outs = tuple([new_var(a) for a in avals])
        self.eqns.append(new_eqn(prim, ins, params, outs))
        return [_new_tracer(self, v) for v in outs]

    def build(self, in_vars: Sequence[Var], outs: Sequence[Value]) -> ClosedJaxpr:
        out_atoms = tuple(self.atom(o) for o in outs)
        jaxpr = Jaxpr(tuple(self.constvars) + tuple(in_vars), tuple(self.eqns), out_atoms)
        return ClosedJaxpr(jaxpr, tuple(self.constvals))


def _frozen_copy(x: NDArray) -> NDArray:
    c = np.array(x, copy=True)
    c.flags.writeable = False
    return c


def trace_to_jaxpr_flat(
    fun: Callable[[list[Value]], Sequence[Value]],
    avals: Sequence[ShapedArray],
    fun_name: str = "<function>",
) -> ClosedJaxpr:
    """Stage ``fun`` (flat list in, flat sequence out) at ``avals``."""
    trace = JaxprTrace(current_trace(), fun_name)
    args = [trace.new_arg(a) for a in avals]
    try:
        # Python's cyclic collector stays on: pausing it (gc.disable) made
        # staging ~1.4x faster (2.0-2.4 against 3.0-3.4 us/eqn from 10k to 400k
        # equations; linear either way), but it is process-wide state -- other
        # threads' cycles went uncollected meanwhile, and a gc.disable() of
        # theirs during a trace was undone when the trace re-enabled it.
        with using_trace(trace):
            outs = fun(list(args))
            return trace.build([a.ir_var for a in args], outs)
    finally:
        trace.alive = False
