"""The rest of jax.random in typedax.random, against jax.random as the oracle:
poisson, binomial, multinomial, geometric (the counts bit for bit), t, f,
maxwell, double_sided_maxwell, weibull_min, generalized_normal, ball,
triangular, wald (within a few ulp), for the same keys, eager, under jit and
under vmap, with parameter arrays that broadcast; their derivatives where
JAX's has them; clone, key_impl, key_dtype; every argument error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as hst

import typedax as tdx
import typedax.numpy as tnp
from typedax import random as tr
from typedax.core.errors import RandomKeyError

from _examples import ci_examples, ci_some

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

SEEDS = [0, 2**40 + 12345]  # a raw key, then a typed one (_keys); small and past 32 bits

Sampler = Callable[[Any], Any]  # either library's key in, either library's array out
NDArray = np.ndarray[Any, Any]

LAM = np.array([0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 1000.0, np.nan])
N_TRIALS = np.array([[5.0], [40.0], [1000.0]])
P_SUCCESS = np.array([0.1, 0.5, 0.93])
DF = np.array([1.0, 2.5, 30.0])

#: name -> (ours, JAX's, largest distance in ulp): each a function of one key
SAMPLERS: dict[str, tuple[Sampler, Sampler, int]] = {
    "geometric": (lambda k: tr.geometric(k, np.array([0.1, 0.5, 1.0]), (2, 3)),
                  lambda k: jax.random.geometric(k, np.array([0.1, 0.5, 1.0]), (2, 3)), 0),
    "geometric32": (lambda k: tr.geometric(k, np.float32(0.02), (7,), np.int32),
                    lambda k: jax.random.geometric(k, np.float32(0.02), (7,), np.int32), 0),
    "t": (lambda k: tr.t(k, DF, (2, 3)), lambda k: jax.random.t(k, DF, (2, 3)), 4),
    # dfnum and dfden of one shape: one compiled loggamma (JAX's f fails to
    # broadcast them to a larger shape: lax.div)
    "f": (lambda k: tr.f(k, np.array([3.0, 1.0, 10.0]), np.array([2.0, 7.0, 0.5])),
          lambda k: jax.random.f(k, np.array([3.0, 1.0, 10.0]), np.array([2.0, 7.0, 0.5])), 8),
    "maxwell": (lambda k: tr.maxwell(k, (2, 3)), lambda k: jax.random.maxwell(k, (2, 3)), 2),
    "maxwell32": (lambda k: tr.maxwell(k, (5,), np.float32), lambda k: jax.random.maxwell(k, (5,), np.float32), 2),
    "double_sided_maxwell": (lambda k: tr.double_sided_maxwell(k, np.zeros(2), np.array([[1.0], [3.0]]), (4,)),
                             lambda k: jax.random.double_sided_maxwell(k, np.zeros(2), np.array([[1.0], [3.0]]),
                                                                       (4,)), 2),
    # loc = scale: sign * maxwell * scale + loc cancels where the sign is -1
    # and maxwell near 1 (JAX's one compiled function rounds it as ours)
    "double_sided_maxwell_cancelling": (lambda k: tr.double_sided_maxwell(k, 2.0, 2.0, (8, 16)),
                                        lambda k: jax.random.double_sided_maxwell(k, 2.0, 2.0, (8, 16)), 2),
    # as JAX's: an empty shape counts as the parameters' (the result is (2, 2))
    "double_sided_maxwell_empty_shape": (lambda k: tr.double_sided_maxwell(k, np.array([1.0, -1.0]), 2.0),
                                         lambda k: jax.random.double_sided_maxwell(k, np.array([1.0, -1.0]), 2.0), 2),
    "weibull_min": (lambda k: tr.weibull_min(k, np.array([1.0, 2.0]), 1.5, (3, 2)),
                    lambda k: jax.random.weibull_min(k, np.array([1.0, 2.0]), 1.5, (3, 2)), 4),
    # gamma of one shape: one compiled sampler for both
    "generalized_normal_and_ball": (
        lambda k: (tr.generalized_normal(k, 1.5, (2, 3)), tr.ball(k, 3, shape=(2,))),
        lambda k: (jax.random.generalized_normal(k, 1.5, (2, 3)), jax.random.ball(k, 3, shape=(2,))), 8),
    "wald": (lambda k: tr.wald(k, np.array([0.5, 1.0, 3.0]), (2, 3)),
             lambda k: jax.random.wald(k, np.array([0.5, 1.0, 3.0]), (2, 3)), 2),
    "triangular": (lambda k: tr.triangular(k, 0.0, np.array([0.2, 0.7]), np.array([[1.0], [4.0]])),
                   lambda k: jax.random.triangular(k, 0.0, np.array([0.2, 0.7]), np.array([[1.0], [4.0]])), 2),
    "triangular32": (lambda k: tr.triangular(k, np.float32(-1), np.float32(0), np.float32(2), (6,), np.float32),
                     lambda k: jax.random.triangular(k, np.float32(-1), np.float32(0), np.float32(2), (6,),
                                                     np.float32), 2),
}


def ulp_distance(a: NDArray, b: NDArray) -> int:
    """The largest distance in units in the last place between ``a`` and ``b``
    (NaNs must sit at the same places)."""
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    a, b = np.where(np.isnan(a), 0, a).astype(a.dtype), np.where(np.isnan(b), 0, b).astype(b.dtype)
    if a.size == 0:
        return 0
    i = np.dtype(f"i{a.dtype.itemsize}")
    ai, bi = a.view(i).astype(np.int64), b.view(i).astype(np.int64)
    lo = np.int64(np.iinfo(i).min)  # sign-magnitude bit patterns to a monotone line
    ai = np.where(ai < 0, lo - ai, ai)
    bi = np.where(bi < 0, lo - bi, bi)
    return int(np.max(np.abs(ai - bi)))


def same(ours: object, theirs: object, ulps: int) -> None:
    if isinstance(ours, tuple) and isinstance(theirs, tuple):
        for o, t in zip(ours, theirs, strict=True):
            same(o, t, ulps)
        return
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    if ulps == 0 or a.dtype.kind in "iub":
        np.testing.assert_array_equal(a, b)
    else:
        assert ulp_distance(a, b) <= ulps, (a, b)


#: not compiled again under jit: each compile of gamma's rejection loop takes
#: a second (the derivative test runs t's as jit does, with a traced df)
SLOW_TO_JIT = {"t", "f", "generalized_normal_and_ball", "double_sided_maxwell_empty_shape"}


def _keys(i: int, seed: int) -> tuple[Any, Any]:
    """Raw keys for odd ``i``, typed keys for even: ours and JAX's."""
    return (tr.PRNGKey(seed), jax.random.PRNGKey(seed)) if i % 2 else (tr.key(seed), jax.random.key(seed))


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_samplers_match_jax_eager_and_jit(name: str) -> None:
    ours, theirs, ulps = SAMPLERS[name]
    jitted = tdx.jit(ours)
    # ci: one seed (one key kind, raw or typed, alternating over the samplers); make test-long runs both
    for i, seed in ci_some(list(enumerate(SEEDS)), sorted(SAMPLERS).index(name)):
        k, jk = _keys(i, seed)
        want = theirs(jk)
        same(ours(k), want, ulps)
        if name not in SLOW_TO_JIT:
            same(jitted(k), want, ulps)


