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
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from operator import attrgetter
from typing import Self, TypeAlias, cast

import numpy as np

from .array import Array, ArrayImpl, ArrayLike, HostArray, aval_key, from_numpy, host_aval
from .avals import ShapedArray
from .config import DEBUG_CHECKS, EAGER_ON_DEVICE, X32_POSSIBLE, debug_infs_on, debug_nans_on, x64_enabled
from .dtypes import NARROW, SMALL_FLOATS, SMALL_SEEN, TO_32, DType, is_complex, is_float  # (NARROW, SMALL_*: issue 29, item 7)
from .errors import (
    DebugNanError,
    ConcretizationError,
    EscapedTracerError,
    PrimitiveTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,  # issue 29 item 7
    TracerIntegerConversionError,  # issue 29 item 7
)
from .ir import AbstractEvalRule, Jaxpr, LazyJaxpr, NDArray, Params, Primitive  # (Jaxpr: issue 29, item 7)
from .weak import ALWAYS_ASK, with_weak
from .sharded import eval_typed, typed_operand  # explicit sharding
from .sharding import EXPLICIT_SEEN  # explicit sharding

Scalar: TypeAlias = bool | int | float
#: What interpreters pass around: an ``Array`` (concrete or a tracer) or a
#: raw operand (NumPy value, Python scalar). The same set as ``ArrayLike``.
Value: TypeAlias = ArrayLike

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

    def process_primitive1(self, prim: Primitive, args: Sequence[Value], params: Params) -> Value:
        """``process_primitive``'s first result (``bind1``'s question): an
        interpreter may answer it without the list (staging does)."""
        return self.process_primitive(prim, args, params)[0]

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
    """The bottom interpreter: evaluates primitives with NumPy (``impl``) and
    gives ``ArrayImpl``s holding the results on the host."""

    __slots__ = ()

    def process_primitive(
        self, prim: Primitive, args: Sequence[Value], params: Params
    ) -> list[Value]:
        if EXPLICIT_SEEN[0] and typed_operand(args):  # explicit sharding: typed results
            typed = eval_typed(self.process_primitive, prim, args, [aval_of(a) for a in args], params)  # type: ignore[arg-type]  # process_primitive takes the Values eval_typed passes on
            return cast(list[Value], typed)
        value_impl = prim.rules.eval_values
        if value_impl is not None:
            for a in args:
                if isinstance(a, Tracer):
                    self.check_foreign(a)
            return value_impl(args, params)
        vals: list[NDArray] = []
        avals: list[ShapedArray] = []
        borrowed = False  # whether an operand is a NumPy array the caller owns
        weak_in = False  # whether an operand is weakly typed (core/weak.py)
        everything = EAGER_ON_DEVICE[0]
        for a in args:
            if type(a) is ArrayImpl:  # the common case, without an isinstance
                h = a._host
                # on an accelerator a device array is fetched only if the host computes
                vals.append(h if h is not None else _ON_DEVICE if everything else a.to_numpy())
                aval = a.aval
                avals.append(aval)
                weak_in = weak_in or aval.weak_type
                continue
            if isinstance(a, Tracer):
                self.check_foreign(a)  # always raises: nothing encloses eval
            v = np.asarray(a)
            borrowed = borrowed or type(a) is np.ndarray
            aval = _array_aval(v)
            if X32_POSSIBLE[0] and v.dtype != aval.dtype:
                v = v.astype(aval.dtype)  # x64 off: a 64-bit value enters as 32 bits
            if type(a) is float or type(a) is int:  # a Python scalar is weak
                aval = aval.weakened()
                weak_in = True
            vals.append(v)
            avals.append(aval)
        # the same type errors as under staging (impl would broadcast or cast silently)
        out_avals = prim.abstract_eval(avals, params)
        on_device = prim.rules.eval_on_device
        consts = None if on_device is None else on_device(vals, avals, params)
        if consts is None and SMALL_SEEN[0] and _small_on_device(prim, params, avals, out_avals):
            consts = ()  # the 8- and 4-bit floats: XLA's own values (issue 29, item 7)
        if everything:
            if consts is None and _device_evaluable(prim, params, avals, out_avals):
                consts = ()  # on an accelerator: XLA's value there, as JAX's dispatch (issue 26)
            if consts is None:  # the host computes: fetch the device operands
                vals = [a.to_numpy() if v is _ON_DEVICE else v for a, v in zip(args, vals)]  # type: ignore[union-attr]  # only an ArrayImpl's value is _ON_DEVICE
        if consts is not None:  # XLA's own value (Rules.eval_on_device), 16-bit types as they are
            if weak_in or prim.name in ALWAYS_ASK:
                out_avals = with_weak(prim.name, avals, params, out_avals)
            device_outs = _DEVICE_EVAL[0](prim, params, args, vals, avals, consts)
            for d, da in zip(device_outs, out_avals):
                if da.weak_type:
                    d.aval, d._tdx_key = da, aval_key(da)
            if DEBUG_CHECKS[0]:
                debug_check(prim.name, device_outs)
            return list(device_outs)
        results = prim.impl(vals, params) if not _has_half(avals) else _impl_in_float32(prim, vals, params, out_avals)
        weak = False  # whether a result is weakly typed (core/weak.py)
        if weak_in or prim.name in ALWAYS_ASK:
            out_avals = with_weak(prim.name, avals, params, out_avals)
            weak = True
        out: list[Value] = []
        for o, oa in zip(results, out_avals):
            if type(o) is not np.ndarray:
                o = np.asarray(o)
            elif borrowed and (o.base is not None or any(o is v for v in vals)):
                o = o.copy()  # the caller's mutable array, or a view of it, would change with it
            out.append(from_numpy(o, weak and oa.weak_type))
        if DEBUG_CHECKS[0]:
            debug_check(prim.name, out)
        return out

    def describe(self) -> str:
        return "evaluation"


