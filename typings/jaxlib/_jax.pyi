# Minimal, honest stubs for the parts of jaxlib's C++ extension ``jaxlib._jax``
# that typedax uses (jaxlib 0.10.2 ships no stubs for it). Signatures follow the
# extension's own ``__doc__`` strings; anything typedax does not call is absent.
import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol  # live_arrays (issue 29 item 7)
import numpy as np
import numpy.typing as npt

from jaxlib import _hlo
from jaxlib.mlir import ir as _ir

class JaxRuntimeError(RuntimeError): ...

class HostBufferSemantics(enum.Enum):
    IMMUTABLE_ONLY_DURING_CALL = ...
    IMMUTABLE_UNTIL_TRANSFER_COMPLETES = ...
    ZERO_COPY = ...

class Device:
    id: int
    platform: str
    device_kind: str
    client: Client
    process_index: int

class DeviceList:
    def __init__(self, device_assignment: tuple[Device, ...], /) -> None: ...

class DeviceAssignment:
    @staticmethod
    def create(assignment: npt.NDArray[np.int32], /) -> DeviceAssignment: ...

class ExecutableBuildOptions:
    use_spmd_partitioning: bool
    use_shardy_partitioner: bool
    allow_spmd_sharding_propagation_to_output: list[bool]

class CompileOptions:
    num_replicas: int
    num_partitions: int
    device_assignment: DeviceAssignment
    @property
    def executable_build_options(self) -> ExecutableBuildOptions: ...
    def __init__(self) -> None: ...

class Sharding: ...

class SingleDeviceSharding(Sharding):
    def __init__(self, device: Device, *, memory_kind: object = None) -> None: ...

class GSPMDSharding(Sharding):
    def __init__(self, devices: DeviceList, op_sharding: _hlo.HloSharding, memory_kind: object = None) -> None: ...

class _ArrayType(Protocol):  # the type object typedax passed in (runtime._PutType): live_arrays (issue 29 item 7)
    shape: tuple[int, ...]
    dtype: np.dtype[np.generic]

class Array:
    aval: _ArrayType  # live_arrays (issue 29 item 7)
    def block_until_ready(self) -> Array: ...
    def is_ready(self) -> bool: ...
    def delete(self) -> None: ...
    def is_deleted(self) -> bool: ...
    def __array__(self, dtype: object = None, copy: object = None) -> npt.NDArray[np.generic]: ...

class ArrayImpl(Array):
    def _single_device_array_to_np_array_did_copy(self) -> tuple[npt.NDArray[np.generic], bool]: ...

class ExecuteResults:
    def disassemble_into_single_device_arrays(self) -> list[list[Array]]: ...
    def consume_with_handlers(
        self, out_handlers: Sequence[ResultHandler], strict: bool = True
    ) -> list[Array]: ...

class LoadedExecutable:
    def execute_sharded(
        self, arguments: Sequence[Array], with_tokens: bool = False, launch_id: int | None = None
    ) -> ExecuteResults: ...
    def local_devices(self) -> list[Device]: ...
    def get_hlo_text(self) -> str: ...
    def get_output_shardings(self) -> list[object] | None: ...
    def size_of_generated_code_in_bytes(self) -> int: ...
    def get_compiled_memory_stats(self) -> CompiledMemoryStats: ...
    def cost_analysis(self) -> dict[str, str | bool | int | list[int] | float]: ...

class CompiledMemoryStats:
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

class Client:
    platform: str
    platform_version: str
    def local_devices(self) -> list[Device]: ...
    def devices(self) -> list[Device]: ...
    def device_count(self) -> int: ...
    def process_index(self) -> int: ...
    def live_arrays(self) -> list[Array]: ...  # live_arrays (issue 29 item 7)
    def compile_and_load(
        self,
        computation: str | bytes | _ir.Module,
        executable_devices: DeviceList,
        compile_options: CompileOptions = ...,
        host_callbacks: Sequence[Callable[..., object]] = ...,
    ) -> LoadedExecutable: ...

def batched_device_put(
    aval: object,
    sharding: object,
    xs: Sequence[object],
    devices: Sequence[Device],
    committed: bool = True,
    force_copy: bool = False,
    host_buffer_semantics: HostBufferSemantics = ...,
    enable_x64: bool | None = None,
) -> Array: ...

class ResultHandler: ...

def array_result_handler(
    aval: object, sharding: object, committed: bool, _skip_checks: bool = False
) -> ResultHandler: ...

def batched_block_until_ready(arrays: Sequence[Array]) -> None: ...

def get_tfrt_cpu_client(
    asynchronous: bool = True,
    distributed_client: object = None,
    node_id: int = 0,
    num_nodes: int = 1,
    collectives: object = None,
    num_devices: int | None = None,
    get_local_topology_timeout_minutes: int | None = None,
    get_global_topology_timeout_minutes: int | None = None,
    transfer_server_factory: object = None,
) -> Client: ...

class DistributedRuntimeService:
    def shutdown(self) -> None: ...

class DistributedRuntimeClient:
    def connect(self) -> None: ...
    def shutdown(self) -> None: ...

class CpuCollectives: ...

def get_distributed_runtime_service(
    address: str,
    num_nodes: int,
    heartbeat_timeout: int | None = None,
    cluster_register_timeout: int | None = None,
    shutdown_timeout: int | None = None,
    recoverable: bool | None = None,
) -> DistributedRuntimeService: ...

def get_distributed_runtime_client(
    address: str,
    node_id: int,
    rpc_timeout: int | None = None,
    init_timeout: int | None = None,
    shutdown_timeout: int | None = None,
    heartbeat_timeout: int | None = None,
    missed_heartbeat_callback: Callable[..., object] | None = None,
    shutdown_on_destruction: bool | None = None,
    use_compression: bool | None = None,
) -> DistributedRuntimeClient: ...

def make_gloo_tcp_collectives(
    distributed_client: DistributedRuntimeClient, hostname: str | None = None, interface: str | None = None
) -> CpuCollectives: ...

def get_c_api_client(
    platform_name: str,
    options: Mapping[str, str | int | list[int] | float | bool] = ...,
    distributed_client: object = None,
    transfer_server_factory: object = None,
    force_dcn_cross_host_transfers: bool = False,
    sort_devices_by_process_index: bool = True,
) -> Client: ...

def load_pjrt_plugin(platform_name: str, library_path: str | None, c_api: object | None) -> object: ...
def pjrt_plugin_loaded(plugin_name: str) -> bool: ...
def pjrt_plugin_initialized(plugin_name: str) -> bool: ...
def initialize_pjrt_plugin(plugin_name: str) -> None: ...


class PyTreeDef:
    @property
    def num_leaves(self) -> int: ...
    def unflatten(self, leaves: Iterable[object], /) -> object: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...

class _PyTreeRegistry:
    def flatten(
        self, tree: object, leaf_predicate: Callable[[object], bool] | None = None
    ) -> tuple[list[object], PyTreeDef]: ...

class _PytreeModule:
    """The ``jaxlib._jax.pytree`` submodule."""

    @staticmethod
    def default_registry() -> _PyTreeRegistry: ...

pytree: _PytreeModule
