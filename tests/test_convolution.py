"""``lax.conv_general_dilated`` and its relatives against a loop nest written
here from XLA's definition and against ``jax.lax``: 1 to 3 spatial
dimensions, random layouts, strides, every padding kind, input and kernel
dilation, feature and batch groups, float and integer dtypes; eager, ``jit``,
``vmap`` (input, kernel, both; against a loop), ``grad`` (against JAX's and
finite differences), the transposes (dot-product test), the jaxpr text round
trip, the lax helpers, and every error."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import hypothesis.strategies as st
import jax
import numpy as np
import pytest
from hypothesis import given, settings

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import parse_jaxpr
from typedax.core.errors import JaxprTextTypeError, PrimitiveTypeError

from _examples import ci_examples, ci_jit

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

Arr = np.ndarray[Any, np.dtype[Any]]


def J(x: Arr) -> jax.Array:
    """A NumPy value as JAX's array (jax.lax's annotations ask for one)."""
    return jax.numpy.asarray(x)


class Case(NamedTuple):
    lhs: Arr
    rhs: Arr
    strides: tuple[int, ...]
    padding: str | tuple[tuple[int, int], ...]
    lhs_dilation: tuple[int, ...]
    rhs_dilation: tuple[int, ...]
    dn: lax.ConvDimensionNumbers
    groups: int  # feature_group_count
    batch_groups: int  # batch_group_count

    def kwargs(self) -> dict[str, Any]:
        return dict(
            window_strides=self.strides, padding=self.padding, lhs_dilation=self.lhs_dilation,
            rhs_dilation=self.rhs_dilation, dimension_numbers=self.dn,
            feature_group_count=self.groups, batch_group_count=self.batch_groups,
        )

    def ours(self, x: Any, w: Any) -> tdx.Array:
        return lax.conv_general_dilated(x, w, **self.kwargs())

    def jax(self, x: Any, w: Any) -> jax.Array:
        kw = self.kwargs()
        kw["dimension_numbers"] = jax.lax.ConvDimensionNumbers(*self.dn)
        return jax.lax.conv_general_dilated(x, w, **kw)


def _dil(d: int, k: int) -> int:
    return max(0, 1 + k * (d - 1))


def _place(shape: tuple[int, ...], spec: tuple[int, ...]) -> tuple[int, ...]:
    """A canonical-order shape (batch, feature, spatial...) laid out by ``spec``."""
    out = [0] * len(shape)
    for k, d in enumerate(spec):
        out[d] = shape[k]
    return tuple(out)


@st.composite
def convs(draw: st.DrawFn, dtypes: tuple[str, ...] = ("float32", "float64", "int32", "int64"),
          max_spatial: int = 3) -> Case:
    n = draw(st.integers(1, max_spatial))
    nd = n + 2
    dn = lax.ConvDimensionNumbers(*(tuple(draw(st.permutations(range(nd)))) for _ in range(3)))
    g, b = draw(st.sampled_from([(1, 1), (1, 1), (2, 1), (3, 1), (1, 2), (1, 3)]))
    cg, og, nb = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    big = 4 if n < 3 else 2  # the loop nest in 3-d stays small
    kernel = tuple(draw(st.integers(1, min(3, big))) for _ in range(n))
    rd = tuple(draw(st.integers(1, 2)) for _ in range(n))
    strides = tuple(draw(st.integers(1, 3)) for _ in range(n))
    kind = draw(st.sampled_from(["VALID", "SAME", "SAME_LOWER", "explicit", "explicit"]))
    ld: tuple[int, ...] = (1,) * n
    padding: str | tuple[tuple[int, int], ...]
    if kind == "explicit":
        ld = tuple(draw(st.integers(1, 2)) for _ in range(n))
        sizes = tuple(draw(st.integers(1, big)) for _ in range(n))
        pads = []
        for i in range(n):
            need = _dil(kernel[i], rd[i]) - _dil(sizes[i], ld[i])  # lo + hi must be >= need
            lo = draw(st.integers(-1, 2))
            hi = draw(st.integers(max(need - lo, -1), max(need - lo, -1) + 2))
            pads.append((lo, hi))
        padding = tuple(pads)
    else:
        padding = kind
        sizes = tuple(
            draw(st.integers(_dil(kernel[i], rd[i]) if kind == "VALID" else 1, _dil(kernel[i], rd[i]) + 2))
            for i in range(n)
        )
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    lhs_shape = _place((nb * b, cg * g) + sizes, dn.lhs_spec)
    rhs_shape = _place((og * max(g, b), cg) + kernel, dn.rhs_spec)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype.kind == "i":
        x, w = (rng.integers(-3, 4, s).astype(dtype) for s in (lhs_shape, rhs_shape))
    else:
        x, w = (rng.uniform(-2, 2, s).astype(dtype) for s in (lhs_shape, rhs_shape))
    return Case(x, w, strides, padding, ld, rd, dn, g, b)


def _pads(c: Case) -> tuple[tuple[int, int], ...]:
    if not isinstance(c.padding, str):
        return c.padding
    sizes = [c.lhs.shape[d] for d in c.dn.lhs_spec[2:]]
    k = [_dil(c.rhs.shape[d], r) for d, r in zip(c.dn.rhs_spec[2:], c.rhs_dilation)]
    out = []
    for s, kk, st_ in zip(sizes, k, c.strides):
        if c.padding == "VALID":
            out.append((0, 0))
            continue
        total = max((-(-s // st_) - 1) * st_ + kk - s, 0)
        out.append((total // 2, total - total // 2) if c.padding == "SAME" else (total - total // 2, total // 2))
    return tuple(out)


def reference(c: Case) -> Arr:
    """XLA's convolution written out: for every output position and kernel
    position, the input element it reads (if any: dilation holes and padding
    read zero), contracted over the group's input features."""
    x = np.transpose(c.lhs, c.dn.lhs_spec).astype(np.float64 if c.lhs.dtype.kind == "f" else np.int64)
    w = np.transpose(c.rhs, c.dn.rhs_spec).astype(x.dtype)
    pads = _pads(c)
    n = x.ndim - 2
    groups = max(c.groups, c.batch_groups)
    nb = x.shape[0] // c.batch_groups
    o_total, cg = w.shape[0], w.shape[1]
    og = o_total // groups
    out_sp = []
    for i in range(n):
        padded = _dil(x.shape[2 + i], c.lhs_dilation[i]) + pads[i][0] + pads[i][1]
        out_sp.append((padded - _dil(w.shape[2 + i], c.rhs_dilation[i])) // c.strides[i] + 1)
    out = np.zeros((nb, o_total, *out_sp), x.dtype)
    for pos in itertools.product(*(range(o) for o in out_sp)):
        for kp in itertools.product(*(range(k) for k in w.shape[2:])):
            src = []
            for i in range(n):
                p = pos[i] * c.strides[i] + kp[i] * c.rhs_dilation[i] - pads[i][0]
                if p < 0 or p % c.lhs_dilation[i] or p // c.lhs_dilation[i] >= x.shape[2 + i]:
                    break
                src.append(p // c.lhs_dilation[i])
            else:
                for gi in range(groups):
                    rows = slice(gi * nb, (gi + 1) * nb) if c.batch_groups > 1 else slice(None)
                    feats = slice(gi * cg, (gi + 1) * cg) if c.groups > 1 else slice(None)
                    xi: tuple[Any, ...] = (rows, feats, *src)
                    wi: tuple[Any, ...] = (slice(gi * og, (gi + 1) * og), slice(None), *kp)
                    oi: tuple[Any, ...] = (slice(None), slice(gi * og, (gi + 1) * og), *pos)
                    out[oi] += x[xi] @ w[wi].T  # (nb, cg) @ (cg, og)
    return np.transpose(out, np.argsort(c.dn.out_spec)).astype(c.lhs.dtype)


ON_GPU = tdx.default_backend() == "gpu"


def _tol(dtype: np.dtype[Any]) -> float:
    if dtype == np.float32:
        return 5e-3 if ON_GPU else 1e-4  # a GPU's default float32 convolution is TF32 (JAX's too)
    return 1e-11


def _refused_as_jax(theirs: Callable[[], object], *ours: Callable[[], object]) -> bool:
    """Whether JAX refuses the convolution on this platform (cuDNN has no
    integer convolutions but int8's, so XLA's GPU backend refuses them, JAX's
    as typedax's); if so, check that each of ``ours`` refuses it with JAX's
    error too."""
    try:
        theirs()
    except jax.errors.JaxRuntimeError as e:
        if not ON_GPU or "integer convolutions" not in str(e):
            raise
        for call in ours:
            with pytest.raises(jax.errors.JaxRuntimeError, match="integer convolutions"):
                call()
        return True
    return False


# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs 60
@ci_examples(15, otherwise=60, deadline=None)
@given(convs())
def test_eager_matches_the_loop_nest_jax_and_jit(c: Case) -> None:
    if _refused_as_jax(lambda: np.asarray(c.jax(c.lhs, c.rhs)), lambda: np.asarray(c.ours(c.lhs, c.rhs)),
                       lambda: np.asarray(tdx.jit(c.ours)(c.lhs, c.rhs))):
        return
    got = np.asarray(c.ours(c.lhs, c.rhs))
    want = reference(c)
    theirs = np.asarray(c.jax(c.lhs, c.rhs))
    compiled = np.asarray(tdx.jit(c.ours)(c.lhs, c.rhs))
    assert got.shape == want.shape == theirs.shape == compiled.shape
    assert got.dtype == theirs.dtype == compiled.dtype == c.lhs.dtype
    if c.lhs.dtype.kind == "i":
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got, theirs)
        np.testing.assert_array_equal(compiled, got)
    else:
        tol = _tol(c.lhs.dtype)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        np.testing.assert_allclose(got, theirs, rtol=tol, atol=tol)
        np.testing.assert_allclose(compiled, got, rtol=tol, atol=tol)


@settings(deadline=None, max_examples=30)
@given(convs(dtypes=("float64",), max_spatial=2), st.sampled_from([(0, None), (None, 0), (0, 0), (1, 2)]))
def test_vmap_matches_a_loop(c: Case, axes: tuple[int | None, int | None]) -> None:
    size = 3
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, c.lhs.shape[: axes[0]] + (size,) + c.lhs.shape[axes[0]:]) if axes[0] is not None else c.lhs
    ws = rng.uniform(-1, 1, c.rhs.shape[: axes[1]] + (size,) + c.rhs.shape[axes[1]:]) if axes[1] is not None else c.rhs
    got = np.asarray(tdx.vmap(c.ours, in_axes=axes)(xs, ws))
    for i in range(size):
        xi = np.take(xs, i, axes[0]) if axes[0] is not None else xs
        wi = np.take(ws, i, axes[1]) if axes[1] is not None else ws
        np.testing.assert_allclose(got[i], reference(c._replace(lhs=xi, rhs=wi)), rtol=1e-11, atol=1e-11)


