"""``tnp.pad``'s modes beyond ``'constant'`` (issue 29 item 3): ``edge``,
``wrap``, ``reflect`` and ``symmetric`` (``reflect_type`` even/odd),
``linear_ramp`` (``end_values``), ``maximum``/``minimum``/``mean``/``median``
(``stat_length``), ``empty`` and a callable mode, against ``jax.numpy.pad``
as the oracle: values and dtypes eager and under ``jit``, ``grad`` of a
padded sum, ``vmap`` against a loop, and the errors JAX raises."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax.core import PrimitiveTypeError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped; typedax's default is x64

F32 = np.float32
I32 = np.int32

#: (mode, keyword arguments) for every string mode JAX has beyond 'constant'.
MODES: list[tuple[str, dict[str, Any]]] = [
    ("edge", {}),
    ("wrap", {}),
    ("reflect", {}),
    ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {}),
    ("symmetric", {"reflect_type": "odd"}),
    ("linear_ramp", {}),
    ("linear_ramp", {"end_values": (2, -3)}),
    ("linear_ramp", {"end_values": ((1, 2), (3, 4))}),
    ("maximum", {}),
    ("minimum", {"stat_length": 2}),
    ("mean", {}),
    ("mean", {"stat_length": ((1, 2),)}),
    ("median", {}),
    ("median", {"stat_length": (2, 3)}),
    ("empty", {}),
]
# widths: an int, (before, after), per-axis pairs; 5 exceeds every axis below (reflect/symmetric/wrap grow repeatedly)
WIDTHS: list[Any] = [1, (0, 5), [(2, 1), (5, 0), (0, 3)]]


def _inputs(shape: tuple[int, ...], dtype: type) -> np.ndarray[Any, Any]:
    x = np.random.default_rng(sum(shape)).normal(size=shape) * 4
    return x.astype(dtype) if dtype is F32 else np.round(x).astype(dtype)


def _same(got: object, want: object, atol: float = 1e-6) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    np.testing.assert_allclose(g, w, rtol=2e-6, atol=atol)


IDS = [f"{m}{sorted(k)}" for m, k in MODES]


def _ramp_atol(mode: str, dtype: type) -> float:
    # an integer ramp floors float values, which XLA's fused arithmetic (JAX's pad is jitted) or NumPy's float64
    # may round differently from typedax's linspace at an exact integer: off by one at most there
    return 1 if mode == "linear_ramp" and dtype is I32 else 1e-6


@pytest.mark.parametrize("mode,kw", MODES, ids=IDS)
@pytest.mark.parametrize("shape,dtype", [((3,), I32), ((2, 3), F32), ((2, 1, 3), I32)])
def test_mode_matches_numpy_eager(mode: str, kw: dict[str, Any], shape: tuple[int, ...], dtype: type) -> None:
    """The shapes x widths x dtypes matrix against ``np.pad``, whose semantics
    ``jnp.pad`` follows in every one of these modes (JAX's oracle below costs an
    XLA compilation a call); ``'empty'``, unspecified in NumPy, is JAX's zeros."""
    x = _inputs(shape, dtype)
    if len(shape) != 2 and np.ndim(kw.get("end_values", 0)) == 2:
        kw = {"end_values": (1, 2)}
    for width in WIDTHS:
        w = width[:len(shape)] if isinstance(width, list) else width
        want = np.pad(x, w, "constant") if mode == "empty" else np.pad(x, w, mode, **kw)  # type: ignore[call-overload]  # a mode string from the table
        _same(tnp.pad(x, w, mode, **kw), want, atol=_ramp_atol(mode, dtype))


#: every mode in float32, and in int32 where integers take their own path (rounded statistics, floored ramps, 2 * edge - x)
JAX_CASES = [(m, k, F32) for m, k in MODES] + [(m, k, I32) for m, k in MODES
                                              if m in ("linear_ramp", "mean", "median") or k.get("reflect_type")]


@pytest.mark.parametrize("mode,kw,dtype", JAX_CASES, ids=[f"{m}{sorted(k)}-{d.__name__}" for m, k, d in JAX_CASES])
def test_mode_matches_jax_eager(mode: str, kw: dict[str, Any], dtype: type) -> None:
    x = _inputs((2, 1, 3), dtype)
    if np.ndim(kw.get("end_values", 0)) == 2:
        kw = {"end_values": ((1, 2), (3, 4), (5, 6))}
    w = WIDTHS[2]
    got, want = tnp.pad(x, w, mode, **kw), jnp.pad(x, w, mode, **kw)
    if mode == "empty" and jax.default_backend() != "cpu":
        # 'empty' leaves the padding unspecified, and JAX's on a GPU is
        # whatever the memory held: the array itself must be in place
        inside = np.pad(np.ones(x.shape, bool), w, "constant")
        got, want = np.asarray(got)[inside], np.asarray(want)[inside]
    _same(got, want, atol=_ramp_atol(mode, dtype))


@pytest.mark.parametrize("mode,kw", MODES[::2] + [MODES[3]], ids=[f"{m}{sorted(k)}" for m, k in MODES[::2] + [MODES[3]]])
def test_mode_matches_jax_under_jit(mode: str, kw: dict[str, Any]) -> None:
    x = _inputs((2, 3), F32)
    w = ((1, 4), (5, 2))
    _same(tdx.jit(lambda v: tnp.pad(v, w, mode, **kw))(x), jnp.pad(x, w, mode, **kw))


