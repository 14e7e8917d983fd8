"""``tnp.dot`` and ``tnp.matmul`` against NumPy over generated shapes:
``dot`` is a tensor product over N-d operands (not ``matmul``'s batching),
``matmul`` broadcasts its batch dimensions and treats 1-d operands as vectors."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import PrimitiveTypeError

Arr = np.ndarray[Any, np.dtype[Any]]


@st.composite
def dot_pairs(draw: st.DrawFn) -> tuple[Arr, Arr]:
    k = draw(st.integers(1, 3))
    a_lead = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    b_lead = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    b_vector = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    a = rng.normal(size=a_lead + (k,))
    b = rng.normal(size=(k,)) if b_vector else rng.normal(size=b_lead + (k, draw(st.integers(1, 3))))
    return a, b


@given(dot_pairs())
def test_dot_is_numpys_tensor_product(pair: tuple[Arr, Arr]) -> None:
    a, b = pair
    want = np.dot(a, b)
    np.testing.assert_allclose(np.asarray(tnp.dot(a, b)), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(tdx.jit(tnp.dot)(a, b)), want, rtol=1e-12, atol=1e-12)


@st.composite
def matmul_pairs(draw: st.DrawFn) -> tuple[Arr, Arr]:
    k, m, n = (draw(st.integers(1, 3)) for _ in range(3))
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    # each operand takes a suffix of the batch, with some sizes set to 1
    def lead() -> tuple[int, ...]:
        cut = draw(st.integers(0, len(batch)))
        return tuple(1 if draw(st.booleans()) else d for d in batch[cut:])

    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    a = rng.normal(size=(k,)) if draw(st.booleans()) else rng.normal(size=lead() + (m, k))
    b = rng.normal(size=(k,)) if draw(st.booleans()) else rng.normal(size=lead() + (k, n))
    return a, b


@given(matmul_pairs())
def test_matmul_broadcasts_like_numpy(pair: tuple[Arr, Arr]) -> None:
    a, b = pair
    want = np.matmul(a, b)
    got = tnp.matmul(a, b)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(tdx.jit(lambda x, y: x @ y)(a, b)), want, rtol=1e-12, atol=1e-12)


def test_dot_of_a_scalar_multiplies() -> None:
    np.testing.assert_array_equal(np.asarray(tnp.dot(2.0, np.ones(3))), [2.0, 2.0, 2.0])


def test_matmul_batch_dimensions_that_do_not_broadcast() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"matmul: the batch dimensions of shapes \(2, 3, 4\) and \(3, 4, 5\) do not broadcast"):
        tnp.matmul(np.ones((2, 3, 4)), np.ones((3, 4, 5)))


def test_a_batch_dimension_of_one_operand_is_not_broadcast() -> None:
    """``(8, 64, 128) @ (128, 384)`` is one matrix product (JAX's jaxpr), so its
    gradient w.r.t. the matrix is one product too, not a sum over copies."""
    x, w = np.ones((8, 64, 128), np.float32), np.ones((128, 384), np.float32)
    text = str(tdx.make_jaxpr(lambda a, b: a @ b)(tnp.asarray(x), tnp.asarray(w)))
    assert "broadcast" not in text and "dimension_numbers=(((2,), (0,)), ((), ()))" in text
    grad_text = str(tdx.make_jaxpr(tdx.grad(lambda a, b: tnp.sum(a @ b), argnums=1))(tnp.asarray(x), tnp.asarray(w)))
    assert "reduce_sum" not in grad_text.split("dot_general")[-1]
    # a size-1 batch dimension and a missing one, mixed: NumPy's shape and values
    a = np.random.default_rng(0).normal(size=(2, 1, 4, 3))
    b = np.random.default_rng(1).normal(size=(5, 3, 2))
    np.testing.assert_allclose(np.asarray(tnp.matmul(a, b)), np.matmul(a, b), rtol=1e-12)
