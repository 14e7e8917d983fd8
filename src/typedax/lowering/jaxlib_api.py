"""Every private jaxlib API typedax uses, in one place.

jaxlib's public Python surface does not cover what a JAX core needs (PjRt
clients, transfers, result handlers, executables, plugins, the C++ pytree
registry), so typedax reads ``jaxlib._jax`` and ``jaxlib._hlo``, and only
here: the rest of the library imports these names from this module. When a
jaxlib release changes one of them, this is the one file to change.
``PRIVATE_NAMES`` lists them; ``tests/test_jaxlib_api.py`` checks that each
exists in the installed jaxlib.

Supported: jaxlib 0.10.x and 0.11.x (``pyproject.toml``). Differences
between them are handled here: ``array_result_handler`` lost its
``_skip_checks`` argument in 0.11; the CUDA plugin package is
``jax-cuda13-plugin`` (``jax_plugins.xla_cuda13``) beside the older
``jax-cuda12-plugin``.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from dataclasses import dataclass
from typing import NamedTuple, TypeAlias

import numpy as np

from jaxlib import _hlo, _jax
from jaxlib.mlir import ir
from jaxlib import xla_client as xc
from jaxlib._jax import Array as Array
from jaxlib._jax import Client as Client
from jaxlib._jax import CompileOptions as CompileOptions
from jaxlib._jax import Device as Device
from jaxlib._jax import DeviceList as DeviceList
from jaxlib._jax import DistributedRuntimeClient as DistributedRuntimeClient
from jaxlib._jax import DistributedRuntimeService as DistributedRuntimeService
from jaxlib._jax import HostBufferSemantics as HostBufferSemantics
from jaxlib._jax import JaxRuntimeError as JaxRuntimeError  # typedax.errors (issue 29 item 7)
from jaxlib._jax import LoadedExecutable as LoadedExecutable
from jaxlib._jax import PyTreeDef as PyTreeDef
from jaxlib._jax import ResultHandler as ResultHandler
from jaxlib._jax import SingleDeviceSharding as SingleDeviceSharding
from jaxlib._jax import GSPMDSharding as GSPMDSharding
from jaxlib._jax import batched_device_put as batched_device_put
from jaxlib._hlo import HloSharding as HloSharding

#: (module, name) of every private jaxlib name read here.
PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("jaxlib._jax", "Array"),
    ("jaxlib._jax", "ArrayImpl._single_device_array_to_np_array_did_copy"),
    ("jaxlib._jax", "Client"),
    ("jaxlib._jax", "CompileOptions"),
    ("jaxlib._jax", "Device"),
    ("jaxlib._jax", "DeviceList"),
    ("jaxlib._jax", "DistributedRuntimeClient"),
    ("jaxlib._jax", "DistributedRuntimeService"),
    ("jaxlib._jax", "get_distributed_runtime_client"),
    ("jaxlib._jax", "get_distributed_runtime_service"),
    ("jaxlib._jax", "make_gloo_tcp_collectives"),
    ("jaxlib._jax", "HostBufferSemantics"),
    ("jaxlib._jax", "LoadedExecutable"),
    ("jaxlib._jax", "LoadedExecutable.get_compiled_memory_stats"),
    ("jaxlib._jax", "LoadedExecutable.cost_analysis"),
    ("jaxlib._jax", "CompiledMemoryStats"),
    ("jaxlib._jax", "JaxRuntimeError"),
    ("jaxlib._jax", "PyTreeDef"),
    ("jaxlib._jax", "ResultHandler"),
    ("jaxlib._jax", "SingleDeviceSharding"),
    ("jaxlib._jax", "GSPMDSharding"),
    ("jaxlib._jax", "batched_device_put"),
    ("jaxlib._jax", "dlpack_managed_tensor_to_buffer"),
    ("jaxlib._jax", "Device.get_stream_for_external_ready_events"),
    ("jaxlib._jax", "Device.local_hardware_id"),
    ("jaxlib._jax", "array_result_handler"),
    ("jaxlib._jax", "get_c_api_client"),
    ("jaxlib._jax", "load_pjrt_plugin"),
    ("jaxlib._jax", "pjrt_plugin_loaded"),
    ("jaxlib._jax", "pjrt_plugin_initialized"),
    ("jaxlib._jax", "initialize_pjrt_plugin"),
    ("jaxlib._jax", "pytree"),
    ("jaxlib._hlo", "HloSharding"),
    ("jaxlib._hlo", "HloSharding.iota_tile"),
    ("jaxlib._hlo", "HloSharding.from_proto"),
    ("jaxlib._hlo", "OpSharding.Type"),
    ("jaxlib._jax", "ArrayImpl._arrays"),
    ("jaxlib._jax", "ArrayImpl"),
    ("jaxlib._jax", "DeviceAssignment"),
    ("jaxlib._jax", "LoadedExecutable.get_output_shardings"),
    ("jaxlib.xla_client", "make_cpu_client"),
    ("jaxlib.xla_client", "register_custom_call_target"),
    ("jaxlib.cpu._lapack", "registrations"),
    ("jaxlib.cpu._lapack", "initialize"),
    ("jaxlib.gpu_solver", "registrations"),
    ("jaxlib.xla_client", "register_custom_call_handler"),
)

#: CUDA PjRt plugin packages, newest first: (module, pip package).
CUDA_PLUGINS: tuple[tuple[str, str], ...] = (
    ("jax_plugins.xla_cuda13", "jax-cuda13-plugin"),
    ("jax_plugins.xla_cuda12", "jax-cuda12-plugin"),
)


def replicated_hlo_sharding() -> _hlo.HloSharding:
    return _hlo.HloSharding.replicate()


#: the ``custom_call`` target of a Python host callback (XLA FFI, ``api_version
#: = 4``, ``backend_config = {index = N : ui64}``: the N-th function given to
#: ``compile_and_load``), by platform; JAX's ``emit_python_callback`` names
#: the same targets in jaxlib 0.10 and 0.11
PYTHON_CALLBACK_TARGETS: Mapping[str, str] = {
    "cpu": "xla_ffi_python_cpu_callback",
    "cuda": "xla_ffi_python_gpu_callback",
}


def compile_and_load(
    client: Client, module: ir.Module, bytecode: bytes, devices: DeviceList,
    options: CompileOptions, host_callbacks: Sequence[Callable[..., object]],
) -> LoadedExecutable:
    """Compile a module. With host callbacks, jaxlib's overload that takes
    them accepts only the MLIR module object (not its bytecode or text);
    without, the bytecode (the context that owns ``module`` may be gone)."""
    if host_callbacks:
        return client.compile_and_load(module, devices, options, host_callbacks=list(host_callbacks))
    return client.compile_and_load(bytecode, devices, options)


class Cluster(NamedTuple):
    """This process's place among the processes of a distributed run
    (``typedax.distributed.initialize``): what a client needs to join them."""

    client: DistributedRuntimeClient
    process_id: int
    num_processes: int
    #: the GPUs this process uses (``local_device_ids``); ``None``: all
    local_device_ids: tuple[int, ...] | None = None
    partition_index: int | None = None


def distributed_service(
    bind_address: str, num_processes: int, heartbeat_timeout: int, shutdown_timeout: int
) -> DistributedRuntimeService:
    """The coordination service (process 0 runs it), as JAX's
    ``distributed.State.initialize`` starts it: a gRPC server on
    ``bind_address`` waiting for ``num_processes`` clients."""
    return _jax.get_distributed_runtime_service(
        bind_address, num_processes, heartbeat_timeout=heartbeat_timeout,
        shutdown_timeout=shutdown_timeout, recoverable=False,
    )


def distributed_client(
    address: str, process_id: int, init_timeout: int, heartbeat_timeout: int
) -> DistributedRuntimeClient:
    """A client of the coordination service at ``address`` (not yet
    connected: ``connect()`` blocks until every process has connected or
    ``init_timeout`` seconds pass), with JAX's options."""
    return _jax.get_distributed_runtime_client(
        address, process_id, init_timeout=init_timeout, use_compression=True,
        heartbeat_timeout=heartbeat_timeout,
    )


