"""``eval_jaxpr``: run a jaxpr by binding each equation under the current
interpreter -- NumPy evaluation at the bottom, or any transformation above it
(which is how a pure ``*_jaxpr`` transform can evaluate-then-retrace). The
one evaluator: every interpreter and rule calls this."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .dtypes import DType, bool_, float64, int64
from .errors import JaxprTypeError
from .ir import Atom, Jaxpr, Lit, Var
from .trace import Value, bind


# Literals of these dtypes are bound as Python scalars, which every
# interpreter reads as exactly that dtype; others as a NumPy scalar of their
# own dtype (so a ``2.0:float32`` literal stays float32 when an
# evaluate-then-retrace transformation stages it again).
_PY_SCALAR_DTYPES: frozenset[DType] = frozenset({bool_, int64, float64})


def eval_jaxpr(jaxpr: Jaxpr, args: Sequence[Value]) -> list[Value]:
    """The values of ``jaxpr``'s outputs for ``args``, under the current interpreter."""
    if len(args) != len(jaxpr.in_binders):
        raise JaxprTypeError(
            f"eval_jaxpr: the jaxpr takes {len(jaxpr.in_binders)} inputs, got {len(args)}"
        )
    env: dict[Var, Value] = dict(zip(jaxpr.in_binders, args))

    def read(a: Atom) -> Value:
        if type(a) is Lit:
            return a.val if a.aval.dtype in _PY_SCALAR_DTYPES else np.asarray(a.val, a.aval.dtype)
        return env[a]  # type: ignore[index]  # Atom is Var | Lit

    for eqn in jaxpr.eqns:
        outs = bind(eqn.primitive, [read(a) for a in eqn.inputs], eqn.params)
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(a) for a in jaxpr.outs]
