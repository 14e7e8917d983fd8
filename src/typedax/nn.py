"""Neural-network functions, named and computed as ``jax.nn``'s.

Differences from JAX, none of them in values:

- typedax has no ``custom_jvp``: where JAX gives a function its own derivative
  (``relu``, ``relu6`` at their kinks; ``softmax``), the function here is
  written so that differentiating its formula gives JAX's derivative: ``relu``
  is ``x`` where ``x > 0`` (and where it is NaN), else 0, so its derivative at
  0 is 0, as JAX's.
- ``softmax``, ``log_softmax`` and ``logsumexp`` subtract the maximum
  without ``stop_gradient`` (JAX wraps it in one). Their values are JAX's, and
  so are their derivatives: the maximum's contributions cancel (the shift
  enters as ``x - m`` and leaves as ``+ m``, or cancels in a ratio), up to
  rounding.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import lax
from . import numpy as tnp
from .core.array import Array, ArrayLike
from .core.dtypes import DType, canonicalize_explicit, default_float, is_float
from .core.errors import PrimitiveTypeError
from .core.trace import Value, aval_of
from . import nn_initializers as initializers
from .scipy.special import logsumexp as logsumexp

__all__ = [
    "celu", "elu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu",
    "log_sigmoid", "log_softmax", "logsumexp", "one_hot", "relu", "relu6", "selu", "sigmoid",
    "silu", "softmax", "softplus", "standardize", "swish",
    "avg_pool", "max_pool",  # flax.linen's pooling
    "initializers",
]

Axis = int | Sequence[int] | None


def _inexact(x: ArrayLike) -> Array:
    return tnp.asarray(tnp._float(tnp.asarray(x)))


def _const(v: float, like: Value) -> Array:
    return tnp.asarray(np.asarray(v, aval_of(like).dtype))


def relu(x: ArrayLike) -> Array:
    """``max(x, 0)``; its derivative at 0 is 0 (as JAX)."""
    a = tnp.asarray(x)
    keep = tnp.logical_or(tnp.greater(a, 0), tnp.isnan(a)) if is_float(aval_of(a).dtype) else tnp.greater(a, 0)
    return tnp.where(keep, a, tnp.zeros_like(a))


def relu6(x: ArrayLike) -> Array:
    """``min(max(x, 0), 6)``; derivative 0 at 0 and 6 (as JAX)."""
    a = tnp.asarray(x)
    r = relu(a)
    return tnp.where(tnp.greater_equal(a, 6), tnp.full_like(a, 6), r)


def sigmoid(x: ArrayLike) -> Array:
    """``1 / (1 + exp(-x))``; float operands only (as JAX)."""
    return lax.logistic(tnp.asarray(x))


def softplus(x: ArrayLike) -> Array:
    """``log(1 + exp(x))``, as ``logaddexp(x, 0)``."""
    return tnp.logaddexp(x, 0)


def log_sigmoid(x: ArrayLike) -> Array:
    return tnp.negative(softplus(tnp.negative(x)))


def silu(x: ArrayLike) -> Array:
    """``x * sigmoid(x)``; float operands only (as JAX)."""
    a = tnp.asarray(x)
    return tnp.multiply(a, sigmoid(a))


swish = silu


def gelu(x: ArrayLike, approximate: bool = True) -> Array:
    """The tanh approximation (default), or exactly ``x/2 erfc(-x/sqrt 2)``."""
    a = _inexact(x)
    if approximate:
        inner = tnp.multiply(_const(np.sqrt(2 / np.pi), a), tnp.add(a, tnp.multiply(0.044715, lax.integer_pow(a, 3))))
        cdf = tnp.multiply(0.5, tnp.add(1.0, tnp.tanh(inner)))
        return tnp.multiply(a, cdf)
    return tnp.multiply(tnp.multiply(0.5, a), lax.erfc(tnp.multiply(tnp.negative(a), _const(np.sqrt(0.5), a))))


def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    a = _inexact(x)
    positive = tnp.greater(a, 0)
    safe = tnp.where(positive, tnp.zeros_like(a), a)
    return tnp.where(positive, a, tnp.multiply(alpha, tnp.expm1(safe)))


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    a = _inexact(x)
    return tnp.add(tnp.maximum(a, 0.0), tnp.multiply(alpha, tnp.expm1(tnp.divide(tnp.minimum(a, 0.0), alpha))))


def selu(x: ArrayLike) -> Array:
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return tnp.multiply(scale, elu(x, alpha))


def leaky_relu(x: ArrayLike, negative_slope: ArrayLike = 1e-2) -> Array:
    a = tnp.asarray(x)
    return tnp.where(tnp.greater_equal(a, 0), a, tnp.multiply(negative_slope, a))


def hard_tanh(x: ArrayLike) -> Array:
    a = tnp.asarray(x)
    return tnp.where(tnp.greater(a, 1), 1, tnp.where(tnp.less(a, -1), -1, a))


def hard_sigmoid(x: ArrayLike) -> Array:
    return tnp.divide(relu6(tnp.add(x, 3.0)), 6.0)


def hard_silu(x: ArrayLike) -> Array:
    a = tnp.asarray(x)
    return tnp.multiply(a, hard_sigmoid(a))


hard_swish = hard_silu


def softmax(x: ArrayLike, axis: Axis = -1) -> Array:
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the maximum."""
    a = tnp.asarray(x)
    unnormalized = tnp.exp(tnp.subtract(a, tnp.max(a, axis, keepdims=True)))
    return tnp.divide(unnormalized, tnp.sum(unnormalized, axis, keepdims=True))


