"""``typedax.experimental`` (``jax.experimental``): ``io_callback``."""

from __future__ import annotations

from .control_flow.callbacks import io_callback as io_callback

__all__ = ["io_callback"]
