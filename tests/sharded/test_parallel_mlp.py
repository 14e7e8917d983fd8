"""Data- and tensor-parallel MLPs on 8 host CPU devices (issue 25's
acceptance), run by ``tests/test_sharding.py`` in a process with
``XLA_FLAGS`` set: the demo's 20 sharded steps equal 20 unsharded ones; a
2-way tensor-parallel MLP on a (4, 2) mesh equals the single-device result,
forward and gradient; shardings on devices the mesh lacks are refused."""

from __future__ import annotations

import os

import pytest

if "--xla_force_host_platform_device_count=8" not in os.environ.get("XLA_FLAGS", ""):
    pytest.skip("needs 8 host devices: tests/test_sharding.py runs it so", allow_module_level=True)

import jax
import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import Array, lax
from typedax.core.errors import ShardingError
from typedax.sharding import AxisType, Mesh, NamedSharding, P, SingleDeviceSharding

Params = tuple[Array, Array, Array, Array]
AUTO = (AxisType.Auto,)


def test_the_demo_20_data_parallel_steps_equal_20_single_device_steps(capsys: pytest.CaptureFixture[str]) -> None:
    from examples import data_parallel

    data_parallel.train_and_compare()  # raises SystemExit unless they match (rtol 1e-5) and it has an all-reduce
    out = capsys.readouterr().out
    assert "all-reduce" in out and "(rtol 1e-5, atol 1e-6): True" in out
    assert "parameters live on devices [0, 1, 2, 3, 4, 5, 6, 7]" in out


def _mlp(params: Params, x: Array) -> Array:
    w1, b1, w2, b2 = params
    return tnp.tanh(x @ w1 + b1) @ w2 + b2


def _loss(params: Params, x: Array, y: Array) -> Array:
    return tnp.mean((_mlp(params, x) - y) ** 2)


def test_tensor_parallel_mlp_equals_one_device() -> None:
    """Megatron's split: the first layer's columns and the second's rows on
    'model' (the hidden units), the batch on 'data'; XLA sums the second
    matmul's partial products over 'model' (Auto axes: on Explicit ones the
    second matmul's contraction over 'model' is ambiguous, as in JAX)."""
    mesh = tdx.make_mesh((4, 2), ("data", "model"), AUTO * 2)
    assert mesh.shape == {"data": 4, "model": 2}

    def ns(*spec: str | None) -> NamedSharding:
        return NamedSharding(mesh, P(*spec))

    rng = np.random.default_rng(0)
    w1, b1 = rng.normal(size=(6, 10)).astype(np.float32), rng.normal(size=10).astype(np.float32)
    w2, b2 = rng.normal(size=(10, 3)).astype(np.float32), rng.normal(size=3).astype(np.float32)
    x, y = rng.normal(size=(8, 6)).astype(np.float32), rng.normal(size=(8, 3)).astype(np.float32)
    p_shard = (ns(None, "model"), ns("model"), ns("model", None), ns())
    params = tuple(tdx.device_put(a, s) for a, s in zip((w1, b1, w2, b2), p_shard))
    assert [s.data.shape for s in params[0].addressable_shards] == [(6, 5)] * 8
    assert [s.data.shape for s in params[2].addressable_shards] == [(5, 3)] * 8
    xs, ys = tdx.device_put(x, ns("data", None)), tdx.device_put(y, ns("data", None))

    forward = tdx.jit(_mlp, in_shardings=(p_shard, ns("data", None)), out_shardings=ns("data", None))
    out = forward(params, xs)  # type: ignore[arg-type]  # params: a tuple of 4 arrays, typed tuple[Array, ...]
    assert out.sharding == ns("data", None)
    want = np.tanh(x @ w1 + b1) @ w2 + b2
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-6)
    single = (w1, b1, w2, b2)
    np.testing.assert_allclose(np.asarray(out), np.asarray(tdx.jit(_mlp)(single, x)), rtol=1e-5, atol=1e-6)  # type: ignore[arg-type]  # NumPy parameters
    assert "all-reduce" in forward.lower(params, xs).compile().as_text()  # type: ignore[arg-type]  # as above

    step = tdx.jit(tdx.value_and_grad(_loss), in_shardings=(p_shard, ns("data", None), ns("data", None)),
                   out_shardings=(ns(), p_shard))
    value, grads = step(params, xs, ys)  # type: ignore[arg-type]  # as above
    value1, grads1 = tdx.jit(tdx.value_and_grad(_loss))(single, x, y)  # type: ignore[arg-type]  # as above
    np.testing.assert_allclose(float(value), float(value1), rtol=1e-5)
    for g, g1, s in zip(grads, grads1, p_shard):
        assert g.sharding == s
        np.testing.assert_allclose(np.asarray(g), np.asarray(g1), rtol=1e-5, atol=1e-6)
    # the gradient against finite differences of the NumPy loss, for one weight
    def np_loss(a: np.ndarray) -> float:
        return float(np.mean((np.tanh(x @ a + b1) @ w2 + b2 - y) ** 2, dtype=np.float64))

    e = np.zeros_like(w1)
    e[2, 7] = 1e-2
    fd = (np_loss(w1.astype(np.float64) + e) - np_loss(w1.astype(np.float64) - e)) / 2e-2
    np.testing.assert_allclose(float(np.asarray(grads[0])[2, 7]), fd, rtol=1e-3, atol=1e-5)


