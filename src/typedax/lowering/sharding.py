"""Shardings on the runtime: jaxlib's ``HloSharding``/``GSPMDSharding`` for
a ``typedax.sharding`` value, transfers of a host value split over devices,
``device_put(x, sharding)``, and the way back from the sharding XLA chose
for an output to a ``NamedSharding``."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast, overload

import numpy as np

from .. import tree
from ..core.array import ArrayImpl, ArrayLike
from ..core.avals import ShapedArray, physical_aval
from ..core.dtypes import EXTENDED
from ..core.errors import PrimitiveTypeError, ShardingError
from ..core.ir import Jaxpr, NDArray
from ..core.array import DeviceBuffer
from ..core.sharded import ShardedArrayImpl, ShardRuntime, install_shard_runtime
from ..core.explicit import abstract_mesh, current_mesh  # explicit sharding
from ..core.sharding import AxisType, Mesh, NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding
from ..core.array import aval_key
from ..core.trace import Tracer, Value, aval_of, bind1
from ..primitives.sharding_constraint import constraint_params, sharding_constraint_p
from . import jaxlib_api as jx
from .lower import LoweredModule, lower_jaxpr
from .runtime import Executable, _PutType, backend


T = TypeVar("T")


@functools.lru_cache(maxsize=4096)
def hlo_sharding(s: Sharding, ndim: int) -> jx.HloSharding:
    """XLA's sharding of an array of rank ``ndim`` laid out by ``s``; its
    device numbers are positions in ``s.device_assignment``."""
    tiles = s.tile_assignment(ndim) if isinstance(s, NamedSharding) else None
    if tiles is None:
        return jx.replicated_hlo_sharding()
    return jx.iota_sharding(*tiles)


def hlo_text(s: Sharding, ndim: int) -> str:
    """The ``mhlo.sharding`` attribute text (``{devices=[4,1,2]<=[8] ...}``)."""
    return str(hlo_sharding(s, ndim))


@functools.lru_cache(maxsize=4096)
def xla_sharding(s: Sharding, ndim: int) -> jx.GSPMDSharding:
    """jaxlib's sharding object for transfers and result handlers."""
    return jx.GSPMDSharding(jx.DeviceList(s.device_assignment), hlo_sharding(s, ndim))


def put_sharded(host: NDArray, aval: ShapedArray, s: Sharding) -> jx.Array:
    """Copy a host value of type ``aval`` to the devices of ``s``, each its
    piece. In a distributed run (``typedax.distributed``) only this
    process's devices get theirs: ``host`` is the global value, which every
    process passes alike (as JAX's ``device_put`` asks; not checked)."""
    index_map = s.devices_indices_map(aval.shape)
    piece_type = _PutType(ShapedArray(s.shard_shape(aval.shape), aval.dtype))
    process = backend().process_index  # a distributed run: other processes put their own pieces
    pieces = [
        jx.batched_device_put(
            piece_type, _on(device), [np.ascontiguousarray(host[index])], [device],
            True, False, jx.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL, True,
        )
        for device, index in index_map.items() if device.process_index == process
    ]
    return jx.assemble(_PutType(aval), xla_sharding(s, len(aval.shape)), pieces)


def _pieces(dev: DeviceBuffer) -> list[DeviceBuffer]:
    return jx.single_device_arrays(dev)  # type: ignore[arg-type, return-value]  # a jaxlib Array (DeviceBuffer is its protocol)


def _to_host(piece: DeviceBuffer) -> NDArray:
    return jx.device_to_numpy(piece)  # type: ignore[arg-type]  # a jaxlib array


install_shard_runtime(ShardRuntime(_pieces, put_sharded, _to_host))  # what core.sharded's arrays run on


@functools.lru_cache(maxsize=None)
def _on(device: jx.Device) -> jx.GSPMDSharding:
    """jaxlib's sharding for a whole array on ``device`` (one per device)."""
    return jx.GSPMDSharding(jx.DeviceList((device,)), jx.replicated_hlo_sharding())


