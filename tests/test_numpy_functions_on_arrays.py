"""NumPy's own functions on typedax arrays (``np.mean(x)``, as JAX users
write): NumPy calls the array's method with ``out=None``, which typedax's
methods accept as jax.Array's do, so the result is a typedax ``Array`` --
eagerly and of a tracer under ``jit`` -- equal to ``typedax.numpy``'s."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp

X = np.arange(12.0).reshape(3, 4) - 4.5

CASES: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = [
    ("mean", lambda x: np.mean(x), lambda x: tnp.mean(x)),
    ("mean axis keepdims", lambda x: np.mean(x, axis=0, keepdims=True), lambda x: tnp.mean(x, 0, keepdims=True)),
    ("sum", lambda x: np.sum(x, axis=1), lambda x: tnp.sum(x, 1)),
    ("max", lambda x: np.max(x), lambda x: tnp.max(x)),
    ("min", lambda x: np.min(x, axis=0), lambda x: tnp.min(x, 0)),
    ("std", lambda x: np.std(x), lambda x: tnp.std(x)),
    ("var ddof", lambda x: np.var(x, ddof=1), lambda x: tnp.var(x, ddof=1)),
    ("prod", lambda x: np.prod(x, axis=1), lambda x: tnp.prod(x, 1)),
    ("any", lambda x: np.any(x > 3), lambda x: tnp.any(x > 3)),
    ("all", lambda x: np.all(x > -10, axis=0), lambda x: tnp.all(x > -10, 0)),
    ("argmax", lambda x: np.argmax(x, axis=1), lambda x: tnp.argmax(x, 1)),
    ("argmin", lambda x: np.argmin(x), lambda x: tnp.argmin(x)),
    ("round", lambda x: np.round(x / 3, 1), lambda x: tnp.round(x / 3, 1)),
    ("cumsum", lambda x: np.cumsum(x, axis=0), lambda x: tnp.cumsum(x, 0)),
    ("cumprod", lambda x: np.cumprod(x, axis=1), lambda x: tnp.cumprod(x, 1)),
    ("clip", lambda x: np.clip(x, -1, 2), lambda x: tnp.clip(x, -1, 2)),
    ("reshape", lambda x: np.reshape(x, (4, 3)), lambda x: tnp.reshape(x, (4, 3))),
]


@pytest.mark.parametrize("name,numpy_f,tnp_f", CASES, ids=[c[0] for c in CASES])
def test_numpy_functions_give_typedax_arrays(
    name: str, numpy_f: Callable[[Any], Any], tnp_f: Callable[[Any], Any]
) -> None:
    x = tnp.asarray(X)
    got, want = numpy_f(x), tnp_f(x)
    assert isinstance(got, tdx.Array), type(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    jitted = tdx.jit(numpy_f)(x)  # NumPy's function of a tracer calls the tracer's method
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(want), rtol=1e-12)


def test_out_and_order_are_refused_clearly() -> None:
    x = tnp.asarray(X)
    with pytest.raises(NotImplementedError, match="The 'out' argument to Array.sum is not supported"):
        np.sum(x, out=np.zeros(()))
    with pytest.raises(NotImplementedError, match="The 'out' argument to Array.mean is not supported"):
        x.mean(out=np.zeros(()))  # type: ignore[arg-type]  # the wrong argument is the point
    with pytest.raises(NotImplementedError, match=r"reshape: order='A' is not implemented"):
        x.reshape((4, 3), order="A")  # as JAX's
    with pytest.raises(ValueError, match=r"unexpected value for the 'order' argument: 'K'"):
        x.reshape((4, 3), order="K")


def test_reshape_in_column_major_order_as_jax() -> None:
    """``order='F'`` (JAX's column-major reshape): the function, the method,
    under jit, against NumPy (and JAX's)."""
    import jax.numpy as jnp

    x = np.arange(12.0).reshape(3, 4)
    shapes: list[Any] = [(2, 6), (2, -1), 12, (2, 2, 3)]
    for shape in shapes:
        want = np.reshape(x, shape, order="F")
        np.testing.assert_array_equal(np.asarray(jnp.reshape(jnp.asarray(x), shape, order="F")), want)
        np.testing.assert_array_equal(np.asarray(tnp.reshape(x, shape, order="F")), want)
        np.testing.assert_array_equal(np.asarray(tnp.asarray(x).reshape(shape, order="F")), want)
        got = tdx.jit(lambda v: tnp.ravel(v.reshape(shape, order="F")))(x)
        np.testing.assert_array_equal(np.asarray(got), want.ravel())


def test_where_of_a_condition_alone_is_nonzero() -> None:
    import jax
    import jax.numpy as jnp

    x = np.array([[0, 3, 0], [5, 0, 1]])
    for got, want in [
        (tnp.where(x > 0), jnp.where(x > 0)),
        (tdx.jit(lambda v: tnp.where(v > 0, size=4, fill_value=-1))(x),
         jax.jit(lambda v: jnp.where(v > 0, size=4, fill_value=-1))(x)),
    ]:
        assert len(got) == len(want) == 2
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    with pytest.raises(TypeError, match="give both x and y, or neither"):
        tnp.where(x > 0, x)  # type: ignore[call-overload]  # the missing y is the point
    with pytest.raises(TypeError, match="size and fill_value go with the one-argument form"):
        tnp.where(x > 0, x, 0, size=3)  # type: ignore[call-overload]  # as above
