"""The dtypes typedax supports, and how Python and NumPy values map onto them."""

from __future__ import annotations

from typing import Final, TypeAlias

import numpy as np

DType: TypeAlias = "np.dtype[np.generic]"

bool_: Final[DType] = np.dtype(np.bool_)
int32: Final[DType] = np.dtype(np.int32)
int64: Final[DType] = np.dtype(np.int64)
float32: Final[DType] = np.dtype(np.float32)
float64: Final[DType] = np.dtype(np.float64)

SUPPORTED: Final[tuple[DType, ...]] = (bool_, int32, int64, float32, float64)
BY_NAME: Final[dict[str, DType]] = {d.name: d for d in SUPPORTED}
# ``np.dtype.name`` is a slow Python-level property; printing looks names up here.
NAMES: Final[dict[DType, str]] = {d: d.name for d in SUPPORTED}
FLOATING: Final[frozenset[DType]] = frozenset({float32, float64})
INTEGER: Final[frozenset[DType]] = frozenset({int32, int64})


def is_float(d: DType) -> bool:
    return d in FLOATING


def is_int(d: DType) -> bool:
    return d in INTEGER
