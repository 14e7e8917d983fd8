"""Parameter initializers, as ``jax.nn.initializers`` (``typedax.nn.initializers``
is this module).

Each builder returns an ``Initializer``: a function ``init(key, shape,
dtype=None)`` drawing an array of ``shape`` with ``typedax.random``, so for
the same key it gives what JAX's gives. ``dtype=None`` is the default float
type (float64, or float32 with x64 off).

A face: it defines nothing and re-exports ``typedax/_nn/initializers.py``.
"""

from __future__ import annotations

from .._nn.initializers import Initializer as Initializer
from .._nn.initializers import constant as constant
from .._nn.initializers import delta_orthogonal as delta_orthogonal
from .._nn.initializers import glorot_normal as glorot_normal
from .._nn.initializers import glorot_uniform as glorot_uniform
from .._nn.initializers import he_normal as he_normal
from .._nn.initializers import he_uniform as he_uniform
from .._nn.initializers import kaiming_normal as kaiming_normal
from .._nn.initializers import kaiming_uniform as kaiming_uniform
from .._nn.initializers import lecun_normal as lecun_normal
from .._nn.initializers import lecun_uniform as lecun_uniform
from .._nn.initializers import normal as normal
from .._nn.initializers import ones as ones
from .._nn.initializers import orthogonal as orthogonal
from .._nn.initializers import truncated_normal as truncated_normal
from .._nn.initializers import uniform as uniform
from .._nn.initializers import variance_scaling as variance_scaling
from .._nn.initializers import xavier_normal as xavier_normal
from .._nn.initializers import xavier_uniform as xavier_uniform
from .._nn.initializers import zeros as zeros

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal",
    "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones",
    "orthogonal", "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform",
    "zeros",
]
