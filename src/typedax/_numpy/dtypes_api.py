"""``jax.dtypes``' functions and abstract types (issue 29 item 7); the face
is ``typedax/dtypes.py``.

JAX's extended dtypes are typed PRNG keys only, in typedax as in JAX's
public API: ``extended`` and ``prng_key`` are abstract scalar types (as
JAX's, subclasses of ``np.generic``) that ``issubdtype`` places a key's
dtype under.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np

from ..core.array import Array, ArrayLike
from ..core.dtypes import EXTENDED, KEY_NAME, DType, DTypeLike, TO_32
from ..core.config import X32_POSSIBLE, x64_enabled
from .functional import issubdtype as _np_issubdtype
from ..core.promotion import dtype_of_node, join
from .lax_numpy import _WEAK_PY, _node

#: ``jax.dtypes.bfloat16``: ml_dtypes' scalar type, as JAX's.
bfloat16 = ml_dtypes.bfloat16


class extended(np.generic):  # noqa: N801 - JAX's name
    """``jax.dtypes.extended``: the abstract type of the extended dtypes (in
    typedax, typed PRNG keys: ``issubdtype(key.dtype, extended)``)."""


class prng_key(extended):  # noqa: N801 - JAX's name
    """``jax.dtypes.prng_key``: the abstract type of typed PRNG keys'
    dtypes (``issubdtype(key.dtype, prng_key)``)."""


def _as_dtype(x: object) -> DType | None:
    if isinstance(x, np.dtype):
        return x
    if isinstance(x, type) and issubclass(x, extended):
        return None
    try:
        return np.dtype(x)  # type: ignore[call-overload, no-any-return]  # any dtype-like, as NumPy takes
    except TypeError:
        return None


def issubdtype(a: DTypeLike | None, b: DTypeLike | None) -> bool:
    """``jax.dtypes.issubdtype``: ``jnp.issubdtype``, with typed keys' dtype
    under ``extended`` and ``prng_key`` (and under nothing else but itself)."""
    da = _as_dtype(a)
    if da is not None and da in EXTENDED:
        if isinstance(b, type) and issubclass(b, extended):
            return True
        return _as_dtype(b) == da
    if isinstance(b, type) and issubclass(b, extended):
        return False
    return _np_issubdtype(a, b)


def canonicalize_dtype(dtype: DTypeLike, allow_extended_dtype: bool = False) -> DType:
    """``jax.dtypes.canonicalize_dtype``: the dtype as it is with the current
    x64 setting (int64 is int32 with x64 off, ...). A typed key's dtype only
    with ``allow_extended_dtype=True`` (JAX's ``ValueError`` otherwise)."""
    d = _as_dtype(dtype)
    if d is None:
        raise TypeError(f"canonicalize_dtype: {dtype!r} is not a dtype")
    if d in EXTENDED:
        if not allow_extended_dtype:
            raise ValueError(
                f"canonicalize_dtype called on extended dtype {KEY_NAME} with allow_extended_dtype=False"
            )
        return d
    if not X32_POSSIBLE[0] or x64_enabled():
        return d
    return TO_32.get(d, d)


def result_type(
    *args: ArrayLike | DTypeLike, return_weak_type_flag: bool = False
) -> DType | tuple[DType, bool]:
    """``jax.dtypes.result_type``: the dtype JAX's promotion gives these
    operands or dtypes; with ``return_weak_type_flag=True`` also whether the
    result is weakly typed (every operand a Python scalar or weak array)."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    node = _node(args[0])
    for x in args[1:]:
        node = join(node, _node(x))
    dtype = dtype_of_node(node)
    if return_weak_type_flag:
        return dtype, node in _WEAK_PY
    return dtype


def scalar_type_of(x: ArrayLike) -> type:
    """``jax.dtypes.scalar_type_of``: the Python scalar type of ``x``'s
    dtype (``bool``, ``int``, ``float`` or ``complex``)."""
    d = x.dtype if isinstance(x, Array) else np.asarray(x).dtype
    if d == np.bool_:
        return bool
    if d.kind in "iu":
        return int
    if d.kind == "c":
        return complex
    if d.kind == "f" or d == np.dtype(bfloat16):
        return float
    raise TypeError(f"scalar_type_of: no Python scalar type for dtype {d}")


def itemsize_bits(dtype: DTypeLike) -> int:
    """``jax.dtypes.itemsize_bits``: the size of one element in bits."""
    d = _as_dtype(dtype)
    if d is None:
        raise TypeError(f"itemsize_bits: {dtype!r} is not a dtype")
    m = re.fullmatch(r"u?int(\d+)", d.name)  # int4 and int2 are narrower than their itemsize
    return int(m.group(1)) if m else 8 * d.itemsize
