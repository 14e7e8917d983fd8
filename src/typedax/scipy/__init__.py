"""``typedax.scipy``: SciPy functions as ``jax.scipy`` has them. As in JAX,
``import typedax.scipy`` (or ``import typedax``) makes ``special``,
``stats`` and ``signal`` available as attributes."""

from . import signal as signal
from . import special as special
from . import stats as stats
