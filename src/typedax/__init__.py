"""typedax: the JAX core as a strictly typed, immutable library."""

import os as _os

# XLA's C++ logging prints informational lines when the PjRt client starts;
# keep warnings and errors unless the user chose a level (read when jaxlib loads).
_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

from . import control_flow as control_flow
from . import lax as lax
from . import numpy as numpy
from . import tree as tree
from .api import ShapeDtypeStruct as ShapeDtypeStruct
from .api import block_until_ready as block_until_ready
from .api import device_get as device_get
from .api import eval_shape as eval_shape
from .api import make_jaxpr as make_jaxpr
from .api_forward import jacfwd as jacfwd
from .api_forward import jvp as jvp
from .api_forward import vmap as vmap
from .api_reverse import grad as grad
from .api_reverse import hessian as hessian
from .api_reverse import jacrev as jacrev
from .api import typeof as typeof  # jax.typeof (issue 29)
from .api_reverse import linearize as linearize
from .api_reverse import value_and_grad as value_and_grad
from .api_reverse import vjp as vjp
from .custom_derivatives import custom_jvp as custom_jvp
from .custom_derivatives import custom_vjp as custom_vjp
from . import ad_checkpoint as ad_checkpoint
from .ad_checkpoint import checkpoint as checkpoint
from .ad_checkpoint import checkpoint_policies as checkpoint_policies
from .ad_checkpoint import remat as remat
from .control_flow.callbacks import pure_callback as pure_callback
from . import debug as debug
from . import experimental as experimental
from .core import ClosedJaxpr as ClosedJaxpr
from .core import ConcretizationError as ConcretizationError
from .core import EscapedTracerError as EscapedTracerError
from .core import Jaxpr as Jaxpr
from .core import ShapedArray as ShapedArray
from .core import eval_jaxpr as eval_jaxpr
from .core import parse_jaxpr as parse_jaxpr
from .core import typecheck_jaxpr as typecheck_jaxpr
from .core.trace import Value as Value
from .jitting import jit as jit
from . import registry as _registry  # installs the library's registry as parse_jaxpr's default (core.parse)
from .core.array import Array as Array
from .core.config import config as config
from .core.config import disable_jit as disable_jit
from .core.config import default_matmul_precision as default_matmul_precision
from .core.config import explain_cache_misses as explain_cache_misses  # compile logging
from .core.config import log_compiles as log_compiles  # compile logging
from .core.config import debug_infs as debug_infs  # jax's config managers and host names
from .core.config import debug_nans as debug_nans  # jax's config managers and host names
from .core.config import enable_x64 as enable_x64  # jax's config managers and host names
from .core.array import ArrayLike as ArrayLike
from .lowering.sharding import device_put as device_put
from .lowering.sharding import make_mesh as make_mesh
from .core.sharding import NamedSharding as NamedSharding  # jax.NamedSharding (explicit sharding)
from .core.sharding import P as P  # jax.P (explicit sharding)
from .jitting.explicit_sharding import reshard as reshard  # jax.reshard (explicit sharding)
from .jitting.explicit_sharding import set_mesh as set_mesh  # jax.set_mesh (explicit sharding)
from .jitting.shard_map import jax_shard_map as _jax_shard_map
from .jitting.pmap import pmap as pmap
from .lowering import default_backend as default_backend
from .lowering import devices as devices
from .lowering import local_devices as local_devices
from .lowering.runtime import device_count as device_count
from .lowering.runtime import local_device_count as local_device_count
from .lowering.runtime import process_index as process_index
from .lowering.runtime import process_count as process_count
from .lowering.runtime import host_count as host_count  # jax's config managers and host names
from .lowering.runtime import host_id as host_id  # jax's config managers and host names
from .lowering.runtime import host_ids as host_ids  # jax's config managers and host names
from .lowering.runtime import process_indices as process_indices  # jax's config managers and host names
from . import distributed as distributed
from .lowering.multihost import make_array_from_process_local_data as make_array_from_process_local_data
from .lowering.multihost import make_array_from_single_device_arrays as make_array_from_single_device_arrays
from . import sharding as sharding
from . import random as random
from . import nn as nn
from . import scipy as scipy
from . import tree_util as tree_util
from . import ops as ops  # jax.ops (issue 29)
from . import test_util as test_util  # jax.test_util (issue 29)

shard_map = _jax_shard_map  # jax.shard_map (a renaming import would not re-export it)
jacobian = jacrev  # jax.jacobian: jacrev, as JAX's (issue 29; a renaming import would not re-export it)
from . import dtypes as dtypes  # jax.dtypes (issue 29 item 7)
from . import errors as errors  # jax.errors (issue 29 item 7)
from . import stages as stages  # jax.stages (issue 29 item 7)
from . import typing as typing  # jax.typing (issue 29 item 7)
from .core.dtypes import float0 as float0  # jax.float0 (issue 29 item 7)
from .api_names import clear_caches as clear_caches  # issue 29 item 7
from .api_names import ensure_compile_time_eval as ensure_compile_time_eval  # issue 29 item 7
from .api_names import live_arrays as live_arrays  # issue 29 item 7
from .api_names import named_call as named_call  # issue 29 item 7
from .api_names import named_scope as named_scope  # issue 29 item 7
from .api_linear import closure_convert as closure_convert  # issue 29 item 7
from .api_linear import custom_gradient as custom_gradient  # issue 29 item 7
from .api_linear import linear_transpose as linear_transpose  # issue 29 item 7
from . import image as image  # jax.image (issue 29 item 7: image)
