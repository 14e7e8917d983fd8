"""``config.cpu_enable_async_dispatch`` (JAX's ``jax_cpu_enable_async_dispatch``):
how the CPU backend runs a compiled program. typedax runs it inline by
default (the call returns with the result ready); ``True`` gives JAX's
worker-thread dispatch. The setting is read when the backend starts, so the
checks of each mode run in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import typedax as tdx
from typedax.core.errors import PlatformError

#: a jitted program long enough (~0.1 s) that a worker thread cannot have
#: finished it when the call returns; its result checked against NumPy
_PROGRAM = """
import numpy as np
import typedax as tdx
import typedax.numpy as tnp
{setup}
a = np.random.default_rng(0).standard_normal((1200, 1200)) / 40.0
f = tdx.jit(lambda a: tnp.tanh(a @ a @ a @ a @ a))
f(a[:4, :4]).block_until_ready()
x = tdx.device_put(a)
out = f(x)
ready = out._dev.is_ready()
want = np.tanh(a @ a @ a @ a @ a)
assert np.allclose(np.asarray(out), want, rtol=1e-9, atol=1e-12), "wrong result"
print(tdx.config.cpu_enable_async_dispatch, ready)
"""


def _run(setup: str) -> str:
    env = dict(os.environ, TYPEDAX_PLATFORM="cpu")
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_PROGRAM.format(setup=setup))],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_inline_by_default_result_ready_when_the_call_returns() -> None:
    assert _run("") == "False True"


def test_async_dispatch_returns_before_the_result_is_ready() -> None:
    # JAX's mode: the call returns while a worker thread computes
    assert _run('tdx.config.update("jax_cpu_enable_async_dispatch", True)') == "True False"


def test_update_after_the_backend_started() -> None:
    tdx.device_put(1.0)  # the backend is running in this process
    current = tdx.config.read("cpu_enable_async_dispatch")
    assert tdx.config.jax_cpu_enable_async_dispatch is current
    tdx.config.update("cpu_enable_async_dispatch", current)  # unchanged: allowed
    with pytest.raises(PlatformError, match="already running.*before the first computation"):
        tdx.config.update("jax_cpu_enable_async_dispatch", not current)
    assert tdx.config.read("jax_cpu_enable_async_dispatch") is current  # nothing changed


def test_bad_values_and_names() -> None:
    with pytest.raises(TypeError, match="takes a bool"):
        tdx.config.update("jax_cpu_enable_async_dispatch", 1)  # the error under test (an int: a bool option refuses it)
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        tdx.config.update("jax_cpu_enable_async", True)
    assert "cpu_enable_async_dispatch=" in repr(tdx.config)
