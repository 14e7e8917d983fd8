"""Pytrees: nested containers of arrays, flattened to a list of leaves and a
``TreeDef`` that rebuilds them.

Tuples, lists, dicts (keys sorted, as JAX does), ``OrderedDict`` (in its
order) and ``defaultdict`` (keys sorted, its ``default_factory`` kept),
``None``, namedtuples and dataclasses work out of the box; other container
types join with ``register_node``. Everything else is a leaf (subclasses of
these types too, as in JAX).

The functions are ``jax.tree``'s, with its signatures: ``flatten``,
``unflatten``, ``leaves``, ``structure``, ``map`` (further trees need only have
the first tree's structure as a prefix), ``reduce``, ``all``, ``transpose``,
and ``flatten_with_path``, ``leaves_with_path``, ``map_with_path`` (key paths
of ``SequenceKey``, ``DictKey``, ``GetAttrKey``, ``FlattenedIndexKey``,
printed by ``keystr``). ``TreeDef`` is JAX's ``PyTreeDef``: ``unflatten``,
``flatten_up_to``, ``compose``, ``num_leaves``, ``num_nodes``, ``children()``,
and JAX's ``repr``.

``typedax.tree_util`` (JAX's ``jax.tree_util`` names) is built on this
module's registry, node classification and key paths, not a copy of them.
"""

from __future__ import annotations

import builtins
import collections
import dataclasses
import enum
import sys
import types
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, Literal, TypeAlias, TypeVar, cast, overload

from .core.errors import TreeError as TreeError
from .core.errors import TreeTransposeError

__all__ = [
    "TreeDef",
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "register_node",
    "static",
    "structure",
    "transpose",
    "unflatten",
]

T = TypeVar("T")
N = TypeVar("N")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class _NodeKind(Generic[N]):
    flatten: Callable[[N], tuple[Iterable[object], Hashable]]
    unflatten: Callable[[Hashable, list[object]], N]
    # (key, child) pairs and the aux data, for key paths (typedax.tree_util);
    # None: the children are keyed by their index
    flatten_with_keys: Callable[[N], tuple[Iterable[tuple[Hashable, object]], Hashable]] | None = None


_REGISTRY: dict[type, _NodeKind[object]] = {}


def register_node(
    node_type: type[N],
    flatten: Callable[[N], tuple[Iterable[object], Hashable]],
    unflatten: Callable[[Hashable, list[object]], N],
    flatten_with_keys: Callable[[N], tuple[Iterable[tuple[Hashable, object]], Hashable]] | None = None,
) -> None:
    """Make ``node_type`` a pytree node: ``flatten`` returns (children, aux
    data), ``unflatten(aux, children)`` rebuilds the node. ``flatten_with_keys``
    (optional) returns ((key, child) pairs, aux data), the same children in the
    same order: the keys name the children in key paths
    (``typedax.tree_util.tree_flatten_with_path``)."""
    if node_type in _REGISTRY or node_type in _BUILTIN:
        raise TreeError(f"{node_type.__name__} is already a pytree node type")
    _REGISTRY[node_type] = _NodeKind(flatten, unflatten, flatten_with_keys)  # type: ignore[arg-type]  # N erased in the registry
    _KINDS.clear()  # the type may have been classified (as a leaf, say) before
    _KINDS.update(_BUILTIN)


_LEAF = 0
_NONE = 1
_TUPLE = 2
_LIST = 3
_DICT = 4
_NAMEDTUPLE = 5
_DATACLASS = 6
_CUSTOM = 7
_BUILTIN: dict[type, int] = {tuple: _TUPLE, list: _LIST, dict: _DICT, type(None): _NONE}


class _ChildDefs(tuple["TreeDef", ...]):
    """A treedef's children: a tuple of ``TreeDef`` (``td.children[0]``), and
    callable as JAX's ``PyTreeDef.children()``, which returns them as a list."""

    __slots__ = ()

    def __call__(self) -> list[TreeDef]:
        return list(self)


