"""Windowed reductions (primitives/windowed.py) against JAX and written-out
references: ``lax.reduce_window`` with add / max / min (the monoid
primitives) and other computations (the general primitive), eager bit for
bit with ``jit``; gradients (ties as JAX's), ``vmap`` against a loop, the
transposes (dot-product tests), jaxpr round trips, and every error path."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import typedax as tdx
from typedax import lax
from typedax.core import parse_jaxpr
from typedax.core.errors import BatchingError, JaxprTypeError, PrimitiveTypeError
from typedax.core.ir import Jaxpr
from typedax.primitives import windowed
from typedax.primitives._params import params_of
from typedax.core.trace import bind1
from typedax.testing import jaxprs

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

NDArray = np.ndarray[Any, np.dtype[Any]]
Pads = str | list[tuple[int, int]]
WindowArgs = tuple[tuple[int, ...], tuple[int, ...], Pads, tuple[int, ...], tuple[int, ...]]

#: (our computation, JAX's, the init value for a dtype); the last two are the general primitive
KINDS: dict[str, tuple[Callable[..., Any], Callable[..., Any], Callable[[np.dtype[Any]], Any]]] = {
    "sum": (lax.add, jax.lax.add, lambda d: np.zeros((), d)),
    "max": (lax.max, jax.lax.max, lambda d: np.asarray(-np.inf if d.kind == "f" else np.iinfo(d).min if d.kind != "b" else False, d)),
    "min": (lax.min, jax.lax.min, lambda d: np.asarray(np.inf if d.kind == "f" else np.iinfo(d).max if d.kind != "b" else True, d)),
    "mul": (lax.mul, jax.lax.mul, lambda d: np.ones((), d)),
    "add-from-1": (lax.add, jax.lax.add, lambda d: np.ones((), d)),
}


@st.composite
def windows(draw: st.DrawFn, shape: tuple[int, ...]) -> WindowArgs:
    """Window params that fit ``shape``: sizes 1-3, strides 1-2, dilations
    1-2, padding as explicit pairs, 'SAME' or 'VALID'."""
    nd = len(shape)
    dims = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    strides = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    base = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    wdil = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    kind = draw(st.sampled_from(["pairs", "SAME", "VALID"]))
    eff = windowed.dilate_shape(dims, wdil)
    dil = windowed.dilate_shape(shape, base)
    pads: Pads
    pairs: list[tuple[int, int]]
    if kind == "pairs":
        pairs = [(draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in range(nd)]
        pads = pairs
    elif kind == "SAME":
        pads = "SAME"
        pairs = windowed._padtype_to_pads(shape, eff, strides, "SAME")
    else:
        pads = "VALID"
        pairs = [(0, 0)] * nd
    # the window must fit the padded, dilated operand: shrink it where it does not
    fixed = tuple(k if e <= n + lo + hi else 1 for k, e, n, (lo, hi) in zip(dims, eff, dil, pairs))
    return fixed, strides, pads, base, wdil


def arrays(dtype: np.dtype[Any], shape: tuple[int, ...], ties: bool = False, powers: bool = False) -> st.SearchStrategy[NDArray]:
    """Small dyadic values, -0.0 among them, so that sums (and, with
    ``powers``, products) are exact in any order; ``ties`` draws from fewer."""
    n = int(np.prod(shape))
    elems: st.SearchStrategy[Any]
    if dtype.kind == "b":
        elems = st.booleans()
    elif dtype.kind == "i":
        elems = st.integers(-2, 3)
    elif powers or ties:
        elems = st.sampled_from([-2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0] if powers else [-1.0, -0.0, 0.5, 1.0, 2.0])
    else:
        elems = st.sampled_from([-2.0, -1.5, -0.5, -0.0, 0.0, 0.25, 1.0, 3.0])
    return st.lists(elems, min_size=n, max_size=n).map(lambda v: np.asarray(v, dtype).reshape(shape))


def _shapes(min_rank: int = 1, max_rank: int = 4) -> st.SearchStrategy[tuple[int, ...]]:
    return st.integers(min_rank, max_rank).flatmap(
        lambda r: st.tuples(*(st.integers(1, 4 if r <= 2 else 2) for _ in range(r))))


def _bits(a: NDArray) -> NDArray:
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


@ci_examples(12, otherwise=25, deadline=None)
@given(st.sampled_from(sorted(KINDS)), st.sampled_from(["float32", "float64", "int32", "int64", "bool"]),
       _shapes(), st.data())
def test_values_match_jax_and_jit(kind: str, dtype: str, shape: tuple[int, ...], data: st.DataObject) -> None:
    d = np.dtype(dtype)
    if d.kind == "b" and kind not in ("max", "min"):
        d = np.dtype(np.float64)
    x = data.draw(arrays(d, shape, powers=kind == "mul"))
    w = data.draw(windows(shape))
    ours, theirs, init_of = KINDS[kind]
    init = init_of(d)
    eager = np.asarray(lax.reduce_window(x, init, ours, *w))
    compiled = np.asarray(tdx.jit(lambda v: lax.reduce_window(v, init, ours, *w))(x))
    want = np.asarray(jax.lax.reduce_window(x, init, theirs, *w))
    assert eager.dtype == compiled.dtype == want.dtype and eager.shape == want.shape
    np.testing.assert_array_equal(_bits(eager), _bits(compiled))
    np.testing.assert_array_equal(_bits(eager), _bits(want))


def _loop_reference(x: NDArray, init: Any, op: Callable[[Any, Any], Any], w: WindowArgs) -> NDArray:
    """XLA's definition written out: dilate and pad with ``init``, then fold
    each window (its elements ``window_dilation`` apart) from ``init``."""
    dims, strides, pads, base, wdil = w
    pairs = pads if not isinstance(pads, str) else windowed._padtype_to_pads(
        x.shape, windowed.dilate_shape(dims, wdil), strides, pads)
    dil = windowed.dilate_shape(x.shape, base)
    padded = np.full([n + lo + hi for n, (lo, hi) in zip(dil, pairs)], init, x.dtype)
    for idx in itertools.product(*(range(n) for n in x.shape)):
        padded[tuple(lo + i * b for i, (lo, _), b in zip(idx, pairs, base))] = x[idx]
    eff = windowed.dilate_shape(dims, wdil)
    out_shape = [(p - e) // s + 1 for p, e, s in zip(padded.shape, eff, strides)]
    out = np.empty(out_shape, x.dtype)
    for o in itertools.product(*(range(n) for n in out_shape)):
        acc = init
        for k in itertools.product(*(range(n) for n in dims)):
            acc = op(acc, padded[tuple(oi * s + ki * r for oi, s, ki, r in zip(o, strides, k, wdil))])
        out[o] = acc
    return out


@given(st.sampled_from(["sum", "max", "min", "mul"]), _shapes(max_rank=3), st.data())
def test_eager_matches_a_written_out_reference(kind: str, shape: tuple[int, ...], data: st.DataObject) -> None:
    d = np.dtype(np.float64)
    x = data.draw(arrays(d, shape, powers=kind == "mul"))
    w = data.draw(windows(shape))
    ours, _, init_of = KINDS[kind]
    op = {"sum": np.add, "max": np.maximum, "min": np.minimum, "mul": np.multiply}[kind]
    got = np.asarray(lax.reduce_window(x, init_of(d), ours, *w))
    np.testing.assert_array_equal(got, _loop_reference(x, init_of(d).item(), op, w))


def test_a_one_element_window_passes_negative_zero_through_as_xla() -> None:
    z = np.array([-0.0, 1.0, -0.0])
    for args in [((1,), (1,), [(0, 0)]), ((1,), (1,), [(1, 0)]), ((1,), (2,), [(0, 0)]), ((2,), (1,), [(0, 0)])]:
        eager = np.asarray(lax.reduce_window(z, 0.0, lax.add, *args))
        want = np.asarray(jax.jit(lambda v: jax.lax.reduce_window(v, 0.0, jax.lax.add, *args))(z))
        np.testing.assert_array_equal(np.signbit(eager), np.signbit(want))


def test_rank_zero_operands() -> None:
    for comp, init in ((lax.add, 0.0), (lax.max, -np.inf), (lax.mul, 1.0)):
        x = np.float64(3.0)
        assert float(np.asarray(lax.reduce_window(x, init, comp, ()))) == 3.0
        assert float(np.asarray(tdx.jit(lambda v: lax.reduce_window(v, init, comp, ()))(x))) == 3.0
    g = tdx.grad(lambda v: lax.reduce_window(v, -np.inf, lax.max, ()))(np.float64(2.0))
    assert float(np.asarray(g)) == 1.0
    # XLA cannot compile a rank-0 select_and_scatter: the lowering passes the source through
    s = bind1(windowed.select_and_scatter_add_p, (np.float64(5.0), np.float64(1.0)),
              params_of(("window_dimensions", ()), ("window_strides", ()), ("padding", ()), ("select_prim", "ge")))
    assert float(np.asarray(s)) == 5.0


# -- the general reduce_window --------------------------------------------------------
def test_general_reduce_window_on_a_pytree_matches_jax() -> None:
    """A (value, index) pair reduction: argmax in each window, as JAX."""
    x = np.array([[3.0, 1.0, 4.0, 1.0], [5.0, 9.0, 2.0, 6.0], [5.0, 3.0, 5.0, 8.0]])
    idx = np.arange(x.size, dtype=np.int64).reshape(x.shape)

    def ours(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
        pick = lax.ge(a[0], b[0])
        return lax.select(pick, a[0], b[0]), lax.select(pick, a[1], b[1])

    def theirs(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
        pick = jax.lax.ge(a[0], b[0])
        return jax.lax.select(pick, a[0], b[0]), jax.lax.select(pick, a[1], b[1])

    init = (np.float64(-np.inf), np.int64(-1))
    args = ((2, 2), (1, 2), [(1, 0), (0, 1)])
    got = lax.reduce_window((x, idx), init, ours, *args)
    jit = tdx.jit(lambda a, b: lax.reduce_window((a, b), init, ours, *args))(x, idx)
    want = jax.lax.reduce_window((x, idx), init, theirs, *args)
    assert isinstance(got, tuple) and isinstance(jit, tuple)
    for g, j, ww in zip(got, jit, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(ww))
        np.testing.assert_array_equal(np.asarray(j), np.asarray(ww))


def _prod(v: Any) -> Any:
    return lax.reduce_window(v, 1.0, lax.mul, (2, 2), (1, 1), "SAME")


def _jprod(v: Any) -> Any:
    return jax.lax.reduce_window(v, 1.0, jax.lax.mul, (2, 2), (1, 1), "SAME")


def test_general_reduce_window_jvp_and_vmap_match_jax() -> None:
    x = np.random.default_rng(0).normal(size=(3, 4))
    t = np.random.default_rng(1).normal(size=(3, 4))
    p, tan = tdx.jvp(_prod, (x,), (t,))
    jp, jtan = jax.jvp(_jprod, (x,), (t,))
    np.testing.assert_allclose(np.asarray(p), np.asarray(jp), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(tan), np.asarray(jtan), rtol=1e-12)
    jit_tan = tdx.jit(lambda a, b: tdx.jvp(_prod, (a,), (b,))[1])(x, t)
    np.testing.assert_allclose(np.asarray(jit_tan), np.asarray(jtan), rtol=1e-12)
    xs = np.random.default_rng(2).normal(size=(2, 3, 4))
    for axis in (0, 1, 2):
        got = np.asarray(tdx.vmap(_prod, in_axes=axis)(xs))
        loop = np.stack([np.asarray(_prod(np.take(xs, i, axis))) for i in range(xs.shape[axis])])
        np.testing.assert_array_equal(got, loop)


def test_the_tangent_of_the_init_value_folds_in() -> None:
    """An init value's tangent starts the tangent fold of every window (the
    init value starts every fold; padding is not folded, as in XLA)."""
    x = np.array([1.0, 2.0, 3.0])

    def f(c: Any) -> Any:
        return lax.reduce_window(x, c, lax.add, (2,), (1,), [(1, 1)])

    _, tan = tdx.jvp(f, (np.float64(0.5),), (np.float64(1.0),))
    eps = 1e-6
    fd = (np.asarray(f(np.float64(0.5 + eps))) - np.asarray(f(np.float64(0.5 - eps)))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(tan), fd, rtol=1e-6)


def test_grad_of_the_general_reduce_window_is_refused_as_in_jax() -> None:
    with pytest.raises(JaxprTypeError, match="primal output depends on the tangents"):
        tdx.grad(lambda v: lax.reduce_sum(_prod(v), (0, 1)))(np.ones((2, 2)))


# -- derivatives ----------------------------------------------------------------------
# ci: 5 examples (each example compiles with XLA or runs JAX); make test-long runs 20
@ci_examples(5, otherwise=20, deadline=None)
@given(st.sampled_from(["sum", "max", "min"]), _shapes(max_rank=3), st.data())
def test_grad_matches_jax_ties_included(kind: str, shape: tuple[int, ...], data: st.DataObject) -> None:
    """Values from a small set, so windows tie: the gradient goes to the
    first maximal (minimal) element in window order, as JAX's."""
    d = np.dtype(np.float64)
    x = data.draw(arrays(d, shape, ties=True))
    dims, strides, pads, base, wdil = data.draw(windows(shape))
    if kind != "sum":  # the gradient of max/min pooling has no window dilation (nor in JAX)
        wdil = (1,) * len(shape)
    w = (dims, strides, pads, base, wdil)
    ours, theirs, init_of = KINDS[kind]
    init = init_of(d)
    out_shape = jax.eval_shape(lambda v: jax.lax.reduce_window(v, init, theirs, *w), x).shape
    cot = np.arange(1.0, 1.0 + np.prod(out_shape)).reshape(out_shape)

    def f(v: Any) -> Any:
        return lax.reduce_sum(lax.mul(lax.reduce_window(v, init, ours, *w), cot), tuple(range(len(shape))))

    def jf(v: Any) -> Any:
        return jnp.sum(jax.lax.reduce_window(v, init, theirs, *w) * cot)

    # (JAX's gradient and jvp jitted: one compilation each, where its eager
    # dispatch compiles each operation for this example's shapes)
    want = np.asarray(jax.jit(jax.grad(jf))(x))
    np.testing.assert_array_equal(np.asarray(tdx.grad(f)(x)), want)
    np.testing.assert_array_equal(np.asarray(tdx.jit(tdx.grad(f))(x)), want)
    t = np.random.default_rng(0).normal(size=shape)
    _, tan = tdx.jvp(f, (x,), (t,))
    _, jtan = jax.jit(lambda v, dv: jax.jvp(jf, (v,), (dv,)))(x, t)
    np.testing.assert_allclose(np.asarray(tan), np.asarray(jtan), rtol=1e-12)


