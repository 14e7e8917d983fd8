"""``shard_map`` and the collectives on 8 host devices, against NumPy and
JAX on the same 8 (run by ``tests/test_sharding.py`` in a process with
``XLA_FLAGS`` set)."""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

if "--xla_force_host_platform_device_count=8" not in os.environ.get("XLA_FLAGS", ""):
    pytest.skip("needs 8 host devices: tests/test_sharding.py runs it so", allow_module_level=True)

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as _JP

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import AxisNameError, BatchingError, ShardingError
from typedax.sharding import NamedSharding, P

jax.config.update("jax_use_shardy_partitioner", False)  # type: ignore[no-untyped-call]  # jax's config is untyped


def JP(*parts: object) -> _JP:
    return _JP(*parts)  # type: ignore[no-untyped-call]  # jax's PartitionSpec is untyped


LINE = tdx.make_mesh((8,), ("i",), axis_types=(tdx.sharding.AxisType.Auto,))  # Auto: JAX's meshes below
GRID = tdx.make_mesh((4, 2), ("a", "b"), axis_types=(tdx.sharding.AxisType.Auto,) * 2)
JLINE = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))
JGRID = jax.make_mesh((4, 2), ("a", "b"), axis_types=(AxisType.Auto,) * 2)

# float32: JAX in this process runs without x64
X8 = (np.arange(32.0).reshape(8, 4) * 0.5 - 3.0).astype(np.float32)
X88 = np.arange(64.0, dtype=np.float32).reshape(8, 8)

#: a per-device function written against a ``lax`` module (typedax's or JAX's)
Fn = Callable[..., Any]
Body = Callable[[ModuleType], Fn]

