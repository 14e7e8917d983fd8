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
keys); ``OrderedDict`` (in its order) and ``defaultdict`` (keys sorted, its
``default_factory`` kept) are nodes keyed by ``DictKey``, and ``keystr`` prints them as JAX does; ``Partial`` is a
``functools.partial`` whose arguments are its children and whose function is
static (so it passes through ``jit`` and ``vmap``).

What differs: a dataclass is a node here without registration (it is a leaf
in JAX unless registered with ``register_dataclass``), keyed by its field
names, all of them data. Errors are ``TreeError`` (a ``ValueError``), naming where
in the tree they happened. ``tree_transpose`` checks the whole structure (JAX
checks only the number of leaves), and transposes an outer structure with no
leaves (JAX raises).
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Literal, Self, TypeAlias, TypeVar, cast, overload

from . import tree as _tree
from .core.errors import TreeError

# The node classification, the registry, the TreeDef builder and the key
# paths are typedax.tree's own (one registry, one notion of what a node is).
from .tree import (
    _TUPLE,
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    KeyEntry,
    KeyPath,
    SequenceKey,
    TreeDef,
    _flatten_with_path,
    _leaves_up_to,
    _map_with_path,
    _path_is_leaf,
    _transpose,
    _treedef,
    _Unset,
    keystr,
)

__all__ = [
    "DictKey",
    "Partial",
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
    "register_pytree_with_keys_class",
    "register_static",
    "all_leaves",
    "is_tree_node",
    "flatten_one_level",
    "tree_broadcast",
    "tree_reduce_associative",
    "tree_all",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
    "treedef_tuple",
]

PyTreeDef: TypeAlias = TreeDef
"""JAX's name for the structure of a pytree: ``typedax.tree.TreeDef``."""

T = TypeVar("T")
N = TypeVar("N")
R = TypeVar("R")
_Aux = TypeVar("_Aux", bound=Hashable)
_Children = TypeVar("_Children", bound=Iterable[object])


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
    return not treedef.subtrees


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The structures of ``treedef``'s children (``treedef.children()``)."""
    return list(treedef.subtrees)


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose children have structures ``treedefs``."""
    kids = tuple(treedefs)
    return _treedef(_TUPLE, tuple, None, kids, sum(d.num_leaves for d in kids))


def tree_map(
    f: Callable[..., object], tree: T, *rest: T, is_leaf: Callable[[object], bool] | None = None
) -> T:
    """Apply ``f`` to the leaves of ``tree``, and to the matching subtrees of
    ``rest`` (each must have ``tree``'s structure as a prefix)."""
    leaves, treedef = _tree.flatten(tree, is_leaf)
    others = _leaves_up_to(treedef, rest, "tree_map")
    out = _tree.unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])
    return cast(T, out)  # the structure is tree's, its leaves are f's


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
    return _tree._reduce(function, tree, initializer, is_leaf, "tree_reduce")


def tree_all(tree: object, *, is_leaf: Callable[[object], bool] | None = None) -> bool:
    """Whether every leaf of ``tree`` is true."""
    return _tree.all(tree, is_leaf=is_leaf)


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
    return _map_with_path(f, tree, rest, _path_is_leaf(is_leaf, is_leaf_takes_path), "tree_map_with_path")


def tree_transpose(
    outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: object
) -> object:
    """Turn a tree of structure ``outer_treedef`` whose subtrees (at its
    leaves) have structure ``inner_treedef`` into a tree of structure
    ``inner_treedef`` whose subtrees have ``outer_treedef``'s: a list of
    dicts into a dict of lists, say. ``inner_treedef=None``: the structure of
    the first of those subtrees.

    Stricter than JAX, which checks only the number of leaves: the tree must
    be ``outer_treedef`` with ``inner_treedef`` at each leaf, else an error
    that is both a ``TypeError`` (as JAX's) and a ``TreeError``."""
    return _transpose(outer_treedef, inner_treedef, pytree_to_transpose, "tree_transpose")


# --- Partial ------------------------------------------------------------------------


class _CallableShim:
    """A callable that is not a ``functools.partial``, standing for one: so
    that ``Partial(partial(f, a), b)`` keeps ``a`` out of its leaves
    (``functools.partial`` would merge the two). Calls, hashes and compares
    as the function it holds (as JAX's ``_HashableCallableShim``)."""

    __slots__ = ("fun",)

    def __init__(self, fun: Callable[..., object]) -> None:
        self.fun = fun

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self.fun(*args, **kwargs)

    def __hash__(self) -> int:
        return hash(self.fun)

    def __eq__(self, other: object) -> bool:
        return bool(self.fun == (other.fun if isinstance(other, _CallableShim) else other))

    def __repr__(self) -> str:
        return f"_CallableShim({self.fun!r})"


