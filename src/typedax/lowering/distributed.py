"""Many processes computing as one (``typedax.distributed``): jaxlib's
distributed runtime, as JAX's ``jax/_src/distributed.py`` drives it.

``initialize(coordinator_address, num_processes, process_id)`` joins this
process to the others: process 0 starts the coordination service (a gRPC
server on the coordinator's port), every process connects a client to it
and waits for the rest. The runtime then makes its PjRt client with that
distributed client (``cluster()``): the client's ``devices()`` are every
process's devices, ``local_devices()`` this process's, and programs
partitioned over a mesh of all of them run their collectives across
processes (Gloo over TCP on CPU, NCCL on GPU). Nothing here depends on the
processes sharing a machine: on one machine the coordinator is
``127.0.0.1:PORT``, across machines the first host's address.

It must run before the backend starts (the client is made once); the
runtime calls ``cluster()`` as it makes its client, which fixes this
process's membership from then on.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from . import jaxlib_api as jx

logger = logging.getLogger(__name__)

#: ``cluster_detection_method`` values JAX accepts that would find the
#: arguments in a cluster's environment (Slurm, Open MPI, mpi4py, TPU and
#: Kubernetes pods); typedax reads only its arguments and ``JAX_*`` variables.
DETECTION_METHODS: tuple[str, ...] = ("deactivate",)

_ONCE = "distributed.initialize should only be called once."
_TOO_LATE = (
    "typedax.distributed.initialize() must be called before any typedax calls that might initialise the "
    "XLA backend. This includes any computation, but also calls to typedax.devices, typedax.device_put, "
    "and others."
)


@dataclass(frozen=True, slots=True, eq=False)
class DistributedState:
    """This process's membership: the coordinator, its place, the
    coordination client (and, on process 0, the service)."""

    coordinator_address: str
    num_processes: int
    process_id: int
    client: jx.DistributedRuntimeClient
    service: jx.DistributedRuntimeService | None
    local_device_ids: tuple[int, ...] | None
    partition_index: int | None


_LOCK = threading.Lock()
_STATE: list[DistributedState] = []
#: set once the runtime has made its client (``cluster()``)
_BACKEND_STARTED: list[bool] = [False]


def initialize(
    coordinator_address: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
    local_device_ids: int | Sequence[int] | None = None,
    cluster_detection_method: str | None = None,
    initialization_timeout: int = 300,
    heartbeat_timeout_seconds: int = 100,
    shutdown_timeout_seconds: int = 300,
    coordinator_bind_address: str | None = None,
    partition_index: int | None = None,
) -> None:
    """``jax.distributed.initialize``: join this process to a distributed run
    of ``num_processes`` processes as process ``process_id`` (``0 <=
    process_id < num_processes``, each once), whose process 0 serves the
    coordination service at ``coordinator_address`` (``host:port``; it
    binds ``coordinator_bind_address``, by default every interface on that
    port). Blocks until every process has connected or
    ``initialization_timeout`` seconds have passed. Call it before
    anything touches a device (``RuntimeError`` after), once per process
    (``RuntimeError`` again).

    Unset arguments are read from ``JAX_COORDINATOR_ADDRESS``,
    ``JAX_LOCAL_DEVICE_IDS``, ``JAX_COORDINATOR_BIND_ADDRESS`` and
    ``JAX_PARTITION_INDEX`` as JAX reads them. JAX's cluster auto-detection
    (Slurm, Open MPI, mpi4py, TPU pods) is not implemented: pass the
    arguments (``cluster_detection_method`` may be ``None`` or
    ``'deactivate'``). ``local_device_ids`` restricts a GPU process to those
    GPUs; a CPU process has the host devices it is configured with."""
    with _LOCK:
        if _BACKEND_STARTED[0]:
            raise RuntimeError(_TOO_LATE)
        _initialize(
            coordinator_address, num_processes, process_id, local_device_ids, cluster_detection_method,
            initialization_timeout, heartbeat_timeout_seconds, shutdown_timeout_seconds,
            coordinator_bind_address, partition_index,
        )


def _initialize(
    coordinator_address: str | None, num_processes: int | None, process_id: int | None,
    local_device_ids: int | Sequence[int] | None, cluster_detection_method: str | None,
    initialization_timeout: int, heartbeat_timeout_seconds: int, shutdown_timeout_seconds: int,
    coordinator_bind_address: str | None, partition_index: int | None,
) -> None:
    coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
    if isinstance(local_device_ids, int):
        local_device_ids = [local_device_ids]
    if local_device_ids is None and (env_ids := os.environ.get("JAX_LOCAL_DEVICE_IDS")):
        local_device_ids = [int(i) for i in env_ids.split(",")]
    if cluster_detection_method is not None and cluster_detection_method not in DETECTION_METHODS:
        raise NotImplementedError(
            f"cluster_detection_method={cluster_detection_method!r}: typedax does not detect clusters; "
            "pass coordinator_address, num_processes and process_id (or set JAX_COORDINATOR_ADDRESS)"
        )
    if coordinator_address is None:
        raise ValueError("coordinator_address should be defined.")
    if num_processes is None:
        raise ValueError("Number of processes must be defined.")
    if process_id is None:
        raise ValueError("The process id of the current process must be defined.")
    if not isinstance(process_id, int):
        raise TypeError(
            "process_id must be a nonnegative int. "
            f"Got process_id={process_id} of type {type(process_id)}."
        )
    if not isinstance(num_processes, int):
        raise TypeError(
            "num_processes must be a positive int. "
            f"Got num_processes={num_processes} of type {type(num_processes)}."
        )
    if not 0 <= process_id < num_processes:
        raise ValueError(
            "process_id and num_processes must be nonnegative, with process_id < num_processes. "
            f"Got process_id={process_id}, num_processes={num_processes}."
        )
    if ":" not in coordinator_address:
        raise ValueError(f"coordinator_address must be 'host:port', got {coordinator_address!r}")
    bind = coordinator_bind_address or os.environ.get(
        "JAX_COORDINATOR_BIND_ADDRESS", "[::]:" + coordinator_address.rsplit(":", 1)[1]
    )
    if partition_index is None and (env_partition := os.environ.get("JAX_PARTITION_INDEX")) is not None:
        partition_index = int(env_partition)
    if _STATE:
        raise RuntimeError(_ONCE)
    proxies = [k for k in os.environ if "_proxy" in k.lower()]
    if proxies:
        logger.warning(
            "typedax detected proxy variable(s) in the environment as distributed setup: %s. On some "
            "systems, this may cause a hang of distributed.initialize and you may need to unset these "
            "ENV variable(s)", " ".join(proxies),
        )
    service = None
    if process_id == 0:
        logger.info("Starting the distributed service on %s", bind)
        service = jx.distributed_service(bind, num_processes, heartbeat_timeout_seconds, shutdown_timeout_seconds)
    client = jx.distributed_client(coordinator_address, process_id, initialization_timeout, heartbeat_timeout_seconds)
    logger.info("Connecting to the distributed service on %s", coordinator_address)
    try:
        client.connect()
    except BaseException:
        # not joined: leave nothing running, so that initialize may be called again
        if service is not None:
            service.shutdown()
        raise
    ids = None if local_device_ids is None else tuple(int(i) for i in local_device_ids)
    _STATE.append(
        DistributedState(coordinator_address, num_processes, process_id, client, service, ids, partition_index)
    )


def shutdown() -> None:
    """``jax.distributed.shutdown``: leave the distributed run (process 0
    stops the service once the others have left). Does nothing when not
    initialized."""
    with _LOCK:
        if not _STATE:
            return
        state = _STATE.pop()
        state.client.shutdown()
        if state.service is not None:
            state.service.shutdown()


def is_initialized() -> bool:
    """``jax.distributed.is_initialized``."""
    return bool(_STATE)


def state() -> DistributedState | None:
    """This process's membership, if ``initialize`` ran."""
    return _STATE[0] if _STATE else None


def cluster() -> jx.Cluster | None:
    """What the runtime's client needs to join the other processes (``None``
    when not distributed); called as the runtime makes its client, after
    which ``initialize`` refuses to run."""
    with _LOCK:
        _BACKEND_STARTED[0] = True
        if not _STATE:
            return None
        s = _STATE[0]
        return jx.Cluster(s.client, s.process_id, s.num_processes, s.local_device_ids, s.partition_index)
