"""Pytrees: nested containers of arrays, flattened to a list of leaves and a
``TreeDef`` that rebuilds them.

Tuples, lists, dicts (keys sorted, as JAX does), ``None``, namedtuples and
dataclasses work out of the box; other container types join with
``register_node``. Everything else is a leaf.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from .core.errors import TypedaxError

__all__ = ["TreeDef", "flatten", "leaves", "map", "register_node", "structure", "unflatten"]

T = TypeVar("T")
N = TypeVar("N")


class TreeError(TypedaxError, ValueError):
    """Trees whose structures do not match, or leaves of the wrong number."""


@dataclass(frozen=True, slots=True)
class _NodeKind(Generic[N]):
    flatten: Callable[[N], tuple[Iterable[object], Hashable]]
    unflatten: Callable[[Hashable, list[object]], N]


_REGISTRY: dict[type, _NodeKind[object]] = {}


def register_node(
    node_type: type[N],
    flatten: Callable[[N], tuple[Iterable[object], Hashable]],
    unflatten: Callable[[Hashable, list[object]], N],
) -> None:
    """Make ``node_type`` a pytree node: ``flatten`` returns (children, aux
    data), ``unflatten(aux, children)`` rebuilds the node."""
    if node_type in _REGISTRY or node_type in _BUILTIN:
        raise ValueError(f"{node_type.__name__} is already a pytree node type")
    _REGISTRY[node_type] = _NodeKind(flatten, unflatten)  # type: ignore[arg-type]  # N erased in the registry


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


def _kind_of(x: object) -> int:
    t = type(x)
    k = _BUILTIN.get(t)
    if k is not None:
        return k
    if t in _REGISTRY:
        return _CUSTOM
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        return _NAMEDTUPLE
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return _DATACLASS
    return _LEAF


def _children(x: object, kind: int) -> tuple[list[object], Hashable]:
    if kind == _TUPLE or kind == _LIST:
        return list(x), None  # type: ignore[call-overload]  # kind says x is a tuple or list
    if kind == _DICT:
        assert isinstance(x, dict)
        keys = tuple(sorted(x))
        return [x[k] for k in keys], keys
    if kind == _NAMEDTUPLE:
        assert isinstance(x, tuple)
        return list(x), None
    if kind == _DATACLASS:
        names = tuple(f.name for f in dataclasses.fields(x))  # type: ignore[arg-type]  # kind says x is a dataclass instance
        return [getattr(x, n) for n in names], names
    children, aux = _REGISTRY[type(x)].flatten(x)
    return list(children), aux


def _flatten(x: object, out: list[object], is_leaf: Callable[[object], bool] | None) -> TreeDef:
    if is_leaf is not None and is_leaf(x):
        out.append(x)
        return LEAF
    kind = _kind_of(x)
    if kind == _LEAF:
        out.append(x)
        return LEAF
    if kind == _NONE:
        return _NONE_DEF
    kids, aux = _children(x, kind)
    defs = tuple(_flatten(c, out, is_leaf) for c in kids)
    return TreeDef(kind, type(x), aux, defs, sum(d.num_leaves for d in defs))


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


def map(f: Callable[..., object], tree: object, *rest: object) -> object:  # noqa: A001 - JAX's name
    """Apply ``f`` to the leaves of ``tree`` (and the matching leaves of ``rest``)."""
    flat, treedef = flatten(tree)
    others = []
    for r in rest:
        rflat, rdef = flatten(r)
        if rdef != treedef:
            raise TreeError(f"tree structures differ: {treedef} and {rdef}")
        others.append(rflat)
    return unflatten(treedef, [f(*xs) for xs in zip(flat, *others)])