@pytest.mark.parametrize("mode,kw", [("reflect", {"reflect_type": "odd"}), ("linear_ramp", {"end_values": 1.5}),
                                     ("mean", {"stat_length": 2}), ("median", {}), ("symmetric", {}), ("wrap", {})])
def test_grad_of_a_padded_sum_matches_jax(mode: str, kw: dict[str, Any]) -> None:
    x = np.array([1.0, 4.0, 2.0, -3.0], F32)
    got = tdx.grad(lambda v: tnp.sum(tnp.pad(v, (3, 6), mode, **kw) ** 2))(x)
    want = jax.grad(lambda v: jnp.sum(jnp.pad(v, (3, 6), mode, **kw) ** 2))(x)
    _same(got, want)


@ci_examples(4, otherwise=15)
@given(st.sampled_from(["edge", "reflect", "wrap", "median"]), st.integers(0, 4), st.integers(0, 4))
def test_vmap_matches_a_loop(mode: str, before: int, after: int) -> None:
    xs = _inputs((3, 2, 3), F32)
    got = tdx.vmap(lambda v: tnp.pad(v, (before, after), mode))(xs)
    _same(got, np.stack([np.asarray(tnp.pad(x, (before, after), mode)) for x in xs]))
    _same(got, jax.vmap(lambda v: jnp.pad(v, (before, after), mode))(xs))


def test_callable_mode_matches_jax() -> None:
    def custom_pad(row: Any, pad_width: tuple[int, int], iaxis: int, kwargs: dict[str, Any]) -> Any:
        before, after = pad_width
        row = row.at[:before].set(kwargs.get("before_value", 0) + iaxis)
        return row.at[len(row) - after:].set(kwargs.get("after_value", 0))

    x = np.arange(6, dtype=I32).reshape(2, 3)
    w = ((1, 2), (2, 1))
    _same(tnp.pad(x, w, custom_pad, before_value=-10, after_value=10),
          jnp.pad(x, w, custom_pad, before_value=-10, after_value=10))


def test_weak_scalars_and_zero_dim() -> None:
    for mode in ("edge", "mean", "linear_ramp", "reflect"):
        got, want = tnp.pad(1.5, 2, mode), jnp.pad(1.5, 2, mode)
        assert got.weak_type == want.weak_type and float(np.asarray(got)) == float(want)
    x = np.array([1, 2, 4], I32)
    _same(tnp.pad(x, np.array([2, 1]), "mean"), jnp.pad(x, np.array([2, 1]), "mean"))


def test_nan_median_and_empty_axes() -> None:
    x = np.array([1.0, np.nan, 2.0], F32)
    _same(tnp.pad(x, 2, "median"), jnp.pad(x, 2, "median"))
    e = np.zeros((0, 2), F32)
    for mode in ("edge", "wrap", "reflect", "symmetric"):
        _same(tnp.pad(e, ((0, 0), (1, 2)), mode), jnp.pad(e, ((0, 0), (1, 2)), mode))


@pytest.mark.pinned_jax  # messages
def test_errors_as_jax() -> None:
    x = np.ones((2, 3), F32)
    cases: list[tuple[Any, type[BaseException], str]] = [
        (lambda p: p(x, 1, "bogus"), NotImplementedError, "mode 'bogus'"),
        (lambda p: p(x, -1, "edge"), ValueError, "negative"),
        (lambda p: p(x, ((1, 0), (0, -2)), "reflect"), ValueError, "negative"),
        (lambda p: p(x, 1, "edge", stat_length=2), ValueError, "stat_length"),
        (lambda p: p(x, 1, "reflect", end_values=2), ValueError, "end_values"),
        (lambda p: p(x, 1, "mean", reflect_type="odd"), ValueError, "reflect_type"),
        (lambda p: p(x, 1, "wrap", constant_values=2), ValueError, "constant_values"),
        (lambda p: p(x, 1, "edge", bogus=2), ValueError, "bogus"),
        (lambda p: p(np.zeros((0, 2), F32), 1, "edge"), ValueError, "empty axis"),
        (lambda p: p(np.zeros((2, 0), F32), (0, 1), "wrap"), ValueError, "empty axis"),
        (lambda p: p(np.zeros((0,), F32), (1, 0), "symmetric"), ValueError, "empty axis"),
        (lambda p: p(np.zeros((0, 2), F32), ((0, 0), (1, 1)), "maximum"), ValueError, "zero-size"),
        (lambda p: p(np.zeros((0, 2), F32), ((0, 0), (1, 1)), "median"), TypeError, "empty axis"),
        (lambda p: p(np.zeros((2, 0), F32), ((1, 0), (0, 0)), "linear_ramp"), TypeError, "empty axis"),
        (lambda p: p(x, 1, "mean", stat_length=0), ValueError, "stat_length of 0"),
        (lambda p: p(x, 1.5, "edge"), TypeError, "integral"),
        (lambda p: p(x, ((1, 2, 3),), "edge"), ValueError, "unsupported shape"),
    ]
    for call, cls, match in cases:
        with pytest.raises(cls, match=match):
            call(tnp.pad)
        with pytest.raises(cls):
            call(jnp.pad)
    with pytest.raises(ValueError, match="reflect_type"):
        tnp.pad(x, 1, "reflect", reflect_type="sideways")
    with pytest.raises(PrimitiveTypeError):
        tnp.pad(x, 1.5, "edge")  # type: ignore[arg-type]  # the error under test
