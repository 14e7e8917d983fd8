"""Every registered primitive has the rules its interpretations need: a jvp
rule and a batching rule for all of them, and a transpose rule for each
primitive that can be linear in an operand. A missing rule fails here, by
name, rather than as a ``MissingRuleError`` in the middle of a user's
transformation."""

from __future__ import annotations

import typedax  # noqa: F401  (imports every module that registers rules)
from typedax.core.ir import Primitive
from typedax.core.rules import PRIMITIVES
from typedax.interpreters.batching import batch_rules
from typedax.interpreters.jvp import jvp_rules
from typedax.interpreters.transpose import transpose_rules

#: Primitives that can be linear in at least one operand (issue 3).
LINEAR: frozenset[str] = frozenset(
    {
        "add", "sub", "neg", "mul", "div", "reduce_sum", "broadcast", "transpose",
        "reshape", "dot_general", "convert_element_type", "select_n",
    }
)


def library_primitives() -> list[Primitive]:
    """The registered primitives typedax itself defines (tests may register
    throwaway primitives of their own, e.g. for the parser)."""
    return [p for p in PRIMITIVES if str(getattr(p.impl, "__module__", "")).startswith("typedax.")]


def test_registry_is_populated() -> None:
    names = {p.name for p in library_primitives()}
    assert len(names) >= 30
    assert LINEAR <= names, f"linear primitives missing from the registry: {sorted(LINEAR - names)}"


def test_every_primitive_has_a_jvp_rule() -> None:
    missing = sorted(p.name for p in library_primitives() if p not in jvp_rules)
    assert not missing, f"primitives without a jvp rule: {missing}"


def test_every_primitive_has_a_batching_rule() -> None:
    missing = sorted(p.name for p in library_primitives() if p not in batch_rules)
    assert not missing, f"primitives without a batching rule: {missing}"


def test_every_linear_primitive_has_a_transpose_rule() -> None:
    missing = sorted(p.name for p in library_primitives() if p.name in LINEAR and p not in transpose_rules)
    assert not missing, f"linear primitives without a transpose rule: {missing}"


def test_rule_tables_hold_only_registered_primitives() -> None:
    registered = set(PRIMITIVES)
    for table in (jvp_rules, batch_rules, transpose_rules):
        strays = sorted(p.name for p in table if p not in registered)
        assert not strays, f"{table.interpretation} rules for unregistered primitives: {strays}"
