"""``lax.switch``, ``lax.map`` and ``lax.associative_scan`` against JAX:
values eagerly and under ``jit``, ``vmap`` against a loop and ``jax.vmap``,
``grad``/``jvp`` against ``jax.grad``, and each error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import PrimitiveTypeError
from typedax.core.array import Array
from typedax.core.trace import Value

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

# JAX, the oracle, untyped here: its signatures take its own Array, not NumPy arrays
jx: Any = jax
jl: Any = jax.lax
jn: Any = jnp


def close(got: object, want: object, rtol: float = 1e-12) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12, equal_nan=True)


# -- switch ---------------------------------------------------------------------------------
T_BRANCHES: list[Callable[[Value], Value]] = [
    lambda x: lax.sin(x), lambda x: lax.mul(x, x), lambda x: lax.exp(x), lambda x: lax.neg(x), lambda x: lax.cos(x),
]
J_BRANCHES: list[Callable[[Any], Any]] = [jn.sin, lambda x: x * x, jn.exp, lambda x: -x, jn.cos]


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_switch_matches_jax_eager_and_jit(n: int) -> None:
    x = np.array([0.3, -1.2])
    jitted = tdx.jit(lambda i, y: lax.switch(i, T_BRANCHES[:n], y))
    for i in range(-3, n + 3):
        want = jl.switch(i, J_BRANCHES[:n], x)
        close(lax.switch(i, T_BRANCHES[:n], x), want)
        close(jitted(np.int32(i), x), want)


def test_switch_builds_a_tree_of_conds() -> None:
    closed = tdx.make_jaxpr(lambda i, x: lax.switch(i, T_BRANCHES, x))(np.int32(0), 1.0)
    text = str(closed)
    assert text.count("cond") == len(T_BRANCHES) - 1
    assert all(f in text for f in ("sin", "exp", "neg", "cos"))
    # one branch: no cond at all (JAX calls it directly)
    one = tdx.make_jaxpr(lambda i, x: lax.switch(i, T_BRANCHES[:1], x))(np.int32(0), 1.0)
    assert "cond" not in str(one)


@pytest.mark.parametrize(
    "index", [np.int8(-100), np.uint8(200), np.uint32(2**32 - 1), np.int64(2**32 + 1), np.uint64(2**63), np.int16(2)]
)
def test_switch_index_dtypes_convert_to_int32_as_jax(index: Any) -> None:
    want = jl.switch(index, [lambda: 10, lambda: 11, lambda: 12])
    assert int(np.asarray(lax.switch(index, [lambda: 10, lambda: 11, lambda: 12]))) == int(want)
    got = tdx.jit(lambda i: lax.switch(i, [lambda: np.int64(10), lambda: np.int64(11), lambda: np.int64(12)]))(index)
    assert int(np.asarray(got)) == int(want)


def test_switch_pytrees_and_operand_keyword() -> None:
    def t(d: dict[str, Value], c: Value) -> tuple[Value, Value]:
        return lax.add(d["a"], c), d["b"]

    def f(d: dict[str, Value], c: Value) -> tuple[Value, Value]:
        return lax.sub(d["a"], c), lax.mul(d["b"], d["b"])

    d = {"a": np.arange(3.0), "b": np.float32(2.0)}
    for i in (0, 1):
        got = lax.switch(i, [t, f], d, 0.5)
        want = jl.switch(i, [lambda d, c: (d["a"] + c, d["b"]), lambda d, c: (d["a"] - c, d["b"] ** 2)], d, 0.5)
        close(got[0], want[0])
        close(got[1], want[1])
    close(lax.switch(1, T_BRANCHES, operand=np.float64(0.5)), jl.switch(1, J_BRANCHES, operand=np.float64(0.5)))


def test_switch_closes_over_constants_and_tracers() -> None:
    c = np.array([1.0, 2.0])

    def f(x: Value, i: Value) -> Value:
        return lax.switch(i, [lambda: lax.add(x, c), lambda: lax.mul(x, c), lambda: x])

    jf: Any = lambda x, i: jl.switch(i, [lambda: x + c, lambda: x * c, lambda: x])  # noqa: E731
    for i in range(3):
        close(tdx.jit(f)(np.array([3.0, 4.0]), np.int32(i)), jf(np.array([3.0, 4.0]), i))
        close(tdx.grad(lambda x: lax.reduce_sum(f(x, np.int32(i)), (0,)))(np.array([3.0, 4.0])),
              jx.grad(lambda x: jf(x, i).sum())(np.array([3.0, 4.0])))


def test_switch_vmap_batched_index_selects_every_branch() -> None:
    idx = np.array([-2, 0, 1, 2, 3, 4, 9], np.int32)
    xs = np.linspace(-1.0, 1.0, 7)
    f: Callable[[Value, Value], Value] = lambda i, x: lax.switch(i, T_BRANCHES, x)  # noqa: E731
    got = tdx.vmap(f)(idx, xs)
    loop = np.array([np.asarray(f(i, x)) for i, x in zip(idx, xs)])
    want = jx.vmap(lambda i, x: jl.switch(i, J_BRANCHES, x))(idx, xs)
    close(got, want)
    close(got, loop)
    # batched index: no cond is left, every branch is evaluated and selected
    text = str(tdx.make_jaxpr(tdx.vmap(f))(idx, xs))
    assert "cond" not in text and all(p in text for p in ("sin", "exp", "neg", "cos", "select_n"))
    # batched operand, unbatched index: still one cond tree
    text = str(tdx.make_jaxpr(tdx.vmap(f, in_axes=(None, 0)))(np.int32(2), xs))
    assert text.count("cond") == len(T_BRANCHES) - 1
    close(tdx.vmap(f, in_axes=(None, 0))(np.int32(2), xs), np.exp(xs))


def test_switch_grad_and_jvp_match_jax() -> None:
    for i in (-1, 2, 3, 5):
        g = tdx.grad(lambda x: lax.switch(i, T_BRANCHES, x))(0.7)
        close(g, jx.grad(lambda x: jl.switch(i, J_BRANCHES, x))(0.7))
        primal, tangent = tdx.jvp(lambda x: lax.switch(i, T_BRANCHES, x), (0.7,), (2.0,))
        jp, jt = jx.jvp(lambda x: jl.switch(i, J_BRANCHES, x), (0.7,), (2.0,))
        close(primal, jp)
        close(tangent, jt)
    idx = np.array([0, 1, 2, 3, 4], np.int32)
    xs = np.linspace(0.1, 0.9, 5)
    got = tdx.vmap(tdx.grad(lambda x, i: lax.switch(i, T_BRANCHES, x)))(xs, idx)
    want = jx.vmap(jx.grad(lambda x, i: jl.switch(i, J_BRANCHES, x)))(xs, idx)
    close(got, want)
    got = tdx.jit(tdx.grad(lambda x, i: lax.switch(i, T_BRANCHES, x)))(0.4, np.int32(2))
    close(got, np.exp(0.4))


@given(st.integers(1, 9), st.integers(-20, 20))
def test_switch_is_clamped_indexing(n: int, i: int) -> None:
    branches = [(lambda k: (lambda: np.int64(k)))(k) for k in range(n)]
    assert int(np.asarray(lax.switch(i, branches))) == min(max(i, 0), n - 1)


def test_switch_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="switch: branches must be a sequence of callables"):
        lax.switch(0, [lambda: 1.0, 3])  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="switch: empty branch sequence"):
        lax.switch(0, [])
    with pytest.raises(PrimitiveTypeError, match=r"switch: the branch index must be an integer, got float64\[\]"):
        lax.switch(1.0, T_BRANCHES, 1.0)
    with pytest.raises(PrimitiveTypeError, match=r"switch: the branch index must be an integer, got bool\[\]"):
        lax.switch(True, T_BRANCHES, 1.0)
    with pytest.raises(PrimitiveTypeError, match=r"switch: the branch index must be a scalar, got int64\[2\]"):
        lax.switch(np.array([0, 1]), T_BRANCHES, 1.0)
    with pytest.raises(PrimitiveTypeError, match="switch: every branch must return the same structure"):
        lax.switch(0, [lambda x: (x, x), lambda x: x], 1.0)
    with pytest.raises(PrimitiveTypeError, match=r"branch 0 returns \(float32\[\]\) but branch 1 returns \(float64\[\]\)"):
        lax.switch(0, [lambda x: x, lambda x: lax.convert_element_type(x, np.float64)], np.float32(1))
    with pytest.raises(PrimitiveTypeError, match=r"branch 0 returns \(float64\[2\]\) but branch 2 returns \(float64\[\]\)"):
        lax.switch(0, [lambda x: x, lambda x: x, lambda x: lax.reduce_sum(x, (0,))], np.ones(2))
    with pytest.raises(PrimitiveTypeError, match="switch: if the 'operand' keyword is passed"):
        lax.switch(0, T_BRANCHES, 1.0, operand=2.0)
    with pytest.raises(PrimitiveTypeError, match="switch's index must be arrays or scalars"):
        lax.switch("0", T_BRANCHES, 1.0)  # type: ignore[arg-type]  # the error under test


# -- map ------------------------------------------------------------------------------------
def t_fun(p: dict[str, Array]) -> tuple[Value, Value]:
    return lax.mul(p["x"], lax.sin(p["x"])), lax.add(lax.reduce_sum(p["m"], (0,)), p["x"][0])


def j_fun(p: dict[str, Any]) -> tuple[Any, Any]:
    return p["x"] * jn.sin(p["x"]), p["m"].sum(0) + p["x"][0]


XS: Any = {"x": np.random.default_rng(0).normal(size=(10, 2)), "m": np.arange(60.0).reshape(10, 3, 2)}


@pytest.mark.parametrize("batch_size", [None, 0, 3, 10, 25])
def test_map_matches_jax(batch_size: int | None) -> None:
    want = jl.map(j_fun, XS, batch_size=batch_size)
    for got in (lax.map(t_fun, XS, batch_size=batch_size), tdx.jit(lambda p: lax.map(t_fun, p, batch_size=batch_size))(XS)):
        close(got[0], want[0])
        close(got[1], want[1])
    g = tdx.grad(lambda p: lax.reduce_sum(lax.map(t_fun, p, batch_size=batch_size)[0], (0, 1)))(XS)
    jg = jx.grad(lambda p: jl.map(j_fun, p, batch_size=batch_size)[0].sum())(XS)
    close(g["x"], jg["x"])
    close(g["m"], jg["m"])


def test_map_structure_as_jax() -> None:
    closed = str(tdx.make_jaxpr(lambda p: lax.map(t_fun, p, batch_size=3))(XS))
    assert closed.count("scan") == 1 and "concatenate" in closed  # 3 batches of 3 in a scan, 1 left over
    assert "scan" not in str(tdx.make_jaxpr(lambda p: lax.map(t_fun, p, batch_size=0))(XS))
    assert "concatenate" not in str(tdx.make_jaxpr(lambda p: lax.map(t_fun, p, batch_size=5))(XS))
    # the function sees one row, or a batch of rows under vmap
    seen: list[tuple[int, ...]] = []
    def see(r: Array) -> Array:
        seen.append(tnp.shape(r))
        return r

    lax.map(see, np.ones((7, 2)), batch_size=3)
    assert seen == [(2,), (2,)]


def test_map_empty_and_vmap() -> None:
    for bs in (None, 0, 2):
        got = lax.map(lambda r: lax.mul(r, 2.0), np.ones((0, 3)), batch_size=bs)
        assert np.asarray(got).shape == (0, 3)
    xs = np.arange(24.0).reshape(2, 4, 3)
    got = tdx.vmap(lambda a: lax.map(lambda r: lax.mul(r, lax.sin(r)), a, batch_size=3))(xs)
    close(got, np.stack([np.asarray(lax.map(lambda r: lax.mul(r, lax.sin(r)), a)) for a in xs]))


def test_map_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="map: batch_size must be a non-negative integer or None, got -1"):
        lax.map(lambda r: r, np.ones(3), batch_size=-1)
    with pytest.raises(PrimitiveTypeError, match="map: batch_size must be a non-negative integer or None, got 2.0"):
        lax.map(lambda r: r, np.ones(3), batch_size=2.0)  # type: ignore[call-overload]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="map: every leaf of xs must have one leading axis length"):
        lax.map(lambda p: p, (np.ones(3), np.ones(4)), batch_size=2)
    with pytest.raises(PrimitiveTypeError, match="map: every leaf of xs must have one leading axis length"):
        lax.map(lambda p: p, np.float64(1.0), batch_size=2)
    with pytest.raises(PrimitiveTypeError, match="scan"):
        lax.map(lambda p: p, (np.ones(3), np.ones(4)))


# -- associative_scan -------------------------------------------------------------------------
@given(st.integers(0, 17), st.integers(1, 3), st.booleans(), st.integers(0, 1))
def test_associative_scan_add_is_cumsum(n: int, m: int, reverse: bool, axis: int) -> None:
    x = np.arange(n * m, dtype=np.int64).reshape((n, m) if axis == 0 else (m, n)) * 7 - 11
    got = lax.associative_scan(lax.add, x, reverse=reverse, axis=axis)
    want = np.flip(np.cumsum(np.flip(x, axis), axis), axis) if reverse else np.cumsum(x, axis)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert np.asarray(got).dtype == np.int64


@pytest.mark.parametrize(("n", "reverse"), [(1, False), (2, True), (5, False), (8, True), (13, False)])
def test_associative_scan_non_commutative_matches_jax(n: int, reverse: bool) -> None:
    mats = np.random.default_rng(n).normal(size=(n, 2, 2))
    want = jl.associative_scan(jn.matmul, mats, reverse=reverse)
    close(lax.associative_scan(tnp.matmul, mats, reverse=reverse), want, rtol=1e-10)
    close(tdx.jit(lambda m: lax.associative_scan(tnp.matmul, m, reverse=reverse))(mats), want, rtol=1e-10)


def _affine(a: tuple[Value, Value], b: tuple[Value, Value]) -> tuple[Value, Value]:
    """Composition of h -> a0 h + a1, then b: the linear recurrence's monoid."""
    return lax.mul(b[0], a[0]), lax.add(lax.mul(b[0], a[1]), b[1])


