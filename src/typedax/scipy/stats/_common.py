"""What the distributions share: JAX's ``promote_args_inexact`` (one float
dtype, one shape) and constants in an operand's dtype."""

from __future__ import annotations

import numpy as np

from ...core.array import ArrayLike
from ...core.ir import NDArray
from ...core.trace import aval_of
from ..special import _promote as promote

__all__ = ["c", "promote"]


def c(v: float, like: ArrayLike) -> NDArray:
    """``v`` as a NumPy scalar of ``like``'s dtype (a strong constant that
    keeps float32 operands float32)."""
    return np.asarray(v, aval_of(like).dtype)
