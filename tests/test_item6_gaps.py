"""Four small gaps of issue 29 (item 6), with JAX as the oracle:

* ``linalg.norm`` with the matrix orders 2, -2 and ``'nuc'`` (through the
  singular values), batched over other axes, with ``keepdims``, under ``jit``
  and ``grad``;
* the SVD's derivative with ``full_matrices=True``: computed for square
  matrices (their full SVD is the thin one), refused for others, as JAX 0.10;
* ``rel_entr``/``kl_div`` of ``x == y`` under ``jit`` in float32: exactly 0,
  as JAX's (``x log y`` behind a select, so XLA cannot contract it into the
  subtraction);
* weak types: every function of ``typedax.scipy.special`` and
  ``typedax.scipy.stats`` and ``lax.clamp``/``lax.cbrt`` on non-scalar weakly
  typed arrays (``broadcast_to(0.5, (3,))``) give JAX's dtype and weak flag,
  eagerly and traced (``eval_shape``, which traces as ``jit`` does), with x64
  on and off; the functions that dropped the flag also under a compiled
  ``jit``, and with JAX's values.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.special as tsp
import typedax.scipy.stats as tst
from typedax import lax

from _examples import ci_jit

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

RNG = np.random.default_rng(29)


# -- linalg.norm: ord 2, -2, 'nuc' ---------------------------------------------------------
NORM_CASES: list[tuple[tuple[int, ...], Any, bool, type]] = [
    ((3, 4), None, False, np.float64), ((2, 3, 4), (1, 2), False, np.complex64), ((2, 3, 4), (2, 0), True, np.float32),
    ((4, 3, 2), (0, -1), False, np.int32),
]


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_norm_svd_orders_match_jax(ord_: int | str) -> None:
    for shape, axis, keepdims, dtype in NORM_CASES:
        x: np.ndarray[Any, Any] = (RNG.normal(size=shape) * 3).astype(dtype)
        want = jnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
        got = tnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
        assert (got.shape, got.dtype) == (want.shape, want.dtype), (shape, axis, dtype)
        rtol = 1e-5 if np.dtype(want.dtype).itemsize == 4 else 1e-12
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol)
    x = RNG.normal(size=(2, 3, 4))
    jitted = tdx.jit(lambda a: tnp.linalg.norm(a, ord=ord_, axis=(1, 2)))(x)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(jnp.linalg.norm(x, ord=ord_, axis=(1, 2))), rtol=1e-12)
    m = RNG.normal(size=(3, 4))
    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    np.testing.assert_allclose(np.asarray(tdx.grad(lambda a: tnp.linalg.norm(a, ord=ord_))(m)),
                               np.asarray(ci_jit(jax.grad(lambda a: jnp.linalg.norm(a, ord=ord_)))(m)),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.asarray(tnp.linalg.matrix_norm(x, ord=ord_)),
                               np.asarray(jnp.linalg.matrix_norm(x, ord=ord_)), rtol=1e-12)


def test_norm_svd_orders_of_empty_and_weak_matrices() -> None:
    assert float(tnp.linalg.norm(np.zeros((0, 3)), ord=2)) == float(jnp.linalg.norm(np.zeros((0, 3)), ord=2)) == 0.0
    got, want = tnp.linalg.norm(tnp.broadcast_to(2.0, (2, 2)), ord="nuc"), jnp.linalg.norm(jnp.broadcast_to(2.0, (2, 2)), ord="nuc")
    assert (got.dtype, got.weak_type, float(got)) == (want.dtype, want.weak_type, float(want))


# -- the SVD's derivative with full_matrices=True -----------------------------------------
def _svd_loss(np_: Any, full: bool) -> Callable[[Any], Any]:
    """Uses s, u and vh, invariant under the sign of each singular pair."""
    def loss(a: Any) -> Any:
        u, s, vh = np_.linalg.svd(a, full_matrices=full)
        k = s.shape[-1]
        return (np_.sum(s * np_.arange(1.0, k + 1.0)) + np_.sum(u ** 2 * np_.arange(1.0, u.shape[-1] + 1.0))
                + np_.sum(vh ** 2 * np_.arange(1.0, vh.shape[-2] + 1.0)[:, None]))
    return loss


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_svd_grad_with_full_matrices_on_square_matrices_is_jax_s(shape: tuple[int, ...]) -> None:
    a = RNG.normal(size=shape)
    got = tdx.grad(_svd_loss(tnp, True))(a)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.grad(_svd_loss(jnp, True))(a)), rtol=1e-8, atol=1e-10)
    # the full SVD of a square matrix is its thin one, and so is the derivative
    np.testing.assert_allclose(np.asarray(got), np.asarray(tdx.grad(_svd_loss(tnp, False))(a)), rtol=1e-12, atol=1e-12)
    s_only = tdx.grad(lambda x: tnp.sum(tnp.linalg.svd(x, full_matrices=True)[1]))(a)
    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    np.testing.assert_allclose(np.asarray(s_only), np.asarray(ci_jit(jax.grad(
        lambda x: jnp.sum(jnp.linalg.svd(x, full_matrices=True)[1])))(a)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4)])
def test_svd_grad_with_full_matrices_on_other_matrices_is_refused_as_jax(shape: tuple[int, ...]) -> None:
    a = RNG.normal(size=shape)
    with pytest.raises(NotImplementedError, match="full matrices"):
        jax.grad(lambda x: jnp.linalg.svd(x, full_matrices=True)[1].sum())(a)
    with pytest.raises(NotImplementedError, match="full matrices"):
        tdx.grad(lambda x: tnp.sum(tnp.linalg.svd(x, full_matrices=True)[1]))(a)
    # without u and vh the full SVD is differentiable (as JAX's)
    got = tdx.grad(lambda x: tnp.sum(tnp.linalg.svd(x, full_matrices=True, compute_uv=False)))(a)
    want = jax.grad(lambda x: jnp.sum(jnp.linalg.svd(x, full_matrices=True, compute_uv=False)))(a)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-12)


# -- rel_entr and kl_div under jit in float32 ---------------------------------------------
def test_rel_entr_and_kl_div_of_equal_arguments_are_jax_s_under_jit() -> None:
    """Exactly 0 for scalars and short arrays, as JAX's (they were ~1e-8); on
    longer arrays XLA's vectorized log leaves JAX's ~1e-7 too: bit for bit JAX's."""
    x = RNG.uniform(0.01, 3.0, size=64).astype(np.float32)
    y = x.copy()
    y[::2] = RNG.uniform(0.01, 3.0, size=32).astype(np.float32)
    x[::7], y[::5] = 0.0, 0.0
    for name in ("rel_entr", "kl_div"):
        ours = tdx.jit(getattr(tsp, name))
        theirs = jax.jit(getattr(jax.scipy.special, name))
        assert not np.any(np.asarray(ours(x[1:5], x[1:5]))) and float(ours(x[1], x[1])) == 0.0
        for b in (x, y):
            got, want = np.asarray(ours(x, b)), np.asarray(theirs(x, b))
            assert got.dtype == want.dtype == np.float32
            np.testing.assert_array_equal(got, want)


