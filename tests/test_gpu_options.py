"""The CUDA client's options from JAX's memory settings
(``XLA_PYTHON_CLIENT_PREALLOCATE``, ``XLA_PYTHON_CLIENT_MEM_FRACTION``,
``XLA_PYTHON_CLIENT_ALLOCATOR``, ...), built by a pure function and checked
against jaxlib's own ``generate_pjrt_gpu_plugin_options`` (what JAX's CUDA
plugin package passes to its client); and the plugin-sharing decision
(``plugin_plan``) for every state a process can be in. Both run on the CPU."""

from __future__ import annotations

import os
from unittest import mock

import pytest
from jaxlib import xla_client

from typedax.lowering import jaxlib_api as jx

SETTINGS: list[dict[str, str]] = [
    {},
    {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    {"XLA_PYTHON_CLIENT_PREALLOCATE": "False"},
    {"XLA_PYTHON_CLIENT_PREALLOCATE": "0"},
    {"XLA_PYTHON_CLIENT_PREALLOCATE": "true"},
    {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".2"},
    {"XLA_CLIENT_MEM_FRACTION": "0.5"},
    {"XLA_PYTHON_CLIENT_ALLOCATOR": "platform"},
    {"XLA_PYTHON_CLIENT_ALLOCATOR": "BFC"},
    {"XLA_PYTHON_CLIENT_ALLOCATOR": "cuda_async", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    {"XLA_PYTHON_CLIENT_ALLOCATOR": "default", "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.9"},
    {"XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB": "64"},
]


def _jaxlibs(env: dict[str, str]) -> dict[str, object]:
    """jaxlib's options for ``env`` (it reads the process environment)."""
    clean = {k: v for k, v in os.environ.items() if k not in jx.GPU_MEMORY_VARIABLES}
    with mock.patch.dict(os.environ, {**clean, **env}, clear=True):
        return dict(xla_client.generate_pjrt_gpu_plugin_options())


@pytest.mark.parametrize("env", SETTINGS, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()) or "none")
def test_client_options_are_jaxlibs(env: dict[str, str]) -> None:
    want = _jaxlibs(env)
    # two options jaxlib adds that the plugin reads with the same defaults
    for extra in ("abort_collectives_on_failure", "use_tfrt_gpu_client"):
        want.pop(extra, None)
    assert jx.gpu_client_options(env) == want


def test_client_options_examples() -> None:
    assert jx.gpu_client_options({}) == {"platform_name": "cuda", "allocator": "default"}
    assert jx.gpu_client_options({"XLA_PYTHON_CLIENT_PREALLOCATE": "false"})["preallocate"] is False
    assert jx.gpu_client_options({"XLA_PYTHON_CLIENT_MEM_FRACTION": ".2"})["memory_fraction"] == 0.2
    assert jx.gpu_client_options({"JAX_CUDA_VISIBLE_DEVICES": "0,2"})["visible_devices"] == [0, 2]
    assert "visible_devices" not in jx.gpu_client_options({"JAX_CUDA_VISIBLE_DEVICES": "all"})


@pytest.mark.parametrize(("env", "message"), [
    ({"XLA_PYTHON_CLIENT_ALLOCATOR": "arena"}, r'XLA_PYTHON_CLIENT_ALLOCATOR env var must be .*"cuda_async".*got "arena"'),
    ({"XLA_PYTHON_CLIENT_MEM_FRACTION": "lots"}, r"XLA_PYTHON_CLIENT_MEM_FRACTION must be a number between 0 and 1, got 'lots'"),
    ({"XLA_PYTHON_CLIENT_MEM_FRACTION": "1.5"}, r"XLA_PYTHON_CLIENT_MEM_FRACTION must be a number between 0 and 1"),
    ({"XLA_CLIENT_MEM_FRACTION": "0"}, r"XLA_CLIENT_MEM_FRACTION must be a number between 0 and 1"),
    ({"XLA_CLIENT_MEM_FRACTION": ".5", "XLA_PYTHON_CLIENT_MEM_FRACTION": ".5"},
     r"XLA_CLIENT_MEM_FRACTION is specified together with XLA_PYTHON_CLIENT_MEM_FRACTION"),
    ({"XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB": "1G"}, r"XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB must be an integer"),
    ({"JAX_CUDA_VISIBLE_DEVICES": "gpu0"}, r"JAX_CUDA_VISIBLE_DEVICES must be 'all' or comma-separated"),
])
def test_bad_settings_name_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        jx.gpu_client_options(env)


def test_jaxlib_also_refuses_a_bad_allocator() -> None:
    with pytest.raises(ValueError, match="XLA_PYTHON_CLIENT_ALLOCATOR"):
        _jaxlibs({"XLA_PYTHON_CLIENT_ALLOCATOR": "arena"})


def test_plugin_plan_in_every_state() -> None:
    plan = jx.plugin_plan
    none: dict[str, bool] = {}
    # JAX made its client first: use it (one allocator in the process)
    assert plan(True, {"cuda": True}, {"cuda": True}).reuse_client
    # JAX registered the plugin as 'cuda' but made no client yet: use that name
    assert plan(False, {"cuda": True}, {"cuda": True}) == jx.PluginPlan(False, "cuda", False, False)
    assert plan(False, {"cuda": True}, {"cuda": False}) == jx.PluginPlan(False, "cuda", False, True)
    # typedax first: its own name, so that JAX can still register 'cuda' later
    assert plan(False, none, none) == jx.PluginPlan(False, "typedax_cuda", True, True)
    assert plan(False, {"typedax_cuda": True}, {"typedax_cuda": True}) == jx.PluginPlan(False, "typedax_cuda", False, False)
    # never the name JAX loads unconditionally
    for loaded in ({}, {"typedax_cuda": True}):
        assert not plan(False, loaded, loaded).load or plan(False, loaded, loaded).name != "cuda"


def test_no_jax_client_on_a_cpu_process() -> None:
    import typedax as tdx

    if tdx.default_backend() != "cpu":
        pytest.skip("the suite runs on a GPU (make test-gpu): JAX, the oracle, made its CUDA client here")
    assert jx.jax_cuda_client() is None


def test_devices_and_default_backend_as_jaxs() -> None:
    import jax
    import numpy as np

    import typedax as tdx
    from typedax.core.errors import ConcretizationError

    x, j = tdx.numpy.ones(3), jax.numpy.ones(3)
    # the platform typedax runs on (TYPEDAX_PLATFORM) is the one JAX picks by default
    assert tdx.default_backend() == jax.default_backend()
    assert {str(d) for d in x.devices()} == {str(d) for d in j.devices()}
    assert str(x.device) == str(j.device) and x.device == tdx.devices()[0]
    assert tdx.numpy.asarray(np.ones(2)).devices() == x.devices()  # a host array: the device it goes to

    def traced(y: tdx.Array) -> tdx.Array:
        with pytest.raises(ConcretizationError, match=r"devices\(\) of a traced value \(float64\[3\]\)"):
            y.devices()
        return y

    tdx.jit(traced)(x)
