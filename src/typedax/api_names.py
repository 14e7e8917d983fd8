"""Small top-level names of ``jax`` (issue 29 item 7): ``named_call``,
``named_scope``, ``ensure_compile_time_eval``, ``clear_caches`` and
``live_arrays``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from .core.array import Array
from .core.avals import ShapedArray
from .core.config import PLATFORM_ALIASES
from .core.dtypes import SUPPORTED
from .core.result_types import clear_result_types
from .interpreters.compile_time_eval import compile_time_eval
from .jitting import primitive as _jit_primitive
from .jitting.api import clear_jit_caches
from .jitting.shard_map import _program as _shard_map_program
from .lowering import runtime
from .lowering.array import from_buffer
from .lowering.cache import clear_cache
from .core.array import aval_key

P = ParamSpec("P")
R = TypeVar("R")


def named_call(fun: Callable[P, R], *, name: str | None = None) -> Callable[P, R]:
    """``jax.named_call``: ``fun``, whose computation JAX names ``name`` (by
    default ``fun``'s name) in the HLO's debug locations. typedax writes no
    name stack into its programs, so the result computes and traces exactly
    as ``fun`` (JAX's jaxpr has no extra equation either); only its
    ``__name__`` is ``name``."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"named_call name argument must be a string, got {name!r}")

    @functools.wraps(fun)
    def named(*args: P.args, **kwargs: P.kwargs) -> R:
        return fun(*args, **kwargs)

    if name is not None:
        named.__name__ = named.__qualname__ = name
    return named


@contextmanager
def named_scope(name: str) -> Iterator[None]:
    """``jax.named_scope``: a context manager under which JAX prefixes the
    names of the operations it stages (seen in the HLO's debug locations and
    profiles). typedax keeps no name stack, so this is a no-op beyond checking
    ``name`` (JAX's ``TypeError`` for a non-string)."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    yield


@contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """``jax.ensure_compile_time_eval``: inside it, an operation whose
    operands are all concrete is evaluated at once, even under ``jit``,
    ``vmap`` or ``grad``, so its result is a concrete array (usable in Python
    control flow); an operation on a traced value is traced as usual."""
    with compile_time_eval():
        yield


def clear_caches() -> None:
    """``jax.clear_caches``: drop every compiled program and every ``jit``'s
    traces, so the next call of a jitted function traces and compiles again."""
    clear_cache()
    clear_jit_caches()
    clear_result_types()  # tracing's remembered result types (issue 30 item 3)
    for cached in (_jit_primitive._jvp_jaxpr_nonzero, _jit_primitive._vmap_jaxpr_cached,
                   _jit_primitive._partial_eval_cached, _jit_primitive._transpose_cached,
                   _shard_map_program):
        cached.cache_clear()


def live_arrays(platform: str | None = None) -> list[Array]:
    """``jax.live_arrays``: the arrays alive on the backend's devices. typedax
    keeps an eager result on the host until a program needs it on the device,
    so these are the arrays with a device buffer (``device_put``, ``jit``
    results, ...); each is given as a new ``Array`` over the same buffer."""
    backend = runtime.backend()
    if platform is not None and PLATFORM_ALIASES.get(platform, platform) != backend.platform:
        raise RuntimeError(
            f"live_arrays: platform {platform!r} is not typedax's backend ({backend.platform})"
        )
    out: list[Array] = []
    for buf in backend.client.live_arrays():
        dtype = buf.aval.dtype  # the type typedax gave it (runtime._PutType)
        if dtype not in SUPPORTED:  # typed keys' words and the like: not a typedax dtype
            continue
        aval = ShapedArray(tuple(buf.aval.shape), dtype)
        out.append(from_buffer(buf, aval, aval_key(aval)))
    return out