def test_max_pool_gradient_against_finite_differences() -> None:
    x = np.random.default_rng(3).normal(size=(4, 5))  # distinct values: no ties, differentiable

    def f(v: Any) -> Any:
        y = lax.reduce_window(v, -np.inf, lax.max, (2, 3), (2, 1), "SAME")
        return lax.reduce_sum(lax.mul(y, y), (0, 1))

    g = np.asarray(tdx.grad(f)(x))
    eps = 1e-6
    for i, j in itertools.product(range(4), range(5)):
        e = np.zeros_like(x)
        e[i, j] = eps
        fd = (float(np.asarray(f(x + e))) - float(np.asarray(f(x - e)))) / (2 * eps)
        assert abs(g[i, j] - fd) < 1e-5


def test_second_derivatives_of_max_pooling_match_jax() -> None:
    x = np.random.default_rng(4).normal(size=(4, 4))
    v = np.random.default_rng(5).normal(size=(4, 4))

    def f(a: Any) -> Any:
        return lax.reduce_sum(lax.mul(lax.reduce_window(lax.mul(a, a), -np.inf, lax.max, (2, 2), (1, 1), "VALID"), 1.0), (0, 1))

    def jf(a: Any) -> Any:
        return jnp.sum(jax.lax.reduce_window(a * a, -jnp.inf, jax.lax.max, (2, 2), (1, 1), "VALID"))

    hv = tdx.jvp(tdx.grad(f), (x,), (v,))[1]
    jhv = jax.jvp(jax.grad(jf), (x,), (v,))[1]
    np.testing.assert_allclose(np.asarray(hv), np.asarray(jhv), rtol=1e-12)


