"""``typedax.numpy.fft``, as ``jax.numpy.fft``: a face that defines
nothing; the functions live in ``_numpy/fft.py``. ``typedax.numpy`` (a
module, not a package) re-exports this module as ``typedax.numpy.fft`` (the
attribute; ``from typedax.numpy import fft``), and ``import
typedax.numpy.fft`` finds it under that name in ``sys.modules``."""

from __future__ import annotations

import sys

from .fft import fft as fft
from .fft import ifft as ifft
from .fft import fft2 as fft2
from .fft import ifft2 as ifft2
from .fft import fftn as fftn
from .fft import ifftn as ifftn
from .fft import rfft as rfft
from .fft import irfft as irfft
from .fft import rfft2 as rfft2
from .fft import irfft2 as irfft2
from .fft import rfftn as rfftn
from .fft import irfftn as irfftn
from .fft import hfft as hfft
from .fft import ihfft as ihfft
from .fft import fftfreq as fftfreq
from .fft import rfftfreq as rfftfreq
from .fft import fftshift as fftshift
from .fft import ifftshift as ifftshift

sys.modules.setdefault("typedax.numpy.fft", sys.modules[__name__])

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]
