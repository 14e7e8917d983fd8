"""typedax.numpy against NumPy: where and mean broadcast like NumPy does."""

import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import PrimitiveTypeError


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_where_matches_numpy(shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=shape)
    y = rng.normal(size=shape).astype(np.float32)
    cond = x > 0
    got = np.asarray(tnp.where(cond, x, 0.0))
    np.testing.assert_array_equal(got, np.where(cond, x, 0.0))
    # float32 meets a Python scalar: stays float32
    assert np.asarray(tnp.where(cond, y, 1.0)).dtype == np.float32
    # a non-bool condition means "!= 0"
    np.testing.assert_array_equal(np.asarray(tnp.where(x, 1.0, 2.0)), np.where(x, 1.0, 2.0))


def test_where_staged_broadcasts_scalar_branches() -> None:
    closed = tdx.make_jaxpr(lambda x: tnp.where(x > 2.0, x, 0.0))(np.zeros((2, 3)))
    out = tdx.eval_jaxpr(closed.jaxpr, [np.arange(6.0).reshape(2, 3)])[0]
    np.testing.assert_array_equal(np.asarray(out), [[0, 0, 0], [3, 4, 5]])


def test_where_shape_mismatch_is_a_library_error() -> None:
    with pytest.raises(PrimitiveTypeError, match="do not broadcast"):
        tnp.where(np.ones(3, bool), np.ones(2), 0.0)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_mean_matches_numpy(axis: int | tuple[int, int] | None) -> None:
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(np.asarray(tnp.mean(x, axis)), np.mean(x, axis))


def test_mean_of_ints_is_float() -> None:
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_allclose(np.asarray(tnp.mean(x, 1)), np.mean(x, 1))
