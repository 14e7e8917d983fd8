"""``typedax.experimental.shard_map`` (``jax.experimental.shard_map``, which
JAX 0.10 still ships, deprecated in favour of ``jax.shard_map``):
``shard_map(f, mesh, in_specs, out_specs, check_rep=True)``."""

from __future__ import annotations

from ..jitting.shard_map import shard_map as shard_map

__all__ = ["shard_map"]
