"""``Compiled.memory_analysis()`` and ``cost_analysis()`` read XLA's
figures from the loaded executable, with JAX's field names and, for the
same program, JAX's numbers."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax.lowering import jaxlib_api


def _ours(x: tdx.Array, w: tdx.Array) -> tdx.Array:
    return tnp.sum(tnp.tanh(tnp.sin(x) @ w))


def _theirs(x: jax.Array, w: jax.Array) -> jax.Array:
    return jnp.sum(jnp.tanh(jnp.sin(x) @ w))


X = np.linspace(0.0, 1.0, 8 * 16, dtype=np.float32).reshape(8, 16)
W = np.linspace(-1.0, 1.0, 16 * 4, dtype=np.float32).reshape(16, 4)
XT, WT = tnp.asarray(X), tnp.asarray(W)


def test_memory_analysis_has_jax_fields_and_figures() -> None:
    ours = tdx.jit(_ours).trace(XT, WT).lower().compile().memory_analysis()
    theirs = jax.jit(_theirs).lower(X, W).compile().memory_analysis()
    assert ours is not None and theirs is not None
    names = [f.name for f in dataclasses.fields(ours)]
    for name in names:
        assert hasattr(theirs, name), name
    for name in ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.argument_size_in_bytes == X.nbytes + W.nbytes
    assert ours.output_size_in_bytes == 4


def test_memory_analysis_of_grad_matches_jax() -> None:
    ours = tdx.jit(tdx.grad(_ours, argnums=(0, 1))).trace(XT, WT).lower().compile().memory_analysis()
    theirs = jax.jit(jax.grad(_theirs, argnums=(0, 1))).lower(X, W).compile().memory_analysis()
    assert ours is not None and theirs is not None
    assert ours.output_size_in_bytes == theirs.output_size_in_bytes >= X.nbytes + W.nbytes
    assert ours.temp_size_in_bytes > 0


def test_cost_analysis_matches_jax() -> None:
    ours = tdx.jit(_ours).trace(XT, WT).lower().compile().cost_analysis()
    theirs = jax.jit(_theirs).lower(X, W).compile().cost_analysis()
    assert ours is not None and theirs is not None
    assert set(ours) == set(theirs)
    for key in ("flops", "transcendentals", "bytes accessed"):
        assert ours[key] == theirs[key], key
    assert ours["transcendentals"] == X.size + 8 * 4  # sin, then tanh


def test_facade_names_the_memory_stats_fields_of_jaxlib() -> None:
    exe = tdx.jit(lambda x: x + 1.0).trace(XT).lower().compile().executable.loaded
    raw = exe.get_compiled_memory_stats()
    stats = jaxlib_api.memory_stats(exe)
    assert stats is not None
    for f in dataclasses.fields(stats):
        assert getattr(stats, f.name) == getattr(raw, f.name)
