"""``typedax.sharding`` (``jax.sharding``): meshes of devices, partition
specs and shardings; ``tdx.device_put(x, sharding)`` lays an array out,
``tdx.jit(f, in_shardings=..., out_shardings=...)`` compiles over a mesh;
explicit sharding (``AxisType.Explicit``, ``set_mesh``, ``reshard``,
``auto_axes``, ``explicit_axes``: docs/scale-out.md)."""

from .core.sharding import AbstractMesh as AbstractMesh
from .core.sharding import AxisType as AxisType
from .core.sharding import Mesh as Mesh
from .core.sharding import NamedSharding as NamedSharding
from .core.sharding import P as P
from .core.sharding import PartitionSpec as PartitionSpec
from .core.sharding import Shard as Shard
from .core.sharding import Sharding as Sharding
from .core.sharding import SingleDeviceSharding as SingleDeviceSharding
from .jitting.explicit_sharding import auto_axes as auto_axes
from .jitting.explicit_sharding import explicit_axes as explicit_axes
from .jitting.explicit_sharding import get_abstract_mesh as get_abstract_mesh
from .jitting.explicit_sharding import get_mesh as get_mesh
from .jitting.explicit_sharding import reshard as reshard
from .jitting.explicit_sharding import set_mesh as set_mesh
from .jitting.explicit_sharding import use_abstract_mesh as use_abstract_mesh
from .lowering.sharding import make_mesh as make_mesh

__all__ = [
    "AbstractMesh", "AxisType", "Mesh", "NamedSharding", "P", "PartitionSpec", "Shard", "Sharding",
    "SingleDeviceSharding", "auto_axes", "explicit_axes", "get_abstract_mesh", "get_mesh", "make_mesh",
    "reshard", "set_mesh", "use_abstract_mesh",
]