def make_cpu_client(asynchronous: bool, num_devices: int | None = None, cluster: Cluster | None = None) -> Client:
    """The CPU client; ``num_devices`` host devices, or (``None``) as many as
    ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` says (1 by
    default: jaxlib reads the flag itself), as JAX's ``xla_bridge`` makes it.
    In a distributed run (``cluster``), the client learns the other
    processes' devices through the coordination service (its ``devices()``
    are all of them, its ``local_devices()`` this process's) and runs
    cross-process collectives with Gloo over TCP, JAX's default
    (``jax_cpu_collectives_implementation='gloo'``)."""
    if cluster is None:
        return xc.make_cpu_client(asynchronous=asynchronous, num_devices=num_devices)
    return xc.make_cpu_client(
        asynchronous=asynchronous, distributed_client=cluster.client, node_id=cluster.process_id,
        num_nodes=cluster.num_processes,
        collectives=_jax.make_gloo_tcp_collectives(distributed_client=cluster.client),
        num_devices=num_devices,
    )


def iota_sharding(dims: list[int], mesh_sizes: list[int], perm: list[int], replicate_last: bool) -> _hlo.HloSharding:
    """XLA's tiled sharding in its iota form (``NamedSharding.tile_assignment``)."""
    last = [_hlo.OpSharding.Type.REPLICATED] if replicate_last else []
    return _hlo.HloSharding.iota_tile(dims, mesh_sizes, perm, last)