@dataclass(frozen=True, slots=True)
class TreeDef:
    """The shape of a pytree, without its leaves (JAX's ``PyTreeDef``).
    Compared by value. ``str`` is the bare shape, ``(*, [*, None])``;
    ``repr`` is JAX's, ``PyTreeDef((*, [*, None]))``."""

    kind: int
    node_type: type | None
    aux: Hashable
    subtrees: tuple[TreeDef, ...]
    num_leaves: int

    def __hash__(self) -> int:
        # aux data need not be hashable (JAX compares it by ==, and so does
        # jit's trace cache): such aux hashes by its type, which == respects
        try:
            aux_hash = hash(self.aux)
        except TypeError:
            aux_hash = hash(type(self.aux))
        return hash((self.kind, self.node_type, aux_hash, self.subtrees))

    @property
    def children(self) -> _ChildDefs:
        """The structures of this node's children: a tuple, which called
        (``td.children()``, as in JAX) gives them as a list."""
        return _ChildDefs(self.subtrees)

    @property
    def num_nodes(self) -> int:
        """How many nodes the structure has, leaves and ``None`` included."""
        return 1 + sum(c.num_nodes for c in self.subtrees)

    def unflatten(self, leaves: Iterable[object]) -> object:
        """Rebuild a tree of this structure from ``leaves``
        (``typedax.tree.unflatten(self, leaves)``)."""
        return unflatten(self, leaves)

    def flatten_up_to(self, tree: object) -> list[object]:
        """The subtrees of ``tree`` at this structure's leaves, in order;
        ``tree``'s structure must have this one as a prefix (else a
        ``TreeError``, a ``ValueError``, saying where they differ)."""
        out: list[object] = []
        _up_to(self, tree, out, "the tree", "the treedef")
        return out

    def compose(self, inner: TreeDef) -> TreeDef:
        """This structure with ``inner`` at each of its leaves."""
        if self.kind == _LEAF:
            return inner
        if self.kind == _NONE:
            return self
        t = self.node_type
        assert t is not None
        kids = tuple(c.compose(inner) for c in self.subtrees)
        return _treedef(self.kind, t, self.aux, kids, sum(c.num_leaves for c in kids))

    def __str__(self) -> str:
        if self.kind == _LEAF:
            return "*"
        if self.kind == _NONE:
            return "None"
        inner = ", ".join(str(c) for c in self.subtrees)
        if self.kind == _TUPLE:
            return f"({inner}{',' if len(self.subtrees) == 1 else ''})"
        if self.kind == _LIST:
            return f"[{inner}]"
        if self.kind == _DICT:
            keys: tuple[object, ...] = self.aux if isinstance(self.aux, tuple) else ()
            return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(keys, self.subtrees)) + "}"
        name = self.node_type.__name__ if self.node_type is not None else "?"
        return f"{name}({inner})"

    def __repr__(self) -> str:
        return f"PyTreeDef({self._jax_text()})"

    def _jax_text(self) -> str:
        """The structure as JAX prints it: containers as ``str`` does, other
        nodes as ``CustomNode(namedtuple[P], [...])`` or ``CustomNode(C[aux], [...])``."""
        k = self.kind
        inner = ", ".join(c._jax_text() for c in self.subtrees)
        if k == _LEAF:
            return "*"
        if k == _NONE:
            return "None"
        if k == _TUPLE:
            return f"({inner}{',' if len(self.subtrees) == 1 else ''})"
        if k == _LIST:
            return f"[{inner}]"
        if k == _DICT:
            keys: tuple[object, ...] = self.aux if isinstance(self.aux, tuple) else ()
            return "{" + ", ".join(f"{key!r}: {c._jax_text()}" for key, c in zip(keys, self.subtrees)) + "}"
        name = self.node_type.__name__ if self.node_type is not None else "?"
        if k == _NAMEDTUPLE:
            return f"CustomNode(namedtuple[{name}], [{inner}])"
        # a dataclass that is a node unregistered has all its fields as data:
        # JAX's register_dataclass gives such a one no meta data, ()
        aux = () if k == _DATACLASS else self.aux
        return f"CustomNode({name}[{aux}], [{inner}])"


LEAF = TreeDef(_LEAF, None, None, (), 1)
_NONE_DEF = TreeDef(_NONE, None, None, (), 0)

# ``TreeDef(...)``, faster: a frozen dataclass's ``__init__`` assigns through
# ``object.__setattr__``; this sets the slots directly (there is no validation).
_new = object.__new__
_TD = TreeDef.__dict__
_set_kind: Callable[[TreeDef, int], None] = _TD["kind"].__set__
_set_node_type: Callable[[TreeDef, type | None], None] = _TD["node_type"].__set__
_set_aux: Callable[[TreeDef, Hashable], None] = _TD["aux"].__set__
_set_subtrees: Callable[[TreeDef, tuple[TreeDef, ...]], None] = _TD["subtrees"].__set__
_set_num_leaves: Callable[[TreeDef, int], None] = _TD["num_leaves"].__set__


def _treedef(
    kind: int, node_type: type, aux: Hashable, subtrees: tuple[TreeDef, ...], num_leaves: int
) -> TreeDef:
    d: TreeDef = _new(TreeDef)
    _set_kind(d, kind)
    _set_node_type(d, node_type)
    _set_aux(d, aux)
    _set_subtrees(d, subtrees)
    _set_num_leaves(d, num_leaves)
    return d


# The kind of each type seen so far (a type's kind never changes, except by
# ``register_node``, which resets this).
_KINDS: dict[type, int] = dict(_BUILTIN)