#: name -> (body on a lax module, mesh kind, in spec, out spec, input, NumPy result)
CASES: dict[str, tuple[Body, str, tuple[object, ...], tuple[object, ...], np.ndarray, np.ndarray]] = {
    "psum": (lambda L: lambda v: L.psum(v, "i"), "line", ("i",), (), X8, X8.sum(0, keepdims=True)),
    "pmax": (lambda L: lambda v: L.pmax(v, "i"), "line", ("i",), (), X8, X8.max(0, keepdims=True)),
    "pmin": (lambda L: lambda v: L.pmin(v, "i"), "line", ("i",), (), X8, X8.min(0, keepdims=True)),
    "pmean": (lambda L: lambda v: L.pmean(v, "i"), "line", ("i",), (), X8, X8.mean(0, keepdims=True)),
    "all_gather": (lambda L: lambda v: L.all_gather(v, "i"), "line", ("i",), (), X8, X8.reshape(8, 1, 4)),
    "all_gather_tiled": (lambda L: lambda v: L.all_gather(v, "i", tiled=True), "line", ("i",), (), X8, X8),
    "all_gather_axis1": (
        lambda L: lambda v: L.all_gather(v, "i", axis=1), "line", ("i",), (), X8, X8.reshape(8, 1, 4).transpose(1, 0, 2)),
    "psum_scatter": (
        lambda L: lambda v: L.psum_scatter(v, "i", scatter_dimension=0, tiled=True), "line", (), ("i",), X8, 8 * X8),
    "psum_scatter_untiled": (
        lambda L: lambda v: L.psum_scatter(v, "i"), "line", (), ("i",), X8, 8 * X8.reshape(32)),
    "all_to_all": (
        lambda L: lambda v: L.all_to_all(v, "i", 1, 0, tiled=True), "line", ("i",), ("i",), X88, X88.T.reshape(64, 1)),
    "all_to_all_untiled": (
        lambda L: lambda v: L.all_to_all(v.reshape(8), "i", 0, 0), "line", ("i",), ("i",), X88, X88.T.reshape(64)),
    "ppermute": (
        lambda L: lambda v: L.ppermute(v, "i", [(k, (k + 1) % 8) for k in range(8)]), "line", ("i",), ("i",), X8,
        np.roll(X8, 1, axis=0)),
    "ppermute_partial": (
        lambda L: lambda v: L.ppermute(v, "i", [(0, 3), (5, 1)]), "line", ("i",), ("i",), X8,
        np.stack([X8[5] if k == 1 else X8[0] if k == 3 else 0 * X8[0] for k in range(8)])),
    "axis_index": (
        lambda L: lambda v: v + L.axis_index("i"), "line", ("i",), ("i",), X8, X8 + np.arange(8)[:, None]),
    "axis_size": (lambda L: lambda v: v * L.psum(1, "i"), "line", ("i",), ("i",), X8, X8 * 8),
    # mesh (4, 2): per device a (2, 2) block of an (8, 4) array
    "grid_psum_a": (
        lambda L: lambda v: L.psum(v, "a"), "grid", ("a", "b"), (None, "b"), X8, X8.reshape(4, 2, 4).sum(0)),
    "grid_psum_ab": (
        lambda L: lambda v: L.psum(v, ("a", "b")), "grid", ("a", "b"), (), X8, X8.reshape(4, 2, 2, 2).sum((0, 2))),
    "grid_pmax_b": (
        lambda L: lambda v: L.pmax(v, "b"), "grid", ("a", "b"), ("a",), X8, X8.reshape(8, 2, 2).max(1)),
    "grid_pmean_b": (
        lambda L: lambda v: L.pmean(v, "b"), "grid", ("a", "b"), ("a",), X8, X8.reshape(8, 2, 2).mean(1)),
    "grid_all_gather_b": (
        lambda L: lambda v: L.all_gather(v, "b", axis=1, tiled=True), "grid", ("a", "b"), ("a",), X8, X8),
    "grid_all_gather_a": (
        lambda L: lambda v: L.all_gather(v, "a", tiled=True), "grid", ("a", "b"), (None, "b"), X8, X8),
    "grid_psum_scatter_a": (
        lambda L: lambda v: L.psum_scatter(v, "a", tiled=True), "grid", (None, "b"), ("a", "b"), X8, 4 * X8),
    "grid_all_to_all_b": (
        lambda L: lambda v: L.all_to_all(v, "b", 1, 0, tiled=True), "grid", ("a", "b"), ("a", "b"), X8,
        # device (a, b) gets column b of each b' block: row 4a + 2b' + r is X8[2a + r, 2b' + b]
        X8.reshape(4, 2, 2, 2).transpose(0, 2, 1, 3).reshape(16, 2)),
    "grid_ppermute_b": (
        lambda L: lambda v: L.ppermute(v, "b", [(0, 1), (1, 0)]), "grid", ("a", "b"), ("a", "b"), X8,
        X8.reshape(8, 2, 2)[:, ::-1].reshape(8, 4)),
    "grid_ppermute_a": (
        lambda L: lambda v: L.ppermute(v, "a", [(k, (k + 1) % 4) for k in range(4)]), "grid", ("a", "b"), ("a", "b"),
        X8, np.roll(X8, 2, axis=0)),
    "grid_axis_index": (
        lambda L: lambda v: v + 10 * L.axis_index("a") + L.axis_index("b"), "grid", ("a", "b"), ("a", "b"), X8,
        X8 + (10 * np.repeat(np.arange(4), 2)[:, None] + np.repeat(np.arange(2), 2)[None, :])),
}


def _both(name: str) -> tuple[Fn, Fn]:
    body, kind, ins, outs, _, _ = CASES[name]
    mesh, jmesh = (LINE, JLINE) if kind == "line" else (GRID, JGRID)
    t = tdx.shard_map(body(lax), mesh=mesh, in_specs=P(*ins), out_specs=P(*outs))  # type: ignore[arg-type]  # entries typed object
    j = jax.shard_map(body(jax.lax), mesh=jmesh, in_specs=JP(*ins), out_specs=JP(*outs), check_vma=False)
    return t, j


@pytest.mark.parametrize("name", sorted(CASES))
def test_collective_against_numpy_and_jax(name: str) -> None:
    t, j = _both(name)
    x, want = CASES[name][4], CASES[name][5]
    got = np.asarray(t(x))
    jgot = np.asarray(j(x))
    assert got.shape == jgot.shape and got.dtype == jgot.dtype
    np.testing.assert_allclose(got, jgot, rtol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tdx.jit(t)(x)), jgot, rtol=1e-6)


