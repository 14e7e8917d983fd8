"""Forward-mode automatic differentiation: the JVP interpreter, its rules,
the driver ``jvp_flat`` and the pure transformation ``jvp_jaxpr``.

A ``JVPTracer`` carries a primal and a tangent. A tangent may be the symbolic
``Zero(aval)``, so tangents nobody perturbed are never materialised; the
tangent of an integer or bool value is always ``Zero``. Rules compute with
``typedax.lax`` under the trace's parent, so they compose with every
interpreter below (evaluation, staging, batching, another JVP).

Each ``JVPTrace`` unwraps only its own tracers: a tracer of an enclosing trace
is a constant here, with a zero tangent. That is what makes perturbation
confusion impossible when ``jvp`` calls are nested around closures.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from pyrsistent import pmap

from .. import lax
from ..core.avals import ShapedArray
from ..core.dtypes import DType, bool_, float64, int64, is_float
from ..core.errors import JaxprTypeError, TangentTypeError
from ..core.ir import Atom, Jaxpr, Lit, NDArray, Params, Primitive, Var
from ..core.rules import RuleTable
from ..core.trace import (
    EVAL_TRACE,
    Trace,
    Tracer,
    Value,
    aval_of,
    bind,
    bind1,
    current_trace,
    using_trace,
)
from ..primitives import (
    add_p,
    broadcast_p,
    convert_element_type_p,
    cos_p,
    div_p,
    dot_general_p,
    eq_p,
    exp_p,
    ge_p,
    greater_p,
    integer_pow_p,
    le_p,
    less_p,
    log_p,
    logistic_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    pow_p,
    reduce_max_p,
    reduce_sum_p,
    reshape_p,
    select_n_p,
    sin_p,
    sqrt_p,
    sub_p,
    tanh_p,
    transpose_p,
)
from ..primitives._params import get_dtype, get_int, get_ints
from .staging import trace_to_jaxpr_flat

__all__ = [
    "JVPTrace", "JVPTracer", "JvpRule", "Tangent", "Zero", "eval_jaxpr_typed", "instantiate_zeros",
    "jvp_flat", "jvp_jaxpr", "jvp_rules", "zero_of", "zeros_like_aval",
]


@dataclass(frozen=True, slots=True)
class Zero:
    """The symbolic zero tangent of type ``aval``: never materialised unless
    someone needs its value (``instantiate_zeros``)."""

    aval: ShapedArray


Tangent: TypeAlias = Value | Zero
JvpRule: TypeAlias = Callable[
    [Sequence[Value], Sequence[Tangent], Params], tuple[list[Value], list[Tangent]]
]
"""``rule(primals, tangents, params) -> (primal_outs, tangent_outs)``; runs
under the JVP trace's parent; tangents in and out may be ``Zero``."""

jvp_rules: RuleTable[JvpRule] = RuleTable("jvp", "jvp")


def zeros_like_aval(aval: ShapedArray) -> Value:
    """Zeros of type ``aval``, built under the current interpreter (a
    ``broadcast`` of a scalar, so staging records no array constant)."""
    z = np.zeros((), aval.dtype)
    if not aval.shape:
        return z
    if current_trace() is EVAL_TRACE:
        return np.zeros(aval.shape, aval.dtype)
    return bind1(broadcast_p, (z,), _broadcast_params(aval.shape, tuple(range(len(aval.shape)))))


_ZEROS: dict[tuple[tuple[int, ...], DType], Zero] = {}


def zero_of(shape: tuple[int, ...], dtype: DType) -> Zero:
    """``Zero(ShapedArray(shape, dtype))``, shared (constants' tangents are
    made on every operation, so this is on the eager hot path)."""
    z = _ZEROS.get((shape, dtype))
    if z is None:
        if len(_ZEROS) > 4096:
            _ZEROS.clear()
        z = _ZEROS[(shape, dtype)] = Zero(ShapedArray(shape, dtype))
    return z


def instantiate_zeros(t: Tangent) -> Value:
    """A tangent's value: ``Zero`` becomes an array of zeros."""
    return zeros_like_aval(t.aval) if isinstance(t, Zero) else t