def _kind_of_type(t: type) -> int:
    k = _KINDS.get(t)
    if k is None:
        if t in _REGISTRY:
            k = _CUSTOM
        elif issubclass(t, tuple) and hasattr(t, "_fields"):
            k = _NAMEDTUPLE
        elif dataclasses.is_dataclass(t) and not issubclass(t, type):
            k = _DATACLASS  # an instance of a dataclass (not a class object)
            not_init = [f.name for f in dataclasses.fields(t) if not f.init]
            if not_init:
                raise TreeError(
                    f"dataclass {t.__name__} has field(s) {', '.join(not_init)} with init=False, "
                    "so it cannot be rebuilt through its constructor: register it with "
                    "typedax.tree.register_node (saying how to flatten and rebuild it)"
                )
        else:
            k = _LEAF
        _KINDS[t] = k
    return k


def _kind_of(x: object) -> int:
    return _kind_of_type(type(x))


def _children(x: object, kind: int) -> tuple[list[object], Hashable]:
    if kind == _TUPLE or kind == _LIST:
        return list(x), None  # type: ignore[call-overload]  # kind says x is a tuple or list
    if kind == _DICT:
        assert isinstance(x, dict)
        keys = _sorted_keys(x)
        return [x[k] for k in keys], keys
    if kind == _NAMEDTUPLE:
        assert isinstance(x, tuple)
        return list(x), None
    if kind == _DATACLASS:
        names = tuple(f.name for f in dataclasses.fields(x))  # type: ignore[arg-type]  # kind says x is a dataclass instance
        return [getattr(x, n) for n in names], names
    node = type(x).__name__
    try:
        children, aux = _REGISTRY[type(x)].flatten(x)
    except (TypeError, ValueError) as e:
        raise TreeError(
            f"the flatten function registered for {node} must return (children, aux_data), "
            f"it failed or returned something else: {e}"
        ) from None
    try:
        return list(children), aux
    except TypeError:
        raise TreeError(
            f"the flatten function registered for {node} returned children of type "
            f"{type(children).__name__}, which is not iterable"
        ) from None


def _sorted_keys(x: dict[Hashable, object]) -> tuple[Hashable, ...]:
    """A dict's keys in the order of its children: sorted, as JAX's."""
    try:
        return tuple(sorted(x))  # type: ignore[type-var]  # unsortable keys: the TypeError below
    except TypeError:
        raise TreeError(
            f"a {type(x).__name__} whose keys cannot be sorted "
            f"({', '.join(sorted({type(k).__name__ for k in x}))}) "
            "is not a pytree node: its leaves would have no order"
        ) from None


# OrderedDict and defaultdict are nodes as JAX registers them (custom nodes,
# so their PyTreeDef prints as JAX's): an OrderedDict keeps its insertion
# order (its node data the keys in that order); a defaultdict sorts its keys
# as a dict does and keeps its default_factory (node data (factory, keys)).
# Both are keyed by DictKey, and unflatten rebuilds the same type.
def _ordered_dict_keyed(
    x: collections.OrderedDict[Hashable, object],
) -> tuple[list[tuple[Hashable, object]], Hashable]:
    return [(DictKey(k), v) for k, v in x.items()], tuple(x)


def _default_dict_keyed(
    x: collections.defaultdict[Hashable, object],
) -> tuple[list[tuple[Hashable, object]], Hashable]:
    keys = _sorted_keys(x)
    return [(DictKey(k), x[k]) for k in keys], (x.default_factory, keys)


def _ordered_dict_flatten(x: collections.OrderedDict[Hashable, object]) -> tuple[list[object], Hashable]:
    return list(x.values()), tuple(x)


def _default_dict_flatten(x: collections.defaultdict[Hashable, object]) -> tuple[list[object], Hashable]:
    keys = _sorted_keys(x)
    return [x[k] for k in keys], (x.default_factory, keys)


def _ordered_dict_unflatten(aux: Hashable, kids: list[object]) -> collections.OrderedDict[Hashable, object]:
    keys = cast("tuple[Hashable, ...]", aux)  # _ordered_dict_flatten's
    return collections.OrderedDict(zip(keys, kids))


def _default_dict_unflatten(aux: Hashable, kids: list[object]) -> collections.defaultdict[Hashable, object]:
    factory, keys = cast("tuple[Callable[[], object] | None, tuple[Hashable, ...]]", aux)  # _default_dict_flatten's
    return collections.defaultdict(factory, zip(keys, kids))


