"""``has_aux`` on ``vjp`` and ``jacrev`` (as ``jax.vjp`` / ``jax.jacrev``):
the function returns ``(output, aux)``; ``aux`` comes back undifferentiated,
eagerly and under ``jit``, with JAX's values."""

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
from typedax.core.errors import GradOutputError


def ours(x: Any) -> tuple[Any, dict[str, Any]]:
    return tnp.sin(x) * x, {"sq": x * x, "n": 3}


def theirs(x: Any) -> tuple[Any, dict[str, Any]]:
    return jnp.sin(x) * x, {"sq": x * x, "n": 3}


vectors = st.lists(st.floats(-3, 3), min_size=1, max_size=4).map(lambda v: np.array(v, np.float64))


@given(vectors)
def test_vjp_with_aux_matches_jax(x: np.ndarray[Any, Any]) -> None:
    with jax.enable_x64(True):
        out, f_vjp, aux = tdx.vjp(ours, x, has_aux=True)
        want_out, want_vjp, want_aux = jax.vjp(theirs, x, has_aux=True)
        ct = np.linspace(-1, 1, x.size)
        np.testing.assert_allclose(np.asarray(out), np.asarray(want_out), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(f_vjp(ct)[0]), np.asarray(want_vjp(ct)[0]), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(np.asarray(aux["sq"]), np.asarray(want_aux["sq"]), rtol=1e-12)
        assert aux["n"] == 3


@given(vectors)
def test_jacrev_with_aux_matches_jax_and_jit(x: np.ndarray[Any, Any]) -> None:
    with jax.enable_x64(True):
        want_j, want_aux = jax.jacrev(theirs, has_aux=True)(x)
    for j, aux in (tdx.jacrev(ours, has_aux=True)(x), tdx.jit(tdx.jacrev(ours, has_aux=True))(x)):
        np.testing.assert_allclose(np.asarray(j), np.asarray(want_j), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(np.asarray(aux["sq"]), np.asarray(want_aux["sq"]), rtol=1e-12)


def test_has_aux_needs_a_pair() -> None:
    x = np.ones(2)
    with pytest.raises(GradOutputError, match=r"vjp with has_aux=True requires .* got an Array of type float64\[2\]"):
        tdx.vjp(lambda v: v, x, has_aux=True)  # type: ignore[call-overload]  # the missing aux is the point
    with pytest.raises(GradOutputError, match=r"jacrev with has_aux=True requires .* got an Array"):
        tdx.jacrev(lambda v: v, has_aux=True)(x)
    with pytest.raises(GradOutputError, match=r"grad with has_aux=True requires .* got a tuple of 3"):
        tdx.grad(lambda v: (tnp.sum(v), 1, 2), has_aux=True)(x)  # type: ignore[call-overload]  # as above
