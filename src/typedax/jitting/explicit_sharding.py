"""The user API of explicit sharding (JAX 0.10's ``jax.sharding``):
``set_mesh``, ``get_mesh``, ``get_abstract_mesh``, ``reshard``,
``auto_axes`` and ``explicit_axes``. The types and their rules are
``core/explicit.py``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TypeVar, overload

from .. import tree
from ..core.array import Array, ArrayLike
from ..core.explicit import abstract_mesh, current_mesh, set_current_mesh, using_abstract_mesh, using_mesh
from ..core.sharding import AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec
from ..core.errors import ShardingError
from ..core.trace import EVAL_TRACE, aval_of, current_trace
from ..lowering.sharding import constrain, device_put, mesh_sharding

T = TypeVar("T")
R = TypeVar("R")


class set_mesh:  # noqa: N801  (JAX's name: a class used as a function and a context manager)
    """``jax.set_mesh(mesh)``: make ``mesh`` the current mesh -- for the
    rest of the program (``set_mesh(mesh)``), or for a block (``with
    set_mesh(mesh):``, which restores the previous one). With a current
    mesh, a bare ``PartitionSpec`` stands for a ``NamedSharding`` over it,
    and on its Explicit axes arrays carry their sharding in their types.
    Only outside ``jit``, as JAX's."""

    __slots__ = ("mesh", "prev_mesh")

    def __init__(self, mesh: Mesh | None) -> None:
        if mesh is not None and not isinstance(mesh, Mesh):
            raise ShardingError(f"Expected mesh of type `typedax.sharding.Mesh`. Got {type(mesh)}")
        if current_trace() is not EVAL_TRACE:
            raise ShardingError("`set_mesh` can only be used outside of `jax.jit`.")
        if mesh is not None and AxisType.Manual in mesh.axis_types:
            raise ShardingError(
                f"mesh {mesh} contains manual axes which is not allowed when using `set_mesh`. "
                "Please use `shard_map` to enter into `Manual` mode instead."
            )
        self.mesh = mesh
        self.prev_mesh = current_mesh()
        set_current_mesh(mesh)

    def __enter__(self) -> Mesh | None:
        return self.mesh

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        set_current_mesh(self.prev_mesh)


def get_mesh() -> Mesh | None:
    """``jax.sharding.get_mesh()``: the mesh ``set_mesh`` set (``None``:
    none; JAX gives an empty mesh). Only outside ``jit``."""
    if current_trace() is not EVAL_TRACE:
        raise ShardingError(
            "`get_mesh` can only be used outside of `jax.jit`. Maybe you want `jax.sharding.get_abstract_mesh()`?"
        )
    return current_mesh()


def get_abstract_mesh() -> AbstractMesh:
    """``jax.sharding.get_abstract_mesh()``: the current mesh's axis names,
    sizes and types, inside ``jit`` too (empty when none is set)."""
    return abstract_mesh()


@contextmanager
def use_abstract_mesh(mesh: AbstractMesh) -> Iterator[None]:
    """``jax.sharding.use_abstract_mesh(mesh)``: inside ``jit`` too, the
    current mesh's devices seen as ``mesh`` (other axis names, sizes and
    types, the same number of devices, in order) while the block runs."""
    if not isinstance(mesh, AbstractMesh):
        raise ShardingError(f"use_abstract_mesh takes an AbstractMesh, got {type(mesh).__name__}")
    prev, concrete = abstract_mesh(), current_mesh()
    if concrete is None or mesh.size != concrete.size:
        raise ShardingError(
            f"use_abstract_mesh cannot change the size of the mesh. Got new mesh: {mesh!r} with "
            f"size={mesh.size} and prev mesh: {prev!r} with size={1 if concrete is None else concrete.size}"
        )
    grid = concrete.devices.reshape(mesh.axis_sizes)
    with using_abstract_mesh(mesh, Mesh(grid, mesh.axis_names, mesh.axis_types)):
        yield


def _sharding(s: object, what: str) -> NamedSharding:
    if isinstance(s, PartitionSpec):
        return mesh_sharding(s, what)
    if isinstance(s, NamedSharding):
        return s
    raise ShardingError(f"{what}: expected a PartitionSpec or a NamedSharding, got {s!r}")


@overload
def reshard(xs: ArrayLike, out_shardings: object) -> Array: ...  # an array-like in is an Array out
@overload
def reshard(xs: T, out_shardings: object) -> T: ...
def reshard(xs: object, out_shardings: object) -> object:
    """``jax.reshard(xs, out_shardings)``: each array of the pytree ``xs``
    laid out as its ``PartitionSpec`` (over the current mesh) or
    ``NamedSharding`` says -- and, on Explicit axes, typed so. On concrete
    arrays it moves them (``device_put``); inside ``jit`` it is a
    ``sharding_constraint``, which XLA honours."""
    leaves, treedef = tree.flatten(xs)
    specs = _prefix(out_shardings, xs, "reshard")
    out: list[object] = []
    for x, s in zip(leaves, specs):
        sharding = _sharding(s, "reshard")
        if current_trace() is EVAL_TRACE:
            sharding.check(aval_of(x).shape, "reshard")
            out.append(device_put(x, sharding))  # type: ignore[call-overload]  # a leaf of an array pytree (an ArrayLike)
        else:
            out.append(constrain(x, sharding, "reshard"))
    return tree.unflatten(treedef, out)


