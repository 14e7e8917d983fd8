"""``jit``'s fast path for sharded calls (``Jitted.__call__`` without
``_call``; ``jitting/sharded.py: fast_entry``) gives what the general path
gives -- values bit for bit, types (weak flags, sharding types), result
shardings and errors -- and is taken only where the trace, the sharding plan
and the executable are the ones the general path would use: the leaves'
types and committed shardings, their structure and the settings. The
general path is ``Jitted._call`` itself (run by
``tests/test_sharding.py`` in a process with 8 host devices)."""

from __future__ import annotations

import os
from typing import Any

import pytest

if "--xla_force_host_platform_device_count=8" not in os.environ.get("XLA_FLAGS", ""):
    pytest.skip("needs 8 host devices: tests/test_sharding.py runs it so", allow_module_level=True)

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import DeletedArrayError, ShardingError
from typedax.core.sharded import ShardedArrayImpl
from typedax.lowering import clear_cache
from typedax.sharding import AxisType, NamedSharding, P, SingleDeviceSharding, reshard, set_mesh


def count_slow_calls(jf: Any) -> list[int]:
    """Count the calls that miss the fast path (``Jitted._call``), as
    ``tests/test_jit_dispatch.py`` does (not imported: it turns JAX's x64 on,
    and the guide tests here print JAX's 32-bit types)."""
    calls: list[int] = []
    slow = jf._call

    def counting(args: tuple[object, ...], kwargs: dict[str, object]) -> Any:
        calls.append(1)
        return slow(args, kwargs)

    jf._call = counting
    return calls


def same(got: object, want: object) -> None:
    """Equal pytrees of sharded arrays: type (weak flag and sharding type
    included), sharding, and bytes."""
    g_leaves, g_tree = tdx.tree.flatten(got)
    w_leaves, w_tree = tdx.tree.flatten(want)
    assert g_tree == w_tree, (g_tree, w_tree)
    for g, w in zip(g_leaves, w_leaves):
        assert type(g) is ShardedArrayImpl and type(w) is ShardedArrayImpl, (type(g), type(w))
        assert g.aval == w.aval and g.aval.weak_type == w.aval.weak_type and g.aval.sharding == w.aval.sharding
        assert g.sharding == w.sharding, (g.sharding, w.sharding)
        assert g._tdx_key == w._tdx_key
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes(), (g, w)
        assert [s.index for s in g.addressable_shards] == [s.index for s in w.addressable_shards]


def slow(jf: Any, *args: object, **kwargs: object) -> object:
    """The general path's result for this call."""
    return jf._call(args, kwargs)


def test_training_loop_takes_the_fast_path_as_the_slow_one_computes() -> None:
    """The benchmark's loop (benchmarks/sharding.py): parameters replicated,
    the batch split, each step's parameters the next one's; one general
    call, then every call on the fast path, each result the general path's."""
    mesh = tdx.make_mesh((8,), ("data",))
    rep, data = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    rng = np.random.default_rng(0)
    params = [(tdx.device_put(rng.standard_normal((4, 4)).astype(np.float32), rep),
               tdx.device_put(np.zeros(4, np.float32), rep)) for _ in range(2)]
    x = tdx.device_put(rng.standard_normal((16, 4)).astype(np.float32), data)
    y = tdx.device_put(rng.standard_normal((16, 4)).astype(np.float32), data)

    def loss(ps: Any, x: Any, y: Any) -> Any:
        for w, b in ps:
            x = tnp.tanh(x @ w + b)
        return tnp.mean((x - y) ** 2)

    def step(ps: Any, x: Any, y: Any) -> Any:
        l, gs = tdx.value_and_grad(loss)(ps, x, y)
        return [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(ps, gs)], l

    jf = tdx.jit(step, in_shardings=(rep, data, data), out_shardings=(rep, None))
    calls = count_slow_calls(jf)
    p = params
    for i in range(4):
        want = slow(jf, p, x, y)
        n = len(calls)
        got = jf(p, x, y)
        assert len(calls) == n, f"call {i} missed the fast path"
        same(got, want)
        p = got[0]  # the results' shardings are the executable's: the next key is the same
    assert got[1].sharding == rep and got[1].shape == ()  # the loss: XLA's layout, replicated


