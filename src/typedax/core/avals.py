"""Abstract values: the types of arrays."""

from __future__ import annotations

from dataclasses import dataclass

from .dtypes import NAMES, SUPPORTED, DType
from .errors import PrimitiveTypeError

# hashed first (fast); the tuple keeps NumPy's looser ``==`` for the rest
_SUPPORTED_SET: frozenset[DType] = frozenset(SUPPORTED)


@dataclass(frozen=True, slots=True)
class ShapedArray:
    """An array type: a shape and a dtype. Compared and hashed by value."""

    shape: tuple[int, ...]
    dtype: DType

    def __post_init__(self) -> None:
        if self.dtype not in _SUPPORTED_SET and self.dtype not in SUPPORTED:
            names = ", ".join(d.name for d in SUPPORTED)
            raise PrimitiveTypeError(f"unsupported dtype {self.dtype}; typedax supports {names}")
        for d in self.shape:
            if type(d) is not int or d < 0:
                raise PrimitiveTypeError(f"bad shape {self.shape}: dimensions must be ints >= 0")

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
