"""``lax.gather`` and the scatters against JAX's, over generated dimension
numbers, indices out of bounds and every mode: eager, under ``jit``, under
``vmap`` (against a loop, every operand batched or not), ``grad`` (against
JAX's), the gather / scatter-add transposes (the dot-product test), the
jaxpr text round trip, and each error."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import jax
import numpy as np
import pytest
from hypothesis import given, settings

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import parse_jaxpr
from typedax.core.errors import MissingRuleError, PrimitiveTypeError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

Arr = np.ndarray[Any, np.dtype[Any]]
MODES = ["clip", "fill", "promise_in_bounds"]


@st.composite
def gathers(draw: st.DrawFn) -> tuple[Arr, Arr, lax.GatherDimensionNumbers, tuple[int, ...], str]:
    """An operand, indices (some out of bounds), dimension numbers, slice sizes, a mode."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    nd = len(shape)
    k = draw(st.integers(0, nd))
    start_map = tuple(draw(st.permutations(range(nd)))[:k])
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    sizes = tuple(draw(st.integers(1, d)) for d in shape)
    collapsed = tuple(d for d in range(nd) if sizes[d] == 1 and draw(st.booleans()))
    n_window = nd - len(collapsed)
    rank = len(batch) + n_window
    offset = tuple(sorted(draw(st.permutations(range(rank)))[:n_window]))
    idx = np.asarray(
        draw(st.lists(st.integers(-2, 5), min_size=int(np.prod(batch)) * k, max_size=int(np.prod(batch)) * k)),
        dtype=draw(st.sampled_from([np.int32, np.int64])),
    ).reshape(batch + (k,))
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 0.5 - 1.0
    dn = lax.GatherDimensionNumbers(offset_dims=offset, collapsed_slice_dims=collapsed, start_index_map=start_map)
    return x, idx, dn, sizes, draw(st.sampled_from(MODES))


def _jdn(dn: lax.GatherDimensionNumbers) -> jax.lax.GatherDimensionNumbers:
    return jax.lax.GatherDimensionNumbers(
        offset_dims=dn.offset_dims, collapsed_slice_dims=dn.collapsed_slice_dims,
        start_index_map=dn.start_index_map,
    )


# ci: 25 examples (each example compiles with XLA or runs JAX); make test-long runs 100
@ci_examples(25, otherwise=100, deadline=None)
@given(gathers())
def test_gather_matches_jax(case: tuple[Arr, Arr, lax.GatherDimensionNumbers, tuple[int, ...], str]) -> None:
    x, idx, dn, sizes, mode = case
    want = np.asarray(jax.lax.gather(x, idx, _jdn(dn), sizes, mode=mode))
    got = lax.gather(x, idx, dn, sizes, mode=mode)
    np.testing.assert_array_equal(np.asarray(got), want)
    jitted = tdx.jit(lambda x, i: lax.gather(x, i, dn, sizes, mode=mode))(x, idx)
    np.testing.assert_array_equal(np.asarray(jitted), want)


@settings(deadline=None, max_examples=60)
@given(gathers(), st.booleans(), st.booleans())
def test_gather_vmap_matches_a_loop(
    case: tuple[Arr, Arr, lax.GatherDimensionNumbers, tuple[int, ...], str], bx: bool, bi: bool
) -> None:
    x, idx, dn, sizes, mode = case
    if not (bx or bi):
        return
    xs = np.stack([x, -x, x + 3.0])
    ids = np.stack([idx, idx[..., ::-1] if idx.shape[-1] else idx, idx + 1])
    f = tdx.vmap(lambda x, i: lax.gather(x, i, dn, sizes, mode=mode),
                 in_axes=(0 if bx else None, 0 if bi else None))
    got = f(xs if bx else x, ids if bi else idx)
    want = np.stack([
        np.asarray(lax.gather(xs[b] if bx else x, ids[b] if bi else idx, dn, sizes, mode=mode)) for b in range(3)
    ])
    np.testing.assert_array_equal(np.asarray(got), want)


# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs 60
@ci_examples(15, otherwise=60, deadline=None)
@given(gathers())
def test_gather_grad_and_transpose(case: tuple[Arr, Arr, lax.GatherDimensionNumbers, tuple[int, ...], str]) -> None:
    x, idx, dn, sizes, mode = case
    y = np.asarray(lax.gather(x, idx, dn, sizes, mode=mode))
    w = np.cos(np.arange(y.size, dtype=np.float64)).reshape(y.shape)
    g = tdx.grad(lambda v: (lax.gather(v, idx, dn, sizes, mode=mode) * w).sum())(x)
    gj = tdx.jit(tdx.grad(lambda v: (lax.gather(v, idx, dn, sizes, mode=mode) * w).sum()))(x)
    np.testing.assert_allclose(np.asarray(gj), np.asarray(g), rtol=1e-12, atol=1e-12)
    if not (idx.shape[-1] == 0 and idx.size == 0 and np.prod(idx.shape[:-1]) > 1):
        # (JAX's own gradient drops all but one window whose index vectors
        # are empty: XLA's scatter does, which typedax's lowering works around)
        # (jitted: one compilation, where JAX's eager dispatch compiles each operation of the gradient)
        want = jax.jit(jax.grad(lambda v: (jax.lax.gather(v, idx, _jdn(dn), sizes, mode=mode) * w).sum()))(x)
        np.testing.assert_allclose(np.asarray(g), np.asarray(want), rtol=1e-12, atol=1e-12)
    if mode == "promise_in_bounds":
        return  # out of bounds, a promise-in-bounds gather clamps and its transpose drops
    # the dot-product test: <gather(u), w> == <u, gather^T(w)> (filling with 0)
    fill = 0.0 if mode == "fill" else None
    u = np.sin(np.arange(x.size, dtype=np.float64)).reshape(x.shape)
    _, pullback = tdx.vjp(lambda v: lax.gather(v, idx, dn, sizes, mode=mode, fill_value=fill), u)
    (back,) = pullback(w)
    lhs = float(np.sum(np.asarray(lax.gather(u, idx, dn, sizes, mode=mode, fill_value=fill)) * w))
    np.testing.assert_allclose(lhs, float(np.sum(u * np.asarray(back))), rtol=1e-12, atol=1e-12)


@st.composite
def scatters(draw: st.DrawFn) -> tuple[Arr, Arr, Arr, lax.ScatterDimensionNumbers, str]:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    nd = len(shape)
    k = draw(st.integers(0, nd))
    to_operand = tuple(draw(st.permutations(range(nd)))[:k])
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    window = tuple(draw(st.integers(1, d)) for d in shape)
    inserted = tuple(d for d in range(nd) if window[d] == 1 and draw(st.booleans()))
    upd_window = tuple(window[d] for d in range(nd) if d not in inserted)
    upd_shape = batch + upd_window
    idx = np.asarray(
        draw(st.lists(st.integers(-2, 5), min_size=int(np.prod(batch)) * k, max_size=int(np.prod(batch)) * k)),
        dtype=np.int32,
    ).reshape(batch + (k,))
    x = np.linspace(-2.0, 3.0, int(np.prod(shape))).reshape(shape)
    u = np.linspace(1.5, -0.5, int(np.prod(upd_shape))).reshape(upd_shape)
    dn = lax.ScatterDimensionNumbers(
        update_window_dims=tuple(range(len(batch), len(upd_shape))),
        inserted_window_dims=inserted, scatter_dims_to_operand_dims=to_operand,
    )
    return x, idx, u, dn, draw(st.sampled_from(MODES))


def _jsdn(dn: lax.ScatterDimensionNumbers) -> jax.lax.ScatterDimensionNumbers:
    return jax.lax.ScatterDimensionNumbers(
        update_window_dims=dn.update_window_dims, inserted_window_dims=dn.inserted_window_dims,
        scatter_dims_to_operand_dims=dn.scatter_dims_to_operand_dims,
    )


def _all_windows_at_zero(name: str, x: Arr, u: Arr, dn: lax.ScatterDimensionNumbers, batch_ndim: int) -> Arr:
    """Every update window combined into ``x`` at the origin, in order."""
    fold = {"scatter_add": np.add, "scatter_mul": np.multiply, "scatter_min": np.minimum,
            "scatter_max": np.maximum}
    window_dims = [d for d in range(x.ndim) if d not in dn.inserted_window_dims]
    want = np.array(x, copy=True)
    for w in u.reshape((-1,) + u.shape[batch_ndim:]):
        shape = [1] * x.ndim
        for j, d in enumerate(window_dims):
            shape[d] = w.shape[j]
        region = tuple(slice(0, n) for n in shape)
        wf = w.reshape(shape)
        want[region] = wf if name == "scatter" else fold[name](want[region], wf)
    return want