def test_results_are_sharded_as_out_specs() -> None:
    t, _ = _both("grid_psum_a")
    out = t(X8)
    assert out.sharding == NamedSharding(GRID, P(None, "b"))
    assert tdx.jit(t)(X8).sharding == NamedSharding(GRID, P(None, "b"))


def test_lowering_is_jaxs_manual_region() -> None:
    t, j = _both("grid_psum_a")
    text = tdx.jit(t).lower(X8).as_text()
    jtext = jax.jit(j).lower(X8).as_text()
    for piece in ("@Sharding", "@SPMDFullToShardShape", "@SPMDShardToFullShape", '"{manual}"',
                  "stablehlo.all_reduce", "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>",
                  "replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>", "use_global_device_ids",
                  'mhlo.sharding = "{devices=[4,2]<=[8]}"', "-> tensor<2x2xf32>"):
        assert piece in text and piece in jtext, piece
    assert "all-reduce" in tdx.jit(t).lower(X8).compile().as_text()


def _loss_body(L: ModuleType, np_: ModuleType) -> Fn:
    def body(w: Any, v: Any) -> Any:
        return L.psum(np_.sum(np_.sin(v * w)), ("a", "b"))
    return body


def test_grad_of_shard_map() -> None:
    tf = tdx.shard_map(_loss_body(lax, tnp), mesh=GRID, in_specs=(P(), P("a", "b")), out_specs=P())
    jf = jax.shard_map(_loss_body(jax.lax, jnp), mesh=JGRID, in_specs=(JP(), JP("a", "b")), out_specs=JP(), check_vma=False)
    w = np.float32(0.3)
    gw, gx = tdx.grad(tf, argnums=(0, 1))(w, X8)
    jw, jx = jax.grad(jf, argnums=(0, 1))(w, X8)
    np.testing.assert_allclose(float(gw), float(jw), rtol=1e-6)
    np.testing.assert_allclose(float(gw), np.sum(X8 * np.cos(X8 * w)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gx), w * np.cos(X8 * w), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tdx.jit(tdx.grad(tf, argnums=1))(w, X8)), np.asarray(jx), rtol=1e-6)


@pytest.mark.parametrize("name", ["all_gather", "psum_scatter", "all_to_all", "ppermute", "grid_psum_a", "grid_all_gather_b"])
def test_grad_jvp_vmap_through_collectives(name: str) -> None:
    t, j = _both(name)
    x = CASES[name][4]
    tl = lambda v: tnp.sum(tnp.sin(t(v)) ** 2)  # noqa: E731
    jl = lambda v: jnp.sum(jnp.sin(j(v)) ** 2)  # noqa: E731
    np.testing.assert_allclose(np.asarray(tdx.grad(tl)(x)), np.asarray(jax.grad(jl)(x)), rtol=1e-5, atol=1e-6)
    dx = np.cos(x)
    np.testing.assert_allclose(np.asarray(tdx.jvp(t, (x,), (dx,))[1]), np.asarray(jax.jvp(j, (x,), (dx,))[1]), rtol=1e-6)
    xs = np.stack([x, x + 1.0])
    np.testing.assert_allclose(np.asarray(tdx.vmap(t)(xs)), np.asarray(jax.vmap(j)(xs)), rtol=1e-6)


def test_closure_and_pytrees() -> None:
    w = tnp.asarray(np.arange(4.0))

    def body(d: dict[str, tdx.Array]) -> dict[str, tdx.Array]:
        return {"s": lax.psum(d["x"] * w, "i"), "y": d["y"] + 1}

    f = tdx.shard_map(body, mesh=LINE, in_specs=({"x": P("i"), "y": P()},), out_specs={"s": P(), "y": P()})
    out = f({"x": tnp.asarray(X8), "y": tnp.ones(3)})
    np.testing.assert_allclose(np.asarray(out["s"]), (X8 * np.arange(4.0)).sum(0, keepdims=True))
    np.testing.assert_allclose(np.asarray(out["y"]), np.full(3, 2.0))


def test_experimental_import_and_signature() -> None:
    from typedax.experimental.shard_map import shard_map  # JAX 0.10's older spelling

    def total(v: tdx.Array) -> tdx.Array:
        return lax.psum(v, "i")

    f = shard_map(total, LINE, P("i"), P(), check_rep=False)
    np.testing.assert_allclose(np.asarray(f(tnp.asarray(X8))), X8.sum(0, keepdims=True))

    @tdx.shard_map(mesh=LINE, in_specs=P("i"), out_specs=P("i"))
    def g(v: tdx.Array) -> tdx.Array:
        return v * 2

    np.testing.assert_allclose(np.asarray(g(tnp.asarray(X8))), X8 * 2)


