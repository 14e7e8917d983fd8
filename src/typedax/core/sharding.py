"""Shardings: how an array's elements are laid out over devices
(``typedax.sharding``; JAX's ``jax.sharding``).

Plain values, compared by value: a ``Mesh`` (devices in an n-d grid with
named axes), a ``PartitionSpec`` (per array dimension, the mesh axes it is
split over), a ``NamedSharding`` (the two together) and a
``SingleDeviceSharding``. They know which piece of an array each device
holds (``devices_indices_map``) and, for the compiler, the tiling XLA's
``HloSharding`` needs (``tile_assignment``); turning that into jaxlib's
objects is ``lowering/sharding.py``'s job. Devices are jaxlib's ``Device``
objects (typed here, never imported).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias, Union

import numpy as np

from .errors import ShardingError

if TYPE_CHECKING:
    from ..lowering.jaxlib_api import Device
    from .array import Array

#: One entry of a ``PartitionSpec``: unsplit, one mesh axis, or several.
AxisEntry: TypeAlias = Union[str, tuple[str, ...], None]

#: An array dimension's piece on one device: ``slice(None)`` when unsplit.
Index: TypeAlias = tuple[slice, ...]


def _entry(e: object) -> AxisEntry:
    """JAX's canonical form: a one-name tuple (or list) is the name."""
    if e is None or isinstance(e, str):
        return e
    if isinstance(e, (tuple, list)) and all(isinstance(n, str) for n in e):
        names = tuple(e)
        return names[0] if len(names) == 1 else names
    raise ShardingError(
        f"PartitionSpec entries are None, a mesh axis name or a tuple of names, got {e!r}"
    )


@dataclass(frozen=True, slots=True, init=False)
class PartitionSpec:
    """``P('data', None)``: per array dimension, the mesh axes splitting it
    (``None``: not split); dimensions past its length are not split."""

    partitions: tuple[AxisEntry, ...]

    def __init__(self, *partitions: AxisEntry | list[str]) -> None:
        object.__setattr__(self, "partitions", tuple(_entry(p) for p in partitions))

    def __len__(self) -> int:
        return len(self.partitions)

    def __getitem__(self, i: int) -> AxisEntry:
        return self.partitions[i]

    def __iter__(self) -> Iterator[AxisEntry]:
        return iter(self.partitions)

    def __repr__(self) -> str:
        return f"P({repr(self.partitions)[1:-1]})"

    def axes(self) -> list[str]:
        """The mesh axes used, in order."""
        out: list[str] = []
        for p in self.partitions:
            out.extend(() if p is None else (p,) if isinstance(p, str) else p)
        return out


P = PartitionSpec


