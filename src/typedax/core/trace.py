"""Interpreters, tracers and ``bind``.

The stack of active interpreters is a chain of ``Trace`` values linked by
``parent``; the innermost one (the *current* trace) lives in a
``ContextVar``. A trace driver (``make_jaxpr``, ``jvp``, ...) makes a new trace
whose parent is the current one and runs the function under it with
``using_trace``; nothing pushes onto or pops from a shared list, so tracing in
several threads (or asyncio tasks) at once is correct by construction.

``bind`` hands a primitive application to the current trace. A trace treats
its own tracers as its values and every other operand -- arrays, scalars,
tracers of enclosing (ancestor) traces -- as a constant. A tracer whose trace
has finished, or that belongs to no enclosing trace, has escaped: using it
raises ``EscapedTracerError``.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol, cast, TYPE_CHECKING, Self, TypeAlias, Union

import numpy as np

from .avals import ShapedArray
from .dtypes import DType
from .errors import ConcretizationError, EscapedTracerError
from .ir import NDArray, Params, Primitive
from .rules import RuleTable

if TYPE_CHECKING:
    from ..lowering.array import Array

Scalar: TypeAlias = bool | int | float
ArrayLike: TypeAlias = Union["Array", NDArray, np.generic, bool, int, float]
Value: TypeAlias = Union["Tracer", "Array", NDArray, np.generic, bool, int, float]

# Evaluation rules that take values as they are (device ``Array``s stay on the
# device) -- for higher-order primitives such as ``jit``. Other primitives
# evaluate their ``impl`` on NumPy arrays.
ValueImpl: TypeAlias = "Callable[[Sequence[Value], Params], list[Value]]"
value_impls: RuleTable[ValueImpl] = RuleTable("evaluation on device values")


class Trace(abc.ABC):
    """One interpreter in the stack. ``parent`` is the interpreter below it."""

    __slots__ = ("parent", "level", "alive", "__weakref__")

    def __init__(self, parent: Trace | None) -> None:
        self.parent = parent
        self.level: int = 0 if parent is None else parent.level + 1
        self.alive = True

    @abc.abstractmethod
    def process_primitive(
        self, prim: Primitive, args: Sequence[Value], params: Params
    ) -> list[Value]:
        """Apply ``prim`` to ``args`` in this interpretation."""

    def encloses(self, other: Trace) -> bool:
        """Whether ``other`` is this trace or one of its ancestors."""
        t: Trace | None = self
        while t is not None:
            if t is other:
                return True
            t = t.parent
        return False

    def check_foreign(self, tracer: Tracer) -> None:
        """A tracer of another trace may be used as a constant only if that
        trace encloses this one and is still running."""
        owner = tracer._trace
        if not owner.alive or not self.encloses(owner):
            raise EscapedTracerError(
                f"a tracer of type {tracer.aval.str_short()} from {owner.describe()} "
                f"was used {'after that transformation finished' if not owner.alive else 'outside it'}. "
                "Tracers must not be stored in globals or returned through side "
                "channels; return values from the transformed function instead."
            )

    def describe(self) -> str:
        return type(self).__name__


class EvalTrace(Trace):
    """The bottom interpreter: evaluates primitives on NumPy arrays."""

    __slots__ = ()

    def process_primitive(
        self, prim: Primitive, args: Sequence[Value], params: Params
    ) -> list[Value]:
        value_impl = value_impls.get(prim)
        if value_impl is not None:
            for a in args:
                if isinstance(a, Tracer):
                    self.check_foreign(a)
            return value_impl(args, params)
        vals: list[NDArray] = []
        for a in args:
            if type(a) is np.ndarray:  # the common case, without an ABC isinstance
                vals.append(a)
                continue
            if isinstance(a, Tracer):
                self.check_foreign(a)  # always raises: nothing encloses eval
            vals.append(np.asarray(a))
        # the same type errors as under staging (impl would broadcast or cast silently)
        prim.abstract_eval([_array_aval(v) for v in vals], params)
        out: list[Value] = list(prim.impl(vals, params))
        return out

    def describe(self) -> str:
        return "evaluation"


EVAL_TRACE: EvalTrace = EvalTrace(None)
_CURRENT: ContextVar[Trace] = ContextVar("typedax_current_trace", default=EVAL_TRACE)


def current_trace() -> Trace:
    return _CURRENT.get()


@contextmanager
def using_trace(trace: Trace) -> Iterator[None]:
    """Run the body with ``trace`` as the current interpreter."""
    token = _CURRENT.set(trace)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def bind(prim: Primitive, args: Sequence[Value], params: Params) -> list[Value]:
    """Apply a primitive under the current interpreter."""
    return _CURRENT.get().process_primitive(prim, args, params)


def bind1(prim: Primitive, args: Sequence[Value], params: Params) -> Value:
    return _CURRENT.get().process_primitive(prim, args, params)[0]


# Caches for ``aval_of`` (avals are values, so sharing them is safe).
_PY_SCALAR_AVALS: dict[type, ShapedArray] = {
    bool: ShapedArray((), np.dtype(np.bool_)),
    int: ShapedArray((), np.dtype(np.int64)),
    float: ShapedArray((), np.dtype(np.float64)),
}
_TRACER_TYPES: dict[type, bool] = {}
_ARRAY_AVALS: dict[tuple[tuple[int, ...], DType], ShapedArray] = {}


def _array_aval(x: NDArray) -> ShapedArray:
    key = (x.shape, x.dtype)
    aval = _ARRAY_AVALS.get(key)
    if aval is None:
        aval = ShapedArray(tuple(x.shape), x.dtype)
        if len(_ARRAY_AVALS) >= 4096:
            _ARRAY_AVALS.clear()
        _ARRAY_AVALS[key] = aval
    return aval


def aval_of(x: object) -> ShapedArray:
    """The type of a value: a tracer's aval, or that of an array or scalar."""
    t = type(x)
    if t is np.ndarray:
        return _array_aval(cast(NDArray, x))
    scalar = _PY_SCALAR_AVALS.get(t)
    if scalar is not None:
        return scalar
    is_tracer = _TRACER_TYPES.get(t)
    if is_tracer is None:
        is_tracer = _TRACER_TYPES[t] = issubclass(t, Tracer)
    if is_tracer:
        return cast(Tracer, x).aval
    if isinstance(x, Tracer):
        return x.aval
    if isinstance(x, ShapedArray):
        return x
    arr_dtype: DType
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        arr_dtype = x.dtype
        return ShapedArray(tuple(x.shape), arr_dtype)
    if isinstance(x, bool):
        return ShapedArray((), np.dtype(np.bool_))
    if isinstance(x, int):
        return ShapedArray((), np.dtype(np.int64))
    if isinstance(x, float):
        return ShapedArray((), np.dtype(np.float64))
    device_aval = getattr(x, "aval", None)  # a device ``Array`` (lowering/array.py)
    if isinstance(device_aval, ShapedArray):
        return device_aval
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if isinstance(shape, tuple) and isinstance(dtype, np.dtype):
        return ShapedArray(tuple(int(d) for d in shape), dtype)
    raise TypeError(f"{type(x).__name__} is not a valid typedax array type")