def test_errors() -> None:
    with pytest.raises(AxisNameError, match="unbound axis name: 'c'"):
        tdx.shard_map(lambda v: lax.psum(v, "c"), mesh=GRID, in_specs=P("a"), out_specs=P())(X8)
    with pytest.raises(ShardingError, match="not divisible"):
        tdx.shard_map(lambda v: v, mesh=LINE, in_specs=P("i"), out_specs=P("i"))(np.ones(6))
    with pytest.raises(ShardingError, match="lacks"):
        tdx.shard_map(lambda v: v, mesh=LINE, in_specs=P("j"), out_specs=P("i"))(X8)
    with pytest.raises(ShardingError, match="more than once"):
        tdx.shard_map(lambda v: v, mesh=GRID, in_specs=P("a", "a"), out_specs=P())(X8)
    with pytest.raises(NotImplementedError, match="pmax"):
        tdx.grad(lambda v: tnp.sum(tdx.shard_map(lambda u: lax.pmax(u, "i"), mesh=LINE, in_specs=P("i"), out_specs=P())(v)))(X8)


def _normalized(L: ModuleType, np_: ModuleType) -> Fn:
    def f(v: Any) -> Any:
        return v / L.psum(v, "i") + L.axis_index("i")
    return f


def _pair(L: ModuleType, np_: ModuleType) -> Fn:
    def f(w: Any, v: Any) -> Any:
        return np_.sum(np_.sin(v * w)), L.pmean(v, "i")
    return f


def test_pmap_against_jax() -> None:
    x = X8 + 4.0
    np.testing.assert_allclose(
        np.asarray(tdx.pmap(_normalized(lax, tnp), "i")(x)), np.asarray(jax.pmap(_normalized(jax.lax, jnp), "i")(x)), rtol=1e-6)
    w = np.float32(0.5)
    got = tdx.pmap(_pair(lax, tnp), "i", in_axes=(None, 1))(w, x.T)
    want = jax.pmap(_pair(jax.lax, jnp), "i", in_axes=(None, 1))(w, x.T)
    for g, j in zip(got, want):
        assert g.shape == j.shape
        np.testing.assert_allclose(np.asarray(g), np.asarray(j), rtol=1e-6)
    double = tdx.pmap(lambda v: v * 2, out_axes=1)(x)
    assert double.shape == (4, 8)
    np.testing.assert_allclose(np.asarray(double), np.asarray(jax.pmap(lambda v: v * 2, out_axes=1)(x)))
    assert tdx.pmap(lambda v: v + 1)(x[:4]).shape == (4, 4)  # the first 4 devices
    assert tdx.pmap(lambda v: v + 1, devices=tdx.devices()[4:])(x[:4]).sharding.device_set == set(tdx.devices()[4:])


def test_grad_inside_pmap() -> None:
    def loss(v: tdx.Array) -> tdx.Array:
        return lax.psum(tnp.sum(v ** 2), "i")

    def jloss(v: Any) -> Any:
        return jax.lax.psum(jnp.sum(v ** 2), "i")  # type: ignore[no-untyped-call]  # untyped in jax

    np.testing.assert_allclose(
        np.asarray(tdx.pmap(tdx.grad(loss), "i")(tnp.asarray(X8))), np.asarray(jax.pmap(jax.grad(jloss), "i")(X8)),
        rtol=1e-6)


def test_pmap_errors() -> None:
    with pytest.raises(ShardingError, match="requires 9 logical devices, but only 8"):
        tdx.pmap(lambda v: v)(np.ones((9, 2)))
    with pytest.raises(BatchingError, match=r"inconsistent sizes .*\[4, 8\]"):
        tdx.pmap(lambda v, w: v)(np.ones((8, 2)), np.ones(4))
    with pytest.raises(BatchingError, match="out of bounds"):
        tdx.pmap(lambda v: v.sum(), out_axes=1)(X8)
