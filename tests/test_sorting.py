"""sort (multi-operand, num_keys, stability, -0.0/NaN as JAX's comparator)
and top_k against jax.lax: eager, jit, jvp/grad, vmap vs a loop, the
transpose of sort in its payload operands, jnp.sort/argsort, error paths."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import PrimitiveTypeError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

FLOATS = st.sampled_from([-2.0, -0.0, 0.0, 1.0, 1.0, np.nan, -np.nan, np.inf, -np.inf])


def bits(a: object) -> np.ndarray:
    x = np.asarray(a)
    return x.view(f"u{x.dtype.itemsize}") if x.dtype.kind == "f" else x


@ci_examples(15, otherwise=30, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), st.integers(1, 3), st.data())
def test_sort_matches_jax_bit_for_bit(shape: tuple[int, ...], n_ops: int, data: st.DataObject) -> None:
    ops = [data.draw(hnp.arrays(np.float64, shape, elements=FLOATS)),
           data.draw(hnp.arrays(np.int32, shape, elements=st.integers(-2, 2))),
           data.draw(hnp.arrays(np.bool_, shape))][:n_ops]
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    nk = data.draw(st.integers(1, n_ops))
    want = jax.lax.sort(tuple(jax.numpy.asarray(o) for o in ops), dimension=dim, num_keys=nk)
    eager = lax.sort(ops, dim, True, nk)
    compiled = tdx.jit(lambda *xs: lax.sort(list(xs), dim, True, nk))(*ops)
    for e, c, w in zip(eager, compiled, want):
        np.testing.assert_array_equal(bits(e), bits(w))
        np.testing.assert_array_equal(bits(c), bits(w))


def test_signed_zeros_are_equal_keys_and_nans_go_last() -> None:
    x = np.array([0.0, -0.0, np.nan, -1.0, -0.0, 0.0])
    s, i = lax.sort_key_val(x, np.arange(6, dtype=np.int32))
    np.testing.assert_array_equal(np.asarray(i), [3, 0, 1, 4, 5, 2])
    np.testing.assert_array_equal(np.signbit(np.asarray(s)), [True, False, True, True, False, False])


# ci: 7 examples (each example compiles with XLA or runs JAX); make test-long runs 30
@ci_examples(7, otherwise=30, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), st.sampled_from(["float64", "float32", "int32", "bool"]), st.data())
def test_top_k_matches_jax(shape: tuple[int, ...], dtype: str, data: st.DataObject) -> None:
    d = np.dtype(dtype)
    elems = FLOATS if d.kind == "f" else (st.integers(-2, 2) if d.kind == "i" else st.booleans())
    x = data.draw(hnp.arrays(d, shape, elements=elems))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = data.draw(st.integers(0, shape[axis]))
    wv, wi = jax.lax.top_k(x, k, axis=axis)
    for v, i in (lax.top_k(x, k, axis=axis), tdx.jit(lambda a: lax.top_k(a, k, axis=axis))(x)):
        np.testing.assert_array_equal(bits(v), bits(wv))
        np.testing.assert_array_equal(np.asarray(i), np.asarray(wi))
        assert np.asarray(i).dtype == np.int32


def test_jvp_and_grad_match_jax() -> None:
    x = np.array([[3.0, 1.0, 2.0, 0.5], [-1.0, 4.0, 0.0, 2.5], [1.0, 1.5, -2.0, 0.25]])
    t = np.linspace(-1, 1, 12).reshape(3, 4)
    fns: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = [
        (lambda v: lax.sort(v, 1), lambda v: jax.lax.sort(v, dimension=1)),
        (lambda v: lax.sort(v, 0), lambda v: jax.lax.sort(v, dimension=0)),
        (lambda v: lax.sort_key_val(-v, v * v, 1)[1], lambda v: jax.lax.sort_key_val(-v, v * v, 1)[1]),
        (lambda v: lax.top_k(v, 2)[0], lambda v: jax.lax.top_k(v, 2)[0]),
        (lambda v: lax.top_k(v, 2, axis=0)[0], lambda v: jax.lax.top_k(v, 2, axis=0)[0]),
    ]
    for ours, theirs in fns:
        _, to = tdx.jvp(ours, (x,), (t,))
        _, tj = jax.jvp(theirs, (x,), (t,))
        np.testing.assert_allclose(np.asarray(to), np.asarray(tj), rtol=1e-12)
        g = tdx.grad(lambda v: tnp.sum(tnp.sin(ours(v)) * np.arange(np.asarray(ours(x)).size).reshape(np.asarray(ours(x)).shape)))(x)
        w = np.arange(np.asarray(theirs(x)).size).reshape(np.asarray(theirs(x)).shape)
        gj = jax.grad(lambda v: jax.numpy.sum(jax.numpy.sin(theirs(v)) * w))(x)
        np.testing.assert_allclose(np.asarray(g), np.asarray(gj), rtol=1e-12)


def test_transpose_of_a_payload_is_the_inverse_permutation() -> None:
    keys = np.array([2.0, -1.0, 0.5, 3.0])
    rng = np.random.default_rng(1)
    v, ct = rng.normal(size=4), rng.normal(size=4)
    _, f_vjp = tdx.vjp(lambda p: lax.sort_key_val(keys, p)[1], v)
    (back,) = f_vjp(ct)
    lhs = float(np.sum(np.asarray(lax.sort_key_val(keys, v)[1]) * ct))
    np.testing.assert_allclose(lhs, float(np.sum(v * np.asarray(back))), rtol=1e-12)


def test_vmap_matches_a_loop() -> None:
    x = (np.arange(24.0).reshape(2, 3, 4) * 7) % 5 - 2
    y = np.arange(12, dtype=np.int32).reshape(3, 4)
    for in_axis in (0, 1, 2):
        xs = [np.take(x, i, axis=in_axis) for i in range(x.shape[in_axis])]
        f: Callable[[Any], Any] = lambda v: lax.top_k(v, 2)[1]  # noqa: E731
        np.testing.assert_array_equal(np.asarray(tdx.vmap(f, in_axes=in_axis)(x)), np.stack([np.asarray(f(v)) for v in xs]))
        if x.shape[in_axis] == 2 or in_axis != 0:
            continue
    g: Callable[[Any, Any], Any] = lambda v, p: lax.sort([v, p], 0, True, 1)[1]  # noqa: E731  # the payload unbatched
    got = tdx.vmap(g, in_axes=(0, None))(x[:, :, :], y)
    np.testing.assert_array_equal(np.asarray(got), np.stack([np.asarray(g(v, y)) for v in x]))


def test_numpy_sort_and_argsort_as_jax_numpy() -> None:
    x = np.array([[3.0, 1.0, 3.0, np.nan, -0.0, 0.0], [1.0, 1.0, 2.0, 0.0, -1.0, 1.0]])
    for kw in ({}, {"axis": 0}, {"axis": None}, {"descending": True}, {"descending": True, "stable": False}):
        for f, g in ((tnp.sort, jax.numpy.sort), (tnp.argsort, jax.numpy.argsort)):
            a, b = np.asarray(f(x, **kw)), np.asarray(g(x, **kw))
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(bits(a), bits(b))


def test_errors() -> None:
    x = np.ones((2, 3))
    with pytest.raises(PrimitiveTypeError, match="sort: operands must have one shape"):
        lax.sort([x, np.ones(3)])
    with pytest.raises(PrimitiveTypeError, match=r"sort: num_keys=3 must be between 1 and the number of operands \(2\)"):
        lax.sort([x, x], num_keys=3)
    with pytest.raises(PrimitiveTypeError, match="sort: axis 2 is out of bounds"):
        lax.sort(tnp.asarray(x), 2)
    with pytest.raises(PrimitiveTypeError, match="sort: is_stable must be a bool"):
        lax.sort(x, is_stable=1)  # type: ignore[call-overload]  # the error path under test
    with pytest.raises(PrimitiveTypeError, match="top_k: k=4 must be between 0 and the size of axis 1"):
        lax.top_k(x, 4)
    with pytest.raises(PrimitiveTypeError, match="top_k: k must be nonnegative"):
        lax.top_k(x, -1)
    with pytest.raises(PrimitiveTypeError, match="top_k: the operand must have rank >= 1"):
        lax.top_k(np.float64(1.0), 1)
    from pyrsistent import pmap

    from typedax.core.avals import ShapedArray
    from typedax.primitives.sorting import sort_p

    with pytest.raises(PrimitiveTypeError, match="sort: operands must have rank >= 1"):
        sort_p.abstract_eval([ShapedArray((), np.dtype(np.float64))], pmap({"dimension": 0, "is_stable": True, "num_keys": 1}))
    with pytest.raises(PrimitiveTypeError, match="sort takes at least one operand"):
        sort_p.abstract_eval([], pmap({"dimension": 0, "is_stable": True, "num_keys": 1}))