def log_softmax(x: ArrayLike, axis: Axis = -1) -> Array:
    """``x - logsumexp(x)`` along ``axis``, shifted by the maximum."""
    a = tnp.asarray(x)
    shifted = tnp.subtract(a, tnp.max(a, axis, keepdims=True))
    return tnp.subtract(shifted, tnp.log(tnp.sum(tnp.exp(shifted), axis, keepdims=True)))


def one_hot(x: ArrayLike, num_classes: int, *, dtype: DType | type | None = None, axis: int = -1) -> Array:
    """``x[..., None] == arange(num_classes)`` as ``dtype`` (default float), the
    new axis at ``axis``."""
    if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)):
        raise PrimitiveTypeError(f"one_hot: num_classes must be an int, got {num_classes!r}")
    a = tnp.asarray(x)
    out_dtype = default_float() if dtype is None else canonicalize_explicit(np.dtype(dtype), "one_hot")
    nd = aval_of(a).ndim + 1
    if not -nd <= axis < nd:
        raise PrimitiveTypeError(f"one_hot: axis {axis} is out of bounds for a result of rank {nd}")
    pos = axis % nd
    lhs = tnp.expand_dims(a, pos)
    shape = list(aval_of(lhs).shape)
    shape[pos] = int(num_classes)
    rhs = lax.broadcasted_iota(aval_of(a).dtype, tuple(shape), pos)
    return tnp.astype(tnp.equal(lhs, rhs), out_dtype)


def standardize(
    x: ArrayLike, axis: Axis = -1, mean: ArrayLike | None = None, variance: ArrayLike | None = None,
    epsilon: ArrayLike = 1e-5,
) -> Array:
    """``(x - mean) / sqrt(variance + epsilon)``, the mean and variance along
    ``axis`` by default (the variance as ``mean(x**2) - mean(x)**2``, clipped
    at 0: JAX's default ``"fast"`` algorithm)."""
    a = tnp.asarray(x)
    m = tnp.mean(a, axis, keepdims=True) if mean is None else tnp.asarray(mean)
    if variance is None:
        v = tnp.subtract(tnp.mean(tnp.square(a), axis, keepdims=True), tnp.square(m))
        v = tnp.clip(v, 0)
    else:
        v = tnp.asarray(variance)
    return tnp.multiply(tnp.subtract(a, m), tnp.reciprocal(tnp.sqrt(tnp.add(v, epsilon))))