def debug_check(name: str, values: Sequence[Value]) -> None:
    """``debug_nans`` / ``debug_infs`` (``typedax.config``): raise JAX's
    ``FloatingPointError`` naming ``name`` when a floating-point value among
    ``values`` is a NaN / an infinity."""
    for v in values:
        a = np.asarray(v)
        if not is_float(a.dtype):
            continue
        if debug_nans_on() and np.isnan(a).any():
            raise DebugNanError(f"invalid value (nan) encountered in {name}")
        if debug_infs_on() and np.isinf(a).any():
            raise DebugNanError(f"invalid value (inf) encountered in {name}")


DeviceEval: TypeAlias = Callable[
    [Primitive, Params, Sequence[Value], Sequence[NDArray], Sequence[ShapedArray], tuple[int, ...]],
    list[ArrayImpl],
]


def _no_device_eval(
    prim: Primitive, params: Params, args: Sequence[Value], values: Sequence[NDArray],
    avals: Sequence[ShapedArray], consts: tuple[int, ...],
) -> list[ArrayImpl]:
    raise RuntimeError(
        f"{prim.name}: evaluating it runs XLA (Rules.eval_on_device), and typedax.lowering, which "
        "installs that, is not imported (import typedax)"
    )


#: How the eval trace runs a primitive through XLA for ``Rules.eval_on_device``:
#: ``typedax.lowering.eager`` installs its ``eval_on_device`` here when it is
#: imported (``typedax.lowering`` imports it, and ``typedax`` imports that),
#: so the core does not import the lowering layer above it.
_DEVICE_EVAL: list[DeviceEval] = [_no_device_eval]


def install_device_eval(device_eval: DeviceEval) -> None:
    """Make ``device_eval`` what the eval trace runs ``Rules.eval_on_device``
    primitives with, and every primitive it can on an accelerator
    (``config.EAGER_ON_DEVICE``) (``typedax.lowering.eager`` on import)."""
    _DEVICE_EVAL[0] = device_eval


