"""``lax.stop_gradient``: the identity in value, a zero derivative under
``jvp``/``grad``/``linearize`` (also through ``jit`` and ``vmap``), JAX's
jaxpr, and a pytree map that leaves integer leaves alone."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import parse_jaxpr
from typedax.core.errors import PrimitiveTypeError
from typedax.core.ir import NO_PARAMS
from typedax.primitives.elementwise import stop_gradient_p

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

X = tnp.asarray(np.array([0.5, -1.5, 2.0]))


def f_t(x: tdx.Array) -> tdx.Array:
    return tnp.sum(x * lax.stop_gradient(x) + lax.stop_gradient(tnp.sin(x)) * x ** 2)


def f_j(x: jax.Array) -> jax.Array:
    return jnp.sum(x * jax.lax.stop_gradient(x) + jax.lax.stop_gradient(jnp.sin(x)) * x ** 2)


def test_values_and_derivatives_are_jaxs() -> None:
    want = np.asarray(jax.grad(f_j)(np.asarray(X)))
    for g in (tdx.grad(f_t)(X), tdx.jit(tdx.grad(f_t))(X), tdx.grad(tdx.jit(f_t))(X)):
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-12)
    np.testing.assert_allclose(float(f_t(tnp.asarray(X))), float(f_j(jnp.asarray(np.asarray(X)))), rtol=1e-12)
    _, t = tdx.jvp(lax.stop_gradient, (X,), (np.ones(3),))
    np.testing.assert_array_equal(np.asarray(t), np.zeros(3))
    batched = tdx.vmap(tdx.grad(f_t))(tnp.stack([X, 2 * X]))
    np.testing.assert_allclose(np.asarray(batched), np.stack([want, np.asarray(jax.grad(f_j)(2 * np.asarray(X)))]), rtol=1e-12)
    # second order: the stopped factor stays constant
    h = tdx.grad(lambda v: tdx.grad(lambda w: w ** 3 * lax.stop_gradient(w))(v))(2.0)
    assert float(h) == pytest.approx(float(jax.grad(jax.grad(lambda w: w ** 3 * jax.lax.stop_gradient(w)))(2.0)))


def test_jaxpr_and_round_trip() -> None:
    text = str(tdx.make_jaxpr(lambda v: lax.stop_gradient(v) * 2.0)(tnp.asarray(X)))
    assert "stop_gradient a" in text
    assert str(parse_jaxpr(text)) == text


def test_pytrees_and_non_float_leaves() -> None:
    tree = {"w": X, "n": np.arange(3), "k": 3, "b": np.array([True])}
    out = lax.stop_gradient(tree)
    assert out["n"] is tree["n"] and out["k"] == 3 and out["b"] is tree["b"]
    np.testing.assert_array_equal(np.asarray(out["w"]), X)
    text = str(tdx.make_jaxpr(lambda i: lax.stop_gradient(i) + 1)(tnp.arange(3)))
    assert "stop_gradient" not in text  # integers have no derivative to stop, as in JAX


def test_arity_error() -> None:
    with pytest.raises(PrimitiveTypeError, match="stop_gradient takes 1 operand"):
        stop_gradient_p.abstract_eval([], NO_PARAMS)