def _prefix(spec: object, value: object, what: str) -> list[object]:
    """One sharding per leaf of ``value``: ``spec`` is a pytree prefix of it."""
    if spec is None or isinstance(spec, (PartitionSpec, NamedSharding)):
        return [spec] * len(tree.leaves(value))
    if isinstance(spec, (tuple, list)) and isinstance(value, (tuple, list)) and len(spec) == len(value):
        return [s for sp, v in zip(spec, value) for s in _prefix(sp, v, what)]
    if isinstance(spec, dict) and isinstance(value, dict) and sorted(spec) == sorted(value):
        return [s for k in sorted(value) for s in _prefix(spec[k], value[k], what)]
    raise ShardingError(f"{what}: {spec!r} is not a pytree prefix of the values")


def _own_spec(x: object, mesh: Mesh) -> PartitionSpec:
    """``x``'s type-level spec over the Explicit axes of ``mesh``."""
    s = aval_of(x).sharding
    if s is None:
        return PartitionSpec()
    keep = mesh.explicit_axes
    parts = []
    for p in s.spec.partitions:
        names = [n for n in ((p,) if isinstance(p, str) else p or ()) if n in keep]
        parts.append(None if not names else names[0] if len(names) == 1 else tuple(names))
    return PartitionSpec(*parts)


def _switch(axes: str | tuple[str, ...] | None, to: AxisType, what: str) -> tuple[Mesh, Mesh]:
    mesh = current_mesh()
    if mesh is None:
        raise ShardingError(f"{what} needs a mesh: set one with typedax.sharding.set_mesh(mesh)")
    names = mesh.axis_names if axes is None else (axes,) if isinstance(axes, str) else tuple(axes)
    for n in names:
        if n not in mesh.axis_names:
            raise ShardingError(f"{what}: axis {n!r} is not in the mesh {mesh.axis_names}")
    return mesh, mesh.update_axis_types({n: to for n in names})


@overload
def auto_axes(
    fun: Callable[..., R], /, *, axes: str | tuple[str, ...] | None = None, out_sharding: object = None,
) -> Callable[..., R]: ...
@overload
def auto_axes(
    fun: None = None, /, *, axes: str | tuple[str, ...] | None = None, out_sharding: object = None,
) -> Callable[[Callable[..., R]], Callable[..., R]]: ...
def auto_axes(
    fun: Callable[..., R] | None = None, /, *, axes: str | tuple[str, ...] | None = None,
    out_sharding: object = None,
) -> Callable[..., R] | Callable[[Callable[..., R]], Callable[..., R]]:
    """``jax.sharding.auto_axes``: run ``fun`` with the mesh axes ``axes``
    (all by default) Auto -- the compiler, not the types, decides how values
    are split over them, so operations without a sharding rule (or whose
    rule refuses) run -- and lay the results out as ``out_sharding`` says
    (given here or at the call, ``f(x, out_sharding=P(...))``)."""
    def wrap(f: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(f)
        def run(*args: object, **kwargs: object) -> R:
            outs = kwargs.pop("out_sharding", None) if out_sharding is None else out_sharding
            if outs is None:
                raise TypeError("Missing required keyword argument: 'out_sharding'")
            outer, inner = _switch(axes, AxisType.Auto, "auto_axes")
            with using_mesh(inner):
                args = reshard(args, tree.map(lambda a: _own_spec(a, inner), args))
                out = f(*args, **kwargs)
            return reshard(out, outs)
        return run
    return wrap if fun is None else wrap(fun)


@overload
def explicit_axes(
    fun: Callable[..., R], /, *, axes: str | tuple[str, ...] | None = None, in_sharding: object = None,
) -> Callable[..., R]: ...
@overload
def explicit_axes(
    fun: None = None, /, *, axes: str | tuple[str, ...] | None = None, in_sharding: object = None,
) -> Callable[[Callable[..., R]], Callable[..., R]]: ...
def explicit_axes(
    fun: Callable[..., R] | None = None, /, *, axes: str | tuple[str, ...] | None = None,
    in_sharding: object = None,
) -> Callable[..., R] | Callable[[Callable[..., R]], Callable[..., R]]:
    """``jax.sharding.explicit_axes``: run ``fun`` with the mesh axes
    ``axes`` (all by default) Explicit, its arguments laid out and typed as
    ``in_sharding`` says (given here or at the call); the results return
    to the caller's axis types, laid out as they are."""
    def wrap(f: Callable[..., R]) -> Callable[..., R]:
        @functools.wraps(f)
        def run(*args: object, **kwargs: object) -> R:
            ins = kwargs.pop("in_sharding", None) if in_sharding is None else in_sharding
            if ins is None:
                raise TypeError("Missing required keyword argument: 'in_sharding'")
            outer, inner = _switch(axes, AxisType.Explicit, "explicit_axes")
            with using_mesh(inner):
                args = reshard(args, ins)
                out = f(*args, **kwargs)
                specs = tree.map(lambda o: _own_spec(o, inner), out)
            with using_mesh(outer):
                return reshard(out, specs)
        return run
    return wrap if fun is None else wrap(fun)