def mesh_sharding(spec: PartitionSpec, what: str) -> NamedSharding:
    """``spec`` over the current mesh (``set_mesh``): JAX lets a bare
    ``PartitionSpec`` stand for that sharding (explicit sharding)."""
    mesh = current_mesh()
    if mesh is None:
        raise ShardingError(
            f"{what}: Using PartitionSpec when you are not under a mesh context is not allowed. Please "
            f"pass a NamedSharding instance or enter into a mesh context via `typedax.set_mesh`. Got {spec!r}"
        )
    return NamedSharding(mesh, spec)


#: Where ``device_put`` puts one array: a device, a sharding, a spec over
#: the current mesh, or ``None`` (the default device).
Placement = Sharding | PartitionSpec | jx.Device | None
#: A pytree of arrays ``device_put`` maps over (issue 25: the parallel guide's
#: ``device_put((x, weights, bias), (sharded_s, sharded_s, rep_s))``).
_PLACEMENTS = (NamedSharding, SingleDeviceSharding, PartitionSpec, jx.Device, type(None))
_TreeT = TypeVar("_TreeT", bound=Sequence[object] | Mapping[str, object])


@overload
def device_put(x: ArrayLike, device: Placement = None) -> ArrayImpl: ...
@overload
def device_put(x: _TreeT, device: Placement | Sequence[object] | Mapping[str, object] = None) -> _TreeT: ...
def device_put(x: object, device: object = None) -> object:
    """``jax.device_put(x, device)``: ``x`` on the device (the default one
    for ``None``), or laid out over devices by a sharding. A typedax array
    already there is returned as it is; otherwise the value is copied
    (gathered to the host first when it is sharded differently). ``x`` may
    be a pytree of arrays and ``device`` one placement for all its leaves
    or a pytree prefix of ``x`` of them, as JAX's."""
    if isinstance(x, (tuple, list, dict)) or not isinstance(device, _PLACEMENTS):
        leaves, treedef = tree.flatten(x)
        placements = _prefix(device, x, "device_put")
        for p in placements:
            if not isinstance(p, _PLACEMENTS):
                raise ShardingError(f"device_put: expected a device or a sharding, got {p!r}")
        return tree.unflatten(treedef, [_device_put(leaf, p) for leaf, p in zip(leaves, placements)])  # type: ignore[arg-type]  # the leaves of an array pytree, checked by _device_put
    return _device_put(x, device)  # type: ignore[arg-type]  # an ArrayLike (checked by aval_of) and a placement (checked above)


def _device_put(x: ArrayLike, device: Placement) -> ArrayImpl:
    """``device_put`` of one array."""
    from .runtime import device_put as put_default

    if isinstance(x, Tracer):
        raise PrimitiveTypeError("device_put: a tracer cannot be sent to a device")
    if isinstance(device, PartitionSpec):  # explicit sharding: over the mesh set_mesh set
        device = mesh_sharding(device, "device_put")
    if device is None:
        return put_default(x)
    s: Sharding = device if isinstance(device, (NamedSharding, SingleDeviceSharding)) else SingleDeviceSharding(device)
    if not all(isinstance(d, jx.Device) for d in s.device_assignment):
        raise ShardingError(f"device_put: expected a device or a sharding, got {device!r}")
    if type(x) is ShardedArrayImpl and x.sharding == s:
        return x
    b = backend()
    if s == SingleDeviceSharding(b.device) and type(x) is not ShardedArrayImpl:
        return put_default(x)
    aval = aval_of(x)
    if aval.dtype in EXTENDED:
        raise ShardingError("device_put: typed PRNG key arrays cannot be sharded yet; shard their key_data")
    missing = [d for d in s.device_assignment if d not in b.all_devices]
    if missing:
        raise ShardingError(f"device_put: {s!r} names devices typedax does not have: {missing}")
    s.check(aval.shape, "device_put")
    host = np.array(x, dtype=aval.dtype)  # a copy: the caller may change theirs
    dev = put_sharded(host, physical_aval(aval), s)
    if any(d.process_index != b.process_index for d in s.device_assignment):
        # other processes hold some pieces (typedax.distributed): no value here, as JAX's
        return ShardedArrayImpl(aval, None, dev, s)
    return ShardedArrayImpl(aval, host, dev, s)


