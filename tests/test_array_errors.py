"""Each error path of the array surface (core/array.py, typedax.numpy's
creation and integer functions, core/promotion.py) with its message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.array import ArrayImpl, from_numpy
from typedax.core.avals import ShapedArray
from typedax.core.errors import PrimitiveTypeError
from typedax.core.promotion import node_of_dtype

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def test_asarray_refuses_what_is_not_an_array() -> None:
    with pytest.raises(PrimitiveTypeError, match="asarray: a str is not an array$"):
        tnp.asarray("abc")  # a str is a Sequence to mypy, not an array to typedax
    with pytest.raises(PrimitiveTypeError, match="asarray: a dict is not an array$"):
        tnp.asarray({"a": 1})  # type: ignore[arg-type]  # the wrong type is the point
    with pytest.raises(PrimitiveTypeError, match="asarray: a str is not an array element"):
        tnp.asarray([1.0, "x"])


def test_asarray_of_a_list_of_tracers_stacks_them() -> None:
    """``jnp.array([y[1], -y[0]])`` under jit, grad and vmap: stacked in the
    common dtype (strong, as JAX's), with JAX's values and dtypes."""
    y = np.array([1.0, 2.0], np.float32)
    cases: list[tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]] = [
        (lambda y: tnp.array([y[1], -y[0]]), lambda y: jnp.array([y[1], -y[0]]), (y,)),
        (lambda a, b: tnp.array([a, b, 1.0]), lambda a, b: jnp.array([a, b, 1.0]), (np.float32(2), 3.0)),
        (lambda a: tnp.asarray(((a, a), (a, 2 * a))), lambda a: jnp.asarray(((a, a), (a, 2 * a))), (np.int32(2),)),
        (lambda a: tnp.array([a, 1], dtype=np.float32), lambda a: jnp.array([a, 1], dtype=jnp.float32), (np.int32(3),)),
    ]
    for ours, theirs, args in cases:
        got, want = tdx.jit(ours)(*args), jax.jit(theirs)(*args)
        assert got.dtype == want.dtype and not got.weak_type
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert float(tdx.grad(lambda a: tnp.sum(tnp.array([a, a * a])))(3.0)) == 7.0
    np.testing.assert_array_equal(
        np.asarray(tdx.vmap(lambda a: tnp.array([a, 1.0]))(np.arange(3.0))), [[0, 1], [1, 1], [2, 1]]
    )


def test_asarray_of_a_ragged_list_of_tracers() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"asarray: the elements of a list have different shapes \(\(\), \(2,\)\)"):
        tdx.jit(lambda a: tnp.array([a, np.ones(2)]))(1.0)
    with pytest.raises(PrimitiveTypeError, match="an empty list beside traced elements"):
        tdx.jit(lambda a: tnp.array([[a], []]))(1.0)


def test_creation_refuses_bad_shapes() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"full: a shape is non-negative integers, got \(2, -1\)"):
        tnp.full((2, -1), 1.0)
    with pytest.raises(PrimitiveTypeError, match=r"zeros: |full: a shape is non-negative integers, got \(2.5,\)"):
        tnp.zeros((2.5,))  # type: ignore[arg-type]  # a float dimension is the point


def test_integer_functions_refuse_floats_and_bools() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"invert: not defined for float64\[2\]"):
        ~tnp.ones(2)
    b = tnp.asarray(np.array([True, False]))
    with pytest.raises(PrimitiveTypeError, match="remainder: not defined for bool operands"):
        b % b
    with pytest.raises(PrimitiveTypeError, match="floor_divide: not defined for bool operands"):
        b // b


def test_item_and_index_need_one_integer_element() -> None:
    with pytest.raises(ValueError, match=r"item\(\) needs a one-element array, got float64\[2\]"):
        tnp.ones(2).item()
    with pytest.raises(TypeError, match=r"only integer scalar arrays can be used as an index, not float64\[\]"):
        [1, 2][tnp.asarray(1.0)]
    assert [1, 2][tnp.asarray(1)] == 2


def test_concrete_indexing_out_of_range_names_the_expression_and_shape() -> None:
    """A static index out of range clamps, as JAX's; with JAX's
    jax_check_static_indices on, the error names the expression and shape."""
    assert float(tnp.arange(2.0)[5]) == 1.0
    tdx.config.update("jax_check_static_indices", True)
    try:
        with pytest.raises(IndexError, match=r"x\[5\] on an array of shape \(2,\): index 5 is out of bounds"):
            tnp.ones(2)[5]
    finally:
        tdx.config.update("jax_check_static_indices", False)


def test_object_arrays_and_empty_impls_are_refused() -> None:
    with pytest.raises(PrimitiveTypeError, match="object arrays are not typedax arrays"):
        from_numpy(np.array([object()]))
    with pytest.raises(ValueError, match="an ArrayImpl needs a host or a device value"):
        ArrayImpl(ShapedArray((), np.dtype(np.float64)))


def test_a_dtype_outside_the_lattice_is_refused() -> None:
    with pytest.raises(PrimitiveTypeError, match="dtype int4 has no place in typedax's type promotion"):  # (float8 has, issue 29, item 7)
        node_of_dtype(np.dtype(ml_dtypes.int4))


@pytest.mark.parametrize(
    "base, exponent",
    [
        (np.array([0, 1, 2, 5, -3, 0], np.int32), np.array([0, 3, 2, 5, 3, -1], np.int32)),
        (np.array([2, -3, 1, -1, 2]), np.array([-1, 3, -1, -1, -2])),  # negative exponents: JAX's bits
        (np.array([2, 3], np.uint8), np.array([3, 1], np.uint8)),
        (np.array([True, False]), np.array([True, True])),  # bools power as int32
        (np.array([2], np.int8), np.array([3], np.uint8)),
        (np.array([3, 7], np.int64), np.array([40, 63], np.int64)),  # wrapping around
    ],
)
def test_integer_powers_with_array_exponents_are_jaxs(base: np.ndarray[Any, Any], exponent: np.ndarray[Any, Any]) -> None:
    want = np.asarray(jnp.power(base, exponent))
    for got in (tnp.power(base, exponent), tdx.jit(tnp.power)(base, exponent), tnp.asarray(base) ** exponent):
        g = np.asarray(got)
        assert g.dtype == want.dtype
        np.testing.assert_array_equal(g, want)
    i = tnp.asarray(np.array([2, 3], np.int32))
    assert (i**2).dtype == np.int32  # a Python int exponent is integer_pow, as in JAX


def test_a_traced_dimension_says_shapes_are_static() -> None:
    from typedax.core.errors import ConcretizationError

    cases: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
        (lambda n: tnp.zeros(n), (3,)),
        (lambda n: tnp.ones((n, 2)), (2,)),
        (lambda x, n: x.reshape(n, -1), (np.ones(4), 2)),
        (lambda x, n: tnp.reshape(x, (n, 2)), (np.ones(4), 2)),
    ]
    for f, args in cases:
        with pytest.raises(ConcretizationError, match=r"the shape has a traced dimension \(int64\[\]\).*static_argnums"):
            tdx.jit(f)(*args)
    # NumPy integers are dimensions
    assert tnp.ones(4).reshape(2, np.int64(2)).shape == (2, 2)  # type: ignore[arg-type]  # NumPy ints work at run time (an int to mypy only by SupportsIndex)
