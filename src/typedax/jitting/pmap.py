"""``pmap``: ``fun`` mapped over a leading axis, one device per index, built
as JAX builds it today: ``jit`` of a ``shard_map`` over a one-dimensional
mesh of the devices, named ``axis_name`` (so collectives inside ``fun`` name
it), whose body drops each mapped argument's per-device axis of 1 and puts
it back on every result.

Differences from JAX: results are sharded arrays with a ``NamedSharding``
over that mesh (JAX's carry a ``PmapSharding``); ``out_axes`` is one int
(or ``None``: the results are not mapped, and device 0's value is
returned) for every result; ``static_broadcasted_argnums`` and
``donate_argnums`` are not supported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, cast

import numpy as np

from .. import tree
from ..core.errors import BatchingError, ShardingError
from ..core.sharding import Mesh, PartitionSpec
from ..core.trace import Value, aval_of, as_value
from ..lowering.jaxlib_api import Device
from ..lowering import runtime
from ..primitives.shaping import expand_dims, squeeze
from ..primitives.structural import move_batch_axis
from .api import jit
from .shard_map import shard_map

__all__ = ["pmap"]

F = TypeVar("F", bound=Callable[..., object])
InAxes = int | None | Sequence["InAxes"]


def _leaf_axes(in_axes: InAxes, args: tuple[object, ...]) -> list[int | None]:
    """One mapped axis (or ``None``) per leaf: ``in_axes`` is an int/None for
    every argument, or a sequence with one entry (a pytree prefix) per argument."""
    def expand(spec: InAxes, value: object) -> list[int | None]:
        if spec is None or isinstance(spec, int):
            return [spec] * len(tree.leaves(value))
        if isinstance(spec, (tuple, list)) and isinstance(value, (tuple, list)) and len(spec) == len(value):
            return [a for s, v in zip(spec, value) for a in expand(s, v)]
        raise BatchingError(f"pmap in_axes {spec!r} is not a pytree prefix of the argument {type(value).__name__}")
    if isinstance(in_axes, (tuple, list)):
        if len(in_axes) != len(args):
            raise BatchingError(f"pmap in_axes has {len(in_axes)} entries for {len(args)} arguments")
        return [a for s, v in zip(in_axes, args) for a in expand(s, v)]
    return expand(in_axes, args)


def pmap(
    fun: F, axis_name: str | None = None, *, in_axes: InAxes = 0, out_axes: int | None = 0,
    static_broadcasted_argnums: int | Sequence[int] = (), devices: Sequence[Device] | None = None,
    backend: str | None = None, axis_size: int | None = None, donate_argnums: int | Sequence[int] = (),
) -> F:
    """``jax.pmap``: ``fun`` applied to each index of the mapped axis on its
    own device (the first devices of ``devices``, by default of
    ``tdx.devices()``); collectives in ``fun`` name ``axis_name``."""
    if static_broadcasted_argnums or donate_argnums:
        raise NotImplementedError("pmap: static_broadcasted_argnums and donate_argnums are not supported by typedax")
    if backend not in (None, runtime.default_backend()):
        raise ShardingError(f"pmap: backend {backend!r}; typedax runs on {runtime.default_backend()!r}")
    name = axis_name if axis_name is not None else "_pmap_axis"
    #: per argument structure, mapped leaves and devices: the jitted program
    #: and (once it has been traced) its output structure
    programs: dict[tuple[object, ...], tuple[Callable[..., object], list[tree.TreeDef]]] = {}

    def program(
        treedef: tree.TreeDef, mapped: tuple[bool, ...], pool: tuple[Device, ...],
    ) -> tuple[Callable[..., object], list[tree.TreeDef]]:
        key = (treedef, mapped, pool)
        known = programs.get(key)
        if known is not None:
            return known
        out_trees: list[tree.TreeDef] = []
        grid = np.empty(len(pool), dtype=object)
        grid[:] = pool
        mesh = Mesh(grid, (name,))

        def body(*flat: Value) -> list[Value]:
            xs = [squeeze(x, (0,)) if m else x for x, m in zip(flat, mapped)]
            out = fun(*cast(tuple[object, ...], tree.unflatten(treedef, xs)))
            leaves, out_tree = tree.flatten(out)
            out_trees.append(out_tree)
            return [expand_dims(as_value(o, "pmap's results"), (0,)) for o in leaves]

        specs = tuple(PartitionSpec(name) if m else PartitionSpec() for m in mapped)
        made = (jit(shard_map(body, mesh, specs, PartitionSpec(name))), out_trees)
        programs[key] = made
        return made

    def wrapped(*args: object) -> object:
        leaves, treedef = tree.flatten(args)
        axes = _leaf_axes(in_axes, args)
        sizes = set()
        for leaf, ax in zip(leaves, axes):
            if ax is not None:
                shape = aval_of(leaf).shape
                if not -len(shape) <= ax < len(shape):
                    raise BatchingError(f"pmap: in_axes {ax} is out of range for an argument of shape {shape}")
                sizes.add(shape[ax])
        if axis_size is not None:
            sizes.add(axis_size)
        if len(sizes) != 1:
            raise BatchingError(f"pmap got inconsistent sizes for array axes to be mapped: {sorted(sizes)}"
                                if sizes else "pmap: no argument is mapped and no axis_size is given")
        n = sizes.pop()
        if runtime.process_count() > 1:
            raise NotImplementedError(
                "pmap in a distributed run (typedax.distributed): JAX's per-process mapped axis is not "
                "implemented; use shard_map over a mesh of every process's devices"
            )
        pool = tuple(devices) if devices is not None else runtime.backend().all_devices
        if n > len(pool):
            raise ShardingError(
                f"pmap: compiling computation that requires {n} logical devices, but only {len(pool)} devices "
                "are available")
        moved = [
            as_value(x, "pmap's arguments") if ax is None
            else move_batch_axis(n, ax % len(aval_of(x).shape), 0, as_value(x, "pmap's arguments"))
            for x, ax in zip(leaves, axes)
        ]
        run, out_trees = program(treedef, tuple(ax is not None for ax in axes), tuple(pool[:n]))
        outs = run(*moved)
        flat = cast(list[Value], outs)
        if out_axes is None:
            result = [x[0] for x in flat]  # type: ignore[index]  # arrays
        else:
            result = []
            for x in flat:
                ndim = len(aval_of(x).shape)
                if not -ndim <= out_axes < ndim:
                    raise BatchingError(f"pmap: out_axes {out_axes} is out of bounds for a result of rank {ndim}")
                result.append(x if out_axes % ndim == 0 else move_batch_axis(n, 0, out_axes % ndim, x))
        return tree.unflatten(out_trees[0], result)

    return cast(F, wrapped)