# -- pooling: flax.linen's max_pool and avg_pool (flax/linen/pooling.py) ----------------
def _pool(op: str, x: Array, window_shape: Sequence[int], strides: Sequence[int] | None,
          padding: str | Sequence[tuple[int, int]], reduce: str) -> Array:
    """flax's ``pool``: inputs are (batch..., window dims..., features); a
    window of ``window_shape`` over the middle dimensions (one leading batch
    dimension is added for the reduction when there is none)."""
    from .primitives import windowed

    window = tuple(window_shape)
    n = len(window)
    st = (1,) * n if not strides else tuple(strides)
    if len(st) != n:
        raise PrimitiveTypeError(f"{op}: strides {st} must have one entry per window dimension {window}")
    n_batch = x.ndim - (n + 1)
    if n_batch < 0:
        raise PrimitiveTypeError(
            f"{op}: inputs of shape {x.shape} need the {n} window dimensions of {window} and a feature "
            "dimension (and optional leading batch dimensions)"
        )
    single = n_batch == 0
    if single:
        x, n_batch = lax.expand_dims(x, (0,)), 1
    pads: str | tuple[tuple[int, int], ...]
    if isinstance(padding, str):
        pads = padding
    else:
        pairs = tuple(tuple(p) for p in padding)
        if len(pairs) != n or any(len(p) != 2 for p in pairs):
            raise PrimitiveTypeError(f"{op}: padding {padding!r} must be one (low, high) pair per window dimension {window}")
        pads = ((0, 0),) * n_batch + tuple((int(p[0]), int(p[1])) for p in pairs) + ((0, 0),)
    fn = {"add": windowed.reduce_window_sum, "max": windowed.reduce_window_max}[reduce]
    y = fn(x, (1,) * n_batch + window + (1,), (1,) * n_batch + st + (1,), pads)
    return lax.squeeze(y, (0,)) if single else y


def max_pool(inputs: ArrayLike, window_shape: Sequence[int], strides: Sequence[int] | None = None,
             padding: str | Sequence[tuple[int, int]] = "VALID") -> Array:
    """The maximum of each window, as ``flax.linen.max_pool``: ``inputs`` are
    (batch, window dims..., features) (the batch dimension may be left
    out); ``padding`` is ``'VALID'``, ``'SAME'`` or one (low, high) pair
    per window dimension. Padding never wins (it holds -inf, or the dtype's
    smallest value); the gradient goes to the first maximal element of each
    window, as JAX's."""
    return _pool("max_pool", tnp.asarray(inputs), window_shape, strides, padding, "max")


def avg_pool(inputs: ArrayLike, window_shape: Sequence[int], strides: Sequence[int] | None = None,
             padding: str | Sequence[tuple[int, int]] = "VALID", count_include_pad: bool = True) -> Array:
    """The mean of each window, as ``flax.linen.avg_pool`` (same layout and
    padding as ``max_pool``). With ``count_include_pad`` every window
    divides by its full size (padding counts as zeros); without, by the
    number of input elements it covers. Float inputs keep their dtype (flax
    divides by float64 ones under x64 there), integers give floats."""
    x = tnp.asarray(inputs)
    y = _pool("avg_pool", x, window_shape, strides, padding, "add")
    if count_include_pad:
        return tnp.divide(y, float(np.prod(window_shape)))
    div_shape = x.shape[:-1] + (1,)
    if len(div_shape) - 2 == len(tuple(window_shape)):
        div_shape = (1,) + div_shape[1:]
    ones = tnp.ones(div_shape, dtype=x.dtype if is_float(x.dtype) else default_float())
    return tnp.divide(y, _pool("avg_pool", ones, window_shape, strides, padding, "add"))