SCATTERS = ["scatter_add", "scatter_mul", "scatter_min", "scatter_max", "scatter"]


def _unique(x: Arr, idx: Arr, u: Arr, dn: lax.ScatterDimensionNumbers, mode: str) -> bool:
    """Whether no operand element receives two updates (scatter-add of ones)."""
    hits = np.asarray(lax.scatter_add(np.zeros_like(x), idx, np.ones_like(u), dn, mode=mode))
    return bool(np.all(hits <= 1))


# ci: 25 examples (each example compiles with XLA or runs JAX); make test-long runs 100
@ci_examples(25, otherwise=100, deadline=None)
@given(scatters(), st.sampled_from(SCATTERS))
def test_scatters_match_jax(case: tuple[Arr, Arr, Arr, lax.ScatterDimensionNumbers, str], name: str) -> None:
    x, idx, u, dn, mode = case
    if name == "scatter" and not _unique(x, idx, u, dn, mode):
        return  # which repeated update lands is unspecified
    got = getattr(lax, name)(x, idx, u, dn, mode=mode)
    jitted = tdx.jit(lambda x, i, u: getattr(lax, name)(x, i, u, dn, mode=mode))(x, idx, u)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(got), rtol=1e-14)
    if idx.shape[-1] == 0 and np.prod(idx.shape[:-1]) > 1:
        # XLA (so JAX) applies one of several windows with empty index
        # vectors; typedax applies them all, as the definition says
        want = _all_windows_at_zero(name, x, u, dn, idx.ndim - 1)
    else:
        want = np.asarray(getattr(jax.lax, name)(x, idx, u, _jsdn(dn), mode=mode))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)


@settings(deadline=None, max_examples=60)
@given(scatters(), st.sampled_from(SCATTERS), st.booleans(), st.booleans(), st.booleans())
def test_scatter_vmap_matches_a_loop(
    case: tuple[Arr, Arr, Arr, lax.ScatterDimensionNumbers, str], name: str, bx: bool, bi: bool, bu: bool
) -> None:
    x, idx, u, dn, mode = case
    if not (bx or bi or bu):
        return
    xs, us = np.stack([x, 2 * x]), np.stack([u, -u])
    ids = np.stack([idx, idx[..., ::-1] if idx.shape[-1] else idx])
    fn = getattr(lax, name)
    f = tdx.vmap(lambda x, i, u: fn(x, i, u, dn, mode=mode),
                 in_axes=(0 if bx else None, 0 if bi else None, 0 if bu else None))
    if name == "scatter" and not all(_unique(x, ids[b] if bi else idx, u, dn, mode) for b in range(2)):
        return
    got = f(xs if bx else x, ids if bi else idx, us if bu else u)
    want = np.stack([
        np.asarray(fn(xs[b] if bx else x, ids[b] if bi else idx, us[b] if bu else u, dn, mode=mode))
        for b in range(2)
    ])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)


# ci: 10 examples (each compiles with XLA or runs JAX; central differences cost an eager call
# per element); make test-long runs 40
@ci_examples(10, otherwise=40, deadline=None)
@given(scatters(), st.sampled_from(["scatter_add", "scatter", "scatter_min", "scatter_max", "scatter_mul"]))
def test_scatter_grads_match_jax(case: tuple[Arr, Arr, Arr, lax.ScatterDimensionNumbers, str], name: str) -> None:
    x, idx, u, dn, mode = case
    w = np.sin(np.arange(x.size, dtype=np.float64)).reshape(x.shape) + 2.0
    unique = _unique(x, idx, u, dn, mode)
    argnums: tuple[int, ...] = (0, 1) if name != "scatter_mul" or unique else (0,)
    if name == "scatter_mul" and unique:
        kw: dict[str, bool] = {"unique_indices": True}
    else:
        kw = {}

    def f(x: tdx.Array, u: tdx.Array) -> tdx.Array:
        out: tdx.Array = getattr(lax, name)(x, idx, u, dn, mode=mode, **kw)
        return (out * w).sum()

    def jf(x: jax.Array, u: jax.Array) -> jax.Array:
        out: jax.Array = getattr(jax.lax, name)(x, idx, u, _jsdn(dn), mode=mode, **kw)
        return (out * w).sum()

    got = tdx.grad(f, argnums=argnums)(x, u)
    jitted = tdx.jit(tdx.grad(f, argnums=argnums))(x, u)
    for a, b in zip(got, jitted):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)
    empty_vectors = idx.shape[-1] == 0 and np.prod(idx.shape[:-1]) > 1
    if unique and not empty_vectors and name not in ("scatter_min", "scatter_max"):
        want = jax.jit(jax.grad(jf, argnums=argnums))(x, u)  # one compilation, not one per operation
    else:
        # central differences: JAX's min/max rules (with clamped or repeated
        # indices) and XLA's handling of empty index vectors differ from the
        # definition
        if name in ("scatter_min", "scatter_max") and _has_ties(x, u):
            return
        want = tuple(_central_difference(f, (x, u), k) for k in argnums)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6)


