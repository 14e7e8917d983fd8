"""Checks every produced jaxpr should pass."""

from __future__ import annotations

from ..core.ir import Jaxpr
from ..core.parse import parse_jaxpr
from ..core.typecheck import typecheck_jaxpr


def assert_roundtrips(jaxpr: Jaxpr) -> None:
    """``jaxpr`` typechecks, and its text parses back to an equal jaxpr that
    prints the same text. Raises ``JaxprTypeError`` / ``AssertionError``."""
    typecheck_jaxpr(jaxpr)
    text = str(jaxpr)
    back = parse_jaxpr(text)
    if back != jaxpr:
        raise AssertionError(f"parse_jaxpr(str(j)) != j for\n{text}")
    if str(back) != text:
        raise AssertionError(f"str(parse_jaxpr(t)) != t for\n{text}\nreprinted as\n{back}")


__all__ = ["assert_roundtrips"]
