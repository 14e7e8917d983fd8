"""Weak types through ``typedax.scipy``, with JAX as the oracle: every
``scipy.special`` and ``scipy.stats`` function (enumerated from the modules'
``__all__``), called with Python scalars only, gives a result of JAX's dtype
and weak flag (weak for most: JAX's ``promote_args_inexact`` keeps Python
scalars weak), with x64 on and off, and of JAX's value; so ``f32_array +
f(scalars)`` stays float32 where JAX's does. One call per function and mode
(JAX's eager calls cost milliseconds each)."""

from __future__ import annotations

import functools
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

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

#: a valid Python scalar for each parameter name (floats unless the
#: parameter counts: ``k``, ``n``, ``N``, ``d``); others get 0.5
_VALUES: dict[str, float | int] = {
    "k": 1, "n": 3, "N": 5, "d": 2, "a": 2.5, "b": 3.5, "p": 0.3, "q": 0.4, "mu": 2.0, "df": 3.0,
    "kappa": 1.5, "lmbda": 0.5, "m": 2.0, "z": 1.5, "x": 0.5,
}
#: where the names alone do not give a valid call
_OVERRIDES: dict[str, list[float | int]] = {
    "special.zeta": [2.5, 1.5],
    "special.polygamma": [1, 1.5],
    "pareto.cdf": [1.5, 3.5], "pareto.logcdf": [1.5, 3.5], "pareto.logpdf": [1.5, 3.5],
    "pareto.logsf": [1.5, 3.5], "pareto.pdf": [1.5, 3.5], "pareto.sf": [1.5, 3.5],
}


#: Functions this sweep of scalar calls cannot take, and why (their own tests:
#: tests/test_scipy_special_names.py).
_NOT_SCALAR_FUNCTIONS: dict[str, str] = {
    "special.bernoulli": "takes an integer n and returns the n + 1 first Bernoulli numbers",
    "special.bessel_jn": "takes its order and argument by keyword, and returns every order up to n",
    "special.sici": "returns a pair",
    "special.fresnel": "returns a pair",
    "special.sph_harm_y": "JAX's takes arrays of degrees and orders only (it calls len(n))",
}


def _functions() -> list[tuple[str, Callable[..., Any], Callable[..., Any]]]:
    """(name, typedax function, JAX function) for everything typedax has."""
    out: list[tuple[str, Callable[..., Any], Callable[..., Any]]] = [
        (f"special.{n}", getattr(tsp, n), getattr(jax.scipy.special, n)) for n in tsp.__all__
        if f"special.{n}" not in _NOT_SCALAR_FUNCTIONS
    ]
    for m in tst.__all__:
        mod = getattr(tst, m)
        out += [(f"{m}.{n}", getattr(mod, n), getattr(getattr(jax.scipy.stats, m), n)) for n in mod.__all__]
    out.append(("numpy.cbrt", tnp.cbrt, jnp.cbrt))
    return out


FUNCTIONS = _functions()


def _args(name: str, f: Callable[..., Any]) -> list[float | int]:
    if name in _OVERRIDES:
        return _OVERRIDES[name]
    required = [
        p for p in inspect.signature(f).parameters.values()
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return [_VALUES.get(p.name, 0.5) for p in required]


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


def test_every_function_is_checked() -> None:
    """The enumeration finds the functions of the bug report (and runs each)."""
    names = {n for n, _, _ in FUNCTIONS}
    for want in ("special.xlogy", "special.betainc", "special.zeta", "special.factorial", "norm.logpdf",
                 "poisson.logpmf", "vonmises.logpdf", "binom.logpmf", "numpy.cbrt"):
        assert want in names
    assert len(names) > 100


@functools.cache
def _jax_results(x64: bool) -> tuple[list[Any], list[Any], list[np.ndarray[Any, Any]]]:
    """JAX's answers in mode ``x64`` (set by the caller): the result's and
    ``f32_array + result``'s shape, dtype and weak flag (``eval_shape``:
    traced, not compiled -- the Python scalars are closed over, so they enter
    as in an eager call) and the values (one ``jit`` of all the calls: eager
    JAX compiles each operation, ~0.1 s a function)."""
    assert (jnp.zeros(()).dtype == np.float64) is x64
    x = jnp.ones(2, jnp.float32)
    calls = [functools.partial(jf, *_args(name, f)) for name, f, jf in FUNCTIONS]
    results = [jax.eval_shape(call) for call in calls]
    sums = [jax.eval_shape(lambda call=call: x + call()) for call in calls]
    values = [np.asarray(v) for v in jax.jit(lambda: tuple(call() for call in calls))()]
    return results, sums, values


def test_python_scalars_give_jax_weak_type(x64: bool) -> None:
    """For each function: dtype, weak flag and value are JAX's, and so is the
    dtype of ``f32_array + f(scalars)`` (float32 wherever JAX's result is
    weak: all but the few JAX builds from strong constants, as ``gammasgn``).
    Values to rtol 1e-6 with x64 (1e-5 without: JAX's jit and eager results
    differ by ~1e-6 in float32, e.g. ``multigammaln``)."""
    results, sums, values = _jax_results(x64)
    rtol = 1e-6 if x64 else 1e-5
    x = tnp.ones(2, tnp.float32)
    wrong: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for (name, f, _), want, want_sum, value in zip(FUNCTIONS, results, sums, values, strict=True):
            args = tuple(_args(name, f))
            got = f(*args)
            if (got.shape, got.dtype, got.weak_type) != (want.shape, want.dtype, want.weak_type):
                wrong.append(f"{name}{args}: typedax {got.dtype}{list(got.shape)} weak={got.weak_type}, "
                             f"jax {want.dtype}{list(want.shape)} weak={want.weak_type}")
            elif not np.allclose(np.asarray(got), value, rtol=rtol, atol=0, equal_nan=True):
                wrong.append(f"{name}{args}: typedax {np.asarray(got)!r}, jax {value!r}")
            got_sum = x + got
            if (got_sum.dtype, got_sum.weak_type) != (want_sum.dtype, want_sum.weak_type):
                wrong.append(f"f32 + {name}{args}: typedax {got_sum.dtype}, jax {want_sum.dtype}")
    assert not wrong, "\n".join(wrong)


def test_bug_report_examples() -> None:
    """The reported cases, without JAX: weak, so float32 stays float32."""
    x = tnp.ones(2, tnp.float32)
    assert (x + tdx.scipy.stats.norm.logpdf(0.5)).dtype == np.float32
    assert (x + tsp.xlogy(0.5, 2.0)).dtype == np.float32
    assert (x + tsp.betainc(2.5, 3.5, 0.5)).dtype == np.float32
    assert (x + tnp.cbrt(0.5)).dtype == np.float32
    assert tsp.factorial(3).weak_type and tsp.factorial(3).dtype == np.float64
    # strong operands stay strong, of their dtype
    assert tsp.xlogy(np.float32(0.5), 2.0).dtype == np.float32
    assert not tsp.xlogy(np.float32(0.5), 2.0).weak_type
    assert not tdx.scipy.stats.norm.logpdf(np.float64(0.5)).weak_type


def test_weak_under_jit() -> None:
    """Traced weak scalars (jit's Python scalar arguments) stay weak too."""
    x = tnp.ones(2, tnp.float32)
    out = tdx.jit(lambda v: x + tdx.scipy.stats.gamma.cdf(v, 2.5))(0.5)
    assert out.dtype == np.float32
    assert np.allclose(np.asarray(out), np.asarray(x + tdx.scipy.stats.gamma.cdf(0.5, 2.5)), rtol=1e-6)
