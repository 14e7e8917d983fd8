"""Parameter initializers, as ``jax.nn.initializers`` (the face
``typedax/nn/initializers.py`` re-exports them, as ``typedax.nn.initializers``).

Each builder returns an ``Initializer``: a function ``init(key, shape,
dtype=None)`` drawing an array of ``shape`` with ``typedax.random``, so for
the same key it gives what JAX's gives. ``dtype=None`` is the default float
type (float64, or float32 with x64 off).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, Protocol, TypeAlias

import numpy as np

from .. import lax
from .. import numpy as tnp
from .. import random
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType, canonicalize_explicit, default_float
from ..core.errors import RandomKeyError


DTypeLike: TypeAlias = "DType | type | str"
Axes: TypeAlias = "int | Sequence[int]"


class Initializer(Protocol):
    """``init(key, shape, dtype=None) -> Array``."""

    def __call__(self, key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = None) -> Array: ...


def _dtype(dtype: DTypeLike | None) -> DType:
    return default_float() if dtype is None else canonicalize_explicit(np.dtype(dtype), "initializer")


def zeros(key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = None) -> Array:
    """An initializer that returns zeros (``jax.nn.initializers.zeros``)."""
    return tnp.zeros(tuple(shape), _dtype(dtype))


def ones(key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = None) -> Array:
    """An initializer that returns ones (``jax.nn.initializers.ones``)."""
    return tnp.ones(tuple(shape), _dtype(dtype))


def constant(value: ArrayLike, dtype: DTypeLike | None = None) -> Initializer:
    """An initializer filling with ``value``."""
    default = dtype

    def init(key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = default) -> Array:
        return tnp.full(tuple(shape), value, _dtype(dtype))

    return init


def uniform(scale: float = 1e-2, dtype: DTypeLike | None = None) -> Initializer:
    """Uniform values in ``[0, scale)``."""
    default = dtype

    def init(key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = default) -> Array:
        d = _dtype(dtype)
        return lax.mul(random.uniform(key, shape, d), np.asarray(scale, d))

    return init


def normal(stddev: float = 1e-2, dtype: DTypeLike | None = None) -> Initializer:
    """Normal values with mean 0 and standard deviation ``stddev``."""
    default = dtype

    def init(key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = default) -> Array:
        d = _dtype(dtype)
        return lax.mul(random.normal(key, shape, d), np.asarray(stddev, d))

    return init


def truncated_normal(stddev: float = 1e-2, dtype: DTypeLike | None = None,
                     lower: float = -2.0, upper: float = 2.0) -> Initializer:
    """Normal values truncated to ``(lower, upper)``, times ``stddev``."""
    default = dtype

    def init(key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = default) -> Array:
        d = _dtype(dtype)
        return lax.mul(random.truncated_normal(key, lower, upper, shape, d), np.asarray(stddev, d))

    return init


def _axes(a: Axes, shape: tuple[int, ...]) -> int:
    return shape[a] if isinstance(a, int) else math.prod(shape[i] for i in a)


def _compute_fans(shape: tuple[int, ...], in_axis: Axes = -2, out_axis: Axes = -1,
                  batch_axis: Axes = ()) -> tuple[float, float]:
    """Fan in and fan out of a dense or convolution kernel (JAX's ``_compute_fans``)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise RandomKeyError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights tensor with "
            "default in_axis. Must be at least 2D or specify in_axis explicitly."
        )
    in_size, out_size, batch_size = _axes(in_axis, shape), _axes(out_axis, shape), _axes(batch_axis, shape)
    receptive = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive, out_size * receptive


Mode = Literal["fan_in", "fan_out", "fan_avg", "fan_geo_avg"]
Distribution = Literal["truncated_normal", "normal", "uniform"]


