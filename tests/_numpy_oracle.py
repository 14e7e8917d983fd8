"""Helpers of the tests of typedax.numpy against jax.numpy (tests/test_numpy_more*.py):
run a function eagerly and under ``typedax.jit``, and compare values and
dtypes with JAX's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

import typedax as tdx

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def assert_same(got: object, want: object, rtol: float = 1e-6, atol: float = 1e-12, what: str = "") -> None:
    """``got`` (typedax) equals ``want`` (JAX) in dtype, shape and value (NaNs equal)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (what, got, want)
        for g, w in zip(got, want):
            assert_same(g, w, rtol, atol, what)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype, f"{what}: dtype {g.dtype}, JAX gives {w.dtype}"
    assert g.shape == w.shape, f"{what}: shape {g.shape}, JAX gives {w.shape}"
    if w.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w, err_msg=what)
    else:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def jax_value(jf: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``jf(*args, **kwargs)`` computed by ``jax.jit`` with the NumPy-array
    arguments traced (one compilation instead of one per operation: several
    times faster than JAX's eager mode here); eagerly where JAX needs
    concrete values."""
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    kw_arrays = [k for k, v in kwargs.items() if isinstance(v, np.ndarray)]

    def staged(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(arrays, xs):
            full[i] = x
        kw = dict(kwargs)
        for k, x in zip(kw_arrays, xs[len(arrays):]):
            kw[k] = x
        return jf(*full, **kw)

    try:
        return jax.jit(staged)(*[args[i] for i in arrays], *[kwargs[k] for k in kw_arrays])
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerIntegerConversionError,
            jax.errors.TracerBoolConversionError):
        return jf(*args, **kwargs)


def check(tf: Callable[..., Any], jf: Callable[..., Any], *args: Any, jit: bool = True,
          rtol: float = 1e-6, atol: float = 1e-12) -> None:
    """``tf(*args)`` eagerly and under ``tdx.jit`` (the NumPy-array arguments
    traced, the rest static) against ``jf(*args)``."""
    want = jax_value(jf, *args)
    assert_same(tf(*args), want, rtol, atol, "eager")
    if not jit:
        return
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    def staged(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(arrays, xs):
            full[i] = x
        return tf(*full)

    assert_same(tdx.jit(staged)(*[args[i] for i in arrays]), want, rtol, atol, "jit")


def grad_check(tf: Callable[..., Any], jf: Callable[..., Any], *args: Any, argnums: int = 0,
               rtol: float = 1e-6, atol: float = 1e-10) -> None:
    """The gradient of the sum of ``tf`` against JAX's (float64 arguments)."""
    import jax.numpy as jnp
    import typedax.numpy as tnp

    got = tdx.grad(lambda *a: tnp.sum(tf(*a)), argnums=argnums)(*args)
    want = jax.jit(jax.grad(lambda *a: jnp.sum(jf(*a)), argnums=argnums))(*args)
    assert_same(got, want, rtol, atol, "grad")
