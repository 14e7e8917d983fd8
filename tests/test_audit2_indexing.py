"""Issue 23 (second audit), indexing and scatter: integer indices of every
dtype at and past the bounds (no narrowing before the clamp), ``.at[].apply``
with repeated indices, and indexing ops under ``vmap`` over a size-0 batch.

The oracle for indices is JAX on an equivalent index: JAX 0.10.2 computes
right only inside a safe range. It converts gather/scatter indices to int32
after wrapping (an int64 ``2**32 + 1`` reads ``x[1]``; a uint64 ``2**63``
writes ``x[0]``), wraps a narrow index in its own dtype (int8 ``-1`` on 300
elements reads ``x[43]``; on 200 it raises OverflowError) and lets XLA clamp
a uint8 start in uint8 (``dynamic_update_slice`` at 254 on 300 elements
writes at 42). Every index ``v`` acts as ``clip(v, -n - 1, n)`` on an axis
of ``n`` elements (clamped or dropped alike), where JAX is right; typedax
must give that, eagerly and under ``jit`` and ``vmap``, bit for bit.
"""

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
from typedax import config, lax

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

N = 300  # longer than int8's and uint8's maximum: their index arithmetic must widen
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]

#: path -> program in terms of (numpy namespace, lax, array a, scalar index i)
PATHS: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
    "scalar": lambda np_, lx, a, i: a[i],
    "array": lambda np_, lx, a, i: a[np_.stack([i, i])],
    "2-d mixed": lambda np_, lx, a, i: a.reshape(2, N // 2)[1, i],
    "dynamic_slice": lambda np_, lx, a, i: lx.dynamic_slice(a, (i,), (2,)),
    "dynamic_update_slice": lambda np_, lx, a, i: lx.dynamic_update_slice(a, np_.asarray([-1.0, -2.0]), (i,)),
    "at.set": lambda np_, lx, a, i: a.at[i].set(-1.0),
    "at.add array": lambda np_, lx, a, i: a.at[np_.stack([i, i])].add(-1.0),
    "at.get fill": lambda np_, lx, a, i: a.at[i].get(mode="fill", fill_value=-7.0),
}


def _values(dtype: Any, n: int = N) -> list[int]:
    """At and past the dtype's bounds, the axis' bounds and int32's."""
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    c = {lo, lo + 1, hi, hi - 1, 0, 1, -1, n - 1, n, -n, -n - 1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1,
         2**32 + 1, -(2**32) + 1, 2**62, 2**63}
    return sorted(v for v in c if lo <= v <= hi)


def _size(path: str) -> int:
    return N // 2 if path == "2-d mixed" else N


_JAX: dict[str, Callable[..., Any]] = {
    p: jax.jit(lambda a, i, f=f: f(jnp, jax.lax, a, i)) for p, f in PATHS.items()
}
_JIT: dict[str, Callable[..., Any]] = {p: tdx.jit(lambda a, i, f=f: f(tnp, lax, a, i)) for p, f in PATHS.items()}

A = np.arange(float(N))


def _oracle(path: str, v: int) -> np.ndarray:
    """JAX on the equivalent index in its safe range (the module docstring)."""
    n = _size(path)
    return np.asarray(_JAX[path](A, np.int64(min(max(v, -n - 1), n))))