@pytest.mark.parametrize("name", ["geometric", "wald"])
def test_samplers_match_jax_under_vmap(name: str) -> None:
    ours, theirs, ulps = SAMPLERS[name]
    keys = np.stack([np.asarray(tr.PRNGKey(s)) for s in SEEDS])
    same(tdx.vmap(ours)(keys), jax.vmap(theirs)(keys), ulps)


# The rejection samplers compile slowly (a second each): one shape each, the
# hypothesis properties eager (with the edge parameters as explicit examples),
# these tests under vmap.
def test_poisson_matches_jax_under_vmap() -> None:
    # keys and rates batched together (the loops' predicates per batch element)
    keys = np.stack([np.asarray(tr.PRNGKey(s)) for s in [*SEEDS, 42]])  # three keys for three rate rows
    lams = np.stack([LAM, LAM * 2, LAM / 3])
    got = tdx.vmap(lambda k, la: tr.poisson(k, la, (3, 8)))(keys, lams)
    same(got, jax.vmap(lambda k, la: jax.random.poisson(k, la, (3, 8)))(keys, lams), 0)
    # a rate of 0 gives 0, a NaN rate -1 (as JAX's)
    assert np.all(np.asarray(got)[..., 0] == 0) and np.all(np.asarray(got)[..., -1] == -1)
    for f, jf in [(tr.poisson, jax.random.poisson), (tr.geometric, jax.random.geometric)]:
        same(f(tr.PRNGKey(0), 0.5, (0, 3)), jf(jax.random.PRNGKey(0), 0.5, (0, 3)), 0)


