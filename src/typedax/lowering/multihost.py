"""Global arrays from each process's part (``typedax.distributed``): JAX's
``make_array_from_process_local_data`` (a process's slab of the data, such
as its sub-batch, spread over its devices) and
``make_array_from_single_device_arrays`` (one array per device this process
holds). With one process, the whole array."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.array import Array, ArrayImpl, ArrayLike
from ..core.avals import ShapedArray
from ..core.errors import ShardingError
from ..core.sharded import ShardedArrayImpl
from ..core.sharding import Index, Sharding
from ..core.trace import Tracer, aval_of
from . import jaxlib_api as jx
from .runtime import _PutType, backend, buffer_of
from .sharding import _on, device_put, xla_sharding


def _start(s: slice) -> int:
    return 0 if s.start is None else int(s.start)


def _process_sets(s: Sharding, shape: tuple[int, ...], dim: int) -> dict[int, frozenset[int]]:
    """Per process, the starts along ``dim`` of the pieces its devices hold."""
    sets: dict[int, set[int]] = {}
    for device, index in s.devices_indices_map(shape).items():
        sets.setdefault(device.process_index, set()).add(_start(index[dim]))
    return {p: frozenset(v) for p, v in sets.items()}


def _global_shape(s: Sharding, local_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The global shape whose pieces this process's ``local_shape`` holds, as
    JAX's ``local_to_global_shape``: along each dimension, the processes
    hold equal, disjoint (or identical) sets of pieces."""
    n = s.num_devices
    probe = (n,) * len(local_shape)  # divisible by any split: one index per piece
    pieces = s.shard_shape(probe)
    out: list[int] = []
    for i, local in enumerate(local_shape):
        sets = set(_process_sets(s, probe, i).values())
        k = {len(v) for v in sets}
        disjoint = sum(len(v) for v in sets) == len(frozenset().union(*sets))
        if len(k) != 1 or not disjoint:
            raise ValueError(
                "Unable to compute global_shape due to non-uniform sharding. Specify global shape directly."
            )
        tiles, held = n // pieces[i], k.pop()
        if local % held:
            raise ValueError(
                f"Invalid host data: dimension {i} has {local} elements, which the {held} pieces this "
                "process holds along it cannot share equally"
            )
        out.append(local // held * tiles)
    return tuple(out)


def make_array_from_process_local_data(
    sharding: Sharding, local_data: ArrayLike, global_shape: tuple[int, ...] | None = None
) -> Array:
    """``jax.make_array_from_process_local_data``: the global array laid out
    by ``sharding`` of which ``local_data`` (a host value) is this process's
    part: along each dimension either the whole (``global_shape``'s size:
    every process passes the same there) or the slices this process's
    devices hold, in order (the common case: each process its sub-batch).
    ``global_shape`` is inferred when the processes' parts tile the array
    evenly. With one process, ``device_put(local_data, sharding)``."""
    if isinstance(local_data, Tracer):
        raise TypeError("make_array_from_process_local_data: local_data must be a host value, not a tracer")
    data = np.asarray(local_data)
    local_shape = tuple(data.shape)
    b = backend()
    if max(d.process_index for d in b.all_devices) == 0:
        if global_shape is not None and tuple(global_shape) != local_shape:
            raise ValueError(
                "When calling `make_array_from_process_local_data` on a single process, global_shape should "
                f"be None or equal to local_data.shape.Got global_shape={tuple(global_shape)} and "
                f"local_data.shape={local_shape}."
            )
        return device_put(data, sharding)
    shape = _global_shape(sharding, local_shape) if global_shape is None else tuple(int(d) for d in global_shape)
    if len(shape) != len(local_shape):
        raise ValueError(f"global_shape {shape} and local_data's shape {local_shape} differ in rank")
    sharding.check(shape, "make_array_from_process_local_data")
    aval = aval_of(data)
    aval = ShapedArray(shape, aval.dtype, aval.weak_type)
    own = {d: i for d, i in sharding.devices_indices_map(shape).items() if d.process_index == b.process_index}
    block = sharding.shard_shape(shape)
    starts = [sorted({_start(i[dim]) for i in own.values()}) for dim in range(len(shape))]
    for dim, (local, full) in enumerate(zip(local_shape, shape)):
        if local != full and local != len(starts[dim]) * block[dim]:
            raise ValueError(
                "Invalid host data, each dimension should match either global or process shape. In dimension "
                f"{dim}, the process data has {local} elements. Process addresses "
                f"{len(starts[dim]) * block[dim]} elements and global_shape={shape}."
            )

    def local_index(index: Index) -> Index:
        return tuple(
            s if local == full else slice(starts[d].index(_start(s)) * block[d], (starts[d].index(_start(s)) + 1) * block[d])
            for d, (s, local, full) in enumerate(zip(index, local_shape, shape))
        )

    piece_type = _PutType(ShapedArray(block, aval.dtype))
    pieces = [
        jx.batched_device_put(
            piece_type, _on(device), [np.ascontiguousarray(data[local_index(index)], dtype=aval.dtype)], [device],
            True, False, jx.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL, True,
        )
        for device, index in own.items()
    ]
    dev = jx.assemble(_PutType(aval), xla_sharding(sharding, len(shape)), pieces)
    return ShardedArrayImpl(aval, None, dev, sharding)


def make_array_from_single_device_arrays(
    shape: tuple[int, ...], sharding: Sharding, arrays: Sequence[Array]
) -> Array:
    """``jax.make_array_from_single_device_arrays``: the array of ``shape``
    laid out by ``sharding`` from one array per device of ``sharding`` that
    this process holds (each on its device, e.g. ``device_put(x, device)``,
    of the sharding's piece shape), in any order."""
    shape = tuple(int(d) for d in shape)
    sharding.check(shape, "make_array_from_single_device_arrays")
    b = backend()
    own = [d for d in sharding.device_assignment if d.process_index == b.process_index]
    block = sharding.shard_shape(shape)
    by_device: dict[jx.Device, jx.Array] = {}
    dtypes = set()
    for a in arrays:
        if not isinstance(a, ArrayImpl):
            raise TypeError(f"make_array_from_single_device_arrays: expected typedax arrays, got {type(a).__name__}")
        devices = a.devices()
        if len(devices) != 1:
            raise ShardingError(f"make_array_from_single_device_arrays: an array on {len(devices)} devices; each must be on one")
        (device,) = devices
        if device not in own or device in by_device:
            raise ShardingError(
                f"make_array_from_single_device_arrays: an array on {device}, which is "
                + ("given twice" if device in by_device else "not one of this process's devices of the sharding")
            )
        if a.shape != block:
            raise ValueError(
                f"make_array_from_single_device_arrays: an array of shape {a.shape} for pieces of shape {block} "
                f"(global shape {shape})"
            )
        dtypes.add(a.dtype)
        by_device[device] = a._pieces()[0] if isinstance(a, ShardedArrayImpl) else buffer_of(a)  # type: ignore[assignment]  # a jaxlib array
    if len(by_device) != len(own):
        raise ValueError(
            f"make_array_from_single_device_arrays: {len(by_device)} arrays for the {len(own)} devices of the "
            "sharding this process holds"
        )
    if len(dtypes) > 1:
        raise ValueError(f"make_array_from_single_device_arrays: arrays of several dtypes {sorted(map(str, dtypes))}")
    aval = ShapedArray(shape, dtypes.pop() if dtypes else np.dtype(np.float32))
    dev = jx.assemble(_PutType(aval), xla_sharding(sharding, len(shape)), [by_device[d] for d in own])
    return ShardedArrayImpl(aval, None, dev, sharding)
