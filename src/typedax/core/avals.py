"""Abstract values: the types of arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dtypes import NAMES, SUPPORTED, DType
from .errors import PrimitiveTypeError

# hashed first (fast); the tuple keeps NumPy's looser ``==`` for the rest
_SUPPORTED_SET: frozenset[DType] = frozenset(SUPPORTED)
_MAX_SIZE = 2**63  # XLA's sizes are int64


@dataclass(frozen=True, slots=True)
class ShapedArray:
    """An array type: a shape and a dtype. Compared and hashed by value."""

    shape: tuple[int, ...]
    dtype: DType

    def __post_init__(self) -> None:
        given: object = self.dtype  # annotated DType, but np.float32 or "float32" arrive too
        if not isinstance(given, np.dtype):  # normalized once, here
            try:
                dtype = np.dtype(given)  # type: ignore[call-overload]  # any object may arrive; np.dtype refuses the wrong ones
            except TypeError:
                raise PrimitiveTypeError(f"{given!r} is not a dtype") from None
            object.__setattr__(self, "dtype", dtype)
        if self.dtype not in _SUPPORTED_SET:
            names = ", ".join(d.name for d in SUPPORTED)
            raise PrimitiveTypeError(f"unsupported dtype {self.dtype}; typedax supports {names}")
        size = 1
        for d in self.shape:
            if type(d) is not int or d < 0:
                raise PrimitiveTypeError(f"bad shape {self.shape}: dimensions must be ints >= 0")
            size *= d
        if size >= _MAX_SIZE:
            raise PrimitiveTypeError(
                f"bad shape {self.shape}: {size} elements is more than an array can hold (2**63 - 1)"
            )

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def str_short(self) -> str:
        return f"{NAMES[self.dtype]}[{','.join(map(str, self.shape))}]"

    def __str__(self) -> str:
        return self.str_short()