# -- weak types of non-scalar weak inputs ---------------------------------------------------
#: a valid value for each parameter name (as tests/test_scipy_weak.py); others get 0.5
_VALUES: dict[str, float] = {
    "k": 1.0, "n": 3.0, "N": 5.0, "a": 2.5, "b": 3.5, "p": 0.3, "q": 0.4, "mu": 2.0, "df": 3.0,
    "kappa": 1.5, "lmbda": 0.5, "m": 2.0, "z": 1.5, "x": 0.5,
}
#: arguments that are not weak float arrays: ``(value, weak?)``; a weak int for an integer order
_OVERRIDES: dict[str, list[tuple[float | int, bool]]] = {
    "special.zeta": [(2.5, True), (1.5, True)],
    "special.polygamma": [(1, True), (1.5, True)],
    "special.multigammaln": [(2.5, True), (2, False)],
    "special.bernoulli": [(3, False)],
    "pareto.cdf": [(1.5, True), (3.5, True)], "pareto.logcdf": [(1.5, True), (3.5, True)],
    "pareto.logpdf": [(1.5, True), (3.5, True)], "pareto.logsf": [(1.5, True), (3.5, True)],
    "pareto.pdf": [(1.5, True), (3.5, True)], "pareto.sf": [(1.5, True), (3.5, True)],
}
#: keyword arguments a function requires
_KWARGS: dict[str, dict[str, int]] = {"special.bessel_jn": {"v": 1}}


def _functions() -> list[tuple[str, Callable[..., Any], Callable[..., Any]]]:
    """(name, typedax function, JAX function): scipy.special, scipy.stats, lax.clamp/cbrt."""
    out: list[tuple[str, Callable[..., Any], Callable[..., Any]]] = [
        (f"special.{n}", getattr(tsp, n), getattr(jax.scipy.special, n)) for n in tsp.__all__
    ]
    for m in tst.__all__:
        mod = getattr(tst, m)
        out += [(f"{m}.{n}", getattr(mod, n), getattr(getattr(jax.scipy.stats, m), n)) for n in mod.__all__]
    out += [
        ("lax.cbrt", lax.cbrt, jax.lax.cbrt),
        ("lax.clamp", lax.clamp, jax.lax.clamp),
        ("lax.clamp(0.0, x, 1.0)", lambda x: lax.clamp(0.0, x, 1.0), lambda x: jax.lax.clamp(0.0, x, 1.0)),
        ("lax.clamp(0.0, x, hi)", lambda x, hi: lax.clamp(0.0, x, hi), lambda x, hi: jax.lax.clamp(0.0, x, hi)),
    ]
    return out