# ci: 6 examples (JAX compiles each new shape's gradient); make test-long runs 12
@ci_examples(6, otherwise=12, deadline=None)
@given(convs(dtypes=("float64",), max_spatial=2))
def test_grad_matches_jax(c: Case) -> None:
    shape = reference(c).shape
    ct = np.cos(np.arange(math.prod(shape), dtype=np.float64)).reshape(shape)

    def ours(x: tdx.ArrayLike, w: tdx.ArrayLike) -> tdx.Array:
        return tnp.sum(tnp.sin(c.ours(x, w)) * ct)

    def theirs(x: Any, w: Any) -> jax.Array:
        return jax.numpy.sum(jax.numpy.sin(c.jax(x, w)) * ct)

    gx, gw = tdx.grad(ours, argnums=(0, 1))(c.lhs, c.rhs)
    jx, jw = jax.jit(jax.grad(theirs, argnums=(0, 1)))(c.lhs, c.rhs)  # one compilation, not one per operation
    np.testing.assert_allclose(np.asarray(gx), np.asarray(jx), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np.asarray(gw), np.asarray(jw), rtol=1e-10, atol=1e-10)


@settings(deadline=None, max_examples=40)
@given(convs(dtypes=("float64",)))
def test_transposes_pass_the_dot_product_test(c: Case) -> None:
    """<ct, f(x)> == <f^T(ct), x> for f linear in the input (kernel fixed) and
    in the kernel (input fixed)."""
    y = reference(c)
    ct = np.random.default_rng(1).uniform(-1, 1, y.shape)
    _, pull_x = tdx.vjp(lambda x: c.ours(x, c.rhs), c.lhs)
    _, pull_w = tdx.vjp(lambda w: c.ours(c.lhs, w), c.rhs)
    (tx,) = pull_x(ct)
    (tw,) = pull_w(ct)
    assert np.asarray(tx).shape == c.lhs.shape and np.asarray(tw).shape == c.rhs.shape
    lhs_side = float(np.sum(ct * y))
    np.testing.assert_allclose(float(np.sum(np.asarray(tx) * c.lhs)), lhs_side, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(float(np.sum(np.asarray(tw) * c.rhs)), lhs_side, rtol=1e-10, atol=1e-10)


def _case(**kw: Any) -> Case:
    """A fixed 2-d case (NHWC input, HWIO kernel, NCHW output, 3 feature groups), with ``kw`` replaced."""
    rng = np.random.default_rng(3)
    base = Case(
        lhs=rng.uniform(-1, 1, (4, 5, 6, 6)), rhs=rng.uniform(-1, 1, (3, 2, 2, 6)), strides=(2, 1),
        padding=((1, 0), (2, -1)), lhs_dilation=(1, 2), rhs_dilation=(2, 1),
        dn=lax.conv_dimension_numbers((4, 5, 6, 6), (3, 2, 2, 6), ("NHWC", "HWIO", "NCHW")),
        groups=3, batch_groups=1,
    )
    return base._replace(**kw)


@pytest.mark.parametrize("groups", [(3, 1), (1, 2), (1, 1)])
def test_grad_matches_finite_differences_and_jit(groups: tuple[int, int]) -> None:
    g, b = groups
    rng = np.random.default_rng(4)
    w = rng.uniform(-1, 1, (3, 2, 6 // g, 6))
    c = _case(rhs=w, groups=g, batch_groups=b)

    def f(x: tdx.ArrayLike, w: tdx.ArrayLike) -> tdx.Array:
        return tnp.sum(tnp.tanh(c.ours(x, w)))

    gx, gw = tdx.grad(f, argnums=(0, 1))(c.lhs, c.rhs)
    jx, jw = tdx.jit(tdx.grad(f, argnums=(0, 1)))(c.lhs, c.rhs)
    np.testing.assert_allclose(np.asarray(jx), np.asarray(gx), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(jw), np.asarray(gw), rtol=1e-12, atol=1e-12)
    eps = 1e-6
    for arg, grad in ((0, gx), (1, gw)):
        base = [c.lhs, c.rhs]
        flat = base[arg].ravel()
        for k in rng.choice(flat.size, 6, replace=False):
            up, down = flat.copy(), flat.copy()
            up[k] += eps
            down[k] -= eps
            args_up = list(base)
            args_dn = list(base)
            args_up[arg] = up.reshape(base[arg].shape)
            args_dn[arg] = down.reshape(base[arg].shape)
            fd = (float(np.asarray(f(*args_up))) - float(np.asarray(f(*args_dn)))) / (2 * eps)
            np.testing.assert_allclose(np.asarray(grad).ravel()[k], fd, rtol=1e-6, atol=1e-7)


def test_vmap_under_jit_and_grad_of_vmap() -> None:
    c = _case()
    xs = np.stack([c.lhs, 2 * c.lhs])
    ws = np.stack([c.rhs, -c.rhs])
    got = np.asarray(tdx.jit(tdx.vmap(c.ours))(xs, ws))
    want = np.asarray(jax.vmap(c.jax)(xs, ws))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    g = tdx.grad(lambda w: tnp.sum(tdx.vmap(c.ours, in_axes=(0, None))(xs, w) ** 2))(c.rhs)
    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    gj = ci_jit(jax.grad(lambda w: jax.numpy.sum(jax.vmap(c.jax, in_axes=(0, None))(xs, w) ** 2)))(c.rhs)
    np.testing.assert_allclose(np.asarray(g), np.asarray(gj), rtol=1e-11, atol=1e-11)


def test_vmap_of_a_zero_sized_batch() -> None:
    c = _case()
    out = tdx.vmap(c.ours)(np.zeros((0,) + c.lhs.shape), np.zeros((0,) + c.rhs.shape))
    assert np.asarray(out).shape == (0,) + np.asarray(c.ours(c.lhs, c.rhs)).shape


@pytest.mark.parametrize(
    ("xs", "ws", "specs", "groups"),
    [
        ((8, 16, 32, 32), (32, 16, 3, 3), ("NCHW", "OIHW", "NCHW"), (1, 1)),  # many blocks per image
        ((2, 40, 37, 32), (3, 3, 16, 64), ("NHWC", "HWIO", "NWHC"), (2, 1)),
        ((4, 9, 300), (8, 9, 5), ("NCW", "OIW", "NWC"), (1, 2)),
        ((2, 6, 9, 10, 11), (3, 3, 3, 6, 40), ("NCDHW", "DHWIO", "NDHWC"), (1, 1)),
        ((40, 9, 5), (12, 3, 2), ("NCW", "OIW", "NCW"), (3, 1)),  # several images per block
    ],
)
def test_larger_convolutions_match_jax(
    xs: tuple[int, ...], ws: tuple[int, ...], specs: tuple[str, str, str], groups: tuple[int, int]
) -> None:
    """Sizes where evaluation splits the work in blocks (of output rows, or of images)."""
    rng = np.random.default_rng(9)
    g, b = groups
    x, w = rng.uniform(-1, 1, xs), rng.uniform(-1, 1, ws)
    n = len(xs) - 2
    kw: dict[str, Any] = dict(window_strides=(1,) * n, padding="SAME", rhs_dilation=(2,) + (1,) * (n - 1),
                              dimension_numbers=specs, feature_group_count=g, batch_group_count=b)
    got = np.asarray(lax.conv_general_dilated(x, w, **kw))
    want = np.asarray(jax.lax.conv_general_dilated(J(x), J(w), **kw))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_empty_operands() -> None:
    """Empty batch, features or output features give empty or zero results
    as JAX's; the gradient with respect to an input with an empty spatial
    dimension (the padding alone holds the window) is empty."""
    for xs, ws in [((0, 3, 5), (4, 3, 2)), ((2, 0, 5), (4, 0, 2)), ((2, 3, 5), (0, 3, 2)), ((2, 3), (4, 3))]:
        x, w = np.ones(xs), np.ones(ws)
        n = len(xs) - 2
        got = np.asarray(lax.conv_general_dilated(x, w, (1,) * n, [(0, 0)] * n))
        compiled = np.asarray(tdx.jit(lambda a, b: lax.conv_general_dilated(a, b, (1,) * n, [(0, 0)] * n))(x, w))
        want = np.asarray(jax.lax.conv_general_dilated(J(x), J(w), (1,) * n, [(0, 0)] * n))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(compiled, want)
    x, w = np.ones((2, 3, 0)), np.ones((4, 3, 1))
    out = lax.conv_general_dilated(x, w, (1,), [(1, 1)])
    np.testing.assert_array_equal(np.asarray(out), np.zeros((2, 4, 2)))
    def f(a: tdx.ArrayLike, b: tdx.ArrayLike) -> tdx.Array:
        return tnp.sum(lax.conv_general_dilated(a, b, (1,), [(1, 1)]))

    gx, gw = tdx.grad(f, argnums=(0, 1))(x, w)
    assert np.asarray(gx).shape == (2, 3, 0)
    np.testing.assert_array_equal(np.asarray(gw), np.zeros((4, 3, 1)))


def test_jaxpr_text_round_trips_with_conv_params() -> None:
    c = _case()

    def f(x: tdx.ArrayLike, w: tdx.ArrayLike) -> tdx.Array:
        y = lax.conv_general_dilated(x, w, c.strides, c.padding, c.lhs_dilation, c.rhs_dilation, c.dn,
                                     feature_group_count=3, precision=lax.Precision.HIGHEST)
        return tnp.sum(y * y)

    # the gradient holds both transposed convolutions (input dilation, swapped groups)
    closed = tdx.make_jaxpr(tdx.grad(f, argnums=(0, 1)))(c.lhs, c.rhs)
    text = str(closed.jaxpr)
    assert text.count("conv_general_dilated") == 3
    assert 'precision=("HIGHEST", "HIGHEST")' in text and "batch_group_count=3" in text
    assert "dimension_numbers=((0, 3, 1, 2), (3, 2, 0, 1), (0, 1, 2, 3))" in text
    back = parse_jaxpr(text)
    assert back == closed.jaxpr
    assert str(back) == text
    np.testing.assert_allclose(
        np.asarray(tdx.core.eval_jaxpr(back, [c.lhs, c.rhs])[1]),
        np.asarray(tdx.grad(f, argnums=1)(c.lhs, c.rhs)), rtol=1e-12,
    )
    # a dtype param, and no spatial dimensions at all
    xi, wi = np.ones((1, 2, 5), np.int8), np.ones((3, 2, 2), np.int8)
    j = tdx.make_jaxpr(lambda a, b: lax.conv_general_dilated(a, b, (1,), "SAME", preferred_element_type=np.int16))(xi, wi).jaxpr
    assert "preferred_element_type=int16" in str(j)
    assert parse_jaxpr(str(j)) == j and str(parse_jaxpr(str(j))) == str(j)
    j = tdx.make_jaxpr(lambda a, b: lax.conv_general_dilated(a, b, (), []))(np.ones((2, 3)), np.ones((4, 3))).jaxpr
    assert "padding=()" in str(j) and parse_jaxpr(str(j)) == j


def test_lowering_emits_stablehlo_convolution() -> None:
    c = _case(padding=((1, 1), (0, 0)), lhs_dilation=(1, 1))
    text = tdx.jit(c.ours).trace(c.lhs, c.rhs).lower().as_text()
    assert "stablehlo.convolution" in text
    assert "feature_group_count = 3" in text


# -- the lax helpers --------------------------------------------------------------------------
def test_conv_dimension_numbers_prints_as_jax() -> None:
    dn = lax.conv_dimension_numbers((1, 200, 198, 3), (3, 3, 3, 3), ("NHWC", "HWIO", "NHWC"))
    assert repr(dn) == "ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))"
    for specs in [("NWC", "WIO", "NWC"), ("NCW", "OIW", "NWC"), ("NHWDC", "HWDIO", "NHWDC"),
                  ("NCHWD", "OIDHW", "NDHWC"), ("CN", "IO", "NC"), ("HNCW", "OWHI", "WCHN")]:
        shape = (2,) * len(specs[0])
        ours = lax.conv_dimension_numbers(shape, shape, specs)
        assert repr(ours) == repr(jax.lax.conv_dimension_numbers(shape, shape, specs))
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None) == ((0, 1, 2),) * 3
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), dn) == dn


