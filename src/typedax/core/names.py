"""How messages and staged functions name a user's function."""

from __future__ import annotations

from .errors import NotCallableError


def fun_name(f: object) -> str:
    """``f``'s qualified name, or its ``repr`` when it has none."""
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    return name if isinstance(name, str) else repr(f)


def check_callable(who: str, f: object) -> None:
    """``jit``, ``grad``, ``vmap``, ... of something that is not callable:
    JAX's ``TypeError`` when the transformation is applied, not at the call."""
    if not callable(f):
        raise NotCallableError(f"{who}: expected a callable value, got {f!r}")
