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

``check_static_indices`` (``jax_check_static_indices``, JAX's option, off by
default as in JAX): a static integer index out of range in ``x[idx]`` (or
``x.at[idx].get()`` with ``mode=None``/``'promise_in_bounds'``) raises an
``IndexingError`` (an ``IndexError``) instead of clamping. Read while the get
is traced (``_numpy/array_indexing.py``); changing it drops every ``jit``'s
traces (``TRACE_SETTING_HOOKS``), as JAX keys its cache on it.

``log_compiles`` and ``explain_cache_misses`` (``jax_`` names too; also
the context managers ``log_compiles()``/``explain_cache_misses()``): JAX's
logging of ``jit``'s traces and compiles, and of why a trace missed the
cache, on the ``typedax`` logger at WARNING level.

JAX's other options (``jax_traceback_filtering``, ``jax_logging_level``,
...: ``JAX_OPTIONS``, JAX 0.10's names) are
accepted by ``update`` with a ``UserWarning`` that names the option and says
typedax does not act on it, so a ported program runs; a name JAX does not
have either stays an ``AttributeError``.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Iterator
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
    "jax_check_static_indices": "check_static_indices",  # static-index bounds
    "check_static_indices": "check_static_indices",  # static-index bounds
    "jax_log_compiles": "log_compiles",  # compile logging
    "log_compiles": "log_compiles",  # compile logging
    "jax_explain_cache_misses": "explain_cache_misses",  # compile logging
    "explain_cache_misses": "explain_cache_misses",  # compile logging
}