def output_hlo_shardings(loaded: LoadedExecutable) -> list[_hlo.HloSharding]:
    """The sharding XLA chose for each output of an SPMD program."""
    return [_hlo.HloSharding.from_proto(op) for op in loaded.get_output_shardings() or ()]


def spmd_compile_options(device_ids: list[int], propagate_to_outputs: list[bool]) -> CompileOptions:
    """Options for one program partitioned over these devices by XLA's SPMD
    partitioner (GSPMD: the ``mhlo.sharding`` annotations), as JAX's
    ``compiler.get_compile_options``: one replica, a partition per device;
    XLA chooses the sharding of the outputs marked in ``propagate_to_outputs``
    (JAX's unspecified ``out_shardings``)."""
    options = CompileOptions()
    options.num_replicas = 1
    options.num_partitions = len(device_ids)
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = False
    build.allow_spmd_sharding_propagation_to_output = propagate_to_outputs
    options.device_assignment = _jax.DeviceAssignment.create(
        np.asarray(device_ids, dtype=np.int32).reshape(1, len(device_ids))
    )
    return options


def assemble(aval: object, sharding: GSPMDSharding, pieces: list[Array]) -> Array:
    """One array from its per-device pieces (in ``sharding``'s device
    order), as JAX's ``make_array_from_single_device_arrays``.
    (``batched_device_put`` with a partially replicated ``GSPMDSharding``
    fails in jaxlib 0.10 with ``bad_function_call``.)"""
    return _jax.ArrayImpl(aval, sharding, pieces, True, True)  # type: ignore[call-arg]  # the C++ constructor has no stub


def single_device_arrays(dev: Array) -> list[Array]:
    """The per-device pieces of a (sharded) jaxlib array, in the order of
    its sharding's devices."""
    return list(dev._arrays)  # type: ignore[attr-defined]  # jaxlib's ArrayImpl: no stub for _arrays


def _takes_skip_checks() -> bool:
    try:
        return "_skip_checks" in inspect.signature(_jax.array_result_handler).parameters
    except (TypeError, ValueError):  # a builtin without a readable signature: ask its docstring
        return "_skip_checks" in (_jax.array_result_handler.__doc__ or "")


_SKIP_CHECKS = _takes_skip_checks()


