"""``typedax.tree_util`` against ``jax.tree_util``, on generated trees.

The trees nest tuples, lists, dicts (string keys or int keys), ``None``,
namedtuples, dataclasses (a node in typedax unregistered; registered with
JAX's ``register_dataclass`` on JAX's side), dataclasses registered with
``register_dataclass`` (a static field; explicit field lists), and classes
registered with ``register_pytree_node`` (with and without keys),
``register_pytree_with_keys`` and ``register_pytree_node_class`` -- each
registered the same way in both libraries. Leaves are ints and floats.

Trees are compared by ``repr`` (so a tuple is not a list and 1 is not 1.0);
structures by ``num_leaves``, by equality with each other, and by what
unflattening rebuilds; key paths by ``keystr`` and by each key's ``repr``.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterator
from typing import NamedTuple, assert_type

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jax import tree_util as jtu

import typedax as tdx
from typedax import tree, tree_util
from typedax.core.errors import TreeError
from typedax.tree_util import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    KeyEntry,
    KeyPath,
    PyTreeDef,
    SequenceKey,
    keystr,
)

# --- the node types, registered in both libraries ---------------------------------


class Pt(NamedTuple):
    x: object
    y: object


@dataclasses.dataclass(frozen=True)
class DC:
    """A node in typedax as it is; JAX needs it registered."""

    a: object
    b: object


jtu.register_dataclass(DC)


@dataclasses.dataclass(frozen=True)
class Meta:
    x: object
    tag: str = dataclasses.field(default="t", metadata={"static": True})


tree_util.register_dataclass(Meta)
jtu.register_dataclass(Meta)


@dataclasses.dataclass(frozen=True)
class Explicit:
    p: object
    q: object
    name: str


# the data fields out of declaration order: the children follow data_fields
tree_util.register_dataclass(Explicit, data_fields=["q", "p"], meta_fields=["name"])
jtu.register_dataclass(Explicit, data_fields=["q", "p"], meta_fields=["name"])


class Box:
    """A custom node with aux data and any number of children."""

    def __init__(self, label: str, items: tuple[object, ...]) -> None:
        self.label = label
        self.items = items

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and (self.label, self.items) == (other.label, other.items)

    __hash__ = None  # type: ignore[assignment]  # compared by value

    def __repr__(self) -> str:
        return f"Box({self.label!r}, {self.items!r})"


def box_flatten(b: Box) -> tuple[tuple[object, ...], str]:
    return b.items, b.label


def box_unflatten(label: str, items: tuple[object, ...]) -> Box:
    assert type(items) is tuple  # children come as a tuple, as in JAX
    return Box(label, items)


tree_util.register_pytree_node(Box, box_flatten, box_unflatten)
jtu.register_pytree_node(Box, box_flatten, box_unflatten)


class Pair:
    """Registered through its methods (``register_pytree_node_class``)."""

    def __init__(self, first: object, second: object) -> None:
        self.first, self.second = first, second

    def tree_flatten(self) -> tuple[tuple[object, object], None]:
        return (self.first, self.second), None

    @classmethod
    def tree_unflatten(cls, aux: None, children: tuple[object, ...]) -> Pair:
        return cls(*children)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pair) and (self.first, self.second) == (other.first, other.second)

    __hash__ = None  # type: ignore[assignment]  # compared by value

    def __repr__(self) -> str:
        return f"Pair({self.first!r}, {self.second!r})"


jtu.register_pytree_node_class(tree_util.register_pytree_node_class(Pair))


class Keyed:
    """A custom node whose children have keys of its own choosing."""

    def __init__(self, left: object, right: object) -> None:
        self.left, self.right = left, right

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Keyed) or type(other) is not type(self):
            return False
        return (self.left, self.right) == (other.left, other.right)

    __hash__ = None  # type: ignore[assignment]  # compared by value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.left!r}, {self.right!r})"


class Keyed2(Keyed):
    """Registered with ``register_pytree_with_keys`` and no plain flatten."""


def keyed_flatten(k: Keyed) -> tuple[tuple[object, object], None]:
    return (k.left, k.right), None


def keyed_with_keys(k: Keyed) -> tuple[list[tuple[KeyEntry, object]], None]:
    return [(GetAttrKey("left"), k.left), (DictKey("right"), k.right)], None


def jax_keyed_with_keys(k: Keyed) -> tuple[list[tuple[object, object]], None]:
    return [(jtu.GetAttrKey("left"), k.left), (jtu.DictKey("right"), k.right)], None


def keyed2_with_keys(k: Keyed) -> tuple[list[tuple[KeyEntry, object]], str]:
    return [(SequenceKey(7), k.left), (FlattenedIndexKey(9), k.right)], "k2"


def jax_keyed2_with_keys(k: Keyed) -> tuple[list[tuple[object, object]], str]:
    return [(jtu.SequenceKey(7), k.left), (jtu.FlattenedIndexKey(9), k.right)], "k2"


tree_util.register_pytree_node(Keyed, keyed_flatten, lambda aux, ch: Keyed(*ch), keyed_with_keys)
jtu.register_pytree_node(Keyed, keyed_flatten, lambda aux, ch: Keyed(*ch), jax_keyed_with_keys)
tree_util.register_pytree_with_keys(Keyed2, keyed2_with_keys, lambda aux, ch: Keyed2(*ch))
jtu.register_pytree_with_keys(Keyed2, jax_keyed2_with_keys, lambda aux, ch: Keyed2(*ch))


# --- generated trees -----------------------------------------------------------------

NUMBERS: st.SearchStrategy[object] = st.integers(-1000, 1000) | st.floats(-1e6, 1e6, allow_nan=False)


def _nodes(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    few = st.lists(children, max_size=3)
    return st.one_of(
        few.map(tuple),
        few,
        st.dictionaries(st.text("ab'", max_size=2), children, max_size=3),
        st.dictionaries(st.integers(0, 4), children, max_size=3),
        st.builds(Pt, children, children),
        st.builds(DC, children, children),
        st.builds(Meta, children, st.sampled_from(["p", "q"])),
        st.builds(Explicit, children, children, st.sampled_from(["n", "m"])),
        st.builds(Box, st.sampled_from(["k", "m"]), few.map(tuple)),
        st.builds(Pair, children, children),
        st.builds(Keyed, children, children),
        st.builds(Keyed2, children, children),
    )


TREES: st.SearchStrategy[object] = st.recursive(NUMBERS | st.none(), _nodes, max_leaves=12)


def is_none(x: object) -> bool:
    return x is None


def is_tuple(x: object) -> bool:  # namedtuples too
    return isinstance(x, tuple)


def is_short_list(x: object) -> bool:
    return isinstance(x, list) and len(x) <= 1


def is_box_or_pair(x: object) -> bool:
    return isinstance(x, Box | Pair)


def is_negative(x: object) -> bool:
    return isinstance(x, int | float) and x < 0


IS_LEAF: st.SearchStrategy[Callable[[object], bool] | None] = st.sampled_from(
    [None, is_none, is_tuple, is_short_list, is_box_or_pair, is_negative]
)


def deeper_than_one(path: tuple[object, ...], x: object) -> bool:
    return len(path) > 1


def under_an_attribute(path: tuple[object, ...], x: object) -> bool:
    return any(str(k).startswith(".") for k in path)


def never(path: tuple[object, ...], x: object) -> bool:
    return False


PATH_IS_LEAF: st.SearchStrategy[Callable[[tuple[object, ...], object], bool]] = st.sampled_from(
    [deeper_than_one, under_an_attribute, never]
)


def paths_as_text(pairs: list[tuple[tuple[object, ...], object]]) -> list[tuple[str, str, list[str], str]]:
    """Each (path, leaf) as its keystr, its simple keystr, its keys' reprs and the leaf's repr."""
    return [
        (keystr(p), keystr(p, simple=True, separator="/"), [repr(k) for k in p], repr(x)) for p, x in pairs
    ]


def jax_paths_as_text(pairs: list[tuple[tuple[object, ...], object]]) -> list[tuple[str, str, list[str], str]]:
    return [
        (jtu.keystr(p), jtu.keystr(p, simple=True, separator="/"), [repr(k) for k in p], repr(x))
        for p, x in pairs
    ]


def jax_num_leaves(treedef: object) -> int:
    """A JAX ``PyTreeDef``'s ``num_leaves`` (jaxlib's stub here does not type it)."""
    n = getattr(treedef, "num_leaves")
    assert isinstance(n, int)
    return n


def jax_same_structure(t1: object, t2: object) -> bool:
    a: object = jtu.tree_structure(t1)
    b: object = jtu.tree_structure(t2)
    return a == b


# --- flatten, unflatten, structure ------------------------------------------------------


@given(TREES, IS_LEAF)
def test_flatten_matches_jax(t: object, is_leaf: Callable[[object], bool] | None) -> None:
    leaves, treedef = tree_util.tree_flatten(t, is_leaf)
    jleaves, jtreedef = jtu.tree_flatten(t, is_leaf)
    assert repr(leaves) == repr(jleaves)
    assert treedef.num_leaves == jax_num_leaves(jtreedef) == len(leaves)
    assert repr(tree_util.tree_leaves(t, is_leaf)) == repr(jtu.tree_leaves(t, is_leaf))
    assert tree_util.tree_structure(t, is_leaf) == treedef
    assert tree_util.treedef_is_leaf(treedef) == jtu.treedef_is_leaf(jtreedef)
    # unflatten rebuilds what JAX rebuilds, from the leaves and from new ones
    assert repr(tree_util.tree_unflatten(treedef, leaves)) == repr(jtu.tree_unflatten(jtreedef, jleaves))
    new = [("new", i) for i in range(len(leaves))]
    assert repr(tree_util.tree_unflatten(treedef, iter(new))) == repr(jtu.tree_unflatten(jtreedef, new))


def subtrees(x: object) -> Iterator[object]:
    """``x`` and every subtree in it, at every depth."""
    yield x
    for child in tree_util.tree_leaves(x, is_leaf=lambda y: y is not x):  # x's children
        if child is not x:
            yield from subtrees(child)


@given(TREES)
def test_every_subtree_is_a_leaf_or_not_as_in_jax(t: object) -> None:
    for sub in subtrees(t):
        ours, theirs = tree_util.tree_structure(sub), jtu.tree_structure(sub)
        assert tree_util.treedef_is_leaf(ours) == jtu.treedef_is_leaf(theirs)
        assert ours.num_leaves == jax_num_leaves(theirs)


@given(TREES, TREES)
def test_structures_are_equal_when_jax_says_so(t1: object, t2: object) -> None:
    d1, d2 = tree_util.tree_structure(t1), tree_util.tree_structure(t2)
    assert (d1 == d2) == jax_same_structure(t1, t2)
    if d1 == d2:
        assert hash(d1) == hash(d2)
    assert tree_util.tree_structure(t1) == d1


# --- tree_map ---------------------------------------------------------------------------


def tag(x: object) -> object:
    return ("f", x)


def pair_up(x: object, y: object) -> object:
    return [x, y]


@given(TREES, IS_LEAF)
def test_tree_map_matches_jax(t: object, is_leaf: Callable[[object], bool] | None) -> None:
    assert repr(tree_util.tree_map(tag, t, is_leaf=is_leaf)) == repr(jtu.tree_map(tag, t, is_leaf=is_leaf))
    # the further trees need the first's structure only as a prefix: f gets
    # their subtrees at the first tree's leaves
    longer = jtu.tree_map(lambda x: (x, [x]), t, is_leaf=is_leaf)
    ours = tree_util.tree_map(pair_up, t, longer, is_leaf=is_leaf)
    assert repr(ours) == repr(jtu.tree_map(pair_up, t, longer, is_leaf=is_leaf))


@given(TREES, TREES)
def test_tree_map_over_two_trees_fails_when_jax_does(t1: object, t2: object) -> None:
    try:
        want = repr(jtu.tree_map(pair_up, t1, t2))
    except (ValueError, TypeError):
        with pytest.raises(TreeError):
            tree_util.tree_map(pair_up, t1, t2)
    else:
        assert repr(tree_util.tree_map(pair_up, t1, t2)) == want


# --- key paths -----------------------------------------------------------------------------


@given(TREES, IS_LEAF)
def test_flatten_with_path_matches_jax(t: object, is_leaf: Callable[[object], bool] | None) -> None:
    pairs, treedef = tree_util.tree_flatten_with_path(t, is_leaf)
    jpairs, jtreedef = jtu.tree_flatten_with_path(t, is_leaf)
    assert paths_as_text(list(pairs)) == jax_paths_as_text(jpairs)
    assert treedef == tree_util.tree_structure(t, is_leaf)
    assert treedef.num_leaves == jax_num_leaves(jtreedef)
    assert [x for _, x in pairs] == tree_util.tree_leaves(t, is_leaf)
    assert tree_util.tree_leaves_with_path(t, is_leaf) == pairs


@given(TREES, PATH_IS_LEAF)
def test_is_leaf_that_takes_the_path_matches_jax(
    t: object, is_leaf: Callable[[tuple[object, ...], object], bool]
) -> None:
    pairs, treedef = tree_util.tree_flatten_with_path(t, is_leaf, is_leaf_takes_path=True)
    jpairs, jtreedef = jtu.tree_flatten_with_path(t, is_leaf, is_leaf_takes_path=True)
    assert paths_as_text(list(pairs)) == jax_paths_as_text(jpairs)
    assert treedef.num_leaves == jax_num_leaves(jtreedef)
    new = list(range(treedef.num_leaves))
    assert repr(tree_util.tree_unflatten(treedef, new)) == repr(jtu.tree_unflatten(jtreedef, new))
    mapped = tree_util.tree_map_with_path(
        lambda p, x: (keystr(p), x), t, is_leaf=is_leaf, is_leaf_takes_path=True
    )
    jmapped = jtu.tree_map_with_path(
        lambda p, x: (jtu.keystr(p), x), t, is_leaf=is_leaf, is_leaf_takes_path=True
    )
    assert repr(mapped) == repr(jmapped)


@given(TREES, IS_LEAF)
def test_tree_map_with_path_matches_jax(t: object, is_leaf: Callable[[object], bool] | None) -> None:
    ours = tree_util.tree_map_with_path(lambda p, x: (keystr(p), [repr(k) for k in p], x), t, is_leaf=is_leaf)
    theirs = jtu.tree_map_with_path(lambda p, x: (jtu.keystr(p), [repr(k) for k in p], x), t, is_leaf=is_leaf)
    assert repr(ours) == repr(theirs)
    longer = jtu.tree_map(lambda x: {"v": x}, t, is_leaf=is_leaf)
    ours2 = tree_util.tree_map_with_path(lambda p, x, y: (keystr(p), x, y), t, longer, is_leaf=is_leaf)
    theirs2 = jtu.tree_map_with_path(lambda p, x, y: (jtu.keystr(p), x, y), t, longer, is_leaf=is_leaf)
    assert repr(ours2) == repr(theirs2)


KEYS = st.one_of(
    st.integers(-3, 30).map(lambda i: (SequenceKey(i), jtu.SequenceKey(i))),
    st.one_of(st.text(max_size=3), st.integers(-3, 3)).map(lambda k: (DictKey(k), jtu.DictKey(k))),
    st.text("abc_", min_size=1, max_size=3).map(lambda n: (GetAttrKey(n), jtu.GetAttrKey(n))),
    st.integers(0, 30).map(lambda i: (FlattenedIndexKey(i), jtu.FlattenedIndexKey(i))),
)


@given(st.lists(KEYS, max_size=4), st.sampled_from(["", "/", "."]))
def test_keys_and_keystr_print_as_in_jax(keys: list[tuple[KeyEntry, object]], sep: str) -> None:
    ours = tuple(k for k, _ in keys)
    theirs = tuple(j for _, j in keys)
    assert [repr(k) for k in ours] == [repr(j) for j in theirs]
    assert [str(k) for k in ours] == [str(j) for j in theirs]
    assert keystr(ours) == jtu.keystr(theirs)
    assert keystr(ours, simple=True, separator=sep) == jtu.keystr(theirs, simple=True, separator=sep)
    assert keystr(ours, separator=sep) == jtu.keystr(theirs, separator=sep)


def test_keys_are_values() -> None:
    assert SequenceKey(0) == SequenceKey(0) and hash(SequenceKey(0)) == hash(SequenceKey(0))
    distinct: list[object] = [SequenceKey(0), FlattenedIndexKey(0), DictKey("a"), GetAttrKey("a"), DictKey(0)]
    assert len(set(distinct)) == len(distinct)
    match DictKey("a"):
        case DictKey(key=k):
            assert k == "a"
    with pytest.raises(dataclasses.FrozenInstanceError):
        SequenceKey(0).idx = 1  # type: ignore[misc]  # the mutation under test


def test_keystr_examples() -> None:
    params = {"foo": {"bar": {"baz": 1, "bat": [2, 3]}}, "p": Pt(4, DC(5, None))}
    texts = [keystr(p) for p, _ in tree_util.tree_flatten_with_path(params)[0]]
    assert texts == ["['foo']['bar']['bat'][0]", "['foo']['bar']['bat'][1]", "['foo']['bar']['baz']", "['p'].x", "['p'].y.a"]
    simple = [keystr(p, simple=True, separator="/") for p, _ in tree_util.tree_flatten_with_path(params)[0]]
    assert simple[0] == "foo/bar/bat/0" and simple[-1] == "p/y/a"
    assert keystr(()) == ""


# --- reductions ------------------------------------------------------------------------------


def bigger(a: object, b: object) -> object:
    assert isinstance(a, int | float) and isinstance(b, int | float)
    return max(a, b)


@given(TREES, IS_LEAF)
def test_tree_reduce_and_tree_all_match_jax(t: object, is_leaf: Callable[[object], bool] | None) -> None:
    def count(acc: int, x: object) -> int:
        return acc + 1

    assert tree_util.tree_reduce(count, t, 0, is_leaf) == jtu.tree_reduce(count, t, 0, is_leaf)
    assert tree_util.tree_all(t, is_leaf=is_leaf) == jtu.tree_all(t, is_leaf=is_leaf)
    numbers = tree_util.tree_leaves(t)
    assert tree_util.tree_reduce(operator.add, t, 0.5) == jtu.tree_reduce(operator.add, t, 0.5)
    if numbers:
        assert repr(tree_util.tree_reduce(operator.add, t)) == repr(jtu.tree_reduce(operator.add, t))
        assert repr(tree_util.tree_reduce(bigger, t)) == repr(jtu.tree_reduce(bigger, t))
    else:
        with pytest.raises(TreeError, match="tree_reduce of a tree with no leaves needs an initializer"):
            tree_util.tree_reduce(operator.add, t)


def test_tree_all() -> None:
    assert tree_util.tree_all([1, (2.0, {"a": None})]) and tree_util.tree_all(None)
    assert not tree_util.tree_all([1, (0, {"a": 3})])
    assert tree_util.tree_all([(0,)], is_leaf=is_tuple)  # the leaf (0,) is a non-empty tuple


# --- one registry, the typing of the API -------------------------------------------------


class Shared:
    def __init__(self, v: object) -> None:
        self.v = v


tree_util.register_pytree_node(Shared, lambda s: ((s.v,), None), lambda aux, ch: Shared(ch[0]))


def test_one_registry_with_typedax_tree() -> None:
    s = Shared([1, 2])
    assert tree.leaves(s) == [1, 2] == tree_util.tree_leaves(s)
    assert tree.structure(s) == tree_util.tree_structure(s)
    rebuilt = tree.unflatten(tree.structure(s), [3, 4])
    assert isinstance(rebuilt, Shared) and rebuilt.v == [3, 4]
    with pytest.raises(TreeError, match="Shared is already a pytree node type"):
        tree.register_node(Shared, lambda s: ((s.v,), None), lambda aux, ch: Shared(ch[0]))
    # registered without keys: its children are FlattenedIndexKeys in paths
    assert keystr(tree_util.tree_flatten_with_path(s)[0][1][0]) == "[<flat index 0>][1]"


def test_a_registered_dataclass_goes_through_jit() -> None:
    f = tdx.jit(lambda m: m.x * 2.0 if m.tag == "p" else m.x)
    assert float(np.asarray(f(Meta(1.5, "p")))) == 3.0
    assert float(np.asarray(f(Meta(1.5, "q")))) == 1.5  # the static field is part of the trace's key


def test_none_is_an_empty_node() -> None:
    leaves, treedef = tree_util.tree_flatten([None, {"a": None}])
    assert leaves == [] and treedef.num_leaves == 0
    assert tree_util.tree_map(lambda x: 1, [None, 2]) == [None, 1]
    assert tree_util.treedef_is_leaf(tree_util.tree_structure(None))
    assert tree_util.tree_leaves([None, (None,)], is_leaf=is_none) == [None, None]
    # None in a further tree is a subtree like any other where the first has a leaf
    assert tree_util.tree_map(pair_up, [1], [None]) == [[1, None]]


def test_types_are_kept() -> None:
    d: dict[str, list[int]] = {"a": [1, 2]}
    assert_type(tree_util.tree_map(lambda x: x, d), dict[str, list[int]])
    assert_type(tree_util.tree_map(lambda x, y: x, d, d), dict[str, list[int]])
    assert_type(tree_util.tree_map_with_path(lambda p, x: x, d), dict[str, list[int]])
    assert_type(tree_util.tree_flatten(d), tuple[list[object], PyTreeDef])
    assert_type(tree_util.tree_flatten_with_path(d), tuple[list[tuple[KeyPath, object]], PyTreeDef])
    assert_type(tree_util.tree_reduce(lambda acc, x: acc + 1, d, 0), int)
    assert PyTreeDef is tree.TreeDef


def test_register_dataclass_infers_the_fields_of_a_dataclass() -> None:
    @tree_util.register_dataclass
    @dataclasses.dataclass
    class Cfg:
        w: object
        b: object
        n: int = dataclasses.field(default=3, metadata={"static": True})
        dropped: int = 0

    pairs, treedef = tree_util.tree_flatten_with_path(Cfg([1], 2, 5, 0))
    assert [(keystr(p), x) for p, x in pairs] == [(".w[0]", 1), (".b", 2), (".dropped", 0)]
    rebuilt = tree_util.tree_unflatten(treedef, [7, 8, 9])
    assert rebuilt == Cfg([7], 8, 5, 9)
    assert treedef != tree_util.tree_structure(Cfg([1], 2, 6, 0))  # the static field is in the structure


def test_register_dataclass_with_drop_fields() -> None:
    @dataclasses.dataclass
    class WithCache:
        x: object
        cache: object = None

    registered = tree_util.register_dataclass(WithCache, drop_fields=["cache"])
    assert_type(registered, type[WithCache])
    assert registered is WithCache
    leaves, treedef = tree_util.tree_flatten(WithCache(1, cache="c"))
    assert leaves == [1]
    assert tree_util.tree_unflatten(treedef, [2]) == WithCache(2)


def test_register_dataclass_on_a_plain_class() -> None:
    class Plain:
        def __init__(self, a: object, k: str) -> None:
            self.a, self.k = a, k

    tree_util.register_dataclass(Plain, data_fields=["a"], meta_fields=["k"])
    [(path, leaf)], treedef = tree_util.tree_flatten_with_path(Plain(1.5, "z"))
    assert keystr(path) == ".a" and leaf == 1.5
    back = tree_util.tree_unflatten(treedef, [2.5])
    assert isinstance(back, Plain) and (back.a, back.k) == (2.5, "z")


# --- errors ----------------------------------------------------------------------------------


def test_unflatten_with_the_wrong_number_of_leaves() -> None:
    treedef = tree_util.tree_structure((1, [2, 3]))
    with pytest.raises(TreeError, match=r"has 3 leaves, got 2"):
        tree_util.tree_unflatten(treedef, [1, 2])
    with pytest.raises(TreeError, match=r"has 3 leaves, got 4"):
        tree_util.tree_unflatten(treedef, [1, 2, 3, 4])
    with pytest.raises(ValueError):  # JAX refuses it as well
        jtu.tree_unflatten(jtu.tree_structure((1, [2, 3])), [1, 2])


def test_registering_twice() -> None:
    with pytest.raises(TreeError, match="Box is already a pytree node type"):
        tree_util.register_pytree_node(Box, box_flatten, box_unflatten)
    with pytest.raises(ValueError, match="Duplicate"):  # as JAX does
        jtu.register_pytree_node(Box, box_flatten, box_unflatten)
    with pytest.raises(TreeError, match="Pair is already a pytree node type"):
        tree_util.register_pytree_node_class(Pair)
    with pytest.raises(TreeError, match="Meta is already a pytree node type"):
        tree_util.register_dataclass(Meta)
    with pytest.raises(TreeError, match="Keyed2 is already a pytree node type"):
        tree_util.register_pytree_with_keys(Keyed2, keyed2_with_keys, lambda aux, ch: Keyed2(*ch))
    for builtin in (tuple, list, dict, type(None)):
        with pytest.raises(TreeError, match="is already a pytree node type"):
            tree_util.register_pytree_node(builtin, lambda x: ((), None), lambda aux, ch: None)


def test_register_pytree_node_class_without_the_methods() -> None:
    class NoMethods:
        pass

    with pytest.raises(TreeError, match="NoMethods has no tree_flatten or tree_unflatten method"):
        tree_util.register_pytree_node_class(NoMethods)

    class HalfDone:
        def tree_flatten(self) -> tuple[tuple[()], None]:
            return (), None

    with pytest.raises(TreeError, match="HalfDone has no tree_unflatten method"):
        tree_util.register_pytree_node_class(HalfDone)


def test_register_dataclass_errors() -> None:
    @dataclasses.dataclass
    class D:
        a: object
        b: object
        c: object = dataclasses.field(init=False, default=0)

    class NotDC:
        pass

    with pytest.raises(TreeError, match="give both data_fields and meta_fields, or neither"):
        tree_util.register_dataclass(D, data_fields=["a", "b"])
    with pytest.raises(TreeError, match="NotDC is not a dataclass, so data_fields and meta_fields are required"):
        tree_util.register_dataclass(NotDC)
    with pytest.raises(TreeError, match=r"must name every field with init=True.*Missing: b"):
        tree_util.register_dataclass(D, data_fields=["a"], meta_fields=[])
    with pytest.raises(TreeError, match=r"Not init fields: c"):
        tree_util.register_dataclass(D, data_fields=["a", "b", "c"], meta_fields=[])
    with pytest.raises(TreeError, match=r"field\(s\) a are both data and meta"):
        tree_util.register_dataclass(D, data_fields=["a", "b"], meta_fields=["a"])
    with pytest.raises(TreeError, match="data_fields must be a sequence of field names, not a str"):
        tree_util.register_dataclass(D, data_fields="ab", meta_fields=[])
    # JAX refuses the same registrations
    for kwargs in ({"data_fields": ["a"], "meta_fields": []}, {"data_fields": ["a", "b"], "meta_fields": ["a"]}):
        with pytest.raises(ValueError):
            jtu.register_dataclass(D, **kwargs)
    with pytest.raises(TypeError):
        jtu.register_dataclass(NotDC)
    # none of the failures registered anything: a right registration still can
    tree_util.register_dataclass(D, data_fields=["a", "b"], meta_fields=[])
    leaves, treedef = tree_util.tree_flatten(D(1, 2))
    assert leaves == [1, 2] and tree_util.tree_unflatten(treedef, [3, 4]) == D(3, 4)


def test_tree_map_mismatch_names_the_tree_and_the_place() -> None:
    with pytest.raises(TreeError, match=r"at tree\[1\]: tree_map's tree 2 has a list where the first tree has a tuple"):
        tree_util.tree_map(pair_up, [1, (2,)], [1, [2]])
    with pytest.raises(TreeError, match=r"at tree\['x'\]: tree_map's tree 3 has a dict with keys \('b',\) where"):
        tree_util.tree_map(lambda x, y, z: x, {"x": {"a": 1}}, {"x": {"a": 1}}, {"x": {"b": 1}})
    with pytest.raises(TreeError, match=r"at tree\[0\]: tree_map's tree 2 has a leaf of type int where the first tree has None"):
        tree_util.tree_map(pair_up, [None, 1], [2, 1])
    with pytest.raises(TreeError, match=r"tree_map's tree 2 has a tuple of 3 children where the first tree's has 2"):
        tree_util.tree_map(pair_up, (1, 2), (1, 2, 3))
    with pytest.raises(TreeError, match=r"tree_map's tree 2 has a Box with node data 'm' where the first tree's has 'k'"):
        tree_util.tree_map(pair_up, Box("k", (1,)), Box("m", (1,)))
    with pytest.raises(TreeError, match=r"at tree\.x: tree_map_with_path's tree 2 has a leaf of type int where the first tree has a list"):
        tree_util.tree_map_with_path(lambda p, x, y: x, Meta([1], "p"), Meta(2, "p"))


def test_path_flatten_errors_name_the_place() -> None:
    with pytest.raises(TreeError, match=r"at tree\['k'\]\[0\]: a dict whose keys cannot be sorted"):
        tree_util.tree_flatten_with_path({"k": [{1: 1, "a": 2}]})

    class Bad:
        pass

    def bad_keys(b: Bad) -> tuple[list[tuple[KeyEntry, object]], None]:
        return 5, None  # type: ignore[return-value]  # the mistake under test

    tree_util.register_pytree_node(Bad, lambda b: ((), None), lambda aux, ch: Bad(), bad_keys)
    assert tree_util.tree_leaves([Bad()]) == []  # the plain flatten is fine
    with pytest.raises(TreeError, match=r"at tree\[0\]: the flatten_with_keys function registered for Bad returned int"):
        tree_util.tree_flatten_with_path([Bad()])

    class Worse:
        pass

    def worse_keys(w: Worse) -> tuple[list[tuple[KeyEntry, object]], None]:
        raise TypeError("oops")

    tree_util.register_pytree_node(Worse, lambda w: ((), None), lambda aux, ch: Worse(), worse_keys)
    with pytest.raises(TreeError, match=r"at tree\.y: the flatten_with_keys function registered for Worse .* oops"):
        tree_util.tree_flatten_with_path(Pt(1, Worse()))

    @dataclasses.dataclass
    class InitFalse:
        x: float
        y: float = dataclasses.field(init=False, default=0.0)

    with pytest.raises(TreeError, match=r"at tree\[1\]: dataclass InitFalse has field\(s\) y with init=False"):
        tree_util.tree_flatten_with_path(Box("k", (1, InitFalse(1.0))))