def _eager(path: str, i: np.ndarray) -> np.ndarray:
    return np.asarray(PATHS[path](tnp, lax, tnp.asarray(A), tnp.asarray(i)))


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_indices_of_every_dtype_at_and_past_the_bounds(path: str, dtype: Any) -> None:
    vals = _values(dtype)
    batch = np.asarray(vals, dtype)
    vm = tdx.vmap(lambda i: PATHS[path](tnp, lax, tnp.asarray(A), i))
    jvm = tdx.jit(vm)
    got_vmap, got_jit_vmap = np.asarray(vm(batch)), np.asarray(jvm(batch))
    for k, v in enumerate(vals):
        i = np.asarray(v, dtype)
        want = _oracle(path, v)
        np.testing.assert_array_equal(_eager(path, i), want, err_msg=f"eager {path} {dtype} {v}")
        np.testing.assert_array_equal(np.asarray(_JIT[path](A, i)), want, err_msg=f"jit {path} {dtype} {v}")
        np.testing.assert_array_equal(got_vmap[k], want, err_msg=f"vmap {path} {dtype} {v}")
        np.testing.assert_array_equal(got_jit_vmap[k], want, err_msg=f"jit(vmap) {path} {dtype} {v}")


def test_the_issue_examples_clamp_as_jax() -> None:
    f = tdx.jit(lambda a, i: a[i])
    g = jax.jit(lambda a, i: a[i])
    a = np.arange(5.0)
    for v in (2**32 + 1, 2**31, 2**62, -(2**31) - 1, -(2**32) + 1):
        assert float(f(a, np.int64(v))) == float(g(a, np.int64(v))) == (4.0 if v > 0 else 0.0)


def test_uint64_past_2_63_is_out_of_bounds() -> None:
    """JAX clamps a uint64 scalar index past 2**63 (to the last element) but
    narrows a uint64 index array (``a[[2**63 + 2]]`` reads ``a[2]``): typedax
    reads the last element both ways, and drops it in updates."""
    a = np.arange(5.0)
    for v in (2**63, 2**63 + 2, 2**64 - 1):
        i = np.uint64(v)
        assert float(tdx.jit(lambda a, i: a[i])(a, i)) == float(jax.jit(lambda a, i: a[i])(a, i)) == 4.0
        np.testing.assert_array_equal(np.asarray(tdx.jit(lambda a, i: a[i[None]])(a, i)), [4.0])
        np.testing.assert_array_equal(np.asarray(tdx.jit(lambda a, i: a.at[i].set(9.0))(a, i)), a)
        np.testing.assert_array_equal(np.asarray(tnp.asarray(a).at[tnp.asarray(i)].set(9.0)), a)


def test_lax_gather_and_scatter_with_narrow_and_huge_indices() -> None:
    """The primitives themselves: a uint8 index on 300 elements (XLA would
    clamp in uint8), a uint64 past 2**63 (NumPy would wrap it negative)."""
    dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,))
    sdn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(), scatter_dims_to_operand_dims=(0,))
    jdn = jax.lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,))
    jsdn = jax.lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(), scatter_dims_to_operand_dims=(0,))
    for idx in (np.array([[255], [254]], np.uint8), np.array([[2**63], [2**64 - 1]], np.uint64)):
        for mode in ("clip", "fill", "promise_in_bounds"):
            def g(a: Any, i: Any, mode: str = mode) -> Any:
                return lax.gather(a, i, dn, (2,), mode=mode)

            def s(a: Any, i: Any, mode: str = mode) -> Any:
                return lax.scatter_add(a, i, np.ones((2, 2)), sdn, mode=mode)

            want_g = jax.lax.gather(A, np.minimum(idx.astype(np.uint64), N).astype(np.int64), jdn, (2,), mode=mode)
            want_s = jax.lax.scatter_add(A, np.minimum(idx.astype(np.uint64), N).astype(np.int64), np.ones((2, 2)), jsdn, mode=mode)
            for got in (g(A, idx), tdx.jit(g)(A, idx)):
                np.testing.assert_array_equal(np.asarray(got), np.asarray(want_g))
            for got in (s(A, idx), tdx.jit(s)(A, idx)):
                np.testing.assert_array_equal(np.asarray(got), np.asarray(want_s))