#: JAX 0.10's option names (``jax.config``'s): ``update`` accepts those
#: typedax does not act on (not in ``_NAMES``) with a warning.
JAX_OPTIONS: Final[frozenset[str]] = frozenset((
    "check_vma", "eager_constant_folding", "jax2tf_associative_scan_reductions",
    "jax2tf_default_native_serialization", "jax_allow_f16_reductions", "jax_array_garbage_collection_guard",
    "jax_auto_pcast", "jax_backend_target", "jax_bcoo_cusparse_lowering",
    "jax_captured_constants_report_frames", "jax_captured_constants_warn_bytes", "jax_check_proxy_envs",
    "jax_check_static_indices", "jax_check_tracer_leaks", "jax_compilation_cache_check_contents",
    "jax_compilation_cache_dir", "jax_compilation_cache_expect_pgle",
    "jax_compilation_cache_include_metadata_in_key", "jax_compilation_cache_max_size",
    "jax_compiler_detailed_logging_min_ops", "jax_compiler_enable_remat_pass",
    "jax_cpu_collectives_implementation", "jax_cpu_enable_async_dispatch",
    "jax_cpu_get_global_topology_timeout_minutes", "jax_cpu_get_local_topology_timeout_minutes",
    "jax_cross_host_transfer_socket_address", "jax_cross_host_transfer_timeout_seconds",
    "jax_cross_host_transfer_transfer_size", "jax_cross_host_transport_addresses",
    "jax_cuda_visible_devices", "jax_custom_vjp3", "jax_debug_infs", "jax_debug_key_reuse",
    "jax_debug_leaked_clients_on_clear_backends", "jax_debug_log_modules", "jax_debug_nans",
    "jax_default_device", "jax_default_matmul_precision", "jax_default_prng_impl", "jax_disable_bwd_checks",
    "jax_disable_jit", "jax_disable_most_optimizations", "jax_disable_vmap_shmap_error",
    "jax_disallow_mesh_context_manager", "jax_distributed_debug", "jax_dump_ir_modes", "jax_dump_ir_to",
    "jax_embedded_constants_max_bytes", "jax_enable_checks", "jax_enable_compilation_cache",
    "jax_enable_custom_prng", "jax_enable_pgle", "jax_enable_preemption_service",
    "jax_enable_recoverability", "jax_enable_x64", "jax_error_checking_behavior_divide",
    "jax_error_checking_behavior_nan", "jax_error_checking_behavior_oob",
    "jax_exec_time_optimization_effort", "jax_experimental_unsafe_xla_runtime_errors",
    "jax_explain_cache_misses", "jax_explicit_x64_dtypes", "jax_export_calling_convention_version",
    "jax_export_ignore_forward_compatibility", "jax_force_dcn_cross_host_transfers",
    "jax_high_dynamic_range_gumbel", "jax_hlo_source_file_canonicalization_regex",
    "jax_include_debug_info_in_dumps", "jax_include_full_tracebacks_in_locations", "jax_legacy_prng_key",
    "jax_log_checkpoint_residuals", "jax_log_compiles", "jax_logging_level", "jax_memory_fitting_effort",
    "jax_memory_fitting_level", "jax_mock_gpu_topology", "jax_mosaic_allow_hlo", "jax_mutable_array_checks",
    "jax_no_execution", "jax_no_tracing", "jax_num_cpu_devices", "jax_numpy_dtype_promotion",
    "jax_numpy_rank_promotion", "jax_oneapi_visible_devices", "jax_optimization_level",
    "jax_pallas_enable_debug_checks", "jax_pallas_poison_buffers", "jax_pallas_use_mosaic_gpu",
    "jax_pallas_verbose_errors", "jax_persistent_cache_enable_xla_caches",
    "jax_persistent_cache_min_compile_time_secs", "jax_persistent_cache_min_entry_size_bytes",
    "jax_pgle_aggregation_percentile", "jax_pgle_profiling_runs", "jax_pjrt_client_create_options",
    "jax_platform_name", "jax_platforms", "jax_pprint_use_color",
    "jax_ragged_dot_use_gpu_pallas_triton_lowering", "jax_ragged_dot_use_ragged_dot_instruction",
    "jax_raise_persistent_cache_errors", "jax_random_seed_offset", "jax_refs_to_pins", "jax_remat3",
    "jax_remove_custom_partitioning_ptr_from_cache_key", "jax_remove_size_one_mesh_axis_from_type",
    "jax_rocm_visible_devices", "jax_scan3", "jax_send_traceback_to_runtime", "jax_serialization_version",
    "jax_share_binary_between_hosts", "jax_share_binary_between_hosts_timeout_ms", "jax_softmax_custom_jvp",
    "jax_sort_devices_by_process_index", "jax_source_url_schema", "jax_thread_guard",
    "jax_threefry_gpu_kernel_lowering", "jax_threefry_partitionable", "jax_traceback_filtering",
    "jax_traceback_in_locations_limit", "jax_tracer_error_num_traceback_frames", "jax_transfer_guard",
    "jax_transfer_guard_device_to_device", "jax_transfer_guard_device_to_host",
    "jax_transfer_guard_host_to_device", "jax_use_direct_linearize", "jax_use_emit_pipeline_primitive",
    "jax_use_magma", "jax_use_shardy_partitioner", "jax_use_simplified_jaxpr_constants", "jax_xla_backend",
    "jax_xla_profile_version", "mock_num_gpu_processes",
))

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
#: the eval trace for NumPy's: off while a debug check is on, and on an
#: accelerator (``EAGER_ON_DEVICE``)
EAGER_FAST: Final[list[bool]] = [True]
#: True while ``jit`` may have to do more than run its program (jit disabled
#: globally or in some context, or a debug check on): its fast path reads this
JIT_CHECKS: Final[list[bool]] = [False]
#: True while any of ``JIT_CHECKS``, ``PRECISION_POSSIBLE`` or
#: ``X32_POSSIBLE`` is: ``jit``'s dispatch reads this one flag first (issue
#: 30: each read costs ~0.5% of a dispatch)
JIT_SETTINGS: Final[list[bool]] = [False]
#: ``platform_name`` (``None``: ``TYPEDAX_PLATFORM`` or ``cpu``), and the
#: platform the runtime started (``None`` before)
_PLATFORM_NAME: list[str | None] = [None]
_STARTED_PLATFORM: list[str | None] = [None]
PLATFORM_ALIASES: Final[dict[str, str]] = {"cpu": "cpu", "cuda": "cuda", "gpu": "cuda"}
#: Whether eager evaluation runs every primitive it can on the device, as
#: JAX's dispatch does there (the platform is an accelerator:
#: ``core/trace.py``'s ``_device_evaluable``): asked of ``_ACCELERATOR``
#: (``typedax.lowering`` installs it) again after each choice of platform
EAGER_ON_DEVICE: Final[list[bool]] = [False]
_ACCELERATOR: list[Callable[[], bool]] = [lambda: False]


