"""``jax.errors``: JAX's error classes, as the classes typedax raises in the
same situations, so ``except jax.errors.X`` in ported code catches what it
caught under JAX.

A face: it defines nothing. How JAX's names map onto typedax's classes
(``typedax/core/errors.py``):

- ``ConcretizationTypeError``: ``ConcretizationError`` (a ``TypeError``),
  the base of the three tracer-conversion errors below, as JAX's is of
  ``TracerBoolConversionError``.
- ``TracerArrayConversionError``, ``TracerBoolConversionError``,
  ``TracerIntegerConversionError``: ``np.asarray``, ``bool()`` and use as
  a Python index (``__index__``) of a traced value whose value is not
  known; ``int()`` of one is a plain ``ConcretizationTypeError``, as JAX's.
- ``UnexpectedTracerError``: ``EscapedTracerError`` (a ``TypeError``, as JAX's).
- ``NonConcreteBooleanIndexError``: ``x[mask]`` with a traced boolean mask
  (a subclass of typedax's ``IndexingError``, an ``IndexError``).
- ``JaxprTypeError``: typedax's (a ``TypeError``, as JAX's).
- ``JaxRuntimeError``: jaxlib's, what XLA raises (the same class as JAX's).
- ``KeyReuseError``, ``InconclusiveDimensionOperation``: classes typedax
  never raises (it has no key-reuse checker and no shape polymorphism).

JAX's private bases ``JAXTypeError`` and ``JAXIndexError`` are not provided:
catch ``TypeError`` / ``IndexError``, which every class above is under.
"""

from .core.errors import ConcretizationError as ConcretizationTypeError
from .core.errors import EscapedTracerError as UnexpectedTracerError
from .core.errors import InconclusiveDimensionOperation as InconclusiveDimensionOperation
from .core.errors import NonConcreteBooleanIndexError as NonConcreteBooleanIndexError
from .core.errors import JaxprTypeError as JaxprTypeError
from .core.errors import KeyReuseError as KeyReuseError
from .core.errors import TracerArrayConversionError as TracerArrayConversionError
from .core.errors import TracerBoolConversionError as TracerBoolConversionError
from .core.errors import TracerIntegerConversionError as TracerIntegerConversionError
from .lowering.jaxlib_api import JaxRuntimeError as JaxRuntimeError

__all__ = [
    "ConcretizationTypeError",
    "InconclusiveDimensionOperation",
    "JaxRuntimeError",
    "JaxprTypeError",
    "KeyReuseError",
    "NonConcreteBooleanIndexError",
    "TracerArrayConversionError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "UnexpectedTracerError",
]