def test_vmap_of_narrow_indices_over_a_long_batch() -> None:
    """A batch longer than int8's maximum: the batch counter prepended to the
    indices widens (an int8 counter would wrap past 127)."""
    x = np.arange(200.0 * 3).reshape(200, 3)
    i = np.asarray(np.arange(200) % 3, np.int8)
    want = x[np.arange(200), i]
    for f in (tdx.vmap(lambda r, j: r[j[None]]), tdx.jit(tdx.vmap(lambda r, j: r[j[None]]))):
        np.testing.assert_array_equal(np.asarray(f(x, i))[:, 0], want)
    np.testing.assert_array_equal(
        np.asarray(tdx.jit(tdx.vmap(lambda r, j: lax.dynamic_slice(r, (j,), (1,))))(x, i))[:, 0], want
    )


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint32], ids=lambda d: np.dtype(d).name)
def test_x64_off(dtype: Any) -> None:
    """With x64 off the index dtype is int32: a uint32 past 2**31 saturates
    instead of wrapping negative."""
    with config.context(enable_x64=False):
        a = np.arange(float(N), dtype=np.float32)
        for path in ("scalar", "array", "dynamic_slice", "at.set"):
            f = tdx.jit(lambda a, i, f=PATHS[path]: f(tnp, lax, a, i))
            for v in _values(dtype):
                i = np.asarray(v, dtype)
                want = _oracle(path, v).astype(np.float32)
                np.testing.assert_array_equal(np.asarray(f(a, i)), want, err_msg=f"{path} {v}")
                eager = PATHS[path](tnp, lax, tnp.asarray(a), tnp.asarray(i))
                np.testing.assert_array_equal(np.asarray(eager), want, err_msg=f"eager {path} {v}")


# -- item 4: the acceptance property -------------------------------------------------
@st.composite
def _index_cases(draw: st.DrawFn) -> tuple[str, Any, int]:
    path = draw(st.sampled_from(["scalar", "array", "dynamic_slice", "at.set"]))
    dtype: Any = draw(st.sampled_from(DTYPES))
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    v = draw(st.one_of(st.sampled_from(_values(dtype)), st.integers(lo, hi)))
    return path, dtype, v


@ci_examples(40)
@given(_index_cases())
def test_eager_and_jit_agree_bit_for_bit_with_jax(case: tuple[str, Any, int]) -> None:
    path, dtype, v = case
    i = np.asarray(v, dtype)
    eager = _eager(path, i)
    jitted = np.asarray(_JIT[path](A, i))
    assert eager.dtype == jitted.dtype and eager.tobytes() == jitted.tobytes()
    np.testing.assert_array_equal(eager, _oracle(path, v))


# -- item 2: .at[idx].apply with repeated indices -----------------------------------------
def test_apply_with_repeated_indices_applies_once_per_occurrence() -> None:
    i = np.array([2, 2, 4])
    want = jnp.arange(5.0).at[i].apply(lambda v: v * 10)
    np.testing.assert_array_equal(np.asarray(want), [0.0, 1.0, 200.0, 3.0, 40.0])
    def f(x: Any) -> Any:
        return x.at[i].apply(lambda v: v * 10)

    for got in (f(tnp.arange(5.0)), tdx.jit(f)(np.arange(5.0))):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # a traced index array (a while loop over the counts), and vmap
    def g(x: Any, j: Any) -> Any:
        return x.at[j].apply(lambda v: v * 10)

    np.testing.assert_array_equal(np.asarray(tdx.jit(g)(np.arange(5.0), i)), np.asarray(want))
    xs, js = np.ones((3, 5)), np.array([[1, 1], [2, 3], [0, 0]])
    want_v = jax.vmap(g)(xs, js)
    for h in (tdx.vmap(g), tdx.jit(tdx.vmap(g))):
        np.testing.assert_array_equal(np.asarray(h(xs, js)), np.asarray(want_v))
    # 2-d, a slice with a repeated array index; and a scalar index
    x2 = np.arange(6.0).reshape(2, 3)
    k = np.array([1, 1])
    np.testing.assert_array_equal(
        np.asarray(tnp.asarray(x2).at[:, k].apply(lambda v: v + 1)), np.asarray(jnp.asarray(x2).at[:, k].apply(lambda v: v + 1))
    )
    np.testing.assert_array_equal(np.asarray(tnp.arange(5.0).at[2].apply(lambda v: v * 10)), [0.0, 1.0, 20.0, 3.0, 4.0])


