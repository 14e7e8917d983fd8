"""Dead-code elimination: ``dce_jaxpr``.

A backward pass over the equations: an equation is kept when one of its
outputs is used, or when it has a side effect (``core.effects``: a host
callback, or a body holding one), as JAX keeps effectful equations. Higher-order
primitives that can prune their own bodies have a ``DceRule`` in their
``rules.dce``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.effects import eqn_has_effects
from ..core.errors import JaxprTypeError
from ..core.ir import Eqn, Jaxpr, Var
from ..core.memo import IdentityMemo
from ..core.rules import DceRule

def dce_jaxpr(
    jaxpr: Jaxpr,
    used_outputs: Sequence[bool],
    instantiate: bool | Sequence[bool] = False,
) -> tuple[Jaxpr, list[bool]]:
    """Drop every equation no used output depends on.

    Returns ``(new_jaxpr, used_inputs)``. ``new_jaxpr`` has only the outputs
    marked in ``used_outputs`` and only the inputs marked in ``used_inputs``
    (an input is used when a kept equation or a kept output reads it, or when
    ``instantiate`` asks to keep it).
    """
    n_in, n_out = len(jaxpr.in_binders), len(jaxpr.outs)
    if len(used_outputs) != n_out:
        raise JaxprTypeError(
            f"dce_jaxpr: {len(used_outputs)} used_outputs flags for a jaxpr with {n_out} outputs"
        )
    inst = [instantiate] * n_in if isinstance(instantiate, bool) else list(instantiate)
    if len(inst) != n_in:
        raise JaxprTypeError(
            f"dce_jaxpr: {len(inst)} instantiate flags for a jaxpr with {n_in} inputs"
        )
    key = (tuple(bool(u) for u in used_outputs), tuple(bool(i) for i in inst))
    known = _MEMO.get(jaxpr, key)
    if known is None:
        known = _dce(jaxpr, used_outputs, inst)
        _MEMO.put(jaxpr, key, known)
    return known[0], list(known[1])


_MEMO: IdentityMemo[tuple[Jaxpr, tuple[bool, ...]]] = IdentityMemo()


def _dce(
    jaxpr: Jaxpr, used_outputs: Sequence[bool], inst: Sequence[bool]
) -> tuple[Jaxpr, tuple[bool, ...]]:
    live: set[Var] = set()
    for a, used in zip(jaxpr.outs, used_outputs):
        if used and isinstance(a, Var):
            live.add(a)
    kept: list[Eqn] = []
    for eqn in reversed(jaxpr.eqns):
        used_outs = [v in live for v in eqn.out_binders]
        if not any(used_outs):
            if not eqn_has_effects(eqn):
                continue
            # kept whole for its effect (a rule is asked only about used outputs)
        elif (rule := eqn.primitive.rules.dce) is not None:
            new_eqn = rule(used_outs, eqn)
            if new_eqn is None:
                continue
            eqn = new_eqn
        kept.append(eqn)
        for a in eqn.inputs:
            if isinstance(a, Var):
                live.add(a)
    used_inputs = [v in live or i for v, i in zip(jaxpr.in_binders, inst)]
    new = Jaxpr(
        tuple(v for v, u in zip(jaxpr.in_binders, used_inputs) if u),
        tuple(reversed(kept)),
        tuple(a for a, u in zip(jaxpr.outs, used_outputs) if u),
    )
    return new, tuple(used_inputs)