def test_binomial_matches_jax_under_vmap() -> None:
    keys = tr.split(tr.key(4), 3)  # typed keys, batched with the probabilities
    ps = np.stack([P_SUCCESS, 1 - P_SUCCESS, P_SUCCESS / 2])
    same(tdx.vmap(lambda k, p: tr.binomial(k, N_TRIALS, p))(keys, ps),
         jax.vmap(lambda k, p: jax.random.binomial(k, N_TRIALS, p))(jax.random.split(jax.random.key(4), 3), ps), 0)
    same(tr.binomial(tr.key(0), 4, 0.5, (2, 0)), jax.random.binomial(jax.random.key(0), 4, 0.5, (2, 0)), 0)


def test_multinomial_matches_jax() -> None:
    # float32 probabilities (unnormalized: the ratios to what remains normalize
    # them; the binomials in float32), n broadcast over the rows, int32 counts
    n = np.array([50.0, 7.0], np.float32)
    p = np.array([[1.0, 0.0, 9.0], [2.0, 1.0, 1.0]], np.float32)
    for i, seed in enumerate(SEEDS[:2]):
        k, jk = _keys(i, seed)
        out = tr.multinomial(k, n, p, dtype=np.int32, unroll=2)
        same(out, jax.random.multinomial(jk, n, p, dtype=np.int32, unroll=2), 0)
        np.testing.assert_array_equal(np.asarray(out).sum(-1), [50, 7])
        assert np.asarray(out)[0, 1] == 0
    # the default dtype: the default float
    assert tr.multinomial(tr.PRNGKey(0), 3.0, np.array([0.5, 0.5]), shape=(0, 2)).dtype == np.float64


# ci: 8 examples (each runs JAX's sampler eagerly); make test-long runs 15
_SETTINGS = ci_examples(8, otherwise=15, deadline=None)


@_SETTINGS
@given(seed=hst.sampled_from(SEEDS) | hst.integers(0, 2**32 - 1),
       lam=hst.lists(hst.floats(0, 30) | hst.floats(0, 1e4), min_size=8, max_size=8))
@example(seed=0, lam=list(LAM))  # rates either side of 10 (Knuth / transformed rejection), 0 and NaN
def test_poisson_is_jaxs_for_any_rates(seed: int, lam: list[float]) -> None:
    la = np.array(lam)  # one shape: one compile
    k, jk = _keys(seed, seed)
    same(tr.poisson(k, la, (3, 8)), jax.random.poisson(jk, la, (3, 8)), 0)


@_SETTINGS
@given(seed=hst.sampled_from(SEEDS) | hst.integers(0, 2**32 - 1),
       n=hst.lists(hst.integers(0, 500).map(float), min_size=3, max_size=3),
       p=hst.lists(hst.floats(0, 1), min_size=3, max_size=3))
# n * min(p, 1 - p) either side of 10 (inversion / BTRS), p either side of 1/2
@example(seed=0, n=list(N_TRIALS.ravel()), p=list(P_SUCCESS))
# NaN or negative n: NaN; p outside [0, 1] or NaN: NaN; infinite n: inf;
# p of 0 or 1: 0 or n; a fractional n: floored
@example(seed=1, n=[np.nan, -1.0, np.inf], p=[0.3, 0.7, np.nan])
@example(seed=2, n=[5.0, 7.5, 100.0], p=[1.5, 0.0, 1.0])
@example(seed=3, n=[np.inf, 20.0, 3.0], p=[0.4, -0.1, 0.5])
def test_binomial_is_jaxs_for_any_parameters(seed: int, n: list[float], p: list[float]) -> None:
    na, pa = np.array(n).reshape(3, 1), np.array(p)  # one shape: one compile
    k, jk = _keys(seed, seed)
    same(tr.binomial(k, na, pa), jax.random.binomial(jk, na, pa), 0)


