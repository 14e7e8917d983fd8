"""An array's methods and operators come from the numpy layer, as in JAX
(``jax._src.numpy.array_methods``): the core declares them with their
types (``core/array.py``) and calls what this module installs, so the core
never imports upward. ``typedax.numpy`` calls ``install_array_methods``
with itself when it is imported (``x.__array_namespace__()`` is that
module)."""

from __future__ import annotations

from types import ModuleType

from ..core.array import install_numpy
from . import array_ops
from .array_indexing import IndexUpdateHelper, getitem


def install_array_methods(namespace: ModuleType) -> None:
    """Install ``array_ops`` (the operators and methods), ``x[idx]``,
    ``x.at`` and ``namespace`` (``__array_namespace__``) into the core."""
    install_numpy(array_ops, namespace, getitem, IndexUpdateHelper)