# ci: 7 examples (each example compiles with XLA or runs JAX); make test-long runs 30
@ci_examples(7, otherwise=30, deadline=None)
@given(_shapes(max_rank=3), st.data())
def test_the_sum_transpose_passes_the_dot_product_test(shape: tuple[int, ...], data: st.DataObject) -> None:
    """<R x, y> == <x, R^T y> for the windowed sum R and its transpose (vjp)."""
    w = data.draw(windows(shape))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    x = rng.normal(size=shape)

    def r(v: Any) -> Any:
        return lax.reduce_window(v, 0.0, lax.add, *w)

    y_val, pullback = tdx.vjp(r, x)
    y = rng.normal(size=np.asarray(y_val).shape)
    (rty,) = pullback(y)
    np.testing.assert_allclose(np.sum(np.asarray(y_val) * y), np.sum(x * np.asarray(rty)), rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(np.asarray(rty), np.asarray(jax.vjp(lambda v: jax.lax.reduce_window(v, 0.0, jax.lax.add, *w), x)[1](y)[0]))


def test_select_gather_and_scatter_transpose_each_other() -> None:
    """<gather(t), c> == <t, scatter(c)> for a fixed operand (ties included)."""
    rng = np.random.default_rng(6)
    x = rng.integers(0, 3, size=(5, 6)).astype(np.float64)
    for sel in ("ge", "le"):
        w = windowed.Window((2, 3), (2, 1), ((1, 0), (0, 2)), (1, 1), (1, 1))
        p_gather = params_of(*w.items(), ("select_prim", sel))
        p_scatter = params_of(*w.items(dilations=False), ("select_prim", sel))
        t = rng.normal(size=x.shape)
        g = np.asarray(bind1(windowed.select_and_gather_add_p, (t, x), p_gather))
        c = rng.normal(size=g.shape)
        s = np.asarray(bind1(windowed.select_and_scatter_add_p, (c, x), p_scatter))
        np.testing.assert_allclose(np.sum(g * c), np.sum(t * s), rtol=1e-12)
        js = tdx.jit(lambda a, b: bind1(windowed.select_and_scatter_add_p, (a, b), p_scatter))(c, x)
        jg = tdx.jit(lambda a, b: bind1(windowed.select_and_gather_add_p, (a, b), p_gather))(t, x)
        np.testing.assert_array_equal(np.asarray(js), s)
        np.testing.assert_array_equal(np.asarray(jg), g)


# -- vmap -----------------------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["sum", "max", "grad-max", "grad-min", "mul"]), _shapes(max_rank=3), st.integers(0, 3), st.data())
def test_vmap_matches_a_loop(kind: str, shape: tuple[int, ...], axis: int, data: st.DataObject) -> None:
    axis = min(axis, len(shape))
    d = np.dtype(np.float64)
    batch = data.draw(arrays(d, shape[:axis] + (3,) + shape[axis:], ties=True))
    dims, strides, pads, base, _ = data.draw(windows(shape))
    w = (dims, strides, pads, base, (1,) * len(shape))
    base_kind = kind.removeprefix("grad-")
    ours, _, init_of = KINDS[base_kind]
    init = init_of(d)

    def f(v: Any) -> Any:
        if kind.startswith("grad-"):
            return tdx.grad(lambda u: lax.reduce_sum(lax.reduce_window(u, init, ours, *w), tuple(range(len(shape)))))(v)
        return lax.reduce_window(v, init, ours, *w)

    got = np.asarray(tdx.vmap(f, in_axes=axis)(batch))
    loop = np.stack([np.asarray(f(np.take(batch, i, axis))) for i in range(3)])
    np.testing.assert_array_equal(got, loop)


def test_vmap_of_the_select_primitives_matches_a_loop() -> None:
    rng = np.random.default_rng(7)
    xs = rng.integers(0, 3, size=(3, 4, 5)).astype(np.float64)
    ts = rng.normal(size=(3, 4, 5))
    w = windowed.Window((2, 2), (1, 2), ((0, 1), (1, 0)), (1, 2), (1, 1))
    p = params_of(*w.items(), ("select_prim", "ge"))

    def gather(t: Any, x: Any) -> Any:
        return bind1(windowed.select_and_gather_add_p, (t, x), p)

    got = np.asarray(tdx.vmap(gather, in_axes=(0, 2))(ts, np.moveaxis(xs, 0, 2)))
    loop = np.stack([np.asarray(gather(ts[i], xs[i])) for i in range(3)])
    np.testing.assert_array_equal(got, loop)
    # the transpose of the batched gather is the batched scatter
    cs = rng.normal(size=got.shape)
    pulled = tdx.vjp(lambda t: tdx.vmap(gather, in_axes=(0, None))(t, xs[0]), ts)[1](cs)[0]
    loop_t = np.stack([np.asarray(tdx.vjp(lambda t: gather(t, xs[0]), ts[i])[1](cs[i])[0]) for i in range(3)])
    np.testing.assert_array_equal(np.asarray(pulled), loop_t)


# -- jaxprs ---------------------------------------------------------------------------
def test_jaxprs_round_trip_through_text() -> None:
    x = np.ones((4, 5))
    fns: list[Callable[[Any], Any]] = [
        lambda v: lax.reduce_window(v, 0.0, lax.add, (2, 2), (1, 2), "SAME", (2, 1), (1, 2)),
        lambda v: lax.reduce_window(v, -np.inf, lax.max, (2, 2), (1, 1), [(1, 0), (0, 1)]),
        lambda v: lax.reduce_window(v, 1.0, lax.mul, (2, 3)),
        tdx.grad(lambda v: lax.reduce_sum(lax.reduce_window(v, np.inf, lax.min, (2, 2), (2, 2), "SAME", (1, 2)), (0, 1))),
        lambda v: tdx.jvp(lambda u: lax.reduce_window(u, -np.inf, lax.max, (3, 1)), (v,), (v,))[1],
    ]
    for fn in fns:
        j = tdx.make_jaxpr(fn)(x).jaxpr
        text = str(j)
        again = parse_jaxpr(text)
        assert again == j and str(again) == text


@settings(max_examples=40, deadline=None)
@given(jaxprs(max_eqns=4, primitives=[p.name for p in windowed.FAMILY.primitives] + ["reduce_window", "add", "neg"], max_rank=3))
def test_generated_jaxprs_round_trip_and_run_as_under_jit(j: Jaxpr) -> None:
    assert parse_jaxpr(str(j)) == j
    rng = np.random.default_rng(0)
    args = [np.asarray(rng.integers(-2, 3, size=a.shape)).astype(a.dtype) for a in j.in_avals]
    eager = [np.asarray(o) for o in tdx.core.eval_jaxpr(j, args)]
    compiled = [np.asarray(o) for o in tdx.jit(lambda *a: tdx.core.eval_jaxpr(j, list(a)))(*args)]
    for e, c in zip(eager, compiled):
        np.testing.assert_array_equal(e, c)


# -- errors -------------------------------------------------------------------------
def test_bad_windows_are_refused() -> None:
    x = np.ones((3, 4))
    with pytest.raises(PrimitiveTypeError, match=r"window_dimensions=\(2,\) must have one entry per dimension.*rank 2"):
        lax.reduce_window(x, 0.0, lax.add, (2,))
    with pytest.raises(PrimitiveTypeError, match=r"window_strides=\(1, 1, 1\) must have one entry per dimension"):
        lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1, 1))
    with pytest.raises(PrimitiveTypeError, match=r"window_dimensions must be positive, got window_dimensions=\(0, 2\)"):
        lax.reduce_window(x, -np.inf, lax.max, (0, 2))
    with pytest.raises(PrimitiveTypeError, match=r"window_strides must be positive"):
        lax.reduce_window(x, 0.0, lax.add, (1, 2), (1, -1))
    with pytest.raises(PrimitiveTypeError, match=r"base_dilation must be positive"):
        lax.reduce_window(x, 1.0, lax.mul, (1, 2), (1, 1), "VALID", (0, 1))
    with pytest.raises(PrimitiveTypeError, match=r"window_dilation must be positive"):
        lax.reduce_window(x, 0.0, lax.add, (1, 2), (1, 1), "VALID", None, (1, 0))
    with pytest.raises(PrimitiveTypeError, match=r"window \(4, 2\) \(dilated: \(4, 2\)\) is larger than the padded operand \(3, 4\) in dimension 0"):
        lax.reduce_window(x, 0.0, lax.add, (4, 2))
    with pytest.raises(PrimitiveTypeError, match=r"larger than the padded operand"):
        lax.reduce_window(x, -np.inf, lax.max, (2, 3), (1, 1), "VALID", None, (3, 1))
    with pytest.raises(PrimitiveTypeError, match=r"padding must be non-negative"):
        lax.reduce_window(x, 0.0, lax.add, (1, 1), (1, 1), [(0, -1), (0, 0)])
    with pytest.raises(PrimitiveTypeError, match=r"padding must be 'VALID', 'SAME', 'SAME_LOWER'"):
        lax.reduce_window(x, 0.0, lax.add, (1, 1), (1, 1), "FULL")
    with pytest.raises(PrimitiveTypeError, match=r"padding must be \(low, high\) pairs"):
        lax.reduce_window(x, 0.0, lax.add, (1, 1), (1, 1), [(0, 1, 2), (0, 0)])  # type: ignore[list-item]  # the wrong type on purpose
    with pytest.raises(PrimitiveTypeError, match=r"window_dimensions must be integers"):
        lax.reduce_window(x, 0.0, lax.add, (1.5, 1))  # type: ignore[arg-type]  # the wrong type on purpose