def has_tangent_dtype(aval: ShapedArray) -> bool:
    """Whether values of this type carry (nonzero) tangents: floats only."""
    return is_float(aval.dtype)


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
        rule = jvp_rules[prim]
        with using_trace(parent):
            p_out, t_out = rule(primals, tangents, params)
        return [
            p if isinstance(t, Zero) else JVPTracer(self, p, t) for p, t in zip(p_out, t_out)
        ]


def _unpack(trace: JVPTrace, x: Value) -> tuple[Value, Tangent]:
    if type(x) is JVPTracer and x._trace is trace:
        return x.primal, x.tangent
    return x, trace.const_zero(x)


def _check_tangent(i: int, primal: Value, tangent: Tangent) -> Tangent:
    pa = aval_of(primal)
    if isinstance(tangent, Zero):
        ta = tangent.aval
    elif type(tangent) in (float, int, bool):
        ta = ShapedArray((), pa.dtype if pa.shape == () else aval_of(tangent).dtype)
    else:
        ta = aval_of(tangent)
    if ta != pa:
        raise TangentTypeError(
            f"jvp: tangent {i} has type {ta.str_short()} but its primal has type "
            f"{pa.str_short()}; a tangent must have its primal's shape and dtype"
        )
    if not has_tangent_dtype(pa) or isinstance(tangent, Zero):
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


def eval_jaxpr_typed(jaxpr: Jaxpr, args: Sequence[Value]) -> list[Value]:
    """``eval_jaxpr`` under the current interpreter, binding each literal as a
    scalar of its own dtype (a ``2.0:float32`` literal stays float32 when an
    evaluate-then-retrace transformation stages it again)."""
    if len(args) != len(jaxpr.in_binders):
        raise JaxprTypeError(
            f"eval_jaxpr: the jaxpr takes {len(jaxpr.in_binders)} inputs, got {len(args)}"
        )
    env: dict[Var, Value] = dict(zip(jaxpr.in_binders, args))

    def read(a: Atom) -> Value:
        if isinstance(a, Lit):
            return a.val if a.aval.dtype in _PY_SCALAR_DTYPES else np.asarray(a.val, a.aval.dtype)
        return env[a]

    for eqn in jaxpr.eqns:
        outs = bind(eqn.primitive, [read(a) for a in eqn.inputs], eqn.params)
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(a) for a in jaxpr.outs]


_PY_SCALAR_DTYPES: frozenset[DType] = frozenset({bool_, int64, float64})


def jvp_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """The JVP of ``jaxpr`` as a jaxpr: its inputs are the primals then the
    tangents (tangents of integer inputs are ignored), its outputs the primal
    outputs then the tangent outputs (zeros where nothing flows)."""
    n = len(jaxpr.in_binders)

    def run(args: list[Value]) -> list[Value]:
        p_out, t_out = jvp_flat(lambda xs: eval_jaxpr_typed(jaxpr, xs), args[:n], args[n:])
        return p_out + [instantiate_zeros(t) for t in t_out]

    closed = trace_to_jaxpr_flat(run, jaxpr.in_avals * 2, "jvp_jaxpr")
    if closed.consts:  # rules and zeros only make scalar constants (literals)
        raise AssertionError("jvp_jaxpr staged array constants")
    return closed.jaxpr


# -- rules: helpers ------------------------------------------------------------
def _zero_like(x: Value) -> Zero:
    return Zero(aval_of(x))


def _add_t(a: Tangent, b: Tangent) -> Tangent:
    if isinstance(a, Zero):
        return b
    if isinstance(b, Zero):
        return a
    return lax.add(a, b)


def _full(value: float, like: Value) -> Value:
    """``value`` broadcast to ``like``'s shape and dtype."""
    a = aval_of(like)
    s = np.asarray(value, a.dtype)
    if not a.shape:
        return s
    return bind1(broadcast_p, (s,), _broadcast_params(a.shape, tuple(range(len(a.shape)))))


