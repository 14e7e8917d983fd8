"""Forward-mode automatic differentiation: the JVP interpreter,
the driver ``jvp_flat`` and the pure transformation ``jvp_jaxpr``.

A ``JVPTracer`` carries a primal and a tangent. A tangent may be the symbolic
``Zero(aval)``, so tangents nobody perturbed are never materialised; the
tangent of an integer or bool value is always ``Zero``. Rules bind
primitives under the trace's parent, so they compose with every
interpreter below (evaluation, staging, batching, another JVP).

The rules live with their primitives (``typedax/primitives/``,
``typedax/control_flow/``, ``typedax/jitting/``) as ``Rules.jvp``.

Each ``JVPTrace`` unwraps only its own tracers: a tracer of an enclosing trace
is a constant here, with a zero tangent. That is what makes perturbation
confusion impossible when ``jvp`` calls are nested around closures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core.avals import ShapedArray
from ..core.dtypes import float0, is_inexact  # float0 names
from ..core.errors import ConcretizationError, TangentTypeError, TangentValueError
from ..core.ir import Jaxpr, NDArray, Params, Primitive
from ..core.eval import eval_jaxpr
from ..core.rules import JvpRule, Tangent, Zero, require
from ..core.trace import Trace, Tracer, Value, aval_of, current_trace, using_trace
from ..primitives.structural import instantiate_zeros, zero_of, zeros_like_aval
from .staging import trace_to_jaxpr_flat

__all__ = [
    "JVPTrace", "JVPTracer", "JvpRule", "Tangent", "Zero", "instantiate_zeros",
    "jvp_flat", "jvp_jaxpr", "zero_of", "zeros_like_aval",
]




def has_tangent_dtype(aval: ShapedArray) -> bool:
    """Whether values of this type carry (nonzero) tangents: floats and complex numbers."""
    return is_inexact(aval.dtype)


# -- the interpreter ---------------------------------------------------------
class JVPTracer(Tracer):
    """A primal value paired with its tangent (``Zero`` when unperturbed)."""

    __slots__ = ("primal", "tangent", "_aval")
    _trace: JVPTrace

    def __init__(self, trace: JVPTrace, primal: Value, tangent: Tangent) -> None:
        self._trace = trace
        self.primal = primal
        self.tangent = tangent
        self._aval: ShapedArray | None = None

    @property
    def aval(self) -> ShapedArray:
        a = self._aval
        if a is None:
            a = self._aval = aval_of(self.primal)
        return a

    def concrete(self, why: str) -> NDArray:
        """The primal's concrete value: Python control flow on it works under
        ``jvp`` unless something below is staging."""
        p = self.primal
        if isinstance(p, Tracer):
            return p.concrete(why)
        return np.asarray(p)

    def concrete_float(self, why: str) -> NDArray:
        raise ConcretizationError(
            f"{why} of a value of type {self.aval.str_short()} being differentiated "
            f"by {self._trace.describe()}: a Python float would drop its derivative. "
            "Keep it an array (use typedax.numpy / typedax.lax on it); int() and "
            "bool() of it are fine."
        )


_new = object.__new__


def _new_tracer(trace: JVPTrace, primal: Value, tangent: Tangent) -> JVPTracer:
    """``JVPTracer(trace, primal, tangent)``, without ``__init__``'s call."""
    t: JVPTracer = _new(JVPTracer)
    t._trace = trace
    t.primal = primal
    t.tangent = tangent
    t._aval = None
    return t


class JVPTrace(Trace):
    """Applies JVP rules to its own tracers; everything else is a constant."""

    __slots__ = ()

    def describe(self) -> str:
        return "jvp"

    def const_zero(self, x: Value) -> Zero:
        """The (zero) tangent of a constant operand; checks foreign tracers."""
        if type(x) is np.ndarray:
            return zero_of(x.shape, x.dtype)
        if isinstance(x, Tracer):
            self.check_foreign(x)
        return Zero(aval_of(x))

    def process_primitive(
        self, prim: Primitive, args: Sequence[Value], params: Params
    ) -> list[Value]:
        parent = self.parent
        assert parent is not None  # a JVPTrace always has an interpreter below
        for a in args:
            if type(a) is JVPTracer and a._trace is self:
                break
        else:  # nothing here is perturbed by this trace: the interpreter below does it
            for a in args:
                if type(a) is not np.ndarray and isinstance(a, Tracer):
                    self.check_foreign(a)
            return parent.process_primitive(prim, args, params)
        primals: list[Value] = []
        tangents: list[Tangent] = []
        for a in args:
            if type(a) is JVPTracer and a._trace is self:
                primals.append(a.primal)
                tangents.append(a.tangent)
            else:
                primals.append(a)
                tangents.append(self.const_zero(a))
        rule = prim.rules.jvp
        if rule is None:
            rule = require(prim, rule, "jvp")  # (raises: no JVP rule)
        with using_trace(parent):
            p_out, t_out = rule(primals, tangents, params)
        if len(p_out) == 1:
            t = t_out[0]
            return [p_out[0] if type(t) is Zero else _new_tracer(self, p_out[0], t)]
        return [
            p if type(t) is Zero else _new_tracer(self, p, t) for p, t in zip(p_out, t_out)
        ]


