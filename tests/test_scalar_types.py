"""``tnp.float32`` and the other scalar types (``_numpy/scalar_types.py``),
against ``jax.numpy``'s: called, each makes a strong typedax array of its
dtype (eagerly and under ``jit``); everywhere a dtype is accepted it stands
for its dtype; it compares and hashes as NumPy's scalar type."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

NAMES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "bfloat16", "float32", "float64"]
VALUES: list[Any] = [0.5, 3, True, [1, 2], np.arange(3), np.float64(2.5)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_calling_a_scalar_type_matches_jax(name: str, value: Any) -> None:
    ours = getattr(tnp, name)(value)
    theirs = getattr(jnp, name)(value)
    assert isinstance(ours, tdx.Array)
    assert (ours.dtype, ours.shape, ours.weak_type) == (theirs.dtype, theirs.shape, theirs.weak_type)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


@pytest.mark.parametrize("name", NAMES)
def test_a_scalar_type_stands_for_its_dtype(name: str) -> None:
    t, d = getattr(tnp, name), np.dtype(getattr(jnp, name))
    assert np.dtype(t) == d and t == d.type and hash(t) == hash(d.type) and t != (tnp.int8 if name != "int8" else tnp.uint8)
    assert tnp.zeros(2, t).dtype == d and tnp.asarray([1, 0]).astype(t).dtype == d
    assert lax.convert_element_type(np.ones(2), t).dtype == d and lax.dtype(t) == d
    assert tnp.result_type(t) == d and tnp.asarray([1, 0]).astype(t).dtype == t
    assert isinstance(d.type(1), t) and not isinstance(1.5 if name != "float64" else 1, t)


def test_under_transformations() -> None:
    f = tdx.jit(lambda v: tnp.float32(v) * 2.0)
    assert f(3.0).dtype == np.float32 and float(f(3.0)) == 6.0
    assert tdx.vmap(lambda v: tnp.float32(v))(np.arange(3.0)).dtype == np.float32
    g = tdx.grad(lambda v: tnp.float64(v) * v)(3.0)
    assert float(g) == 6.0  # a conversion, differentiated as one


def test_an_out_of_range_integer_is_refused_as_jax() -> None:
    with pytest.raises(OverflowError):
        jnp.int8(300)
    with pytest.raises(OverflowError):
        tnp.int8(300)