class AxisType(enum.Enum):
    """``jax.sharding.AxisType``: how a mesh axis is programmed. ``Auto``:
    the compiler chooses how values are split over it; ``Explicit``: a
    value's split over it is part of its type (``typeof(x)`` shows it,
    each operation's sharding rule propagates it at trace time);
    ``Manual``: per-device code (``shard_map``)."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


#: Set once a mesh with an Explicit axis is made: until then tracing skips
#: the sharding rules altogether (``core/explicit.py``).
EXPLICIT_SEEN: list[bool] = [False]


def _axis_types(axis_types: object, names: tuple[str, ...]) -> tuple[AxisType, ...]:
    """JAX's checks of a mesh's ``axis_types`` (``None``: every axis Auto)."""
    if axis_types is None:
        return (AxisType.Auto,) * len(names)
    types = (axis_types,) if isinstance(axis_types, AxisType) else axis_types
    if not isinstance(types, (tuple, list)) or not all(isinstance(t, AxisType) for t in types):
        got = tuple(types) if isinstance(types, (tuple, list, str)) else types
        kinds = tuple(type(t) for t in got) if isinstance(got, tuple) else type(got)
        raise TypeError(
            "axis_types passed to Mesh must be of type `jax.sharding.AxisType`. "
            f"Got {got} of type {kinds}"
        )
    if len(types) != len(names):
        raise ShardingError(
            "Number of axis names should match the number of axis_types. Got "
            f"axis_names={names} and axis_types={tuple(types)}"
        )
    if AxisType.Explicit in types:
        EXPLICIT_SEEN[0] = True
    return tuple(types)


def _types_text(types: tuple[AxisType, ...]) -> str:
    return "(" + ", ".join(t.name for t in types) + ("," if len(types) == 1 else "") + ")"


@dataclass(frozen=True, slots=True, init=False)
class Mesh:
    """``Mesh(devices, axis_names, axis_types=None)``: the devices as an
    n-d grid (a nested sequence or NumPy array of them) with one name per
    grid axis, and each axis's ``AxisType`` (Auto unless given)."""

    axis_names: tuple[str, ...]
    axis_sizes: tuple[int, ...]
    #: the devices in C order of the grid: the program's device assignment
    flat_devices: tuple[Device, ...]
    axis_types: tuple[AxisType, ...]
    #: the names of the Explicit axes (kept: sharding rules read it per operation)
    explicit_axes: tuple[str, ...]

    def __init__(self, devices: Sequence[object] | np.ndarray[tuple[int, ...], np.dtype[np.object_]],
                 axis_names: str | Sequence[str],
                 axis_types: AxisType | Sequence[AxisType] | None = None) -> None:
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        grid = np.asarray(devices, dtype=object)
        if grid.ndim != len(names):
            raise ShardingError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length "
                "of its second argument (`axis_names`), but got "
                f"devices.ndim == {grid.ndim} and len(axis_names) == {len(names)}."
            )
        if len(set(names)) != len(names) or not all(isinstance(n, str) for n in names):
            raise ShardingError(f"Mesh axis names must be distinct strings, got {names}")
        flat = tuple(grid.flat)
        if len({id(d) for d in flat}) != len(flat):
            raise ShardingError("Mesh: a device appears more than once")
        object.__setattr__(self, "axis_names", names)
        object.__setattr__(self, "axis_sizes", tuple(int(s) for s in grid.shape))
        object.__setattr__(self, "flat_devices", flat)
        object.__setattr__(self, "axis_types", _axis_types(axis_types, names))
        object.__setattr__(self, "explicit_axes",
                           tuple(n for n, t in zip(names, self.axis_types) if t is AxisType.Explicit))

    def update_axis_types(self, types: dict[str, AxisType]) -> Mesh:
        """This mesh with the axes named in ``types`` of those types."""
        new = tuple(types.get(n, t) for n, t in zip(self.axis_names, self.axis_types))
        return Mesh(self.devices, self.axis_names, new)

    @property
    def abstract_mesh(self) -> AbstractMesh:
        """The mesh without its devices (``jax.sharding.AbstractMesh``)."""
        platform = self.flat_devices[0].platform if self.flat_devices else None
        return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types, platform)

    @property
    def devices(self) -> np.ndarray[tuple[int, ...], np.dtype[np.object_]]:
        """The device grid (a new NumPy array: the mesh does not change)."""
        grid = np.empty(len(self.flat_devices), dtype=object)
        grid[:] = self.flat_devices
        return grid.reshape(self.axis_sizes)

    @property
    def shape(self) -> dict[str, int]:
        return dict(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    @property
    def device_ids(self) -> np.ndarray[tuple[int, ...], np.dtype[np.int64]]:
        return np.array([d.id for d in self.flat_devices], dtype=np.int64).reshape(self.axis_sizes)

    def __repr__(self) -> str:
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
                f"axis_types={_types_text(self.axis_types)})")

    def __str__(self) -> str:
        axes = ", ".join(f"{n!r}: {s}" for n, s in zip(self.axis_names, self.axis_sizes))
        return f"Mesh({axes}, axis_types={_types_text(self.axis_types)})"


