"""Side effects: which equations a pass must keep although no output is used.

A primitive marked ``effectful`` (the host callbacks ``debug_callback`` and
``io_callback``) does something beyond computing its outputs, so dead-code
elimination keeps it; a higher-order equation (``jit``, ``cond``, ``scan``,
``while``, ``checkpoint``, ...) is effectful when a body it holds is. This is
JAX's ``effects`` reduced to the one question typedax's passes ask.
"""

from __future__ import annotations

from .ir import Eqn, Jaxpr, Param
from .memo import IdentityMemo

__all__ = ["eqn_has_effects", "has_effects"]

_MEMO: IdentityMemo[bool] = IdentityMemo()


def has_effects(jaxpr: Jaxpr) -> bool:
    """Whether an equation of ``jaxpr`` (or of a body nested in one) is
    effectful. Remembered per jaxpr identity (nested bodies are asked again
    at each level)."""
    known = _MEMO.get(jaxpr, None)
    if known is None:
        known = any(eqn_has_effects(e) for e in jaxpr.eqns)
        _MEMO.put(jaxpr, None, known)
    return known


def eqn_has_effects(eqn: Eqn) -> bool:
    """Whether ``eqn``'s primitive is effectful or a body in its params has effects."""
    return eqn.primitive.effectful or any(_param_has_effects(p) for p in eqn.params.values())


def _param_has_effects(p: Param) -> bool:
    if isinstance(p, Jaxpr):
        return has_effects(p)
    if isinstance(p, tuple):
        return any(_param_has_effects(q) for q in p)
    return False
