"""``ShardedArrayImpl``: a concrete array laid out over devices by a
``Sharding`` (``typedax.sharding``), or committed to a device other than
the default one.

A subclass, so that every fast path, which tests ``type(x) is ArrayImpl``,
leaves sharded arrays to the general path: eager operations read their value
through NumPy (``to_numpy`` gathers the shards to the host once, as eager
operations are NumPy's), and ``jit`` sees their shardings
(``jitting/sharded.py``). Its device value is one jaxlib array holding a
buffer per device.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .array import _RUNTIME as _ARRAY_RUNTIME
from .array import ArrayImpl, DeviceBuffer, _installed
from .avals import ShapedArray
from .explicit import propagate, with_type
from .ir import NDArray, Params, Primitive
from .sharding import EXPLICIT_SEEN, Index, NamedSharding, PartitionSpec, Shard, Sharding, SingleDeviceSharding

if TYPE_CHECKING:
    from ..lowering.jaxlib_api import Device


@dataclass(frozen=True, slots=True)
class ShardRuntime:
    """What a sharded array needs of the runtime (the lowering layer, above
    this one, installs it with ``install_shard_runtime`` when
    ``typedax.lowering`` is imported): its device value's per-device pieces,
    a host value copied to the devices of a sharding, and one piece's value
    on the host."""

    pieces: Callable[[DeviceBuffer], Sequence[DeviceBuffer]]
    put: Callable[[NDArray, ShapedArray, Sharding], DeviceBuffer]
    to_host: Callable[[DeviceBuffer], NDArray]


def _missing(*args: object) -> object:
    raise RuntimeError("a sharded array needs the runtime: typedax.lowering is not imported (import typedax)")


_RUNTIME: list[ShardRuntime] = [ShardRuntime(_missing, _missing, _missing)]  # type: ignore[arg-type]  # raises before returning


def install_shard_runtime(runtime: ShardRuntime) -> None:
    """Make ``runtime`` what sharded arrays use (``typedax.lowering.sharding`` on import)."""
    _RUNTIME[0] = runtime


#: JAX's error for the value of an array whose pieces other processes hold.
NOT_ADDRESSABLE = (
    "Fetching value for `jax.Array` that spans non-addressable (non process local) devices is not possible. "
    "You can use `jax.experimental.multihost_utils.process_allgather` to print the global array or use "
    "`.addressable_shards` method of jax.Array to inspect the addressable (process local) shards."
)


def _key(index: Index) -> tuple[tuple[int | None, int | None], ...]:
    return tuple((s.start, s.stop) for s in index)


class ShardedArrayImpl(ArrayImpl):
    """An ``ArrayImpl`` whose device value is split (or copied) over the
    devices of ``sharding``."""

    __slots__ = ("_sharding",)
    _sharding: Sharding

    def __init__(
        self, aval: ShapedArray, host: NDArray | None, dev: DeviceBuffer | None, sharding: Sharding
    ) -> None:
        if EXPLICIT_SEEN[0]:  # on a mesh with Explicit axes, the type says how it is split
            aval = with_type(aval, sharding)
        super().__init__(aval, host, dev)
        self._sharding = sharding

    @property
    def sharding(self) -> Sharding:
        return self._sharding

    def devices(self) -> set[Device]:
        return self._sharding.device_set

    def _pieces(self) -> Sequence[DeviceBuffer]:
        runtime = _RUNTIME[0]
        if self._dev is None:
            if self._host is None:
                self.to_numpy()  # raises DeletedArrayError
            self._dev = runtime.put(self.to_numpy(), self.aval, self._sharding)
        return runtime.pieces(self._dev)

    def _addressable(self) -> list[tuple[Device, Index]]:
        """(device, index) of each piece this process holds, in the order of
        ``_pieces()``: every device's unless distributed (``typedax.distributed``)."""
        own = _installed(_ARRAY_RUNTIME, "the runtime").default_device().process_index
        index_map = self._sharding.devices_indices_map(self.aval.shape)
        return [(d, i) for d, i in index_map.items() if d.process_index == own]

    def to_numpy(self) -> NDArray:
        """The whole value, gathered from the shards to the host once. In a
        distributed run, only an array of which this process holds a copy of
        every piece (a replicated one, say) has a value here, as JAX's."""
        if self._host is None and self._dev is not None:
            to_host = _RUNTIME[0].to_host
            addressable = self._addressable()
            if len(addressable) < self._sharding.num_devices:  # pieces on other processes' devices
                every = {_key(i) for i in self._sharding.devices_indices_map(self.aval.shape).values()}
                if not addressable or {_key(i) for _, i in addressable} != every:
                    raise RuntimeError(NOT_ADDRESSABLE)  # (JAX's _process_has_full_value_in_mcjax)
            out = np.empty(self.aval.shape, dtype=self.aval.dtype)
            for (_, index), piece in zip(addressable, self._pieces()):
                out[index] = to_host(piece)
            self._host = out
        return super().to_numpy()

    @property
    def addressable_shards(self) -> list[Shard]:
        seen: dict[tuple[tuple[int | None, int | None], ...], int] = {}
        shards: list[Shard] = []
        sub = self._sharding.shard_shape(self.aval.shape)
        for (device, index), piece in zip(self._addressable(), self._pieces()):
            key = tuple((s.start, s.stop) for s in index)
            replica = seen[key] = seen.get(key, -1) + 1
            data = ShardedArrayImpl(ShapedArray(sub, self.aval.dtype, self.aval.weak_type), None, piece,
                                    SingleDeviceSharding(device))
            shards.append(Shard(device, index, replica, data))
        return shards


def typed_operand(args: Sequence[object]) -> bool:
    """Whether an eager operation's operand carries an explicit sharding type."""
    return any(type(a) is ShardedArrayImpl and a.aval.sharding is not None for a in args)


def eval_typed(
    process: Callable[[Primitive, Sequence[object], Params], Sequence[object]],
    prim: Primitive, args: Sequence[object], avals: Sequence[ShapedArray], params: Params,
) -> list[object]:
    """An eager operation on arrays with explicit sharding types (JAX's
    explicit mode): the value as any eager operation's (``process``, on the
    operands' host values), laid out as the sharding rule types it. A
    scalar result (untyped) is replicated over the operands' mesh, as
    JAX's (``x.sum()``, a ``shard_map`` with ``out_specs=P()``)."""
    typed = propagate(prim.name, avals, params, list(prim.abstract_eval(avals, params)))
    plain = [a.to_numpy() if type(a) is ShardedArrayImpl else a for a in args]
    outs = list(process(prim, plain, params))
    mesh = next((a.sharding.mesh for a in avals if a.sharding is not None), None)
    for i, (o, t) in enumerate(zip(outs, typed)):
        if t.sharding is not None and isinstance(o, ArrayImpl):
            outs[i] = ShardedArrayImpl(o.aval, o.to_numpy(), None, NamedSharding(t.sharding.mesh, t.sharding.spec))
        elif not t.ndim and mesh is not None and mesh.explicit_axes and isinstance(o, ArrayImpl):
            outs[i] = ShardedArrayImpl(o.aval, o.to_numpy(), None, NamedSharding(mesh, PartitionSpec()))
    return outs