def output_sharding(hlo: jx.HloSharding, mesh: Mesh, ndim: int) -> Sharding | None:
    """The ``NamedSharding`` over ``mesh`` whose XLA sharding is ``hlo`` (the
    sharding XLA chose for an output nothing constrained), or ``None``.
    Searches the specs that use each mesh axis at most once (few, for the
    meshes people write), trying the replicated and the simplest first."""
    if hlo.is_replicated():
        return NamedSharding(mesh, PartitionSpec())
    return _search(hlo, mesh, ndim)


@functools.lru_cache(maxsize=1024)
def _search(hlo: jx.HloSharding, mesh: Mesh, ndim: int) -> Sharding | None:
    axes = [n for n, size in zip(mesh.axis_names, mesh.axis_sizes) if size > 1]
    # each axis on one dimension (or none: -1); within a dimension, in the order of a permutation
    for order in itertools.permutations(axes):
        for dims in itertools.product(range(-1, ndim), repeat=len(order)):
            parts: list[list[str]] = [[] for _ in range(ndim)]
            for a, d in zip(order, dims):
                if d >= 0:
                    parts[d].append(a)
            spec = PartitionSpec(*[None if not p else p[0] if len(p) == 1 else tuple(p) for p in parts])
            candidate = NamedSharding(mesh, spec)
            if hlo_sharding(candidate, ndim) == hlo:
                return candidate
    return None


def make_mesh(
    axis_shapes: tuple[int, ...] | list[int], axis_names: tuple[str, ...] | list[str] | str,
    axis_types: AxisType | Sequence[AxisType] | None = None,
    *, devices: list[jx.Device] | tuple[jx.Device, ...] | None = None,
) -> Mesh:
    """``jax.make_mesh``: the first ``prod(axis_shapes)`` devices (of
    ``devices()`` by default) as a grid of that shape, in order, its axes of
    ``axis_types``, Explicit when not given, as JAX 0.10's: how arrays on
    the mesh are split is then part of their type (``typeof``); pass
    ``axis_types=(AxisType.Auto,) * n`` for XLA's propagation alone
    (docs/scale-out.md). ``Mesh(devices, names)`` itself stays Auto, as
    JAX's."""
    names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    shape = tuple(int(s) for s in axis_shapes)
    if len(shape) != len(names):
        raise ShardingError(f"make_mesh: {len(shape)} axis sizes {shape} for {len(names)} names {names}")
    pool = list(backend().all_devices if devices is None else devices)
    size = int(np.prod(shape, dtype=np.int64))
    if size > len(pool):
        raise ShardingError(f"Number of devices {len(pool)} must be >= the product of mesh_shape {shape}")
    grid = np.empty(size, dtype=object)
    grid[:] = pool[:size]
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(shape)
    return Mesh(grid.reshape(shape), names, axis_types)


@dataclass(frozen=True, slots=True)
class ShardingPlan:
    """How one program is partitioned: the sharding of each input and
    output (``None``: unspecified -- an input is replicated, an output
    laid out as XLA's propagation chooses), the devices it runs on (the
    device assignment: positions in XLA's shardings index it) and the mesh
    an output's chosen sharding is named on. Part of the compile cache's
    key: a jaxpr compiled for other shardings is another executable."""

    in_shardings: tuple[Sharding | None, ...]
    out_shardings: tuple[Sharding | None, ...]
    devices: tuple[jx.Device, ...]
    mesh: Mesh | None

    def input_sharding(self, i: int) -> Sharding:
        """Input ``i``'s sharding, replicated when unspecified."""
        s = self.in_shardings[i]
        if s is not None:
            return s
        if self.mesh is not None:
            return NamedSharding(self.mesh, PartitionSpec())
        return SingleDeviceSharding(self.devices[0])


def lower_sharded(jaxpr: Jaxpr, name: str, plan: ShardingPlan, donated: Sequence[bool] = ()) -> LoweredModule:
    """``lower_jaxpr`` with ``plan``'s annotations (JAX's ``mhlo.sharding``)."""
    args = [hlo_text(plan.input_sharding(i), len(a.shape)) for i, a in enumerate(jaxpr.in_avals)]
    results = [
        None if s is None else hlo_text(s, len(a.shape)) for s, a in zip(plan.out_shardings, jaxpr.out_avals)
    ]
    return lower_jaxpr(jaxpr, name, donated, args, results, len(plan.devices))


