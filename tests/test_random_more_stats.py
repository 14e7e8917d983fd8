"""Statistical sanity of the samplers of tests/test_random_more.py: sample
mean and variance against the distribution's and a Kolmogorov-Smirnov
statistic (scipy.stats) for the continuous ones; a chi-square test of the
frequencies for the counts. Fixed keys, so deterministic; the bounds are
loose enough that a correct sampler passes for any key and a wrong one (a
bad transform, a reused key, a wrong branch of a rejection sampler) fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.stats as st  # type: ignore[import-untyped]  # scipy ships no type stubs

import typedax as tdx
from typedax import random as tr
from test_random_stats import assert_moments_and_ks

N = 4000
KEY = tr.PRNGKey(20240607)
ROWS = (N // 4, 4)  # gamma of one shape under t, generalized_normal and ball

NDArray = np.ndarray[Any, Any]


def _sample(f: Callable[[tdx.Array], tdx.Array]) -> NDArray:
    return np.asarray(f(KEY), dtype=np.float64).ravel()


CONTINUOUS: dict[str, tuple[Callable[[tdx.Array], tdx.Array], Any]] = {  # scipy's frozen distributions
    "t": (lambda k: tr.t(k, 5.0, ROWS), st.t(5.0)),
    "f": (lambda k: tr.f(k, 5.0, 12.0, (N,)), st.f(5.0, 12.0)),
    "maxwell": (lambda k: tr.maxwell(k, (N,)), st.maxwell()),
    "maxwell32": (lambda k: tr.maxwell(k, (N,), np.float32), st.maxwell()),
    # |x - loc| / scale is one-sided Maxwell (the sign: test_double_sided_maxwell_is_symmetric)
    "double_sided_maxwell": (lambda k: tdx.numpy.abs(tr.double_sided_maxwell(k, 1.0, 2.0, (N,)) - 1.0) / 2.0,
                             st.maxwell()),
    "weibull_min": (lambda k: tr.weibull_min(k, 2.0, 1.5, (N,)), st.weibull_min(1.5, scale=2.0)),
    "generalized_normal": (lambda k: tr.generalized_normal(k, 1.5, ROWS), st.gennorm(1.5)),
    "generalized_normal_laplace": (lambda k: tr.generalized_normal(k, 1.0, ROWS), st.laplace()),
    "wald": (lambda k: tr.wald(k, 1.0, (N,)), st.invgauss(1.0)),
    "triangular": (lambda k: tr.triangular(k, 0.0, 0.3, 2.0, (N,)), st.triang(0.15, loc=0.0, scale=2.0)),
    "triangular32": (lambda k: tr.triangular(k, np.float32(-1), np.float32(1), np.float32(1), (N,), np.float32),
                     st.triang(1.0, loc=-1.0, scale=2.0)),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_moments_and_ks(name: str) -> None:
    f, dist = CONTINUOUS[name]
    assert_moments_and_ks(_sample(f), dist)


def test_double_sided_maxwell_is_symmetric() -> None:
    x = np.asarray(tr.double_sided_maxwell(KEY, 1.0, 2.0, (N,)))
    assert abs((x > 1.0).mean() - 0.5) < 5 * np.sqrt(0.25 / N)


@pytest.mark.parametrize("p", [2.0, 1.0])
def test_ball_is_uniform_in_the_ball(p: float) -> None:
    """The norm of a uniform point of the d-dimensional unit Lp ball, to the
    d-th power, is uniform on [0, 1] (volume scales as r**d); the direction
    is symmetric."""
    x = np.asarray(tr.ball(KEY, ROWS[1], p, (ROWS[0],)))
    assert x.shape == ROWS
    r = (np.abs(x) ** p).sum(-1) ** (1 / p)
    assert r.max() <= 1.0
    ks = st.kstest(r ** ROWS[1], st.uniform().cdf)
    assert ks.statistic < 1.8 / np.sqrt(r.size), ks
    assert np.all(np.abs((x > 0).mean(0) - 0.5) < 5 * np.sqrt(0.25 / ROWS[0]))


def _chisquare_pvalue(x: NDArray, pmf: Callable[[NDArray], NDArray]) -> float:
    """A chi-square goodness-of-fit p-value of integer samples ``x`` against
    ``pmf``, the bins of fewer than 5 expected pooled into the two tails."""
    ks = np.arange(int(x.min()), int(x.max()) + 1)
    expected = pmf(ks) * x.size
    keep = np.flatnonzero(expected >= 5)
    lo, hi = ks[keep[0]], ks[keep[-1]]
    inner = np.arange(lo, hi + 1)
    obs = np.array([(x < lo).sum()] + [(x == k).sum() for k in inner] + [(x > hi).sum()], np.float64)
    exp = np.concatenate([[pmf(np.arange(0, lo)).sum()], pmf(inner), [0.0]]) * x.size
    exp[-1] = x.size - exp[:-1].sum()
    if exp[0] < 1e-9:  # no lower tail: the support starts at lo
        obs, exp = obs[1:], exp[1:]
    return float(st.chisquare(obs, exp).pvalue)


def test_poisson_frequencies_both_algorithms() -> None:
    # one call: rates below 10 take Knuth's algorithm, the others transformed rejection
    lam = np.repeat([3.5, 40.0], N // 2)
    x = np.asarray(tr.poisson(KEY, lam))
    assert x.dtype == np.int64
    for half, rate in [(x[: N // 2], 3.5), (x[N // 2:], 40.0)]:
        assert abs(half.mean() - rate) < 5 * np.sqrt(rate / half.size)
        assert _chisquare_pvalue(half, st.poisson(rate).pmf) > 1e-3


def test_binomial_frequencies_both_algorithms() -> None:
    # n * min(p, 1 - p) of 6 (inversion) and of 80 (BTRS, p above 1/2: flipped)
    n = np.repeat([20.0, 200.0], N // 2)
    p = np.repeat([0.3, 0.6], N // 2)
    x = np.asarray(tr.binomial(KEY, n, p))
    assert np.array_equal(x, np.round(x))
    for half, (nn, pp) in [(x[: N // 2], (20, 0.3)), (x[N // 2:], (200, 0.6))]:
        mean, var = nn * pp, nn * pp * (1 - pp)
        assert abs(half.mean() - mean) < 5 * np.sqrt(var / half.size)
        assert _chisquare_pvalue(half, st.binom(nn, pp).pmf) > 1e-3


def test_geometric_frequencies() -> None:
    x = np.asarray(tr.geometric(KEY, 0.3, (N,)))
    assert x.min() >= 1
    assert _chisquare_pvalue(x, st.geom(0.3).pmf) > 1e-3


def test_multinomial_moments() -> None:
    p = np.array([0.2, 0.3, 0.5])
    rows = N // 4
    x = np.asarray(tr.multinomial(KEY, 30.0, p, shape=(rows, 3)))
    np.testing.assert_array_equal(x.sum(-1), np.full(rows, 30.0))
    var = 30 * p * (1 - p)
    assert np.all(np.abs(x.mean(0) - 30 * p) < 5 * np.sqrt(var / rows)), x.mean(0)
    # the covariance of two counts is -n p_i p_j
    c = np.cov(x[:, 0], x[:, 1])[0, 1]
    assert abs(c - (-30 * p[0] * p[1])) < 5 * np.sqrt(var[0] * var[1] / rows), c
