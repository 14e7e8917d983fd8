"""JAX's logging switches, honoured (issue 29 item 6): ``jax_log_compiles``
logs each trace, lowering and compile of a ``jit`` at WARNING level, and
``jax_explain_cache_misses`` says why a trace missed the cache, in JAX's
words (the first lines compared with JAX's own log of the same program)."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def clear(self) -> None:
        self.records = []


@pytest.fixture
def logged() -> Iterator[_Records]:
    """What the typedax and jax loggers log at WARNING (JAX's logger may not
    propagate to the root, so the handler sits on both)."""
    handler = _Records()
    loggers = [logging.getLogger("typedax"), logging.getLogger("jax")]
    for lg in loggers:
        lg.addHandler(handler)
    try:
        yield handler
    finally:
        for lg in loggers:
            lg.removeHandler(handler)


def _messages(handler: _Records, logger: str) -> list[str]:
    return [r.getMessage() for r in handler.records if r.name.split(".")[0] == logger]


def test_log_compiles_logs_trace_lowering_and_compile_as_jax(logged: _Records) -> None:
    def step(x: Any) -> Any:
        return x * 2 + 1

    jstep = jax.jit(lambda x: jnp.sin(x) + 1)
    with jax.log_compiles():
        jstep(np.ones(3, np.float32))
    with tdx.log_compiles():
        f = tdx.jit(step)
        f(np.ones(3, np.float32))
        f(np.ones(3, np.float32))  # cached: nothing more
    ours, theirs = _messages(logged, "typedax"), _messages(logged, "jax")
    for prefix in ("Finished tracing", "Compiling jit(", "Finished jaxpr to MLIR module conversion",
                   "Finished XLA compilation"):
        assert any(m.startswith(prefix) for m in theirs), (prefix, theirs)
        assert sum(m.startswith(prefix) for m in ours) == 1, (prefix, ours)
    assert "Finished tracing step for jit in " in ours[0]
    assert any(m.startswith("Compiling jit(step) with global shapes and types (ShapedArray(float32[3]),)")
               for m in ours), ours
    logged.clear()
    tdx.jit(step)(np.ones(2, np.float32))  # switched off again
    assert _messages(logged, "typedax") == []


def test_config_update_names_and_reads_them() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # honoured now: no 'typedax does not act on' warning
        tdx.config.update("jax_log_compiles", True)
        tdx.config.update("jax_explain_cache_misses", True)
    try:
        assert tdx.config.jax_log_compiles and tdx.config.read("jax_explain_cache_misses") is True
    finally:
        tdx.config.update("jax_log_compiles", False)
        tdx.config.update("jax_explain_cache_misses", False)
    assert tdx.config.read("jax_log_compiles") is False
    with pytest.raises(TypeError):
        tdx.config.update("jax_log_compiles", "yes")


def test_explain_cache_misses_as_jax(logged: _Records) -> None:
    def g(x: Any) -> Any:
        return tnp.sin(x)

    def jg(x: Any) -> Any:  # the same parameter name: JAX's message names it
        return jnp.sin(x)

    with jax.explain_cache_misses():
        jf = jax.jit(jg)
        jf(np.ones(3, np.float32))
        jf(np.ones(4, np.float32))
    with tdx.explain_cache_misses():
        f = tdx.jit(g)
        f(np.ones(3, np.float32))
        f(np.ones(3, np.float32))
        f(np.ones(4, np.float32))
    ours = [m for m in _messages(logged, "typedax") if "TRACING CACHE MISS" in m]
    theirs = [m for m in _messages(logged, "jax") if "TRACING CACHE MISS" in m]
    assert len(ours) == 2 and len(theirs) >= 2
    # the first: never seen; the second: different input types, naming both
    for got, want in zip(ours, theirs[-2:]):
        assert got.splitlines()[0].startswith("TRACING CACHE MISS at ") and __file__ in got.splitlines()[0]
        assert want.splitlines()[0].startswith("TRACING CACHE MISS at ")
    never, jnever = ours[0].splitlines(), theirs[-2].splitlines()
    assert never[1] == jnever[1] == "  never seen function:"
    assert never[2].startswith("    g id=") and jnever[2].startswith("    jg id=")
    assert never[2].endswith(f"defined at {__file__}:{g.__code__.co_firstlineno}")
    again, jagain = ours[1].splitlines(), theirs[-1].splitlines()
    assert again[1].startswith("  for g defined at ") and jagain[1].startswith("  for jg defined at ")
    assert again[2] == jagain[2]  # "all previously seen cache keys differ. ..."
    assert ours[1].splitlines()[-2:] == theirs[-1].splitlines()[-2:]  # "different input types:", "* at x, now f32[4] ..."


# -- JAX's other config context managers and host names, on the top level -----------
def test_enable_x64_debug_nans_and_host_names_as_jax() -> None:
    with tdx.enable_x64(False):
        assert tnp.asarray(1.5).dtype == np.float32
    with jax.enable_x64(False):
        assert jnp.asarray(1.5).dtype == np.float32
    with tdx.enable_x64(True):
        assert tnp.asarray(1.5).dtype == np.float64
    with tdx.debug_nans(True):
        with pytest.raises(FloatingPointError):
            tdx.jit(lambda x: tnp.log(x))(np.float32(-1.0))
    assert np.isnan(tdx.jit(lambda x: tnp.log(x))(np.float32(-2.0)))  # off again
    with tdx.debug_infs(True):
        with pytest.raises(FloatingPointError):
            tdx.jit(lambda x: tnp.log(x))(np.float32(0.0))
    assert (tdx.host_count(), tdx.host_id(), tdx.host_ids(), tdx.process_indices()) == (
        jax.process_count(), jax.process_index(), list(range(jax.process_count())), jax.process_indices())
