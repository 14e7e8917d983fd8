"""``jax.tree_util``'s names and semantics, over ``typedax.tree``'s registry.

A type registered here is a node for ``typedax.tree`` (and so for ``jit``,
``grad``, ``vmap``) too, and the other way round: there is one registry.

What is as in JAX: ``None`` is a node with no children; dict keys are
sorted; ``is_leaf`` is asked about every subtree (``None`` included) before it
is flattened; ``tree_map``'s further trees need only have the first tree's
structure as a prefix (a leaf of the first tree matches a whole subtree of
the others, which ``f`` receives as it is); custom ``unflatten`` functions
receive their children as a tuple; key paths are tuples of ``SequenceKey``
(tuples, lists), ``DictKey`` (dicts), ``GetAttrKey`` (namedtuples,
dataclasses) and ``FlattenedIndexKey`` (custom nodes registered without
keys), and ``keystr`` prints them as JAX does.

What differs: a dataclass is a node here without registration (it is a leaf
in JAX unless registered with ``register_dataclass``), keyed by its field
names, all of them data; ``OrderedDict`` and ``defaultdict`` are leaves here
unless registered. Errors are ``TreeError`` (a ``ValueError``), naming where
in the tree they happened.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias, TypeVar, cast, overload

from . import tree as _tree
from .core.errors import TreeError

# The node classification, the registry and the TreeDef builder are
# typedax.tree's own (one registry, one notion of what a node is).
from .tree import (
    _CUSTOM,
    _DATACLASS,
    _DICT,
    _LEAF,
    _NAMEDTUPLE,
    _NONE,
    _NONE_DEF,
    _REGISTRY,
    LEAF,
    TreeDef,
    _at,
    _children,
    _kind_of,
    _treedef,
)

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "PyTreeDef",
    "SequenceKey",
    "keystr",
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "tree_all",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_structure",
    "tree_unflatten",
    "treedef_is_leaf",
]

PyTreeDef: TypeAlias = TreeDef
"""JAX's name for the structure of a pytree: ``typedax.tree.TreeDef``."""

T = TypeVar("T")
N = TypeVar("N")
R = TypeVar("R")
_Aux = TypeVar("_Aux", bound=Hashable)
_Children = TypeVar("_Children", bound=Iterable[object])


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


# --- flattening -----------------------------------------------------------------


def tree_flatten(
    tree: object, is_leaf: Callable[[object], bool] | None = None
) -> tuple[list[object], PyTreeDef]:
    """The leaves of ``tree`` in order, and its structure."""
    return _tree.flatten(tree, is_leaf)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[object]) -> object:
    """Rebuild a tree of ``treedef``'s structure from ``leaves`` (exactly
    ``treedef.num_leaves`` of them)."""
    return _tree.unflatten(treedef, leaves)


def tree_leaves(tree: object, is_leaf: Callable[[object], bool] | None = None) -> list[object]:
    return _tree.flatten(tree, is_leaf)[0]


def tree_structure(tree: object, is_leaf: Callable[[object], bool] | None = None) -> PyTreeDef:
    return _tree.flatten(tree, is_leaf)[1]


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """Whether ``treedef`` is a single node (as in JAX: a leaf, ``None`` or
    an empty container)."""
    return not treedef.children


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


def _up_to(treedef: PyTreeDef, x: object, out: list[object], which: str) -> None:
    """Append to ``out`` the subtrees of ``x`` at the leaves of ``treedef``,
    which must be a prefix of ``x``'s structure (JAX's ``flatten_up_to``)."""
    k = treedef.kind
    if k == _LEAF:
        out.append(x)
        return
    if k == _NONE:
        if x is not None:
            raise TreeError(f"{which} has {_what(x)} where the first tree has None")
        return
    t = treedef.node_type
    assert t is not None
    if type(x) is not t:
        raise TreeError(f"{which} has {_what(x)} where the first tree has a {t.__name__}")
    keys, kids, aux = _keyed_children(x, k)
    if k == _DICT and not _same_aux(aux, treedef.aux):
        raise TreeError(f"{which} has a dict with keys {aux!r} where the first tree's has keys {treedef.aux!r}")
    if len(kids) != len(treedef.children):
        raise TreeError(
            f"{which} has a {t.__name__} of {len(kids)} children where the first tree's has "
            f"{len(treedef.children)}"
        )
    if not _same_aux(aux, treedef.aux):
        raise TreeError(
            f"{which} has a {t.__name__} with node data {aux!r} where the first tree's has {treedef.aux!r}"
        )
    for key, c, d in zip(keys, kids, treedef.children):
        try:
            _up_to(d, c, out, which)
        except TreeError as e:
            raise _at(e, _step(key)) from None


