"""Statistical sanity of every typedax.random sampler: sample mean and
variance against the distribution's, and a Kolmogorov-Smirnov statistic
(scipy.stats) for the continuous ones; frequencies for the discrete ones.
Fixed keys, so these are deterministic; the bounds are loose enough that a
correct sampler passes for any key and a wrong one (a bad transform, a
reused key, a biased bit) fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.stats as st  # type: ignore[import-untyped]  # scipy ships no type stubs

import typedax as tdx
from typedax import random as tr
from typedax.core.ir import NDArray

N = 4000
KEY = tr.PRNGKey(20240601)


def _sample(f: Callable[[tdx.Array], tdx.Array]) -> np.ndarray[tuple[int, ...], np.dtype[np.float64]]:
    return np.asarray(f(KEY), dtype=np.float64)


CONTINUOUS: dict[str, tuple[Callable[[tdx.Array], tdx.Array], Any]] = {  # scipy's frozen distributions
    "uniform": (lambda k: tr.uniform(k, (N,), minval=-1.0, maxval=3.0), st.uniform(-1.0, 4.0)),
    "uniform32": (lambda k: tr.uniform(k, (N,), np.float32), st.uniform()),
    "normal": (lambda k: tr.normal(k, (N,)), st.norm()),
    "normal32": (lambda k: tr.normal(k, (N,), np.float32), st.norm()),
    "truncated_normal": (lambda k: tr.truncated_normal(k, -0.5, 2.0, (N,)), st.truncnorm(-0.5, 2.0)),
    "gumbel": (lambda k: tr.gumbel(k, (N,)), st.gumbel_r()),
    "gumbel_high": (lambda k: tr.gumbel(k, (N,), mode="high"), st.gumbel_r()),
    "exponential": (lambda k: tr.exponential(k, (N,)), st.expon()),
    # the same shape and an array parameter: one compiled sampler for both
    "gamma_small": (lambda k: tr.gamma(k, np.full(N // 4, 0.4)), st.gamma(0.4)),
    "gamma": (lambda k: tr.gamma(k, np.full(N // 4, 3.0)), st.gamma(3.0)),
    "beta": (lambda k: tr.beta(k, 2.0, 5.0, (N // 4,)), st.beta(2.0, 5.0)),
    "mvn_marginal": (lambda k: tr.multivariate_normal(k, np.array([1.0, -2.0]),
                                                      np.array([[4.0, 1.0], [1.0, 2.0]]), (N,))[:, 0],
                     st.norm(1.0, 2.0)),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_moments_and_ks(name: str) -> None:
    f, dist = CONTINUOUS[name]
    assert_moments_and_ks(_sample(f), dist)


def assert_moments_and_ks(x: NDArray, dist: Any) -> None:
    """Mean and variance within 5 standard errors of ``dist``'s, and a
    Kolmogorov-Smirnov statistic under the 0.3% critical value (shared with
    tests/test_random_more_stats.py)."""
    n = x.size
    mean, var = dist.mean(), dist.var()
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / n), (x.mean(), mean)
    # the variance of the sample variance is about var**2 * (2 + excess kurtosis) / n
    kurt = float(dist.stats(moments="k"))
    assert abs(x.var() - var) < 5 * var * np.sqrt((2 + kurt) / n), (x.var(), var)
    ks = st.kstest(x, dist.cdf)
    assert ks.statistic < 1.8 / np.sqrt(n), ks  # the 0.3% critical value is about 1.73 / sqrt(n)


def test_bits_are_uniform_per_bit() -> None:
    for dtype, width in [(np.uint8, 8), (np.uint32, 32), (np.uint64, 64)]:
        b = np.asarray(tr.bits(KEY, (N,), dtype))
        ones = np.array([((b >> np.array(i, dtype)) & np.array(1, dtype)).mean() for i in range(width)])
        assert np.all(np.abs(ones - 0.5) < 5 * np.sqrt(0.25 / N)), ones


def test_randint_frequencies() -> None:
    x = np.asarray(tr.randint(KEY, (N,), 3, 10))
    assert x.min() == 3 and x.max() == 9
    counts = np.bincount(x - 3, minlength=7)
    assert st.chisquare(counts).pvalue > 1e-3


def test_bernoulli_and_categorical_frequencies() -> None:
    b = np.asarray(tr.bernoulli(KEY, 0.3, (N,)))
    assert b.dtype == np.bool_ and abs(b.mean() - 0.3) < 5 * np.sqrt(0.21 / N)
    p = np.array([0.1, 0.2, 0.7])
    c = np.asarray(tr.categorical(KEY, np.log(p), shape=(N,)))
    assert st.chisquare(np.bincount(c, minlength=3), p * N).pvalue > 1e-3
    ch = np.asarray(tr.choice(KEY, 3, (N,), p=p))
    assert st.chisquare(np.bincount(ch, minlength=3), p * N).pvalue > 1e-3


def test_permutations_and_choice_without_replacement() -> None:
    firsts = np.asarray(tdx.vmap(lambda k: tr.permutation(k, 5))(tr.split(KEY, 1000)))
    assert all(sorted(r) == list(range(5)) for r in firsts)
    assert st.chisquare(np.bincount(firsts[:, 0], minlength=5)).pvalue > 1e-3
    draws = np.asarray(tdx.vmap(lambda k: tr.choice(k, 6, (3,), replace=False))(tr.split(KEY, 500)))
    assert all(len(set(r)) == 3 for r in draws)
    sh = np.asarray(tr.shuffle(KEY, np.arange(50)))
    assert sorted(sh) == list(range(50)) and not np.array_equal(sh, np.arange(50))


def test_dirichlet_moments() -> None:
    alpha = np.array([1.0, 2.0, 5.0])
    x = np.asarray(tr.dirichlet(KEY, alpha, (N // 4,)))
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(x.mean(0), alpha / alpha.sum(), atol=0.02)


def test_orthogonal_is_orthogonal_and_haar() -> None:
    q = np.asarray(tr.orthogonal(KEY, 3, (500,)))
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(3), q.shape), atol=1e-12)
    # Haar: each entry is distributed as the first coordinate of a uniform point on the sphere,
    # with mean 0 and variance 1/3
    e = q[:, 0, 0]
    assert abs(e.mean()) < 5 * np.sqrt(1 / 3 / 500) and abs(e.var() - 1 / 3) < 0.05
    w = np.asarray(tr.orthogonal(KEY, 2, m=4))
    np.testing.assert_allclose(w @ w.T, np.eye(2), atol=1e-12)


def test_split_keys_give_independent_streams() -> None:
    ks = tr.split(KEY, 2)
    a, b = (np.asarray(tr.normal(k, (N,))) for k in ks)
    assert abs(np.corrcoef(a, b)[0, 1]) < 5 / np.sqrt(N)
    c = np.asarray(tr.normal(tr.fold_in(KEY, 1), (N,)))
    assert abs(np.corrcoef(a, c)[0, 1]) < 5 / np.sqrt(N)