def array_result_handler(aval: object, sharding: object) -> ResultHandler:
    """A handler that wraps an executable's output buffers as arrays of
    ``aval`` on ``sharding`` (committed), skipping jaxlib's Python-side
    checks where the installed jaxlib offers that (0.10)."""
    if _SKIP_CHECKS:
        return _jax.array_result_handler(aval, sharding, True, _skip_checks=True)
    return _jax.array_result_handler(aval, sharding, True)


def device_to_numpy(dev: _jax.ArrayImpl) -> np.ndarray[tuple[int, ...], np.dtype[np.generic]]:
    """A device array's value on the host, for dtypes the buffer protocol
    cannot describe (bfloat16: ``np.asarray`` would wrap the object)."""
    value, _ = dev._single_device_array_to_np_array_did_copy()
    return np.asarray(value)


@dataclass(frozen=True, slots=True)
class CompiledMemoryStats:
    """What XLA's buffer assignment reserves for one compiled program, in
    bytes: JAX's ``Compiled.memory_analysis()`` (jaxlib's
    ``CompiledMemoryStats``), field for field. ``temp_size_in_bytes`` is the
    scratch space the program needs beyond its arguments and outputs (where
    rematerialization shows); ``host_*`` count host memory."""

    generated_code_size_in_bytes: int
    argument_size_in_bytes: int
    output_size_in_bytes: int
    alias_size_in_bytes: int
    temp_size_in_bytes: int
    host_generated_code_size_in_bytes: int
    host_argument_size_in_bytes: int
    host_output_size_in_bytes: int
    host_alias_size_in_bytes: int
    host_temp_size_in_bytes: int
    peak_memory_in_bytes: int


def _unimplemented(e: _jax.JaxRuntimeError) -> bool:
    return str(e).startswith("UNIMPLEMENTED")


def memory_stats(loaded: LoadedExecutable) -> CompiledMemoryStats | None:
    """``loaded``'s memory statistics, or ``None`` where the backend does
    not report them (JAX's ``memory_analysis`` returns ``None`` then)."""
    try:
        s = loaded.get_compiled_memory_stats()
    except _jax.JaxRuntimeError as e:
        if _unimplemented(e):
            return None
        raise
    return CompiledMemoryStats(
        s.generated_code_size_in_bytes, s.argument_size_in_bytes, s.output_size_in_bytes,
        s.alias_size_in_bytes, s.temp_size_in_bytes, s.host_generated_code_size_in_bytes,
        s.host_argument_size_in_bytes, s.host_output_size_in_bytes, s.host_alias_size_in_bytes,
        s.host_temp_size_in_bytes, s.peak_memory_in_bytes,
    )


#: One entry of XLA's cost analysis (``flops``, ``bytes accessed``, ...).
CostValue: TypeAlias = "str | bool | int | list[int] | float"


def cost_analysis(loaded: LoadedExecutable) -> dict[str, CostValue] | None:
    """XLA's cost estimates of ``loaded`` (``flops``, ``transcendentals``,
    ``bytes accessed`` and per-operand entries), as JAX's
    ``Compiled.cost_analysis()``; ``None`` where the backend has none."""
    try:
        return dict(loaded.cost_analysis())
    except _jax.JaxRuntimeError as e:
        if _unimplemented(e):
            return None
        raise


def cuda_plugin_library() -> Path | None:
    """The shared library of the first CUDA PjRt plugin installed, if any."""
    for module, _ in CUDA_PLUGINS:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin is not None:
            return Path(spec.origin).parent / "xla_cuda_plugin.so"
    return None


#: The allocators ``XLA_PYTHON_CLIENT_ALLOCATOR`` names (jaxlib's
#: ``generate_pjrt_gpu_plugin_options``; ``vmm`` is 0.11's).
GPU_ALLOCATORS: tuple[str, ...] = ("default", "platform", "bfc", "cuda_async", "vmm")

#: The environment variables ``gpu_client_options`` reads.
GPU_MEMORY_VARIABLES: tuple[str, ...] = (
    "XLA_PYTHON_CLIENT_ALLOCATOR", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_CLIENT_MEM_FRACTION",
    "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB", "JAX_CUDA_VISIBLE_DEVICES",
)

