"""``jax.image``: resizing, scaling and translating images (issue 29 item 7).

JAX's algorithm (``jax/_src/image/scale.py``): for each spatial dimension a
weight matrix from input to output positions, sampled from a kernel
(triangle, Keys cubic, OpenCV's cubic, Lanczos, or the area of overlap) and
normalized per output pixel, is contracted with the image; ``nearest``
gathers the nearest input pixel instead. Half-pixel centres, as JAX's;
output pixels whose sample falls outside the input get zero weight (unless
edge padding: ``cubic-pytorch`` without antialiasing).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence

import numpy as np

from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType, is_inexact
from ..core.trace import Tracer

Kernel = Callable[[Array], Array]


class ResizeMethod(enum.Enum):
    """``jax.image.ResizeMethod``: the resampling methods."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method named ``s`` (JAX's names and aliases)."""
        if s == "nearest":
            return ResizeMethod.NEAREST
        if s in ("linear", "bilinear", "trilinear", "triangle"):
            return ResizeMethod.LINEAR
        if s == "lanczos3":
            return ResizeMethod.LANCZOS3
        if s == "lanczos5":
            return ResizeMethod.LANCZOS5
        if s in ("cubic", "bicubic", "tricubic"):
            return ResizeMethod.CUBIC
        if s in ("cubic-pytorch", "bicubic-pytorch"):
            return ResizeMethod.CUBIC_PYTORCH
        if s == "area":
            return ResizeMethod.AREA
        raise ValueError(f'Unknown resize method "{s}"')


def _lanczos(radius: float) -> Kernel:
    def kernel(x: Array) -> Array:
        y = radius * tnp.sin(np.pi * x) * tnp.sin(np.pi * x / radius)
        out = tnp.where(x > 1e-3, tnp.divide(y, tnp.where(x != 0, np.pi**2 * x**2, 1)), 1)
        return tnp.where(x > radius, 0.0, out)

    return kernel


def _keys_cubic(x: Array) -> Array:
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = tnp.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return tnp.where(x >= 2.0, 0.0, out)


def _opencv_cubic(x: Array) -> Array:
    a = -0.75
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = tnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return tnp.where(x >= 2.0, 0.0, out)


def _triangle(x: Array) -> Array:
    return tnp.maximum(0, 1 - tnp.abs(x))


#: the radius and kernel of each method; ``None``: the area of overlap
_KERNELS: dict[ResizeMethod, tuple[int, Kernel | None]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, None),
}

_EPS_SUM = 1000.0 * float(np.finfo(np.float32).eps)


def _normalized(weights: Array) -> Array:
    total = tnp.sum(weights, axis=0, keepdims=True)
    return tnp.where(tnp.abs(total) > _EPS_SUM, tnp.divide(weights, tnp.where(total != 0, total, 1)), 0)


