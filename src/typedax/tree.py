"""Pytrees: nested containers of arrays, flattened to a list of leaves and a
``TreeDef`` that rebuilds them.

Tuples, lists, dicts (keys sorted, as JAX does), ``None``, namedtuples and
dataclasses work out of the box; other container types join with
``register_node``. Everything else is a leaf.

``typedax.tree_util`` (JAX's ``jax.tree_util`` names, key paths) is built on
this module's registry and node classification, not a copy of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from .core.errors import TreeError as TreeError

__all__ = ["TreeDef", "flatten", "leaves", "map", "register_node", "structure", "unflatten"]

T = TypeVar("T")
N = TypeVar("N")


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


@dataclass(frozen=True, slots=True)
class TreeDef:
    """The shape of a pytree, without its leaves. Compared by value."""

    kind: int
    node_type: type | None
    aux: Hashable
    children: tuple[TreeDef, ...]
    num_leaves: int

    def __hash__(self) -> int:
        # aux data need not be hashable (JAX compares it by ==, and so does
        # jit's trace cache): such aux hashes by its type, which == respects
        try:
            aux_hash = hash(self.aux)
        except TypeError:
            aux_hash = hash(type(self.aux))
        return hash((self.kind, self.node_type, aux_hash, self.children))

    def __str__(self) -> str:
        if self.kind == _LEAF:
            return "*"
        if self.kind == _NONE:
            return "None"
        inner = ", ".join(str(c) for c in self.children)
        if self.kind == _TUPLE:
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if self.kind == _LIST:
            return f"[{inner}]"
        if self.kind == _DICT:
            keys: tuple[object, ...] = self.aux if isinstance(self.aux, tuple) else ()
            return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(keys, self.children)) + "}"
        name = self.node_type.__name__ if self.node_type is not None else "?"
        return f"{name}({inner})"


LEAF = TreeDef(_LEAF, None, None, (), 1)
_NONE_DEF = TreeDef(_NONE, None, None, (), 0)

# ``TreeDef(...)``, faster: a frozen dataclass's ``__init__`` assigns through
# ``object.__setattr__``; this sets the slots directly (there is no validation).
_new = object.__new__
_TD = TreeDef.__dict__
_set_kind: Callable[[TreeDef, int], None] = _TD["kind"].__set__
_set_node_type: Callable[[TreeDef, type | None], None] = _TD["node_type"].__set__
_set_aux: Callable[[TreeDef, Hashable], None] = _TD["aux"].__set__
_set_children: Callable[[TreeDef, tuple[TreeDef, ...]], None] = _TD["children"].__set__
_set_num_leaves: Callable[[TreeDef, int], None] = _TD["num_leaves"].__set__


def _treedef(
    kind: int, node_type: type, aux: Hashable, children: tuple[TreeDef, ...], num_leaves: int
) -> TreeDef:
    d: TreeDef = _new(TreeDef)
    _set_kind(d, kind)
    _set_node_type(d, node_type)
    _set_aux(d, aux)
    _set_children(d, children)
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
        try:
            keys = tuple(sorted(x))
        except TypeError:
            raise TreeError(
                f"a dict whose keys cannot be sorted ({', '.join(sorted({type(k).__name__ for k in x}))}) "
                "is not a pytree node: its leaves would have no order"
            ) from None
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
    treedef = _flatten(tree, out, is_leaf)
    return out, treedef


def leaves(tree: object) -> list[object]:
    return flatten(tree)[0]


def structure(tree: object) -> TreeDef:
    return flatten(tree)[1]


def _build(treedef: TreeDef, it: Iterator[object]) -> object:
    k = treedef.kind
    if k == _LEAF:
        return next(it)
    if k == _NONE:
        return None
    kids = [_build(c, it) for c in treedef.children]
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


def map(f: Callable[..., object], tree: T, *rest: T) -> T:  # noqa: A001 - JAX's name
    """Apply ``f`` to the leaves of ``tree`` (and the matching leaves of
    ``rest``). Typed as keeping the tree's type: the structure is kept, and
    ``f`` is expected to map arrays to arrays (as a parameter update does)."""
    flat, treedef = flatten(tree)
    others = []
    for r in rest:
        rflat, rdef = flatten(r)
        if rdef != treedef:
            raise TreeError(f"tree structures differ: {treedef} and {rdef}")
        others.append(rflat)
    return cast(T, unflatten(treedef, [f(*xs) for xs in zip(flat, *others)]))