ClientOptions = dict[str, "str | int | float | bool | list[int]"]


def gpu_client_options(env: Mapping[str, str]) -> ClientOptions:
    """The options of a CUDA PjRt client, from ``env`` (``os.environ``), as
    JAX creates its own: jaxlib's ``generate_pjrt_gpu_plugin_options`` (which
    the ``jax_plugins.xla_cuda*`` package hands to ``register_plugin``) plus
    ``JAX_CUDA_VISIBLE_DEVICES`` (JAX's ``jax_cuda_visible_devices``) as
    ``xla_bridge._options_from_jax_configs`` adds it. A pure function (the variables are read here, not from the process),
    so each setting and each bad value is tested on any machine. Bad values
    raise ``ValueError`` naming the variable, as jaxlib's."""
    options: ClientOptions = {"platform_name": "cuda"}
    allocator = env.get("XLA_PYTHON_CLIENT_ALLOCATOR", "default").lower()
    if allocator not in GPU_ALLOCATORS:
        raise ValueError(
            "XLA_PYTHON_CLIENT_ALLOCATOR env var must be "
            + ", ".join(f'"{a}"' for a in GPU_ALLOCATORS) + f', got "{allocator}"'
        )
    options["allocator"] = allocator
    fraction = env.get("XLA_CLIENT_MEM_FRACTION", "")
    deprecated = env.get("XLA_PYTHON_CLIENT_MEM_FRACTION", "")
    if deprecated:
        if fraction:
            raise ValueError(
                "XLA_CLIENT_MEM_FRACTION is specified together with XLA_PYTHON_CLIENT_MEM_FRACTION. "
                "Remove the latter one, it is deprecated."
            )
        fraction = deprecated
    if fraction:
        name = "XLA_PYTHON_CLIENT_MEM_FRACTION" if deprecated else "XLA_CLIENT_MEM_FRACTION"
        try:
            value = float(fraction)
        except ValueError:
            raise ValueError(f"{name} must be a number between 0 and 1, got {fraction!r}") from None
        if not 0.0 < value <= 1.0:
            raise ValueError(f"{name} must be a number between 0 and 1, got {fraction!r}")
        options["memory_fraction"] = value
    preallocate = env.get("XLA_PYTHON_CLIENT_PREALLOCATE", "")
    if preallocate:
        options["preallocate"] = preallocate not in ("false", "False", "0")
    collective = env.get("XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB", "")
    if collective:
        try:
            options["collective_memory_size"] = int(collective) * (1 << 20)
        except ValueError:
            raise ValueError(f"XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB must be an integer, got {collective!r}") from None
    visible = env.get("JAX_CUDA_VISIBLE_DEVICES", "all")
    if visible != "all":
        try:
            options["visible_devices"] = [int(x) for x in visible.split(",")]
        except ValueError:
            raise ValueError(
                f"JAX_CUDA_VISIBLE_DEVICES must be 'all' or comma-separated device numbers, got {visible!r}"
            ) from None
    return options


#: The name JAX registers the CUDA plugin under; a second name for typedax's
#: own registration when typedax loads it first (``plugin_plan``).
JAX_CUDA_PLUGIN = "cuda"
TYPEDAX_CUDA_PLUGIN = "typedax_cuda"


class PluginPlan(NamedTuple):
    """How to get a CUDA client: ``reuse_client`` (JAX's, already made), or
    the plugin ``name`` to use, whether to ``load`` it from its library and
    whether to ``initialize`` it first."""

    reuse_client: bool
    name: str
    load: bool
    initialize: bool


