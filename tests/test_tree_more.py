"""``typedax.tree``'s JAX-named functions, ``TreeDef``'s methods and
``typedax.tree_util.Partial``, against JAX 0.10.2 on generated trees.

The trees nest dicts, lists, tuples, ``None``, a NamedTuple and a custom node
with aux data (registered the same way in both libraries); the leaves are
plain Python ints and floats, so both libraries see equal trees. Results are
compared by ``repr`` (a tuple is not a list, 1 is not 1.0), structures by
JAX's ``repr`` (``PyTreeDef({'a': *})``), key paths by ``keystr`` and each
key's ``repr``. Errors: where JAX raises ``ValueError`` (a structure that does
not match), typedax raises one too.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable, Iterable
from typing import NamedTuple, Protocol, assert_type, cast

import jax
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jax import tree_util as jtu

import typedax as tdx
import typedax.numpy as tnp
from typedax import tree, tree_util
from typedax.core.errors import TreeError
from typedax.tree import TreeDef
from typedax.tree_util import KeyPath, Partial, keystr

# --- node types, registered in both libraries ---------------------------------------


class NT(NamedTuple):
    x: object
    y: object


class Node:
    """A custom node: a label (aux data) and any number of children."""

    def __init__(self, label: str, items: tuple[object, ...]) -> None:
        self.label = label
        self.items = items

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and (self.label, self.items) == (other.label, other.items)

    __hash__ = None  # type: ignore[assignment]  # compared by value

    def __repr__(self) -> str:
        return f"Node({self.label!r}, {self.items!r})"


def node_flatten(n: Node) -> tuple[tuple[object, ...], str]:
    return n.items, n.label


def node_unflatten(label: str, items: tuple[object, ...]) -> Node:
    return Node(label, items)


tree_util.register_pytree_node(Node, node_flatten, node_unflatten)
jtu.register_pytree_node(Node, node_flatten, node_unflatten)

class JaxTreeDef(Protocol):
    """What these tests use of a JAX ``PyTreeDef`` (jaxlib's stub here does not type it)."""

    @property
    def num_leaves(self) -> int: ...
    @property
    def num_nodes(self) -> int: ...
    def children(self) -> list[JaxTreeDef]: ...
    def unflatten(self, leaves: Iterable[object], /) -> object: ...
    def flatten_up_to(self, tree: object, /) -> list[object]: ...
    def compose(self, inner: JaxTreeDef, /) -> JaxTreeDef: ...


def jstructure(t: object, is_leaf: Callable[[object], bool] | None = None) -> JaxTreeDef:
    return cast(JaxTreeDef, jax.tree.structure(t, is_leaf))


# --- generated trees ------------------------------------------------------------------

NUMBERS: st.SearchStrategy[object] = st.integers(-100, 100) | st.floats(-1e3, 1e3, allow_nan=False)


def _nodes(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    few = st.lists(children, max_size=3)
    return st.one_of(
        few.map(tuple),
        few,
        st.dictionaries(st.sampled_from(["a", "b", "c"]), children, max_size=3),
        st.builds(NT, children, children),
        st.builds(Node, st.sampled_from(["k", "m"]), few.map(tuple)),
    )


TREES: st.SearchStrategy[object] = st.recursive(NUMBERS | st.none(), _nodes, max_leaves=10)


def is_tuple(x: object) -> bool:  # the NamedTuple too
    return isinstance(x, tuple)


def is_none(x: object) -> bool:
    return x is None


def is_short_list(x: object) -> bool:
    return isinstance(x, list) and len(x) <= 1


def is_negative(x: object) -> bool:
    return isinstance(x, int | float) and x < 0


IS_LEAF: st.SearchStrategy[Callable[[object], bool] | None] = st.sampled_from(
    [None, is_tuple, is_none, is_short_list, is_negative]
)


def bigger(a: float, b: object) -> float:
    assert isinstance(b, int | float)
    return max(a, b)


def tag(x: object) -> object:
    return ("leaf", x)


def paths(pairs: list[tuple[KeyPath, object]]) -> list[tuple[str, list[str], str]]:
    return [(keystr(p), [repr(k) for k in p], repr(x)) for p, x in pairs]


def jpaths(pairs: list[tuple[tuple[object, ...], object]]) -> list[tuple[str, list[str], str]]:
    return [(jtu.keystr(p), [repr(k) for k in p], repr(x)) for p, x in pairs]


# --- the signatures are JAX's ---------------------------------------------------------

JAX_TREE_NAMES = [
    "all",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "structure",
    "transpose",
    "unflatten",
]


@pytest.mark.parametrize("name", JAX_TREE_NAMES)
def test_tree_signatures_are_jaxs(name: str) -> None:
    ours = inspect.signature(getattr(tree, name))
    theirs = inspect.signature(getattr(jax.tree, name))
    assert [(p.name, p.kind) for p in ours.parameters.values()] == [
        (p.name, p.kind) for p in theirs.parameters.values()
    ]
    assert [p.default is p.empty for p in ours.parameters.values()] == [
        p.default is p.empty for p in theirs.parameters.values()
    ]


@pytest.mark.parametrize(
    "name",
    ["tree_all", "tree_reduce", "tree_transpose", "treedef_children", "treedef_tuple", "tree_map_with_path"],
)
def test_tree_util_signatures_are_jaxs(name: str) -> None:
    ours = inspect.signature(getattr(tree_util, name))
    theirs = inspect.signature(getattr(jtu, name))
    assert [(p.name, p.kind) for p in ours.parameters.values()] == [
        (p.name, p.kind) for p in theirs.parameters.values()
    ]


# --- flattening, mapping, reducing ------------------------------------------------------


@given(TREES, IS_LEAF)
def test_flatten_leaves_structure_match_jax(t: object, is_leaf: Callable[[object], bool] | None) -> None:
    leaves, treedef = tree.flatten(t, is_leaf)
    jleaves, jtreedef = jax.tree.flatten(t, is_leaf)[0], jstructure(t, is_leaf)
    assert repr(leaves) == repr(jleaves)
    assert repr(tree.leaves(t, is_leaf)) == repr(jax.tree.leaves(t, is_leaf))
    assert repr(tree.leaves(t, is_leaf=is_leaf)) == repr(jleaves)
    assert repr(treedef) == repr(jtreedef)
    assert repr(tree.structure(t, is_leaf)) == repr(jax.tree.structure(t, is_leaf))
    assert treedef.num_leaves == jtreedef.num_leaves
    assert treedef.num_nodes == jtreedef.num_nodes
    assert repr(treedef.children()) == repr(jtreedef.children())
    assert repr(tree_util.treedef_children(treedef)) == repr(jtu.treedef_children(jtreedef))
    assert tree_util.treedef_is_leaf(treedef) == jtu.treedef_is_leaf(jtreedef)
    new = [tag(x) for x in leaves]
    assert repr(treedef.unflatten(new)) == repr(jtreedef.unflatten(new))
    assert repr(tree.unflatten(treedef, new)) == repr(jax.tree.unflatten(jtreedef, new))


@given(TREES, IS_LEAF)
def test_map_reduce_all_match_jax(t: object, is_leaf: Callable[[object], bool] | None) -> None:
    assert repr(tree.map(tag, t, is_leaf=is_leaf)) == repr(jax.tree.map(tag, t, is_leaf=is_leaf))
    assert repr(tree_util.tree_map(tag, t, is_leaf=is_leaf)) == repr(jtu.tree_map(tag, t, is_leaf=is_leaf))

    def count(n: int, _: object) -> int:
        return n + 1

    assert tree.reduce(count, t, 0, is_leaf) == jax.tree.reduce(count, t, 0, is_leaf)
    assert tree.reduce(count, t, 0, is_leaf=is_leaf) == jax.tree.reduce(count, t, 0, is_leaf=is_leaf)
    assert tree.all(t, is_leaf=is_leaf) == jax.tree.all(t, is_leaf=is_leaf)
    assert tree_util.tree_all(t, is_leaf=is_leaf) == jtu.tree_all(t, is_leaf=is_leaf)
    numbers = tree.leaves(t)
    if numbers:
        assert repr(tree.reduce(operator.add, t)) == repr(jax.tree.reduce(operator.add, t))
        assert repr(tree_util.tree_reduce(bigger, t)) == repr(jtu.tree_reduce(bigger, t))
    else:
        with pytest.raises(TreeError, match="reduce of a tree with no leaves needs an initializer"):
            tree.reduce(operator.add, t)


@given(TREES, IS_LEAF)
def test_with_path_match_jax(t: object, is_leaf: Callable[[object], bool] | None) -> None:
    pairs, treedef = tree.flatten_with_path(t, is_leaf)
    jpairs, jtreedef = jax.tree.flatten_with_path(t, is_leaf)
    assert paths(pairs) == jpaths(jpairs)
    assert repr(treedef) == repr(jtreedef)
    assert paths(tree.leaves_with_path(t, is_leaf)) == jpaths(jax.tree.leaves_with_path(t, is_leaf))
    assert paths(tree_util.tree_leaves_with_path(t, is_leaf)) == jpaths(jtu.tree_leaves_with_path(t, is_leaf))

    def where(p: KeyPath, x: object) -> object:
        return (keystr(p), x)

    def jwhere(p: tuple[object, ...], x: object) -> object:
        return (jtu.keystr(p), x)

    assert repr(tree.map_with_path(where, t, is_leaf=is_leaf)) == repr(
        jax.tree.map_with_path(jwhere, t, is_leaf=is_leaf)
    )

    def deep(p: KeyPath, x: object) -> bool:
        return len(p) >= 2

    def jdeep(p: tuple[object, ...], x: object) -> bool:
        return len(p) >= 2

    assert paths(tree.leaves_with_path(t, deep, is_leaf_takes_path=True)) == jpaths(
        jax.tree.leaves_with_path(t, jdeep, is_leaf_takes_path=True)
    )
    assert repr(tree.map_with_path(where, t, is_leaf=deep, is_leaf_takes_path=True)) == repr(
        jax.tree.map_with_path(jwhere, t, is_leaf=jdeep, is_leaf_takes_path=True)
    )


# --- prefixes: flatten_up_to, map over several trees -------------------------------------


def _grow(t: object, data: st.DataObject) -> object:
    """``t`` with some of its leaves replaced by generated subtrees: a tree
    that has ``t``'s structure as a prefix."""
    return jax.tree.map(lambda x: data.draw(st.sampled_from([x, [x, 1], {"a": x}, None, NT(x, ())])), t)


@given(TREES, st.data())
def test_flatten_up_to_a_prefix_matches_jax(t: object, data: st.DataObject) -> None:
    bigger = _grow(t, data)
    treedef, jtreedef = tree.structure(t), jstructure(t)
    assert repr(treedef.flatten_up_to(bigger)) == repr(jtreedef.flatten_up_to(bigger))

    def pair(a: object, b: object) -> object:
        return (a, b)

    assert repr(tree.map(pair, t, bigger)) == repr(jax.tree.map(pair, t, bigger))
    assert repr(tree_util.tree_map(pair, t, bigger)) == repr(jtu.tree_map(pair, t, bigger))


@given(TREES, TREES)
def test_flatten_up_to_another_tree_raises_where_jax_does(t: object, other: object) -> None:
    treedef, jtreedef = tree.structure(t), jstructure(t)
    try:
        want = jtreedef.flatten_up_to(other)
    except ValueError:
        with pytest.raises(ValueError):
            treedef.flatten_up_to(other)
        with pytest.raises(TreeError, match="tree structures differ"):
            tree.map(lambda a, b: a, t, other)
        return
    assert repr(treedef.flatten_up_to(other)) == repr(want)
    assert repr(tree.map(lambda a, b: (a, b), t, other)) == repr(jax.tree.map(lambda a, b: (a, b), t, other))


def test_flatten_up_to_errors_say_where() -> None:
    treedef = tree.structure({"a": 1, "b": (2, 3)})
    assert treedef.flatten_up_to({"a": [5, 6], "b": (7, 8)}) == [[5, 6], 7, 8]
    with pytest.raises(ValueError, match=r"at tree\['b'\]: the tree has a list where the treedef has a tuple"):
        treedef.flatten_up_to({"a": 1, "b": [2, 3]})
    with pytest.raises(ValueError, match=r"the tree has a dict with keys \('a', 'c'\) where the treedef's has keys"):
        treedef.flatten_up_to({"a": 1, "c": (2, 3)})
    with pytest.raises(ValueError, match=r"at tree\['b'\]: the tree has a tuple of 1 children where the treedef's has 2"):
        treedef.flatten_up_to({"a": 1, "b": (2,)})
    with pytest.raises(ValueError, match="the tree has a list where the treedef has a dict"):
        treedef.flatten_up_to([1, 2])
    with pytest.raises(ValueError, match=r"at tree\[1\]: the tree has a leaf of type int where the treedef has None"):
        tree.structure((1, None)).flatten_up_to((1, 2))
    with pytest.raises(ValueError, match="has 3 leaves, got 2"):
        treedef.unflatten([1, 2])
    with pytest.raises(ValueError, match=r"tree structures differ: \{'a': \*\} and \{'b': \*\}"):
        tree.map(lambda a, b: a, {"a": 1}, {"b": 1})


# --- TreeDef's text, compose, treedef_tuple ----------------------------------------------


def test_treedef_repr_is_jaxs() -> None:
    for t in [
        1,
        None,
        (),
        [],
        {},
        (1,),
        {"a": 1, "b": (2, 3)},
        [1, None],
        NT(1, (2,)),
        Node("k", (1, [2])),
        {"x": {"y": [NT(1, None)]}},
    ]:
        assert repr(tree.structure(t)) == repr(jax.tree.structure(t))
    assert repr(tree.structure({"a": 1, "b": (2, 3)})) == "PyTreeDef({'a': *, 'b': (*, *)})"
    assert repr(tree.structure(NT(1, 2))) == "PyTreeDef(CustomNode(namedtuple[NT], [*, *]))"
    assert str(tree.structure({"a": 1, "b": (2, 3)})) == "{'a': *, 'b': (*, *)}"  # str: the bare shape


@given(TREES, TREES)
def test_compose_and_treedef_tuple_match_jax(t: object, u: object) -> None:
    d, e = tree.structure(t), tree.structure(u)
    jd, je = jstructure(t), jstructure(u)
    assert repr(d.compose(e)) == repr(jd.compose(je))
    assert d.compose(e).num_leaves == d.num_leaves * e.num_leaves
    assert repr(tree_util.treedef_tuple([d, e])) == repr(jtu.treedef_tuple([jd, je]))
    assert tree_util.treedef_tuple([d, e]) == tree.structure((t, u))


def test_children_is_a_tuple_and_a_method() -> None:
    d = tree.structure(([1], {"a": 2}))
    assert d.children[0] == tree.structure([1])  # indexed, as the rest of typedax does
    kids = d.children()
    assert_type(kids, list[TreeDef])
    assert kids == [tree.structure([1]), tree.structure({"a": 2})]


# --- transpose -----------------------------------------------------------------------------


@given(TREES, TREES, st.booleans())
def test_transpose_matches_jax(outer: object, inner: object, infer: bool) -> None:
    o, i = tree.structure(outer), tree.structure(inner)
    count = iter(range(10**6))
    nested = tree.map(lambda _: tree.map(lambda _: next(count), inner), outer)
    got = tree.transpose(o, None if infer and o.num_leaves else i, nested)
    if o.num_leaves:
        want = jax.tree.transpose(jax.tree.structure(outer), jax.tree.structure(inner), nested)
        assert repr(got) == repr(want)
    else:  # JAX raises (too few leaves); typedax gives an empty outer tree at each inner leaf
        assert repr(got) == repr(tree.map(lambda _: tree.unflatten(o, []), inner))
    assert repr(tree_util.tree_transpose(o, i, nested)) == repr(got)


def test_transpose_of_a_mismatched_tree() -> None:
    outer, inner = tree.structure((0, 0)), tree.structure([0, 0, 0])
    with pytest.raises(TypeError, match="the subtree at leaf 0 of outer_treedef"):
        tree.transpose(outer, inner, ([1, 2, 3, 4], [5, 6]))  # 6 leaves (JAX goes on), not 2 lists of 3
    with pytest.raises(TypeError, match=r"outer_treedef \(\*, \*\) is not the tree's outer structure"):
        tree.transpose(outer, inner, [[1, 2, 3], [4, 5, 6]])
    with pytest.raises(TypeError, match="has no leaves"):
        tree.transpose(tree.structure(()), None, ())


# --- Partial --------------------------------------------------------------------------------


def scale_add(x: float, scale: float, *, shift: float) -> float:
    return x * scale + shift


def scale_add_arrays(x: tdx.Array, scale: tdx.Array, *, shift: tdx.Array) -> tdx.Array:
    return x * scale + shift


def test_partial_is_a_pytree_as_in_jax() -> None:
    p = Partial(scale_add, 2.0, shift=1.0)
    jp = jtu.Partial(scale_add, 2.0, shift=1.0)  # type: ignore[no-untyped-call]  # JAX's is untyped
    assert repr(tree.leaves(p)) == repr(jax.tree.leaves(jp)) == "[2.0, 1.0]"
    assert paths(tree.leaves_with_path(p)) == jpaths(jax.tree.leaves_with_path(jp))
    assert repr(tree.structure(p)).replace("typedax.tree_util", "jax") == repr(jax.tree.structure(jp)).replace(
        "jax._src.tree_util", "jax"
    )
    q = tree.map(lambda v: v * 10, p)
    assert type(q) is Partial
    assert q.func is scale_add and q.args == (20.0,) and q.keywords == {"shift": 10.0}
    assert q(1.0) == 30.0
    assert tree.structure(Partial(scale_add, 1.0)) != tree.structure(Partial(max, 1.0))  # the function is static


def test_partial_of_a_partial_keeps_the_inner_arguments_static() -> None:
    inner = functools.partial(scale_add, shift=5.0)
    p = Partial(inner, 2.0)
    jp = jtu.Partial(inner, 2.0)  # type: ignore[no-untyped-call]  # JAX's is untyped
    assert tree.leaves(p) == jax.tree.leaves(jp) == [2.0]
    assert p(3.0) == jp(3.0) == 11.0
    assert tree.map(lambda v: v, p)(3.0) == 11.0


def test_partial_through_jit_and_vmap() -> None:
    traces = 0

    @tdx.jit
    def call(f: Partial[tdx.Array], x: tdx.Array) -> tdx.Array:
        nonlocal traces
        traces += 1
        return f(x)

    add_one = Partial(tnp.add, tnp.asarray(1.0))
    assert float(call(add_one, tnp.asarray(2.0))) == 3.0
    assert float(call(Partial(tnp.add, tnp.asarray(5.0)), tnp.asarray(2.0))) == 7.0  # a new leaf, same trace
    assert traces == 1
    assert float(call(Partial(tnp.multiply, tnp.asarray(3.0)), tnp.asarray(2.0))) == 6.0  # a new function
    assert traces == 2
    scaled = Partial(scale_add_arrays, tnp.asarray(2.0), shift=tnp.asarray(1.0))
    assert float(call(scaled, tnp.asarray(4.0))) == 9.0

    # vmap over the Partial's arguments, and over x with the Partial unmapped
    got = tdx.vmap(lambda f, x: f(x))(Partial(tnp.add, tnp.arange(3.0)), tnp.arange(3.0))
    assert got.tolist() == [0.0, 2.0, 4.0]
    got = tdx.vmap(call, in_axes=(None, 0))(add_one, tnp.arange(3.0))
    assert got.tolist() == [1.0, 2.0, 3.0]

    # a Partial out of jit
    made = tdx.jit(lambda s: Partial(scale_add_arrays, s, shift=tnp.asarray(0.5)))(tnp.asarray(3.0))
    assert isinstance(made, Partial)
    assert made.func is scale_add_arrays
    assert float(made(tnp.asarray(2.0))) == 6.5


# --- static types --------------------------------------------------------------------------


def test_static_types() -> None:
    t = {"a": 1, "b": [2, 3]}
    assert_type(tree.map(lambda x: x, t, is_leaf=is_none), dict[str, object])
    assert_type(tree.reduce(lambda n, _: n + 1, t, 0), int)
    assert_type(tree.all(t), bool)
    assert_type(tree.leaves_with_path(t), list[tuple[KeyPath, object]])
    assert_type(tree.flatten_with_path(t), tuple[list[tuple[KeyPath, object]], TreeDef])
    assert_type(tree.structure(t).flatten_up_to(t), list[object])
    assert_type(tree.structure(t).num_nodes, int)
    assert_type(Partial(scale_add_arrays, tnp.asarray(1.0), shift=tnp.asarray(0.0)), Partial[tdx.Array])
