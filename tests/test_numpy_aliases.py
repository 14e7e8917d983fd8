"""jax.numpy's other names of the complex types, ComplexWarning and
array_str, as JAX's (issue 29 item 7)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax.numpy as tnp

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # typedax's default; jax's config is untyped


@pytest.mark.parametrize("name", ["csingle", "cdouble", "complex_"])
def test_complex_aliases_make_jaxs_dtypes(name: str) -> None:
    ours, theirs = getattr(tnp, name), getattr(jnp, name)
    assert np.dtype(ours.dtype) == np.dtype(theirs.dtype)
    x, y = ours(1 + 2j), theirs(1 + 2j)
    assert np.asarray(x).dtype == np.asarray(y).dtype and complex(np.asarray(x)) == complex(np.asarray(y))


def test_complex_warning_and_array_str() -> None:
    assert tnp.ComplexWarning is jnp.ComplexWarning
    x = np.linspace(0, 1, 7)
    assert tnp.array_str(tnp.asarray(x), precision=2) == jnp.array_str(x, precision=2)