@pytest.mark.parametrize("padding", ["SAME", "VALID", "SAME_LOWER", "same"])
def test_padtype_to_pads_matches_jax(padding: str) -> None:
    for shape, window, strides in [((7, 4), (3, 2), (2, 1)), ((5,), (5,), (3,)), ((1, 9, 2), (2, 4, 1), (3, 2, 2))]:
        assert lax.padtype_to_pads(shape, window, strides, padding) == [
            tuple(p) for p in jax.lax.padtype_to_pads(shape, window, strides, padding)
        ]


@pytest.mark.parametrize(
    ("xs", "fs", "specs"),
    [((2, 3, 7, 6), (2, 3), None), ((2, 7, 6, 3), (3, 2), ("NHWC", "HWIO", "NHWC")),
     ((1, 9, 4), (3,), ("NWC", "WIO", "NCW")), ((1, 2, 4, 5, 3), (2, 1, 2), ("NCHWD", "OIDHW", "NDHWC"))],
)
def test_conv_general_dilated_patches_matches_jax(
    xs: tuple[int, ...], fs: tuple[int, ...], specs: tuple[str, str, str] | None
) -> None:
    x = np.random.default_rng(10).uniform(-1, 1, xs)
    n = len(xs) - 2
    for pad in ("SAME", "VALID", [(1, 0)] * n):
        kw: dict[str, Any] = dict(rhs_dilation=(2,) + (1,) * (n - 1), dimension_numbers=specs)
        got = lax.conv_general_dilated_patches(x, fs, (1,) * n, pad, **kw)
        want = jax.lax.conv_general_dilated_patches(J(x), fs, (1,) * n, pad, **kw)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    compiled = tdx.jit(lambda a: lax.conv_general_dilated_patches(a, fs, (1,) * n, "SAME", dimension_numbers=specs))(x)
    want = jax.lax.conv_general_dilated_patches(J(x), fs, (1,) * n, "SAME", dimension_numbers=specs)
    np.testing.assert_array_equal(np.asarray(compiled), np.asarray(want))


