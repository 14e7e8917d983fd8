"""``jax.dtypes``: dtype queries and JAX's special dtypes.

A face: it defines nothing. ``float0`` is the dtype of the tangent of an
integer or bool value (``grad(f, allow_int=True)`` gives float0 zeros for an
integer argument, ``jvp`` takes float0 tangents for integer primals);
``extended``/``prng_key`` are the abstract types of typed keys' dtypes;
``TypePromotionError`` (JAX's strict promotion mode) is never raised:
typedax promotes as JAX's ``standard`` mode.
"""

from ._numpy.dtypes_api import bfloat16 as bfloat16
from ._numpy.dtypes_api import canonicalize_dtype as canonicalize_dtype
from ._numpy.dtypes_api import extended as extended
from ._numpy.dtypes_api import issubdtype as issubdtype
from ._numpy.dtypes_api import itemsize_bits as itemsize_bits
from ._numpy.dtypes_api import prng_key as prng_key
from ._numpy.dtypes_api import result_type as result_type
from ._numpy.dtypes_api import scalar_type_of as scalar_type_of
from ._numpy.lax_numpy import finfo as finfo
from ._numpy.lax_numpy import iinfo as iinfo
from .core.dtypes import float0 as float0
from .core.errors import TypePromotionError as TypePromotionError

__all__ = [
    "TypePromotionError",
    "bfloat16",
    "canonicalize_dtype",
    "extended",
    "finfo",
    "float0",
    "iinfo",
    "issubdtype",
    "itemsize_bits",
    "prng_key",
    "result_type",
    "scalar_type_of",
]
