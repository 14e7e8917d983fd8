"""``typedax.scipy.optimize``, as ``jax.scipy.optimize``: a face that defines
nothing and re-exports ``scipy/_optimize.py`` (see its docstring)."""

from __future__ import annotations

from ._optimize import OptimizeResults as OptimizeResults
from ._optimize import minimize as minimize

__all__ = ["OptimizeResults", "minimize"]
