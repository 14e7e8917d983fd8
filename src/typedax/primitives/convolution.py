"""``conv_general_dilated``, every rule for it, and its ``jax.lax`` functions
(``conv_general_dilated``, ``conv``, ``conv_with_general_padding``,
``conv_transpose``, ``conv_dimension_numbers``, ``padtype_to_pads``).

XLA's convolution: the input (``lhs``) is dilated (``lhs_dilation - 1``
zeros between elements), padded (``padding``, negative entries crop), and
each window of the dilated kernel (``rhs``, ``rhs_dilation``) taken every
``window_strides`` elements is contracted with the kernel over the input
features. ``dimension_numbers`` say where the batch, feature and spatial
dimensions of each of the three arrays are (``lhs_spec`` = (batch, feature,
spatial...), ``rhs_spec`` = (out feature, in feature, spatial...),
``out_spec`` = (batch, feature, spatial...)). ``feature_group_count`` G
splits the input features into G groups, each convolved with its own slice
of the kernel's output features; ``batch_group_count`` B does the same with
the input batch (groups outermost in both, as XLA).

Params: ``window_strides``, ``padding`` (pairs), ``lhs_dilation``,
``rhs_dilation``, ``dimension_numbers`` (the three specs as a tuple of
tuples), ``feature_group_count``, ``batch_group_count``, ``precision``
(None or a pair of ``"DEFAULT"``/``"HIGH"``/``"HIGHEST"``) and
``preferred_element_type`` (None or a dtype).

Evaluation is NumPy: dilate and pad the input, take every window as a
strided view (``sliding_window_view``), then per group im2col in blocks of
output positions (each block's windows copied to a (features x kernel
positions, positions) matrix and multiplied by the kernel's matrix; blocks
small enough that OpenBLAS keeps each product on one thread).
The JVP is bilinear; the transposes are JAX's: with respect to the input a
convolution of the cotangent with the reversed kernel (strides become input
dilation), with respect to the kernel a convolution of the input with the
cotangent (strides become kernel dilation), feature groups and batch groups
trading places. Batching folds the mapped axis into the batch or the
feature dimensions (JAX's ``_conv_general_dilated_batch_rule``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, Union

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from numpy.lib.stride_tricks import sliding_window_view

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import COMPLEX, FLOATING, INTEGER, DType, canonicalize_explicit
from ..core.errors import NonLinearError, PrimitiveTypeError, ShapeError
from ..core.ir import Eqn, NDArray, Param, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext, tensor_type
from ._params import _get, get_int, get_ints, params_of
from ._precision import CanonicalPrecision, Precision as Precision, PrecisionLike as PrecisionLike
from ._precision import canonicalize_precision, element_type_param, precision_attr, precision_param, preferred_out_dtype
from .elementwise import add_tangents, convert
from .shaping import rev_p
from .structural import check_arity, primal_aval, reshape, transpose, zero_like, zeros_like_aval

_NAME = "conv_general_dilated"


class ConvDimensionNumbers(NamedTuple):
    """``jax.lax.ConvDimensionNumbers``: ``lhs_spec`` = (batch, feature,
    spatial...), ``rhs_spec`` = (out feature, in feature, spatial...),
    ``out_spec`` = (batch, feature, spatial...), each naming dimensions."""

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]


# -- the params, read and checked once ---------------------------------------------------
class ConvParams(NamedTuple):
    """The params of a ``conv_general_dilated`` equation."""

    window_strides: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]
    lhs_dilation: tuple[int, ...]
    rhs_dilation: tuple[int, ...]
    dimension_numbers: ConvDimensionNumbers
    feature_group_count: int
    batch_group_count: int
    precision: CanonicalPrecision
    preferred_element_type: DType | None

    @staticmethod
    def of(params: Params) -> ConvParams:
        pad = _get(_NAME, params, "padding")
        if not isinstance(pad, tuple) or not all(
            isinstance(p, tuple) and len(p) == 2 and all(type(i) is int for i in p) for p in pad
        ):
            raise PrimitiveTypeError(f"{_NAME}: param 'padding' must be a tuple of (low, high) int pairs, got {pad!r}")
        padding = tuple((int(p[0]), int(p[1])) for p in pad if isinstance(p, tuple) and type(p[0]) is int and type(p[1]) is int)
        dn = _get(_NAME, params, "dimension_numbers")
        specs: list[tuple[int, ...]] = []
        if isinstance(dn, tuple) and len(dn) == 3:
            for s in dn:
                if isinstance(s, tuple) and all(type(i) is int for i in s):
                    specs.append(tuple(i for i in s if type(i) is int))
        if len(specs) != 3:
            raise PrimitiveTypeError(
                f"{_NAME}: param 'dimension_numbers' must be (lhs_spec, rhs_spec, out_spec) tuples of ints, got {dn!r}"
            )
        precision = precision_param(_NAME, _get(_NAME, params, "precision"))
        pet = element_type_param(_NAME, _get(_NAME, params, "preferred_element_type"))
        return ConvParams(
            get_ints(_NAME, params, "window_strides"),
            padding,
            get_ints(_NAME, params, "lhs_dilation"),
            get_ints(_NAME, params, "rhs_dilation"),
            ConvDimensionNumbers(specs[0], specs[1], specs[2]),
            get_int(_NAME, params, "feature_group_count"),
            get_int(_NAME, params, "batch_group_count"),
            precision,
            pet,
        )

    def to_params(self) -> Params:
        dn = self.dimension_numbers
        items: list[tuple[str, Param]] = [
            ("window_strides", tuple(self.window_strides)),
            ("padding", tuple((lo, hi) for lo, hi in self.padding)),
            ("lhs_dilation", tuple(self.lhs_dilation)),
            ("rhs_dilation", tuple(self.rhs_dilation)),
            ("dimension_numbers", (tuple(dn.lhs_spec), tuple(dn.rhs_spec), tuple(dn.out_spec))),
            ("feature_group_count", self.feature_group_count),
            ("batch_group_count", self.batch_group_count),
            ("precision", self.precision),
            ("preferred_element_type", self.preferred_element_type),
        ]
        return params_of(*items)


def _dilate(d: int, k: int) -> int:
    return max(0, 1 + k * (d - 1))


def _check_spec(where: str, what: str, spec: tuple[int, ...], ndim: int) -> None:
    if sorted(spec) != list(range(ndim)):
        raise PrimitiveTypeError(
            f"{where}: dimension_numbers' {what} {spec} must be a permutation of the {ndim} dimensions"
        )


def conv_shape(lhs: ShapedArray, rhs: ShapedArray, c: ConvParams) -> ShapedArray:
    """The output type, or a ``PrimitiveTypeError`` naming what does not fit."""
    dn = c.dimension_numbers
    where = (
        f"{_NAME}(lhs {lhs.str_short()}, rhs {rhs.str_short()}, dimension_numbers={dn}, "
        f"window_strides={c.window_strides}, padding={c.padding}, lhs_dilation={c.lhs_dilation}, "
        f"rhs_dilation={c.rhs_dilation}, feature_group_count={c.feature_group_count}, "
        f"batch_group_count={c.batch_group_count})"
    )
    if lhs.ndim != rhs.ndim:
        raise PrimitiveTypeError(f"{where}: lhs and rhs must have the same rank, got {lhs.ndim} and {rhs.ndim}")
    if lhs.ndim < 2:
        raise PrimitiveTypeError(f"{where}: operands need a batch and a feature dimension (rank >= 2)")
    if lhs.dtype != rhs.dtype:
        raise PrimitiveTypeError(f"{where}: lhs and rhs must have one dtype, got {lhs.dtype.name} and {rhs.dtype.name}")
    if lhs.dtype not in FLOATING | INTEGER | COMPLEX:
        raise PrimitiveTypeError(f"{where}: operands must be integers, floats or complex numbers, got {lhs.dtype.name}")
    nd = lhs.ndim
    n = nd - 2
    _check_spec(where, "lhs_spec", dn.lhs_spec, nd)
    _check_spec(where, "rhs_spec", dn.rhs_spec, nd)
    _check_spec(where, "out_spec", dn.out_spec, nd)
    for what, vals in (("window_strides", c.window_strides), ("lhs_dilation", c.lhs_dilation), ("rhs_dilation", c.rhs_dilation)):
        if len(vals) != n:
            raise PrimitiveTypeError(f"{where}: {what} must have one entry per spatial dimension ({n}), got {vals}")
        if any(v <= 0 for v in vals):
            raise PrimitiveTypeError(f"{where}: {what} must be positive, got {vals}")
    if len(c.padding) != n:
        raise PrimitiveTypeError(f"{where}: padding must have one (low, high) pair per spatial dimension ({n}), got {c.padding}")
    g, b = c.feature_group_count, c.batch_group_count
    if g <= 0 or b <= 0:
        raise PrimitiveTypeError(f"{where}: feature_group_count and batch_group_count must be positive")
    if g > 1 and b > 1:
        raise PrimitiveTypeError(f"{where}: at most one of feature_group_count and batch_group_count may be > 1")
    batch, feat = lhs.shape[dn.lhs_spec[0]], lhs.shape[dn.lhs_spec[1]]
    out_f, in_f = rhs.shape[dn.rhs_spec[0]], rhs.shape[dn.rhs_spec[1]]
    if feat % g:
        raise ShapeError(
            f"{where}: feature_group_count {g} must divide the lhs feature dimension (dimension {dn.lhs_spec[1]}, size {feat})"
        )
    if feat // g != in_f:
        raise ShapeError(
            f"{where}: the lhs feature dimension (dimension {dn.lhs_spec[1]}, size {feat}) divided by "
            f"feature_group_count {g} must equal the rhs input feature dimension (dimension {dn.rhs_spec[1]}, size {in_f})"
        )
    if out_f % g:
        raise ShapeError(
            f"{where}: the rhs output feature dimension (dimension {dn.rhs_spec[0]}, size {out_f}) must be a "
            f"multiple of feature_group_count {g}"
        )
    if batch % b:
        raise ShapeError(
            f"{where}: batch_group_count {b} must divide the lhs batch dimension (dimension {dn.lhs_spec[0]}, size {batch})"
        )
    if out_f % b:
        raise ShapeError(
            f"{where}: the rhs output feature dimension (dimension {dn.rhs_spec[0]}, size {out_f}) must be a "
            f"multiple of batch_group_count {b}"
        )
    out_spatial: list[int] = []
    for i in range(n):
        ld, rd = dn.lhs_spec[2 + i], dn.rhs_spec[2 + i]
        size = _dilate(lhs.shape[ld], c.lhs_dilation[i]) + c.padding[i][0] + c.padding[i][1]
        window = _dilate(rhs.shape[rd], c.rhs_dilation[i])
        if size < 0:
            raise PrimitiveTypeError(
                f"{where}: negative padding {c.padding[i]} is larger than lhs spatial dimension {ld} (size {lhs.shape[ld]})"
            )
        if rhs.shape[rd] == 0:
            raise PrimitiveTypeError(
                f"{where}: the kernel's spatial dimensions must not be empty (rhs dimension {rd} has size 0)"
            )
        if window > size:
            raise PrimitiveTypeError(
                f"{where}: the dilated kernel (rhs dimension {rd}: {window}) is larger than the padded, dilated "
                f"input (lhs dimension {ld}: {size})"
            )
        out_spatial.append((size - window) // c.window_strides[i] + 1)
    canon = (batch // b, out_f, *out_spatial)
    shape = [0] * nd
    for k, d in enumerate(dn.out_spec):
        shape[d] = canon[k]
    return ShapedArray(tuple(shape), preferred_out_dtype(where, lhs.dtype, c.preferred_element_type))


def _abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity(_NAME, avals, 2)
    return [conv_shape(avals[0], avals[1], ConvParams.of(params))]


# -- evaluation (NumPy) ---------------------------------------------------------------
def _padded(x: NDArray, c: ConvParams) -> NDArray:
    """``x`` in (batch, feature, spatial...) order, dilated and padded."""
    if any(d > 1 for d in c.lhs_dilation):
        shape = x.shape[:2] + tuple(_dilate(s, d) for s, d in zip(x.shape[2:], c.lhs_dilation))
        y = np.zeros(shape, x.dtype)
        y[(slice(None), slice(None), *(slice(None, None, d) for d in c.lhs_dilation))] = x
        x = y
    grow = [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in c.padding]
    if any(p != (0, 0) for p in grow):
        x = np.pad(x, grow)
    if any(lo < 0 or hi < 0 for lo, hi in c.padding):
        crop = tuple(slice(max(-lo, 0), x.shape[2 + i] - max(-hi, 0)) for i, (lo, hi) in enumerate(c.padding))
        x = x[(slice(None), slice(None), *crop)]
    return x


def _impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    lhs, rhs = args
    c = ConvParams.of(params)
    out_aval = conv_shape(aval_of(lhs), aval_of(rhs), c)
    dn = c.dimension_numbers
    n = lhs.ndim - 2
    dtype = out_aval.dtype
    # canonical layouts: lhs (N, C, spatial...), rhs (O, I, spatial...), the
    # result (N', O, spatial...); the contraction runs over (feature, kernel
    # position), and each window row copies runs of output positions
    x = np.transpose(lhs, dn.lhs_spec).astype(dtype, copy=False)
    w = np.transpose(rhs, dn.rhs_spec).astype(dtype, copy=False)
    perm = tuple(int(i) for i in np.argsort(dn.out_spec))
    if out_aval.size == 0 or w.shape[1] == 0:
        return [np.zeros(out_aval.shape, dtype)]
    out_sp = tuple(out_aval.shape[d] for d in dn.out_spec[2:])
    ksp = w.shape[2:]
    xp = _padded(x, c)
    win = tuple(_dilate(k, d) for k, d in zip(ksp, c.rhs_dilation))
    views = sliding_window_view(xp, win, axis=tuple(range(2, n + 2)))  # (N, C, pos..., win...)
    sel = (
        slice(None), slice(None),
        *(slice(0, (o - 1) * s + 1, s) for o, s in zip(out_sp, c.window_strides)),
        *(slice(None, None, d) for d in c.rhs_dilation),
    )
    views = np.moveaxis(views[sel], tuple(range(n + 2, 2 * n + 2)), tuple(range(2, n + 2)))  # (N, C, k..., out...)
    g, b = c.feature_group_count, c.batch_group_count
    cg = w.shape[1]
    og = w.shape[0] // max(g, b)
    nb = views.shape[0] // b
    parts: list[NDArray] = []
    for k in range(max(g, b)):
        vk = views[:, k * cg:(k + 1) * cg] if g > 1 else views
        if b > 1:
            vk = vk[k * nb:(k + 1) * nb]
        wk = w[k * og:(k + 1) * og].reshape(og, -1)
        parts.append(_kernel_times_windows(wk, vk))
    res = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)  # (N', O, out...)
    return [np.ascontiguousarray(np.transpose(res, perm), dtype=dtype)]


#: The size (rows x columns x contraction) of the products a block makes:
#: OpenBLAS runs products up to 65536 * 4 on one thread (more threads on
#: products this small cost more than they give, and far more on a busy
#: machine), and the block's copy of its windows stays in cache.
_BLOCK_WORK = 65536 * 4


def _kernel_times_windows(kernel: NDArray, windows: NDArray) -> NDArray:
    """``kernel`` (O, C*k...) times ``windows`` (N, C, k..., out...)
    contracted over (C, k...): (N, O, out...), by im2col a block of output
    positions at a time (each block's windows copied to a (C*k..., positions)
    matrix: runs of consecutive positions)."""
    n = (windows.ndim - 2) // 2
    lead, out_sp = windows.shape[0], windows.shape[n + 2:]
    o, ksize = kernel.shape
    out = np.empty((lead, o) + out_sp, kernel.dtype)
    cols = max(16, _BLOCK_WORK // max(1, o * ksize))  # output positions per block
    per_n = math.prod(out_sp)
    if per_n > cols and n > 0:
        rest = math.prod(out_sp[1:])
        step = max(1, cols // max(1, rest))
        for i in range(lead):
            for j in range(0, out_sp[0], step):
                at: tuple[int | slice, ...] = (i, *([slice(None)] * (n + 1)), slice(j, j + step))
                block = windows[at]
                np.matmul(kernel, block.reshape(ksize, -1), out=out[i, :, j:j + step].reshape(o, -1))
    else:
        step = max(1, cols // max(1, per_n))
        for i in range(0, lead, step):
            block = windows[i:i + step]
            m = block.shape[0]
            np.matmul(kernel, block.reshape(m, ksize, per_n), out=out[i:i + step].reshape(m, o, per_n))
    return out


def conv_(lhs: Value, rhs: Value, c: ConvParams) -> Value:
    return bind1(conv_general_dilated_p, (lhs, rhs), c.to_params())


# -- JVP and transposes -------------------------------------------------------------------
def _jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(conv_general_dilated_p, (x, y), params)
    a: Tangent = tx if isinstance(tx, Zero) else bind1(conv_general_dilated_p, (tx, y), params)
    b: Tangent = ty if isinstance(ty, Zero) else bind1(conv_general_dilated_p, (x, ty), params)
    t = add_tangents(a, b)
    return [out], [zero_like(out) if isinstance(t, Zero) else t]


def _reshape_axis_into(src: int, dst: int, x: Value) -> Value:
    """Merge axis ``src`` into axis ``dst`` (numbered without ``src``), ``src`` major."""
    shape = aval_of(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new = [s for i, s in enumerate(shape) if i != src]
    new[dst] *= shape[src]
    if perm != list(range(len(shape))):
        x = transpose(x, tuple(perm))
    return reshape(x, tuple(new))


def _reshape_axis_out_of(src: int, size1: int, x: Value) -> Value:
    """Split axis ``src`` into (``size1``, rest)."""
    shape = list(aval_of(x).shape)
    size2, ragged = divmod(shape[src], size1)
    assert not ragged
    shape[src:src + 1] = [size1, size2]
    return reshape(x, tuple(shape))


def _spec_t(spec: tuple[int, ...]) -> tuple[int, ...]:
    return (spec[1], spec[0]) + spec[2:]


def _transpose_lhs(ct: Value, lhs_aval: ShapedArray, rhs: Value, c: ConvParams) -> Value:
    if lhs_aval.size == 0:  # (the transposed convolution of an empty input may not fit its window)
        return zeros_like_aval(lhs_aval)
    dn = c.dimension_numbers
    lhs_spec, rhs_spec, out_spec = dn
    rhs_shape = aval_of(rhs).shape
    g, b = c.feature_group_count, c.batch_group_count
    groups = g
    if g > 1 or b > 1:
        groups = max(g, b)
        rhs = _reshape_axis_out_of(rhs_spec[0], groups, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    ct_shape = aval_of(ct).shape
    padding = []
    for i in range(len(c.window_strides)):
        ld = _dilate(lhs_aval.shape[lhs_spec[2 + i]], c.lhs_dilation[i])
        rd = _dilate(rhs_shape[rhs_spec[2 + i]], c.rhs_dilation[i])
        od = _dilate(ct_shape[out_spec[2 + i]], c.window_strides[i])
        before = rd - c.padding[i][0] - 1
        padding.append((before, ld + rd - 1 - od - before))
    revd: Value = bind1(rev_p, (rhs,), params_of(("dimensions", tuple(sorted(rhs_spec[2:])))))
    if aval_of(ct).dtype != aval_of(revd).dtype:
        revd = convert(revd, aval_of(ct).dtype)
    t = ConvParams(
        c.lhs_dilation, tuple(padding), c.window_strides, c.rhs_dilation,
        ConvDimensionNumbers(out_spec, _spec_t(rhs_spec), lhs_spec), groups, 1, c.precision,
        c.preferred_element_type,
    )
    out = conv_(ct, revd, t)
    if aval_of(out).dtype != lhs_aval.dtype:
        out = convert(out, lhs_aval.dtype)
    if b > 1:
        out = _reshape_axis_out_of(lhs_spec[1], b, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return out


def _transpose_rhs(ct: Value, lhs: Value, rhs_aval: ShapedArray, c: ConvParams) -> Value:
    ca = aval_of(ct)
    if ca.size == 0:
        return zeros_like_aval(rhs_aval)
    dn = c.dimension_numbers
    lhs_spec, rhs_spec, out_spec = dn
    la = aval_of(lhs)
    g, b = c.feature_group_count, c.batch_group_count
    fg, bg = (b, 1) if b > 1 else (1, g)
    padding = []
    for i in range(len(c.window_strides)):
        ld = _dilate(la.shape[lhs_spec[2 + i]], c.lhs_dilation[i])
        rd = _dilate(rhs_aval.shape[rhs_spec[2 + i]], c.rhs_dilation[i])
        od = _dilate(ca.shape[out_spec[2 + i]], c.window_strides[i])
        lo = c.padding[i][0]
        padding.append((lo, od - ld + rd - lo - 1))
    if la.dtype != ca.dtype:
        lhs = convert(lhs, ca.dtype)
    t = ConvParams(
        c.rhs_dilation, tuple(padding), c.lhs_dilation, c.window_strides,
        ConvDimensionNumbers(_spec_t(lhs_spec), _spec_t(out_spec), _spec_t(rhs_spec)), fg, bg,
        c.precision, c.preferred_element_type,
    )
    out = conv_(lhs, ct, t)
    if aval_of(out).dtype != rhs_aval.dtype:
        out = convert(out, rhs_aval.dtype)
    return out


def _transpose(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    lhs, rhs = ps
    c = ConvParams.of(params)
    if isinstance(lhs, UndefPrimal) and isinstance(rhs, UndefPrimal):
        raise NonLinearError(_NAME, "both operands are linear values")
    if isinstance(lhs, UndefPrimal):
        assert not isinstance(rhs, UndefPrimal)
        return [_transpose_lhs(ct, lhs.aval, rhs, c), None]
    assert isinstance(rhs, UndefPrimal)
    return [None, _transpose_rhs(ct, lhs, rhs.aval, c)]


# -- batching ---------------------------------------------------------------------------
def _batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    lhs, rhs = vals
    bl, br = dims
    c = ConvParams.of(params)
    lhs_spec, rhs_spec, out_spec = c.dimension_numbers
    if bl is None and br is None:
        return [conv_(lhs, rhs, c)], [None]
    la, ra = aval_of(lhs), aval_of(rhs)
    if size == 0:
        ul = la if bl is None else ShapedArray(la.shape[:bl] + la.shape[bl + 1:], la.dtype)
        ur = ra if br is None else ShapedArray(ra.shape[:br] + ra.shape[br + 1:], ra.dtype)
        oa = conv_shape(ul, ur, c)
        return [zeros_like_aval(ShapedArray((0,) + oa.shape, oa.dtype))], [0]
    g, b = c.feature_group_count, c.batch_group_count
    if bl is not None and br is not None:
        if b > 1:
            new_lhs = _reshape_axis_into(bl, lhs_spec[0], lhs)
            c2 = c._replace(batch_group_count=b * size)
        else:
            new_lhs = _reshape_axis_into(bl, lhs_spec[1], lhs)
            c2 = c._replace(feature_group_count=g * size)
        new_rhs = _reshape_axis_into(br, rhs_spec[0], rhs)
        out = conv_(new_lhs, new_rhs, c2)
        return [_reshape_axis_out_of(out_spec[1], size, out)], [out_spec[1]]
    if bl is not None:
        if b == 1:
            new_lhs = _reshape_axis_into(bl, lhs_spec[0], lhs)
        else:
            new_lhs = _reshape_axis_out_of(lhs_spec[0] + int(bl <= lhs_spec[0]), b, lhs)
            new_lhs = _reshape_axis_into(bl + int(lhs_spec[0] < bl), lhs_spec[0] + 1, new_lhs)
            new_lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
        out = conv_(new_lhs, rhs, c)
        return [_reshape_axis_out_of(out_spec[0], size, out)], [out_spec[0]]
    assert br is not None
    if g == 1 and b == 1:
        new_rhs = _reshape_axis_into(br, rhs_spec[0], rhs)
        out = conv_(lhs, new_rhs, c)
        return [_reshape_axis_out_of(out_spec[1], size, out)], [out_spec[1]]
    groups = max(g, b)
    new_rhs = _reshape_axis_out_of(rhs_spec[0] + int(br <= rhs_spec[0]), groups, rhs)
    new_rhs = _reshape_axis_into(br + int(rhs_spec[0] < br), rhs_spec[0] + 1, new_rhs)
    new_rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = conv_(lhs, new_rhs, c)
    out = _reshape_axis_out_of(out_spec[1], groups, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, size, out)
    out = _reshape_axis_into(out_spec[1], out_spec[1] + 1, out)
    return [out], [out_spec[1]]


# -- lowering ----------------------------------------------------------------------------
def _lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    c = ConvParams.of(eqn.params)
    out_aval = eqn.out_binders[0].aval
    if ctx.platform != "cpu" and out_aval.dtype in COMPLEX:
        return [_lower_complex_as_real(c, out_aval, args[0], args[1])]
    return [_convolution(c, tensor_type(out_aval), args[0], args[1])]


def _lower_complex_as_real(c: ConvParams, out_aval: ShapedArray, lhs: HloValue, rhs: HloValue) -> HloValue:
    """A complex convolution as three real ones, for XLA's GPU backend,
    which refuses complex convolutions (JAX's ``expand_complex_convolutions``
    on its GPU lowering, with the same product trick, so the rounding is
    JAX's): with x = a + ib and w = c + id, k1 = (a + b) * c,
    k2 = a * (d - c), k3 = b * (c + d); x * w = (k1 - k3) + i (k1 + k2)."""
    real_aval = ShapedArray(out_aval.shape, np.dtype(np.float64 if out_aval.dtype == np.complex128 else np.float32))
    real_type = tensor_type(real_aval)
    a, b = hlo.real(lhs), hlo.imag(lhs)
    wc, wd = hlo.real(rhs), hlo.imag(rhs)
    k1 = _convolution(c, real_type, hlo.add(a, b), wc)
    k2 = _convolution(c, real_type, a, hlo.subtract(wd, wc))
    k3 = _convolution(c, real_type, b, hlo.add(wc, wd))
    return hlo.complex(hlo.subtract(k1, k3), hlo.add(k1, k2))


def _convolution(c: ConvParams, out_type: ir.Type, lhs: HloValue, rhs: HloValue) -> HloValue:
    """``stablehlo.convolution`` of ``lhs`` and ``rhs`` with the params ``c``."""
    lhs_spec, rhs_spec, out_spec = c.dimension_numbers
    n = len(c.window_strides)
    dnums = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=lhs_spec[0],
        input_feature_dimension=lhs_spec[1],
        input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_input_feature_dimension=rhs_spec[1],
        kernel_output_feature_dimension=rhs_spec[0],
        kernel_spatial_dimensions=list(rhs_spec[2:]),
        output_batch_dimension=out_spec[0],
        output_feature_dimension=out_spec[1],
        output_spatial_dimensions=list(out_spec[2:]),
    )
    pads = np.array(c.padding, np.int64).reshape(n, 2)
    i64 = ir.IntegerType.get_signless(64)
    return hlo.convolution(
        out_type, lhs, rhs, dnums,
        ir.IntegerAttr.get(i64, c.feature_group_count), ir.IntegerAttr.get(i64, c.batch_group_count),
        window_strides=list(c.window_strides),
        padding=ir.DenseIntElementsAttr.get(pads),  # type: ignore[call-overload]  # a NumPy array is a Buffer at run time
        lhs_dilation=list(c.lhs_dilation),
        rhs_dilation=list(c.rhs_dilation),
        window_reversal=[False] * n,
        precision_config=precision_attr(c.precision),
    )


conv_general_dilated_p = Primitive(
    _NAME, _impl, _abstract,
    Rules(jvp=_jvp, transpose=_transpose, batch=_batch, lower=_lower),
)

FAMILY = Family("convolution", (conv_general_dilated_p,))


# -- the jax.lax functions ----------------------------------------------------------------
def conv_general_permutations(
    dimension_numbers: tuple[str, str, str],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The (lhs, rhs, out) specs of three dimension strings (``'NHWC'`` ...)."""
    lhs_s, rhs_s, out_s = dimension_numbers
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(pairs):
        s = dimension_numbers[i]
        if not s.count(a) == s.count(b) == 1:
            raise PrimitiveTypeError(
                f"convolution dimension_numbers[{i}] must contain the characters '{a}' and '{b}' exactly once, got {s!r}"
            )
        if len(s) != len(set(s)):
            raise PrimitiveTypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, got {s!r}")
    if not set(lhs_s) - {"N", "C"} == set(rhs_s) - {"O", "I"} == set(out_s) - {"N", "C"}:
        raise PrimitiveTypeError(
            f"convolution dimension_numbers must each have the same set of spatial characters, got {dimension_numbers}"
        )

    def perm(spec: str, pair: tuple[str, str]) -> tuple[int, ...]:
        spatial = [i for i, ch in enumerate(spec) if ch not in pair]
        if spec is not rhs_s:
            spatial.sort(key=lambda i: rhs_s.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)

    return perm(lhs_s, pairs[0]), perm(rhs_s, pairs[1]), perm(out_s, pairs[2])


def conv_dimension_numbers(
    lhs_shape: Sequence[int], rhs_shape: Sequence[int], dimension_numbers: ConvGeneralDilatedDimensionNumbers,
) -> ConvDimensionNumbers:
    """``jax.lax.conv_dimension_numbers``: None (``NC...``/``OI...``), three
    strings such as ``('NHWC', 'HWIO', 'NHWC')``, or a ``ConvDimensionNumbers``."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return ConvDimensionNumbers(*(tuple(int(i) for i in s) for s in dimension_numbers))
    if len(lhs_shape) != len(rhs_shape):
        raise PrimitiveTypeError(
            f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and {len(rhs_shape)}"
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    given: object = dimension_numbers  # users pass lists too
    if not isinstance(given, (tuple, list)) or len(given) != 3:
        raise PrimitiveTypeError(
            f"convolution dimension_numbers must be None, a ConvDimensionNumbers or three strings, got {dimension_numbers!r}"
        )
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise PrimitiveTypeError(f"convolution dimension_numbers elements must be strings, got {dimension_numbers!r}")
    for i, s in enumerate(dimension_numbers):
        if len(s) != len(lhs_shape):
            raise PrimitiveTypeError(
                f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and rhs, got {len(s)} "
                f"for lhs and rhs shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}"
            )
    lhs_s, rhs_s, out_s = conv_general_permutations((dimension_numbers[0], dimension_numbers[1], dimension_numbers[2]))
    return ConvDimensionNumbers(lhs_s, rhs_s, out_s)


def conv_shape_tuple(
    lhs_shape: Sequence[int], rhs_shape: Sequence[int], strides: Sequence[int],
    pads: str | Sequence[tuple[int, int]], batch_group_count: int = 1,
) -> tuple[int, ...]:
    """``jax.lax.conv_shape_tuple``: the output shape of a convolution of
    shapes in canonical order ((N, C, spatial...) and (O, I, spatial...))."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise PrimitiveTypeError(
            f"Wrong number of explicit pads for convolution: expected {len(lhs_shape) - 2}, got {len(pads)}"
        )
    padded = [int(d) + int(lo) + int(hi) for d, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(p < 0 for p in padded):
        raise PrimitiveTypeError(
            f"Negative padding is larger than the size of the corresponding dimension: got padding={list(pads)} "
            f"for lhs_shape[2:]={tuple(lhs_shape[2:])}"
        )
    space = tuple(max(0, (p - int(k)) // int(s) + 1) for p, k, s in zip(padded, rhs_shape[2:], strides))
    batch = int(lhs_shape[0]) // batch_group_count if batch_group_count > 1 else int(lhs_shape[0])
    return (batch, int(rhs_shape[0])) + space


def _take(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(shape[i]) for i in perm)


def _untake(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    out = [0] * len(perm)
    for k, d in enumerate(perm):
        out[d] = int(shape[k])
    return tuple(out)


def conv_general_shape_tuple(
    lhs_shape: Sequence[int], rhs_shape: Sequence[int], window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]], dimension_numbers: tuple[str, str, str],
) -> tuple[int, ...]:
    """``jax.lax.conv_general_shape_tuple``: the output shape of
    ``conv_general_dilated`` with dimension strings (no dilation)."""
    lp, rp, op = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(_take(lhs_shape, lp), _take(rhs_shape, rp), window_strides, padding)
    return _untake(out, op)


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int], rhs_shape: Sequence[int], window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]], dimension_numbers: tuple[str, str, str],
) -> tuple[int, ...]:
    """``jax.lax.conv_transpose_shape_tuple``: the output shape of ``conv_transpose``."""
    lp, rp, op = conv_general_permutations(dimension_numbers)
    lt, rt = _take(lhs_shape, lp), _take(rhs_shape, rp)
    if isinstance(padding, str):
        pads = [_conv_transpose_padding(k, s, padding) for k, s in zip(rt[2:], window_strides)]
    else:
        pads = [(int(lo), int(hi)) for lo, hi in padding]
    space = tuple((i - 1) * s - k + 2 + lo + hi for i, k, s, (lo, hi) in zip(lt[2:], rt[2:], window_strides, pads))
    return _untake((lt[0], rt[0]) + space, op)