@dataclass(frozen=True, slots=True)
class AbstractMesh:
    """``jax.sharding.AbstractMesh``: a mesh's axis names, sizes and types
    without its devices (what ``get_abstract_mesh()`` gives); empty when no
    mesh is set."""

    axis_sizes: tuple[int, ...]
    axis_names: tuple[str, ...]
    axis_types: tuple[AxisType, ...] = ()  # (): every axis Auto
    platform: str | None = None

    def __post_init__(self) -> None:
        names = tuple(self.axis_names)
        object.__setattr__(self, "axis_sizes", tuple(int(n) for n in self.axis_sizes))
        object.__setattr__(self, "axis_names", names)
        object.__setattr__(self, "axis_types", _axis_types(self.axis_types or None, names))
        if len(self.axis_sizes) != len(names):
            raise ShardingError(f"AbstractMesh: {len(self.axis_sizes)} axis sizes for {len(names)} axis names")

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    @property
    def empty(self) -> bool:
        return not self.axis_names

    @property
    def shape(self) -> dict[str, int]:
        return dict(zip(self.axis_names, self.axis_sizes))

    @property
    def explicit_axes(self) -> tuple[str, ...]:
        return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t is AxisType.Explicit)

    def __repr__(self) -> str:
        if self.empty:
            return "AbstractMesh((), axis_types=())"
        axes = ", ".join(f"{n!r}: {s}" for n, s in zip(self.axis_names, self.axis_sizes))
        if self.platform is None:  # (one made by hand: no devices behind it)
            return f"AbstractMesh({axes}, axis_types={_types_text(self.axis_types)})"
        return (f"AbstractMesh({axes}, axis_types={_types_text(self.axis_types)}, "
                f"device_kind={self.platform}, num_cores=None, platform={self.platform})")


@dataclass(frozen=True, slots=True)
class SingleDeviceSharding:
    """The whole array on one device."""

    device: Device

    @property
    def device_set(self) -> set[Device]:
        return {self.device}

    @property
    def device_assignment(self) -> tuple[Device, ...]:
        return (self.device,)

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def num_devices(self) -> int:
        return 1

    def devices_indices_map(self, shape: tuple[int, ...]) -> dict[Device, Index]:
        return {self.device: tuple(slice(None) for _ in shape)}

    def shard_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        return shape

    def check(self, shape: tuple[int, ...], what: str) -> None:
        """Every shape fits on one device."""

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self.device!r}, memory_kind=device)"