def compute_weight_mat(
    input_size: int, output_size: int, scale: ArrayLike, translation: ArrayLike,
    kernel: Kernel | None, antialias: bool, edge_padding: bool, radius: int,
) -> Array:
    """The ``[input_size, output_size]`` weights of one spatial dimension
    (JAX's ``compute_weight_mat``)."""
    dtype = tnp.result_type(scale, translation)
    inv_scale = 1.0 / tnp.asarray(scale, dtype)
    kernel_scale = tnp.maximum(inv_scale, 1.0) if antialias else 1.0
    sample_f = (tnp.arange(output_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    if edge_padding:
        if antialias:
            if isinstance(scale, Tracer):
                raise TypeError("Antialiasing with edge padding requires a static scale.")
            k = math.ceil(radius * max(1.0 / float(np.asarray(scale)), 1.0))
        else:
            k = radius
    else:
        k = 0
    expanded = tnp.arange(-k, input_size + k, dtype=dtype)
    if kernel is None:  # the area of overlap of output and input pixels
        left_i = tnp.arange(output_size, dtype=dtype) * inv_scale - translation * inv_scale
        right_i = left_i + inv_scale
        left_j = tnp.arange(input_size, dtype=dtype)
        right_j = left_j + 1.0
        weights = tnp.maximum(
            0.0,
            tnp.minimum(right_i[None, :], right_j[:, None]) - tnp.maximum(left_i[None, :], left_j[:, None]),
        )
    else:
        weights = kernel(tnp.abs(sample_f[None, :] - expanded[:, None]) / kernel_scale)
    if edge_padding:
        clamped = tnp.clip(expanded.astype(np.int32), 0, input_size - 1)
        out_idx = tnp.broadcast_to(tnp.arange(output_size)[None, :], (expanded.shape[0], output_size))
        weight_mat = tnp.zeros((input_size, output_size), dtype=dtype).at[clamped[:, None], out_idx].add(weights)
        return _normalized(weight_mat)
    weights = _normalized(weights)
    inside = tnp.logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return tnp.where(inside[None, :], weights, 0)


def _inexact(x: ArrayLike) -> Array:
    a = tnp.asarray(x)
    return a if is_inexact(a.dtype) else a.astype(tnp.result_type(float))


def _scale_and_translate(
    x: Array, shape: tuple[int, ...], spatial_dims: Sequence[int], scale: Sequence[ArrayLike],
    translation: Sequence[ArrayLike], kernel: Kernel | None, antialias: bool,
    edge_padding: bool, radius: int,
) -> Array:
    for i, d in enumerate(spatial_dims):
        d = d % x.ndim
        w = compute_weight_mat(
            x.shape[d], shape[d], scale[i], translation[i], kernel, antialias, edge_padding, radius
        ).astype(x.dtype)
        x = tnp.moveaxis(tnp.tensordot(x, w, axes=([d], [0])), -1, d)
    return x


def _method(method: str | ResizeMethod) -> ResizeMethod:
    if isinstance(method, str):
        return ResizeMethod.from_string(method)
    if not isinstance(method, ResizeMethod):
        raise TypeError(f"method must be a string or a ResizeMethod, got {method!r}")
    return method


def _check_shape(shape: Sequence[int], image: Array) -> tuple[int, ...]:
    out = tuple(int(s) for s in shape)
    if len(out) != image.ndim:
        raise ValueError(
            "shape must have length equal to the number of dimensions of x; "
            f" {out} vs {image.shape}"
        )
    return out


def scale_and_translate(
    image: ArrayLike, shape: Sequence[int], spatial_dims: Sequence[int], scale: ArrayLike,
    translation: ArrayLike, method: str | ResizeMethod, antialias: bool = True,
    precision: object = None,
) -> Array:
    """``jax.image.scale_and_translate``: resample ``image`` into ``shape``,
    mapping an input location ``x`` of spatial dimension ``spatial_dims[i]``
    to ``x * scale[i] + translation[i]`` (half-pixel centres; output pixels
    sampled outside the input are zero). Every method but ``nearest``.
    ``precision`` is accepted for JAX's signature; the products are at full
    precision."""
    img = tnp.asarray(image)
    out_shape = _check_shape(shape, img)
    m = _method(method)
    if m == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported for scale_and_translate.")
    if m == ResizeMethod.CUBIC_PYTORCH and antialias:
        m = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[m]
    edge_padding = m == ResizeMethod.CUBIC_PYTORCH and not antialias
    sc, tr = _inexact(scale), _inexact(translation)
    common: DType = tnp.result_type(sc, tr)
    sc, tr = sc.astype(common), tr.astype(common)
    dims = tuple(spatial_dims)
    if sc.shape != (len(dims),) or tr.shape != (len(dims),):
        raise ValueError(
            f"scale and translation must have one entry per spatial dimension ({len(dims)}); "
            f"got shapes {sc.shape} and {tr.shape}"
        )
    return _scale_and_translate(
        _inexact(img), out_shape, dims, [sc[i] for i in range(len(dims))], [tr[i] for i in range(len(dims))],
        kernel, antialias, edge_padding, radius,
    )


def _resize_nearest(x: Array, shape: tuple[int, ...]) -> Array:
    for d in range(x.ndim):
        m, n = x.shape[d], shape[d]
        if m == n:
            continue
        offsets = np.floor(((np.arange(n, dtype=np.float32) + 0.5) * m / n).astype(np.float32)).astype(np.int32)
        x = tnp.take(x, offsets, axis=d)
    return x


def resize(
    image: ArrayLike, shape: Sequence[int], method: str | ResizeMethod, antialias: bool = True,
    precision: object = None,
) -> Array:
    """``jax.image.resize``: ``image`` resampled to ``shape`` by ``method``
    (``nearest``, ``linear``/``bilinear``/``trilinear``, ``cubic``/``bicubic``,
    ``cubic-pytorch``, ``lanczos3``, ``lanczos5``, ``area``, or a
    ``ResizeMethod``), with half-pixel centres; ``antialias`` widens the
    kernel when downsampling (not for ``nearest``). Every dimension whose
    size changes is resampled, as JAX's. ``precision`` is accepted for JAX's
    signature; the products are at full precision."""
    img = tnp.asarray(image)
    out_shape = _check_shape(shape, img)
    m = _method(method)
    if m == ResizeMethod.NEAREST:
        return _resize_nearest(img, out_shape)
    img = _inexact(img)
    dims = tuple(i for i in range(img.ndim) if img.shape[i] != out_shape[i])
    if m == ResizeMethod.CUBIC_PYTORCH and antialias:
        m = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[m]
    scale: list[ArrayLike] = [1.0 if out_shape[d] == 0 else out_shape[d] / img.shape[d] for d in dims]
    edge_padding = m == ResizeMethod.CUBIC_PYTORCH and not antialias
    return _scale_and_translate(img, out_shape, dims, scale, [0.0] * len(dims), kernel, antialias, edge_padding, radius)