def plugin_plan(jax_client_exists: bool, loaded: Mapping[str, bool], initialized: Mapping[str, bool]) -> PluginPlan:
    """The decision, as a pure function of what this process already has
    (docs/architecture.md "The GPU: one plugin, shared"):

    - JAX already made its CUDA client: use that client (one allocator in the
      process, so the memory settings hold for both libraries);
    - JAX loaded the plugin as ``cuda`` (no client yet): use that
      registration (loading it again under that name fails with
      ``ALREADY_EXISTS``);
    - typedax loaded it earlier under its own name: use that;
    - else load it under ``typedax_cuda``, leaving ``cuda`` to JAX: JAX's
      ``register_plugin`` loads ``cuda`` unconditionally, and had typedax
      taken the name, JAX's plugin initialization would fail and JAX fall
      back to the CPU. The plugin's library is loaded once by the dynamic
      loader whatever the names, and its ``PJRT_Plugin_Initialize`` does
      nothing, so two names are safe."""
    if jax_client_exists:
        return PluginPlan(True, JAX_CUDA_PLUGIN, False, False)
    for name in (JAX_CUDA_PLUGIN, TYPEDAX_CUDA_PLUGIN):
        if loaded.get(name, False):
            return PluginPlan(False, name, False, not initialized.get(name, False))
    return PluginPlan(False, TYPEDAX_CUDA_PLUGIN, True, True)


def jax_cuda_client() -> Client | None:
    """JAX's CUDA client, if JAX is imported and has made one (read from
    JAX's backend table without importing JAX; ``None`` otherwise)."""
    bridge = sys.modules.get("jax._src.xla_bridge")
    backends = getattr(bridge, "_backends", None) if bridge is not None else None
    client = backends.get("cuda") if isinstance(backends, dict) else None
    return client if isinstance(client, Client) else None


def cuda_client(library: Path, options: ClientOptions, cluster: Cluster | None = None) -> Client:
    """A PjRt client for CUDA through the plugin at ``library``, with
    ``options`` (``gpu_client_options``), as ``plugin_plan`` decides. In a
    distributed run (``cluster``) the client joins the other processes as
    JAX's ``make_pjrt_c_api_client`` does: ``node_id``/``num_nodes`` (and
    ``partition_index``) in its options, the distributed client beside them,
    ``local_device_ids`` as its visible devices (NCCL then spans processes)."""
    jax_client = jax_cuda_client()
    names = (JAX_CUDA_PLUGIN, TYPEDAX_CUDA_PLUGIN)
    loaded = {n: bool(_jax.pjrt_plugin_loaded(n)) for n in names}
    initialized = {n: loaded[n] and bool(_jax.pjrt_plugin_initialized(n)) for n in names}
    plan = plugin_plan(jax_client is not None, loaded, initialized)
    if plan.reuse_client and jax_client is not None:
        return jax_client
    if plan.load:
        _CUDA_C_API.append(_jax.load_pjrt_plugin(plan.name, str(library), None))
        _install_cuda_custom_call_handler()  # the plugin's own FFI handlers, as its initialize does for JAX
    if plan.initialize:
        _jax.initialize_pjrt_plugin(plan.name)
    if cluster is None:
        return _jax.get_c_api_client(plan.name, options)
    return _jax.get_c_api_client(plan.name, cluster_client_options(options, cluster), cluster.client)


def cluster_client_options(options: ClientOptions, cluster: Cluster) -> ClientOptions:
    """A PjRt plugin client's ``options`` for this process of a distributed
    run, as JAX's ``make_pjrt_c_api_client`` composes them: ``node_id`` and
    ``num_nodes`` (and ``partition_index``), and the GPUs ``initialize``'s
    ``local_device_ids`` names as ``visible_devices`` (JAX sets its
    ``jax_cuda_visible_devices`` from them)."""
    joined: ClientOptions = {"node_id": cluster.process_id, "num_nodes": cluster.num_processes}
    if cluster.partition_index is not None:
        joined["partition_index"] = cluster.partition_index
    joined.update(options)
    if cluster.local_device_ids is not None:
        joined["visible_devices"] = list(cluster.local_device_ids)
    return joined


def batched_block_until_ready(arrays: Sequence[Array]) -> None:
    """Wait for every one of jaxlib's ``arrays`` in one call (``jax.block_until_ready``'s way)."""
    _jax.batched_block_until_ready(arrays)


def pytree_flatten() -> _jax._PyTreeRegistry:
    """jaxlib's C++ pytree registry (``flatten`` in under a microsecond)."""
    return _jax.pytree.default_registry()


