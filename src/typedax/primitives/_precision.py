"""Matmul precision and ``preferred_element_type``, as JAX has them: shared
by ``dot_general`` and ``conv_general_dilated`` (params, checks, lowering).

An equation's ``precision`` param is ``None`` or a pair of names
(``"DEFAULT"``/``"HIGH"``/``"HIGHEST"``, lhs then rhs: JAX's canonical
form); ``None`` given by the caller takes ``config``'s
``default_matmul_precision`` while tracing, as JAX's
``canonicalize_precision``. The lowering writes XLA's ``precision_config``
exactly as JAX's ``precision_attr`` does: ``[DEFAULT, DEFAULT]`` for
``None``. XLA on the CPU computes float32 and float64 products at full
precision whatever the config says, so NumPy evaluation (eager, and the
``host_matmul`` fast path) ignores it there; on the GPU, ``DEFAULT`` and
``HIGH`` mean TensorFloat-32 for float32 (what JAX's default gives), which
only the compiled program does.
"""

from __future__ import annotations

import enum
from typing import Union

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.config import matmul_precision
from ..core.dtypes import FLOATING, INTEGER, DType
from ..core.errors import ArgumentValueError, PrimitiveTypeError
from ..core.ir import Param


class Precision(enum.Enum):
    """``jax.lax.Precision``: how float32 products are computed on an
    accelerator (the CPU computes every one at full precision)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __repr__(self) -> str:
        return f"Precision.{self.name}"

    __str__ = __repr__


#: JAX's ``_precision_strings``
PRECISION_ALIASES = {
    "default": "DEFAULT", "fastest": "DEFAULT", "bfloat16": "DEFAULT",
    "high": "HIGH", "tensorfloat32": "HIGH", "bfloat16_3x": "HIGH",
    "highest": "HIGHEST", "float32": "HIGHEST",
}

#: JAX's spellings: a pair is two ``Precision`` values or two names, not a mix
PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision]]

#: The precision param of an equation: ``None`` or the (lhs, rhs) names.
CanonicalPrecision = Union[tuple[str, str], None]

_NAMES = ("DEFAULT", "HIGH", "HIGHEST")


def _precision_name(op: str, p: object) -> str:
    if isinstance(p, Precision):
        return p.name
    if p is None:
        return "DEFAULT"
    key = str(p).lower()  # (anything else a caller passes is refused below)
    if key in PRECISION_ALIASES:
        return PRECISION_ALIASES[key]
    raise ArgumentValueError(
        f"{op}: precision must be None, a lax.Precision, one of {sorted(PRECISION_ALIASES)} "
        f"or a pair of them, got {p!r}"
    )


def canonicalize_precision(precision: PrecisionLike, op: str = "dot_general") -> CanonicalPrecision:
    """None, or the (lhs, rhs) pair of precision names (JAX's canonical form);
    ``None`` reads ``config``'s ``default_matmul_precision``."""
    if precision is None:
        default = matmul_precision()
        if default is None:
            return None
        name = PRECISION_ALIASES[default]
        return (name, name)
    if isinstance(precision, (tuple, list)):
        if len(precision) != 2:
            raise ArgumentValueError(f"{op}: precision must be a pair, got {precision!r}")
        if not (all(isinstance(p, Precision) for p in precision) or all(isinstance(p, str) for p in precision)):
            # (JAX's ValueError: a pair of lax.Precision values or of strings)
            raise ArgumentValueError(
                f"{op}: a precision pair must be two lax.Precision values or two strings, got {precision!r}"
            )
        return (_precision_name(op, precision[0]), _precision_name(op, precision[1]))
    name = _precision_name(op, precision)
    return (name, name)


def precision_param(op: str, prec: Param) -> CanonicalPrecision:
    """An equation's ``precision`` param, checked."""
    if prec is None:
        return None
    if not (isinstance(prec, tuple) and len(prec) == 2 and all(p in _NAMES for p in prec)):
        raise PrimitiveTypeError(f"{op}: param 'precision' must be None or a pair of precision names, got {prec!r}")
    return (str(prec[0]), str(prec[1]))


def element_type_param(op: str, pet: Param) -> DType | None:
    """An equation's ``preferred_element_type`` param, checked."""
    if pet is not None and not isinstance(pet, np.dtype):
        raise PrimitiveTypeError(f"{op}: param 'preferred_element_type' must be None or a dtype, got {pet!r}")
    return pet


def precision_attr(precision: CanonicalPrecision) -> ir.ArrayAttr:
    """XLA's ``precision_config`` as JAX's lowering writes it (``None`` is
    ``[DEFAULT, DEFAULT]``: JAX's ``_full_precision``)."""
    pair = precision if precision is not None else ("DEFAULT", "DEFAULT")
    return ir.ArrayAttr.get([hlo.PrecisionAttr.get(p) for p in pair])


def preferred_out_dtype(where: str, dtype: DType, preferred: DType | None) -> DType:
    """The result dtype of a product of ``dtype`` operands asked for
    ``preferred`` (JAX's ``_validate_preferred_element_type``)."""
    if preferred is None:
        return dtype
    if dtype in INTEGER and preferred in FLOATING:
        return preferred  # allowed, as JAX's
    same_kind = (dtype in INTEGER) == (preferred in INTEGER) and (dtype in FLOATING) == (preferred in FLOATING)
    if not same_kind:
        raise PrimitiveTypeError(f"{where}: input type {dtype.name} is incompatible with preferred_element_type {preferred.name}")
    if preferred.itemsize < dtype.itemsize:
        raise PrimitiveTypeError(f"{where}: preferred_element_type {preferred.name} must not be narrower than {dtype.name}")
    return preferred
