"""``typedax.scipy``: SciPy functions as ``jax.scipy`` has them. As in JAX,
``import typedax.scipy`` (or ``import typedax``) makes ``special``,
``stats``, ``signal``, ``linalg``, ``optimize`` and ``sparse`` available as
attributes."""

from . import linalg as linalg
from . import optimize as optimize
from . import signal as signal
from . import sparse as sparse
from . import special as special
from . import stats as stats
