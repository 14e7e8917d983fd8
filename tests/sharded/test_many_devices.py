"""typedax on 8 host CPU devices against JAX on the same 8 (run by
``tests/test_sharding.py`` in a process with ``XLA_FLAGS`` set)."""

from __future__ import annotations

import os

import pytest

if "--xla_force_host_platform_device_count=8" not in os.environ.get("XLA_FLAGS", ""):
    pytest.skip("needs 8 host devices: tests/test_sharding.py runs it so", allow_module_level=True)

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh as JMesh
from jax.sharding import NamedSharding as JNamed
from jax.sharding import PartitionSpec as _JP

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import ShardingError
from typedax.sharding import AxisType, Mesh, NamedSharding, P, SingleDeviceSharding

jax.config.update("jax_use_shardy_partitioner", False)  # type: ignore[no-untyped-call]  # jax's config is untyped; GSPMD's mhlo.sharding text, as typedax emits

def JP(*parts: object) -> _JP:
    return _JP(*parts)  # type: ignore[no-untyped-call]  # jax's PartitionSpec is untyped


SPECS = [P(), P("a"), P("a", "b"), P("b", "a"), P(None, "b"), P(("a", "b")), P(None, ("b", "a"))]
JSPECS = [JP(), JP("a"), JP("a", "b"), JP("b", "a"), JP(None, "b"), JP(("a", "b")), JP(None, ("b", "a"))]


def meshes() -> tuple[Mesh, JMesh]:
    return (Mesh(np.array(tdx.devices()).reshape(4, 2), ("a", "b")),
            JMesh(np.array(jax.devices()).reshape(4, 2), ("a", "b")))


def test_devices_as_jax() -> None:
    assert tdx.device_count() == jax.device_count() == 8
    assert [d.id for d in tdx.devices()] == [d.id for d in jax.devices()]
    assert tdx.local_device_count() == 8 and len(tdx.local_devices()) == 8 and tdx.process_index() == 0
    assert tdx.numpy.ones(3).devices() == {tdx.devices()[0]}  # unsharded arrays stay on the default device


def test_mesh_and_sharding_reprs_as_jax() -> None:
    mesh, jmesh = meshes()
    assert repr(mesh) == repr(jmesh) and str(mesh) == str(jmesh)
    for spec, jspec in zip(SPECS, JSPECS):
        assert repr(spec) == repr(jspec)
        assert repr(NamedSharding(mesh, spec)) == repr(JNamed(jmesh, jspec))
    assert NamedSharding(mesh, P("a")) == NamedSharding(mesh, P(("a",)))
    assert repr(SingleDeviceSharding(tdx.devices()[0])) == repr(jax.sharding.SingleDeviceSharding(jax.devices()[0]))
    line = Mesh(np.array(tdx.devices()), ("x",))
    assert str(line) == str(JMesh(np.array(jax.devices()), ("x",)))
    assert tdx.make_mesh((4, 2), ("a", "b"), (AxisType.Auto,) * 2) == mesh
    made, jmade = tdx.make_mesh((4, 2), ("a", "b")), jax.make_mesh((4, 2), ("a", "b"))  # Explicit axes by default
    assert repr(made) == repr(jmade) and made.axis_types == (AxisType.Explicit,) * 2
    assert repr(NamedSharding(made, P("a"))) == repr(JNamed(jmade, JP("a")))