def test_bad_operands_and_computations_are_refused() -> None:
    x = np.ones((3, 4))
    with pytest.raises(PrimitiveTypeError, match=r"reduce_window_sum takes numeric operands, got bool\[2\]"):
        lax.reduce_window(np.array([True, False]), False, lax.add, (1,))
    with pytest.raises(PrimitiveTypeError, match=r"init values must be scalars of their operands' dtypes"):
        lax.reduce_window(x, np.float32(1.0), lax.mul, (1, 1))
    with pytest.raises(PrimitiveTypeError, match=r"init values must be scalars"):
        lax.reduce_window(x, np.ones(2), lax.mul, (1, 1))
    with pytest.raises(PrimitiveTypeError, match=r"operand and init_value must be pytrees of one structure"):
        lax.reduce_window((x, x), 0.0, lax.add, (1, 1))
    with pytest.raises(PrimitiveTypeError, match=r"operands must share one shape"):
        lax.reduce_window((x, np.ones((2, 4))), (0.0, 0.0), lambda a, b: a, (1, 1))
    with pytest.raises(PrimitiveTypeError, match=r"must return the operand's structure"):
        lax.reduce_window(x, 1.0, lambda a, b: (a, b), (1, 1))
    with pytest.raises(PrimitiveTypeError, match=r"close over no arrays, got .* and 1 array constants"):
        lax.reduce_window(x, 1.0, lambda a, b: lax.add(lax.mul(a, b), lax.reduce_sum(tdx.numpy.asarray(np.ones(3)), (0,))), (1, 1))