_LAPACK_READY: list[bool] = []


def prepare_lapack() -> None:
    """Make jaxlib's CPU LAPACK kernels (``lapack_*_ffi``: potrf, trsm,
    geqrf, orgqr, syevd, gesdd, getrf, ...) callable from a StableHLO
    ``custom_call`` in the modules typedax compiles: register each FFI
    target with XLA's CPU registry (queued until a CPU client exists, which
    then registers them; JAX registering the same targets again is harmless)
    and bind the kernels to SciPy's LAPACK (``_lapack.initialize``, about
    0.1 s, once). Called by ``typedax.lax_linalg``'s lowering rules."""
    if _LAPACK_READY:
        return
    from jaxlib.cpu import _lapack  # type: ignore[attr-defined, unused-ignore]  # a compiled module without stubs (whether mypy sees it depends on what else it checks)

    for name, target in _lapack.registrations().items():
        xc.register_custom_call_target(name, target, "cpu", int(name.endswith("_ffi")))
    _lapack.initialize()
    _LAPACK_READY.append(True)


def prepare_linalg(platform: str) -> None:
    """Make the kernels of the linalg decompositions callable on ``platform``:
    jaxlib's LAPACK kernels on ``cpu`` (``prepare_lapack``), its cuSOLVER
    kernels on ``cuda`` (``prepare_cusolver``). Called by the lowering rules
    of ``typedax.primitives.linalg`` (``typedax.lax_linalg`` installs it)."""
    if platform == "cuda":
        prepare_cusolver()
    else:
        prepare_lapack()


#: The packages of the CUDA plugin's kernels and FFI extension, newest first
#: (beside ``jax_plugins.xla_cuda*``, which holds the PjRt plugin itself).
CUDA_KERNEL_PACKAGES: tuple[str, ...] = ("jax_cuda13_plugin", "jax_cuda12_plugin")

#: The PJRT C API of the CUDA plugin, when typedax loaded it (``cuda_client``).
_CUDA_C_API: list[object] = []

_CUSOLVER_READY: list[bool] = []
_CUDA_HANDLER_READY: list[bool] = []


def _install_cuda_custom_call_handler() -> None:
    """Do for the plugin typedax loaded what the plugin's ``initialize``
    does when JAX loads it (``jax_plugins.xla_cuda*.initialize``): route
    XLA's ``CUDA`` custom-call and custom-type registrations to the plugin's
    library, through its FFI extension (``cuda_plugin_extension``) and the
    PJRT C API that loading returned, and register the plugin's own FFI
    handlers and types (``ffi_handlers``/``ffi_types``; ``ffi_registrations``
    in older plugins) -- ``xla_ffi_python_gpu_callback``, the host
    callbacks' target, among them.

    Installed when typedax loads the plugin (``cuda_client``), before any
    program is compiled: registrations made earlier (``prepare_cusolver``
    runs at lowering time, which can come before the client exists) sit in
    ``xla_client``'s queue, and installing the handler flushes them. Found on
    an H200: without this, a process where typedax loaded the plugin and JAX
    never started its GPU backend had neither cuSOLVER nor host callbacks
    ("No FFI handler registered for ..."). Where JAX loaded the plugin, its
    ``initialize`` did all this and ``_CUDA_C_API`` is empty. Should JAX load
    the plugin later in the same process, ``register_custom_call_handler``
    keeps the first handler (this one: the same library) and JAX's own
    registrations of the same handlers go through it again, which XLA
    accepts for an identical handler. Once per process."""
    if not _CUDA_C_API or _CUDA_HANDLER_READY:
        return
    for package in CUDA_KERNEL_PACKAGES:
        try:
            extension = importlib.import_module(f"{package}.cuda_plugin_extension")
        except ImportError:
            continue
        _CUDA_HANDLER_READY.append(True)
        c_api = _CUDA_C_API[0]

        def handler(name: str, fn: object, platform: str, api_version: int, traits: object) -> None:
            extension.register_custom_call_target(c_api, name, fn, platform, api_version, traits)

        def type_handler(type_name: str, type_info: object) -> None:
            extension.register_custom_type(c_api, type_name, type_info)

        if hasattr(extension, "register_custom_type") and hasattr(xc, "register_custom_type_handler"):
            xc.register_custom_type_handler("CUDA", type_handler)  # type: ignore[attr-defined, unused-ignore]  # jaxlib >= 0.11 (0.10's stubs lack it)
            for type_name, type_info in _plugin_table(extension, "ffi_types").items():
                xc.register_custom_type(type_name, type_info, platform="CUDA")  # type: ignore[attr-defined, unused-ignore]  # as above
        xc.register_custom_call_handler("CUDA", handler)  # type: ignore[arg-type]  # jaxlib's Protocol types traits as its enum
        handlers = _plugin_table(extension, "ffi_handlers") or _plugin_table(extension, "ffi_registrations")
        for name, target in handlers.items():
            xc.register_custom_call_target(name, target, "CUDA", 1)
        return


