"""typedax.scipy.stats' distributions beyond norm against jax.scipy.stats:
every function of each (pdf/logpdf/cdf/logcdf/sf/logsf/ppf/isf, pmf/logpmf
as JAX has them) with loc/scale and shape parameters, eager and under jit,
float32 and float64, on points inside and outside the support; gradients
against jax.grad; vmap against a loop."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.stats as jst
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
import typedax.scipy.stats as tst

from _examples import ci_jit, ci_some

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

X = np.array([-3.0, -0.5, 0.0, 0.3, 0.5, 0.9, 1.0, 1.7, 2.5, 7.0])
Q = np.array([0.0, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0, 0.45])
K = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 7.0, 2.5, 10.0, 5.0])
POS = np.array([0.5, 1.0, 2.0, 3.0, 0.7, 5.0, 1.5, 2.5, 4.0, 0.9])
PROB = np.array([0.1, 0.3, 0.5, 0.9, 0.2, 0.6, 0.05, 0.75, 0.4, 0.95])

# distribution -> (functions, argument tuples: first the point, then the rest)
CASES: dict[str, tuple[tuple[str, ...], tuple[tuple[np.ndarray | float, ...], ...]]] = {
    "logistic": (("pdf", "logpdf", "cdf", "sf", "ppf", "isf"), ((X,), (X, 0.5, 2.0))),
    "uniform": (("pdf", "logpdf", "cdf", "ppf"), ((X,), (X, -1.0, 3.0))),
    "expon": (("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf"), ((X,), (X, -1.0, 2.0))),
    "laplace": (("pdf", "logpdf", "cdf"), ((X,), (X, 0.5, 2.0))),
    "cauchy": (("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"), ((X,), (X, 0.5, 2.0))),
    "t": (("pdf", "logpdf"), ((X, POS), (X, POS, 0.5, 2.0))),
    "gamma": (("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"), ((X, POS), (X, POS, -1.0, 2.0))),
    "beta": (("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"), ((X / 2, POS, POS[::-1]), (X, POS, POS[::-1], -1.0, 3.0))),
    "chi2": (("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"), ((X, POS), (X, POS, -1.0, 2.0))),
    "poisson": (("pmf", "logpmf", "cdf"), ((K, POS), (K, POS, 1.0))),
    "bernoulli": (("pmf", "logpmf"), ((K / 4, PROB), (K, PROB, 1.0))),
    "binom": (("pmf", "logpmf"), ((K, POS * 3, PROB), (K, np.round(POS * 3), PROB, 1.0))),
    "geom": (("pmf", "logpmf"), ((K, PROB), (K, PROB, 1.0))),
    "pareto": (("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf"), ((X, POS), (X, POS, -1.0, 0.5))),
    "vonmises": (("pdf", "logpdf"), ((X, POS), (X, -POS))),
}
QUANTILE = {"ppf", "isf"}
LOOPS = {"gamma", "beta", "chi2", "poisson"}  # CDFs from XLA's loops, lgamma's eager accuracy
DTYPES: list[tuple[type[np.floating], float]] = [(np.float64, 1e-12), (np.float32, 2e-5)]  # with rtol


def check(got: object, want: object, rtol: float, what: str) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (what, g.dtype, w.dtype, g.shape, w.shape)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=what)
    np.testing.assert_array_equal(np.isinf(g) * np.sign(g), np.isinf(w) * np.sign(w), err_msg=what)
    fin = np.isfinite(w) & (np.abs(w) > 1e-30)  # XLA flushes subnormals, eager NumPy not
    np.testing.assert_allclose(g[fin].astype(np.float64), w[fin].astype(np.float64), rtol=rtol,
                               atol=rtol * 1e-3, err_msg=what)


@pytest.mark.parametrize("dist", sorted(CASES))
def test_values_match_jax(dist: str) -> None:
    names, arg_sets = CASES[dist]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # eager NumPy on log(0) and poles
        for j, name in enumerate(names):
            # ci: each function in one of the dtypes, the pair (pdf, logpdf), (cdf, logcdf)... in
            # the same one (one JAX compile), rotating over the functions and the distributions;
            # make test-long runs both dtypes for every function
            for dtype, rtol in ci_some(DTYPES, j // 2 + sorted(CASES).index(dist)):
                # the CDFs run XLA's loops, slow to compile: one set of arguments, jit in float64
                loops = dist in LOOPS
                for args in arg_sets[-1:] if loops else arg_sets:
                    a = tuple(np.asarray(v, dtype) for v in args)
                    if name in QUANTILE:
                        a = (Q.astype(dtype),) + a[1:]
                    want = getattr(getattr(jst, dist), name)(*a)
                    f: Callable[..., tdx.Array] = getattr(getattr(tst, dist), name)
                    eager_rtol = rtol * (1e3 if dist in LOOPS and dtype == np.float64 else 5 if dist in LOOPS else 1)
                    check(f(*a), want, eager_rtol, f"{dist}.{name} {dtype.__name__} eager")
                    if dtype == np.float64:  # under jit once (float32 eagerly above: the same rules)
                        check(tdx.jit(f)(*a), want, rtol, f"{dist}.{name} {dtype.__name__} jit")


GRADS: list[tuple[str, str, tuple[np.ndarray, ...]]] = [
    ("logistic", "logpdf", (X, np.full(10, 0.5), POS)), ("logistic", "cdf", (X, np.full(10, 0.5), POS)),
    ("expon", "logpdf", (POS, np.full(10, 0.1), POS)), ("laplace", "cdf", (X + 0.05, np.zeros(10), POS)),
    ("cauchy", "logcdf", (X, np.full(10, 0.5), POS)), ("t", "logpdf", (X, POS, np.zeros(10), POS)),
    ("gamma", "logpdf", (POS, POS[::-1])), ("gamma", "cdf", (POS, POS[::-1])), ("chi2", "sf", (POS, POS[::-1])),
    ("beta", "logpdf", (PROB, POS, POS[::-1])), ("beta", "cdf", (PROB, POS, POS[::-1])),
    ("poisson", "logpmf", (K + 2, POS)), ("bernoulli", "logpmf", (np.round(PROB), PROB)),
    ("binom", "logpmf", (np.full(10, 2.0), np.full(10, 6.0), PROB)), ("geom", "logpmf", (K + 2, PROB)),
    ("pareto", "logcdf", (POS + 2, POS)), ("vonmises", "logpdf", (X, POS)), ("uniform", "cdf", (PROB, np.zeros(10), POS + 1)),
]


@pytest.mark.parametrize("dist,name,args", GRADS, ids=[f"{d}.{n}" for d, n, _ in GRADS])
def test_gradients_match_jax(dist: str, name: str, args: tuple[np.ndarray, ...]) -> None:
    """In every argument the formula is differentiable in (JAX's beta CDF only
    in x: it refuses the others)."""
    argnums = (0,) if (dist, name) == ("beta", "cdf") else tuple(range(len(args)))
    f = getattr(getattr(tst, dist), name)
    got = tdx.grad(lambda *v: tnp.sum(f(*v)), argnums=argnums)(*args)
    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    want = ci_jit(jax.grad(lambda *v: jnp.sum(getattr(getattr(jst, dist), name)(*v)), argnums=argnums))(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-12)


def test_vmap_matches_a_loop() -> None:
    x = X.reshape(2, 5)
    for f, args in ((tst.gamma.cdf, (np.abs(x), POS.reshape(2, 5))), (tst.t.logpdf, (x, POS.reshape(2, 5))),
                    (tst.binom.logpmf, (K.reshape(2, 5), np.full((2, 5), 8.0), PROB.reshape(2, 5)))):
        got = np.asarray(tdx.vmap(f)(*args))
        loop = np.stack([np.asarray(f(*(a[i] for a in args))) for i in range(2)])
        np.testing.assert_allclose(got, loop, rtol=1e-13)


def test_stats_package_exports() -> None:
    assert set(tst.__all__) == {n for n in vars(tst) if not n.startswith("_")}
    assert set(tst.__all__) <= set(dir(jst))