class Partial(functools.partial[R]):
    """``functools.partial`` as a pytree: its bound positional and keyword
    arguments are the children (leaves, or subtrees), its function the static
    node data. So a ``Partial`` can be an argument of a ``jit``-ed or
    ``vmap``-ed function: its arguments are traced, its function is part of
    the trace's cache key. As JAX's ``jax.tree_util.Partial``."""

    def __new__(cls, func: Callable[..., R], /, *args: object, **kwargs: object) -> Self:
        if isinstance(func, functools.partial):
            # its arguments are not this Partial's children: it is static, as a whole
            shim = cast("Callable[..., R]", _CallableShim(func))  # calls func
            return super().__new__(cls, shim, *args, **kwargs)
        return super().__new__(cls, func, *args, **kwargs)


def _flatten_partial(
    p: Partial[object],
) -> tuple[tuple[tuple[object, ...], dict[str, object]], Callable[..., object]]:
    return (p.args, p.keywords), p.func


def _unflatten_partial(
    func: Callable[..., object], children: tuple[tuple[object, ...], dict[str, object]]
) -> Partial[object]:
    args, kwargs = children
    return Partial(func, *args, **kwargs)


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


def register_pytree_with_keys_class(cls: type[N]) -> type[N]:
    """``register_pytree_with_keys`` through the class's
    ``tree_flatten_with_keys(self)`` method and ``tree_unflatten(cls, aux,
    children)`` classmethod (``tree_flatten(self)`` too, if it has one);
    returns ``cls`` (a decorator), as JAX's."""
    missing = [m for m in ("tree_flatten_with_keys", "tree_unflatten") if not callable(getattr(cls, m, None))]
    if missing:
        raise TreeError(
            f"register_pytree_with_keys_class: {cls.__name__} has no {' or '.join(missing)} method"
        )
    unflatten: Callable[[Hashable, tuple[object, ...]], N] = getattr(cls, "tree_unflatten")

    def flatten_with_keys(x: N) -> tuple[Iterable[tuple[KeyEntry, object]], Hashable]:
        result: tuple[Iterable[tuple[KeyEntry, object]], Hashable] = getattr(x, "tree_flatten_with_keys")()
        return result

    plain: Callable[[N], tuple[Iterable[object], Hashable]] | None = None
    if callable(getattr(cls, "tree_flatten", None)):
        def plain(x: N) -> tuple[Iterable[object], Hashable]:
            result: tuple[Iterable[object], Hashable] = getattr(x, "tree_flatten")()
            return result

    register_pytree_with_keys(cls, flatten_with_keys, unflatten, plain)
    return cls


def register_static(cls: type[N]) -> type[N]:
    """``jax.tree_util.register_static``: instances of ``cls`` are pytrees
    with no leaves, the instance itself the node's (hashable) aux data, so
    ``jit`` treats them as static; returns ``cls`` (a decorator)."""

    def flatten(x: N) -> tuple[tuple[()], Hashable]:
        return (), cast(Hashable, x)

    def unflatten(aux: Hashable, children: tuple[object, ...]) -> N:
        return cast(N, aux)

    _register(cls, flatten, unflatten, None)
    return cls


def all_leaves(iterable: Iterable[object], is_leaf: Callable[[object], bool] | None = None) -> bool:
    """Whether every element of ``iterable`` is a leaf (``None`` is not: it
    is a node with no children), as JAX's."""
    items = list(iterable)
    found = tree_leaves(items, is_leaf)
    return len(found) == len(items) and builtins.all(a is b for a, b in zip(items, found))


def is_tree_node(typ: type) -> bool:
    """Whether instances of ``typ`` are pytree nodes (containers, ``None``,
    namedtuples, registered types; typedax also counts dataclasses)."""
    return _tree._kind_of_type(typ) != _tree._LEAF


def flatten_one_level(tree: object) -> tuple[Iterable[object], Hashable]:
    """``tree``'s children (one level down) and its node's aux data (a
    dict's keys, ...); a ``ValueError`` for a leaf, as JAX's."""
    kind = _tree._kind_of(tree)
    if kind == _tree._LEAF:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    if kind == _tree._NONE:
        return (), None
    children, aux = _tree._children(tree, kind)
    return (list(children) if kind == _tree._LIST else tuple(children)), aux


def tree_broadcast(prefix_tree: object, full_tree: object, is_leaf: Callable[[object], bool] | None = None) -> object:
    """Alias of ``typedax.tree.broadcast``."""
    return _tree.broadcast(prefix_tree, full_tree, is_leaf)


def tree_reduce_associative(
    operation: Callable[[T, T], T], tree: object, *, identity: T | _Unset = _Unset.UNSET,
    is_leaf: Callable[[object], bool] | None = None,
) -> T:
    """Alias of ``typedax.tree.reduce_associative``."""
    return _tree.reduce_associative(operation, tree, identity=identity, is_leaf=is_leaf)


register_pytree_node(Partial, _flatten_partial, _unflatten_partial)