def conv_general_dilated_patches(
    lhs: ArrayLike, filter_shape: Sequence[int], window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    precision: str | Precision | None = None,
    preferred_element_type: DType | type | str | None = None,
) -> Array:
    """``jax.lax.conv_general_dilated_patches``: the patches a convolution
    with ``filter_shape`` would see, flattened into the output's feature
    dimension (input feature major, then the filter's spatial positions in
    ``rhs_spec`` order): a convolution with a one-hot kernel, one feature group
    per input feature."""
    la = aval_of(lhs)
    fshape = tuple(int(k) for k in filter_shape)
    dn = conv_dimension_numbers(la.shape, (1, 1) + fshape, dimension_numbers)
    size = math.prod(fshape)
    channels = la.shape[dn.lhs_spec[1]]
    eye = np.broadcast_to(np.eye(size, dtype=la.dtype), (channels, size, size))
    rhs = np.moveaxis(eye.reshape((channels * size, 1) + fshape), (0, 1), (dn.rhs_spec[0], dn.rhs_spec[1]))
    return conv_general_dilated(
        lhs, np.ascontiguousarray(rhs), window_strides, padding, lhs_dilation, rhs_dilation, dn,
        feature_group_count=channels,
        # (the image's precision, the one-hot kernel's DEFAULT: a pair of enums)
        precision=None if precision is None else (
            precision if isinstance(precision, Precision)
            else Precision[canonicalize_precision(precision, "conv_general_dilated_patches")[0]],  # type: ignore[index]  # a name: not None
            Precision.DEFAULT),
        preferred_element_type=preferred_element_type,
    )