def _has_ties(x: Arr, u: Arr) -> bool:
    vals = np.concatenate([x.ravel(), u.ravel()])
    return len(np.unique(vals)) != vals.size


def _central_difference(f: Any, args: tuple[Arr, Arr], k: int, eps: float = 1e-6) -> Arr:
    base = [np.array(a, dtype=np.float64) for a in args]
    out = np.zeros_like(base[k])
    for i in np.ndindex(base[k].shape):
        hi = [a.copy() for a in base]
        lo = [a.copy() for a in base]
        hi[k][i] += eps
        lo[k][i] -= eps
        out[i] = (float(np.asarray(f(*hi))) - float(np.asarray(f(*lo)))) / (2 * eps)
    return out


def test_scatter_add_transpose_dot_product() -> None:
    x = np.zeros((4, 3))
    idx = np.asarray([[0], [2], [0], [7]], np.int32)
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    u = np.arange(12.0).reshape(4, 3)
    w = np.cos(np.arange(12.0)).reshape(4, 3)
    _, pullback = tdx.vjp(lambda u: lax.scatter_add(x, idx, u, dn), u)
    (back,) = pullback(w)
    lhs = float(np.sum(np.asarray(lax.scatter_add(x, idx, u, dn)) * w))
    np.testing.assert_allclose(lhs, float(np.sum(u * np.asarray(back))), rtol=1e-12)
    # the dropped update (index 7) gets no cotangent
    np.testing.assert_array_equal(np.asarray(back)[3], 0.0)


def test_jaxpr_text_round_trips() -> None:
    dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    sdn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                      scatter_dims_to_operand_dims=(0,))

    def f(x: tdx.Array, i: tdx.Array) -> tdx.Array:
        y = lax.gather(x, i, dn, (1, 3), mode="fill", fill_value=-1.0)
        return lax.scatter_max(lax.scatter_add(x, i, y, sdn), i, y, sdn, mode="clip")

    closed = tdx.make_jaxpr(f)(tnp.ones((4, 3)), tnp.asarray(np.asarray([[1], [3]], np.int32)))
    text = str(closed.jaxpr)
    assert "scatter-add" in text and "gather" in text and 'mode="fill"' in text
    assert parse_jaxpr(text) == closed.jaxpr


