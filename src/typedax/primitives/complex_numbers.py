"""Complex numbers: ``complex`` (a complex array from its real and imaginary
parts), ``real``, ``imag`` and ``conj`` -- JAX's ``complex_p``, ``real_p``,
``imag_p`` and ``conj_p``, each with every rule -- and their ``jax.lax``
functions.

All four are linear over the reals. Their transposes follow JAX's
convention (``jax._src.lax.lax``), which makes ``grad`` of a real loss of a
complex input the conjugate of the Wirtinger form JAX returns: ``real``'s
cotangent ``c`` goes back as ``c + 0j``, ``imag``'s as ``-c * 1j``,
``complex``'s ``c`` as ``(real(c), -imag(c))``, and ``conj``'s as
``conj(c)`` (the real part of ``c`` for a real operand).

``conj`` takes a real float operand too and gives its complex type, as JAX's
(``jax.numpy.conjugate`` of a real array is the array itself and binds
nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import COMPLEX, COMPLEX_OF, REAL_OF, DType
from ..core.errors import PrimitiveTypeError
from ..core.ir import NO_PARAMS, Eqn, NDArray, Params, Primitive
from ..core.rules import Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext, tensor_type
from .elementwise import _binary_batch, _unbroadcast, elementwise_batch, lower_binary, neg
from .structural import check_arity, linear_jvp, primal_aval, types_str, zero_like, zeros_like_aval


def real(x: Value) -> Value:
    """The real part of a complex array (``jax.lax.real``)."""
    return bind1(real_p, (x,), NO_PARAMS)


def imag(x: Value) -> Value:
    """The imaginary part of a complex array (``jax.lax.imag``)."""
    return bind1(imag_p, (x,), NO_PARAMS)


def conj(x: Value) -> Value:
    """The complex conjugate (``jax.lax.conj``); of a real float array, the
    array as its complex type."""
    return bind1(conj_p, (x,), NO_PARAMS)


def complex(x: ArrayLike, y: ArrayLike) -> Array:  # noqa: A001 - jax.lax's name
    """``x + y * 1j`` from real float parts of one dtype (``jax.lax.complex``);
    a Python scalar takes its partner's dtype."""
    xa, ya = aval_of(x), aval_of(y)
    if type(x) in (int, float) and type(y) not in (int, float):
        x = np.asarray(x, ya.dtype)
    elif type(y) in (int, float) and type(x) not in (int, float):
        y = np.asarray(y, xa.dtype)
    return bind1(complex_p, (x, y), NO_PARAMS)


# -- real and imag: the parts of a complex array --------------------------------
def _real_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.array(args[0].real)]


def _imag_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.array(args[0].imag)]


def _real_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return _parts_type("real", avals)


def _imag_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return _parts_type("imag", avals)


def _parts_type(name: str, avals: Sequence[ShapedArray]) -> list[ShapedArray]:
    check_arity(name, avals, 1)
    (x,) = avals
    if x.dtype not in COMPLEX:
        raise PrimitiveTypeError(f"{name} accepts complex64/complex128 operands, got {x.str_short()}")
    return [ShapedArray(x.shape, REAL_OF[x.dtype], x.weak_type)]


def _zeros_as(ct: Value) -> Value:
    return zeros_like_aval(aval_of(ct).weakened(False))


def _real_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts  # c + 0j
    return [bind1(complex_p, (ct, _zeros_as(ct)), NO_PARAMS)]


def _imag_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts  # -c * 1j, as JAX's
    return [bind1(complex_p, (_zeros_as(ct), neg(ct)), NO_PARAMS)]


def _real_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    return [hlo.real(args[0])]


def _imag_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    return [hlo.imag(args[0])]


real_p: Primitive = Primitive(
    "real", _real_impl, _real_abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_real_t, batch=elementwise_batch(p), lower=_real_lower),
)
imag_p: Primitive = Primitive(
    "imag", _imag_impl, _imag_abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_imag_t, batch=elementwise_batch(p), lower=_imag_lower),
)


# -- complex(x, y) = x + y * 1j ---------------------------------------------------
def _complex_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    x, y = args  # a rank-0 operand broadcasts (NumPy's rule)
    d = COMPLEX_OF[x.dtype]
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), d)
    out.real, out.imag = x, y
    return [out]


def _complex_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("complex", avals, 2)
    x, y = avals
    if x.dtype != y.dtype or (x.shape != y.shape and x.shape and y.shape):
        raise PrimitiveTypeError(
            "complex requires operands of one shape and dtype (or a rank-0 operand of that "
            f"dtype), got ({types_str(avals)})"
        )
    if x.dtype not in COMPLEX_OF:
        raise PrimitiveTypeError(f"complex accepts float32/float64 operands, got ({types_str(avals)})")
    big = y if not x.shape and y.shape else x
    return [ShapedArray(big.shape, COMPLEX_OF[x.dtype], x.weak_type and y.weak_type)]


def _complex_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(complex_p, (x, y), params)
    if isinstance(tx, Zero) and isinstance(ty, Zero):
        return [out], [zero_like(out)]
    a = zeros_like_aval(aval_of(x).weakened(False)) if isinstance(tx, Zero) else tx
    b = zeros_like_aval(aval_of(y).weakened(False)) if isinstance(ty, Zero) else ty
    return [out], [bind1(complex_p, (a, b), params)]


def _complex_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    x, y = ps
    return [
        _unbroadcast(real(ct), x) if isinstance(x, UndefPrimal) else None,
        _unbroadcast(neg(imag(ct)), y) if isinstance(y, UndefPrimal) else None,
    ]


complex_p: Primitive = Primitive(
    "complex", _complex_impl, _complex_abstract,
    rules_for=lambda p: Rules(
        jvp=_complex_jvp, transpose=_complex_t, batch=_binary_batch(p), lower=lower_binary(hlo.complex)
    ),
)


# -- conj ----------------------------------------------------------------------------
def _conj_type(d: DType) -> DType:
    return d if d in COMPLEX else COMPLEX_OF[d]


def _conj_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    (x,) = args
    return [np.asarray(np.conj(x), _conj_type(x.dtype))]


def _conj_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("conj", avals, 1)
    (x,) = avals
    if x.dtype not in COMPLEX and x.dtype not in COMPLEX_OF:
        raise PrimitiveTypeError(
            f"conj accepts float32/float64/complex64/complex128 operands, got {x.str_short()}"
        )
    return [ShapedArray(x.shape, _conj_type(x.dtype), x.weak_type)]


def _conj_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    return [conj(ct) if primal_aval(ps[0]).dtype in COMPLEX else real(ct)]


def _conj_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    (x,) = args
    if eqn.inputs[0].aval.dtype in COMPLEX:
        return [hlo.complex(hlo.real(x), hlo.negate(hlo.imag(x)))]
    return [hlo.convert(tensor_type(eqn.out_binders[0].aval), x)]


conj_p: Primitive = Primitive(
    "conj", _conj_impl, _conj_abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_conj_t, batch=elementwise_batch(p), lower=_conj_lower),
)


FAMILY = Family("complex numbers", (complex_p, real_p, imag_p, conj_p))