def install_accelerator_question(question: Callable[[], bool]) -> None:
    """How to ask whether the platform is an accelerator (``typedax.lowering``)."""
    _ACCELERATOR[0] = question
    refresh_eager_device()


def refresh_eager_device() -> None:
    """Ask again whether eager evaluation runs on the device (the platform
    was chosen or changed; called outside ``_LOCK``: the question reads the
    settings)."""
    EAGER_ON_DEVICE[0] = _ACCELERATOR[0]()
    _refresh_jit_checks()

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


#: ``check_static_indices``: a static index out of range is an error in a get
_CHECK_STATIC_INDICES: list[bool] = [False]
#: called when a setting read while tracing (``check_static_indices``)
#: changes, so no ``jit`` keeps a trace made under the old value (JAX keys
#: its cache on it): ``jitting/api.py`` installs its cache clear here
TRACE_SETTING_HOOKS: Final[list[Callable[[], None]]] = []


def check_static_indices() -> bool:
    """Whether a static integer index out of range is an error in a get
    (``jax_check_static_indices``) rather than clamped."""
    return _CHECK_STATIC_INDICES[0]


def jit_disabled() -> bool:
    """Whether ``jit`` runs functions eagerly here (``disable_jit``)."""
    v = _NO_JIT.get()
    return _GLOBAL_NO_JIT[0] if v is None else v


def debug_nans_on() -> bool:
    return _DEBUG_NANS[0]


def debug_infs_on() -> bool:
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
    refresh_eager_device()


def _refresh_jit_checks() -> None:
    DEBUG_CHECKS[0] = _DEBUG_NANS[0] or _DEBUG_INFS[0]
    EAGER_FAST[0] = not DEBUG_CHECKS[0] and not EAGER_ON_DEVICE[0]
    JIT_CHECKS[0] = DEBUG_CHECKS[0] or _GLOBAL_NO_JIT[0] or _NO_JIT_CONTEXTS[0] > 0
    _refresh_jit_settings()


def _refresh_jit_settings() -> None:
    JIT_SETTINGS[0] = JIT_CHECKS[0] or PRECISION_POSSIBLE[0] or X32_POSSIBLE[0]


def enable_x64(new_val: bool = True) -> contextlib.AbstractContextManager[None]:
    """``jax.enable_x64``: ``with enable_x64(False):`` runs the body with x64
    off (on), in this thread or task only: ``config.context(enable_x64=...)``."""
    return config.context(enable_x64=new_val)


@contextmanager
def _debug_switch(flag: list[bool], value: bool) -> Iterator[None]:
    with _LOCK:
        saved = flag[0]
        flag[0] = _check_bool("debug switch", value)
        _refresh_jit_checks()
    try:
        yield
    finally:
        with _LOCK:
            flag[0] = saved
            _refresh_jit_checks()


def debug_nans(new_val: bool = True) -> contextlib.AbstractContextManager[None]:
    """``jax.debug_nans`` (``typedax.debug_nans``): ``jax_debug_nans`` for
    the ``with`` body (process-wide while it lasts)."""
    return _debug_switch(_DEBUG_NANS, new_val)


def debug_infs(new_val: bool = True) -> contextlib.AbstractContextManager[None]:
    """``jax.debug_infs`` (``typedax.debug_infs``): ``jax_debug_infs`` for
    the ``with`` body (process-wide while it lasts)."""
    return _debug_switch(_DEBUG_INFS, new_val)


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
        _refresh_jit_settings()
    try:
        yield
    finally:
        _PRECISION.reset(token)
        with _LOCK:
            _PRECISION_CONTEXTS[0] -= 1
            PRECISION_POSSIBLE[0] = _GLOBAL_PRECISION[0] is not None or _PRECISION_CONTEXTS[0] > 0
            _refresh_jit_settings()