def test_default_modes_are_jaxs() -> None:
    x = np.arange(5.0)
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    idx = np.asarray([[9]], np.int32)
    assert np.asarray(lax.gather(x, idx, dn, (1,))).tolist() == [4.0]  # promise_in_bounds clamps
    assert np.isnan(np.asarray(lax.gather(x, idx, dn, (1,), mode="fill"))[0])
    sdn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                      scatter_dims_to_operand_dims=(0,))
    out = lax.scatter_add(x, idx, np.asarray([1.0]), sdn)  # None: dropped
    np.testing.assert_array_equal(np.asarray(out), x)
    assert lax.GatherScatterMode.from_any("drop") is lax.GatherScatterMode.FILL_OR_DROP
    with pytest.raises(ValueError, match="unknown gather mode"):
        lax.GatherScatterMode.from_any("wrap")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: lax.gather(np.ones(3), np.ones((1, 1)), lax.GatherDimensionNumbers((), (0,), (0,)), (1,)),
         "indices must have an integer dtype"),
        (lambda: lax.gather(np.ones(3), np.zeros((1, 2), np.int32), lax.GatherDimensionNumbers((), (0,), (0,)), (1,)),
         "len(start_index_map) = 1"),
        (lambda: lax.gather(np.ones(3), np.zeros((1, 1), np.int32), lax.GatherDimensionNumbers((), (0,), (0,)), (4,)),
         "between 0 and the operand's dimension"),
        (lambda: lax.gather(np.ones(3), np.zeros((1, 1), np.int32), lax.GatherDimensionNumbers((), (0,), (0,)), (2,)),
         "collapsed_slice_dims must have slice size 1"),
        (lambda: lax.gather(np.ones(3), np.zeros((1, 1), np.int32), lax.GatherDimensionNumbers((5,), (), (0,)), (1,)),
         "offset_dims must be"),
        (lambda: lax.gather(np.ones((2, 2)), np.zeros((1,), np.int32), lax.GatherDimensionNumbers((0,), (1,), (1,)), (2, 1), fill_value=np.ones(2), mode="fill"),
         "fill_value must be a scalar"),
        (lambda: lax.gather(np.ones(3), np.zeros((1,), np.int32), lax.GatherDimensionNumbers((), (0,), (0,), (0,), (0,)), (1,)),
         "batching dimensions are not supported"),
        (lambda: lax.scatter_add(np.ones(3), np.zeros((2, 1), np.int32), np.ones(2, np.int32),
                                 lax.ScatterDimensionNumbers((), (0,), (0,))),
         "updates must have the operand's dtype"),
        (lambda: lax.scatter_add(np.ones(3), np.zeros((2, 1), np.int32), np.ones(3),
                                 lax.ScatterDimensionNumbers((), (0,), (0,))),
         "must equal the indices' batch dimensions"),
        (lambda: lax.scatter(np.ones(3), np.zeros((2, 1), np.int32), np.ones((2, 1)),
                             lax.ScatterDimensionNumbers((1,), (0,), (0,))),
         "must cover the operand's rank"),
        (lambda: lax.scatter(np.ones(3), np.zeros((1,), np.int32), np.ones(4),
                             lax.ScatterDimensionNumbers((0,), (), (0,))),
         "larger than the operand"),
        (lambda: lax.scatter_mul(np.ones(2, bool), np.zeros((1, 1), np.int32), np.ones(1, bool),
                                 lax.ScatterDimensionNumbers((), (0,), (0,))),
         "scatter-mul does not accept bool operands"),
        (lambda: lax.scatter_add(np.ones(2, bool), np.zeros((1, 1), np.int32), np.ones(1, bool),
                                 lax.ScatterDimensionNumbers((), (0,), (0,))),
         "scatter-add does not accept bool operands"),
        (lambda: tnp.asarray(np.ones(2, bool)).at[1].add(True), "scatter-add does not accept bool"),
        (lambda: tnp.asarray(np.ones(2, bool)).at[5].multiply(True), "scatter-mul does not accept bool"),
    ],
)
def test_errors_name_the_operation_and_the_dimensions(call: Any, message: str) -> None:
    with pytest.raises(PrimitiveTypeError) as info:
        call()
    assert message in str(info.value)


def test_scatter_mul_derivative_in_the_updates_needs_unique_indices() -> None:
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    idx = np.asarray([[0], [0]], np.int32)
    with pytest.raises(MissingRuleError, match="unique_indices=True"):
        tdx.grad(lambda u: lax.scatter_mul(np.ones(3), idx, u, dn).sum())(np.ones(2))


@pytest.mark.parametrize("name", SCATTERS)
def test_a_scalar_operand_takes_every_update(name: str) -> None:
    """A rank-0 operand: every update window is the whole scalar (XLA's
    scatter needs a rank-1 view of it, which the lowering makes)."""
    x, idx, u = np.float64(2.0), np.zeros((2, 0), np.int32), np.asarray([1.0, 3.0])
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(), scatter_dims_to_operand_dims=())
    want = {"scatter_add": 6.0, "scatter_mul": 6.0, "scatter_min": 1.0, "scatter_max": 3.0, "scatter": 3.0}[name]
    fn = getattr(lax, name)
    assert float(fn(x, idx, u, dn)) == want
    assert float(tdx.jit(lambda x, i, u: fn(x, i, u, dn))(x, idx, u)) == want
    g = lax.gather(x, idx, lax.GatherDimensionNumbers((), (), ()), ())
    assert np.asarray(g).tolist() == [2.0, 2.0]
