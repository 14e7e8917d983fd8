"""``typedax.lax.linalg``: ``jax.lax.linalg``'s decompositions -- a face
re-exporting ``typedax._lax.linalg`` (importing it installs jaxlib's LAPACK
kernels as the primitives' preparer)."""

from ._lax.linalg import cholesky as cholesky
from ._lax.linalg import eig as eig
from ._lax.linalg import eigh as eigh
from ._lax.linalg import lu as lu
from ._lax.linalg import lu_pivots_to_permutation as lu_pivots_to_permutation
from ._lax.linalg import lu_solve as lu_solve
from ._lax.linalg import qr as qr
from ._lax.linalg import svd as svd
from ._lax.linalg import symmetrize as symmetrize
from ._lax.linalg import triangular_solve as triangular_solve

__all__ = ["cholesky", "eig", "eigh", "lu", "lu_pivots_to_permutation", "lu_solve", "qr", "svd", "symmetrize", "triangular_solve"]