def _flatten(x: object, out: list[object], is_leaf: Callable[[object], bool] | None) -> TreeDef:
    if is_leaf is not None and is_leaf(x):
        out.append(x)
        return LEAF
    t = type(x)
    kind = _KINDS.get(t)
    if kind is None:
        kind = _kind_of_type(t)
    if kind == _LEAF:
        out.append(x)
        return LEAF
    if kind == _NONE:
        return _NONE_DEF
    aux: Hashable = None
    if kind == _TUPLE or kind == _LIST:
        kids = cast("Iterable[object]", x)
    else:
        kids, aux = _children(x, kind)
    defs: list[TreeDef] = []
    n = 0
    for c in kids:
        if is_leaf is None and _KINDS.get(type(c)) == _LEAF:  # a leaf, without recursing
            out.append(c)
            defs.append(LEAF)
            n += 1
        else:
            try:
                d = _flatten(c, out, is_leaf)
            except TreeError as e:
                raise _at(e, _key_str(kind, aux, len(defs))) from None
            defs.append(d)
            n += d.num_leaves
    return _treedef(kind, t, aux, tuple(defs), n)


def _key_str(kind: int, aux: Hashable, i: int) -> str:
    """The path step to child ``i``: ``[0]``, ``['a']`` or ``.name``."""
    if kind == _DICT and isinstance(aux, tuple):
        return f"[{aux[i]!r}]"
    if kind == _DATACLASS and isinstance(aux, tuple):
        return f".{aux[i]}"
    return f"[{i}]"


def _at(e: TreeError, step: str) -> TreeError:
    """``e`` with one more step on the path where it happened."""
    return TreeError(e.message, step + e.path)


def flatten(
    tree: object, is_leaf: Callable[[object], bool] | None = None
) -> tuple[list[object], TreeDef]:
    """The leaves of ``tree`` in order, and its structure."""
    out: list[object] = []
    try:
        treedef = _flatten(tree, out, is_leaf)
    except RecursionError as e:
        raise _too_deep(tree, lambda _, x: is_leaf is not None and is_leaf(x), e) from None
    return out, treedef


def leaves(tree: object, is_leaf: Callable[[object], bool] | None = None) -> list[object]:
    """The leaves of ``tree`` in order (``is_leaf`` as in ``flatten``)."""
    return flatten(tree, is_leaf)[0]


def structure(tree: object, is_leaf: Callable[[object], bool] | None = None) -> TreeDef:
    """The structure of ``tree`` (``is_leaf`` as in ``flatten``)."""
    return flatten(tree, is_leaf)[1]


def _build(treedef: TreeDef, it: Iterator[object]) -> object:
    k = treedef.kind
    if k == _LEAF:
        return next(it)
    if k == _NONE:
        return None
    kids = [_build(c, it) for c in treedef.subtrees]
    t = treedef.node_type
    assert t is not None
    if k == _TUPLE:
        return tuple(kids)
    if k == _LIST:
        return kids
    if k == _DICT:
        keys = treedef.aux
        assert isinstance(keys, tuple)
        return dict(zip(keys, kids))
    if k == _NAMEDTUPLE:
        return t(*kids)
    if k == _DATACLASS:
        names = treedef.aux
        assert isinstance(names, tuple)
        init = {n: v for n, v in zip(names, kids)}
        return t(**init)
    return _REGISTRY[t].unflatten(treedef.aux, kids)


def unflatten(treedef: TreeDef, leaves: Iterable[object]) -> object:
    """Rebuild a tree of ``treedef``'s structure from ``leaves``."""
    items = list(leaves)
    if len(items) != treedef.num_leaves:
        raise TreeError(f"tree structure {treedef} has {treedef.num_leaves} leaves, got {len(items)}")
    return _build(treedef, iter(items))


def map(  # noqa: A001 - JAX's name
    f: Callable[..., object], tree: T, *rest: T, is_leaf: Callable[[object], bool] | None = None
) -> T:
    """Apply ``f`` to the leaves of ``tree`` and the matching subtrees of
    ``rest``: each of those must have ``tree``'s structure as a prefix, and a
    leaf of ``tree`` matches a whole subtree of theirs (as in JAX). Typed as
    keeping the tree's type: the structure is kept, and ``f`` is expected to
    map arrays to arrays (as a parameter update does)."""
    flat, treedef = flatten(tree, is_leaf)
    others = [_leaves_matching(treedef, r) for r in rest]
    return cast(T, unflatten(treedef, [f(*xs) for xs in zip(flat, *others)]))


def _leaves_matching(treedef: TreeDef, other: object) -> list[object]:
    """The subtrees of ``other`` at ``treedef``'s leaves (its leaves, when the
    structures are equal), or a ``TreeError`` saying where they differ."""
    try:
        flat, odef = flatten(other)
    except TreeError:
        odef = None  # unflattenable below a leaf of treedef, perhaps: that is allowed
    else:
        if odef == treedef:
            return flat
    out: list[object] = []
    try:
        _up_to(treedef, other, out, "the other tree", "the first tree")
    except TreeError as e:
        raise TreeError(f"tree structures differ: {treedef} and {odef}: {e}") from None
    return out


# --- keys ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SequenceKey:
    """The position of a child of a tuple or list: ``[0]``."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx}]"


@dataclass(frozen=True, slots=True)
class DictKey:
    """The key of a child of a dict: ``['a']``."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclass(frozen=True, slots=True)