#: Primitives that run the user's host function: never compiled for their
#: operands' sake (issue 29, item 7).
_HOST_CALLS: frozenset[str] = frozenset({"pure_callback", "io_callback", "debug_callback"})
_SMALL: frozenset[type[DType]] = frozenset(type(d) for d in SMALL_FLOATS)
_CONVERSIONS: frozenset[str] = frozenset({"convert_element_type", "bitcast_convert_type"})


def _has_jaxpr(v: object) -> bool:
    return isinstance(v, (Jaxpr, LazyJaxpr)) or (isinstance(v, tuple) and any(_has_jaxpr(e) for e in v))


def _small_on_device(prim: Primitive, params: Params, avals: Sequence[ShapedArray],
                     out_avals: Sequence[ShapedArray]) -> bool:
    """Whether ``prim`` evaluates through XLA because an operand or a result
    is an 8- or 4-bit float (issue 29, item 7): XLA's values on them (its
    conversions, its flushing of float32 subnormals, its rounding) are what
    ``jit`` and JAX give, which NumPy's float32 evaluation does not always
    match. Higher-order primitives evaluate their bodies equation by equation."""
    for a in avals:
        if type(a.dtype) in _SMALL:  # (by the dtype's class: cheap, on every eager operation)
            break
    else:  # only a conversion makes a small float of other types
        if prim.name not in _CONVERSIONS or type(out_avals[0].dtype) not in _SMALL:
            return False
    if prim.rules.lower is None or prim.name in _HOST_CALLS:
        return False
    return not any(_has_jaxpr(v) for v in params.values())


#: The host value of an operand that stays on the device (eager evaluation on
#: an accelerator): empty, so a rule reading it (``pow``'s uniform exponent)
#: finds no constant in it.
_ON_DEVICE: NDArray = np.empty((0,), np.float32)


def _device_evaluable(prim: Primitive, params: Params, avals: Sequence[ShapedArray],
                      out_avals: Sequence[ShapedArray]) -> bool:
    """Whether eager evaluation on an accelerator runs ``prim`` as its
    one-equation XLA program, as JAX's dispatch runs every primitive there:
    so eager values are XLA's on that device (its TF32 products, its special
    functions, its conversions), equal to ``jit``'s and JAX's, and arrays stay
    on the device. Not host callbacks, not higher-order primitives (their
    bodies evaluate equation by equation, each on the device), not the
    extended dtypes (typed keys, float0), which eager evaluation keeps on the
    host."""
    rules = prim.rules
    if rules.lower is None or rules.host_on_accelerator or prim.name in _HOST_CALLS:
        return False
    for group in (avals, out_avals):
        for a in group:
            if a.dtype.fields is not None:  # typed keys and float0: structured dtypes
                return False
    return not params or not any(_has_jaxpr(v) for v in params.values())


def _has_half(avals: Sequence[ShapedArray]) -> bool:
    for a in avals:
        if a.dtype in NARROW:  # 16-bit floats, and the 8-bit ones (issue 29, item 7)
            return True
    return False


#: Primitives that see 16-bit floats as they are: those reading the bits (in
#: float32 they would mean something else), and those evaluating a body of
#: other primitives (each of which rounds on its own).
NATIVE_ON_HALF: frozenset[str] = frozenset({
    "bitcast_convert_type", "reduce_precision", "nextafter", "cond", "while", "scan", "jit",
    "reduce_window_sum", "reduce_window", "select_and_scatter_add",  # XLA folds windows in 16 bits
    "integer_pow",  # XLA rounds each of its products to 16 bits
    "pure_callback", "io_callback", "debug_callback",  # the host function sees the values as they are
})


def _impl_in_float32(prim: Primitive, vals: list[NDArray], params: Params, out_avals: Sequence[ShapedArray]) -> list[NDArray]:
    """XLA on CPU computes float16 and bfloat16 in float32, rounding each
    operation's result to 16 bits; so does eager evaluation (NumPy's own
    float16 loops accumulate differently)."""
    if prim.name in NATIVE_ON_HALF:
        return [np.asarray(o) for o in prim.impl(vals, params)]
    wide = [v.astype(np.float32) if v.dtype in NARROW else v for v in vals]  # (issue 29, item 7: NARROW)
    return [np.asarray(o).astype(a.dtype) for o, a in zip(prim.impl(wide, params), out_avals)]


