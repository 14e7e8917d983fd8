"""Parser for the jaxpr text form (placeholder until the real parser lands)."""

from __future__ import annotations

from .ir import Jaxpr


def parse_jaxpr(text: str) -> Jaxpr:
    raise NotImplementedError("parse_jaxpr is being written")
