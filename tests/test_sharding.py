"""Many devices (issue 25). The 8-device tests (``tests/sharded/``) run in a
process of their own, since ``XLA_FLAGS`` must be set before the CPU client
is made and this process already has a one-device client; what needs no
second device is checked here."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pyrsistent import pmap

import typedax as tdx
from typedax import lax
from typedax.core.errors import PlatformError, ShardingError
from typedax.core.ir import Param
from typedax.lowering import jaxlib_api as jx
from typedax.primitives.sharding_constraint import hlo_sharding_text, tiling
from typedax.sharding import AxisType, Mesh, NamedSharding, P, SingleDeviceSharding

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.first
def test_eight_devices_in_their_own_process() -> None:
    # host devices: the CPU platform, also where the suite itself runs on a GPU (make test-gpu)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", HYPOTHESIS_PROFILE="ci",
               TYPEDAX_PLATFORM="cpu", JAX_PLATFORMS="cpu")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/sharded"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "[100%]" in done.stdout  # (exit code 5 had nothing been collected)


def test_one_device_by_default() -> None:
    assert tdx.device_count() == 1 and tdx.devices() == tdx.local_devices()
    x = tdx.numpy.ones(3)
    assert x.sharding == SingleDeviceSharding(tdx.devices()[0]) and x.is_fully_replicated
    (shard,) = x.addressable_shards
    assert shard.index == (slice(None),) and shard.device == tdx.devices()[0]


def test_num_cpu_devices_is_fixed_once_the_backend_runs() -> None:
    tdx.numpy.ones(1).block_until_ready()
    tdx.devices()
    with pytest.raises(PlatformError, match="must be set before the backend starts"):
        tdx.config.update("jax_num_cpu_devices", 4)
    with pytest.raises(TypeError, match="takes an int"):
        tdx.config.update("jax_num_cpu_devices", "4")
    assert tdx.config.read("jax_num_cpu_devices") == -1


def test_mhlo_sharding_text_is_jaxlibs() -> None:
    """The constraint's lowering writes XLA's iota text without jaxlib (its
    layer cannot reach it): the same text as ``str(HloSharding)``."""
    rnd = random.Random(0)
    for _ in range(500):
        names = tuple("abcd"[: rnd.randint(1, 4)])
        sizes = tuple(rnd.choice([1, 2, 2, 3]) for _ in names)
        spec: list[list[str]] = [[] for _ in range(rnd.randint(1, 3))]
        for n in rnd.sample(names, len(names)):
            d = rnd.randint(-1, len(spec) - 1)
            if d >= 0:
                spec[d].append(n)
        items: dict[str, Param] = {"mesh_axes": names, "mesh_shape": sizes, "mesh_devices": (0,),
                                   "spec": tuple(tuple(p) for p in spec)}
        params = pmap(items)
        t = tiling(params)
        assert hlo_sharding_text(params) == ("{replicated}" if t is None else str(jx.iota_sharding(*t)))


def test_one_device_mesh_and_constraint_rules() -> None:
    assert repr(tdx.make_mesh((1,), ("x",))) == "Mesh(axis_sizes=(1,), axis_names=('x',), axis_types=(Explicit,))"
    mesh = tdx.make_mesh((1,), ("x",), (AxisType.Auto,))  # a constraint names Auto axes
    s = NamedSharding(mesh, P("x"))
    assert repr(mesh) == "Mesh(axis_sizes=(1,), axis_names=('x',), axis_types=(Auto,))"
    x = np.arange(4.0)
    y = tdx.device_put(x, s)
    assert y.sharding == s and np.array_equal(np.asarray(y), x)

    def f(v: tdx.ArrayLike) -> tdx.Array:
        return lax.with_sharding_constraint(tdx.numpy.asarray(v) * 2.0, s)

    jaxpr = tdx.make_jaxpr(f)(x)
    assert "sharding_constraint" in str(jaxpr)
    assert tdx.parse_jaxpr(str(jaxpr.jaxpr)) == jaxpr.jaxpr
    assert np.array_equal(np.asarray(tdx.jit(f)(x)), 2 * x)
    assert np.array_equal(np.asarray(tdx.grad(lambda v: f(v).sum())(x)), np.full(4, 2.0))
    assert np.array_equal(np.asarray(tdx.vmap(f)(np.ones((3, 4)))), np.full((3, 4), 2.0))
    tangent = tdx.jvp(f, (x,), (np.ones(4),))[1]
    assert np.array_equal(np.asarray(tangent), np.full(4, 2.0))


def test_errors_without_a_second_device() -> None:
    mesh = tdx.make_mesh((1,), ("x",))
    with pytest.raises(ShardingError, match="Resource axis: y of P\\('y',\\) is not found"):
        NamedSharding(mesh, P("y"))
    with pytest.raises(ShardingError, match="Number of devices 1 must be >= the product of mesh_shape \\(2,\\)"):
        tdx.make_mesh((2,), ("x",))
    with pytest.raises(ShardingError, match="PartitionSpec entries"):
        P(3)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(ShardingError, match="ndim of its first argument"):
        Mesh(np.array(tdx.devices()), ("a", "b"))
    with pytest.raises(ShardingError, match="expected a NamedSharding"):
        lax.with_sharding_constraint(np.ones(2), SingleDeviceSharding(tdx.devices()[0]))
    with pytest.raises(ShardingError, match="rank at least 2"):
        tdx.device_put(np.ones(3), NamedSharding(mesh, P("x", None)))