EVAL_TRACE: EvalTrace = EvalTrace(None)
_CURRENT: ContextVar[Trace] = ContextVar("typedax_current_trace", default=EVAL_TRACE)


#: The current interpreter (``ContextVar.get`` itself: no Python frame on
#: the eager fast paths, which ask on every call).
current_trace: Callable[[], Trace] = _CURRENT.get


class using_trace:  # noqa: N801 - used as a function (``with using_trace(t):``), as it was
    """Run the body with ``trace`` as the current interpreter.

    A class, not a ``@contextmanager`` generator: the JVP and partial
    evaluation traces enter one per primitive they apply, and a generator's
    context manager costs about three times as much to enter and leave."""

    __slots__ = ("_trace", "_token")

    def __init__(self, trace: Trace) -> None:
        self._trace = trace

    def __enter__(self) -> None:
        self._token = _CURRENT.set(self._trace)

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self._token)


def bind(prim: Primitive, args: Sequence[Value], params: Params) -> list[Array]:
    """Apply a primitive under the current interpreter. The results are
    ``Array``s: ``EvalTrace`` wraps its NumPy results in ``ArrayImpl``s, the
    other interpreters give their tracers (or their parent's results), and
    ``tests/test_array_type.py`` checks it under every transformation."""
    return _CURRENT.get().process_primitive(prim, args, params)  # type: ignore[return-value]  # see the docstring


def bind1(prim: Primitive, args: Sequence[Value], params: Params) -> Array:
    """``bind``'s first result. Eager evaluation answers through
    ``process_primitive`` (a call less there); the other interpreters through
    ``process_primitive1``, which staging answers without the list."""
    t = _CURRENT.get()
    if t is EVAL_TRACE:
        return t.process_primitive(prim, args, params)[0]  # type: ignore[return-value]  # as bind
    return t.process_primitive1(prim, args, params)  # type: ignore[return-value]  # as bind


# Caches for ``aval_of`` (avals are values, so sharing them is safe).
# Python ints and floats are weakly typed (bools are not), as in JAX.
_PY_SCALAR_AVALS: dict[type, ShapedArray] = {
    bool: ShapedArray((), np.dtype(np.bool_)),
    int: ShapedArray((), np.dtype(np.int64), weak_type=True),
    float: ShapedArray((), np.dtype(np.float64), weak_type=True),
    complex: ShapedArray((), np.dtype(np.complex128), weak_type=True),
}


def _array_aval(x: NDArray) -> ShapedArray:
    if X32_POSSIBLE[0]:
        return canonical_aval(host_aval(x)[0])
    return host_aval(x)[0]


_AVALS_32: dict[ShapedArray, ShapedArray] = {}


def canonical_aval(aval: ShapedArray) -> ShapedArray:
    """The type a value of ``aval`` enters typedax with: ``aval`` itself, or
    its 32-bit version with x64 off (JAX's ``canonicalize_dtype``)."""
    if not X32_POSSIBLE[0] or x64_enabled() or aval.dtype not in TO_32:
        return aval
    out = _AVALS_32.get(aval)
    if out is None:
        out = ShapedArray(aval.shape, TO_32[aval.dtype])
        if len(_AVALS_32) >= 4096:
            _AVALS_32.clear()
        _AVALS_32[aval] = out
    return out.weakened(aval.weak_type)  # the table ignores the flag (avals compare without it)


def exact(value: NDArray) -> Value:
    """``value`` as an operand that keeps its dtype: ``value`` itself, or,
    where it would enter as 32 bits (x64 off, a 64-bit dtype), a host
    ``Array`` of it. For the constants the library makes for a computation
    already in 64 bits (a gradient's seed, a zero cotangent): an array made
    with x64 on and used with it off computes in its own dtype, as JAX's."""
    if X32_POSSIBLE[0] and value.dtype in TO_32 and not x64_enabled():
        return from_numpy(value)
    return value


