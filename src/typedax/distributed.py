"""``typedax.distributed`` (``jax.distributed``): several processes, on one
machine or many, computing as one program over all their devices.
``initialize(coordinator_address, num_processes, process_id)`` in every
process before anything else; then ``typedax.devices()`` lists every
process's devices, ``typedax.local_devices()`` this process's, and a
program partitioned over a mesh of all of them (``jit`` with shardings,
``shard_map``) runs its collectives across the processes. docs/scale-out.md
says how."""

from .lowering.distributed import initialize as initialize
from .lowering.distributed import is_initialized as is_initialized
from .lowering.distributed import shutdown as shutdown

__all__ = ["initialize", "is_initialized", "shutdown"]
