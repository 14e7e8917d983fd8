"""``vmap(f, axis_name=...)``: the collectives act over the batch, against
``jax.vmap`` with the same axis name, eagerly, under ``jit``, nested and
under ``grad``."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import AxisNameError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

X = np.arange(24.0).reshape(4, 6) - 5.5
Fn = Callable[..., Any]

#: per-example functions written against a lax module and a numpy module
CASES: dict[str, Callable[[ModuleType, ModuleType], Fn]] = {
    "psum": lambda L, N: lambda v: L.psum(v, "i"),
    "pmax": lambda L, N: lambda v: L.pmax(v, "i"),
    "pmin": lambda L, N: lambda v: L.pmin(v, "i"),
    "pmean": lambda L, N: lambda v: v / L.pmean(v * v, "i"),
    "all_gather": lambda L, N: lambda v: L.all_gather(v, "i"),
    "all_gather_tiled": lambda L, N: lambda v: L.all_gather(v.reshape(2, 3), "i", axis=1, tiled=True),
    "psum_scatter": lambda L, N: lambda v: L.psum_scatter(v[:4], "i"),
    "psum_scatter_tiled": lambda L, N: lambda v: L.psum_scatter(v[:4] * 2, "i", tiled=True),
    "ppermute": lambda L, N: lambda v: L.ppermute(v, "i", [(0, 1), (1, 2), (2, 3), (3, 0)]),
    "axis_index": lambda L, N: lambda v: v + L.axis_index("i"),
    "axis_size": lambda L, N: lambda v: v * L.psum(1, "i"),
    "unbatched": lambda L, N: lambda v: v + L.psum(N.ones(2), "i").sum() + L.pmax(N.ones(()), "i"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_collectives_over_the_batch_as_jax(name: str) -> None:
    mine, theirs = tdx.vmap(CASES[name](lax, tnp), axis_name="i"), jax.vmap(CASES[name](jax.lax, jnp), axis_name="i")
    want = np.asarray(theirs(X))
    got = np.asarray(mine(X))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(tdx.jit(mine)(X)), want, rtol=1e-12)


def test_partial_permutation_gives_zeros() -> None:
    """As ppermute in shard_map (JAX's vmap asserts a full permutation)."""
    got = tdx.vmap(lambda v: lax.ppermute(v, "i", [(0, 2), (3, 1)]), axis_name="i")(X)
    np.testing.assert_array_equal(np.asarray(got), np.stack([0 * X[0], X[3], X[0], 0 * X[0]]))


def test_nested_and_grad() -> None:
    def both(L: ModuleType) -> Fn:
        return lambda v: L.psum(v, ("i", "j"))

    def inner(L: ModuleType) -> Fn:
        return lambda v: L.psum(v, "i")

    np.testing.assert_allclose(
        np.asarray(tdx.vmap(tdx.vmap(both(lax), axis_name="j"), axis_name="i")(X)),
        np.asarray(jax.vmap(jax.vmap(both(jax.lax), axis_name="j"), axis_name="i")(X)))
    np.testing.assert_allclose(  # an unnamed vmap inside: the psum goes to the outer one
        np.asarray(tdx.vmap(tdx.vmap(inner(lax)), axis_name="i")(X)),
        np.asarray(jax.vmap(jax.vmap(inner(jax.lax)), axis_name="i")(X)))

    def loss(L: ModuleType, N: ModuleType) -> Fn:
        return lambda v: N.sum(v / L.psum(v * v, "i"))

    mine = tdx.grad(lambda v: tnp.sum(tdx.vmap(loss(lax, tnp), axis_name="i")(v)))
    theirs = jax.grad(lambda v: jnp.sum(jax.vmap(loss(jax.lax, jnp), axis_name="i")(v)))
    np.testing.assert_allclose(np.asarray(mine(X)), np.asarray(theirs(X)), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(tdx.jit(mine)(X)), np.asarray(theirs(X)), rtol=1e-10)


def test_errors() -> None:
    with pytest.raises(AxisNameError, match="unbound axis name: 'j'"):
        tdx.vmap(lambda v: lax.psum(v, "j"), axis_name="i")(X)
    with pytest.raises(NotImplementedError, match="all_to_all over a vmap axis name"):
        tdx.vmap(lambda v: lax.all_to_all(v, "i", 0, 0, tiled=True), axis_name="i")(X[:, :4])
    with pytest.raises(NotImplementedError, match="together with other axes"):
        tdx.vmap(tdx.vmap(lambda v: lax.all_gather(v, ("i", "j")), axis_name="j"), axis_name="i")(X)
