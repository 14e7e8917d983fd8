"""``typedax.scipy.sparse``, as ``jax.scipy.sparse``: its ``linalg`` module."""

from . import linalg as linalg
