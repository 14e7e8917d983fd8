"""Pytrees: flatten, unflatten and map over the built-in node types and
user-registered ones."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Iterable
from typing import NamedTuple

import pytest

from typedax import tree
from typedax.tree import TreeError


class Point(NamedTuple):
    x: object
    y: object


@dataclasses.dataclass(frozen=True)
class Layer:
    w: object
    b: object


class Box:
    """A user type that becomes a node with ``register_node``."""

    def __init__(self, label: str, items: list[object]) -> None:
        self.label = label
        self.items = items

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and (self.label, self.items) == (other.label, other.items)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value


def _box_flatten(b: Box) -> tuple[Iterable[object], Hashable]:
    return b.items, b.label


def _box_unflatten(aux: Hashable, children: list[object]) -> Box:
    assert isinstance(aux, str)
    return Box(aux, children)


tree.register_node(Box, _box_flatten, _box_unflatten)

CASES: list[tuple[object, list[object]]] = [
    (1, [1]),
    ((1, 2), [1, 2]),
    ([1, [2, 3]], [1, 2, 3]),
    ({"b": 2, "a": 1, "c": (3,)}, [1, 2, 3]),  # keys sorted
    (None, []),
    ((None, 1, [None]), [1]),
    (Point(1, (2, 3)), [1, 2, 3]),
    (Layer(w=[1, 2], b=3), [1, 2, 3]),
    (Box("k", [1, {"z": 2}]), [1, 2]),
    ((), []),
    ({}, []),
    ([(Point(1, 2), {"q": Layer(3, None)})], [1, 2, 3]),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_flatten_unflatten_round_trip(i: int) -> None:
    t, want_leaves = CASES[i]
    leaves, treedef = tree.flatten(t)
    assert leaves == want_leaves
    assert treedef.num_leaves == len(leaves)
    back = tree.unflatten(treedef, leaves)
    assert back == t and type(back) is type(t)
    assert tree.leaves(t) == leaves and tree.structure(t) == treedef


def test_unflatten_with_new_leaves_keeps_the_types() -> None:
    t = {"p": Point(1, 2), "l": Layer(3, [4]), "b": Box("k", [5])}
    _, treedef = tree.flatten(t)
    back = tree.unflatten(treedef, ["a", "b", "c", "d", "e"])
    assert back == {"b": Box("k", ["a"]), "l": Layer("b", ["c"]), "p": Point("d", "e")}


def test_treedefs_compare_by_structure() -> None:
    assert tree.structure((1, [2])) == tree.structure(("a", ["b"]))
    assert tree.structure((1, [2])) != tree.structure((1, (2,)))
    assert tree.structure({"a": 1}) != tree.structure({"b": 1})
    assert tree.structure(Box("k", [1])) != tree.structure(Box("j", [1]))
    assert tree.structure(Point(1, 2)) != tree.structure((1, 2))


def test_treedef_text() -> None:
    assert str(tree.structure((1, [2, None], {"a": 3}))) == "(*, [*, None], {'a': *})"
    assert str(tree.structure((1,))) == "(*,)"
    assert str(tree.structure(Point(1, 2))) == "Point(*, *)"


def test_map() -> None:
    t = {"a": [1, 2], "b": Point(3, None)}
    assert tree.map(lambda x: x * 10, t) == {"a": [10, 20], "b": Point(30, None)}
    assert tree.map(lambda x, y: x + y, (1, [2]), (10, [20])) == (11, [22])
    assert tree.map(lambda x: -x, Layer(1, 2)) == Layer(-1, -2)


def test_is_leaf() -> None:
    leaves, treedef = tree.flatten({"a": (1, 2), "b": [3]}, is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [(1, 2), 3]
    assert tree.unflatten(treedef, ["x", "y"]) == {"a": "x", "b": ["y"]}


def test_mismatched_structures() -> None:
    with pytest.raises(TreeError, match=r"tree structures differ: \(\*, \[\*\]\) and \(\*, \(\*,\)\)"):
        tree.map(lambda x, y: x, (1, [2]), (1, (2,)))
    with pytest.raises(TreeError, match="tree structures differ"):
        tree.map(lambda x, y: x, {"a": 1}, {"b": 1})


def test_wrong_number_of_leaves() -> None:
    treedef = tree.structure((1, [2, 3]))
    with pytest.raises(TreeError, match=r"tree structure \(\*, \[\*, \*\]\) has 3 leaves, got 2"):
        tree.unflatten(treedef, [1, 2])


def test_registering_a_node_type_twice() -> None:
    with pytest.raises(ValueError, match="Box is already a pytree node type"):
        tree.register_node(Box, _box_flatten, _box_unflatten)
    with pytest.raises(ValueError, match="tuple is already a pytree node type"):
        tree.register_node(tuple, lambda t: (t, None), lambda a, c: tuple(c))