def _leaves_up_to(treedef: PyTreeDef, trees: tuple[object, ...], fn: str) -> list[list[object]]:
    result = []
    for i, r in enumerate(trees):
        out: list[object] = []
        _up_to(treedef, r, out, f"{fn}'s tree {i + 2}")
        result.append(out)
    return result


def tree_map(
    f: Callable[..., object], tree: T, *rest: T, is_leaf: Callable[[object], bool] | None = None
) -> T:
    """Apply ``f`` to the leaves of ``tree``, and to the matching subtrees of
    ``rest`` (each must have ``tree``'s structure as a prefix)."""
    leaves, treedef = _tree.flatten(tree, is_leaf)
    others = _leaves_up_to(treedef, rest, "tree_map")
    out = _tree.unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])
    return cast(T, out)  # the structure is tree's, its leaves are f's


class _Unset(enum.Enum):
    UNSET = 0


@overload
def tree_reduce(
    function: Callable[[R, object], R], tree: object, *, is_leaf: Callable[[object], bool] | None = None
) -> R: ...
@overload
def tree_reduce(
    function: Callable[[R, object], R],
    tree: object,
    initializer: R,
    is_leaf: Callable[[object], bool] | None = None,
) -> R: ...
def tree_reduce(
    function: Callable[[R, object], R],
    tree: object,
    initializer: R | _Unset = _Unset.UNSET,
    is_leaf: Callable[[object], bool] | None = None,
) -> R:
    """``function(function(initializer, leaf0), leaf1)...`` over the leaves of
    ``tree``; without ``initializer`` the first leaf starts."""
    it = iter(_tree.flatten(tree, is_leaf)[0])
    acc: R
    if isinstance(initializer, _Unset):
        try:
            acc = cast(R, next(it))  # the first leaf starts the reduction, as in functools.reduce
        except StopIteration:
            raise TreeError("tree_reduce of a tree with no leaves needs an initializer") from None
    else:
        acc = initializer
    for x in it:
        acc = function(acc, x)
    return acc


def tree_all(tree: object, *, is_leaf: Callable[[object], bool] | None = None) -> bool:
    """Whether every leaf of ``tree`` is true."""
    return all(_tree.flatten(tree, is_leaf)[0])


# --- key paths ------------------------------------------------------------------


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
) -> PyTreeDef:
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
            d = _flatten_with_path(c, (*path, key), out, is_leaf)
        except TreeError as e:
            raise _at(e, _step(key)) from None
        defs.append(d)
        n += d.num_leaves
    return _treedef(kind, type(x), aux, tuple(defs), n)