def test_shape_tuples_and_permutations_match_jax() -> None:
    cases: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], Any]] = [
        ((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), "SAME"), ((1, 1, 5), (2, 1, 3), (1,), "VALID"),
        ((6, 2, 7, 7), (5, 2, 2, 2), (3, 2), [(1, 2), (0, -1)]),
    ]
    for lhs, rhs, strides, pads in cases:
        want = jax.lax.conv_shape_tuple(lhs, rhs, strides, pads)  # type: ignore[no-untyped-call]  # jax leaves it unannotated
        assert lax.conv_shape_tuple(lhs, rhs, strides, pads) == tuple(want)
    assert lax.conv_shape_tuple((6, 2, 7), (4, 2, 2), (1,), "VALID", batch_group_count=2) == (3, 4, 6)
    specs = ("NHWC", "HWIO", "NCHW")
    for p in ("SAME", "VALID", [(1, 0), (2, 2)]):
        args: tuple[Any, ...] = ((2, 9, 8, 3), (3, 2, 3, 5), (2, 3), p, specs)
        want = jax.lax.conv_general_shape_tuple(*args)  # type: ignore[no-untyped-call]  # jax leaves it unannotated
        assert lax.conv_general_shape_tuple(*args) == tuple(want)
        want = jax.lax.conv_transpose_shape_tuple(*args)  # type: ignore[no-untyped-call]  # jax leaves it unannotated
        assert lax.conv_transpose_shape_tuple(*args) == tuple(want)
    for s in [("NCHW", "OIHW", "NCHW"), ("NWHC", "HIWO", "CHNW")]:
        want = jax.lax.conv_general_permutations(s)  # type: ignore[no-untyped-call]  # jax leaves it unannotated
        assert lax.conv_general_permutations(s) == want
    with pytest.raises(PrimitiveTypeError, match="Wrong number of explicit pads for convolution: expected 2, got 1"):
        lax.conv_shape_tuple((1, 1, 4, 4), (1, 1, 2, 2), (1, 1), [(0, 0)])
    with pytest.raises(PrimitiveTypeError, match="Negative padding is larger than the size"):
        lax.conv_shape_tuple((1, 1, 4), (1, 1, 2), (1,), [(-3, -2)])
    with pytest.raises(PrimitiveTypeError, match="convolution requires lhs and rhs ndim to be equal, got 3 and 4"):
        lax.conv_general_dilated_patches(np.ones((1, 2, 3)), (2, 2), (1, 1), "SAME", dimension_numbers=None)