class GetAttrKey:
    """The attribute holding a child (namedtuples, dataclasses): ``.name``."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclass(frozen=True, slots=True)
class FlattenedIndexKey:
    """The position of a child among a custom node's flattened children."""

    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


KeyEntry: TypeAlias = SequenceKey | DictKey | GetAttrKey | FlattenedIndexKey

_REGISTRY[collections.OrderedDict] = _NodeKind(
    _ordered_dict_flatten, _ordered_dict_unflatten, _ordered_dict_keyed  # type: ignore[arg-type]  # N erased in the registry
)
_REGISTRY[collections.defaultdict] = _NodeKind(
    _default_dict_flatten, _default_dict_unflatten, _default_dict_keyed  # type: ignore[arg-type]  # as above
)
KeyPath: TypeAlias = tuple[KeyEntry, ...]


def keystr(keys: Iterable[object], *, simple: bool = False, separator: str = "") -> str:
    """A key path as text: ``[0]['a'].x``; with ``simple=True`` only the keys
    themselves (``0``, ``a``, ``x``), joined by ``separator``."""
    return separator.join(_simple_str(k) if simple else str(k) for k in keys)


def _simple_str(key: object) -> str:
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, DictKey | FlattenedIndexKey):
        return str(key.key)
    if isinstance(key, GetAttrKey):
        return key.name
    return str(key)


def _step(key: object) -> str:
    """A key as a step of an error's path (``[2]``, not ``[<flat index 2>]``)."""
    return f"[{key.key}]" if isinstance(key, FlattenedIndexKey) else str(key)


def _what(x: object) -> str:
    if x is None:
        return "None"
    if _kind_of(x) == _LEAF:
        return f"a leaf of type {type(x).__name__}"
    return f"a {type(x).__name__}"


def _same_aux(a: object, b: object) -> bool:
    try:
        return a is b or bool(a == b)
    except (TypeError, ValueError):  # == that is elementwise, or ambiguous
        return False


def _up_to(
    treedef: TreeDef, x: object, out: list[object], which: str, ref: str = "the first tree"
) -> None:
    """Append to ``out`` the subtrees of ``x`` at the leaves of ``treedef``,
    which must be a prefix of ``x``'s structure (JAX's ``flatten_up_to``);
    ``which`` and ``ref`` name ``x`` and ``treedef``'s tree in errors."""
    k = treedef.kind
    if k == _LEAF:
        out.append(x)
        return
    if k == _NONE:
        if x is not None:
            raise TreeError(f"{which} has {_what(x)} where {ref} has None")
        return
    t = treedef.node_type
    assert t is not None
    if type(x) is not t:
        raise TreeError(f"{which} has {_what(x)} where {ref} has a {t.__name__}")
    keys, kids, aux = _keyed_children(x, k)
    if k == _DICT and not _same_aux(aux, treedef.aux):
        raise TreeError(f"{which} has a dict with keys {aux!r} where {ref}'s has keys {treedef.aux!r}")
    if len(kids) != len(treedef.subtrees):
        raise TreeError(
            f"{which} has a {t.__name__} of {len(kids)} children where {ref}'s has "
            f"{len(treedef.subtrees)}"
        )
    if not _same_aux(aux, treedef.aux):
        raise TreeError(
            f"{which} has a {t.__name__} with node data {aux!r} where {ref}'s has {treedef.aux!r}"
        )
    for key, c, d in zip(keys, kids, treedef.subtrees):
        try:
            _up_to(d, c, out, which, ref)
        except TreeError as e:
            raise _at(e, _step(key)) from None


def _leaves_up_to(treedef: TreeDef, trees: tuple[object, ...], fn: str) -> list[list[object]]:
    result = []
    for i, r in enumerate(trees):
        out: list[object] = []
        _up_to(treedef, r, out, f"{fn}'s tree {i + 2}")
        result.append(out)
    return result


# --- key paths (typedax.tree_util's keys, defined here for jax.tree's *_with_path) ---


def _keyed_children(x: object, kind: int) -> tuple[list[KeyEntry], list[object], Hashable]:
    if kind == _CUSTOM:
        node = _REGISTRY[type(x)]
        if node.flatten_with_keys is not None:
            return _custom_keyed(x, node.flatten_with_keys)
    kids, aux = _children(x, kind)
    keys: list[KeyEntry]
    if kind == _DICT:
        assert isinstance(aux, tuple)
        keys = [DictKey(k) for k in aux]
    elif kind == _DATACLASS:
        assert isinstance(aux, tuple)
        keys = [GetAttrKey(n) for n in aux]
    elif kind == _NAMEDTUPLE:
        fields: tuple[str, ...] = getattr(type(x), "_fields")
        keys = [GetAttrKey(n) for n in fields]
    elif kind == _CUSTOM:
        keys = [FlattenedIndexKey(i) for i in range(len(kids))]
    else:
        keys = [SequenceKey(i) for i in range(len(kids))]
    return keys, kids, aux


