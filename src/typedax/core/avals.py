"""Abstract values: the types of arrays."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .dtypes import EXTENDED, KEYS_SEEN, NAMES, SMALL_FLOATS, SMALL_SEEN, SUPPORTED, DType, float0, uint32
from .errors import PrimitiveTypeError

if TYPE_CHECKING:
    from .sharding import NamedSharding

# hashed first (fast); the tuple keeps NumPy's looser ``==`` for the rest
_SUPPORTED_SET: frozenset[DType] = frozenset(SUPPORTED) - frozenset(SMALL_FLOATS)  # (the small floats: below)
_SMALL_SET: frozenset[DType] = frozenset(SMALL_FLOATS)
_MAX_SIZE = 2**63  # XLA's sizes are int64


@dataclass(frozen=True, slots=True)
class ShapedArray:
    """An array type: a shape and a dtype. Compared and hashed by value.

    ``weak_type`` marks a *weakly typed* value, as JAX's avals do: a Python
    scalar, or a result computed from weak values only (``tnp.sqrt(2.0)``,
    ``x.shape[0] * 0.5``). It changes one thing, type promotion: a weak
    value takes the dtype of the strong operand it meets (``x_f32 *
    tnp.sqrt(2.0)`` stays float32). It is a property of a value during
    tracing, not of the program: the jaxpr after promotion computes the same
    thing whatever the flags, so ``==``, ``hash``, printing and the compile
    cache ignore it (two avals differing only in it are equal). ``jit``'s
    dispatch keys on it explicitly (``jit(f)(x, 0.5)`` and
    ``jit(f)(x, np.float64(0.5))`` may promote differently).

    ``sharding`` is the explicit-sharding part of the type (JAX's "sharding
    in types", ``core/explicit.py``): on a mesh with Explicit axes, the
    split of each dimension over those axes (``float32[8@x,4]``); ``None``
    otherwise. Like the weak flag it leaves ``==`` and ``hash`` alone (the
    typing rules of every primitive compare avals without it); ``jit`` keys
    its traces on it explicitly.
    """

    shape: tuple[int, ...]
    dtype: DType
    weak_type: bool = field(default=False, compare=False, repr=False)
    sharding: NamedSharding | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        given: object = self.dtype  # annotated DType, but np.float32 or "float32" arrive too
        if not isinstance(given, np.dtype):  # normalized once, here
            try:
                dtype = np.dtype(given)  # type: ignore[call-overload]  # any object may arrive; np.dtype refuses the wrong ones
            except TypeError:
                raise PrimitiveTypeError(f"{given!r} is not a dtype") from None
            object.__setattr__(self, "dtype", dtype)
        if self.dtype not in _SUPPORTED_SET:
            if self.dtype in _SMALL_SET:  # issue 29, item 7: from now on eager evaluation looks for them
                SMALL_SEEN[0] = True
            elif self.dtype in EXTENDED:
                KEYS_SEEN[0] = True
            elif self.dtype == float0:  # JAX's words for it (core/float0s.py)
                raise PrimitiveTypeError(
                    "Called an operation with a float0 array. float0s do not support any operations "
                    "by design because they are not compatible with non-trivial vector spaces. No "
                    "implicit dtype conversion is done. You can use np.zeros_like(arr, dtype=np.float) "
                    "to cast a float0 array to a regular zeros array. If you didn't expect to get a "
                    "float0 you might have accidentally taken a gradient with respect to an integer "
                    "argument."
                )
            else:
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

    def weakened(self, weak: bool = True) -> ShapedArray:
        """This type, weakly typed (or strongly, with ``weak=False``). A bool
        is never weak (JAX's lattice has no weak bool), nor is a typed key."""
        if self.weak_type is weak or (weak and (self.dtype == np.bool_ or self.dtype in EXTENDED)):
            return self
        if self.sharding is not None:  # (the tables below compare without it)
            return ShapedArray(self.shape, self.dtype, weak, self.sharding)
        table = _WEAK if weak else _STRONG
        twin = table.get(self)
        if twin is None:
            twin = ShapedArray(self.shape, self.dtype, weak)
            if len(table) >= 4096:
                table.clear()
            table[self] = twin
        return twin

    def str_short(self, short_dtypes: bool = False) -> str:
        """``float32[8,4]``; with an explicit sharding ``float32[8@x,4]``
        (``8@(x,y)`` for a dimension split over two axes), as JAX prints
        it; ``short_dtypes``: ``f32[8@x,4]``, as JAX's sharding errors."""
        name = NAMES[self.dtype]
        if short_dtypes:
            name = name.replace("float", "f").replace("uint", "u").replace("int", "i").replace("complex", "c")
        if self.sharding is None:
            return f"{name}[{','.join(map(str, self.shape))}]"
        spec = self.sharding.spec.partitions
        dims = []
        for i, d in enumerate(self.shape):
            p = spec[i] if i < len(spec) else None
            dims.append(str(d) if p is None else f"{d}@{p}" if isinstance(p, str) else f"{d}@({','.join(p)})")
        return f"{name}[{','.join(dims)}]"

    def __str__(self) -> str:
        return self.str_short()

    def __repr__(self) -> str:
        """JAX's: ``ShapedArray(float32[8@x,4])``, ``ShapedArray(float32[], weak_type=True)``."""
        return f"ShapedArray({self.str_short()}{', weak_type=True' if self.weak_type else ''})"


# the weak (strong) twin of each aval asked for: keyed by the aval, which
# compares without the flag
_WEAK: dict[ShapedArray, ShapedArray] = {}
_STRONG: dict[ShapedArray, ShapedArray] = {}


def physical_aval(aval: ShapedArray) -> ShapedArray:
    """The type a value of ``aval`` has on a device and in StableHLO: ``aval``
    itself, or for typed keys (``key<fry>[*S]``) their words, ``uint32[*S, 2]``."""
    if aval.dtype not in EXTENDED:
        return aval
    return ShapedArray(aval.shape + (2,), uint32)