FUNCTIONS = _functions()
#: those that dropped the weak flag before (issue 29 item 6): also compiled, and their values
FIXED = {
    "lax.cbrt", "lax.clamp(0.0, x, 1.0)", "lax.clamp(0.0, x, hi)", "special.comb", "special.entr",
    "special.factorial", "special.xlog1py", "special.xlogy", "binom.logpmf", "binom.pmf", "expon.logpdf",
    "expon.pdf", "expon.ppf", "gamma.logsf", "gamma.sf", "pareto.logcdf", "poisson.logpmf", "poisson.pmf",
    "uniform.logpdf", "uniform.pdf", "uniform.ppf", "vonmises.logpdf", "vonmises.pdf",
}


def _spec(name: str, f: Callable[..., Any]) -> list[tuple[float | int, bool]]:
    if name in _OVERRIDES:
        return _OVERRIDES[name]
    required = [
        p for p in inspect.signature(f).parameters.values()
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return [(_VALUES.get(p.name, 0.5), True) for p in required]


def _args(np_: Any, spec: list[tuple[float | int, bool]]) -> list[Any]:
    """Weak arrays of shape (3,) (``broadcast_to`` of a Python scalar), or the values as they are."""
    return [np_.broadcast_to(v, (3,)) if weak else v for v, weak in spec]


def _merge(weak_args: tuple[Any, ...], spec: list[tuple[float | int, bool]]) -> list[Any]:
    """The traced weak arguments in their places, the others as they are."""
    it = iter(weak_args)
    return [next(it) if weak else v for v, weak in spec]


@pytest.fixture(params=[True, False], ids=["x64", "x32"])
def x64(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Both libraries in 64-bit mode, then in 32-bit mode (restored after)."""
    on = bool(request.param)
    jax.config.update("jax_enable_x64", on)  # type: ignore[no-untyped-call]  # jax's config is untyped
    tdx.config.update("jax_enable_x64", on)
    try:
        yield on
    finally:
        tdx.config.update("jax_enable_x64", True)
        jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # as above


def test_weak_inputs_are_weak_and_every_function_is_checked() -> None:
    w, v = tnp.broadcast_to(0.5, (3,)), jnp.broadcast_to(0.5, (3,))
    assert w.weak_type and jax.typeof(v).weak_type and lax.full((3,), 2.0).weak_type
    names = {n for n, _, _ in FUNCTIONS}
    assert FIXED <= names and len(names) > 100


def test_non_scalar_weak_inputs_keep_jax_s_weak_flag(x64: bool) -> None:
    """Eager and traced (``eval_shape``): the result's dtype and weak flag are
    JAX's (JAX's traced with ``eval_shape``: no compilation)."""
    wrong: list[str] = []
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name, f, jf in FUNCTIONS:
            spec, kw = _spec(name, f), _KWARGS.get(name, {})
            try:
                want = jax.eval_shape(lambda jf=jf, spec=spec, kw=kw: jf(*_args(jnp, spec), **kw))
            except (TypeError, ValueError):  # (JAX's refusal: it needs other arguments, e.g. multivariate_normal)
                continue
            if not hasattr(want, "weak_type"):  # (a tuple: sici, fresnel, ...)
                continue
            eager = f(*_args(tnp, spec), **kw)
            traced: Any = tdx.eval_shape(lambda *ws, f=f, spec=spec, kw=kw: f(*_merge(ws, spec), **kw),
                                    *[a for a, (_, weak) in zip(_args(tnp, spec), spec) if weak])
            for how, got in (("eager", eager), ("traced", traced)):
                if (got.shape, got.dtype, got.weak_type) != (want.shape, want.dtype, want.weak_type):
                    wrong.append(f"{name} ({how}): typedax {got.dtype}{list(got.shape)} weak={got.weak_type}, "
                                 f"jax {want.dtype}{list(want.shape)} weak={want.weak_type}")
            checked += 1
    assert checked > 100
    assert not wrong, "\n".join(wrong)


def test_the_functions_that_dropped_the_weak_flag_under_jit() -> None:
    """Compiled (one ``jit`` for all), with JAX's flags and values."""
    fixed = [(name, f, jf, _spec(name, f)) for name, f, jf in FUNCTIONS if name in FIXED]

    def every(np_: Any, which: int) -> Callable[[], tuple[Any, ...]]:
        return lambda: tuple(fs[which](*_args(np_, spec)) for _, *fs, spec in fixed)

    ours = tdx.jit(every(tnp, 0))()
    theirs = jax.jit(every(jnp, 1))()
    for (name, *_), got, want in zip(fixed, ours, theirs, strict=True):
        assert (got.dtype, got.weak_type) == (want.dtype, jax.typeof(want).weak_type), name
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, err_msg=name)