def _custom_keyed(
    x: object, flatten_with_keys: Callable[[object], tuple[Iterable[tuple[Hashable, object]], Hashable]]
) -> tuple[list[KeyEntry], list[object], Hashable]:
    node = type(x).__name__
    try:
        pairs, aux = flatten_with_keys(x)
    except (TypeError, ValueError) as e:
        raise TreeError(
            f"the flatten_with_keys function registered for {node} must return "
            f"((key, child) pairs, aux_data), it failed or returned something else: {e}"
        ) from None
    keys: list[KeyEntry] = []
    kids: list[object] = []
    try:
        for key, child in pairs:
            keys.append(cast(KeyEntry, key))  # a user's key: any hashable object, as in JAX
            kids.append(child)
    except (TypeError, ValueError):
        raise TreeError(
            f"the flatten_with_keys function registered for {node} returned "
            f"{type(pairs).__name__} as children, which is not an iterable of (key, child) pairs"
        ) from None
    return keys, kids, aux


def _flatten_with_path(
    x: object,
    path: KeyPath,
    out: list[tuple[KeyPath, object]],
    is_leaf: Callable[[KeyPath, object], bool] | None,
) -> TreeDef:
    """Append ``x``'s (key path, leaf) pairs to ``out``; its structure."""
    try:
        return _flatten_with_path_rec(x, path, out, is_leaf)
    except RecursionError as e:
        raise _too_deep(x, is_leaf, e) from None


def _flatten_with_path_rec(
    x: object,
    path: KeyPath,
    out: list[tuple[KeyPath, object]],
    is_leaf: Callable[[KeyPath, object], bool] | None,
) -> TreeDef:
    if is_leaf is not None and is_leaf(path, x):
        out.append((path, x))
        return LEAF
    kind = _kind_of(x)
    if kind == _LEAF:
        out.append((path, x))
        return LEAF
    if kind == _NONE:
        return _NONE_DEF
    keys, kids, aux = _keyed_children(x, kind)
    defs: list[TreeDef] = []
    n = 0
    for key, c in zip(keys, kids):
        try:
            d = _flatten_with_path_rec(c, (*path, key), out, is_leaf)
        except TreeError as e:
            raise _at(e, _step(key)) from None
        defs.append(d)
        n += d.num_leaves
    return _treedef(kind, type(x), aux, tuple(defs), n)


def _too_deep(
    tree: object, is_leaf: Callable[[KeyPath, object], bool] | None, error: RecursionError
) -> TreeError | RecursionError:
    """Why flattening ``tree`` ran out of Python's recursion limit: a container
    that contains itself, or nesting deeper than the limit (JAX's C++ flatten
    stops at the same limit, with a ``RecursionError``). Found by walking the
    tree again without recursion, in flatten's order, down the same path;
    ``error`` itself when neither is the cause (a recursion in ``is_leaf`` or
    a registered flatten function)."""
    limit = sys.getrecursionlimit()
    # the levels flattening had room for: the limit less the frames below it
    frame: types.FrameType | None = sys._getframe()
    used = 0
    while frame is not None:
        frame, used = frame.f_back, used + 1
    room = max(limit - used, 1)
    ancestors: dict[int, int] = {}  # id of each container on the path -> the length of its path
    path: list[KeyEntry] = []  # the keys down to x
    stack: list[tuple[int, Iterator[tuple[KeyEntry, object]]]] = []
    x: object = tree

    def at(keys: list[KeyEntry]) -> str:
        return "".join(_step(k) for k in keys) or "the root"

    while True:
        kind = _kind_of(x)
        try:
            leaf = kind == _LEAF or kind == _NONE or (is_leaf is not None and is_leaf(tuple(path), x))
        except RecursionError:  # is_leaf's own recursion
            return error
        if leaf:
            if path:
                path.pop()  # back out of the leaf
        else:
            name = type(x).__name__
            if id(x) in ancestors:
                return TreeError(
                    f"cyclic tree: the {name} at {at(path[: ancestors[id(x)]])} contains itself "
                    f"(it is again at {at(path)}); a structure that contains itself is not a pytree"
                )
            if len(stack) >= room:
                return TreeError(
                    f"the tree is nested more than {room} containers deep (a {name} at that depth), "
                    f"beyond Python's recursion limit ({limit}), where JAX's flatten "
                    "stops too: flatten a shallower structure, or raise sys.setrecursionlimit"
                )
            keys, kids, _ = _keyed_children(x, kind)
            ancestors[id(x)] = len(path)
            stack.append((id(x), iter(zip(keys, kids))))
        while stack:
            node, children = stack[-1]
            step = next(children, None)
            if step is not None:
                path.append(step[0])
                x = step[1]
                break
            stack.pop()
            del ancestors[node]
            if path:
                path.pop()  # back out of the finished container
        else:
            return error


