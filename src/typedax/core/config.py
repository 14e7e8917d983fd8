"""typedax's settings, as ``jax.config``: ``typedax.config``.

Two settings. ``enable_x64`` (also spelled ``jax_enable_x64``) is
ON by default in typedax (JAX's default is off): float64 and int64 are
first-class, and a Python float is a float64. With it off, typedax does what
JAX does in its default 32-bit mode: values entering typedax (Python
scalars, NumPy arrays, ``jit`` arguments, ``device_put``) and requested
dtypes have their 64-bit types canonicalized to 32 bits (float64 → float32,
int64 → int32; an explicitly requested 64-bit dtype warns, as JAX's does),
and the default integer and float types are int32 and float32.

``config.update(name, value)`` sets the process-wide value;
``config.context(enable_x64=...)`` overrides it for the ``with`` body, in
this thread or asyncio task only (a ``ContextVar``, as the interpreter
stack is). Readers call ``x64_enabled()``. Most programs never turn x64 off,
so the readers first look at ``X32_POSSIBLE``, a flag that is true only
while the global value is off or some context has turned it off; while it
is false, ``x64_enabled()`` answers without reading the ``ContextVar``.

``cpu_enable_async_dispatch`` (also ``jax_cpu_enable_async_dispatch``, JAX's
name) chooses how the CPU backend runs a compiled program: on a worker
thread, the call returning at once (JAX's default), or inline in the calling
thread, the call returning when the result is ready (typedax's default,
``False``). It is read once, when the backend starts; ``update`` after that
raises unless the value is unchanged, and ``context`` does not take it. Why
typedax runs inline by default, with the measurements, is written in
``docs/architecture.md`` ("Settings").

``default_matmul_precision`` (also ``jax_default_matmul_precision``) is the
precision a ``dot_general`` or convolution without an explicit
``precision=`` gets, as JAX's: ``None`` (the default: the equation says
nothing, lowered as ``[DEFAULT, DEFAULT]``) or one of JAX's names
(``'default'``, ``'high'``, ``'highest'``, ``'bfloat16'``,
``'tensorfloat32'``, ``'float32'``, ``'fastest'``, ``'bfloat16_3x'``). It is
read while tracing, so it lands in the equation's params, and ``jit`` keys
its traces on it; ``default_matmul_precision(name)`` (``with``) overrides it
in this thread or task only. JAX's dot-algorithm presets
(``'F32_F32_F32'``, ...) are refused with a clear error.

Debugging switches, as JAX's: ``disable_jit`` (``jax_disable_jit``; also the
``with disable_jit():`` context manager, this thread or task only) makes a
``jit``-decorated function run its Python body eagerly on each call;
``debug_nans`` / ``debug_infs`` (``jax_debug_nans``/``jax_debug_infs``) check
the floating-point results of every eagerly evaluated primitive and of every
``jit`` call, and raise ``DebugNanError`` (a ``FloatingPointError``) naming
the primitive that made a NaN (an infinity): a ``jit`` call whose results
hold one runs its jaxpr again eagerly to find it. ``jit`` reads one flag,
``JIT_CHECKS``, which is true only while one of these may be on.
``platform_name`` (``jax_platform_name``) is what ``TYPEDAX_PLATFORM``
means (``cpu``, or ``cuda`` / ``gpu``), before the first computation.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

from .errors import PlatformError

__all__ = [
    "Config", "config", "default_matmul_precision", "disable_jit", "jit_disabled", "matmul_precision",
    "x64_enabled",
]

_X64: ContextVar[bool | None] = ContextVar("typedax_enable_x64", default=None)
_GLOBAL_X64: list[bool] = [True]
#: True while the global value is off or a context has turned x64 off: the
#: one place that must read the ``ContextVar`` (a one-element list, so
#: modules that import it see the changes).
X32_POSSIBLE: Final[list[bool]] = [False]
_LOCK = threading.Lock()
_CONTEXTS_OFF: list[int] = [0]

_NAMES: Final[dict[str, str]] = {
    "jax_enable_x64": "enable_x64",
    "enable_x64": "enable_x64",
    "jax_cpu_enable_async_dispatch": "cpu_enable_async_dispatch",
    "cpu_enable_async_dispatch": "cpu_enable_async_dispatch",
    "jax_default_matmul_precision": "default_matmul_precision",
    "default_matmul_precision": "default_matmul_precision",
    "jax_num_cpu_devices": "num_cpu_devices",
    "num_cpu_devices": "num_cpu_devices",
    "jax_disable_jit": "disable_jit",
    "disable_jit": "disable_jit",
    "jax_debug_nans": "debug_nans",
    "debug_nans": "debug_nans",
    "jax_debug_infs": "debug_infs",
    "debug_infs": "debug_infs",
    "jax_platform_name": "platform_name",
    "platform_name": "platform_name",
}

#: ``disable_jit``: the global value, the ``with disable_jit()`` override,
#: and how many such contexts are open
_GLOBAL_NO_JIT: list[bool] = [False]
_NO_JIT: ContextVar[bool | None] = ContextVar("typedax_disable_jit", default=None)
_NO_JIT_CONTEXTS: list[int] = [0]
#: ``debug_nans``, ``debug_infs``
_DEBUG_NANS: list[bool] = [False]
_DEBUG_INFS: list[bool] = [False]
#: True while ``debug_nans`` or ``debug_infs`` is on: the eval trace checks
#: each primitive's results, ``jit`` each call's
DEBUG_CHECKS: Final[list[bool]] = [False]
#: ``typedax.numpy``'s eager fast paths (``EAGER_FAST`` there), which skip
#: the eval trace: off while a debug check is on
EAGER_FAST: Final[list[bool]] = [True]
#: True while ``jit`` may have to do more than run its program (jit disabled
#: globally or in some context, or a debug check on): its fast path reads this
JIT_CHECKS: Final[list[bool]] = [False]
#: ``platform_name`` (``None``: ``TYPEDAX_PLATFORM`` or ``cpu``), and the
#: platform the runtime started (``None`` before)
_PLATFORM_NAME: list[str | None] = [None]
_STARTED_PLATFORM: list[str | None] = [None]
PLATFORM_ALIASES: Final[dict[str, str]] = {"cpu": "cpu", "cuda": "cuda", "gpu": "cuda"}

#: JAX's legacy precision names (``jax.lax.Precision``'s aliases): the values
#: ``default_matmul_precision`` takes besides ``None``.
MATMUL_PRECISIONS: Final[tuple[str, ...]] = (
    "default", "high", "highest", "bfloat16", "tensorfloat32", "float32", "fastest", "bfloat16_3x",
)
#: the ``with default_matmul_precision(...)`` override here: ``None`` is no
#: override, ``""`` an override to ``None`` (JAX's context may unset it)
_PRECISION: ContextVar[str | None] = ContextVar("typedax_default_matmul_precision", default=None)
_GLOBAL_PRECISION: list[str | None] = [None]
#: True while a global value or some context has set the precision: until
#: then ``matmul_precision()`` answers ``None`` without a ``ContextVar`` read
PRECISION_POSSIBLE: Final[list[bool]] = [False]
_PRECISION_CONTEXTS: list[int] = [0]

#: ``cpu_enable_async_dispatch``: read by the runtime when the backend starts
_CPU_ASYNC: list[bool] = [False]
#: set by the runtime when the backend has started: the value it read is fixed
_BACKEND_STARTED: list[bool] = [False]


def cpu_async_dispatch() -> bool:
    """The ``cpu_enable_async_dispatch`` setting; the runtime calls this as it
    starts the backend, which fixes the value for the process."""
    with _LOCK:
        _BACKEND_STARTED[0] = True
        return _CPU_ASYNC[0]


#: ``num_cpu_devices`` (JAX's ``jax_num_cpu_devices``): how many host devices
#: the CPU client has; -1 leaves it to ``XLA_FLAGS``'
#: ``--xla_force_host_platform_device_count`` (default 1), as JAX's
_CPU_DEVICES: list[int] = [-1]


def num_cpu_devices() -> int:
    """The ``num_cpu_devices`` setting (-1: unset); the runtime calls this as
    it starts the backend, which fixes the value for the process."""
    with _LOCK:
        _BACKEND_STARTED[0] = True
        return _CPU_DEVICES[0]


def jit_disabled() -> bool:
    """Whether ``jit`` runs functions eagerly here (``disable_jit``)."""
    v = _NO_JIT.get()
    return _GLOBAL_NO_JIT[0] if v is None else v


def debug_nans() -> bool:
    return _DEBUG_NANS[0]


def debug_infs() -> bool:
    return _DEBUG_INFS[0]


def platform_name() -> str | None:
    """The ``platform_name`` setting (``None``: unset)."""
    return _PLATFORM_NAME[0]


def backend_started(platform: str) -> None:
    """The runtime started its backend on ``platform``: ``platform_name`` is
    fixed, and so are the CPU client's settings (``num_cpu_devices``,
    ``cpu_enable_async_dispatch``) on every platform, as JAX's, which starts
    all its backends together (on a GPU, too, they are refused from then on)."""
    with _LOCK:
        _STARTED_PLATFORM[0] = platform
        _BACKEND_STARTED[0] = True


def _refresh_jit_checks() -> None:
    DEBUG_CHECKS[0] = _DEBUG_NANS[0] or _DEBUG_INFS[0]
    EAGER_FAST[0] = not DEBUG_CHECKS[0]
    JIT_CHECKS[0] = DEBUG_CHECKS[0] or _GLOBAL_NO_JIT[0] or _NO_JIT_CONTEXTS[0] > 0


@contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """``jax.disable_jit``: in the ``with`` body (this thread or task), a
    ``jit``-decorated function runs its Python body eagerly on each call."""
    token = _NO_JIT.set(_check_bool("disable_jit", disable))
    with _LOCK:
        _NO_JIT_CONTEXTS[0] += 1
        _refresh_jit_checks()
    try:
        yield
    finally:
        _NO_JIT.reset(token)
        with _LOCK:
            _NO_JIT_CONTEXTS[0] -= 1
            _refresh_jit_checks()


def x64_enabled() -> bool:
    """Whether 64-bit types are enabled here (this thread or task)."""
    if not X32_POSSIBLE[0]:
        return True
    v = _X64.get()
    return _GLOBAL_X64[0] if v is None else v


def matmul_precision() -> str | None:
    """The ``default_matmul_precision`` in force here (``None``: unset)."""
    if not PRECISION_POSSIBLE[0]:
        return None
    v = _PRECISION.get()
    return _GLOBAL_PRECISION[0] if v is None else (v or None)


def _check_precision(name: str, value: object) -> str | None:
    if value is None or (isinstance(value, str) and value in MATMUL_PRECISIONS):
        return value
    raise ValueError(
        f"config option {name} must be None or one of {list(MATMUL_PRECISIONS)}, got {value!r}"
        + (" (JAX's dot-algorithm presets are not supported by typedax)" if isinstance(value, str) else "")
    )


@contextmanager
def default_matmul_precision(precision: str | None) -> Iterator[None]:
    """``jax.default_matmul_precision``: the default precision of matmuls and
    convolutions traced in the ``with`` body (this thread or task only)."""
    value = _check_precision("default_matmul_precision", precision)
    token = _PRECISION.set("" if value is None else value)
    with _LOCK:
        _PRECISION_CONTEXTS[0] += 1
        PRECISION_POSSIBLE[0] = True
    try:
        yield
    finally:
        _PRECISION.reset(token)
        with _LOCK:
            _PRECISION_CONTEXTS[0] -= 1
            PRECISION_POSSIBLE[0] = _GLOBAL_PRECISION[0] is not None or _PRECISION_CONTEXTS[0] > 0


def _refresh() -> None:
    X32_POSSIBLE[0] = (not _GLOBAL_X64[0]) or _CONTEXTS_OFF[0] > 0


def _option(name: str) -> str:
    option = _NAMES.get(name)
    if option is None:
        raise AttributeError(
            f"Unrecognized config option: {name} (typedax has "
            f"{', '.join(sorted(_NAMES))})"
        )
    return option


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"config option {name} takes a bool, got {value!r}")
    return value


class Config:
    """``typedax.config``: ``update(name, value)``, ``context(**options)``,
    and the value in force as an attribute (``config.enable_x64`` or
    ``config.jax_enable_x64``)."""

    __slots__ = ()

    def update(self, name: str, value: bool | str | int | None) -> None:
        """Set an option for the whole process (contexts still override it)."""
        option = _option(name)
        if option == "num_cpu_devices":
            if type(value) is not int or value < -1:
                raise TypeError(f"config option {name} takes an int (-1 for the default), got {value!r}")
            with _LOCK:
                if _BACKEND_STARTED[0] and value != _CPU_DEVICES[0]:
                    raise PlatformError(
                        f"config.update({name!r}, {value}): {name} must be set before the "
                        "backend starts (the first computation)"
                    )
                _CPU_DEVICES[0] = value
            return
        if option == "default_matmul_precision":
            prec = _check_precision(name, value)
            with _LOCK:
                _GLOBAL_PRECISION[0] = prec
                PRECISION_POSSIBLE[0] = prec is not None or _PRECISION_CONTEXTS[0] > 0
            return
        if option == "platform_name":
            self._set_platform(name, value)
            return
        flag = _check_bool(name, value)
        with _LOCK:
            if option in ("disable_jit", "debug_nans", "debug_infs"):
                {"disable_jit": _GLOBAL_NO_JIT, "debug_nans": _DEBUG_NANS, "debug_infs": _DEBUG_INFS}[option][0] = flag
                _refresh_jit_checks()
                return
            if option == "enable_x64":
                _GLOBAL_X64[0] = flag
                _refresh()
                return
            if _BACKEND_STARTED[0] and flag != _CPU_ASYNC[0]:
                raise PlatformError(
                    f"config.update({name!r}, {flag}): the backend is already running with "
                    f"{option}={_CPU_ASYNC[0]}; set it before the first computation"
                )
            _CPU_ASYNC[0] = flag

    @staticmethod
    def _set_platform(name: str, value: object) -> None:
        platform = PLATFORM_ALIASES.get(value) if isinstance(value, str) else None
        if platform is None:
            raise PlatformError(
                f"config.update({name!r}, {value!r}): choose one of {', '.join(PLATFORM_ALIASES)}"
            )
        with _LOCK:
            started = _STARTED_PLATFORM[0]
            if started is not None and started != platform:
                raise PlatformError(
                    f"config.update({name!r}, {value!r}): the {started} backend is already "
                    "running; set the platform before the first computation"
                )
            _PLATFORM_NAME[0] = platform

    def read(self, name: str) -> bool | str | int | None:
        """The value of an option in force here."""
        option = _option(name)
        if option == "disable_jit":
            return jit_disabled()
        if option in ("debug_nans", "debug_infs"):
            return (_DEBUG_NANS if option == "debug_nans" else _DEBUG_INFS)[0]
        if option == "platform_name":
            return _PLATFORM_NAME[0]
        if option == "num_cpu_devices":
            return _CPU_DEVICES[0]
        if option == "enable_x64":
            return x64_enabled()
        if option == "default_matmul_precision":
            return matmul_precision()
        return _CPU_ASYNC[0]

    @property
    def jax_disable_jit(self) -> bool:
        return jit_disabled()

    @property
    def jax_debug_nans(self) -> bool:
        return _DEBUG_NANS[0]

    @property
    def jax_debug_infs(self) -> bool:
        return _DEBUG_INFS[0]

    @property
    def jax_platform_name(self) -> str | None:
        return _PLATFORM_NAME[0]

    @property
    def default_matmul_precision(self) -> str | None:
        return matmul_precision()

    @property
    def jax_default_matmul_precision(self) -> str | None:
        return matmul_precision()

    @property
    def num_cpu_devices(self) -> int:
        return _CPU_DEVICES[0]

    @property
    def jax_num_cpu_devices(self) -> int:
        return _CPU_DEVICES[0]

    @property
    def enable_x64(self) -> bool:
        return x64_enabled()

    @property
    def jax_enable_x64(self) -> bool:
        return x64_enabled()

    @property
    def cpu_enable_async_dispatch(self) -> bool:
        return _CPU_ASYNC[0]

    @property
    def jax_cpu_enable_async_dispatch(self) -> bool:
        return _CPU_ASYNC[0]

    @contextmanager
    def context(
        self, *, enable_x64: bool | None = None, jax_enable_x64: bool | None = None
    ) -> Iterator[None]:
        """Override options for the ``with`` body, in this thread or task only."""
        if enable_x64 is not None and jax_enable_x64 is not None and enable_x64 != jax_enable_x64:
            raise ValueError("context: enable_x64 and jax_enable_x64 given different values")
        value = enable_x64 if enable_x64 is not None else jax_enable_x64
        if value is None:
            yield
            return
        flag = _check_bool("enable_x64", value)
        token = _X64.set(flag)
        if not flag:
            with _LOCK:
                _CONTEXTS_OFF[0] += 1
                _refresh()
        try:
            yield
        finally:
            _X64.reset(token)
            if not flag:
                with _LOCK:
                    _CONTEXTS_OFF[0] -= 1
                    _refresh()

    def __repr__(self) -> str:
        return (
            f"typedax.config(enable_x64={x64_enabled()}, "
            f"cpu_enable_async_dispatch={_CPU_ASYNC[0]}, "
            f"default_matmul_precision={matmul_precision()!r})"
        )


config: Final[Config] = Config()
