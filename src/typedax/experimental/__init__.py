"""``typedax.experimental`` (``jax.experimental``): ``io_callback``, and the
``shard_map`` module (``typedax.experimental.shard_map.shard_map``)."""

from __future__ import annotations

from ..control_flow.callbacks import io_callback as io_callback
from . import shard_map as shard_map

__all__ = ["io_callback", "shard_map"]
