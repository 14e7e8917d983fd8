"""``jnp.save``, ``savez``, ``load``, ``fromfile``, ``array_repr`` and
``object_`` (issue 29 leftovers): NumPy's own objects where JAX re-exports
NumPy's (``save``, ``savez``, ``object_``, and ``array_repr`` typed for an
``Array``: an ``Array`` reaches them through ``__array__``), and JAX's own ``load`` (NumPy's, with
bfloat16 restored and the array as an ``Array``) and ``fromfile`` (refused,
as JAX's: reading a file is a side effect)."""

from __future__ import annotations

import os
from typing import IO

import numpy as np

from ..core.dtypes import bfloat16
from . import lax_numpy as tnp
from .creation import impure

save = np.save
savez = np.savez
object_ = np.object_


def array_repr(
    arr: object, max_line_width: int | None = None, precision: int | None = None, suppress_small: bool | None = None,
) -> str:
    """``jnp.array_repr``: NumPy's ``array_repr`` itself, as JAX's (given an
    ``Array`` it names the class: ``ArrayImpl([0., 1., 2.])``, as JAX's)."""
    return np.array_repr(arr, max_line_width, precision, suppress_small)  # type: ignore[arg-type]  # NumPy's takes any array-like (its stub says ndarray)


def load(file: IO[bytes] | str | os.PathLike[str], *args: object, **kwargs: object) -> object:
    """``jnp.load``: NumPy's ``load``; an ``.npy`` array comes back as an
    ``Array``, bfloat16 restored (NumPy writes it as two-byte voids), and
    one of a dtype typedax has no array type for (strings, objects) as
    NumPy's; an ``.npz`` file as NumPy's ``NpzFile`` (as JAX's)."""
    out = np.load(file, *args, **kwargs)  # type: ignore[arg-type]  # NumPy's own keyword arguments, passed on
    if isinstance(out, np.ndarray):
        if out.dtype == np.dtype("V2"):
            out = out.view(bfloat16)
        try:
            return tnp.asarray(out)
        except TypeError:  # a dtype typedax has no array type for: NumPy's array, as JAX's
            return out
    return out


def fromfile(*args: object, **kwargs: object) -> object:
    """``jnp.fromfile``: not implemented, as JAX's (reading a file is a side effect)."""
    raise impure("fromfile", "file object")