def test_associative_scan_pytree_linear_recurrence_and_grad() -> None:
    r = np.random.default_rng(1)
    a, b = r.uniform(0.5, 1.0, size=(9, 3)), r.normal(size=(9, 3))
    ab: tuple[Value, Value] = (a, b)
    _, h = lax.associative_scan(_affine, ab)
    ref, state = [], np.zeros(3)
    for t in range(9):
        state = a[t] * state + b[t]
        ref.append(state)
    close(h, np.stack(ref), rtol=1e-12)

    def jaffine(x: Any, y: Any) -> Any:
        return y[0] * x[0], y[0] * x[1] + y[1]

    def loss(a: Value, b: Value) -> Array:
        ab: tuple[Value, Value] = (a, b)
        return lax.reduce_sum(lax.associative_scan(_affine, ab, axis=1)[1], (0, 1))

    jloss = lambda a, b: jl.associative_scan(jaffine, (a, b), axis=1)[1].sum()  # noqa: E731
    g: Any = tdx.grad(loss, argnums=(0, 1))(a.T.copy(), b.T.copy())
    jg = jx.grad(jloss, argnums=(0, 1))(a.T.copy(), b.T.copy())
    close(g[0], jg[0])
    close(g[1], jg[1])
    got = tdx.vmap(lambda a, b: lax.associative_scan(_affine, (a, b))[1], in_axes=1)(a, b)
    close(got, np.stack(ref).T)


