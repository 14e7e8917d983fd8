"""Every primitive in the library's registry has the rules its interpretations
need: a jvp, a batching and a lowering rule for all of them, and a transpose
rule for each primitive that can be linear in an operand. A missing rule
fails here, by name, rather than as a ``MissingRuleError`` in the middle of a
user's transformation. The registry is a value: a test with primitives of its
own extends a copy; nothing here or elsewhere mutates the library's."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

import typedax as tdx
from typedax.core import MissingRuleError, Primitive, ShapedArray, bind
from typedax.core.ir import NO_PARAMS, NDArray, Params
from typedax.core.rules import Family, Registry
from typedax.registry import FAMILIES, REGISTRY

#: Primitives that can be linear in at least one operand.
LINEAR: frozenset[str] = frozenset(
    {
        "add", "sub", "neg", "mul", "div", "reduce_sum", "broadcast", "transpose",
        "reshape", "dot_general", "convert_element_type", "select_n",
        "slice", "dynamic_slice", "dynamic_update_slice", "concatenate", "pad", "rev", "squeeze",
        "cond", "scan", "while", "jit",
    }
)


def test_registry_lists_every_family_once() -> None:
    names = [f.name for f in FAMILIES]
    assert len(names) == len(set(names))
    assert len(REGISTRY) == sum(len(f.primitives) for f in FAMILIES)
    assert LINEAR <= set(REGISTRY), f"linear primitives missing: {sorted(LINEAR - set(REGISTRY))}"


@pytest.mark.parametrize("interpretation", ["jvp", "batch", "lower"])
def test_every_primitive_has_the_rule(interpretation: str) -> None:
    missing = sorted(p.name for p in REGISTRY.primitives() if getattr(p.rules, interpretation) is None)
    assert not missing, f"primitives without a {interpretation} rule: {missing}"


def test_every_linear_primitive_has_a_transpose_rule() -> None:
    missing = sorted(
        p.name for p in REGISTRY.primitives() if p.name in LINEAR and p.rules.transpose is None
    )
    assert not missing, f"linear primitives without a transpose rule: {missing}"


def _ident_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return list(args)


def _ident_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return list(avals)


def test_a_registry_of_ones_own_leaves_the_librarys_unchanged() -> None:
    mine = Primitive("test_registry_ident", _ident_impl, _ident_abstract)
    before = len(REGISTRY)
    extended = REGISTRY.extended(Family("mine", (mine,)))
    assert extended["test_registry_ident"] is mine and "test_registry_ident" not in REGISTRY
    assert len(REGISTRY) == before and len(extended) == before + 1
    text = "{ lambda a:float64[] .\n  let b:float64[] = test_registry_ident a\n  in ( b ) }"
    assert str(tdx.parse_jaxpr(text, extended)) == text
    with pytest.raises(tdx.core.JaxprSyntaxError, match="unknown primitive 'test_registry_ident'"):
        tdx.parse_jaxpr(text)


def test_a_name_defined_twice_is_refused() -> None:
    a = Primitive("test_twice", _ident_impl, _ident_abstract)
    b = Primitive("test_twice", _ident_impl, _ident_abstract)
    with pytest.raises(ValueError, match="'test_twice' defined twice"):
        Registry([Family("one", (a,)), Family("two", (b,))])


def test_a_missing_rule_names_the_primitive_and_interpretation() -> None:
    bare = Primitive("test_no_rules", _ident_impl, _ident_abstract)

    def f(v: tdx.Value) -> tdx.Value:
        return bind(bare, [v], NO_PARAMS)[0]

    x = np.float64(1.0)
    assert float(np.asarray(f(x))) == 1.0  # evaluation needs no other rule
    with pytest.raises(MissingRuleError, match="'test_no_rules' has no jvp rule"):
        tdx.jvp(f, (x,), (x,))
    with pytest.raises(MissingRuleError, match="'test_no_rules' has no batching rule"):
        tdx.vmap(f)(np.ones(2))
    with pytest.raises(MissingRuleError, match="'test_no_rules' has no StableHLO lowering rule"):
        tdx.jit(f)(x)
