"""``eval_jaxpr``: run a jaxpr by binding each equation under the current
interpreter -- NumPy evaluation at the bottom, or any transformation above it
(which is how a pure ``*_jaxpr`` transform can evaluate-then-retrace)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import JaxprTypeError
from .ir import Atom, Jaxpr, Lit, Var
from .trace import Value, bind


def eval_jaxpr(jaxpr: Jaxpr, args: Sequence[Value]) -> list[Value]:
    if len(args) != len(jaxpr.in_binders):
        raise JaxprTypeError(
            f"eval_jaxpr: the jaxpr takes {len(jaxpr.in_binders)} inputs, got {len(args)}"
        )
    env: dict[Var, Value] = dict(zip(jaxpr.in_binders, args))

    def read(a: Atom) -> Value:
        if type(a) is Lit:  # an array, so that the literal keeps its dtype (2:int32)
            return np.asarray(a.val, dtype=a.aval.dtype)
        return env[a]  # type: ignore[index]  # Atom is Var | Lit

    for eqn in jaxpr.eqns:
        outs = bind(eqn.primitive, [read(a) for a in eqn.inputs], eqn.params)
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(a) for a in jaxpr.outs]