def _register_unary(prim: Primitive, tangent: Callable[[Value, Value, Value], Value]) -> None:
    """``tangent(t, x, y)``: the output tangent for input tangent ``t``, input
    ``x`` and output ``y`` (called only for a nonzero ``t``)."""

    def rule(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        (x,), (t,) = primals, tangents
        y = bind1(prim, (x,), params)
        if isinstance(t, Zero):
            return [y], [t]
        return [y], [tangent(t, x, y)]

    jvp_rules.register(prim, rule)


_register_unary(neg_p, lambda t, x, y: lax.neg(t))
_register_unary(sin_p, lambda t, x, y: lax.mul(t, lax.cos(x)))
_register_unary(cos_p, lambda t, x, y: lax.mul(t, lax.neg(lax.sin(x))))
_register_unary(exp_p, lambda t, x, y: lax.mul(t, y))
_register_unary(log_p, lambda t, x, y: lax.div(t, x))
_register_unary(tanh_p, lambda t, x, y: lax.mul(t, lax.sub(_full(1.0, y), lax.mul(y, y))))
_register_unary(logistic_p, lambda t, x, y: lax.mul(t, lax.mul(y, lax.sub(_full(1.0, y), y))))
_register_unary(sqrt_p, lambda t, x, y: lax.mul(t, lax.div(_full(0.5, y), y)))


def _linear_unary(prim: Primitive) -> None:
    """A primitive linear in its one operand: the tangent goes through it."""

    def rule(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        (x,), (t,) = primals, tangents
        y = bind1(prim, (x,), params)
        if isinstance(t, Zero):
            return [y], [_zero_like(y)]
        return [y], [bind1(prim, (t,), params)]

    jvp_rules.register(prim, rule)


for _p in (broadcast_p, reshape_p, transpose_p, reduce_sum_p):
    _linear_unary(_p)


def _integer_pow_tangent(t: Value, x: Value, params: Params) -> Tangent:
    y = get_int("integer_pow", params, "y")
    if y == 0:
        return _zero_like(t)
    if y == 1:
        return t
    if y == 2:
        return lax.mul(t, lax.mul(_full(2.0, x), x))
    return lax.mul(t, lax.mul(_full(float(y), x), lax.integer_pow(x, y - 1)))


def _integer_pow_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x,), (t,) = primals, tangents
    out = bind1(integer_pow_p, (x,), params)
    if isinstance(t, Zero):
        return [out], [t]
    return [out], [_integer_pow_tangent(t, x, params)]


jvp_rules.register(integer_pow_p, _integer_pow_jvp)


def _convert_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x,), (t,) = primals, tangents
    out = bind1(convert_element_type_p, (x,), params)
    new_dtype = get_dtype("convert_element_type", params, "new_dtype")
    if isinstance(t, Zero) or not is_float(new_dtype):
        return [out], [_zero_like(out)]
    return [out], [bind1(convert_element_type_p, (t,), params)]


jvp_rules.register(convert_element_type_p, _convert_jvp)


# -- binary arithmetic -----------------------------------------------------------
def _add_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(add_p, (x, y), params)
    t = _add_t(tx, ty)
    return [out], [_zero_like(out) if isinstance(t, Zero) else t]


def _sub_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(sub_p, (x, y), params)
    if isinstance(ty, Zero):
        return [out], [_zero_like(out) if isinstance(tx, Zero) else tx]
    if isinstance(tx, Zero):
        return [out], [lax.neg(ty)]
    return [out], [lax.sub(tx, ty)]


def _mul_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(mul_p, (x, y), params)
    a: Tangent = tx if isinstance(tx, Zero) else lax.mul(tx, y)
    b: Tangent = ty if isinstance(ty, Zero) else lax.mul(x, ty)
    t = _add_t(a, b)
    return [out], [_zero_like(out) if isinstance(t, Zero) else t]


def _div_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(div_p, (x, y), params)
    a: Tangent = tx if isinstance(tx, Zero) else lax.div(tx, y)
    b: Tangent = (  # d(x/y)/dy = -(x/y)/y
        ty if isinstance(ty, Zero) else lax.neg(lax.mul(ty, lax.div(out, y)))
    )
    t = _add_t(a, b)
    return [out], [_zero_like(out) if isinstance(t, Zero) else t]