def test_conv_and_conv_with_general_padding_match_jax() -> None:
    rng = np.random.default_rng(5)
    x, w = rng.uniform(-1, 1, (2, 3, 7, 6)), rng.uniform(-1, 1, (4, 3, 3, 2))
    for pad in ("SAME", "VALID"):
        np.testing.assert_allclose(np.asarray(lax.conv(x, w, (2, 1), pad)),
                                   np.asarray(jax.lax.conv(J(x), J(w), (2, 1), pad)), rtol=1e-12)
    got = lax.conv_with_general_padding(x, w, (1, 2), [(1, 2), (0, -1)], (2, 1), (1, 2))
    want = jax.lax.conv_with_general_padding(J(x), J(w), (1, 2), [(1, 2), (0, -1)], (2, 1), (1, 2))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


@pytest.mark.parametrize("padding", ["SAME", "VALID", ((1, 2), (0, 1))])
@pytest.mark.parametrize("transpose_kernel", [False, True])
@pytest.mark.parametrize("consistent", [False, True])
def test_conv_transpose_matches_jax(padding: Any, transpose_kernel: bool, consistent: bool) -> None:
    rng = np.random.default_rng(6)
    x, w = rng.uniform(-1, 1, (2, 5, 4, 3)), rng.uniform(-1, 1, (3, 2, 3, 3))
    kw: dict[str, Any] = dict(transpose_kernel=transpose_kernel, use_consistent_padding=consistent)
    got = lax.conv_transpose(x, w, (2, 3), padding, **kw)
    want = jax.lax.conv_transpose(J(x), J(w), (2, 3), padding, **kw)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
    # explicit layouts and kernel dilation, 1-d
    x1, w1 = rng.uniform(-1, 1, (2, 3, 6)), rng.uniform(-1, 1, (3, 3, 2))
    dn = ("NCH", "IOH", "NCH")
    got = lax.conv_transpose(x1, w1, (2,), padding if isinstance(padding, str) else padding[:1], (2,), dn, **kw)
    want = jax.lax.conv_transpose(J(x1), J(w1), (2,), padding if isinstance(padding, str) else padding[:1], (2,), dn, **kw)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "uint16", "uint32", "uint64"])