@pytest.mark.parametrize("k", range(len(SPECS)))
def test_shards_as_jax(k: int) -> None:
    mesh, jmesh = meshes()
    x = np.arange(8 * 8 * 3, dtype=np.float32).reshape(8, 8, 3)
    a = tdx.device_put(x, NamedSharding(mesh, SPECS[k]))
    j = jax.device_put(x, JNamed(jmesh, JSPECS[k]))
    assert a.is_fully_replicated == j.is_fully_replicated
    for s, js in zip(a.addressable_shards, j.addressable_shards):
        assert s.device.id == js.device.id and s.index == js.index and s.replica_id == js.replica_id
        np.testing.assert_array_equal(np.asarray(s.data), np.asarray(js.data))
        assert s.data.shape == js.data.shape
    a2 = tdx.device_put(x, NamedSharding(mesh, SPECS[k]))
    a2._host = None  # the value comes back from the devices
    np.testing.assert_array_equal(np.asarray(a2), x)
    assert repr(a2) == repr(j) and str(a2) == str(j)
    np.testing.assert_allclose(np.asarray(tnp.sin(a2) + 1), np.sin(x) + 1, rtol=1e-6)  # eager: gathered


def test_one_dimensional_mesh_shards() -> None:
    mesh = tdx.make_mesh((8,), ("x",))
    jmesh = JMesh(np.array(jax.devices()), ("x",))
    x = np.arange(16.0)
    a, j = tdx.device_put(x, NamedSharding(mesh, P("x"))), jax.device_put(x, JNamed(jmesh, JP("x")))
    assert [s.index for s in a.addressable_shards] == [s.index for s in j.addressable_shards]


def test_jit_with_shardings_equals_numpy_and_lowering_as_jax() -> None:
    mesh, jmesh = meshes()
    ins, outs = (P("a", None), P(None, "b")), P("b")

    def f(x, y):  # type: ignore[no-untyped-def]  # run by both libraries: their arrays have no common type
        return (x * 2 @ y).sum(0)

    tf = tdx.jit(f, in_shardings=tuple(NamedSharding(mesh, s) for s in ins), out_shardings=NamedSharding(mesh, outs))
    jf = jax.jit(f, in_shardings=tuple(JNamed(jmesh, JP(*s)) for s in ins), out_shardings=JNamed(jmesh, JP(*outs)))
    x = np.arange(16, dtype=np.float32).reshape(8, 2)
    y = np.ones((2, 4), np.float32)
    r = tf(x, y)
    np.testing.assert_allclose(np.asarray(r), (x * 2 @ y).sum(0))
    assert r.sharding == NamedSharding(mesh, P("b"))
    text, jtext = tf.lower(x, y).as_text(), jf.lower(x, y).as_text()
    header = [ln for ln in text.splitlines() if "func.func public @main" in ln][0]
    jheader = [ln for ln in jtext.splitlines() if "func.func public @main" in ln][0]
    assert header == jheader.replace(', jax.result_info = "result"', "").replace('{jax.result_info = "result", ', "{")
    assert "mhlo.num_partitions = 8 : i32" in text


def test_committed_sharding_propagates() -> None:
    mesh, _ = meshes()
    s = NamedSharding(mesh, P("a", None))
    x = tdx.device_put(np.arange(16.0).reshape(8, 2), s)
    r = tdx.jit(lambda v: tnp.sin(v) * 2)(x)
    assert r.sharding == s
    np.testing.assert_allclose(np.asarray(r), np.sin(np.arange(16.0).reshape(8, 2)) * 2)


def test_with_sharding_constraint_changes_the_output_sharding() -> None:
    mesh, jmesh = meshes()
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    f = tdx.jit(lambda v: lax.with_sharding_constraint(v * 2, NamedSharding(mesh, P("b", "a"))))
    r = f(x)
    assert r.sharding == NamedSharding(mesh, P("b", "a"))
    np.testing.assert_array_equal(np.asarray(r), x * 2)
    text = f.lower(x).as_text()
    jc = jax.lax.with_sharding_constraint
    jtext = jax.jit(lambda v: jc(v * 2, JNamed(jmesh, JP("b", "a")))).lower(x).as_text()  # type: ignore[no-untyped-call]  # untyped in jax
    call = [ln.strip().split("=", 1)[1] for ln in text.splitlines() if "@Sharding" in ln]
    jcall = [ln.strip().split("=", 1)[1] for ln in jtext.splitlines() if "@Sharding" in ln]
    assert call == jcall
    # eagerly it is device_put; under grad and vmap the identity
    assert lax.with_sharding_constraint(tnp.asarray(x), NamedSharding(mesh, P("a"))).sharding == NamedSharding(mesh, P("a"))
    g = tdx.jit(tdx.grad(lambda v: (lax.with_sharding_constraint(v, NamedSharding(mesh, P("a"))) ** 2).sum()))(x)
    np.testing.assert_allclose(np.asarray(g), 2 * x)
    v = tdx.jit(tdx.vmap(lambda r: lax.with_sharding_constraint(r * 3, NamedSharding(mesh, P("b")))))(x)
    np.testing.assert_allclose(np.asarray(v), 3 * x)


