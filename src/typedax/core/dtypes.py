"""The dtypes typedax supports, and how Python and NumPy values map onto them."""

from __future__ import annotations

import warnings
from typing import Any, Final, TypeAlias, cast

import ml_dtypes
import numpy as np

from .config import X32_POSSIBLE, x64_enabled

DType: TypeAlias = "np.dtype[np.generic]"

bool_: Final[DType] = np.dtype(np.bool_)
int8: Final[DType] = np.dtype(np.int8)
int16: Final[DType] = np.dtype(np.int16)
int32: Final[DType] = np.dtype(np.int32)
int64: Final[DType] = np.dtype(np.int64)
uint8: Final[DType] = np.dtype(np.uint8)
uint16: Final[DType] = np.dtype(np.uint16)
uint32: Final[DType] = np.dtype(np.uint32)
uint64: Final[DType] = np.dtype(np.uint64)
float16: Final[DType] = np.dtype(np.float16)
bfloat16: Final[DType] = np.dtype(ml_dtypes.bfloat16)  # NumPy's kind "V": test membership, never .kind
float32: Final[DType] = np.dtype(np.float32)
float64: Final[DType] = np.dtype(np.float64)

SUPPORTED: Final[tuple[DType, ...]] = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64,
)
BY_NAME: Final[dict[str, DType]] = {d.name: d for d in SUPPORTED}
# ``np.dtype.name`` is a slow Python-level property; printing looks names up here.
NAMES: Final[dict[DType, str]] = {d: d.name for d in SUPPORTED}
FLOATING: Final[frozenset[DType]] = frozenset({float16, bfloat16, float32, float64})
#: The 16-bit floats: evaluated eagerly as XLA on CPU computes them, each
#: operation in float32 and its result rounded (core/trace.py).
HALF: Final[frozenset[DType]] = frozenset({float16, bfloat16})
SIGNED: Final[frozenset[DType]] = frozenset({int8, int16, int32, int64})
UNSIGNED: Final[frozenset[DType]] = frozenset({uint8, uint16, uint32, uint64})
#: Integers of either signedness (JAX's ``_int``); arithmetic wraps around in both.
INTEGER: Final[frozenset[DType]] = SIGNED | UNSIGNED


def is_float(d: DType) -> bool:
    return d in FLOATING


def is_int(d: DType) -> bool:
    return d in INTEGER


def finfo(dtype: DType | type) -> np.finfo[np.floating[Any]]:
    """Machine limits of a float dtype: NumPy's ``finfo``, bfloat16's too
    (``ml_dtypes.finfo``, what ``jnp.finfo`` is)."""
    return cast("np.finfo[np.floating[Any]]", ml_dtypes.finfo(dtype))  # type: ignore[no-untyped-call]  # ml_dtypes ships it untyped


def is_unsigned(d: DType) -> bool:
    return d in UNSIGNED


def int_range(d: DType) -> tuple[int, int]:
    """The least and greatest value of an integer dtype (bool: 0 and 1)."""
    if d == bool_:
        return 0, 1
    info = np.iinfo(d)  # type: ignore[type-var]  # an integer dtype (callers check)
    return int(info.min), int(info.max)


# -- x64 off: JAX's canonical dtypes -------------------------------------------
#: The 32-bit type each 64-bit one becomes with x64 off (JAX's
#: ``canonicalize_dtype``; complex128 would join, typedax lacks it).
TO_32: Final[dict[DType, DType]] = {int64: int32, uint64: uint32, float64: float32}


def canonicalize_dtype(d: DType) -> DType:
    """``d`` as it is with the current x64 setting (JAX's ``canonicalize_dtype``)."""
    if not X32_POSSIBLE[0] or x64_enabled():
        return d
    return TO_32.get(d, d)


def canonicalize_explicit(d: DType, fun_name: str) -> DType:
    """A dtype the user asked for by name: canonicalized, with JAX's warning
    when that changes it (``_maybe_canonicalize_explicit_dtype``)."""
    if not X32_POSSIBLE[0] or x64_enabled():
        return d
    c = TO_32.get(d, d)
    if c != d:
        warnings.warn(
            f"Explicitly requested dtype {d} requested in {fun_name} is not available, "
            f"and will be truncated to dtype {c.name}. To enable more dtypes, set the "
            "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell "
            "environment variable. See https://github.com/jax-ml/jax#current-gotchas for more.",
            stacklevel=3,
        )
    return c


def default_int() -> DType:
    """The default integer type: int64, or int32 with x64 off."""
    return int64 if not X32_POSSIBLE[0] or x64_enabled() else int32


def default_float() -> DType:
    """The default float type: float64, or float32 with x64 off."""
    return float64 if not X32_POSSIBLE[0] or x64_enabled() else float32
