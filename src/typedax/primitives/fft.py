"""Fast Fourier transforms: JAX's ``fft_p`` with every rule, and
``jax.lax.fft``.

``fft(x; fft_type, fft_lengths)`` transforms the last ``len(fft_lengths)``
axes of ``x``. ``fft_type`` is one of ``FFT`` and ``IFFT`` (complex to
complex, same shape), ``RFFT`` (real to complex: the last axis becomes
``n // 2 + 1`` long) and ``IRFFT`` (complex to real: the last axis becomes
``fft_lengths[-1]``), the param a string naming it (``FftType``'s name).

The transform is linear: its JVP is itself, its batching moves the batch
axis to the front (the transformed axes are the minor ones), and its
transposes are JAX's (``jax._src.lax.fft``): ``FFT`` and ``IFFT`` are
symmetric matrices, their own transposes; ``RFFT``'s transpose is ``N``
times the ``IRFFT`` of the conjugated cotangent halved on the components
that stand for two (all but DC and, for an even length, Nyquist); ``IRFFT``'s
the conjugate of the scaled, doubled ``RFFT`` of its cotangent.

Eager evaluation runs the one-equation XLA program (``eval_on_device``), so
eager equals ``jit`` exactly: NumPy's pocketfft rounds differently from
XLA's FFT. ``impl`` (NumPy's ``numpy.fft``) is what the rule does not use.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import COMPLEX, COMPLEX_OF, REAL_OF, complex64, complex128, float32, float64, is_inexact
from ..core.errors import PrimitiveTypeError
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext
from ._params import _get, get_ints, params_of
from .complex_numbers import conj
from .elementwise import convert, convert_element_type_p, mul
from .structural import broadcast_to, check_arity, linear_jvp, move_batch_axis


class FftType(enum.IntEnum):
    """Which transform ``fft`` computes (``jax.lax.FftType``)."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


_TYPES: dict[str, FftType] = {"fft": FftType.FFT, "ifft": FftType.IFFT, "rfft": FftType.RFFT, "irfft": FftType.IRFFT}