@_SETTINGS
@given(seed=hst.integers(0, 2**32 - 1),
       p=hst.lists(hst.floats(1e-6, 1), min_size=4, max_size=4),
       abc=hst.tuples(hst.floats(-5, 5), hst.floats(0, 1), hst.floats(1e-3, 5)),
       mean=hst.floats(1e-2, 50))
def test_geometric_triangular_wald_are_jaxs(
    seed: int, p: list[float], abc: tuple[float, float, float], mean: float
) -> None:
    k, jk = tr.PRNGKey(seed), jax.random.PRNGKey(seed)
    pa = np.array(p)
    same(tr.geometric(k, pa), jax.random.geometric(jk, pa), 0)
    left, frac, width = abc
    lmr = [np.array(v) for v in (left, left + frac * width, left + width)]
    lo, mo, hi = lmr
    same(tr.triangular(k, lo, mo, hi, (4,)), jax.random.triangular(jk, lo, mo, hi, (4,)), 2)
    same(tr.wald(k, np.array(mean), (4,)), jax.random.wald(jk, np.array(mean), (4,)), 2)


def test_integer_parameters_take_the_default_float() -> None:
    k, jk = tr.PRNGKey(1), jax.random.PRNGKey(1)
    same(tr.geometric(k, 1, (3,)), jax.random.geometric(jk, 1, (3,)), 0)
    same(tr.wald(k, np.array([3, 4]), dtype=np.float32), jax.random.wald(jk, np.array([3, 4]), dtype=np.float32), 2)


# -- derivatives ---------------------------------------------------------------------------
def test_t_derivative_is_gammas_implicit_reparameterization() -> None:
    """t = n * sqrt(h / g), h = df / 2, g a gamma(h) sample whose derivative
    is JAX's implicit reparameterization dg/dh = -(dP/dh) / (dP/dg), P the
    regularized incomplete gamma function (SciPy's; dP/dh by central
    differences): the oracle tests/test_random.py holds JAX's gamma to, and
    cheaper than compiling JAX's derivative. f's goes through loggamma's, the
    same rule."""
    import scipy.special as sc  # type: ignore[import-untyped]  # scipy ships no type stubs
    import scipy.stats as sst  # type: ignore[import-untyped]  # as above

    k = tr.PRNGKey(5)
    value, pullback = tdx.vjp(lambda d: tr.t(k, d, (2, 3)), DF)
    # the sample itself, from gamma's sampler with a traced parameter (as under jit)
    same(value, jax.random.t(jax.random.PRNGKey(5), DF, (2, 3)), 4)
    (grad,) = pullback(tnp.ones((2, 3)))
    ks = tr.split(k)
    h = DF / 2
    n = np.asarray(tr.normal(ks[0], (2, 3)))
    g = np.asarray(tr.gamma(ks[1], h, (2, 3)))
    eps = 1e-6 * h
    dg_dh = -(sc.gammainc(h + eps, g) - sc.gammainc(h - eps, g)) / (2 * eps) / sst.gamma(h).pdf(g)
    dt_dh = n * (g - h * dg_dh) / g**2 / (2 * np.sqrt(h / g))
    np.testing.assert_allclose(np.asarray(grad), (dt_dh / 2).sum(0), rtol=1e-6)


