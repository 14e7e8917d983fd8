"""``typedax.scipy.linalg``, as ``jax.scipy.linalg``: a face that defines nothing and
re-exports ``scipy/_linalg.py`` (see its docstring)."""

from __future__ import annotations

from ._linalg import block_diag as block_diag
from ._linalg import cho_factor as cho_factor
from ._linalg import cho_solve as cho_solve
from ._linalg import cholesky as cholesky
from ._linalg import circulant as circulant
from ._linalg import companion as companion
from ._linalg import convolution_matrix as convolution_matrix
from ._linalg import det as det
from ._linalg import dft as dft
from ._linalg import eigh as eigh
from ._linalg import eigh_tridiagonal as eigh_tridiagonal
from ._linalg import expm as expm
from ._linalg import expm_frechet as expm_frechet
from ._linalg import fiedler as fiedler
from ._linalg import fiedler_companion as fiedler_companion
from ._linalg import funm as funm
from ._linalg import hadamard as hadamard
from ._linalg import hankel as hankel
from ._linalg import helmert as helmert
from ._linalg import hessenberg as hessenberg
from ._linalg import hilbert as hilbert
from ._linalg import inv as inv
from ._linalg import invhilbert as invhilbert
from ._linalg import invpascal as invpascal
from ._linalg import leslie as leslie
from ._linalg import lu as lu
from ._linalg import lu_factor as lu_factor
from ._linalg import lu_solve as lu_solve
from ._linalg import pascal as pascal
from ._linalg import polar as polar
from ._linalg import qr as qr
from ._linalg import qr_multiply as qr_multiply
from ._linalg import rsf2csf as rsf2csf
from ._linalg import schur as schur
from ._linalg import solve as solve
from ._linalg import solve_sylvester as solve_sylvester
from ._linalg import solve_triangular as solve_triangular
from ._linalg import sqrtm as sqrtm
from ._linalg import svd as svd
from ._linalg import toeplitz as toeplitz

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
    "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet",
    "fiedler", "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg",
    "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve", "pascal",
    "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester",
    "solve_triangular", "sqrtm", "svd", "toeplitz",
]