def _unpack(trace: JVPTrace, x: Value) -> tuple[Value, Tangent]:
    if type(x) is JVPTracer and x._trace is trace:
        return x.primal, x.tangent
    return x, trace.const_zero(x)


def _check_tangent(i: int, primal: Value, tangent: Tangent) -> Tangent:
    pa = aval_of(primal)
    if type(tangent) is np.ndarray and tangent.dtype == float0:  # JAX's float0 tangent (float0 names)
        if has_tangent_dtype(pa) or tangent.shape != pa.shape:
            raise TangentTypeError(
                f"jvp: tangent {i} is float0{list(tangent.shape)} but its primal has type "
                f"{pa.str_short()}; float0 tangents are for integer or bool primals of their shape"
            )
        return Zero(pa)
    if isinstance(tangent, Zero):
        ta = tangent.aval
    elif type(tangent) in (float, int, bool):
        # a Python scalar is weakly typed: it takes a scalar primal's dtype,
        # but a float never becomes an integer tangent (that tangent would be
        # dropped: JAX refuses it too, asking for float0)
        weak_ok = pa.shape == () and not (type(tangent) is float and not has_tangent_dtype(pa))
        ta = ShapedArray((), pa.dtype if weak_ok else aval_of(tangent).dtype)
    else:
        ta = aval_of(tangent)
    if ta != pa:
        # another shape is JAX's ValueError; another dtype its TypeError
        raise (TangentValueError if ta.shape != pa.shape else TangentTypeError)(
            f"jvp: tangent {i} has type {ta.str_short()} but its primal has type "
            f"{pa.str_short()}; a tangent must have its primal's shape and dtype "
            "(an integer or bool primal takes zeros of its own dtype: it has no derivative)"
        )
    if isinstance(tangent, Zero):
        return Zero(pa)
    if not has_tangent_dtype(pa):
        if not isinstance(tangent, Tracer) and np.any(np.asarray(tangent)):
            raise TangentTypeError(
                f"jvp: tangent {i} of the {pa.str_short()} primal is not zero: an integer or "
                "bool value has no derivative, so its tangent must be zeros (JAX's float0)"
            )
        return Zero(pa)
    if type(tangent) in (float, int, bool):
        return np.asarray(tangent, pa.dtype)
    return tangent


def jvp_flat(
    fun: Callable[[list[Value]], Sequence[Value]],
    primals: Sequence[Value],
    tangents: Sequence[Tangent],
) -> tuple[list[Value], list[Tangent]]:
    """Run ``fun`` (flat list in, flat sequence out) on primals perturbed by
    tangents. Returns the primal outputs and tangent outputs; an output
    tangent is ``Zero`` where the output does not depend on the inputs'
    tangents (``instantiate_zeros`` gives its value)."""
    if len(primals) != len(tangents):
        raise TangentTypeError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    trace = JVPTrace(current_trace())
    try:
        ins: list[Value] = [
            JVPTracer(trace, p, _check_tangent(i, p, t))
            for i, (p, t) in enumerate(zip(primals, tangents))
        ]
        with using_trace(trace):
            outs = fun(ins)
        p_out: list[Value] = []
        t_out: list[Tangent] = []
        for o in outs:
            p, t = _unpack(trace, o)
            p_out.append(p)
            t_out.append(t)
        return p_out, t_out
    finally:
        trace.alive = False


def jvp_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """The JVP of ``jaxpr`` as a jaxpr: its inputs are the primals then the
    tangents (tangents of integer inputs are ignored), its outputs the primal
    outputs then the tangent outputs (zeros where nothing flows)."""
    n = len(jaxpr.in_binders)

    def run(args: list[Value]) -> list[Value]:
        p_out, t_out = jvp_flat(lambda xs: eval_jaxpr(jaxpr, xs), args[:n], args[n:])
        return p_out + [instantiate_zeros(t) for t in t_out]

    closed = trace_to_jaxpr_flat(run, jaxpr.in_avals * 2, "jvp_jaxpr")
    if closed.consts:  # rules and zeros only make scalar constants (literals)
        raise AssertionError("jvp_jaxpr staged array constants")
    return closed.jaxpr