def test_shardings_on_devices_the_mesh_lacks() -> None:
    full = tdx.make_mesh((8,), ("a",), AUTO)
    half = Mesh(np.array(tdx.devices()[:4]), ("a",))
    x = tdx.device_put(np.ones(8, np.float32), NamedSharding(full, P("a")))
    # a constraint, or the output, on four devices of eight the argument is on
    with pytest.raises(ShardingError, match="incompatible devices.*\\[0, 1, 2, 3, 4, 5, 6, 7\\] and \\[0, 1, 2, 3\\]"):
        tdx.jit(lambda v: lax.with_sharding_constraint(v * 2, NamedSharding(half, P("a"))))(x)
    with pytest.raises(ShardingError, match="incompatible devices"):
        tdx.jit(lambda v: v * 2, out_shardings=NamedSharding(half, P("a")))(x)
    # a mesh of devices typedax does not have (JAX's own)
    foreign = Mesh(np.array(jax.devices()), ("a",))
    with pytest.raises(ShardingError, match="names devices typedax does not have"):
        tdx.device_put(np.ones(8), NamedSharding(foreign, P("a")))
    # a dimension its mesh axes do not divide, two axes on one dimension
    grid = tdx.make_mesh((4, 2), ("data", "model"))
    with pytest.raises(ShardingError, match="divisible by 8, but it is equal to 4"):
        tdx.device_put(np.ones((4, 2)), NamedSharding(grid, P(("data", "model"))))
    with pytest.raises(ShardingError, match="Resource axis: batch of P\\('batch', None\\) is not found"):
        NamedSharding(grid, P("batch", None))


def test_a_sharded_call_compiles_once_until_the_cache_is_cleared() -> None:
    from typedax.lowering import cache_stats, clear_cache

    mesh = tdx.make_mesh((8,), ("a",))
    f = tdx.jit(lambda v: v * 3, in_shardings=NamedSharding(mesh, P("a")))
    x = np.arange(8, dtype=np.float32)
    f(x)
    before = cache_stats().compiles
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f(x)), 3 * x)
    assert cache_stats().compiles == before
    clear_cache()
    np.testing.assert_array_equal(np.asarray(f(x)), 3 * x)
    assert cache_stats().compiles == 1
    other = tdx.jit(lambda v: v * 3, in_shardings=NamedSharding(mesh, P()))  # another plan: another program
    np.testing.assert_array_equal(np.asarray(other(x)), 3 * x)
    assert cache_stats().compiles == 2


def test_a_committed_argument_must_match_its_in_sharding_as_in_jax() -> None:
    """jit does not move a committed array: one laid out otherwise than its
    ``in_shardings`` entry says (other devices, or other pieces on them) is
    refused with JAX's error; an equivalent layout is accepted."""
    from jax.sharding import NamedSharding as JNamed
    from jax.sharding import PartitionSpec as JP

    def double(v: Array) -> Array:
        return v * 2

    mesh8 = tdx.make_mesh((8,), ("a",), AUTO)  # (JAX's Mesh below: Auto)
    mesh4 = Mesh(np.array(tdx.devices()[:4]), ("a",))
    jmesh8 = jax.sharding.Mesh(np.array(jax.devices()), ("a",))
    jmesh4 = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("a",))
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    cases: list[tuple[NamedSharding | SingleDeviceSharding, NamedSharding, object, object]] = [
        # (committed to, jit's in_sharding, the same in JAX)
        (SingleDeviceSharding(tdx.devices()[7]), NamedSharding(mesh4, P("a")), jax.devices()[7], JNamed(jmesh4, JP("a"))),  # type: ignore[no-untyped-call]  # jax's PartitionSpec is untyped
        (NamedSharding(mesh8, P("a")), NamedSharding(mesh4, P("a")), JNamed(jmesh8, JP("a")), JNamed(jmesh4, JP("a"))),  # type: ignore[no-untyped-call]  # as above
        (NamedSharding(mesh8, P("a")), NamedSharding(mesh8, P(None, "a")), JNamed(jmesh8, JP("a")), JNamed(jmesh8, JP(None, "a"))),  # type: ignore[no-untyped-call]  # as above
    ]
    for put, s, jput, js in cases:
        with pytest.raises(ValueError, match="Sharding passed to jit does not match"):
            jax.jit(lambda v: v * 2, in_shardings=js)(jax.device_put(x, jput))
        with pytest.raises(ShardingError, match="(?s)Sharding passed to jit does not match the sharding on the "
                                                "respective arg. Got jit sharding: NamedSharding.*arg sharding: .*float32\\[8,8\\]"):
            tdx.jit(double, in_shardings=s)(tdx.device_put(x, put))
    # equivalent layouts: P('a') and P('a', None); one device and a one-device mesh of it
    r = tdx.jit(double, in_shardings=NamedSharding(mesh8, P("a", None)))(tdx.device_put(x, NamedSharding(mesh8, P("a"))))
    np.testing.assert_array_equal(np.asarray(r), 2 * x)
    one = Mesh(np.array(tdx.devices()[7:]), ("a",))
    r = tdx.jit(double, in_shardings=NamedSharding(one, P()))(tdx.device_put(x, tdx.devices()[7]))
    assert r.sharding.device_set == {tdx.devices()[7]}
    np.testing.assert_array_equal(np.asarray(r), 2 * x)
