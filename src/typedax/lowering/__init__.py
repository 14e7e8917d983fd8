"""StableHLO lowering and the PjRt runtime.

- ``lower_jaxpr(jaxpr, name)``: a StableHLO module (``LoweredModule``), one
  primitive's ``rules.lower``; higher-order primitives lower
  their jaxpr params with ``call_jaxpr`` / ``lower_jaxpr_body``.
- ``Array``: a device-resident array; ``device_put`` makes one.
- ``compile_cache`` / ``cache_stats()``: executables keyed by jaxpr structure.
- ``set_platform`` / ``TYPEDAX_PLATFORM``: which device (``cpu`` default).
"""


from ..hlo import HloValue as HloValue
from .array import Array as Array
from .cache import CacheStats as CacheStats
from .cache import CompileCache as CompileCache
from .cache import cache_stats as cache_stats
from .cache import clear_cache as clear_cache
from .cache import compile_cache as compile_cache
from ..hlo import LoweringContext as LoweringContext
from .lower import LoweredModule as LoweredModule
from ..core.rules import LoweringRule as LoweringRule
from ..hlo import call_jaxpr as call_jaxpr
from ..hlo import lower_function as lower_function
from .lower import lower_jaxpr as lower_jaxpr
from ..hlo import lower_jaxpr_body as lower_jaxpr_body
from .runtime import Executable as Executable
from .runtime import PlatformError as PlatformError
from .runtime import backend as backend
from .runtime import device_put as device_put
from .runtime import default_backend as default_backend
from .runtime import devices as devices
from .runtime import local_devices as local_devices
from .runtime import platform as platform
from .runtime import set_platform as set_platform
from . import eager as eager  # installs eval_on_device into core.trace (Rules.eval_on_device primitives run through XLA)
from . import sharding as sharding  # installs the runtime of core.sharded's arrays
