"""Issue 23 (second audit), derivatives at singular points and loops: each
case used to give a silently wrong answer or to raise where JAX computes;
JAX 0.10.2 is the oracle, eagerly and under jit/vmap/grad where it applies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import typedax as tdx
from typedax import lax

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax.config.update has no annotations

Fn = Callable[..., Any]


def _leaves(x: object) -> list[np.ndarray[Any, Any]]:
    return [np.asarray(v) for v in tdx.tree.flatten(x)[0]]


def _same(ours: object, theirs: object, rtol: float = 1e-12) -> None:
    a, b = _leaves(ours), [np.asarray(v) for v in jax.tree.leaves(theirs)]
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert u.shape == v.shape and u.dtype == v.dtype, (u.shape, u.dtype, v.shape, v.dtype)
        np.testing.assert_allclose(u, v, rtol=rtol, atol=0)


# -- 4. vmap over a size-0 batch of loops and conditionals ------------------------------
# Each maker takes the lax module (typedax's or JAX's) and gives a function of one
# example of shape (3,).
LOOPS: dict[str, Callable[[Any], Fn]] = {
    "while, batched predicate": lambda L: lambda v: L.while_loop(
        lambda c: c.sum() < 5.0, lambda c: c + 1.0, v),
    "while, unbatched predicate": lambda L: lambda v: L.while_loop(
        lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.0), (0, v)),
    "nested while": lambda L: lambda v: L.while_loop(
        lambda c: c.sum() < 5.0,
        lambda c: L.while_loop(lambda d: d.sum() < c.sum() + 1.0, lambda d: d + 0.5, c), v),
    "fori_loop, traced bounds": lambda L: lambda v: L.fori_loop(
        0, (v.sum() > 0).astype(int) + 2, lambda i, c: c * 2.0, v),
    "fori_loop": lambda L: lambda v: L.fori_loop(0, 3, lambda i, c: c * 2.0, v),
    "cond": lambda L: lambda v: L.cond(v.sum() > 0, lambda a: a + 1.0, lambda a: a - 1.0, v),
    "switch": lambda L: lambda v: L.switch(
        (v.sum() > 0).astype(int), [lambda a: a + 1.0, lambda a: a - 1.0], v),
    "scan": lambda L: lambda v: L.scan(lambda c, a: (c + a, c * a), 0.0, v),
}


@pytest.mark.parametrize("name", list(LOOPS))
@pytest.mark.parametrize("size", [0, 2])
def test_vmap_over_an_empty_batch_of_loops(name: str, size: int) -> None:
    x = np.arange(size * 3, dtype=np.float64).reshape(size, 3) - 2.0
    want = jax.vmap(LOOPS[name](jlax))(jnp.asarray(x))
    f = tdx.vmap(LOOPS[name](lax))
    _same(f(x), want)
    _same(tdx.jit(f)(x), want)