def test_derivatives_through_formulas_match_jax() -> None:
    k, jk = tr.PRNGKey(5), jax.random.PRNGKey(5)

    # one function of all parameters: one compile in each library
    def ours(s: NDArray, c: NDArray, m: NDArray, a: NDArray, b: NDArray, lo: NDArray) -> tdx.Array:
        return (tnp.sum(tr.weibull_min(k, s, c, (3,))) + tnp.sum(tr.wald(k, m)) + tnp.sum(tr.triangular(k, a, b, 2.0, (5,)))
                + tnp.sum(tr.double_sided_maxwell(k, lo, s, (3,))))

    def theirs(s: NDArray, c: NDArray, m: NDArray, a: NDArray, b: NDArray, lo: NDArray) -> jax.Array:
        return (jax.random.weibull_min(jk, s, c, (3,)).sum() + jax.random.wald(jk, m).sum()
                + jax.random.triangular(jk, a, b, 2.0, (5,)).sum() + jax.random.double_sided_maxwell(jk, lo, s, (3,)).sum())

    args = (np.array([1.0, 2.0, 0.5]), np.array(1.5), np.array([0.5, 2.0]), np.array(-1.0), np.array(0.5), np.array(1.0))
    argnums = tuple(range(len(args)))
    g = tdx.jit(tdx.grad(ours, argnums=argnums))(*args)
    jg = jax.jit(jax.grad(theirs, argnums=argnums))(*args)
    for x, y in zip(g, jg, strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-9, atol=1e-12)


def test_counts_have_zero_derivatives() -> None:
    """As JAX's (0.0 for each of these): the counts are floors and selects of
    the parameters, in reverse mode too (the parameters enter the rejection
    loops detached)."""
    k = tr.PRNGKey(2)
    cases: list[Callable[[tdx.Array], tdx.Array]] = [
        lambda v: tr.binomial(k, v * 3.0, v / 10.0, (3,)),
        lambda v: tnp.astype(tr.poisson(k, v, (3,)), np.float64),
        lambda v: tnp.astype(tr.geometric(k, v / 10.0, (3,)), np.float64),
    ]
    for f in cases:
        assert float(tdx.grad(lambda v: tnp.sum(f(v)))(3.0)) == 0.0


# -- keys ----------------------------------------------------------------------------------
def test_clone_key_impl_and_key_dtype() -> None:
    k = tr.key(7)
    c = tr.clone(k)
    assert isinstance(c, tr.KeyArray)
    same(tr.uniform(c, (3,)), tr.uniform(k, (3,)), 0)
    jclone = jax.random.clone(jax.random.key(7))  # type: ignore[no-untyped-call]  # JAX's clone is untyped
    same(tr.uniform(tr.clone(k), (3,)), jax.random.uniform(jclone, (3,)), 0)
    raw = tr.split(tr.PRNGKey(7), 3)
    same(tr.clone(raw), raw, 0)

    def clone_raw(r: tdx.Array) -> tdx.Array:
        return tr.clone(r)

    same(tdx.jit(clone_raw)(raw), raw, 0)
    assert tr.key_data(tdx.vmap(tr.clone)(tr.split(k, 2))).shape == (2, 2)
    assert tr.key_impl(k) == tr.key_impl(raw) == tr.key_impl(tr.split(k, 4)) == "threefry2x32"
    assert tr.key_impl(k) == jax.random.key_impl(jax.random.key(7)) == jax.random.key_impl(jax.random.PRNGKey(7))
    kd = tr.key_dtype()
    assert kd == k.dtype and str(jax.random.key_dtype()) == "key<fry>" and f"dtype={str(jax.random.key_dtype())})" in repr(k)
    assert tr.key_dtype("threefry2x32") == kd and tr.key_dtype(kd) is kd


# -- errors --------------------------------------------------------------------------------
def test_dtype_errors() -> None:
    k = tr.PRNGKey(0)
    with pytest.raises(RandomKeyError, match="`poisson` must be an int dtype"):
        tr.poisson(k, 3.0, dtype=np.float32)
    with pytest.raises(RandomKeyError, match="`geometric` must be an int dtype"):
        tr.geometric(k, 0.3, dtype=np.float32)
    with pytest.raises(RandomKeyError, match="`binomial` must be a float dtype"):
        tr.binomial(k, 3, 0.3, dtype=np.int32)
    for f in (tr.maxwell, lambda kk, dtype: tr.weibull_min(kk, 1.0, 1.0, dtype=dtype),
              lambda kk, dtype: tr.double_sided_maxwell(kk, 0.0, 1.0, dtype=dtype),
              lambda kk, dtype: tr.generalized_normal(kk, 1.0, dtype=dtype),
              lambda kk, dtype: tr.ball(kk, 2, dtype=dtype), lambda kk, dtype: tr.t(kk, 2.0, dtype=dtype)):
        with pytest.raises(RandomKeyError, match="must be a float dtype"):
            f(k, dtype=np.int32)