def padtype_to_pads(
    in_shape: Sequence[int], window_shape: Sequence[int], window_strides: Sequence[int], padding: str,
) -> list[tuple[int, int]]:
    """``jax.lax.padtype_to_pads``: ``'VALID'``, ``'SAME'`` or ``'SAME_LOWER'``
    as (low, high) pairs per spatial dimension."""
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise PrimitiveTypeError(f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding!r}")
    pads: list[tuple[int, int]] = []
    for d, k, s in zip(in_shape, window_shape, window_strides):
        out = -(-int(d) // int(s))
        total = max((out - 1) * int(s) + int(k) - int(d), 0)
        pads.append((total // 2, total - total // 2) if kind == "SAME" else (total - total // 2, total // 2))
    return pads


def _ints(what: str, xs: Sequence[int] | None, n: int) -> tuple[int, ...]:
    if xs is None:
        return (1,) * n
    try:
        return tuple(int(i) for i in xs)
    except (TypeError, ValueError):
        raise PrimitiveTypeError(f"{_NAME}: {what} must be a sequence of ints, got {xs!r}") from None


def conv_general_dilated(
    lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    feature_group_count: int = 1, batch_group_count: int = 1,
    precision: PrecisionLike = None,
    preferred_element_type: DType | type | str | None = None,
) -> Array:
    """``jax.lax.conv_general_dilated``: general n-d convolution with dilation."""
    la, ra = aval_of(lhs), aval_of(rhs)
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    n = max(ra.ndim - 2, 0)
    ld = _ints("lhs_dilation", lhs_dilation, n)
    rd = _ints("rhs_dilation", rhs_dilation, n)
    strides = _ints("window_strides", window_strides, n)
    if isinstance(padding, str):
        if any(d != 1 for d in ld):
            raise PrimitiveTypeError(
                f"{_NAME}: string padding is not implemented for transposed convolution (lhs_dilation {ld}); "
                "give the padding explicitly or use conv_transpose"
            )
        if len(rd) != n or len(strides) != n or len(dn.lhs_spec) != la.ndim or len(dn.rhs_spec) != ra.ndim:
            raise PrimitiveTypeError(
                f"{_NAME}: window_strides {strides} and rhs_dilation {rd} must have one entry per spatial dimension ({n})"
            )
        k = [_dilate(ra.shape[dn.rhs_spec[2 + i]], rd[i]) for i in range(n)]
        pads = padtype_to_pads([la.shape[dn.lhs_spec[2 + i]] for i in range(n)], k, strides, padding)
    else:
        try:
            pads = [(int(lo), int(hi)) for lo, hi in padding]
        except (TypeError, ValueError):
            raise PrimitiveTypeError(
                f"{_NAME}: padding must be 'SAME', 'SAME_LOWER', 'VALID' or a sequence of (low, high) pairs, got {padding!r}"
            ) from None
    pet = None if preferred_element_type is None else canonicalize_explicit(np.dtype(preferred_element_type), _NAME)
    c = ConvParams(
        strides, tuple(pads), ld, rd, dn, int(feature_group_count), int(batch_group_count),
        canonicalize_precision(precision, _NAME), pet,
    )
    return bind1(conv_general_dilated_p, (lhs, rhs), c.to_params())


def conv(
    lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int], padding: str,
    precision: PrecisionLike = None, preferred_element_type: DType | type | str | None = None,
) -> Array:
    """``jax.lax.conv``: NCHW input, OIHW kernel, no dilation."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(
    lhs: ArrayLike, rhs: ArrayLike, window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None, rhs_dilation: Sequence[int] | None,
    precision: PrecisionLike = None, preferred_element_type: DType | type | str | None = None,
) -> Array:
    """``jax.lax.conv_with_general_padding``."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding: str | tuple[int, int]) -> tuple[int, int]:
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else -(-pad_len // 2)
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = (k - padding[0] - 1, k - padding[1] - 1)
        pad_a = pads[0]
        pad_len = pads[0] + pads[1]
    else:
        raise PrimitiveTypeError(f"conv_transpose: invalid padding mode {padding!r}")
    return pad_a, pad_len - pad_a


_TRANSPOSE_DEFAULTS = {
    2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC"),
}


def conv_transpose(
    lhs: ArrayLike, rhs: ArrayLike, strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
    transpose_kernel: bool = False,
    precision: PrecisionLike = None,
    preferred_element_type: DType | type | str | None = None,
    use_consistent_padding: bool = False,
) -> Array:
    """``jax.lax.conv_transpose``: the fractionally strided convolution
    (TensorFlow's layouts by default; ``transpose_kernel`` flips the kernel's
    spatial dimensions and swaps its feature dimensions, as Keras)."""
    la, ra = aval_of(lhs), aval_of(rhs)
    if la.ndim != ra.ndim or la.ndim < 2:
        raise PrimitiveTypeError(
            f"conv_transpose: lhs and rhs must have one rank >= 2, got {la.str_short()} and {ra.str_short()}"
        )
    nd = la.ndim
    if dimension_numbers is None:
        if nd not in _TRANSPOSE_DEFAULTS:
            raise PrimitiveTypeError(f"conv_transpose: no default dimension_numbers for rank {nd}")
        dimension_numbers = _TRANSPOSE_DEFAULTS[nd]
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    ks = [ra.shape[d] for d in dn.rhs_spec[2:]]
    n = nd - 2
    rd = _ints("rhs_dilation", rhs_dilation, n)
    st = _ints("strides", strides, n)
    pads: str | Sequence[tuple[int, int]]
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        per_dim: list[str | tuple[int, int]] = (
            [padding] * n if isinstance(padding, str) else [(int(lo), int(hi)) for lo, hi in padding]
        )
        pads = [_conv_transpose_padding(_dilate(k, r), s, p) for k, r, s, p in zip(ks, rd, st, per_dim)]
    else:
        pads = padding
    if transpose_kernel:
        rhs = bind1(rev_p, (rhs,), params_of(("dimensions", tuple(sorted(dn.rhs_spec[2:])))))
        perm = list(range(nd))
        a, b = dn.rhs_spec[0], dn.rhs_spec[1]
        perm[a], perm[b] = b, a
        rhs = transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, (1,) * n, pads, st, rd, dn, precision=precision,
                                preferred_element_type=preferred_element_type)