def test_grad_of_apply_with_repeated_indices() -> None:
    """JAX's scatter_apply has no derivative (NotImplementedError); typedax's
    unrolls with concrete indices: d/dx sin(sin(x)) at the repeated one."""
    i = np.array([2, 2])
    def f(x: Any) -> Any:
        return x.at[i].apply(tnp.sin).sum()

    x = np.arange(5.0)
    want = np.ones(5)
    want[2] = np.cos(np.sin(2.0)) * np.cos(2.0)
    for d in (tdx.grad(f), tdx.jit(tdx.grad(f)), tdx.jacfwd(f)):
        np.testing.assert_allclose(np.asarray(d(x)), want, rtol=1e-14)
    # the forward value agrees with JAX's
    np.testing.assert_allclose(float(f(tnp.asarray(x))), float(jnp.arange(5.0).at[i].apply(jnp.sin).sum()), rtol=1e-15)


def test_power_with_repeated_indices_multiplies_the_powers() -> None:
    i = np.array([2, 2, 7, -1])
    p = np.array([2.0, 3.0, 4.0, 2.0])
    want = jnp.arange(5.0).at[i].power(p)
    for got in (tnp.arange(5.0).at[i].power(p), tdx.jit(lambda x: x.at[i].power(p))(np.arange(5.0))):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(
        np.asarray(tnp.arange(5).at[np.array([2, 2])].power(2)), np.asarray(jnp.arange(5).at[np.array([2, 2])].power(2))
    )


# -- item 3: vmap over a size-0 batch -----------------------------------------------------
EMPTY_BATCH: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
    "at.set": lambda np_, lx, x, i: x.at[i].set(1.0),
    "at.add": lambda np_, lx, x, i: x.at[i].add(1.0),
    "at.min": lambda np_, lx, x, i: x.at[i].min(1.0),
    "at.max": lambda np_, lx, x, i: x.at[i].max(1.0),
    "at.get": lambda np_, lx, x, i: x.at[i].get(),
    "at.get fill": lambda np_, lx, x, i: x.at[i].get(mode="fill", fill_value=2.0),
    "at.apply": lambda np_, lx, x, i: x.at[i].apply(lambda v: v * 2),
    "x[i]": lambda np_, lx, x, i: x[i],
    "gather": lambda np_, lx, x, i: x[np_.stack([i, i])],
    "dynamic_slice": lambda np_, lx, x, i: lx.dynamic_slice(x, (i,), (2,)),
    "dynamic_update_slice": lambda np_, lx, x, i: lx.dynamic_update_slice(x, np_.ones(2), (i,)),
}


@pytest.mark.parametrize("name", list(EMPTY_BATCH))
def test_vmap_over_an_empty_batch(name: str) -> None:
    f = EMPTY_BATCH[name]
    x, i = np.zeros((0, 3)), np.zeros(0, np.int64)
    want = jax.vmap(lambda x, i: f(jnp, jax.lax, x, i))(x, i)
    g = tdx.vmap(lambda x, i: f(tnp, lax, x, i))
    for h in (g, tdx.jit(g)):
        got = h(x, i)
        assert got.shape == want.shape and got.dtype == want.dtype
    # the operand unbatched, the indices batched (size 0)
    want1 = jax.vmap(lambda i: f(jnp, jax.lax, jnp.zeros(3), i))(i)
    got1 = tdx.vmap(lambda i: f(tnp, lax, tnp.zeros(3), i))(i)
    assert got1.shape == want1.shape and got1.dtype == want1.dtype