def test_bad_params_of_the_select_primitives_are_refused() -> None:
    x = np.ones((3, 4))
    w = windowed.Window((2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1))
    with pytest.raises(PrimitiveTypeError, match=r"param 'select_prim' must be 'ge' or 'le', got 'gt'"):
        bind1(windowed.select_and_gather_add_p, (x, x), params_of(*w.items(), ("select_prim", "gt")))
    with pytest.raises(PrimitiveTypeError, match=r"select_and_gather_add takes tangents and an operand of one float type"):
        bind1(windowed.select_and_gather_add_p, (x.astype(np.int32), x.astype(np.int32)), params_of(*w.items(), ("select_prim", "ge")))
    ps = params_of(*w.items(dilations=False), ("select_prim", "le"))
    with pytest.raises(PrimitiveTypeError, match=r"the source must have the shape of the operand's windows \(2, 3\)"):
        bind1(windowed.select_and_scatter_add_p, (np.ones((3, 3)), x), ps)
    with pytest.raises(PrimitiveTypeError, match=r"select_and_scatter_add takes a source and an operand of one numeric dtype"):
        bind1(windowed.select_and_scatter_add_p, (np.ones((2, 3), np.float32), x), ps)
    with pytest.raises(PrimitiveTypeError, match=r"param 'padding' must be a tuple of \(low, high\) int pairs"):
        bind1(windowed.reduce_window_sum_p, (x,), params_of(*w.items()[:2], ("padding", (1, 2)), *w.items()[3:]))


def test_transformations_that_cannot_apply_say_why() -> None:
    x = np.arange(12.0).reshape(3, 4)
    with pytest.raises(PrimitiveTypeError, match=r"does not support window dilation, got window_dilation=\(1, 2\)"):
        tdx.grad(lambda v: lax.reduce_sum(lax.reduce_window(v, -np.inf, lax.max, (2, 2), (1, 1), "VALID", None, (1, 2)), (0, 1)))(x)
    with pytest.raises(BatchingError, match=r"batching over init values is not supported"):
        tdx.vmap(lambda c: lax.reduce_window(x, c, lax.mul, (2, 2)))(np.ones(3))