def compile_sharded(
    lowered: LoweredModule, in_avals: Sequence[ShapedArray], out_avals: Sequence[ShapedArray], plan: ShardingPlan,
) -> Executable:
    """Compile with XLA's SPMD partitioner over ``plan.devices``; outputs
    whose sharding was left open take the one XLA chose (named on the mesh)."""
    b = backend()
    ids = [d.id for d in plan.devices]
    loaded = b.client.compile_and_load(
        lowered.as_bytecode(), jx.DeviceList(plan.devices), jx.spmd_compile_options(ids, [s is None for s in plan.out_shardings])
    )
    outs: list[Sharding] = []
    chosen = jx.output_hlo_shardings(loaded) if None in plan.out_shardings else []
    for i, (s, a) in enumerate(zip(plan.out_shardings, out_avals)):
        if s is None:
            # one device: XLA reports no output shardings (all are whole)
            hlo = chosen[i] if i < len(chosen) else jx.replicated_hlo_sharding()
            found = None if plan.mesh is None else output_sharding(hlo, plan.mesh, len(a.shape))
            if found is None:
                raise ShardingError(
                    f"jit of '{lowered.name}': XLA laid output {i} ({a.str_short()}) out as {hlo}, "
                    "which no NamedSharding on the mesh names; give it an out_sharding"
                )
            s = found
        outs.append(s)
    handlers = tuple(jx.array_result_handler(_PutType(a), xla_sharding(s, len(a.shape))) for a, s in zip(out_avals, outs))
    keys = tuple(aval_key(a) for a in out_avals)
    ins = tuple(plan.input_sharding(i) for i in range(len(in_avals)))
    return Executable(
        lowered.name, loaded, tuple(in_avals), tuple(out_avals), keys, handlers, lowered.donated_inputs, ins, tuple(outs)
    )


def sharded_buffer(x: Value, aval: ShapedArray, s: Sharding) -> jx.Array:
    """``x``'s device value laid out by ``s``: its own buffer when it is
    already so, else its value (gathered to the host) copied there."""
    if type(x) is ShardedArrayImpl and x.sharding == s and x._dev is not None:
        return x._dev  # type: ignore[return-value]  # a jaxlib array
    if isinstance(x, Tracer):
        raise PrimitiveTypeError("jit: a tracer cannot be sent to the device")
    host = np.asarray(x, dtype=aval.dtype)
    if host.shape != aval.shape:
        raise PrimitiveTypeError(f"jit: expected {aval.str_short()}, got shape {host.shape}")
    return put_sharded(host, aval, s)


def with_sharding_constraint(x: T, shardings: object) -> T:
    """``jax.lax.with_sharding_constraint``: ``x`` (a pytree of arrays) laid
    out by ``shardings`` (a ``NamedSharding``, or a pytree prefix of ``x`` of
    them). Inside ``jit`` it binds ``sharding_constraint`` for XLA's
    partitioner; on concrete arrays it is ``device_put``. JAX's checks on
    explicit sharding: under a current mesh whose axes are all Explicit it
    only asserts each array is typed as asked (``AssertionError``) and
    returns it; elsewhere the shardings may name Auto axes only (a
    ``ValueError``: ``reshard`` moves arrays between Explicit splits)."""
    return _constrain(x, shardings, "with_sharding_constraint", checked=True)


def constrain(x: T, shardings: object, what: str) -> T:
    """``with_sharding_constraint`` without JAX's checks on Explicit axes:
    ``reshard``'s way to lay arrays out inside ``jit``."""
    return _constrain(x, shardings, what, checked=False)