@overload
def tree_flatten_with_path(
    tree: object,
    is_leaf: Callable[[object], bool] | None = None,
    is_leaf_takes_path: Literal[False] = False,
) -> tuple[list[tuple[KeyPath, object]], PyTreeDef]: ...
@overload
def tree_flatten_with_path(
    tree: object,
    is_leaf: Callable[[KeyPath, object], bool] | None,
    is_leaf_takes_path: Literal[True],
) -> tuple[list[tuple[KeyPath, object]], PyTreeDef]: ...
def tree_flatten_with_path(
    tree: object,
    is_leaf: Callable[[object], bool] | Callable[[KeyPath, object], bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> tuple[list[tuple[KeyPath, object]], PyTreeDef]:
    """The leaves of ``tree`` with the key path to each, and its structure.
    ``is_leaf`` takes the subtree, or (with ``is_leaf_takes_path``) its path
    and the subtree."""
    out: list[tuple[KeyPath, object]] = []
    treedef = _flatten_with_path(tree, (), out, _path_is_leaf(is_leaf, is_leaf_takes_path))
    return out, treedef


def _path_is_leaf(
    is_leaf: Callable[[object], bool] | Callable[[KeyPath, object], bool] | None, takes_path: bool
) -> Callable[[KeyPath, object], bool] | None:
    if is_leaf is None:
        return None
    if takes_path:
        return cast("Callable[[KeyPath, object], bool]", is_leaf)  # the overloads tie the two
    one = cast("Callable[[object], bool]", is_leaf)  # the overloads tie the two
    return lambda _, x: one(x)


@overload
def tree_leaves_with_path(
    tree: object,
    is_leaf: Callable[[object], bool] | None = None,
    is_leaf_takes_path: Literal[False] = False,
) -> list[tuple[KeyPath, object]]: ...
@overload
def tree_leaves_with_path(
    tree: object,
    is_leaf: Callable[[KeyPath, object], bool] | None,
    is_leaf_takes_path: Literal[True],
) -> list[tuple[KeyPath, object]]: ...
def tree_leaves_with_path(
    tree: object,
    is_leaf: Callable[[object], bool] | Callable[[KeyPath, object], bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> list[tuple[KeyPath, object]]:
    out: list[tuple[KeyPath, object]] = []
    _flatten_with_path(tree, (), out, _path_is_leaf(is_leaf, is_leaf_takes_path))
    return out


@overload
def tree_map_with_path(
    f: Callable[..., object],
    tree: T,
    *rest: T,
    is_leaf: Callable[[object], bool] | None = None,
    is_leaf_takes_path: Literal[False] = False,
) -> T: ...
@overload
def tree_map_with_path(
    f: Callable[..., object],
    tree: T,
    *rest: T,
    is_leaf: Callable[[KeyPath, object], bool] | None,
    is_leaf_takes_path: Literal[True],
) -> T: ...
def tree_map_with_path(
    f: Callable[..., object],
    tree: T,
    *rest: T,
    is_leaf: Callable[[object], bool] | Callable[[KeyPath, object], bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> T:
    """``f(path, leaf, *matching subtrees of rest)`` at each leaf of ``tree``."""
    pairs: list[tuple[KeyPath, object]] = []
    treedef = _flatten_with_path(tree, (), pairs, _path_is_leaf(is_leaf, is_leaf_takes_path))
    others = _leaves_up_to(treedef, rest, "tree_map_with_path")
    results = [f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)]
    return cast(T, _tree.unflatten(treedef, results))  # the structure is tree's, its leaves are f's


# --- registration ---------------------------------------------------------------

_Flatten: TypeAlias = Callable[[N], tuple[Iterable[object], Hashable]]
_FlattenWithKeys: TypeAlias = Callable[[N], tuple[Iterable[tuple[KeyEntry, object]], Hashable]]


def _register(
    nodetype: type[N],
    flatten: _Flatten[N],
    unflatten: Callable[[Hashable, tuple[object, ...]], N],
    flatten_with_keys: _FlattenWithKeys[N] | None,
) -> None:
    def unflatten_list(aux: Hashable, children: list[object]) -> N:
        return unflatten(aux, tuple(children))  # a tuple, as JAX gives them

    _tree.register_node(nodetype, flatten, unflatten_list, flatten_with_keys)


def register_pytree_node(
    nodetype: type[N],
    flatten_func: Callable[[N], tuple[_Children, _Aux]],
    unflatten_func: Callable[[_Aux, _Children], N],
    flatten_with_keys_func: Callable[[N], tuple[Iterable[tuple[KeyEntry, object]], _Aux]] | None = None,
) -> None:
    """Make ``nodetype`` a pytree node (for ``typedax.tree`` too):
    ``flatten_func`` returns (children, aux data), ``unflatten_func(aux,
    children)`` rebuilds the node from a tuple of children, and
    ``flatten_with_keys_func`` (optional) returns ((key, child) pairs, aux data)
    for key paths; without it the children are ``FlattenedIndexKey(i)``.
    Registering a type twice, or a built-in node type, is a ``TreeError``."""

    def unflatten(aux: Hashable, children: tuple[object, ...]) -> N:
        # the aux data is what flatten_func returned; the children are a tuple
        # of its children's rebuilt subtrees (typed as JAX types them)
        return unflatten_func(cast(_Aux, aux), cast(_Children, children))

    _register(nodetype, flatten_func, unflatten, flatten_with_keys_func)


def register_pytree_with_keys(
    nodetype: type[N],
    flatten_with_keys: Callable[[N], tuple[Iterable[tuple[KeyEntry, object]], _Aux]],
    unflatten_func: Callable[[_Aux, tuple[object, ...]], N],
    flatten_func: Callable[[N], tuple[Iterable[object], _Aux]] | None = None,
) -> None:
    """``register_pytree_node`` given the keyed flatten; the plain one, when
    not given, drops the keys."""

    def drop_keys(x: N) -> tuple[Iterable[object], Hashable]:
        pairs, aux = flatten_with_keys(x)
        return [c for _, c in pairs], aux

    def unflatten(aux: Hashable, children: tuple[object, ...]) -> N:
        return unflatten_func(cast(_Aux, aux), children)  # the aux data is flatten_with_keys's

    _register(nodetype, flatten_func or drop_keys, unflatten, flatten_with_keys)


def register_pytree_node_class(cls: type[N]) -> type[N]:
    """Register ``cls`` through its ``tree_flatten(self)`` method and
    ``tree_unflatten(cls, aux, children)`` classmethod; returns ``cls`` (a
    decorator)."""
    missing = [m for m in ("tree_flatten", "tree_unflatten") if not callable(getattr(cls, m, None))]
    if missing:
        raise TreeError(
            f"register_pytree_node_class: {cls.__name__} has no {' or '.join(missing)} method "
            "(tree_flatten(self) -> (children, aux_data); classmethod tree_unflatten(cls, aux_data, children))"
        )
    unflatten: Callable[[Hashable, tuple[object, ...]], N] = getattr(cls, "tree_unflatten")

    def flatten(x: N) -> tuple[Iterable[object], Hashable]:
        result: tuple[Iterable[object], Hashable] = getattr(x, "tree_flatten")()  # checked when flattening
        return result

    _register(cls, flatten, unflatten, None)
    return cls


def register_dataclass(
    nodetype: type[N],
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
    drop_fields: Sequence[str] = (),
) -> type[N]:
    """Make ``nodetype`` a node whose children are its ``data_fields`` (keyed
    ``GetAttrKey(name)``) and whose ``meta_fields`` are static aux data; it is
    rebuilt as ``nodetype(**fields)``. For a dataclass both lists may be
    omitted: fields with ``metadata={'static': True}`` are meta, the rest data
    (``drop_fields`` are left out). Returns ``nodetype`` (a decorator)."""
    name = nodetype.__name__
    for what, names in (("data_fields", data_fields), ("meta_fields", meta_fields), ("drop_fields", drop_fields)):
        if isinstance(names, str):
            raise TreeError(f"register_dataclass({name}): {what} must be a sequence of field names, not a str")
    fields = dataclasses.fields(nodetype) if dataclasses.is_dataclass(nodetype) else None
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TreeError(
                f"register_dataclass({name}): give both data_fields and meta_fields, or neither "
                f"(got data_fields={data_fields!r}, meta_fields={meta_fields!r})"
            )
        if fields is None:
            raise TreeError(
                f"register_dataclass({name}): {name} is not a dataclass, so data_fields and "
                "meta_fields are required"
            )
        kept = [f for f in fields if f.name not in drop_fields]
        data_fields = [f.name for f in kept if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in kept if f.metadata.get("static", False)]
    data = tuple(data_fields)
    meta = tuple(meta_fields)
    if overlap := sorted(set(data) & set(meta)):
        raise TreeError(f"register_dataclass({name}): field(s) {', '.join(overlap)} are both data and meta")
    if len(set(data)) != len(data) or len(set(meta)) != len(meta):
        raise TreeError(f"register_dataclass({name}): a field is named twice in data_fields or meta_fields")
    if fields is not None:
        init = {f.name for f in fields if f.init} - set(drop_fields)
        named = {*data, *meta}
        if named != init:
            msg = (
                f"register_dataclass({name}): data_fields and meta_fields must name every "
                "field with init=True, and only those."
            )
            if missing := sorted(init - named):
                msg += f" Missing: {', '.join(missing)} (add them to drop_fields to leave them out)."
            if unexpected := sorted(named - init):
                msg += f" Not init fields: {', '.join(unexpected)}."
            raise TreeError(msg)
    build = cast("Callable[..., N]", nodetype)  # rebuilt from its fields by keyword, as in JAX

    def flatten(x: N) -> tuple[Iterable[object], Hashable]:
        return tuple(getattr(x, n) for n in data), tuple(getattr(x, n) for n in meta)

    def flatten_with_keys(x: N) -> tuple[Iterable[tuple[KeyEntry, object]], Hashable]:
        return [(GetAttrKey(n), getattr(x, n)) for n in data], tuple(getattr(x, n) for n in meta)

    def unflatten(aux: Hashable, children: tuple[object, ...]) -> N:
        assert isinstance(aux, tuple)  # the meta values, as flatten returned them
        return build(**dict(zip(meta, aux)), **dict(zip(data, children)))

    _register(nodetype, flatten, unflatten, flatten_with_keys)
    return nodetype
