"""cumsum, cumprod, cummax, cummin, cumlogsumexp against jax.lax: values
(eager bit for bit with jit up to 17 elements), jvp (cumprod at zeros,
cummax ties as JAX), grad, vmap vs a loop, cumsum's transpose (dot-product
test), the error paths."""

from __future__ import annotations

from collections.abc import Callable

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

from _examples import ci_examples, ci_some

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

OPS: dict[str, tuple[Callable[..., tdx.Array], Callable[..., jax.Array]]] = {
    "cumsum": (lax.cumsum, jax.lax.cumsum),
    "cumprod": (lax.cumprod, jax.lax.cumprod),
    "cummax": (lax.cummax, jax.lax.cummax),
    "cummin": (lax.cummin, jax.lax.cummin),
    "cumlogsumexp": (lax.cumlogsumexp, jax.lax.cumlogsumexp),
}


@ci_examples(15, otherwise=30, deadline=None)
@given(st.sampled_from(sorted(OPS)), st.sampled_from(["int32", "int64", "float32", "float64"]),
       hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), st.data())
def test_values_match_jax_and_jit(name: str, dtype: str, shape: tuple[int, ...], data: st.DataObject) -> None:
    if name == "cumlogsumexp" and dtype.startswith("int"):
        dtype = "float64"
    d = np.dtype(dtype)
    elems = st.integers(-3, 3) if d.kind == "i" else st.sampled_from([-2.0, -0.0, 0.0, 0.5, 1.5, np.nan, -np.inf])
    x = data.draw(hnp.arrays(d, shape, elements=elems))
    axis = data.draw(st.integers(0, len(shape) - 1))
    reverse = data.draw(st.booleans())
    ours, theirs = OPS[name]
    eager = np.asarray(ours(x, axis, reverse))
    compiled = np.asarray(tdx.jit(lambda v: ours(v, axis, reverse))(x))
    want = np.asarray(theirs(x, axis, reverse))
    assert eager.dtype == want.dtype == compiled.dtype
    if name != "cumlogsumexp":  # exp and log1p: XLA's and libm's last bits may differ
        # bit for bit, but for the sign of NaNs (XLA's and NumPy's differ; it means nothing)
        e, c = (np.where(np.isnan(a), np.nan, a).astype(d) if d.kind == "f" else a for a in (eager, compiled))
        np.testing.assert_array_equal(e.view(f"u{d.itemsize}"), c.view(f"u{d.itemsize}"))
    else:
        np.testing.assert_allclose(eager, compiled, rtol=1e-6 if d == np.float32 else 1e-14)
    if name == "cumlogsumexp":
        np.testing.assert_allclose(eager, want, rtol=1e-6)
    else:
        np.testing.assert_array_equal(eager, want)


@pytest.mark.parametrize("name", ["cumprod", "cummax", "cummin", "cumlogsumexp", "cumsum"])
@pytest.mark.parametrize("reverse", [False, True])
def test_jvp_and_grad_match_jax(name: str, reverse: bool) -> None:
    # zeros (cumprod), ties (cummax/cummin: JAX's split of the tangent), odd and even lengths
    x = np.array([[1.0, 0.0, 2.0, 2.0, -1.0, 0.0, 3.0], [0.5, 0.5, 0.5, -2.0, 1.5, 1.5, 0.25]])
    t = np.linspace(-1.0, 1.0, 14).reshape(2, 7)
    ours, theirs = OPS[name]
    # ci: one of the two axes (odd and even lengths), alternating over the parametrizations (each
    # compiles JAX's scan); make test-long runs both
    i = 2 * ["cumprod", "cummax", "cummin", "cumlogsumexp", "cumsum"].index(name) + 3 * reverse
    for axis, xs, ts in ci_some([(1, x, t), (0, x[:, :6].T, t[:, :6].T)], i):
        _, to = tdx.jvp(lambda v: ours(v, axis, reverse), (xs,), (ts,))
        _, tj = jax.jvp(lambda v: theirs(v, axis, reverse), (xs,), (ts,))
        np.testing.assert_allclose(np.asarray(to), np.asarray(tj), rtol=1e-12, atol=1e-12)
        g = tdx.grad(lambda v: tnp.sum(tnp.sin(ours(v, axis, reverse))))(xs)
        gj = jax.grad(lambda v: jax.numpy.sum(jax.numpy.sin(theirs(v, axis, reverse))))(xs)
        np.testing.assert_allclose(np.asarray(g), np.asarray(gj), rtol=1e-12, atol=1e-12)


