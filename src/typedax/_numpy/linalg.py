"""``typedax.numpy.linalg``, as ``jax.numpy.linalg``: a face that defines
nothing and re-exports ``linalg_basic.py`` (norms, ``det``, ``slogdet``,
``inv``, ``solve``) and ``linalg_decomp.py`` (the LAPACK decompositions and
what is built on them).

``typedax.numpy`` is a module, not a package, so this module is reached as
``typedax.numpy.linalg`` (the attribute; ``from typedax.numpy import
linalg``), and ``import typedax.numpy.linalg`` finds it under that name in
``sys.modules``."""

from __future__ import annotations

import sys

from .linalg_basic import OrdLike as OrdLike
from .linalg_basic import SlogdetResult as SlogdetResult
from .linalg_basic import det as det
from .linalg_basic import inv as inv
from .linalg_basic import matrix_norm as matrix_norm
from .linalg_basic import norm as norm
from .linalg_basic import slogdet as slogdet
from .linalg_basic import solve as solve
from .linalg_basic import vector_norm as vector_norm

sys.modules.setdefault("typedax.numpy.linalg", sys.modules[__name__])

# the decompositions and what is built on them (typedax.lax_linalg's LAPACK primitives)
from .linalg_decomp import (
    EigResult as EigResult,
    EighResult as EighResult,
    QRResult as QRResult,
    SVDResult as SVDResult,
    cholesky as cholesky,
    cond as cond,
    cross as cross,
    diagonal as diagonal,
    eig as eig,
    eigh as eigh,
    eigvals as eigvals,
    eigvalsh as eigvalsh,
    lstsq as lstsq,
    matmul as matmul,
    matrix_power as matrix_power,
    matrix_rank as matrix_rank,
    matrix_transpose as matrix_transpose,
    multi_dot as multi_dot,
    outer as outer,
    pinv as pinv,
    qr as qr,
    svd as svd,
    svdvals as svdvals,
    tensordot as tensordot,
    tensorinv as tensorinv,
    tensorsolve as tensorsolve,
    trace as trace,
    vecdot as vecdot,
)

__all__ = ["det", "inv", "matrix_norm", "norm", "slogdet", "solve", "vector_norm"]
__all__ += [
    "EigResult",
    "EighResult",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cond",
    "cross",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "lstsq",
    "matmul",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "outer",
    "pinv",
    "qr",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
]
