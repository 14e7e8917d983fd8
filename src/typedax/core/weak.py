"""JAX's weak-type rule: which primitive results are weakly typed.

A value is *weak* when it comes from Python scalars only (``2.0``,
``tnp.sqrt(2.0)``, ``n * 0.5`` for a Python int ``n``); promotion then lets
the strong operand it meets choose the dtype (``core/promotion.py``). The
result of a primitive is weak when every operand that carries its value into
the result is weak -- element-wise arithmetic and the structural moves,
whose operands are listed here (and ``dot_general``). Everything else gives
a strong result, as in JAX: reductions (``jnp.sum(2.0)`` is strong), creation
(``iota``), the higher-order primitives, comparisons (bool is never weak),
and conversions -- except ``convert_element_type`` with the param
``weak_type=True``, which promotion binds when it widens a weak value
(``2 * 0.5``: the Python int becomes a weak float).

Names, not a field of ``Primitive``, so the rule reads as one table (as
``NATIVE_ON_HALF`` in ``trace.py``); ``tests/test_weak_types.py`` checks
that every name here is a primitive of the registry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .avals import ShapedArray
from .ir import Params

#: Every operand counts.
ALL: Final = None

_ELEMENTWISE = (
    "abs", "neg", "sin", "cos", "exp", "log", "tanh", "logistic", "sqrt", "floor", "ceil",
    "add", "sub", "mul", "div", "max", "min", "pow", "rem", "integer_pow", "clamp",
    "stop_gradient", "log1p", "expm1", "exp2", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erf_inv", "lgamma", "digamma",
    "round", "sign", "nextafter", "not", "and", "or", "xor", "shift_left",
    "shift_right_logical", "shift_right_arithmetic", "population_count", "reduce_precision",
    "broadcast", "reshape", "transpose", "squeeze", "rev", "slice", "concatenate", "pad",
)

#: primitive name -> the operands whose weakness the result inherits
#: (``ALL``: every operand)
WEAK_OPERANDS: Final[dict[str, tuple[int, ...] | None]] = {
    **{name: ALL for name in _ELEMENTWISE},
    "select_n": (1, 2, 3, 4, 5, 6, 7, 8),  # the cases, not the predicate (as many as are given)
    "dynamic_slice": (0,),  # not the start indices
    "dynamic_update_slice": (0, 1),
    "gather": (0,),
    # the operand only: JAX's ``x.at[i].set(y)`` converts ``y`` to ``x``'s type, flag included
    "scatter": (0,), "scatter-add": (0,), "scatter-mul": (0,), "scatter-min": (0,), "scatter-max": (0,),
    "dot_general": ALL,  # weak @ weak is weak in JAX (a contraction of Python scalars' arrays)
}


#: Higher-order primitives: their results are typed by their bodies, flags
#: included, and their abstract evaluation says so.
OWN_RULE: Final[frozenset[str]] = frozenset({"jit", "cond", "while", "scan", "custom_jvp_call", "custom_vjp_call"})

#: Primitives whose results may be weak with no weak operand (asked even
#: when none is: the interpreters skip the rule otherwise).
ALWAYS_ASK: Final[frozenset[str]] = OWN_RULE | {"convert_element_type"}


def weak_result(name: str, avals: Sequence[ShapedArray], params: Params) -> bool:
    """Whether the results of primitive ``name`` on operands of ``avals``
    are weakly typed."""
    if name == "convert_element_type":
        return params.get("weak_type") is True
    spec = WEAK_OPERANDS.get(name, ())
    if spec is None:
        return all(a.weak_type for a in avals) and bool(avals)
    if not spec:
        return False
    return all(avals[i].weak_type for i in spec if i < len(avals))


def with_weak(name: str, in_avals: Sequence[ShapedArray], params: Params,
              out_avals: list[ShapedArray]) -> list[ShapedArray]:
    """``out_avals`` (a primitive's abstract evaluation), weakly typed where
    JAX's rule makes them weak and strong elsewhere (an abstract evaluation
    may hand back an operand's aval, flag and all)."""
    if name in OWN_RULE:
        return out_avals
    weak = weak_result(name, in_avals, params)
    return [a.weakened(weak) for a in out_avals]