def test_mixed_leaves_and_layouts() -> None:
    """Unsharded device arrays, NumPy arrays, Python scalars and arrays
    committed to a sharding other than their ``in_shardings`` entry (where
    it is unspecified) are laid out as the general path lays them; constants
    once; the result unspecified takes XLA's layout."""
    mesh = tdx.make_mesh((4, 2), ("a", "b"), axis_types=(AxisType.Auto, AxisType.Auto))  # (XLA lays out v: Auto axes)
    row, col = NamedSharding(mesh, P("a")), NamedSharding(mesh, P(None, "b"))
    const = np.arange(8.0, dtype=np.float32).reshape(8, 1)

    def f(u: Any, v: Any, n: Any, s: Any) -> Any:
        return {"sum": u + v * s + const, "n": n * 2, "t": u.T}

    jf = tdx.jit(f, in_shardings=(row, None, None, None))
    calls = count_slow_calls(jf)
    rng = np.random.default_rng(1)
    for v_kind in ("committed", "device", "numpy"):
        for _ in range(2):
            u = tdx.device_put(rng.standard_normal((8, 2)).astype(np.float32), row)
            raw = rng.standard_normal((8, 2)).astype(np.float32)
            v = {"committed": tdx.device_put(raw, col), "device": tdx.device_put(raw), "numpy": raw}[v_kind]
            n = rng.integers(0, 9, (8,)).astype(np.int32)
            want = slow(jf, u, v, n, 1.5)
            k = len(calls)
            got = jf(u, v, n, 1.5)
            assert len(calls) == k, v_kind
            same(got, want)
            np.testing.assert_allclose(np.asarray(got["sum"]), raw * 1.5 + np.asarray(u) + const, rtol=1e-6)
    # a new kind of leaf, a new committed sharding: the general path, once
    k = len(calls)
    w = tdx.device_put(rng.standard_normal((8, 2)).astype(np.float32), NamedSharding(mesh, P("b")))
    same(jf(u, w, n, 2), slow(jf, u, w, n, 2))
    assert len(calls) == k + 2  # this call, and slow() itself
    jf(u, w, n, 2)
    assert len(calls) == k + 2


def test_committed_arguments_the_general_path_refuses_stay_refused() -> None:
    """An argument committed to a sharding other than its ``in_shardings``
    entry raises JAX's error on every call, an array deleted after the
    entry was made raises as on the general path, and a call under a
    transformation is traced, not run."""
    mesh = tdx.make_mesh((8,), ("x",))
    split, rep = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())
    jf = tdx.jit(lambda a: a * 2, in_shardings=split)
    calls = count_slow_calls(jf)
    a = tdx.device_put(np.arange(8.0, dtype=np.float32), split)
    jf(a)
    jf(a)
    assert len(calls) == 1
    host = np.arange(8.0, dtype=np.float32)  # uncommitted: laid out by in_shardings
    same(jf(host), slow(jf, host))
    same(jf(host), slow(jf, host))
    assert len(calls) == 4
    clear_cache()  # the entries go with the compile cache: the general path compiles again
    jf(a)
    jf(a)
    assert len(calls) == 5
    b = tdx.device_put(np.arange(8.0, dtype=np.float32), rep)
    for _ in range(2):
        with pytest.raises(ShardingError, match="does not match the sharding on the respective arg"):
            jf(b)
    one = tdx.device_put(np.arange(8.0, dtype=np.float32), SingleDeviceSharding(tdx.devices()[3]))
    with pytest.raises(ShardingError, match="does not match the sharding"):
        jf(one)
    c = tdx.device_put(np.arange(8.0, dtype=np.float32), split)
    c.delete()
    with pytest.raises(DeletedArrayError):
        jf(c)
    with pytest.raises(DeletedArrayError):
        slow(jf, c)
    # under grad the call is staged: d(sum(2a))/da = 2
    np.testing.assert_array_equal(np.asarray(tdx.grad(lambda t: jf(t).sum())(a)), np.full(8, 2.0, np.float32))


