"""``tnp.float32`` and the other scalar types, as ``jax.numpy``'s.

Each is a class that stands for its dtype wherever a dtype is accepted
(``np.dtype(tnp.float32)``, ``x.astype(tnp.int8)``, ``tnp.zeros(3,
tnp.float32)``, ``x.dtype == tnp.float32``: NumPy reads the class's
``dtype`` attribute) and, called, makes a typedax array of that dtype:
``tnp.float32(0.5)`` is a strong float32 ``Array``, never a NumPy scalar
(``jnp.float32(0.5)`` is a ``jax.Array``). ``isinstance(v, tnp.float32)`` asks
NumPy's scalar type, as JAX's does.
"""

from __future__ import annotations

import numpy as np

from ..core.array import Array, ArrayLike
from ..core import dtypes as _dtypes
from ..core.dtypes import DType, bfloat16 as _bf16, float16 as _f16
from .lax_numpy import _ScalarMeta, asarray


class _ScalarType(metaclass=_ScalarMeta):
    dtype: DType = np.dtype(np.float64)

    def __new__(cls, x: ArrayLike | list[object] | tuple[object, ...]) -> Array:  # type: ignore[misc]  # makes an Array, as jnp.float32(x) a jax.Array
        return asarray(x, dtype=cls.dtype)


class bool_(_ScalarType):  # noqa: N801 - NumPy's and JAX's names
    dtype = np.dtype(np.bool_)


class int8(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.int8)


class int16(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.int16)


class int32(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.int32)


class int64(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.int64)


class uint8(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.uint8)


class uint16(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.uint16)


class uint32(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.uint32)


class uint64(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.uint64)


class float16(_ScalarType):  # noqa: N801
    dtype = _f16


class bfloat16(_ScalarType):  # noqa: N801
    dtype = _bf16


class float32(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.float32)


class float64(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.float64)


class complex64(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.complex64)


class complex128(_ScalarType):  # noqa: N801
    dtype = np.dtype(np.complex128)


#: NumPy's and JAX's other names of the complex types
csingle = complex64
cdouble = complex128
complex_ = complex128


# ml_dtypes' small floats, as jax.numpy exports them (issue 29, item 7)


class float4_e2m1fn(_ScalarType):  # noqa: N801
    dtype = _dtypes.float4_e2m1fn


class float8_e3m4(_ScalarType):  # noqa: N801
    dtype = _dtypes.float8_e3m4


class float8_e4m3(_ScalarType):  # noqa: N801
    dtype = _dtypes.float8_e4m3


class float8_e4m3b11fnuz(_ScalarType):  # noqa: N801
    dtype = _dtypes.float8_e4m3b11fnuz


class float8_e4m3fn(_ScalarType):  # noqa: N801
    dtype = _dtypes.float8_e4m3fn


class float8_e4m3fnuz(_ScalarType):  # noqa: N801
    dtype = _dtypes.float8_e4m3fnuz


class float8_e5m2(_ScalarType):  # noqa: N801
    dtype = _dtypes.float8_e5m2


class float8_e5m2fnuz(_ScalarType):  # noqa: N801
    dtype = _dtypes.float8_e5m2fnuz


class float8_e8m0fnu(_ScalarType):  # noqa: N801
    dtype = _dtypes.float8_e8m0fnu
