"""Transformations copy a function's name and docs, never its state."""

import functools

import numpy as np

import typedax as tdx


def test_jit_of_a_wrapper_of_a_jitted_function_runs_the_wrapper() -> None:
    inner = tdx.jit(lambda x: x * 2.0)

    @functools.wraps(inner)  # copies inner's __dict__ (its caches) onto outer
    def outer(x: tdx.Value) -> tdx.Value:
        return tdx.numpy.add(inner(x), 1.0)

    assert float(np.asarray(tdx.jit(outer)(1.0))) == 3.0


def test_transformed_jitted_functions_compose() -> None:
    f = tdx.jit(lambda x: tdx.numpy.multiply(tdx.numpy.sin(x), x))
    x = np.arange(3.0)
    expected = np.cos(x) * x + np.sin(x)
    np.testing.assert_allclose(np.asarray(tdx.jit(tdx.jacfwd(f))(x)).diagonal(), expected)
    np.testing.assert_allclose(np.asarray(tdx.jit(tdx.vmap(tdx.grad(f)))(x)), expected)
