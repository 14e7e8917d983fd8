"""``typedax.scipy.sparse.linalg``, as ``jax.scipy.sparse.linalg``: a face that
defines nothing and re-exports ``scipy/_sparse_linalg.py`` (see its docstring)."""

from __future__ import annotations

from .._sparse_linalg import bicgstab as bicgstab
from .._sparse_linalg import cg as cg
from .._sparse_linalg import gmres as gmres

__all__ = ["bicgstab", "cg", "gmres"]
