"""jax.scipy.stats.multivariate_normal (issue 29 item 7): logpdf and pdf
against JAX for full, isotropic and univariate covariances, batched,
under jit and grad, and JAX's errors."""

from __future__ import annotations

from typing import Any

import jax
import jax.scipy.stats as jstats
import numpy as np
import pytest

import typedax as tdx
import typedax.scipy.stats as tstats

from _examples import ci_jit

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # typedax's default; jax's config is untyped

RNG = np.random.default_rng(0)
_A = RNG.standard_normal((2, 3, 3))
COV = _A @ np.swapaxes(_A, -1, -2) + 3 * np.eye(3)
MEAN = RNG.standard_normal(3)
X = RNG.standard_normal((2, 2, 3))


@pytest.mark.parametrize("case", ["full", "batched cov", "isotropic", "univariate", "float32"])
def test_logpdf_and_pdf_as_jax(case: str) -> None:
    args: tuple[Any, ...] = {
        "full": (X, MEAN, COV[0]),
        "batched cov": (X, MEAN, COV),
        "isotropic": (X, MEAN, 2.5),
        "univariate": (X[..., 0], 0.3, 1.7),
        "float32": (X.astype(np.float32), MEAN.astype(np.float32), COV[0].astype(np.float32)),
    }[case]
    pairs: list[tuple[Any, Any]] = [(tstats.multivariate_normal.logpdf, jstats.multivariate_normal.logpdf),
                                    (tstats.multivariate_normal.pdf, jstats.multivariate_normal.pdf)]
    for ours, theirs in pairs:
        want = np.asarray(theirs(*args))
        got = np.asarray(ours(*args))
        assert got.dtype == want.dtype and got.shape == want.shape
        tol = 1e-5 if got.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        if case == "full":
            np.testing.assert_allclose(np.asarray(tdx.jit(ours)(*args)), want, rtol=tol, atol=tol)


def test_grad_with_respect_to_mean_and_cov_as_jax() -> None:
    x = X[0, 0]

    def ours(m: Any, c: Any) -> Any:
        return tstats.multivariate_normal.logpdf(x, m, c)

    def theirs(m: Any, c: Any) -> Any:
        return jstats.multivariate_normal.logpdf(x, m, c)

    got: Any = tdx.jit(tdx.grad(ours, argnums=(0, 1)))(MEAN, COV[0])
    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    want: Any = ci_jit(jax.grad(theirs, argnums=(0, 1)))(MEAN, COV[0])
    for g, jg in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-10, atol=1e-12)


def test_errors_as_jax() -> None:
    with pytest.raises(ValueError, match="incompatible shapes"):
        tstats.multivariate_normal.logpdf(X, MEAN, np.eye(2))
    with pytest.raises(ValueError, match="incompatible shapes"):
        jstats.multivariate_normal.logpdf(X, MEAN, np.eye(2))
    with pytest.raises(NotImplementedError, match="allow_singular"):
        tstats.multivariate_normal.logpdf(X, MEAN, COV[0], allow_singular=True)  # type: ignore[arg-type]  # the refused argument