def test_unsafe_casts_are_refused_as_jaxs() -> None:
    k = tr.PRNGKey(0)
    calls: list[Callable[[], object]] = [
        lambda: tr.t(k, np.ones(2), dtype=np.float32), lambda: tr.f(k, 1.0, np.ones(2), dtype=np.float32),
        lambda: tr.wald(k, np.ones(2), dtype=np.float32),
        lambda: tr.triangular(k, 0.0, np.float64(0.5), 1.0, dtype=np.float32)]
    for call in calls:
        with pytest.raises(RandomKeyError, match="cannot safely cast argument of type float64 to float32"):
            call()
    # integers and Python numbers convert safely, as in JAX
    same(tr.triangular(k, 0, 1.0, 2, (2,), np.float32),
         jax.random.triangular(jax.random.PRNGKey(0), 0, 1.0, 2, (2,), np.float32), 2)


def test_shape_errors() -> None:
    k = tr.PRNGKey(0)
    calls: list[Callable[[], object]] = [
        lambda: tr.poisson(k, np.ones(3), (4,)), lambda: tr.binomial(k, np.ones(2), 0.5, (3,)),
        lambda: tr.t(k, np.ones(3), (2,)), lambda: tr.f(k, 1.0, np.ones(3), (2,)),
        lambda: tr.geometric(k, np.full(3, 0.5), (3, 2)), lambda: tr.wald(k, np.ones(2), (3,)),
        lambda: tr.triangular(k, 0.0, 0.5, np.ones(4), (2,))]
    for call in calls:
        with pytest.raises(RandomKeyError, match="broadcast"):
            call()
    with pytest.raises(RandomKeyError, match="do not broadcast"):
        tr.double_sided_maxwell(k, np.zeros(2), np.ones(3))
    with pytest.raises(RandomKeyError, match="do not broadcast"):
        tr.weibull_min(k, np.ones(2), 1.0, (3,))
    with pytest.raises(RandomKeyError, match="non-negative"):
        tr.maxwell(k, (-1,))
    with pytest.raises(RandomKeyError, match="must be an integer"):
        tr.ball(k, 2.5)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(RandomKeyError, match="non-negative"):
        tr.ball(k, -1)


def test_multinomial_errors() -> None:
    k = tr.PRNGKey(0)
    with pytest.raises(RandomKeyError, match="p.ndim >= 1"):
        tr.multinomial(k, 10, 0.5)
    with pytest.raises(RandomKeyError, match="broadcast"):  # JAX: ValueError from broadcast_to
        tr.multinomial(k, 10.0, np.array([0.2, 0.3, 0.5]), shape=(4,))
    with pytest.raises(RandomKeyError, match="broadcast"):
        tr.multinomial(k, np.ones(3), np.array([0.5, 0.5]), shape=(2, 2))
    with pytest.raises(RandomKeyError, match="at least one dimension"):
        tr.multinomial(k, 10.0, np.array([0.5, 0.5]), shape=())
    with pytest.raises(RandomKeyError, match="unroll"):
        tr.multinomial(k, 10.0, np.array([0.5, 0.5]), unroll=1.5)  # type: ignore[arg-type]  # the error under test


def test_key_utility_errors() -> None:
    with pytest.raises(RandomKeyError, match='unrecognized PRNG implementation "foo"'):
        tr.key_dtype("foo")
    with pytest.raises(RandomKeyError, match='"rbg" is not available'):
        tr.key_dtype("rbg")
    with pytest.raises(RandomKeyError, match="unrecognized type"):
        tr.key_dtype(3)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(RandomKeyError, match="PRNG key"):
        tr.clone(3)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(RandomKeyError, match="uint32"):
        tr.key_impl(np.zeros(2, np.int32))
    with pytest.raises(RandomKeyError, match="single key"):
        tr.poisson(tr.split(tr.PRNGKey(0)), 1.0)
