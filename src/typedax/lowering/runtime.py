"""The PjRt runtime: one client (created lazily, once), transfers to the
device, and compiled executables.

Platform: CPU by default. Set the environment variable ``TYPEDAX_PLATFORM``
(``cpu`` or ``cuda``) before the first computation, or call
``set_platform(name)`` or ``typedax.config.update('jax_platform_name', name)``
before anything runs on a device. ``cuda`` needs
jaxlib's CUDA PjRt plugin (the ``jax-cuda13-plugin`` or ``jax-cuda12-plugin``
package). Private jaxlib names come from ``jaxlib_api``. float64 and int64
arrays are supported; with x64 off (``typedax.config``), a 64-bit NumPy or
Python value is sent as its 32-bit type.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from ..core.avals import ShapedArray, physical_aval
from ..core.config import (
    refresh_eager_device, backend_started, cpu_async_dispatch, num_cpu_devices, platform_name, x64_enabled,
)
from ..core.dtypes import EXTENDED, SUPPORTED, TO_32, key_words
from ..core.errors import PlatformError as PlatformError
from ..core.errors import PrimitiveTypeError
from ..core.array import ArrayImpl, ArrayLike, deleted_error, from_numpy, install_runtime
from ..core.sharded import ShardedArrayImpl
from ..core.sharding import Sharding
from ..core.trace import Tracer, Value, aval_of
from . import jaxlib_api as jx
from .array import aval_key, from_buffer
from .distributed import cluster
from .lower import LoweredModule, install_platform

PLATFORMS: tuple[str, ...] = ("cpu", "cuda")


class _PutType:
    """The array type ``batched_device_put`` reads (shape, dtype, weak_type)."""

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, aval: ShapedArray) -> None:
        aval = physical_aval(aval)  # typed keys travel as their words
        self.shape = aval.shape
        self.dtype = aval.dtype
        self.weak_type = False


@dataclass(frozen=True, slots=True, eq=False)
class Backend:
    """The PjRt client and the device typedax computes on."""

    platform: str
    client: jx.Client
    device: jx.Device
    devices: jx.DeviceList
    #: every device of the client (``devices()``: every process's, in a
    #: distributed run); ``device`` is the first of this process's, where
    #: unsharded arrays live and unsharded programs run
    all_devices: tuple[jx.Device, ...]
    #: jaxlib's own sharding class (replicated on the one device): transfers
    #: and result handlers read it in C++, where a Python subclass of
    #: ``SingleDeviceSharding`` answered each transfer's questions through
    #: Python calls (~0.5 us of a ~2.9 us host-to-device copy)
    sharding: jx.GSPMDSharding
    #: this process's devices (``local_devices()``): ``all_devices`` unless
    #: distributed (``typedax.distributed``)
    local_devices: tuple[jx.Device, ...]
    #: this process's index among the distributed run's (0 alone), and
    #: how many processes the devices belong to (1 alone)
    process_index: int
    process_count: int


_LOCK = threading.Lock()
_BACKEND: list[Backend] = []
_REQUESTED: list[str] = []


def set_platform(name: str) -> None:
    """Choose the device platform (``cpu`` or ``cuda``) before first use."""
    if name not in PLATFORMS:
        raise PlatformError(f"unknown platform {name!r}; choose one of {', '.join(PLATFORMS)}")
    with _LOCK:
        if _BACKEND and _BACKEND[0].platform != name:
            raise PlatformError(
                f"the {_BACKEND[0].platform} backend is already running; "
                "set the platform before the first computation"
            )
        _REQUESTED[:] = [name]
    refresh_eager_device()  # eager evaluation asks the platform again


def platform() -> str:
    """The platform in use (or that will be used)."""
    if _BACKEND:
        return _BACKEND[0].platform
    return _requested_platform()


def _requested_platform() -> str:
    if _REQUESTED:
        return _REQUESTED[0]
    configured = platform_name()  # config.update('jax_platform_name', ...)
    if configured is not None:
        return configured
    name = os.environ.get("TYPEDAX_PLATFORM", "cpu").strip().lower() or "cpu"
    if name not in PLATFORMS:
        raise PlatformError(
            f"TYPEDAX_PLATFORM={name!r} is not a platform; choose one of {', '.join(PLATFORMS)}"
        )
    return name


def _make_client(name: str) -> jx.Client:
    joined = cluster()  # the other processes of a distributed run (typedax.distributed), if any
    if name == "cpu":
        # inline execution by default: docs/architecture.md ("Settings") has the why
        n = num_cpu_devices()
        return jx.make_cpu_client(asynchronous=cpu_async_dispatch(), num_devices=None if n < 0 else n,
                                  cluster=joined)
    library = jx.cuda_plugin_library()
    if library is None:
        packages = " or ".join(pkg for _, pkg in jx.CUDA_PLUGINS)
        raise PlatformError(f"platform 'cuda' needs jaxlib's CUDA plugin (pip install {packages})")
    return jx.cuda_client(library, jx.gpu_client_options(os.environ), joined)


def backend() -> Backend:
    """The backend, created on first use."""
    if _BACKEND:
        return _BACKEND[0]
    with _LOCK:
        if not _BACKEND:
            name = _requested_platform()
            client = _make_client(name)
            backend_started(name)  # jax_platform_name is fixed from now on
            every = tuple(client.devices())
            local = tuple(client.local_devices())
            device = local[0]
            devices = jx.DeviceList((device,))
            _BACKEND.append(
                Backend(name, client, device, devices, every,
                        jx.GSPMDSharding(devices, jx.replicated_hlo_sharding()), local, client.process_index(),
                        max(d.process_index for d in every) + 1)
            )
    return _BACKEND[0]


def devices() -> list[jx.Device]:
    """The backend's devices (``jax.devices()``): one CPU device unless
    ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` or
    ``config.update('jax_num_cpu_devices', N)`` asks for more; every local
    GPU; in a distributed run (``typedax.distributed``), every process's.
    Unsharded arrays and programs use this process's first (the default
    device); the others are reached through shardings (``typedax.sharding``)."""
    return list(backend().all_devices)


def local_devices() -> list[jx.Device]:
    """``jax.local_devices()``: this process's devices (``devices()``
    unless distributed)."""
    return list(backend().local_devices)


def device_count() -> int:
    """``jax.device_count()``: every process's devices."""
    return len(backend().all_devices)


def local_device_count() -> int:
    """``jax.local_device_count()``: this process's devices."""
    return len(backend().local_devices)


def process_index() -> int:
    """``jax.process_index()``: this process's index in a distributed run
    (``typedax.distributed.initialize``'s ``process_id``), 0 alone."""
    return backend().process_index


def process_count() -> int:
    """``jax.process_count()``: how many processes the devices belong to
    (1 unless distributed)."""
    return backend().process_count


def process_indices() -> list[int]:
    """``jax.process_indices()``: the indices of every process, ``0`` to
    ``process_count() - 1``."""
    return list(range(process_count()))


#: JAX's deprecated spellings, which older programs still call.
host_count = process_count
host_id = process_index


def host_ids() -> list[int]:
    """``jax.host_ids()``: JAX's old name for ``process_indices()``."""
    return process_indices()


#: JAX's backend names for typedax's platforms (``jax.default_backend()``
#: answers ``'gpu'`` for CUDA: xla_bridge's ``_platform_aliases``).
_BACKEND_NAMES: dict[str, str] = {"cpu": "cpu", "cuda": "gpu"}


def default_backend() -> str:
    """``jax.default_backend()``: ``'cpu'``, or ``'gpu'`` for CUDA (JAX's names;
    ``platform()`` says ``'cuda'``)."""
    name = platform()
    return _BACKEND_NAMES.get(name, name)


def put_buffer(x: np.ndarray[tuple[int, ...], np.dtype[np.generic]], aval: ShapedArray) -> jx.Array:
    """Copy a NumPy array of type ``aval`` to the device."""
    b = backend()
    if aval.dtype in EXTENDED:
        x = key_words(x)  # typed keys: their words
    buf = jx.batched_device_put(
        _PutType(aval),
        b.sharding,
        [x],
        [b.device],
        True,
        False,
        jx.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
        True,
    )
    return buf


def buffer_of(x: ArrayImpl) -> jx.Array:
    """The device buffer of ``x``, copied there (and kept) on first use."""
    dev = x._dev
    if dev is None:
        host = x._host
        if host is None:
            raise deleted_error(x.aval)
        dev = x._dev = put_buffer(host, x.aval)  # a cache: both copies hold one value
    return dev  # type: ignore[return-value]  # ArrayImpl's device values are jaxlib arrays


HostPut = Callable[[object], jx.Array]


def host_putter(aval: ShapedArray) -> HostPut:
    """A function copying a host value of type ``aval`` (a NumPy array, or a
    Python scalar, that ``np.asarray(x, aval.dtype)`` converts) to the
    device: ``put_buffer(np.asarray(x, aval.dtype), aval)``, with all but
    the conversion and the transfer decided once (``jit``'s fast path calls
    it per host argument per call)."""
    dtype = aval.dtype
    if dtype not in SUPPORTED:  # a dtype that put_buffer transfers in its own way
        return lambda x: put_buffer(np.asarray(x, dtype), aval)
    b = backend()
    put, put_type, sharding, devices = jx.batched_device_put, _PutType(aval), b.sharding, [b.device]
    semantics, asarray = jx.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL, np.asarray

    def put1(x: object) -> jx.Array:
        return put(put_type, sharding, [asarray(x, dtype)], devices, True, False, semantics, True)

    return put1


PutArgs = tuple["_PutType", jx.GSPMDSharding, list[jx.Device], jx.HostBufferSemantics]


def host_put_args(aval: ShapedArray) -> tuple[Callable[..., jx.Array], PutArgs]:
    """What ``host_putter(aval)`` calls, for a caller that calls it itself
    (``jit``'s packed NumPy arguments, where the call of a ``put1`` costs
    ~2% of a dispatch): ``batched_device_put`` and its arguments after the
    value, ``put(put_type, sharding, [x], devices, True, False, semantics,
    True)`` for an ``x`` already a NumPy array of ``aval``'s dtype (one
    that ``host_putter`` transfers directly: in ``SUPPORTED``)."""
    b = backend()
    return jx.batched_device_put, (
        _PutType(aval), b.sharding, [b.device], jx.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
    )


#: Device buffers of Python scalars by dtype and value (``scalar_putter``).
_SCALAR_BUFFERS: dict[np.dtype[np.generic], dict[object, jx.Array]] = {}

#: Values remembered per dtype; the oldest half is dropped when full.
MAX_SCALAR_BUFFERS = 256

#: The keys zeros are remembered under: +0 (False), -0.0 (True).
_ZERO_KEYS: tuple[object, object] = (object(), object())


def scalar_putter(aval: ShapedArray) -> HostPut:
    """``host_putter(aval)`` for Python scalars (``bool``, ``int``,
    ``float``: immutable), remembering the buffer of each value: a learning
    rate or a constant passed on every call is copied once. Only for
    buffers nothing consumes (not donated) or exposes: they are shared.
    Zeros are remembered under a key per sign (``0.0 == -0.0`` as dict
    keys, so no zero is ever a key itself), NaNs never (a NaN never equals
    itself); a value that fails to convert raises as ``host_putter``'s
    does, every time."""
    put = host_putter(aval)
    if aval.dtype.kind == "c":  # complex: not remembered (1-0j == 1+0j as dict keys)
        return put
    cache = _SCALAR_BUFFERS.setdefault(aval.dtype, {})

    def put_scalar(x: object) -> jx.Array:
        buf = cache.get(x)
        if buf is None:
            key: object = x
            if x == 0:
                key = _ZERO_KEYS[math.copysign(1.0, cast(float, x)) < 0]  # x: a bool, int or float
                buf = cache.get(key)
                if buf is not None:
                    return buf
            buf = put(x)
            if x == x:
                if len(cache) >= MAX_SCALAR_BUFFERS:
                    for k in list(cache)[: MAX_SCALAR_BUFFERS // 2]:
                        cache.pop(k, None)
                cache[key] = buf
        return buf

    return put_scalar


@dataclass(frozen=True, slots=True, eq=False)
class Executable:
    """A compiled program: device buffers in, ``Array``s out."""

    name: str
    loaded: jx.LoadedExecutable
    in_avals: tuple[ShapedArray, ...]
    out_avals: tuple[ShapedArray, ...]
    out_keys: tuple[int, ...]
    out_handlers: tuple[jx.ResultHandler, ...]
    #: inputs whose buffers the program consumes (donated: aliased to an
    #: output, or given to XLA to reuse); the caller deletes their arrays
    donated: tuple[int, ...] = ()
    #: a program partitioned over devices: each input's and output's
    #: sharding (``lowering/sharding.py: compile_sharded``); empty otherwise
    in_shardings: tuple[Sharding, ...] = ()
    out_shardings: tuple[Sharding, ...] = ()

    def run(self, bufs: Sequence[jx.Array]) -> list[ArrayImpl]:
        """Run on device buffers (of the right types: not checked here)."""
        outs = self.loaded.execute_sharded(bufs).consume_with_handlers(self.out_handlers)
        if self.out_shardings:
            return [
                ShardedArrayImpl(a, None, o, s) for o, a, s in zip(outs, self.out_avals, self.out_shardings)
            ]
        return [from_buffer(o, a, k) for o, a, k in zip(outs, self.out_avals, self.out_keys)]


def compile_module(
    lowered: LoweredModule, in_avals: Sequence[ShapedArray], out_avals: Sequence[ShapedArray]
) -> Executable:
    """Compile a StableHLO module for the backend's device."""
    b = backend()
    loaded = jx.compile_and_load(b.client, lowered.module, lowered.as_bytecode(), b.devices,
                                 jx.CompileOptions(), lowered.host_callbacks)
    outs = tuple(out_avals)
    # Result handlers give the outputs our sharding (the default path would
    # build one through Python code outside jaxlib).
    handlers = tuple(jx.array_result_handler(_PutType(a), b.sharding) for a in outs)
    keys = tuple(aval_key(a) for a in outs)
    return Executable(
        lowered.name, loaded, tuple(in_avals), outs, keys, handlers, lowered.donated_inputs
    )


def device_put(x: ArrayLike) -> ArrayImpl:
    """``x`` as an ``ArrayImpl`` on the device (a NumPy value is copied; an
    ``ArrayImpl`` is returned as it is, moved to the device if it was not)."""
    if type(x) is ArrayImpl:
        buffer_of(x)
        return x
    if isinstance(x, Tracer):
        raise PrimitiveTypeError("device_put: a tracer cannot be sent to the device")
    aval = aval_of(x)
    value = np.array(x, dtype=aval.dtype)  # a copy: the caller may change theirs
    out = from_numpy(value)
    buffer_of(out)
    return out


def to_buffer(x: Value, aval: ShapedArray, what: str) -> jx.Array:
    """The device buffer of ``x``, which must have type ``aval``."""
    if type(x) is ArrayImpl:
        if x.aval != aval:
            raise PrimitiveTypeError(f"{what}: expected {aval.str_short()}, got {x.aval.str_short()}")
        return buffer_of(x)
    if isinstance(x, Tracer):
        raise PrimitiveTypeError(f"{what}: a tracer cannot be sent to the device")
    if _is_scalar(x) and aval.shape == ():
        # converted directly: an int outside the type's range raises
        # OverflowError (as JAX's), where a conversion through int64 wrapped
        # it silently with x64 off (2**40 entered an int32 program as 0)
        return put_buffer(np.asarray(x, dtype=aval.dtype), aval)
    arr = np.asarray(x)
    if arr.shape != aval.shape or (
        arr.dtype != aval.dtype and not _is_scalar(x) and not _narrowed(arr.dtype, aval)
    ):
        got = ShapedArray(tuple(arr.shape), arr.dtype) if arr.dtype in SUPPORTED else None
        raise PrimitiveTypeError(
            f"{what}: expected {aval.str_short()}, got "
            f"{got.str_short() if got is not None else f'dtype {arr.dtype}, shape {arr.shape}'}"
        )
    return put_buffer(np.asarray(arr, dtype=aval.dtype), aval)


def _narrowed(dtype: np.dtype[np.generic], aval: ShapedArray) -> bool:
    """Whether a value of ``dtype`` enters as ``aval`` because x64 is off."""
    return TO_32.get(dtype) == aval.dtype and not x64_enabled()


def _is_scalar(x: object) -> bool:
    return type(x) in (bool, int, float, complex)


class _ArrayRuntime:
    """The runtime's part of a concrete array (``core/array.py``: its
    ``devices()``, ``sharding``, ``to_device`` and the host value of a dtype
    the buffer protocol cannot describe), installed below on import."""

    def devices(self) -> list[jx.Device]:
        return devices()

    def default_device(self) -> jx.Device:
        return backend().device

    def device_to_numpy(self, value: object) -> np.ndarray[tuple[int, ...], np.dtype[np.generic]]:
        return jx.device_to_numpy(value)  # type: ignore[arg-type]  # a jaxlib device array (core keeps it untyped)


install_runtime(_ArrayRuntime())
install_platform(platform)