def _path_is_leaf(
    is_leaf: Callable[[object], bool] | Callable[[KeyPath, object], bool] | None, takes_path: bool
) -> Callable[[KeyPath, object], bool] | None:
    if is_leaf is None:
        return None
    if takes_path:
        return cast("Callable[[KeyPath, object], bool]", is_leaf)  # the overloads tie the two
    one = cast("Callable[[object], bool]", is_leaf)  # the overloads tie the two
    return lambda _, x: one(x)


def _map_with_path(
    f: Callable[..., object],
    tree: T,
    rest: tuple[T, ...],
    is_leaf: Callable[[KeyPath, object], bool] | None,
    name: str,
) -> T:
    pairs: list[tuple[KeyPath, object]] = []
    treedef = _flatten_with_path(tree, (), pairs, is_leaf)
    others = _leaves_up_to(treedef, rest, name)
    results = [f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)]
    return cast(T, unflatten(treedef, results))  # the structure is tree's, its leaves are f's


def _transpose(outer_treedef: TreeDef, inner_treedef: TreeDef | None, pytree_to_transpose: object, name: str) -> object:
    try:
        subtrees = outer_treedef.flatten_up_to(pytree_to_transpose)
    except TreeError as e:
        raise TreeTransposeError(f"{name}: outer_treedef {outer_treedef} is not the tree's outer structure: {e}") from None
    if inner_treedef is None:
        if not subtrees:
            raise TreeTransposeError(
                f"{name}: outer_treedef {outer_treedef} has no leaves, so there is no "
                "subtree to take inner_treedef from: pass it"
            )
        inner_treedef = structure(subtrees[0])
    columns: list[list[object]] = []
    for i, sub in enumerate(subtrees):
        flat, d = flatten(sub)
        if d != inner_treedef:
            raise TreeTransposeError(
                f"{name}: the subtree at leaf {i} of outer_treedef {outer_treedef} has "
                f"structure {d}, where inner_treedef is {inner_treedef}"
            )
        columns.append(flat)
    if columns:
        rows = [unflatten(outer_treedef, row) for row in zip(*columns)]
    else:  # an outer structure without leaves: each inner leaf gets an empty outer tree
        rows = [unflatten(outer_treedef, []) for _ in range(inner_treedef.num_leaves)]
    return unflatten(inner_treedef, rows)


# --- JAX's other jax.tree functions ------------------------------------------------


class _Unset(enum.Enum):
    UNSET = 0


@overload
def reduce(
    function: Callable[[R, object], R], tree: object, *, is_leaf: Callable[[object], bool] | None = None
) -> R: ...
@overload
def reduce(
    function: Callable[[R, object], R],
    tree: object,
    initializer: R,
    is_leaf: Callable[[object], bool] | None = None,
) -> R: ...
def reduce(
    function: Callable[[R, object], R],
    tree: object,
    initializer: R | _Unset = _Unset.UNSET,
    is_leaf: Callable[[object], bool] | None = None,
) -> R:
    """``function(function(initializer, leaf0), leaf1)...`` over the leaves of
    ``tree``; without ``initializer`` the first leaf starts (and a tree with
    no leaves is a ``TreeError``)."""
    return _reduce(function, tree, initializer, is_leaf, "reduce")


def _reduce(
    function: Callable[[R, object], R],
    tree: object,
    initializer: R | _Unset,
    is_leaf: Callable[[object], bool] | None,
    name: str,
) -> R:
    it = iter(flatten(tree, is_leaf)[0])
    acc: R
    if isinstance(initializer, _Unset):
        try:
            acc = cast(R, next(it))  # the first leaf starts the reduction, as in functools.reduce
        except StopIteration:
            raise TreeError(f"{name} of a tree with no leaves needs an initializer") from None
    else:
        acc = initializer
    for x in it:
        acc = function(acc, x)
    return acc


def broadcast(
    prefix_tree: object, full_tree: object, is_leaf: Callable[[object], bool] | None = None
) -> object:
    """``jax.tree.broadcast``: ``full_tree``'s structure with each leaf of
    ``prefix_tree`` (a prefix of it) repeated at every leaf of the subtree it
    stands for; ``is_leaf`` applies to ``prefix_tree``."""
    prefix_leaves, prefix_def = flatten(prefix_tree, is_leaf)
    subtrees = prefix_def.flatten_up_to(full_tree)
    out: list[object] = []
    for leaf, sub in zip(prefix_leaves, subtrees):
        out.extend([leaf] * structure(sub).num_leaves)
    return unflatten(structure(full_tree), out)