def test_settings_and_explicit_types_key_the_fast_path() -> None:
    """x64 off, and arrays typed on a mesh with Explicit axes: each its own
    entry, with the types and layouts the general path gives."""
    mesh = tdx.make_mesh((8,), ("x",))
    split = NamedSharding(mesh, P("x"))
    jf = tdx.jit(lambda a, s: a * s)
    calls = count_slow_calls(jf)
    a = tdx.device_put(np.arange(8, dtype=np.int32), split)
    same(jf(a, 3), slow(jf, a, 3))
    k = len(calls)
    with tdx.enable_x64(False):
        same(jf(a, 3), slow(jf, a, 3))
        assert len(calls) == k + 2  # another trace: the scalar's type
        same(jf(a, 3), slow(jf, a, 3))
        assert len(calls) == k + 3
    explicit = tdx.make_mesh((4, 2), ("a", "b"), axis_types=(AxisType.Explicit, AxisType.Explicit))
    with set_mesh(explicit):
        e = reshard(np.arange(16.0, dtype=np.float32).reshape(8, 2), P("a", "b"))
        k = len(calls)
        want = slow(jf, e, 2.0)
        got = jf(e, 2.0)
        assert len(calls) == k + 1
        same(got, want)
        assert got.aval.sharding is not None and got.sharding == NamedSharding(explicit, P("a", "b"))


def test_outputs_typed_on_a_mixed_mesh_as_jax() -> None:
    """An output typed on a mesh with Explicit and Auto axes: the Auto axes
    are XLA's to choose, as JAX leaves them (``jitting/sharded.py:
    _open``), named with a spec entry per dimension as JAX's; and where
    XLA's layout disagreed with the type on the Explicit axes, the program
    is compiled again with the output laid out as its type says
    (``typed_outputs``), so a result's type is always the traced one."""
    import jax
    from jax.sharding import AxisType as JAxisType
    from jax.sharding import PartitionSpec as JP

    from typedax.jitting import sharded
    from typedax.lowering import compile_cache
    from typedax.lowering.sharding import ShardingPlan

    jmesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(JAxisType.Explicit, JAxisType.Auto))
    mesh = tdx.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Auto))
    v = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    funs = [lambda a: a * 2, lambda a: a.sum(0), lambda a: (a.T, a[:, :2])]
    shardy = jax.config.jax_use_shardy_partitioner  # type: ignore[attr-defined]  # jax's config is untyped
    jax.config.update("jax_use_shardy_partitioner", True)  # type: ignore[no-untyped-call]  # JAX's default (other modules here turn it off)
    try:
        for spec in [("x", None), ("x", "y"), (None, None)]:
            xj = jax.device_put(v, jax.NamedSharding(jmesh, JP(*spec)))  # type: ignore[no-untyped-call]  # jax's PartitionSpec is untyped
            xt = tdx.device_put(v, NamedSharding(mesh, P(*spec)))
            for f in funs:
                theirs: list[Any] = jax.tree.leaves(jax.jit(f)(xj))
                ours: list[Any] = tdx.tree.leaves(tdx.jit(f)(xt))
                for a, b in zip(theirs, ours):
                    assert repr((a.sharding.spec, jax.typeof(a))) == repr((b.sharding.spec, tdx.typeof(b))), spec
                    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    finally:
        jax.config.update("jax_use_shardy_partitioner", shardy)  # type: ignore[no-untyped-call]  # as above
    # an executable whose layout disagrees with the output's type is replaced
    traced = tdx.jit(lambda a: a * 2).trace(tdx.device_put(v, NamedSharding(mesh, P("x", None))))
    plan, jaxpr = traced._plan, traced.jaxpr.jaxpr
    assert plan is not None and plan.out_shardings == (None,)
    against = ShardingPlan(plan.in_shardings, (NamedSharding(mesh, P(None, "y")),), plan.devices, plan.mesh)
    exe = sharded.typed_outputs(jaxpr, "f", plan, compile_cache.get(jaxpr, "f", shardings=against))
    assert exe.out_shardings == (NamedSharding(mesh, P("x", None)),)
    assert sharded.typed_outputs(jaxpr, "f", plan, exe) is exe
