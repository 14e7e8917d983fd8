"""``typedax.sharding`` (``jax.sharding``): meshes of devices, partition
specs and shardings; ``tdx.device_put(x, sharding)`` lays an array out,
``tdx.jit(f, in_shardings=..., out_shardings=...)`` compiles over a mesh."""

from .core.sharding import Mesh as Mesh
from .core.sharding import NamedSharding as NamedSharding
from .core.sharding import P as P
from .core.sharding import PartitionSpec as PartitionSpec
from .core.sharding import Shard as Shard
from .core.sharding import Sharding as Sharding
from .core.sharding import SingleDeviceSharding as SingleDeviceSharding
from .lowering.sharding import make_mesh as make_mesh

__all__ = ["Mesh", "NamedSharding", "P", "PartitionSpec", "Shard", "Sharding", "SingleDeviceSharding", "make_mesh"]
