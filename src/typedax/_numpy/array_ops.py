"""The numpy-layer functions an array's operators and methods call
(``core/array.py``: ``x + y`` is ``typedax.numpy.add``, ``x.sum()`` is
``typedax.numpy.sum``, ...): this module is the ``_NumpyOps`` the core
declares, so mypy checks every one of them against the method's signature.
``array_methods.py`` installs it when ``typedax.numpy`` is imported."""

from __future__ import annotations

from .creation import diagonal as diagonal
from .creation import trace as trace
from .elementwise import conjugate as conjugate
from .elementwise import divmod as divmod
from .elementwise import imag as imag
from .elementwise import real as real
from .lax_numpy import abs as abs
from .lax_numpy import add as add
from .lax_numpy import all as all
from .lax_numpy import any as any
from .lax_numpy import argmax as argmax
from .lax_numpy import argmin as argmin
from .lax_numpy import argsort as argsort
from .lax_numpy import astype as astype
from .lax_numpy import bitwise_and as bitwise_and
from .lax_numpy import bitwise_or as bitwise_or
from .lax_numpy import bitwise_xor as bitwise_xor
from .lax_numpy import clip as clip
from .lax_numpy import cumprod as cumprod
from .lax_numpy import cumsum as cumsum
from .lax_numpy import divide as divide
from .lax_numpy import dot as dot
from .lax_numpy import equal as equal
from .lax_numpy import floor_divide as floor_divide
from .lax_numpy import greater as greater
from .lax_numpy import greater_equal as greater_equal
from .lax_numpy import invert as invert
from .lax_numpy import left_shift as left_shift
from .lax_numpy import less as less
from .lax_numpy import less_equal as less_equal
from .lax_numpy import matmul as matmul
from .lax_numpy import max as max
from .lax_numpy import mean as mean
from .lax_numpy import min as min
from .lax_numpy import multiply as multiply
from .lax_numpy import negative as negative
from .lax_numpy import nonzero as nonzero
from .lax_numpy import not_equal as not_equal
from .lax_numpy import power as power
from .lax_numpy import prod as prod
from .lax_numpy import ravel as ravel
from .lax_numpy import remainder as remainder
from .lax_numpy import reshape as reshape
from .lax_numpy import right_shift as right_shift
from .lax_numpy import round as round
from .lax_numpy import sort as sort
from .lax_numpy import squeeze as squeeze
from .lax_numpy import subtract as subtract
from .lax_numpy import sum as sum
from .lax_numpy import transpose as transpose
from .manipulation import matrix_transpose as matrix_transpose
from .manipulation import repeat as repeat
from .manipulation import swapaxes as swapaxes
from .manipulation import take as take
from .statistics import ptp as ptp
from .statistics import std as std
from .statistics import var as var