@dataclass(frozen=True, slots=True)
class NamedSharding:
    """``NamedSharding(mesh, spec)``: dimension ``i`` of an array split in
    ``prod(mesh sizes of spec[i])`` equal blocks, block ``k`` on the devices
    whose mesh coordinates along those axes (major first) number ``k``;
    the array is replicated over the mesh axes the spec does not name."""

    mesh: Mesh
    spec: PartitionSpec
    #: whether it is an array type's sharding (explicit sharding,
    #: ``core/explicit.py``): it then prints over the abstract mesh, as JAX's
    type_level: bool = field(default=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.spec, PartitionSpec):
            raise ShardingError(f"NamedSharding: spec must be a PartitionSpec, got {self.spec!r}")
        used = self.spec.axes()
        for name in used:
            if name not in self.mesh.axis_names:
                raise ShardingError(
                    f"Resource axis: {name} of {self.spec!r} is not found in mesh: {self.mesh.axis_names}."
                )
        for name in used:
            if used.count(name) > 1:
                raise ShardingError(
                    "A single NamedSharding spec specification can map every mesh axis to at most "
                    f"one positional dimension, but {self.spec!r} has duplicate entries for `{name}`"
                )

    def __repr__(self) -> str:
        if self.type_level:
            return f"NamedSharding(mesh={self.mesh.abstract_mesh!r}, spec={self.spec!r})"
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}, memory_kind=device)"

    @property
    def device_set(self) -> set[Device]:
        return set(self.mesh.flat_devices)

    @property
    def device_assignment(self) -> tuple[Device, ...]:
        return self.mesh.flat_devices

    @property
    def num_devices(self) -> int:
        return self.mesh.size

    @property
    def is_fully_replicated(self) -> bool:
        sizes = self.mesh.shape
        return all(sizes[a] == 1 for a in self.spec.axes())

    def _splits(self, ndim: int) -> list[tuple[str, ...]]:
        """Per dimension, the mesh axes splitting it."""
        out: list[tuple[str, ...]] = []
        for i in range(ndim):
            p = self.spec.partitions[i] if i < len(self.spec) else None
            out.append(() if p is None else (p,) if isinstance(p, str) else p)
        return out

    def check(self, shape: tuple[int, ...], what: str) -> None:
        """Refuse a shape this sharding cannot split (JAX's errors), naming
        the operation ``what``."""
        if len(self.spec) > len(shape):
            raise ShardingError(
                f"{what}: sharding {self!r} is only valid for values of rank at least "
                f"{len(self.spec)}, but was applied to a value of rank {len(shape)}"
            )
        sizes = self.mesh.shape
        for i, axes in enumerate(self._splits(len(shape))):
            n = math.prod(sizes[a] for a in axes)
            if shape[i] % n:
                raise ShardingError(
                    f"{what}: sharding {self!r} implies that the global size of its dimension {i} "
                    f"should be divisible by {n}, but it is equal to {shape[i]} (full shape: {shape})"
                )

    def shard_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        sizes = self.mesh.shape
        return tuple(
            d // math.prod(sizes[a] for a in axes) for d, axes in zip(shape, self._splits(len(shape)))
        )

    def devices_indices_map(self, shape: tuple[int, ...]) -> dict[Device, Index]:
        """Each device's piece of an array of ``shape``, as JAX's: a
        ``slice(start, stop)`` per split dimension, ``slice(None)`` per other."""
        self.check(shape, "devices_indices_map")
        pos = {n: i for i, n in enumerate(self.mesh.axis_names)}
        sizes = self.mesh.shape
        splits = self._splits(len(shape))
        block = self.shard_shape(shape)
        out: dict[Device, Index] = {}
        for flat, device in enumerate(self.mesh.flat_devices):
            coords = np.unravel_index(flat, self.mesh.axis_sizes)
            index: list[slice] = []
            for d, axes in enumerate(splits):
                if not axes:
                    index.append(slice(None))
                    continue
                k = 0
                for a in axes:  # mixed radix, the first axis major
                    k = k * sizes[a] + int(coords[pos[a]])
                index.append(slice(k * block[d], (k + 1) * block[d]))
            out[device] = tuple(index)
        return out

    def tile_assignment(self, ndim: int) -> tuple[list[int], list[int], list[int], bool] | None:
        """XLA's tiling, as JAX's ``named_sharding_to_xla_hlo_sharding``:
        (tiles per dimension, plus the replicated count last when some mesh
        axes are unused; the mesh's axis sizes; the permutation of mesh axes
        that orders the devices tile by tile; whether the last tile
        dimension is replication), or ``None`` when fully replicated. Axes of
        size 1 are left out, as JAX does, so the text matches JAX's."""
        names = [n for n, s in zip(self.mesh.axis_names, self.mesh.axis_sizes) if s != 1]
        sizes = {n: self.mesh.shape[n] for n in names}
        splits = [tuple(a for a in axes if a in sizes) for axes in self._splits(ndim)]
        used = [a for axes in splits for a in axes]
        if not used:
            return None
        dims = [math.prod(sizes[a] for a in axes) for axes in splits]
        perm = [names.index(a) for a in used]
        rest = [i for i, n in enumerate(names) if n not in used]
        if rest:
            dims.append(math.prod(sizes[names[i]] for i in rest))
            perm.extend(rest)
        return dims, [sizes[n] for n in names], perm, bool(rest)


#: A sharding typedax knows.
Sharding: TypeAlias = Union[NamedSharding, SingleDeviceSharding]


@dataclass(frozen=True, slots=True)
class Shard:
    """One device's piece of an array (``jax.Shard``): ``data`` is that
    piece as an array on ``device``; ``index`` where it sits in the whole;
    ``replica_id`` which copy it is among the devices holding that piece."""

    device: Device
    index: Index
    replica_id: int
    data: Array

    def __repr__(self) -> str:
        return (f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
                f"data={np.asarray(self.data)})")