def _constrain(x: T, shardings: object, what: str, checked: bool) -> T:
    leaves, treedef = tree.flatten(x)
    per_leaf = _prefix(shardings, x, what)
    context = abstract_mesh()
    all_explicit = bool(context.axis_types) and all(t is AxisType.Explicit for t in context.axis_types)
    out: list[object] = []
    for leaf, s in zip(leaves, per_leaf):
        if isinstance(s, PartitionSpec):  # explicit sharding: over the current mesh
            s = mesh_sharding(s, what)
        if not isinstance(s, NamedSharding):
            raise ShardingError(f"{what}: expected a NamedSharding, got {s!r}")
        aval = aval_of(leaf)
        s.check(aval.shape, what)
        if checked and all_explicit:
            _assert_typed_as(aval, s)
            out.append(leaf)
            continue
        if checked:
            _check_auto(s)
            s = _keeping_type(aval, s)
        if isinstance(leaf, Tracer):
            out.append(bind1(sharding_constraint_p, (leaf,), constraint_params(s, len(aval.shape))))
        else:
            out.append(_device_put(leaf, s))  # type: ignore[arg-type]  # a leaf of an array pytree
    return cast(T, tree.unflatten(treedef, out))  # the structure of x, leaves laid out


def _axes(entry: object) -> tuple[str, ...]:
    """The mesh axes one spec entry names."""
    if isinstance(entry, str):
        return (entry,)
    return tuple(n for n in entry if isinstance(n, str)) if isinstance(entry, tuple) else ()


def _check_auto(s: NamedSharding) -> None:
    """JAX's ``check_shardings_are_auto``: a constraint names Auto axes only."""
    types = dict(zip(s.mesh.axis_names, s.mesh.axis_types))
    if any(types[n] is not AxisType.Auto for p in s.spec.partitions for n in _axes(p)):
        raise ShardingError(
            "The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto axes of the "
            f"mesh. Got spec={s.spec} and mesh={s.mesh.abstract_mesh}. You probably meant to use `reshard` API?")


def _keeping_type(aval: ShapedArray, s: NamedSharding) -> NamedSharding:
    """A constraint (on Auto axes) of an array typed on Explicit ones keeps
    the type: each dimension split over its type's axes, then the
    constraint's (JAX's lowering of ``sharding_constraint``)."""
    if aval.sharding is None or not any(aval.sharding.spec.partitions):
        return s
    typed = aval.sharding.spec.partitions
    asked = s.spec.partitions
    merged = []
    for d in range(len(aval.shape)):
        names = (*_axes(typed[d] if d < len(typed) else None), *_axes(asked[d] if d < len(asked) else None))
        merged.append(None if not names else names[0] if len(names) == 1 else names)
    return NamedSharding(s.mesh, PartitionSpec(*merged))


def _assert_typed_as(aval: ShapedArray, s: NamedSharding) -> None:
    """JAX's ``assert_shardings_equal``: on an all-Explicit mesh the
    constraint is an assertion on the array's type."""
    ndim = len(aval.shape)
    parts = aval.sharding.spec.partitions if aval.sharding is not None else ()
    have = tuple(parts[i] if i < len(parts) else None for i in range(ndim))
    asked = tuple(s.spec.partitions[i] if i < len(s.spec.partitions) else None for i in range(ndim))
    if any(_axes(a) != _axes(b) for a, b in zip(have, asked)):
        raise AssertionError(
            "`with_sharding_constraint` acts as an assert when all axes of mesh are of type `Explicit`. "
            f"The array sharding: {PartitionSpec(*have)} did not match the sharding provided: "
            f"{PartitionSpec(*asked)}. Please use `jax.sharding.reshard` to shard your input to the sharding you want.")


def _prefix(spec: object, value: object, what: str = "with_sharding_constraint") -> list[object]:
    if not isinstance(spec, (tuple, list, dict)):
        return [spec] * len(tree.leaves(value))
    if isinstance(spec, (tuple, list)) and isinstance(value, (tuple, list)) and len(spec) == len(value):
        return [s for sp, v in zip(spec, value) for s in _prefix(sp, v, what)]
    if isinstance(spec, dict) and isinstance(value, dict) and sorted(spec) == sorted(value):
        return [s for k in sorted(value) for s in _prefix(spec[k], value[k], what)]
    raise ShardingError(f"{what}: shardings {spec!r} are not a pytree prefix of the value")