def _mlp_loss(params, x, y):  # type: ignore[no-untyped-def]  # as f above: both libraries' arrays
    w1, b1, w2 = params
    h = tnp.tanh(x @ w1 + b1)
    return tnp.mean((h @ w2 - y) ** 2)


def _step(params, x, y):  # type: ignore[no-untyped-def]  # as f above: both libraries' arrays
    grads = tdx.grad(_mlp_loss)(params, x, y)
    return tuple(p - 0.1 * g for p, g in zip(params, grads))


def test_data_parallel_mlp_step() -> None:
    mesh = tdx.make_mesh((8,), ("data",))
    rng = np.random.default_rng(0)
    params = (rng.normal(size=(4, 16)).astype(np.float32), np.zeros(16, np.float32),
              rng.normal(size=(16, 1)).astype(np.float32))
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = rng.normal(size=(64, 1)).astype(np.float32)
    rep, data = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    sharded = tdx.jit(_step, in_shardings=(rep, data, data), out_shardings=rep)
    plain = tdx.jit(_step)
    assert "all-reduce" in sharded.lower(params, x, y).compile().as_text()
    p1: object = params
    p2: object = params
    for _ in range(5):
        p1 = sharded(p1, x, y)
        p2 = plain(p2, x, y)
    for a, b in zip(p1, p2):  # type: ignore[call-overload]  # p1, p2: the step's parameter lists, typed object
        assert a.sharding == rep
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_errors() -> None:
    mesh, _ = meshes()
    with pytest.raises(ShardingError, match="Resource axis: c of P\\('c',\\) is not found in mesh"):
        NamedSharding(mesh, P("c"))
    with pytest.raises(ShardingError, match="duplicate entries for `a`"):
        NamedSharding(mesh, P("a", "a"))
    with pytest.raises(ShardingError, match="device_put.*divisible by 4, but it is equal to 6"):
        tdx.device_put(np.ones((6, 2)), NamedSharding(mesh, P("a")))
    with pytest.raises(ShardingError, match="only valid for values of rank at least 3"):
        tdx.device_put(np.ones((8, 2)), NamedSharding(mesh, P("a", None, None)))
    with pytest.raises(ShardingError, match="jit of .*<lambda>., argument 0.*divisible by 4"):
        tdx.jit(lambda v: v, in_shardings=NamedSharding(mesh, P("a")))(np.ones(6))
    other = Mesh(np.array(tdx.devices()[::-1]).reshape(4, 2), ("a", "b"))
    with pytest.raises(ShardingError, match="incompatible devices"):
        tdx.jit(lambda u, v: u + v, in_shardings=(NamedSharding(mesh, P("a")), NamedSharding(other, P("a"))))(
            np.ones(8), np.ones(8))
    with pytest.raises(ShardingError, match="Number of devices 8 must be >= the product of mesh_shape \\(4, 4\\)"):
        tdx.make_mesh((4, 4), ("a", "b"))
    with pytest.raises(ShardingError, match="ndim of its first argument"):
        Mesh(np.array(tdx.devices()), ("a", "b"))
    with pytest.raises(ShardingError, match="pytree prefix"):
        tdx.jit(lambda u: u, in_shardings=(NamedSharding(mesh, P()), NamedSharding(mesh, P())))(np.ones(8))
