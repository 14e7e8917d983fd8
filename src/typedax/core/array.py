"""``Array``: the one public array type.

Every typedax value is an ``Array`` (as every JAX value is a ``jax.Array``):
the results of eager operations, the results of compiled computations, and
the tracers of every interpreter. ``Array`` holds the surface they share --
``shape``, ``dtype``, the Python operators (which follow ``typedax.numpy``:
JAX's promotion and broadcasting), ``.T``, ``.reshape``, ``.sum`` ... -- all
derived from ``aval``.

``ArrayImpl`` is the concrete array. It holds its value on the host (a
read-only NumPy array), on the device (a PjRt buffer), or both: an eager
result stays a NumPy value, so eager operations cost what NumPy costs, and
moves to the device only when a compiled computation takes it; a compiled
result stays on the device until NumPy asks for it. Either copy, once made,
is kept. Arrays are immutable: ``x[0] = 1`` raises (use ``x.at[0].set(1)``).
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, Protocol, Self, TypeAlias, TypeVar, Union, cast

import numpy as np

from .avals import ShapedArray
from .dtypes import EXTENDED, KEY_NAME, DType, key_words, keys_of_words
from .errors import ArgumentValueError, DeletedArrayError, DeviceError, DLPackError, PrimitiveTypeError
from .ir import NDArray
from .sharding import Shard, Sharding, SingleDeviceSharding

if TYPE_CHECKING:
    from .._numpy.array_indexing import IndexUpdateHelper
    from typing_extensions import CapsuleType  # (types.CapsuleType is Python 3.13's)

    from ..lowering.jaxlib_api import Device

#: What ``np.asarray(x)`` gives for an ``Array``: a NumPy array whose dtype is
#: known only at run time (the parameter is ``Any`` as in NumPy's own stubs,
#: so NumPy's functions accept it).
HostArray: TypeAlias = "np.ndarray[tuple[int, ...], np.dtype[Any]]"

#: What typedax functions accept as an array operand.
ArrayLike: TypeAlias = Union["Array", NDArray, np.generic, bool, int, float, complex]

_T = TypeVar("_T")

_OPERAND_TYPES = (np.ndarray, np.generic, bool, int, float, complex)

#: The array API standard's version ``typedax.numpy`` implements (its
#: ``__array_api_version__``, as ``jax.numpy``'s).
ARRAY_API_VERSION: Final = "2024.12"


class _NumpyOps(Protocol):
    """The ``typedax.numpy`` functions that the operators call."""

    def negative(self, x: ArrayLike, /) -> Array: ...
    def add(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def subtract(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def multiply(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def divide(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def floor_divide(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def remainder(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def power(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def matmul(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def abs(self, x: ArrayLike, /) -> Array: ...
    def invert(self, x: ArrayLike, /) -> Array: ...
    def bitwise_and(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def bitwise_or(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def bitwise_xor(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def left_shift(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def right_shift(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def greater(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def less(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def greater_equal(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def less_equal(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def equal(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def not_equal(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def transpose(self, x: ArrayLike, axes: Sequence[int] | None = None, /) -> Array: ...
    def reshape(self, x: ArrayLike, shape: Sequence[int] | int, order: str = ..., /) -> Array: ...
    def ravel(self, x: ArrayLike, /) -> Array: ...
    def sum(self, x: ArrayLike, axis: int | Sequence[int] | None = None,
            dtype: DType | type | None = None, keepdims: bool = False) -> Array: ...
    def mean(self, x: ArrayLike, axis: int | Sequence[int] | None = None,
             dtype: DType | type | None = None, keepdims: bool = False) -> Array: ...
    def max(self, x: ArrayLike, axis: int | Sequence[int] | None = None,
            keepdims: bool = False) -> Array: ...
    def min(self, x: ArrayLike, axis: int | Sequence[int] | None = None,
            keepdims: bool = False) -> Array: ...
    def astype(self, x: ArrayLike, dtype: DType | type, /, *, copy: bool = False,
               device: Device | None = None) -> Array: ...
    def matrix_transpose(self, x: ArrayLike, /) -> Array: ...

    def real(self, val: ArrayLike, /) -> Array: ...

    def imag(self, val: ArrayLike, /) -> Array: ...

    def conjugate(self, x: ArrayLike, /) -> Array: ...
    # the methods of issue 12 (typedax/_numpy/): x.std(), x.clip(), x.cumsum(), ...
    def all(self, a: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False, /) -> Array: ...
    def any(self, a: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False, /) -> Array: ...
    def argmax(self, a: ArrayLike, axis: int | None = None, keepdims: bool = False, /) -> Array: ...
    def argmin(self, a: ArrayLike, axis: int | None = None, keepdims: bool = False, /) -> Array: ...
    def argsort(self, a: ArrayLike, axis: int | None = -1, /, *, stable: bool = True,
                descending: bool = False) -> Array: ...
    def sort(self, a: ArrayLike, axis: int | None = -1, /, *, stable: bool = True,
             descending: bool = False) -> Array: ...
    def clip(self, arr: ArrayLike, min: ArrayLike | None = None, max: ArrayLike | None = None, /) -> Array: ...
    def cumsum(self, a: ArrayLike, axis: int | None = None, dtype: DType | type | None = None, /) -> Array: ...
    def cumprod(self, a: ArrayLike, axis: int | None = None, dtype: DType | type | None = None, /) -> Array: ...
    def prod(self, a: ArrayLike, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
             keepdims: bool = False, /) -> Array: ...
    def round(self, a: ArrayLike, decimals: int = 0, /) -> Array: ...
    def divmod(self, x1: ArrayLike, x2: ArrayLike, /) -> tuple[Array, Array]: ...
    def squeeze(self, a: ArrayLike, axis: int | Sequence[int] | None = None, /) -> Array: ...
    def swapaxes(self, a: ArrayLike, axis1: int, axis2: int, /) -> Array: ...
    def dot(self, x: ArrayLike, y: ArrayLike, /) -> Array: ...
    def diagonal(self, a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1, /) -> Array: ...
    def trace(self, a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1,
              dtype: DType | type | None = None, /) -> Array: ...
    def ptp(self, a: ArrayLike, axis: int | Sequence[int] | None = None, out: None = None,
            keepdims: bool = False, /) -> Array: ...
    def std(self, a: ArrayLike, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
            out: None = None, ddof: int = 0, keepdims: bool = False, /, *,
            where: ArrayLike | None = None) -> Array: ...
    def var(self, a: ArrayLike, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
            out: None = None, ddof: int = 0, keepdims: bool = False, /, *,
            where: ArrayLike | None = None) -> Array: ...
    def repeat(self, a: ArrayLike, repeats: ArrayLike, axis: int | None = None, /, *,
               total_repeat_length: int | None = None) -> Array: ...
    def take(self, a: ArrayLike, indices: ArrayLike, axis: int | None = None, out: None = None,
             mode: str | None = None, unique_indices: bool = False, indices_are_sorted: bool = False,
             fill_value: ArrayLike | None = None, /) -> Array: ...
    def nonzero(self, a: ArrayLike, /, *, size: int | None = None,
                fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> tuple[Array, ...]: ...


# -- installed from above --------------------------------------------------
# The core is the lowest layer, but an array's operators and methods are
# jax.numpy's, its indexing is the numpy layer's, ``==`` of typed keys is the
# key primitives' and its device is the runtime's. Each of those layers
# installs its part here when it is imported (as JAX's numpy layer installs
# the array methods), and ``import typedax`` imports them all; so the core
# never imports upward, and the methods below keep their exact types.

#: The numpy layer's functions the operators and methods call
#: (``_numpy/array_methods.py``), read with one global load per operator.
_TNP: _NumpyOps | None = None
#: ``x.__array_namespace__()``: the ``typedax.numpy`` face.
_NAMESPACE: list[ModuleType] = []
#: ``x[idx]`` and ``x.at`` (``_numpy/array_indexing.py``).
_GETITEM: list[Callable[[Array, object], Array]] = []
_INDEX_UPDATE: list[Callable[[Array], IndexUpdateHelper]] = []
#: ``==`` / ``!=`` of typed PRNG keys (``primitives/keys.py``).
_KEYS_EQUAL: list[Callable[[Array, ArrayLike, bool], Array]] = []


class Runtime(Protocol):
    """What the runtime (``lowering/runtime.py``) installs for concrete arrays."""

    def devices(self) -> Sequence[Device]: ...
    def default_device(self) -> Device: ...
    def device_to_numpy(self, value: object) -> NDArray: ...


_RUNTIME: list[Runtime] = []


def install_numpy(ops: _NumpyOps, namespace: ModuleType, getitem: Callable[[Array, object], Array],
                  index_update: Callable[[Array], IndexUpdateHelper]) -> None:
    """The numpy layer's operators, methods, namespace and indexing
    (``_numpy/array_methods.py``, when ``typedax.numpy`` is imported)."""
    global _TNP
    _TNP = ops
    _NAMESPACE[:] = [namespace]
    _GETITEM[:] = [getitem]
    _INDEX_UPDATE[:] = [index_update]


def install_keys_equal(keys_equal: Callable[[Array, ArrayLike, bool], Array]) -> None:
    """``==`` / ``!=`` of typed keys (``primitives/keys.py``, on import)."""
    _KEYS_EQUAL[:] = [keys_equal]


def install_runtime(runtime: Runtime) -> None:
    """The devices of concrete arrays (``lowering/runtime.py``, on import)."""
    _RUNTIME[:] = [runtime]


def _installed(slot: list[_T], what: str) -> _T:
    if not slot:
        raise RuntimeError(f"{what} is installed by a layer above the core that is not imported (import typedax)")
    return slot[0]


def _load_numpy() -> _NumpyOps:
    if _TNP is None:
        raise RuntimeError("the array operators are jax.numpy's: typedax.numpy is not imported (import typedax)")
    return _TNP


def _keys_equal(x: Array, other: object, equal: bool) -> Array:
    """``==`` / ``!=`` of typed PRNG keys (``primitives/keys.py``)."""
    return _installed(_KEYS_EQUAL, "== of typed keys")(x, _operand("==" if equal else "!=", other), equal)


def _operand(op: str, other: object) -> ArrayLike:
    """``other`` as an operand of ``x <op> other``: arrays and scalars only.
    A list or tuple is refused (JAX does too): NumPy would read it as an
    array, Python as a container, and ``x == [0, 1]`` would be ``False``."""
    if isinstance(other, _OPERANDS):
        return other
    raise TypeError(
        f"unsupported operand type for {op} between a typedax Array and "
        f"{type(other).__name__}: convert it with typedax.numpy.asarray first"
        if isinstance(other, (list, tuple))
        else f"unsupported operand type for {op}: Array and {type(other).__name__}"
    )


def _no_out(op: str, out: object) -> None:
    if out is not None:
        raise NotImplementedError(
            f"The 'out' argument to Array.{op} is not supported: typedax arrays are immutable"
        )


class Array:
    """A typedax array: a concrete ``ArrayImpl`` or a tracer. Subclasses
    give ``aval``; everything else is derived from it."""

    __slots__ = ()
    __array_priority__ = 1000

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> DType:
        return self.aval.dtype

    @property
    def weak_type(self) -> bool:
        """Whether the value is weakly typed (``ShapedArray.weak_type``)."""
        return self.aval.weak_type

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        return self.aval.size

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of a 0-d array")
        return self.aval.shape[0]

    # Conversions: a concrete array converts; a tracer only where its value is
    # known and the conversion loses nothing it tracks (core/trace.py).
    def __array__(self, dtype: object = None, copy: object = None) -> HostArray:
        raise NotImplementedError

    def __bool__(self) -> bool:
        raise NotImplementedError

    def __int__(self) -> int:
        raise NotImplementedError

    def __float__(self) -> float:
        raise NotImplementedError

    def __complex__(self) -> complex:
        raise NotImplementedError

    def __index__(self) -> int:
        raise NotImplementedError

    def __getitem__(self, index: object) -> Array:
        """NumPy indexing with JAX's semantics (``typedax/_indexing.py``)."""
        return _installed(_GETITEM, "x[idx]")(self, index)

    @property
    def at(self) -> IndexUpdateHelper:
        """Indexed updates: ``x.at[idx].set(y)``, ``.add``, ``.multiply``,
        ``.divide``, ``.power``, ``.min``, ``.max``, ``.apply``, ``.get`` (each
        a new array: ``x`` never changes)."""
        return _installed(_INDEX_UPDATE, "x.at")(self)

    def __iter__(self) -> Iterator[Array]:
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))

    def __setitem__(self, index: object, value: object) -> None:
        raise TypeError(
            "typedax arrays are immutable: instead of x[idx] = y, use "
            "x = x.at[idx].set(y) (a new array)"
        )

    # -- operators (typedax.numpy semantics: promotion and broadcasting) ----
    def __neg__(self) -> Array:
        return (_TNP or _load_numpy()).negative(self)

    def __pos__(self) -> Self:
        return self

    def __abs__(self) -> Array:
        return (_TNP or _load_numpy()).abs(self)

    def __invert__(self) -> Array:
        return (_TNP or _load_numpy()).invert(self)

    def __add__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).add(self, _operand("+", other))

    def __radd__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).add(_operand("+", other), self)

    def __sub__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).subtract(self, _operand("-", other))

    def __rsub__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).subtract(_operand("-", other), self)

    def __mul__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).multiply(self, _operand("*", other))

    def __rmul__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).multiply(_operand("*", other), self)

    def __truediv__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).divide(self, _operand("/", other))

    def __rtruediv__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).divide(_operand("/", other), self)

    def __floordiv__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).floor_divide(self, _operand("//", other))

    def __rfloordiv__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).floor_divide(_operand("//", other), self)

    def __mod__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).remainder(self, _operand("%", other))

    def __rmod__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).remainder(_operand("%", other), self)

    def __divmod__(self, other: ArrayLike) -> tuple[Array, Array]:
        return (_TNP or _load_numpy()).divmod(self, _operand("divmod()", other))

    def __rdivmod__(self, other: ArrayLike) -> tuple[Array, Array]:
        return (_TNP or _load_numpy()).divmod(_operand("divmod()", other), self)

    def __round__(self, ndigits: int | None = None) -> Array:
        # as jax.Array: round(x) is an integer array (Python's round(7.5) is
        # an int), round(x, n) keeps x's dtype
        out = (_TNP or _load_numpy()).round(self, ndigits or 0)
        return out.astype(int) if ndigits is None else out

    def __pow__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).power(self, _operand("**", other))

    def __rpow__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).power(_operand("**", other), self)

    def __matmul__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).matmul(self, _operand("@", other))

    def __rmatmul__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).matmul(_operand("@", other), self)

    def __and__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).bitwise_and(self, _operand("&", other))

    def __rand__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).bitwise_and(_operand("&", other), self)

    def __or__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).bitwise_or(self, _operand("|", other))

    def __ror__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).bitwise_or(_operand("|", other), self)

    def __xor__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).bitwise_xor(self, _operand("^", other))

    def __rxor__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).bitwise_xor(_operand("^", other), self)

    def __lshift__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).left_shift(self, _operand("<<", other))

    def __rlshift__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).left_shift(_operand("<<", other), self)

    def __rshift__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).right_shift(self, _operand(">>", other))

    def __rrshift__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).right_shift(_operand(">>", other), self)

    def __gt__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).greater(self, _operand(">", other))

    def __lt__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).less(self, _operand("<", other))

    def __ge__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).greater_equal(self, _operand(">=", other))

    def __le__(self, other: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).less_equal(self, _operand("<=", other))

    def __eq__(self, other: object) -> Array:  # type: ignore[override]  # elementwise, as in NumPy and JAX
        if other is None:
            raise TypeError("== between a typedax Array and None; use `x is None`")
        if self.aval.dtype in EXTENDED:
            return _keys_equal(self, other, True)
        return (_TNP or _load_numpy()).equal(self, _operand("==", other))

    def __ne__(self, other: object) -> Array:  # type: ignore[override]  # elementwise, as in NumPy and JAX
        if other is None:
            raise TypeError("!= between a typedax Array and None; use `x is not None`")
        if self.aval.dtype in EXTENDED:
            return _keys_equal(self, other, False)
        return (_TNP or _load_numpy()).not_equal(self, _operand("!=", other))

    __hash__ = None  # type: ignore[assignment]  # arrays are unhashable (== is elementwise)

    # -- methods -----------------------------------------------------------
    @property
    def T(self) -> Array:
        return (_TNP or _load_numpy()).transpose(self)

    @property
    def mT(self) -> Array:  # noqa: N802 - the array API's name
        """The last two axes swapped (the array API's matrix transpose)."""
        return (_TNP or _load_numpy()).matrix_transpose(self)

    @property
    def real(self) -> Array:
        """The real part (``jnp.real``): a real array itself."""
        return (_TNP or _load_numpy()).real(self)

    @property
    def imag(self) -> Array:
        """The imaginary part (``jnp.imag``): zeros for a real array."""
        return (_TNP or _load_numpy()).imag(self)

    def conj(self) -> Array:
        """The complex conjugate (``jnp.conjugate``)."""
        return (_TNP or _load_numpy()).conjugate(self)

    def conjugate(self) -> Array:
        """The complex conjugate (``jnp.conjugate``)."""
        return (_TNP or _load_numpy()).conjugate(self)

    # -- the array API standard (issue 31) ---------------------------------
    def __array_namespace__(self, /, *, api_version: str | None = None) -> ModuleType:
        """``typedax.numpy``, the array API namespace of typedax arrays (the
        2024.12 version, as ``jax.numpy``'s)."""
        if api_version is not None and api_version != ARRAY_API_VERSION:
            raise ArgumentValueError(
                f"__array_namespace__: api_version={api_version!r} is not available; typedax.numpy "
                f"implements {ARRAY_API_VERSION!r}"
            )
        return _installed(_NAMESPACE, "__array_namespace__")

    def to_device(self, device: Device, /, *, stream: int | None = None) -> Self:
        """``jax.Array.to_device``: typedax computes on one device, so the
        array itself (or a ``DeviceError`` for another device)."""
        devices = _installed(_RUNTIME, "the runtime").devices
        if stream is not None:
            raise DeviceError(f"to_device: stream={stream!r} is not supported (typedax has no streams)")
        if device not in devices():
            raise DeviceError(f"to_device: {device!r} is not a typedax device; typedax computes on {devices()}")
        return self

    def __dlpack__(self, /, *, stream: object = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> CapsuleType:
        """The array's value on the host, exported through NumPy's DLPack
        (so ``np.from_dlpack(x)`` and ``tnp.from_dlpack`` read it). A
        consumer of the pre-1.0 protocol gets a writable copy: DLPack
        before 1.0 cannot mark the read-only host value as such."""
        if stream is not None:
            raise DLPackError(f"__dlpack__: stream={stream!r} is not supported (the export is host memory)")
        host = np.asarray(self)  # (a tracer refuses, as in __array__)
        if max_version is None or max_version < (1, 0):
            return np.array(host).__dlpack__()
        return host.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(kDLCPU, 0)``: ``__dlpack__`` exports the host value."""
        return (1, 0)

    def reshape(self, *shape: int | Sequence[int], order: str = "C", copy: bool | None = None) -> Array:
        """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``; ``order`` as
        ``typedax.numpy.reshape`` (``'C'`` or ``'F'``)."""
        tnp = _TNP or _load_numpy()
        if len(shape) == 1 and not isinstance(shape[0], int):
            return tnp.reshape(self, shape[0], order)
        return tnp.reshape(self, list(shape), order)  # type: ignore[arg-type]  # ints, checked there

    def ravel(self) -> Array:
        return (_TNP or _load_numpy()).ravel(self)

    def flatten(self) -> Array:
        return (_TNP or _load_numpy()).ravel(self)

    def transpose(self, *axes: int | Sequence[int]) -> Array:
        tnp = _TNP or _load_numpy()
        if len(axes) == 1 and not isinstance(axes[0], int):
            return tnp.transpose(self, axes[0])  # x.transpose((1, 0)), as NumPy
        return tnp.transpose(self, [operator.index(a) for a in axes] if axes else None)  # type: ignore[arg-type]  # ints here

    # (``out`` as jax.Array's, for NumPy's functions, which pass ``out=None``:
    # ``np.mean(x)`` calls ``x.mean(axis=None, dtype=None, out=None)``)
    def sum(
        self, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
        out: None = None, keepdims: bool = False,
    ) -> Array:
        _no_out("sum", out)
        return (_TNP or _load_numpy()).sum(self, axis, dtype=dtype, keepdims=keepdims)

    def mean(
        self, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
        out: None = None, keepdims: bool = False,
    ) -> Array:
        _no_out("mean", out)
        return (_TNP or _load_numpy()).mean(self, axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis: int | Sequence[int] | None = None, out: None = None, keepdims: bool = False) -> Array:
        _no_out("max", out)
        return (_TNP or _load_numpy()).max(self, axis, keepdims=keepdims)

    def min(self, axis: int | Sequence[int] | None = None, out: None = None, keepdims: bool = False) -> Array:
        _no_out("min", out)
        return (_TNP or _load_numpy()).min(self, axis, keepdims=keepdims)

    def astype(self, dtype: DType | type, copy: bool = False, device: Device | None = None) -> Array:
        return (_TNP or _load_numpy()).astype(self, dtype, copy=copy, device=device)

    # -- methods that call typedax.numpy's functions of issue 12 (as jax.Array's) --
    def all(self, axis: int | Sequence[int] | None = None, out: None = None, keepdims: bool = False) -> Array:
        _no_out("all", out)
        return (_TNP or _load_numpy()).all(self, axis, keepdims)

    def any(self, axis: int | Sequence[int] | None = None, out: None = None, keepdims: bool = False) -> Array:
        _no_out("any", out)
        return (_TNP or _load_numpy()).any(self, axis, keepdims)

    def argmax(self, axis: int | None = None, out: None = None, keepdims: bool = False) -> Array:
        _no_out("argmax", out)
        return (_TNP or _load_numpy()).argmax(self, axis, keepdims)

    def argmin(self, axis: int | None = None, out: None = None, keepdims: bool = False) -> Array:
        _no_out("argmin", out)
        return (_TNP or _load_numpy()).argmin(self, axis, keepdims)

    def argsort(self, axis: int | None = -1, *, stable: bool = True, descending: bool = False) -> Array:
        return (_TNP or _load_numpy()).argsort(self, axis, stable=stable, descending=descending)

    def sort(self, axis: int | None = -1, *, stable: bool = True, descending: bool = False) -> Array:
        return (_TNP or _load_numpy()).sort(self, axis, stable=stable, descending=descending)

    def clip(  # noqa: A002 - JAX's names
        self, min: ArrayLike | None = None, max: ArrayLike | None = None, out: None = None,
    ) -> Array:
        _no_out("clip", out)
        return (_TNP or _load_numpy()).clip(self, min, max)

    def cumsum(self, axis: int | None = None, dtype: DType | type | None = None, out: None = None) -> Array:
        _no_out("cumsum", out)
        return (_TNP or _load_numpy()).cumsum(self, axis, dtype)

    def cumprod(self, axis: int | None = None, dtype: DType | type | None = None, out: None = None) -> Array:
        _no_out("cumprod", out)
        return (_TNP or _load_numpy()).cumprod(self, axis, dtype)

    def prod(self, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
             out: None = None, keepdims: bool = False) -> Array:
        _no_out("prod", out)
        return (_TNP or _load_numpy()).prod(self, axis, dtype, keepdims)

    def round(self, decimals: int = 0, out: None = None) -> Array:
        _no_out("round", out)
        return (_TNP or _load_numpy()).round(self, decimals)

    def squeeze(self, axis: int | Sequence[int] | None = None) -> Array:
        return (_TNP or _load_numpy()).squeeze(self, axis)

    def swapaxes(self, axis1: int, axis2: int) -> Array:
        return (_TNP or _load_numpy()).swapaxes(self, axis1, axis2)

    def dot(self, b: ArrayLike) -> Array:
        return (_TNP or _load_numpy()).dot(self, b)

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
        return (_TNP or _load_numpy()).diagonal(self, offset, axis1, axis2)

    def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: DType | type | None = None) -> Array:
        return (_TNP or _load_numpy()).trace(self, offset, axis1, axis2, dtype)

    def ptp(self, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Array:
        return (_TNP or _load_numpy()).ptp(self, axis, None, keepdims)

    def std(self, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
            out: None = None, ddof: int = 0, keepdims: bool = False, *, where: ArrayLike | None = None) -> Array:
        _no_out("std", out)
        return (_TNP or _load_numpy()).std(self, axis, dtype, None, ddof, keepdims, where=where)

    def var(self, axis: int | Sequence[int] | None = None, dtype: DType | type | None = None,
            out: None = None, ddof: int = 0, keepdims: bool = False, *, where: ArrayLike | None = None) -> Array:
        _no_out("var", out)
        return (_TNP or _load_numpy()).var(self, axis, dtype, None, ddof, keepdims, where=where)

    def repeat(self, repeats: ArrayLike, axis: int | None = None, *, total_repeat_length: int | None = None) -> Array:
        return (_TNP or _load_numpy()).repeat(self, repeats, axis, total_repeat_length=total_repeat_length)

    def take(self, indices: ArrayLike, axis: int | None = None, mode: str | None = None,
             fill_value: ArrayLike | None = None) -> Array:
        return (_TNP or _load_numpy()).take(self, indices, axis, None, mode, False, False, fill_value)

    def nonzero(self, *, size: int | None = None,
                fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None) -> tuple[Array, ...]:
        return (_TNP or _load_numpy()).nonzero(self, size=size, fill_value=fill_value)

    def block_until_ready(self) -> Self:
        """Wait until the computation producing this array has finished."""
        return self

    def devices(self) -> set[Device]:
        """``jax.Array.devices()``: the devices holding this array. A traced
        value has none (a ``ConcretizationError``, as JAX's)."""
        from .errors import ConcretizationError

        raise ConcretizationError(
            f"devices() of a traced value ({self.aval.str_short()}): it lives on no device while being traced"
        )

    @property
    def sharding(self) -> Sharding:
        """``jax.Array.sharding``: how the array is laid out over devices. A
        traced value has none here (a ``ConcretizationError``)."""
        self.devices()  # raises for a tracer
        raise NotImplementedError

    @property
    def is_fully_replicated(self) -> bool:
        """Whether every device holding the array holds all of it."""
        return self.sharding.is_fully_replicated

    @property
    def is_fully_addressable(self) -> bool:
        """``jax.Array.is_fully_addressable``: whether this process holds
        every piece (always, unless distributed: ``typedax.distributed``)."""
        own = _installed(_RUNTIME, "the runtime").default_device().process_index
        return all(d.process_index == own for d in self.devices())

    @property
    def addressable_shards(self) -> list[Shard]:
        """``jax.Array.addressable_shards``: each device's piece (``.data``,
        ``.index``, ``.device``, ``.replica_id``)."""
        self.devices()  # raises for a tracer
        raise NotImplementedError

    @property
    def device(self) -> Device | None:
        """``jax.Array.device``: the one device holding this array. A traced
        value is on no device yet: ``None``, the array API's "default
        device", which every ``device=`` accepts (JAX's tracers have no
        ``.device`` at all; with ``None`` array API code that reads
        ``x.device`` -- array-api-compat's ``device(x)`` -- runs under ``jit``)."""
        if not isinstance(self, ArrayImpl):
            return None
        (d,) = self.devices()
        return d

    def is_deleted(self) -> bool:
        """Whether ``delete()`` (or a donating ``jit``) freed this array."""
        return False

    def delete(self) -> None:
        """Free the array's memory; using it afterwards raises ``DeletedArrayError``."""
        raise TypeError(f"a traced array ({self.aval.str_short()}) cannot be deleted")

    def tolist(self) -> object:
        """The value as nested Python lists (a scalar for a 0-d array)."""
        _not_keys(self.aval, "tolist()")
        return np.asarray(self).tolist()

    def item(self, *args: int) -> bool | int | float:
        """The value of a one-element array as a Python scalar; with
        arguments, of the element they name (a flat index, or one index per
        axis), as JAX's (NumPy's ``item``: ``IndexError`` out of bounds)."""
        if not args and self.aval.size != 1:
            raise ValueError(f"item() needs a one-element array, got {self.aval.str_short()}")
        _not_keys(self.aval, "item()")
        value: bool | int | float = np.asarray(self).item(*args)
        return value


def _not_keys(aval: ShapedArray, what: str) -> None:
    if aval.dtype in EXTENDED:
        raise TypeError(
            f"{what} of a typed PRNG key array (key<fry>): use typedax.random.key_data(keys) for their words"
        )


# -- aval keys ---------------------------------------------------------------
_AVAL_KEYS: dict[ShapedArray, int] = {}
_WEAK_AVAL_KEYS: dict[ShapedArray, int] = {}  # avals compare without the weak flag
_AVAL_KEYS_LOCK = threading.Lock()


def aval_key(aval: ShapedArray) -> int:
    """A small int standing for ``aval`` (cheap to hash in dispatch keys),
    distinct for distinct avals. ``jit``'s fast path dispatches on these keys,
    so two types sharing one would run one's executable on the other's data.
    A new key is made under a lock (``len`` then insert is not atomic across
    threads); looking up a known one takes no lock."""
    table = _WEAK_AVAL_KEYS if aval.weak_type else _AVAL_KEYS
    k = table.get(aval)
    if k is None:
        with _AVAL_KEYS_LOCK:
            k = table.get(aval)
            if k is None:
                k = table[aval] = len(_AVAL_KEYS) + len(_WEAK_AVAL_KEYS)
    return k


_HOST_AVALS: dict[tuple[tuple[int, ...], DType], tuple[ShapedArray, int]] = {}


def host_aval(x: NDArray) -> tuple[ShapedArray, int]:
    """The type of a NumPy array and its key (cached: a dict lookup)."""
    entry = _HOST_AVALS.get((x.shape, x.dtype))
    if entry is None:
        aval = ShapedArray(tuple(x.shape), x.dtype)
        entry = (aval, aval_key(aval))
        if len(_HOST_AVALS) >= 4096:
            _HOST_AVALS.clear()
        _HOST_AVALS[(x.shape, x.dtype)] = entry
    return entry


def deleted_error(aval: ShapedArray) -> DeletedArrayError:
    """The error for using a deleted (or donated) array, worded as JAX's."""
    return DeletedArrayError(
        f"Array has been deleted with shape={aval.str_short()} (deleted by delete(), "
        "or donated to a jitted function through donate_argnums/donate_argnames)"
    )


class DeviceBuffer(Protocol):
    """What ``ArrayImpl`` needs of a device buffer (a jaxlib array)."""

    def block_until_ready(self) -> object: ...
    def delete(self) -> None: ...
    def __array__(self) -> NDArray: ...


_OPERANDS = (Array, *_OPERAND_TYPES)


class ArrayImpl(Array):
    """A concrete array: its value on the host, on the device, or both."""

    __slots__ = ("aval", "_host", "_dev", "_tdx_key")
    aval: ShapedArray  # a slot here, a property in Array
    _host: NDArray | None
    _dev: DeviceBuffer | None
    _tdx_key: int

    def __init__(
        self, aval: ShapedArray, host: NDArray | None = None, dev: DeviceBuffer | None = None,
        key: int | None = None,
    ) -> None:
        if host is None and dev is None:
            raise ValueError("an ArrayImpl needs a host or a device value")
        self.aval = aval
        self._host = host
        self._dev = dev
        self._tdx_key = aval_key(aval) if key is None else key

    # -- the value -----------------------------------------------------------
    def to_numpy(self) -> NDArray:
        """The value as a read-only NumPy array (fetched from the device once)."""
        host = self._host
        if host is None:
            if self._dev is None:
                raise deleted_error(self.aval)
            host = np.asarray(self._dev)
            if self.aval.dtype in EXTENDED:  # typed keys: the device holds their words
                host = keys_of_words(host)
            elif host.dtype != self.aval.dtype:  # no buffer-protocol format (bfloat16)
                host = _installed(_RUNTIME, "the runtime").device_to_numpy(self._dev)
            self._host = host  # a cache: both copies hold the same value
        if host.flags.writeable:
            host = host.view()
            host.flags.writeable = False
        return host

    def __array__(self, dtype: object = None, copy: object = None) -> HostArray:
        # Typed keys convert to their NumPy value, one structured element
        # (two uint32 words, field "fry") per key, where JAX's refuse: every
        # evaluation rule reads operands through NumPy.
        value = self.to_numpy()
        if dtype is not None and np.dtype(dtype) != value.dtype:  # type: ignore[call-overload]  # NumPy passes a dtype-like
            return value.astype(np.dtype(dtype))  # type: ignore[call-overload]  # as above
        if copy:
            return value.copy()
        return value

    def devices(self) -> set[Device]:
        """The default device (every unsharded array lives there, or is
        copied there on first use)."""
        return {_installed(_RUNTIME, "the runtime").default_device()}

    @property
    def sharding(self) -> Sharding:
        """On the default device (``SingleDeviceSharding``)."""
        return SingleDeviceSharding(_installed(_RUNTIME, "the runtime").default_device())

    @property
    def addressable_shards(self) -> list[Shard]:
        return [Shard(next(iter(self.devices())), tuple(slice(None) for _ in self.aval.shape), 0, self)]

    def block_until_ready(self) -> Self:
        if self._dev is not None:
            self._dev.block_until_ready()
        elif self._host is None:
            raise deleted_error(self.aval)
        return self

    def is_deleted(self) -> bool:
        return self._host is None and self._dev is None

    def delete(self) -> None:
        """Free the value (its device buffer at once); the array keeps its
        type, and any use of its value raises ``DeletedArrayError``."""
        dev = self._dev
        self._host = self._dev = None
        if dev is not None:
            dev.delete()

    # Immutable: a copy is the array itself. Pickling moves the value through
    # NumPy, and the weak flag with it (JAX's pickles keep it: a weak float64
    # scalar that came back strong would turn float32 arithmetic into float64).
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self

    def __reduce__(self) -> tuple[Callable[[NDArray, bool], ArrayImpl], tuple[NDArray, bool]]:
        return from_numpy, (np.array(self.to_numpy()), self.aval.weak_type)

    def __repr__(self) -> str:
        if self.aval.dtype in EXTENDED:  # as JAX's: the key array's type, then its words
            words = np.array2string(key_words(self.to_numpy()))
            return f"Array({self.aval.shape}, dtype={KEY_NAME}) overlaying:\n{words}"
        body = np.array2string(self.to_numpy(), separator=", ", prefix="Array(")
        weak = ", weak_type=True" if self.aval.weak_type else ""  # as JAX
        if self.aval.size == 0 and self.aval.shape != (0,):
            return f"Array({body}, shape={self.aval.shape}, dtype={self.dtype.name}{weak})"  # as JAX
        return f"Array({body}, dtype={self.dtype.name}{weak})"

    def __str__(self) -> str:
        if self.aval.dtype in EXTENDED:
            return repr(self)
        return str(self.to_numpy())

    def __format__(self, spec: str) -> str:
        if not self.aval.shape and self.aval.dtype not in EXTENDED:
            return format(self.to_numpy().item(), spec)
        return format(str(self), spec)

    def _scalar(self, what: str) -> NDArray:
        """The value, for a conversion to a Python scalar (which keys refuse, as JAX's)."""
        if self.aval.dtype in EXTENDED:
            raise TypeError(f"a typed PRNG key array (key<fry>) cannot be converted to {what}")
        return self.to_numpy()

    def __bool__(self) -> bool:
        return bool(self._scalar("a bool"))

    def __int__(self) -> int:
        return int(self._scalar("an int"))

    def __float__(self) -> float:
        return float(self._scalar("a float"))

    def __complex__(self) -> complex:
        return complex(self._scalar("a complex"))

    def __index__(self) -> int:
        if self.aval.shape or self.dtype.kind not in "biu":
            raise TypeError(
                f"only integer scalar arrays can be used as an index, not {self.aval.str_short()}"
            )
        return operator.index(self.to_numpy().item())


def from_numpy(value: NDArray, weak: bool = False) -> ArrayImpl:
    """A host ``ArrayImpl`` holding ``value`` (not copied: the caller owns it
    and must not change it), weakly typed with ``weak``."""
    if value.dtype.kind == "O":
        raise PrimitiveTypeError("object arrays are not typedax arrays")
    aval, key = host_aval(value)
    if weak and value.dtype != np.bool_:
        aval = aval.weakened()
        key = aval_key(aval)
    return ArrayImpl(aval, value, None, key)