def test_grad_matches_finite_differences() -> None:
    x = np.array([0.3, -1.2, 0.7, 2.0, -0.4])
    for name in ("cumprod", "cumlogsumexp"):
        ours, _ = OPS[name]

        def f(v: object) -> tdx.Array:
            return tnp.sum(tnp.sin(ours(v, 0, False)))

        g = np.asarray(tdx.grad(f)(x))
        eps = 1e-6
        fd = [(float(f(x + eps * e)) - float(f(x - eps * e))) / (2 * eps) for e in np.eye(5)]
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_cumsum_transpose_dot_product() -> None:
    rng = np.random.default_rng(0)
    x, ct = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    for reverse in (False, True):
        _, f_vjp = tdx.vjp(lambda v: lax.cumsum(v, 1, reverse), x)
        (back,) = f_vjp(ct)
        lhs = float(np.sum(np.asarray(lax.cumsum(x, 1, reverse)) * ct))
        np.testing.assert_allclose(lhs, float(np.sum(x * np.asarray(back))), rtol=1e-12)


def test_vmap_matches_a_loop() -> None:
    x = np.arange(24.0).reshape(2, 3, 4) % 5 - 2
    for name, (ours, _) in OPS.items():
        for in_axis in (0, 1, 2):
            xs = [np.take(x, i, axis=in_axis) for i in range(x.shape[in_axis])]
            got = tdx.vmap(lambda v: ours(v, 1, True), in_axes=in_axis)(x)
            want = np.stack([np.asarray(ours(v, 1, True)) for v in xs])
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=name)


def test_numpy_cumsum_and_cumprod_as_jax_numpy() -> None:
    i = np.array([[1, 2, 3], [4, -5, 6]], np.int32)
    for f, g in ((tnp.cumsum, jax.numpy.cumsum), (tnp.cumprod, jax.numpy.cumprod)):
        for kw in ({}, {"axis": 1}, {"axis": -2}, {"dtype": np.float32}, {"dtype": bool}):
            a, b = np.asarray(f(i, **kw)), np.asarray(g(i, **kw))
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
        assert np.asarray(f(i > 0)).dtype == np.asarray(g(i > 0)).dtype


def test_errors() -> None:
    x = np.ones((2, 3))
    with pytest.raises(PrimitiveTypeError, match=r"cumsum: axis 2 is out of bounds for float64\[2,3\]"):
        lax.cumsum(x, 2)
    with pytest.raises(PrimitiveTypeError, match=r"cummax: axis -1 is out of bounds"):
        lax.cummax(x, -1)
    with pytest.raises(PrimitiveTypeError, match="cumprod takes integer, float or complex operands, got bool"):
        lax.cumprod(x > 0)
    with pytest.raises(PrimitiveTypeError, match="cumlogsumexp takes float operands, got int32"):
        lax.cumlogsumexp(np.ones(3, np.int32))
    with pytest.raises(PrimitiveTypeError, match="cummin: reverse must be a bool"):
        lax.cummin(x, 0, 1)  # type: ignore[arg-type]  # the error path under test
    with pytest.raises(PrimitiveTypeError, match="cumsum: axis must be integers"):
        lax.cumsum(x, 0.0)  # type: ignore[arg-type]  # the error path under test


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("shape", [(1,), (2,), (1, 3)])
def test_cumsum_signed_zeros_match_jit(shape: tuple[int, ...], reverse: bool) -> None:
    """XLA passes a one-element window through (-0.0 stays -0.0) and adds
    the +0 identity on longer axes (-0.0 becomes +0.0): eager does the same."""
    x = np.full(shape, -0.0, np.float32)
    eager = np.asarray(lax.cumsum(x, 0, reverse))
    jitted = np.asarray(tdx.jit(lambda v: lax.cumsum(v, 0, reverse))(x))
    assert np.signbit(eager).tolist() == np.signbit(jitted).tolist()