def test_narrow_and_unsigned_integers_wrap_as_jax(dtype: str) -> None:
    rng = np.random.default_rng(8)
    x = rng.integers(0, 100, (2, 3, 9)).astype(dtype)  # products and sums overflow int8/uint8
    w = rng.integers(0, 100, (4, 3, 3)).astype(dtype)
    kw: dict[str, Any] = dict(window_strides=(2,), padding=[(1, 2)], rhs_dilation=(2,))
    if _refused_as_jax(lambda: jax.lax.conv_general_dilated(J(x), J(w), **kw), lambda: lax.conv_general_dilated(x, w, **kw),
                       lambda: tdx.jit(lambda a, b: lax.conv_general_dilated(a, b, **kw))(x, w)):
        return
    got = np.asarray(lax.conv_general_dilated(x, w, **kw))
    compiled = np.asarray(tdx.jit(lambda a, b: lax.conv_general_dilated(a, b, **kw))(x, w))
    want = np.asarray(jax.lax.conv_general_dilated(J(x), J(w), **kw))
    assert got.dtype == compiled.dtype == want.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(compiled, want)


def test_preferred_element_type_and_precision() -> None:
    rng = np.random.default_rng(7)
    x, w = rng.integers(-3, 4, (1, 2, 5)).astype(np.int32), rng.integers(-3, 4, (3, 2, 2)).astype(np.int32)
    for pet in (np.int64, np.float32):
        if _refused_as_jax(
                lambda: np.asarray(jax.lax.conv_general_dilated(J(x), J(w), (1,), "SAME", preferred_element_type=pet)),
                lambda: np.asarray(lax.conv_general_dilated(x, w, (1,), "SAME", preferred_element_type=pet))):
            continue
        got = lax.conv_general_dilated(x, w, (1,), "SAME", preferred_element_type=pet)
        want = jax.lax.conv_general_dilated(J(x), J(w), (1,), "SAME", preferred_element_type=pet)
        compiled = tdx.jit(lambda a, b: lax.conv_general_dilated(a, b, (1,), "SAME", preferred_element_type=pet))(x, w)
        assert np.asarray(got).dtype == np.asarray(want).dtype == np.asarray(compiled).dtype == np.dtype(pet)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        np.testing.assert_array_equal(np.asarray(compiled), np.asarray(want))
    xf, wf = x.astype(np.float32), w.astype(np.float32)
    jp = jax.lax.Precision
    pairs: list[tuple[Any, Any]] = [(None, None), ("highest", "highest"), (lax.Precision.HIGH, jp.HIGH),
                                    ((lax.Precision.DEFAULT, lax.Precision.HIGHEST), (jp.DEFAULT, jp.HIGHEST))]
    for prec, jprec in pairs:
        got = tdx.jit(lambda a, b: lax.conv_general_dilated(a, b, (2,), "VALID", precision=prec))(xf, wf)
        want = jax.jit(lambda a, b: jax.lax.conv_general_dilated(a, b, (2,), "VALID", precision=jprec))(J(xf), J(wf))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # float32 accumulated in float64: the gradient comes back in float32
    g = tdx.grad(lambda a: tnp.sum(lax.conv_general_dilated(a, wf, (1,), "SAME", preferred_element_type=np.float64)))(xf)
    gj = jax.grad(lambda a: jax.numpy.sum(jax.lax.conv_general_dilated(a, J(wf), (1,), "SAME", preferred_element_type=np.float64)))(xf)
    assert np.asarray(g).dtype == np.float32
    np.testing.assert_allclose(np.asarray(g), np.asarray(gj), rtol=1e-6)