def _refresh() -> None:
    X32_POSSIBLE[0] = (not _GLOBAL_X64[0]) or _CONTEXTS_OFF[0] > 0
    _refresh_jit_settings()


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


#: ``log_compiles`` (``jax_log_compiles``) and ``explain_cache_misses``
#: (``jax_explain_cache_misses``), JAX's logging switches, process-wide:
#: ``jit`` logs at WARNING level, on the ``typedax`` logger, when it traces
#: a function ("Finished tracing f for jit in ... sec"), lowers it and
#: compiles it, as JAX's do; with ``explain_cache_misses``, each trace
#: after the first says why the traces it had did not fit ("TRACING CACHE
#: MISS at file:line (caller): ... different input types ..."). Read only
#: on the slow path (a trace, a compile): the fast path never looks.
_LOG_COMPILES: list[bool] = [False]
_EXPLAIN_MISSES: list[bool] = [False]
_LOGGING: Final[dict[str, list[bool]]] = {"log_compiles": _LOG_COMPILES, "explain_cache_misses": _EXPLAIN_MISSES}


def log_compiles_enabled() -> bool:
    return _LOG_COMPILES[0]


def explain_cache_misses_enabled() -> bool:
    return _EXPLAIN_MISSES[0]


@contextmanager
def _logging_switch(flag: list[bool], value: bool) -> Iterator[None]:
    saved = flag[0]
    flag[0] = value
    try:
        yield
    finally:
        flag[0] = saved


def log_compiles(value: bool = True) -> contextlib.AbstractContextManager[None]:
    """``jax.log_compiles``: ``with log_compiles():`` logs each trace, lowering
    and compile of a ``jit`` in the body (process-wide while it lasts)."""
    return _logging_switch(_LOG_COMPILES, value)


def explain_cache_misses(value: bool = True) -> contextlib.AbstractContextManager[None]:
    """``jax.explain_cache_misses``: ``with explain_cache_misses():`` explains
    each ``jit`` trace-cache miss in the body (process-wide while it lasts)."""
    return _logging_switch(_EXPLAIN_MISSES, value)


class Config:
    """``typedax.config``: ``update(name, value)``, ``context(**options)``,
    and the value in force as an attribute (``config.enable_x64`` or
    ``config.jax_enable_x64``)."""

    __slots__ = ()

    def update(self, name: str, value: bool | str | int | None) -> None:
        """Set an option for the whole process (contexts still override it).
        One of JAX's options typedax does not act on is accepted with a
        ``UserWarning`` that names it."""
        if name not in _NAMES and name in JAX_OPTIONS:
            warnings.warn(
                f"config.update({name!r}, {value!r}): typedax does not act on the JAX option {name}; ignored",
                UserWarning, stacklevel=2,
            )
            return
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
                _refresh_jit_settings()
            return
        if option == "platform_name":
            self._set_platform(name, value)
            return
        flag = _check_bool(name, value)
        if option == "check_static_indices":  # static-index bounds
            if flag != _CHECK_STATIC_INDICES[0]:
                _CHECK_STATIC_INDICES[0] = flag
                for hook in TRACE_SETTING_HOOKS:  # static-index bounds: retrace
                    hook()
            return
        if option in _LOGGING:  # compile logging
            _LOGGING[option][0] = flag
            return
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
        refresh_eager_device()

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
        if option == "check_static_indices":  # static-index bounds
            return _CHECK_STATIC_INDICES[0]
        if option in _LOGGING:  # compile logging
            return _LOGGING[option][0]
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
    def jax_check_static_indices(self) -> bool:  # static-index bounds
        return _CHECK_STATIC_INDICES[0]

    @property
    def jax_log_compiles(self) -> bool:  # compile logging
        return _LOG_COMPILES[0]

    @property
    def jax_explain_cache_misses(self) -> bool:  # compile logging
        return _EXPLAIN_MISSES[0]

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
