"""``jnp.printoptions``, ``jnp.set_printoptions`` and ``jnp.get_printoptions``
(issue 29, item 7): NumPy's, as JAX's are. An ``Array`` prints through
NumPy's ``array2string`` (``core/array.py``), so they set how arrays print:
``with tnp.printoptions(precision=2): print(x)``."""

from __future__ import annotations

import numpy as np

printoptions = np.printoptions
set_printoptions = np.set_printoptions
get_printoptions = np.get_printoptions