# -- errors -----------------------------------------------------------------------------------
X = np.zeros((2, 4, 5, 5))  # NCHW
W = np.zeros((6, 4, 3, 3))  # OIHW


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: lax.conv_general_dilated(X, np.zeros((6, 3, 3, 3)), (1, 1), "SAME"),
         r"lhs feature dimension \(dimension 1, size 4\) divided by feature_group_count 1 must equal the rhs "
         r"input feature dimension \(dimension 1, size 3\)"),
        (lambda: lax.conv_general_dilated(X, np.zeros((6, 4, 7, 3)), (1, 1), "VALID"),
         r"the dilated kernel \(rhs dimension 2: 7\) is larger than the padded, dilated input \(lhs dimension 2: 5\)"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), [(0, 0), (0, 0)], rhs_dilation=(3, 1)),
         r"the dilated kernel \(rhs dimension 2: 7\) is larger"),
        (lambda: lax.conv_general_dilated(X, np.zeros((6, 4, 3, 0)), (1, 1), [(0, 0), (0, 0)]),
         r"the kernel's spatial dimensions must not be empty \(rhs dimension 3 has size 0\)"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHX")),
         r"same set of spatial characters"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHH", "NCHW")),
         r"dimension_numbers\[1\] must contain the characters 'O' and 'I' exactly once|duplicate"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCH")),
         r"dimension_numbers\[2\] must have len equal to the ndim of lhs and rhs, got 3"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW")),  # type: ignore[arg-type]  # a wrong arity on purpose
         r"must be None, a ConvDimensionNumbers or three strings"),
        (lambda: lax.conv_general_dilated(X, W, (0, 1), [(0, 0), (0, 0)]),
         r"window_strides must be positive, got \(0, 1\)"),
        (lambda: lax.conv_general_dilated(X, W, (1, -2), [(0, 0), (0, 0)]),
         r"window_strides must be positive, got \(1, -2\)"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), [(0, 0), (0, 0)], lhs_dilation=(1, 0)),
         r"lhs_dilation must be positive"),
        (lambda: lax.conv_general_dilated(X, W, (1,), [(0, 0), (0, 0)]),
         r"window_strides must have one entry per spatial dimension \(2\), got \(1,\)"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), [(0, 0)]),
         r"padding must have one \(low, high\) pair per spatial dimension \(2\)"),
        (lambda: lax.conv_general_dilated(X, np.zeros((6, 2, 3, 3)), (1, 1), "SAME", feature_group_count=3),
         r"feature_group_count 3 must divide the lhs feature dimension \(dimension 1, size 4\)"),
        (lambda: lax.conv_general_dilated(X, np.zeros((5, 2, 3, 3)), (1, 1), "SAME", feature_group_count=2),
         r"rhs output feature dimension \(dimension 0, size 5\) must be a multiple of feature_group_count 2"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", batch_group_count=3),
         r"batch_group_count 3 must divide the lhs batch dimension \(dimension 0, size 2\)"),
        (lambda: lax.conv_general_dilated(X, np.zeros((5, 4, 3, 3)), (1, 1), "SAME", batch_group_count=2),
         r"rhs output feature dimension \(dimension 0, size 5\) must be a multiple of batch_group_count 2"),
        (lambda: lax.conv_general_dilated(X, np.zeros((6, 2, 3, 3)), (1, 1), "SAME", feature_group_count=2,
                                          batch_group_count=2),
         r"at most one of feature_group_count and batch_group_count may be > 1"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", feature_group_count=0),
         r"feature_group_count and batch_group_count must be positive"),
        (lambda: lax.conv_general_dilated(X, W[0], (1, 1), "SAME"), r"convolution requires lhs and rhs ndim to be equal"),
        (lambda: lax.conv_general_dilated(X, W.astype(np.float32), (1, 1), "SAME"),
         r"lhs and rhs must have one dtype, got float64 and float32"),
        (lambda: lax.conv_general_dilated(X > 0, W > 0, (1, 1), "SAME"), r"operands must be integers, floats or complex numbers, got bool"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), [(-6, 0), (0, 0)]),
         r"negative padding \(-6, 0\) is larger than lhs spatial dimension 2 \(size 5\)"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "FULL"), r"Unrecognized padding type"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", lhs_dilation=(2, 1)),
         r"string padding is not implemented for transposed convolution"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), [(0, 0), 3]),  # type: ignore[list-item]  # a bad pair on purpose
         r"padding must be 'SAME', 'SAME_LOWER', 'VALID' or a sequence of \(low, high\) pairs"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", precision="ultra"), r"precision must be None"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", precision=3),  # type: ignore[arg-type]  # a wrong type on purpose
         r"precision must be None, a lax.Precision"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", precision=("high", "high", "high")),  # type: ignore[arg-type]  # a wrong arity on purpose
         r"precision must be a pair"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", preferred_element_type=np.float32),
         r"preferred_element_type float32 must not be narrower than float64"),
        (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", preferred_element_type=np.int64),
         r"input type float64 is incompatible with preferred_element_type int64"),
        (lambda: lax.conv_transpose(X[0], W, (1, 1), "SAME"), r"conv_transpose: lhs and rhs must have one rank"),
        (lambda: lax.conv_transpose(X, W, (1, 1), "FULL", dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                    use_consistent_padding=True),
         r"conv_transpose: invalid padding mode 'FULL'"),
    ],
)
def test_errors_name_the_operation_and_the_dimensions(call: Any, message: str) -> None:
    with pytest.raises(PrimitiveTypeError, match=message):
        call()


