"""jax.tree_util's and jax.tree's newer helpers (issue 29 item 7), against
JAX: all_leaves, is_tree_node, flatten_one_level, register_static (static
under jit), register_pytree_with_keys_class, broadcast/tree_broadcast,
reduce_associative/tree_reduce_associative, tree.static."""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import tree as ttree
from typedax import tree_util as tu

TREES: list[Any] = [{"a": [1, 2], "b": {"c": 3}}, (1, (2, 3)), [1, None, 2], None, 5]


@pytest.mark.parametrize("t", TREES)
def test_flatten_one_level_all_leaves_and_is_tree_node_as_jax(t: Any) -> None:
    if jax.tree_util.is_tree_node(type(t)):
        assert tu.flatten_one_level(t) == jax.tree_util.flatten_one_level(t)
    else:
        with pytest.raises(ValueError, match="can't tree-flatten"):
            tu.flatten_one_level(t)
        with pytest.raises(ValueError, match="can't tree-flatten"):
            jax.tree_util.flatten_one_level(t)
    assert tu.is_tree_node(type(t)) == jax.tree_util.is_tree_node(type(t))
    leaves = jax.tree_util.tree_leaves(t)
    assert tu.all_leaves(leaves) == jax.tree_util.all_leaves(leaves) is True
    assert tu.all_leaves([t]) == jax.tree_util.all_leaves([t])


def test_broadcast_and_reduce_associative_as_jax() -> None:
    prefix, full = (1, {"x": 2}), ([3, 4], {"x": (5, 6, 7)})
    assert ttree.broadcast(prefix, full) == jax.tree.broadcast(prefix, full)
    assert tu.tree_broadcast(prefix, full) == jax.tree_util.tree_broadcast(prefix, full)
    calls: list[tuple[Any, Any]] = []

    def op(a: Any, b: Any) -> Any:
        calls.append((a, b))
        return f"({a}+{b})"

    t = ["a", ("b", "c"), {"d": "e"}]
    want = jax.tree.reduce_associative(op, t)
    n = len(calls)
    assert ttree.reduce_associative(op, t) == want and calls[n:] == calls[:n]  # JAX's order of calls
    assert tu.tree_reduce_associative(op, [], identity="0") == "0"
    with pytest.raises(TypeError, match="Must specify identity"):
        ttree.reduce_associative(op, [])


def test_register_static_is_static_under_jit() -> None:
    @tu.register_static
    class Mode(str):
        pass

    traces: list[str] = []

    def f(x: Any, m: Mode) -> Any:
        traces.append(str(m))
        return x + 1 if m == "add" else x - 1

    g = tdx.jit(f)
    assert float(g(tnp.asarray(1.0), Mode("add"))) == 2.0
    assert float(g(tnp.asarray(1.0), Mode("sub"))) == 0.0
    assert float(g(tnp.asarray(5.0), Mode("add"))) == 6.0
    assert traces == ["add", "sub"]
    assert tu.tree_leaves((1, Mode("add"))) == [1]


def test_register_pytree_with_keys_class_and_static_field() -> None:
    @tu.register_pytree_with_keys_class
    class Pair:
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

        def tree_flatten_with_keys(self) -> tuple[Any, Any]:
            return ((tu.GetAttrKey("a"), self.a), (tu.GetAttrKey("b"), self.b)), None

        @classmethod
        def tree_unflatten(cls, aux: Any, children: Any) -> Pair:
            return cls(*children)

    p = Pair(1, [2, 3])
    assert tu.tree_leaves(p) == [1, 2, 3]
    paths = [tu.keystr(path) for path, _ in tu.tree_flatten_with_path(p)[0]]
    assert paths == [".a", ".b[0]", ".b[1]"]
    doubled = tu.tree_map(lambda v: v * 2, p)
    assert (doubled.a, doubled.b) == (2, [4, 6])

    @tu.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: Any
        op: str = ttree.static(default="add")  # type: ignore[assignment]  # a dataclasses.field, typed object
    assert tu.tree_leaves(Op(np.float32(1.0))) == [np.float32(1.0)]
    assert tu.tree_structure(Op(1.0, "add")) != tu.tree_structure(Op(1.0, "sub"))