#: ``aval_of``'s fast path: a getter per exact type, C-level where it can be
#: (``operator.attrgetter``): arrays, and each tracer type as it is first
#: seen (``staging.py`` registers its tracer's direct one).
_AVAL_GETTERS: dict[type, Callable[[object], ShapedArray]] = {
    ArrayImpl: attrgetter("aval"),
}


def register_aval_getter(t: type, getter: Callable[[object], ShapedArray]) -> None:
    """``aval_of`` of a value of exactly type ``t`` is ``getter(value)``."""
    _AVAL_GETTERS[t] = getter


def aval_of(x: object) -> ShapedArray:
    """The type of a value: a tracer's aval, or that of an array or scalar."""
    get = _AVAL_GETTERS.get(type(x))
    if get is not None:
        return get(x)
    return _aval_of_other(x)


def _aval_of_other(x: object) -> ShapedArray:
    t = type(x)
    if t is np.ndarray:
        return _array_aval(cast(NDArray, x))
    scalar = _PY_SCALAR_AVALS.get(t)
    if scalar is not None:
        return canonical_aval(scalar) if X32_POSSIBLE[0] else scalar
    if issubclass(t, Tracer):
        _AVAL_GETTERS.setdefault(t, attrgetter("aval"))
        return cast(Tracer, x).aval
    if isinstance(x, ShapedArray):
        return x
    arr_dtype: DType
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        arr_dtype = x.dtype
        return canonical_aval(ShapedArray(tuple(x.shape), arr_dtype))
    if isinstance(x, bool):
        return ShapedArray((), np.dtype(np.bool_))
    if isinstance(x, int):  # a subclass of int (an IntEnum): weak, as an int
        return canonical_aval(_PY_SCALAR_AVALS[int])
    if isinstance(x, float):
        return canonical_aval(_PY_SCALAR_AVALS[float])
    if isinstance(x, complex):
        return canonical_aval(_PY_SCALAR_AVALS[complex])
    if isinstance(x, Array):
        return x.aval
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if isinstance(shape, tuple) and isinstance(dtype, np.dtype):
        return ShapedArray(tuple(int(d) for d in shape), dtype)
    raise TypeError(f"{type(x).__name__} is not a valid typedax array type")


_MEMO_LIMIT = 4096


def memo_abstract(fn: AbstractEvalRule) -> AbstractEvalRule:
    """``fn``, an abstract evaluation of one or two operands, remembered per
    (params, operand types). For the structural primitives, whose checks of
    their params cost several microseconds on every traced equation
    (``broadcast``, ``reshape``, the reductions, ...).

    ``fn`` must be a pure function of the operands' types (weak flags
    included: they are part of the key) and of ``params``. The params are keyed by
    identity, and kept alive by the entry (so an ``id`` is never reused
    while it is a key): the ``lax`` functions share one params map per
    distinct value, and an equal map that is another object only misses
    (by identity, ``(True,)`` never stands for ``(1,)``). Errors are not
    remembered: a bad operand raises every time, the same error."""
    memo: dict[tuple[object, ...], tuple[Params, list[ShapedArray]]] = {}

    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        key: tuple[object, ...]
        if len(avals) == 1:
            x = avals[0]
            key = (id(params), x, x.weak_type)  # avals compare without the flag
        elif len(avals) == 2:
            x, y = avals
            key = (id(params), x, x.weak_type, y, y.weak_type)
        else:
            return fn(avals, params)
        hit = memo.get(key)
        if hit is not None:
            return list(hit[1])
        out = fn(avals, params)
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        memo[key] = (params, list(out))
        return out

    abstract.__name__ = getattr(fn, "__name__", "abstract")
    abstract.__doc__ = fn.__doc__
    abstract.__wrapped__ = fn  # type: ignore[attr-defined]  # the plain function, for tests to compare with
    abstract.pure_types = True  # type: ignore[attr-defined]  # read by Primitive: its results may be remembered (core/result_types.py)
    return abstract


