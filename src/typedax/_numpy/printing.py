"""``jnp.printoptions``, ``jnp.set_printoptions`` and ``jnp.get_printoptions``
(issue 29, item 7): NumPy's, as JAX's are. An ``Array`` prints through
NumPy's ``array2string`` (``core/array.py``), so they set how arrays print:
``with tnp.printoptions(precision=2): print(x)``."""

from __future__ import annotations

import numpy as np

printoptions = np.printoptions
set_printoptions = np.set_printoptions
get_printoptions = np.get_printoptions

#: NumPy's warning for a complex value cast to a real type (``jnp.ComplexWarning``)
ComplexWarning = np.exceptions.ComplexWarning


def array_str(
    a: object, max_line_width: int | None = None, precision: int | None = None, suppress_small: bool | None = None,
) -> str:
    """``jnp.array_str``: NumPy's ``array_str`` of the array's value (what
    ``str(x)`` prints, with these options)."""
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)