class _NumpyOps(Protocol):
    """The ``typedax.numpy`` functions that tracers' operators call."""

    def negative(self, x: Value, /) -> Value: ...
    def add(self, x: Value, y: Value, /) -> Value: ...
    def subtract(self, x: Value, y: Value, /) -> Value: ...
    def multiply(self, x: Value, y: Value, /) -> Value: ...
    def divide(self, x: Value, y: Value, /) -> Value: ...
    def power(self, x: Value, y: Value, /) -> Value: ...
    def matmul(self, x: Value, y: Value, /) -> Value: ...
    def greater(self, x: Value, y: Value, /) -> Value: ...
    def less(self, x: Value, y: Value, /) -> Value: ...
    def greater_equal(self, x: Value, y: Value, /) -> Value: ...
    def less_equal(self, x: Value, y: Value, /) -> Value: ...
    def equal(self, x: Value, y: Value, /) -> Value: ...
    def not_equal(self, x: Value, y: Value, /) -> Value: ...
    def transpose(self, x: Value, axes: Sequence[int] | None = None, /) -> Value: ...
    def reshape(self, x: Value, shape: Sequence[int] | int, /) -> Value: ...
    def sum(self, x: Value, axis: int | Sequence[int] | None = None, /) -> Value: ...
    def astype(self, x: Value, dtype: DType | type, /) -> Value: ...