def variance_scaling(
    scale: float, mode: Mode, distribution: Distribution, in_axis: Axes = -2, out_axis: Axes = -1,
    batch_axis: Axes = (), dtype: DTypeLike | None = None,
) -> Initializer:
    """Values with variance ``scale / n``, ``n`` the fan chosen by ``mode``
    (``jax.nn.initializers.variance_scaling``)."""
    if mode not in ("fan_in", "fan_out", "fan_avg", "fan_geo_avg"):
        raise RandomKeyError(f"invalid mode for variance scaling initializer: {mode}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise RandomKeyError(f"invalid distribution for variance scaling initializer: {distribution}")
    default = dtype

    def init(key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = default) -> Array:
        s = tuple(shape)
        d = _dtype(dtype)
        fan_in, fan_out = _compute_fans(s, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": (fan_in * fan_out) ** 0.5}[mode]
        variance = np.asarray(scale / denominator, d)
        if distribution == "truncated_normal":
            # the constant is the standard deviation of a standard normal truncated to (-2, 2)
            stddev = np.sqrt(variance) / np.asarray(0.87962566103423978, d)
            return lax.mul(random.truncated_normal(key, -2, 2, s, d), stddev)
        if distribution == "normal":
            return lax.mul(random.normal(key, s, d), np.sqrt(variance))
        return lax.mul(random.uniform(key, s, d, -1), np.sqrt(np.asarray(3 * scale / denominator, d)))

    return init


def glorot_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (),
                   dtype: DTypeLike | None = None) -> Initializer:
    """``variance_scaling(1.0, "fan_avg", "uniform")``."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (),
                  dtype: DTypeLike | None = None) -> Initializer:
    """``variance_scaling(1.0, "fan_avg", "truncated_normal")``."""
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def lecun_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (),
                  dtype: DTypeLike | None = None) -> Initializer:
    """``variance_scaling(1.0, "fan_in", "uniform")``."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (),
                 dtype: DTypeLike | None = None) -> Initializer:
    """``variance_scaling(1.0, "fan_in", "truncated_normal")``."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def he_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (),
               dtype: DTypeLike | None = None) -> Initializer:
    """``variance_scaling(2.0, "fan_in", "uniform")``."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (),
              dtype: DTypeLike | None = None) -> Initializer:
    """``variance_scaling(2.0, "fan_in", "truncated_normal")``."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(scale: float = 1.0, column_axis: int = -1, dtype: DTypeLike | None = None) -> Initializer:
    """A uniformly random orthogonal matrix, reshaped: the slices along
    ``column_axis`` are orthonormal (``jax.nn.initializers.orthogonal``)."""
    default = dtype

    def init(key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = default) -> Array:
        s = tuple(shape)
        d = _dtype(dtype)
        if len(s) < 2:
            raise RandomKeyError("orthogonal initializer requires at least a 2D shape")
        if any(n == 0 for n in s):
            return tnp.zeros(s, d)
        ca = column_axis % len(s)
        n_cols = s[ca]
        n_rows = math.prod(s) // n_cols
        q = random.orthogonal(key, n_rows, (), d, n_cols)
        rest = tuple(n for i, n in enumerate(s) if i != ca)
        q = tnp.reshape(q, rest + (n_cols,))
        perm = list(range(len(s) - 1))
        perm.insert(ca, len(s) - 1)
        return lax.mul(np.asarray(scale, d), lax.transpose(q, tuple(perm)))

    return init


def delta_orthogonal(scale: float = 1.0, column_axis: int = -1, dtype: DTypeLike | None = None) -> Initializer:
    """An orthogonal matrix at the centre of a 3-, 4- or 5-D convolution
    kernel, zeros elsewhere (``jax.nn.initializers.delta_orthogonal``)."""
    default = dtype

    def init(key: random.KeyLike, shape: Sequence[int], dtype: DTypeLike | None = default) -> Array:
        s = tuple(shape)
        d = _dtype(dtype)
        if len(s) not in (3, 4, 5):
            raise RandomKeyError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if s[-1] < s[-2]:
            raise RandomKeyError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=d)(key, s[-2:])
        centre = tuple((k - 1) // 2 for k in s[:-2])
        return tnp.zeros(s, d).at[centre].set(ortho)

    return init
