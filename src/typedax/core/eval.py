"""``eval_jaxpr``: run a jaxpr by binding each equation under the current
interpreter -- NumPy evaluation at the bottom, or any transformation above it
(which is how a pure ``*_jaxpr`` transform can evaluate-then-retrace). The
one evaluator: every interpreter and rule calls this."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .avals import ShapedArray
from .dtypes import bool_
from .errors import JaxprTypeError
from .ir import Atom, ClosedJaxpr, Jaxpr, Lit, Var
from .trace import Value, aval_of, bind, canonical_aval
from .typecheck import typecheck_jaxpr


def _read_lit(a: Lit) -> Value:
    """A literal as an operand: a weakly typed one as its Python scalar, which
    every interpreter reads as that dtype, weak (when the scalar enters as
    that dtype under the current x64 setting); a bool as a Python bool; any
    other as a NumPy scalar of its own dtype (strong, and so a ``2.0:float32``
    literal stays float32 when an evaluate-then-retrace transformation
    stages it again)."""
    aval = a.aval
    if aval.dtype == bool_ or (aval.weak_type and aval_of(a.val).dtype == aval.dtype):
        return a.val
    return np.asarray(a.val, aval.dtype)


def eval_jaxpr(jaxpr: Jaxpr | ClosedJaxpr, args: Sequence[Value]) -> list[Value]:
    """The values of ``jaxpr``'s outputs for ``args``, under the current
    interpreter. A ``ClosedJaxpr`` (what ``make_jaxpr`` returns) supplies its
    own constants: ``args`` are then the other inputs. A jaxpr built by hand
    that is not well typed (an unbound variable, a use before definition)
    raises ``JaxprTypeError`` naming the equation."""
    if isinstance(jaxpr, ClosedJaxpr):
        return eval_jaxpr(jaxpr.jaxpr, [*jaxpr.consts, *args])  # type: ignore[list-item]  # consts are values
    if not isinstance(jaxpr, Jaxpr):
        raise TypeError(
            f"eval_jaxpr takes a Jaxpr or ClosedJaxpr, not {type(jaxpr).__name__}"
            + ("; parse text with parse_jaxpr first" if isinstance(jaxpr, str) else "")
        )
    if len(args) != len(jaxpr.in_binders):
        raise JaxprTypeError(
            f"eval_jaxpr: the jaxpr takes {len(jaxpr.in_binders)} inputs, got {len(args)}"
        )
    for i, (v, x) in enumerate(zip(jaxpr.in_binders, args)):
        if not _fits(aval_of(x), v.aval):
            raise JaxprTypeError(
                f"eval_jaxpr: input {i} has type {aval_of(x).str_short()}, but the jaxpr's "
                f"binder takes {v.aval.str_short()}"
            )
    env: dict[Var, Value] = dict(zip(jaxpr.in_binders, args))

    def read(a: Atom) -> Value:
        if type(a) is Lit:
            return _read_lit(a)
        return env[a]  # type: ignore[index]  # Atom is Var | Lit

    try:
        for eqn in jaxpr.eqns:
            results = bind(eqn.primitive, [read(a) for a in eqn.inputs], eqn.params)
            for v, o in zip(eqn.out_binders, results):
                env[v] = o
        outs = [read(a) for a in jaxpr.outs]
    except KeyError:
        # a variable read before it is bound: only a hand-built jaxpr can do
        # that, and the type checker says where (checked only on this path)
        typecheck_jaxpr(jaxpr)
        raise
    for i, (a, y) in enumerate(zip(jaxpr.outs, outs)):
        if not _fits(aval_of(y), a.aval):
            # a hand-built jaxpr whose binder's type is not what its equation
            # computes: the type checker names the equation
            typecheck_jaxpr(jaxpr)
            raise JaxprTypeError(
                f"eval_jaxpr: output {i} has type {aval_of(y).str_short()}, but the jaxpr "
                f"declares {a.aval.str_short()}"
            )
    return outs


def _fits(got: ShapedArray, want: ShapedArray) -> bool:
    """Whether a value of type ``got`` can stand for a binder of type
    ``want``: equal shapes and dtypes (weak flags aside), or equal once
    ``want`` enters as 32 bits with x64 off, as a 64-bit NumPy value does."""
    return got == want or got == canonical_aval(want)