# ``typedax.numpy`` imports this module, so the operators find it lazily; once
# found it is kept here (a function-level import costs ~0.3 us per operator).
_TNP: _NumpyOps | None = None


def _load_numpy() -> _NumpyOps:
    global _TNP
    from .. import numpy as tnp

    _TNP = tnp
    return tnp


class Tracer(abc.ABC):
    """A value being traced by some interpreter. Behaves like an array."""

    __slots__ = ("_trace",)
    __array_priority__ = 1000

    def __init__(self, trace: Trace) -> None:
        self._trace = trace

    @property
    @abc.abstractmethod
    def aval(self) -> ShapedArray: ...

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> DType:
        return self.aval.dtype

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

    # -- concreteness ------------------------------------------------------
    def concrete(self, why: str) -> NDArray:
        """This tracer's concrete value, or ``ConcretizationError``."""
        raise ConcretizationError(
            f"{why} of a traced value of type {self.aval.str_short()} under "
            f"{self._trace.describe()}: its value is not known while tracing. "
            "Use lax.cond / lax.while_loop for data-dependent control flow, or "
            "mark the argument static."
        )

    def __bool__(self) -> bool:
        return bool(self.concrete("bool()"))

    def __int__(self) -> int:
        return int(self.concrete("int()"))

    def __float__(self) -> float:
        return float(self.concrete("float()"))

    def __index__(self) -> int:
        return int(self.concrete("using as an index"))

    def __array__(self, dtype: object = None, copy: object = None) -> NDArray:
        return np.asarray(self.concrete("np.asarray()"))

    def __hash__(self) -> int:
        raise TypeError("tracers are unhashable (they are arrays)")

    def __repr__(self) -> str:
        return f"{type(self).__name__}<{self.aval.str_short()}>"

    # -- operators (NumPy semantics: promotion and broadcasting) ----------
    def __neg__(self) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.negative(self)

    def __pos__(self) -> Self:
        return self

    def __add__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.add(self, other)

    def __radd__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.add(other, self)

    def __sub__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.subtract(self, other)

    def __rsub__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.subtract(other, self)

    def __mul__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.multiply(self, other)

    def __rmul__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.multiply(other, self)

    def __truediv__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.divide(self, other)

    def __rtruediv__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.divide(other, self)

    def __pow__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.power(self, other)

    def __rpow__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.power(other, self)

    def __matmul__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.matmul(self, other)

    def __rmatmul__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.matmul(other, self)

    def __gt__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.greater(self, other)

    def __lt__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.less(self, other)

    def __ge__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.greater_equal(self, other)

    def __le__(self, other: Value) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.less_equal(self, other)

    def __eq__(self, other: object) -> Value:  # type: ignore[override]  # elementwise, as in NumPy
        tnp = _TNP or _load_numpy()
        if not isinstance(other, (Tracer, np.ndarray, np.generic, bool, int, float)):
            return NotImplemented
        return tnp.equal(self, other)

    def __ne__(self, other: object) -> Value:  # type: ignore[override]  # elementwise, as in NumPy
        tnp = _TNP or _load_numpy()
        if not isinstance(other, (Tracer, np.ndarray, np.generic, bool, int, float)):
            return NotImplemented
        return tnp.not_equal(self, other)

    @property
    def T(self) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.transpose(self)

    def reshape(self, *shape: int | tuple[int, ...]) -> Value:
        tnp = _TNP or _load_numpy()
        first = shape[0] if len(shape) == 1 else None
        if isinstance(first, tuple):
            return tnp.reshape(self, first)
        return tnp.reshape(self, [d for d in shape if isinstance(d, int)])

    def sum(self, axis: int | tuple[int, ...] | None = None) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.sum(self, axis)

    def astype(self, dtype: DType | type) -> Value:
        tnp = _TNP or _load_numpy()
        return tnp.astype(self, dtype)