def scalar_as(x: bool | int | float | complex, like: ShapedArray) -> Value:
    """A Python scalar meeting an array of type ``like``, in ``like``'s
    dtype: a NumPy scalar, or -- when ``like`` is weakly typed, so that the
    result stays weak -- a Python scalar whose own (weak) type has that dtype."""
    if like.weak_type:
        d = like.dtype
        py = complex(x) if is_complex(d) else float(x) if is_float(d) else int(x)  # type: ignore[arg-type]  # a complex x meets a complex like only (callers check)
        if aval_of(py).dtype == like.dtype:
            return py
    return np.asarray(x, dtype=like.dtype)


def as_value(x: object, what: str = "operands") -> Value:
    """``x`` if it is an array value (a tracer, a device ``Array``, a NumPy
    array or scalar, a Python scalar), else a ``PrimitiveTypeError`` naming
    where it came from: the one "is this a value" check of the library."""
    try:
        aval_of(x)
    except TypeError:
        raise PrimitiveTypeError(
            f"{what} must be arrays or scalars: {type(x).__name__} is not a valid typedax array type"
        ) from None
    return x  # type: ignore[return-value]  # aval_of accepted it, so it is a Value


class Tracer(Array):
    """A value being traced by some interpreter: an ``Array`` whose
    subclasses say what ``aval`` and ``concrete`` are."""

    __slots__ = ("_trace",)

    def __init__(self, trace: Trace) -> None:
        self._trace = trace

    # -- concreteness ------------------------------------------------------
    def concrete(self, why: str) -> NDArray:
        """This tracer's concrete value, or ``ConcretizationError``."""
        raise ConcretizationError(
            f"{why} of a traced value of type {self.aval.str_short()} under "
            f"{self._trace.describe()}: its value is not known while tracing. "
            "Use lax.cond / lax.while_loop for data-dependent control flow, or "
            "mark the argument static."
        )

    def concrete_float(self, why: str) -> NDArray:
        """The value for ``float()``/``complex()``: ``concrete`` unless the
        conversion would lose what the interpreter tracks through it (a
        derivative: see ``JVPTracer``)."""
        return self.concrete(why)

    # bool(), int() and indexing are piecewise constant, so a concrete value
    # serves them even under differentiation (as in JAX); float() is not.
    def __bool__(self) -> bool:
        try:
            return bool(self.concrete("bool()"))
        except ConcretizationError as e:  # JAX's class for bool() (issue 29 item 7)
            raise TracerBoolConversionError(*e.args) from None

    def __int__(self) -> int:  # a ConcretizationError, as JAX's (its TracerIntegerConversionError is for indices)
        return int(self.concrete("int()"))

    def __float__(self) -> float:
        return float(self.concrete_float("float()"))

    def __complex__(self) -> complex:
        return complex(self.concrete_float("complex()"))

    def __index__(self) -> int:
        try:
            return int(self.concrete("using as an index"))
        except ConcretizationError as e:  # JAX's class for an index (issue 29 item 7)
            raise TracerIntegerConversionError(*e.args) from None

    def __array__(self, dtype: object = None, copy: object = None) -> HostArray:
        raise TracerArrayConversionError(
            f"np.asarray() (or a NumPy or math function) was called on a traced value of type "
            f"{self.aval.str_short()} under {self._trace.describe()}: NumPy would see a "
            "constant and silently drop what is traced through it (a derivative, a batch "
            "axis, a staged computation). Use typedax.numpy (tnp.exp, tnp.dot, ...) or "
            "typedax.lax on traced values."
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}<{self.aval.str_short()}>"

    # A tracer stands for a value only inside its transformation: pickled, it
    # would load as a dead tracer (JAX raises here too). Copies are the
    # tracer itself (it is immutable), as JAX's.
    def __reduce__(self) -> tuple[object, ...]:
        raise ConcretizationError(
            f"pickling a traced value of type {self.aval.str_short()} under "
            f"{self._trace.describe()}: its value is not known while tracing, and a "
            "tracer means nothing outside its transformation. Pickle the transformed "
            "function's concrete result instead."
        )

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self