def fft(x: ArrayLike, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Array:
    """The FFT of the last ``len(fft_lengths)`` axes of ``x``
    (``jax.lax.fft``): ``fft_type`` a ``FftType`` or its name (either
    case). Integer and bool operands become float32 (complex64), 64-bit
    ones float64 (complex128), as JAX's; an
    empty ``fft_lengths`` returns ``x`` so converted."""
    if isinstance(fft_type, FftType):
        typ = fft_type
    elif isinstance(fft_type, str):
        found = _TYPES.get(fft_type.lower()) if fft_type in (fft_type.lower(), fft_type.upper()) else None
        if found is None:
            raise ValueError(f"Unknown FFT type '{fft_type}'")
        typ = found
    else:
        raise TypeError(f"Unknown FFT type value '{fft_type}'")
    lengths = tuple(int(n) for n in fft_lengths)
    d = aval_of(x).dtype
    inexact = d if is_inexact(d) else (float64 if d.itemsize == 8 else float32)  # JAX's to_inexact_dtype
    if typ == FftType.RFFT:
        if d in COMPLEX:
            raise ValueError("only real valued inputs supported for rfft")
        target = inexact
    else:
        target = d if d in COMPLEX else (complex128 if inexact == float64 else complex64)
    if not lengths:  # XLA's FFT has no rank-0 form
        return bind1(convert_element_type_p, (x,), params_of(("new_dtype", target)))
    xv: Value = x if d == target else convert(x, target)
    _check(aval_of(xv), typ, lengths, ValueError)
    return bind1(fft_p, (xv,), params_of(("fft_type", typ.name), ("fft_lengths", lengths)))


def _params(params: Params) -> tuple[FftType, tuple[int, ...]]:
    name = _get("fft", params, "fft_type")
    if not isinstance(name, str) or name not in FftType.__members__:
        raise PrimitiveTypeError(f"fft: param 'fft_type' must be one of 'FFT', 'IFFT', 'RFFT', 'IRFFT', got {name!r}")
    lengths = get_ints("fft", params, "fft_lengths")
    if not lengths or any(n < 0 for n in lengths):
        raise PrimitiveTypeError(f"fft: param 'fft_lengths' must be a non-empty tuple of sizes, got {lengths!r}")
    return FftType[name], lengths


def _check(x: ShapedArray, typ: FftType, lengths: tuple[int, ...], error: type[Exception]) -> ShapedArray:
    """The output type of ``typ`` on ``x``, or ``error`` with JAX's message."""
    k = len(lengths)
    if k > x.ndim:
        raise error(
            f"FFT input shape {x.shape} must have at least as many input dimensions as fft_lengths {lengths}."
        )
    minor = x.shape[x.ndim - k :]
    if typ == FftType.RFFT:
        if x.dtype not in (float32, float64):
            raise error(f"RFFT input must be float32 or float64, got {x.dtype}")
        if minor != lengths:
            raise error(f"RFFT input shape {x.shape} minor dimensions must be equal to fft_lengths {lengths}")
        return ShapedArray(x.shape[: x.ndim - k] + lengths[:-1] + (lengths[-1] // 2 + 1,), COMPLEX_OF[x.dtype])
    if x.dtype not in COMPLEX:
        raise error(f"{typ.name} input must be complex64 or complex128, got {x.dtype}")
    if typ == FftType.IRFFT:
        if minor[:-1] != lengths[:-1]:
            raise error(
                f"IRFFT input shape {x.shape} minor dimensions must be equal to all except the last "
                f"fft_length, got fft_lengths={lengths}"
            )
        return ShapedArray(x.shape[: x.ndim - k] + lengths, REAL_OF[x.dtype])
    if minor != lengths:
        raise error(f"{typ.name} input shape {x.shape} minor dimensions must be equal to fft_lengths {lengths}")
    return ShapedArray(x.shape, x.dtype)


def _fft_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("fft", avals, 1)
    typ, lengths = _params(params)
    return [_check(avals[0], typ, lengths, PrimitiveTypeError)]


def _fft_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    (x,) = args
    typ, lengths = _params(params)
    out = _check(ShapedArray(x.shape, x.dtype), typ, lengths, PrimitiveTypeError)
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    y: NDArray
    if typ == FftType.FFT:
        y = np.fft.fftn(x, axes=axes)
    elif typ == FftType.IFFT:
        y = np.fft.ifftn(x, axes=axes)
    elif typ == FftType.RFFT:
        y = np.fft.rfftn(x, axes=axes)
    else:
        y = np.fft.irfftn(x, s=lengths, axes=axes)
    return [np.asarray(y, out.dtype)]


def _eval_on_device(
    values: Sequence[NDArray], avals: Sequence[ShapedArray], params: Params
) -> tuple[int, ...] | None:
    return ()  # XLA's FFT, eager as under jit


# -- transposes -------------------------------------------------------------------
def _bind(x: Value, typ: FftType, lengths: tuple[int, ...]) -> Value:
    return bind1(fft_p, (x,), params_of(("fft_type", typ.name), ("fft_lengths", lengths)))


def _mask(m: int, n: int, scale: float, power: int, like: ShapedArray) -> Value:
    """``scale * weight ** power`` along the last axis of ``like``'s shape
    (``m`` components of a half spectrum of length ``n``: weight 1 on DC
    and, for an even ``n``, Nyquist, else 2), broadcast to that shape."""
    w = np.full((m,), 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[m - 1] = 1.0
    mask = np.asarray(scale * w**power, like.dtype)
    return broadcast_to(mask, like.shape, tuple(range(like.ndim - 1)))


def _fft_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    typ, lengths = _params(params)
    if typ == FftType.RFFT:  # N * irfft(conj(ct) / mask)
        a = aval_of(ct)
        return [_bind(mul(conj(ct), _mask(a.shape[-1], lengths[-1], math.prod(lengths), -1, a)), FftType.IRFFT, lengths)]
    if typ == FftType.IRFFT:  # conj(mask / N * rfft(ct))
        y = _bind(ct, FftType.RFFT, lengths)
        a = aval_of(y)
        return [conj(mul(y, _mask(a.shape[-1], lengths[-1], 1.0 / math.prod(lengths), 1, a)))]
    return [_bind(ct, typ, lengths)]


def _fft_batch(
    axis_size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (x,), (b,) = vals, dims
    return [bind1(fft_p, (move_batch_axis(axis_size, b, 0, x),), params)], [0]


def _fft_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    typ, lengths = _params(eqn.params)
    (x,) = args
    if ctx.platform != "cpu" and typ == FftType.IRFFT and len(lengths) > 1:
        # JAX's GPU lowering: cuFFT's multi-dimensional C2R transform assumes
        # Hermitian symmetry on every axis, XLA's CPU FFT and NumPy on the last
        # only; so the outer axes go through an IFFT first, then a 1-D IRFFT
        rank = eqn.inputs[0].aval.ndim
        target = rank - len(lengths)
        perm_out = list(range(rank))
        perm_out.insert(target, perm_out.pop(-1))
        x = hlo.transpose(x, perm_out)
        x = hlo.fft(x, hlo.FftTypeAttr.get("IFFT"), list(lengths[:-1]))
        perm_in = list(range(rank))
        perm_in.append(perm_in.pop(target))
        x = hlo.transpose(x, perm_in)
        return [hlo.fft(x, hlo.FftTypeAttr.get("IRFFT"), [lengths[-1]])]
    return [hlo.fft(x, hlo.FftTypeAttr.get(typ.name), list(lengths))]


fft_p: Primitive = Primitive(
    "fft", _fft_impl, _fft_abstract,
    rules_for=lambda p: Rules(
        jvp=linear_jvp(p), transpose=_fft_t, batch=_fft_batch, lower=_fft_lower, eval_on_device=_eval_on_device
    ),
)


FAMILY = Family("fft", (fft_p,))