def test_errors_under_jit_name_the_equation_shapes() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"conv_general_dilated\(lhs float64\[2,4,5,5\], rhs float64\[6,3,3,3\]"):
        tdx.jit(lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "SAME"))(X, np.zeros((6, 3, 3, 3)))


def test_malformed_params_in_jaxpr_text_are_refused() -> None:
    text = str(tdx.make_jaxpr(lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "SAME"))(X, W).jaxpr)
    for old, new, msg in [
        ("padding=((1, 1), (1, 1))", "padding=(1, 1)", "param 'padding' must be a tuple of"),
        ("dimension_numbers=((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))", "dimension_numbers=((0, 1, 2, 3),)",
         "param 'dimension_numbers' must be"),
        ("dimension_numbers=((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))",
         "dimension_numbers=((0, 1, 2, 2), (0, 1, 2, 3), (0, 1, 2, 3))", r"lhs_spec \(0, 1, 2, 2\) must be a permutation"),
        ("precision=None", 'precision="fast"', "param 'precision' must be None or a pair"),
        ("preferred_element_type=None", "preferred_element_type=3", "param 'preferred_element_type' must be None or a dtype"),
    ]:
        assert old in text
        with pytest.raises(JaxprTextTypeError, match=msg):
            parse_jaxpr(text.replace(old, new))
