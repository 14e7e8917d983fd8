"""``typedax.experimental.multihost_utils`` (``jax.experimental.multihost_utils``):
host values across the processes of a distributed run
(``typedax.distributed``), as JAX builds them -- each is one small program
over a mesh of every process's devices whose collectives carry the data.

- ``process_allgather(x, tiled=False)``: every process's value, stacked (or
  concatenated), on every process; an array other processes hold part of,
  whole;
- ``broadcast_one_to_all(x, is_source=None)``: process 0's value everywhere;
- ``assert_equal(x, fail_message='')``: the same value in every process, or
  ``AssertionError``;
- ``sync_global_devices(name)``: a barrier (every process must reach it
  with the same name).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np

from .. import tree_util
from ..core.array import Array
from ..core.ir import NDArray
from ..core.sharded import ShardedArrayImpl
from ..core.sharding import Mesh, NamedSharding, PartitionSpec
from ..jitting import jit
from ..lowering.multihost import make_array_from_single_device_arrays
from ..lowering.runtime import devices, local_device_count, local_devices, process_count, process_index
from ..lowering.sharding import device_put

__all__ = ["assert_equal", "broadcast_one_to_all", "process_allgather", "sync_global_devices"]


def _identity(x: Array) -> Array:
    return x


def _sum0(x: Array) -> Array:
    return x.sum(axis=0, dtype=x.dtype)


def _process_mesh() -> Mesh:
    """Every device, one row per process (JAX's ``('processes', 'local_devices')``)."""
    grid = np.empty(len(devices()), dtype=object)
    grid[:] = devices()
    return Mesh(grid.reshape(process_count(), local_device_count()), ("processes", "local_devices"))


def _stacked(host: NDArray, apply: Callable[[Array], Array]) -> NDArray:
    """``apply`` (its output replicated) of the global array whose block
    ``p`` along the first axis is process ``p``'s ``host``."""
    mesh = _process_mesh()
    pieces = [device_put(host, d) for d in local_devices()]
    shape = (host.shape[0] * process_count(), *host.shape[1:])
    global_array = make_array_from_single_device_arrays(shape, NamedSharding(mesh, PartitionSpec("processes")), pieces)
    out = jit(apply, out_shardings=NamedSharding(mesh, PartitionSpec()))(global_array)
    return np.asarray(out)


def _allgather(x: object, tiled: bool) -> NDArray:
    if isinstance(x, ShardedArrayImpl) and not x.is_fully_addressable:
        if not tiled:
            raise ValueError("Gathering global non-fully-addressable arrays only supports tiled=True")
        s = x.sharding
        if not isinstance(s, NamedSharding):
            raise ValueError(f"process_allgather: an array laid out by {s!r} (expected a NamedSharding)")
        out = jit(_identity, out_shardings=NamedSharding(s.mesh, PartitionSpec()))(x)
        return np.asarray(out)
    host = np.asarray(x)
    if process_count() == 1:  # (a scalar tiled stays a scalar here, as JAX's)
        return host if tiled else np.expand_dims(host, axis=0)
    if host.ndim == 0 or not tiled:
        host = np.expand_dims(host, axis=0)
    return _stacked(host, _identity)


def process_allgather(in_tree: object, tiled: bool = False) -> object:
    """``jax.experimental.multihost_utils.process_allgather``: each leaf (of
    the same shape in every process) gathered from every process as a NumPy
    array, stacked on a new first axis (``tiled=True``: concatenated on the
    first; a scalar is always stacked). A leaf that is an array other
    processes hold part of is returned whole (``tiled=True`` only, as JAX's)."""
    return tree_util.tree_map(lambda x: _allgather(x, tiled), in_tree)


def broadcast_one_to_all(in_tree: object, is_source: bool | None = None) -> object:
    """``jax.experimental.multihost_utils.broadcast_one_to_all``: each leaf
    (of the same shape in every process) as the source process (process 0,
    or the one passing ``is_source=True``) has it, as NumPy arrays."""
    if process_count() == 1:
        return tree_util.tree_map(np.asarray, in_tree)
    source = process_index() == 0 if is_source is None else is_source

    def one(x: object) -> NDArray:
        host = np.asarray(x)
        mine = host if source else np.zeros_like(host)
        return _stacked(np.expand_dims(mine, axis=0), _sum0)

    return tree_util.tree_map(one, in_tree)


def assert_equal(in_tree: object, fail_message: str = "") -> None:
    """``jax.experimental.multihost_utils.assert_equal``: ``AssertionError``
    (with ``fail_message``) unless every process passed the same values."""

    def repeated(x: object) -> NDArray:
        if isinstance(x, ShardedArrayImpl) and not x.is_fully_addressable:
            return np.asarray(x.addressable_shards[0].data)
        host = np.asarray(x)
        if host.ndim == 0:
            host = np.expand_dims(host, axis=0)
        return np.concatenate([host] * process_count())

    gathered = process_allgather(in_tree, tiled=True)
    expected = tree_util.tree_map(repeated, in_tree)
    same = tree_util.tree_map(lambda a, b: bool(np.all(np.equal(a, b))), expected, gathered)
    if not tree_util.tree_all(same):
        raise AssertionError(f"{fail_message}. Expected: {gathered}; got: {in_tree}.")


def sync_global_devices(name: str) -> None:
    """``jax.experimental.multihost_utils.sync_global_devices``: wait until
    every process has reached this call with the same ``name``
    (``AssertionError`` if the names differ)."""
    h = np.uint32(zlib.crc32(name.encode()))
    assert_equal(h, f"sync_global_devices name mismatch ('{name}')")