def test_associative_scan_calls_fn_on_slices_and_keeps_signed_zeros() -> None:
    calls: list[tuple[int, ...]] = []

    def fn(u: Value, v: Value) -> Value:
        calls.append(tnp.shape(u))
        return lax.add(u, v)

    lax.associative_scan(fn, np.ones(8))
    jcalls: list[tuple[int, ...]] = []
    def jfn(u: Any, v: Any) -> Any:
        jcalls.append(u.shape)
        return u + v

    jl.associative_scan(jfn, np.ones(8))
    assert calls == jcalls  # the same calls, of the same shapes, in the same order
    out = np.asarray(lax.associative_scan(lax.add, np.full(5, -0.0)))
    assert np.all(np.signbit(out))  # JAX's interleave (pad and add) gives +0.0 here


def test_associative_scan_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="associative_scan: fn must be callable"):
        lax.associative_scan(3, np.ones(3))  # type: ignore[call-overload]  # the error under test
    with pytest.raises(PrimitiveTypeError, match="associative_scan: elems must hold at least one array"):
        lax.associative_scan(lax.add, np.ones(0)[:0].tolist())
    with pytest.raises(PrimitiveTypeError, match="every array in elems must have one length along axis 0"):
        lax.associative_scan(lambda a, b: a, (np.ones(3), np.ones(4)))
    with pytest.raises(PrimitiveTypeError, match="associative_scan: axis 2 is out of bounds for an array of rank 2"):
        lax.associative_scan(lax.add, np.ones((2, 3)), axis=2)
    with pytest.raises(PrimitiveTypeError, match="fn must return its arguments' structure and types"):
        lax.associative_scan(lambda a, b: (a, b), np.ones(3))  # type: ignore[arg-type, return-value]  # the error under test
    with pytest.raises(PrimitiveTypeError, match=r"fn must return .*float64\[1\].*got .*float64\[\]"):
        lax.associative_scan(lambda a, b: lax.reduce_sum(a, (0,)), np.ones(3))