def _chooser_jvp(prim: Primitive) -> JvpRule:
    """max/min: the tangent of the chosen operand; half of each on ties (as JAX)."""

    def rule(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        (x, y), (tx, ty) = primals, tangents
        out = bind1(prim, (x, y), params)
        if isinstance(tx, Zero) and isinstance(ty, Zero):
            return [out], [_zero_like(out)]

        def weight(mine: Value, other: Value) -> Value:
            # 1 where ``mine`` was chosen alone, 0.5 on a tie, 0 elsewhere
            on_tie = lax.select(lax.eq(other, out), _full(0.5, out), _full(1.0, out))
            return lax.select(lax.eq(mine, out), on_tie, _full(0.0, out))

        a: Tangent = tx if isinstance(tx, Zero) else lax.mul(tx, weight(x, y))
        b: Tangent = ty if isinstance(ty, Zero) else lax.mul(ty, weight(y, x))
        return [out], [_add_t(a, b)]

    return rule


def _pow_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(pow_p, (x, y), params)
    a: Tangent = tx
    if not isinstance(tx, Zero):  # d/dx = y * x**(y-1), and 0 where y == 0 (as JAX)
        dx = lax.mul(y, lax.pow(x, lax.sub(y, _full(1.0, y))))
        dx = lax.select(lax.eq(y, _full(0.0, y)), _full(0.0, y), dx)
        a = lax.mul(tx, dx)
    b: Tangent = ty
    if not isinstance(ty, Zero):  # d/dy = log(x) * x**y, with log(0) read as 0 (as JAX)
        is_zero = lax.eq(x, _full(0.0, x))
        safe_x = lax.select(is_zero, _full(1.0, x), x)
        b = lax.mul(ty, lax.mul(lax.log(safe_x), out))
    return [out], [_add_t(a, b)]


jvp_rules.register(add_p, _add_jvp)
jvp_rules.register(sub_p, _sub_jvp)
jvp_rules.register(mul_p, _mul_jvp)
jvp_rules.register(div_p, _div_jvp)
jvp_rules.register(max_p, _chooser_jvp(max_p))
jvp_rules.register(min_p, _chooser_jvp(min_p))
jvp_rules.register(pow_p, _pow_jvp)


def _comparison_jvp(prim: Primitive) -> JvpRule:
    def rule(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        out = bind1(prim, primals, params)
        return [out], [Zero(ShapedArray(aval_of(out).shape, bool_))]

    return rule


for _p in (greater_p, less_p, ge_p, le_p, eq_p, ne_p):
    jvp_rules.register(_p, _comparison_jvp(_p))


def _select_n_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    which, *cases = primals
    case_ts = tangents[1:]
    out = bind1(select_n_p, primals, params)
    if all(isinstance(t, Zero) for t in case_ts):
        return [out], [_zero_like(out)]
    t = bind1(select_n_p, [which, *(instantiate_zeros(c) for c in case_ts)], params)
    return [out], [t]


jvp_rules.register(select_n_p, _select_n_jvp)


def _reduce_max_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """The mean of the tangents at the positions of the maximum (as JAX)."""
    (x,), (t,) = primals, tangents
    out = bind1(reduce_max_p, (x,), params)
    if isinstance(t, Zero):
        return [out], [_zero_like(out)]
    axis = get_ints("reduce_max", params, "axis")
    xa = aval_of(x)
    where = lax.eq(x, bind1(broadcast_p, (out,), _broadcast_params(xa.shape, axis)))
    ind = lax.convert_element_type(where, xa.dtype)
    counts = lax.reduce_sum(ind, axis)
    return [out], [lax.div(lax.reduce_sum(lax.mul(t, ind), axis), counts)]


@functools.lru_cache(maxsize=1024)
def _broadcast_params(shape: tuple[int, ...], axes: tuple[int, ...]) -> Params:
    return pmap({"shape": shape, "axes": axes})


jvp_rules.register(reduce_max_p, _reduce_max_jvp)


def _dot_general_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(dot_general_p, (x, y), params)
    a: Tangent = tx if isinstance(tx, Zero) else bind1(dot_general_p, (tx, y), params)
    b: Tangent = ty if isinstance(ty, Zero) else bind1(dot_general_p, (x, ty), params)
    t = _add_t(a, b)
    return [out], [_zero_like(out) if isinstance(t, Zero) else t]


jvp_rules.register(dot_general_p, _dot_general_jvp)
