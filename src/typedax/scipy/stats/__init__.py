"""``typedax.scipy.stats``: distributions as ``jax.scipy.stats`` has them."""

from . import norm as norm

__all__ = ["norm"]
