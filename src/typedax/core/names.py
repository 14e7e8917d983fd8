"""How messages and staged functions name a user's function."""

from __future__ import annotations


def fun_name(f: object) -> str:
    """``f``'s qualified name, or its ``repr`` when it has none."""
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    return name if isinstance(name, str) else repr(f)
