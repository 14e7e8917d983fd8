"""Typed rule tables: one per interpretation, one entry per primitive."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from .errors import MissingRuleError
from .ir import Primitive

R = TypeVar("R")


class RuleTable(Generic[R]):
    """Rules of one interpretation (``jvp``, ``batching``, ...) by primitive.

    Looking up a primitive without a rule raises ``MissingRuleError`` naming
    the primitive and the interpretation -- never a ``KeyError``.
    """

    __slots__ = ("interpretation", "_rules")

    def __init__(self, interpretation: str) -> None:
        self.interpretation = interpretation
        self._rules: dict[Primitive, R] = {}

    def register(self, prim: Primitive, rule: R) -> None:
        if prim in self._rules:
            raise ValueError(f"{self.interpretation} rule for '{prim.name}' registered twice")
        self._rules[prim] = rule

    def __getitem__(self, prim: Primitive) -> R:
        rule = self._rules.get(prim)
        if rule is None:
            raise MissingRuleError(prim.name, self.interpretation)
        return rule

    def get(self, prim: Primitive) -> R | None:
        return self._rules.get(prim)

    def __contains__(self, prim: Primitive) -> bool:
        return prim in self._rules

    def __iter__(self) -> Iterator[Primitive]:
        return iter(self._rules)


class PrimitiveRegistry:
    """Every primitive by name (the parser looks names up here)."""

    __slots__ = ("_by_name",)

    def __init__(self) -> None:
        self._by_name: dict[str, Primitive] = {}

    def add(self, prim: Primitive) -> Primitive:
        if prim.name in self._by_name:
            raise ValueError(f"primitive '{prim.name}' defined twice")
        self._by_name[prim.name] = prim
        return prim

    def get(self, name: str) -> Primitive | None:
        return self._by_name.get(name)

    def __iter__(self) -> Iterator[Primitive]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)


PRIMITIVES = PrimitiveRegistry()