def _plugin_table(extension: object, name: str) -> dict[str, object]:
    """``extension.<name>()`` (a dict of FFI names to capsules), or empty
    where this plugin version has no such function."""
    table = getattr(extension, name, None)
    return dict(table()) if callable(table) else {}


def prepare_cusolver() -> None:
    """Make jaxlib's cuSOLVER kernels (``cusolver_*_ffi``: potrf, geqrf,
    orgqr, syevd, gesvdj, gesvd, getrf, ...) callable from a StableHLO
    ``custom_call`` on CUDA, as JAX does when it imports its linalg
    (``register_module_custom_calls(gpu_solver)``): each FFI target of
    ``jaxlib.gpu_solver`` (the plugin package's ``_solver`` module) registered
    for ``CUDA`` with ``xla_client``, which passes it to the plugin's handler
    (``_install_cuda_custom_call_handler``), or queues it until a handler
    exists. XLA accepts an identical second registration, so JAX registering
    the same kernels too is harmless. Without the plugin package there is
    nothing to register (and no CUDA client either). Once per process."""
    if _CUSOLVER_READY:
        return
    _install_cuda_custom_call_handler()
    from jaxlib import gpu_linalg, gpu_solver

    # gpu_linalg: ``cu_lu_pivots_to_permutation``, which ``lu`` lowers to on CUDA
    for module in (gpu_solver, gpu_linalg):
        for name, target, api_version in module.registrations()["CUDA"]:
            xc.register_custom_call_target(name, target, "CUDA", api_version)
    _CUSOLVER_READY.append(True)


#: DLPack's device type of CUDA memory (``DLDeviceType.kDLCUDA``)
DL_CUDA = 2


def hardware_id(device: Device) -> int:
    """The device's index among its kind on this host (what DLPack names)."""
    return int(device.local_hardware_id)  # type: ignore[attr-defined]  # jaxlib's stub lacks it


def dlpack_to_device(
    capsule_of: Callable[[int | None], object], device: Device
) -> tuple[Array, tuple[int, ...], np.dtype[np.generic]]:
    """A copy on ``device`` of a DLPack tensor in that device's memory, with
    its shape and dtype, as JAX's ``from_dlpack`` makes one:
    ``capsule_of(stream)`` exports it after the device's stream (the
    exporter's work on it is ordered before the copy), and jaxlib's
    ``dlpack_managed_tensor_to_buffer`` copies it."""
    try:
        stream: int | None = device.get_stream_for_external_ready_events()  # type: ignore[attr-defined]  # jaxlib's stub lacks it
    except JaxRuntimeError as e:
        if "UNIMPLEMENTED" not in str(e):
            raise
        stream = None
    to_buffer = _jax.dlpack_managed_tensor_to_buffer  # type: ignore[attr-defined]  # jaxlib's stub lacks it
    buf = to_buffer(capsule_of(stream), device, stream, True, DL_CUDA)
    return buf, tuple(buf.shape), np.dtype(buf.dtype)