def reduce_associative(
    operation: Callable[[T, T], T], tree: object, *, identity: T | _Unset = _Unset.UNSET,
    is_leaf: Callable[[object], bool] | None = None,
) -> T:
    """``jax.tree.reduce_associative``: the leaves combined by the
    associative ``operation`` as a balanced tree of calls (JAX's order);
    ``identity`` for a tree without leaves, else a ``TypeError`` as JAX's."""
    return _parallel_reduce(cast(list[T], leaves(tree, is_leaf)), operation, identity)


def _parallel_reduce(seq: list[T], operation: Callable[[T, T], T], identity: T | _Unset) -> T:
    if not seq:
        if isinstance(identity, _Unset):
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    if len(seq) == 1:
        return seq[0]
    half = len(seq) // 2
    return operation(_parallel_reduce(seq[:half], operation, identity), _parallel_reduce(seq[half:], operation, identity))


def static(**kwargs: object) -> object:
    """``jax.tree.static``: ``dataclasses.field(**kwargs)`` marked static
    (``metadata={'static': True}``), the meta data of a dataclass registered
    with ``typedax.tree_util.register_dataclass``."""
    metadata = dict(cast("dict[str, object]", kwargs.pop("metadata", None) or {}))
    metadata["static"] = True
    return dataclasses.field(metadata=metadata, **kwargs)  # type: ignore[call-overload]  # dataclasses.field's keyword arguments, passed through


def all(tree: object, *, is_leaf: Callable[[object], bool] | None = None) -> bool:  # noqa: A001 - JAX's name
    """Whether every leaf of ``tree`` is true."""
    return builtins.all(flatten(tree, is_leaf)[0])


@overload
def flatten_with_path(
    tree: object,
    is_leaf: Callable[[object], bool] | None = None,
    is_leaf_takes_path: Literal[False] = False,
) -> tuple[list[tuple[KeyPath, object]], TreeDef]: ...
@overload
def flatten_with_path(
    tree: object,
    is_leaf: Callable[[KeyPath, object], bool] | None,
    is_leaf_takes_path: Literal[True],
) -> tuple[list[tuple[KeyPath, object]], TreeDef]: ...
def flatten_with_path(
    tree: object,
    is_leaf: Callable[[object], bool] | Callable[[KeyPath, object], bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> tuple[list[tuple[KeyPath, object]], TreeDef]:
    """The leaves of ``tree`` with the key path to each, and its structure
    (``typedax.tree_util.tree_flatten_with_path``)."""
    out: list[tuple[KeyPath, object]] = []
    treedef = _flatten_with_path(tree, (), out, _path_is_leaf(is_leaf, is_leaf_takes_path))
    return out, treedef


@overload
def leaves_with_path(
    tree: object,
    is_leaf: Callable[[object], bool] | None = None,
    is_leaf_takes_path: Literal[False] = False,
) -> list[tuple[KeyPath, object]]: ...
@overload
def leaves_with_path(
    tree: object,
    is_leaf: Callable[[KeyPath, object], bool] | None,
    is_leaf_takes_path: Literal[True],
) -> list[tuple[KeyPath, object]]: ...
def leaves_with_path(
    tree: object,
    is_leaf: Callable[[object], bool] | Callable[[KeyPath, object], bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> list[tuple[KeyPath, object]]:
    """The leaves of ``tree`` with the key path to each."""
    out: list[tuple[KeyPath, object]] = []
    _flatten_with_path(tree, (), out, _path_is_leaf(is_leaf, is_leaf_takes_path))
    return out


@overload
def map_with_path(
    f: Callable[..., object],
    tree: T,
    *rest: T,
    is_leaf: Callable[[object], bool] | None = None,
    is_leaf_takes_path: Literal[False] = False,
) -> T: ...
@overload
def map_with_path(
    f: Callable[..., object],
    tree: T,
    *rest: T,
    is_leaf: Callable[[KeyPath, object], bool] | None,
    is_leaf_takes_path: Literal[True],
) -> T: ...
def map_with_path(
    f: Callable[..., object],
    tree: T,
    *rest: T,
    is_leaf: Callable[[object], bool] | Callable[[KeyPath, object], bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> T:
    """``f(path, leaf, *matching subtrees of rest)`` at each leaf of ``tree``."""
    return _map_with_path(f, tree, rest, _path_is_leaf(is_leaf, is_leaf_takes_path), "map_with_path")


def transpose(outer_treedef: TreeDef, inner_treedef: TreeDef | None, pytree_to_transpose: object) -> object:
    """Turn a tree of structure ``outer_treedef`` whose subtrees have
    structure ``inner_treedef`` into a tree of structure ``inner_treedef``
    whose subtrees have ``outer_treedef``'s (a list of dicts into a dict of
    lists, say). ``inner_treedef=None``: the structure of the first subtree."""
    return _transpose(outer_treedef, inner_treedef, pytree_to_transpose, "transpose")
