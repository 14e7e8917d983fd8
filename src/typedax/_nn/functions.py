"""``jax.nn``'s element-wise activations, ``softmax`` (with its eager host
fast path), ``log_softmax``, ``one_hot``, ``standardize``, ``glu`` and
``logmeanexp``, written with ``typedax.numpy`` and ``lax``.

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
  rounding."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import lax
from .. import numpy as tnp
from .._numpy import lax_numpy as _lax_numpy
from ..core.array import Array, ArrayLike, from_numpy
from ..core.dtypes import HALF, DType, canonicalize_explicit, default_float, is_float
from ..core.errors import PrimitiveTypeError
from ..core.ir import NDArray
from ..core.trace import Value, aval_of
from ..lowering.eager import eval_on_host
from ..primitives._params import params_of
from ..primitives.structural import reduce_sum_p
from ..scipy.special import logsumexp


Axis = int | Sequence[int] | None


def _inexact(x: ArrayLike) -> Array:
    return tnp.asarray(_lax_numpy._float(tnp.asarray(x)))


def _const(v: float, like: Value) -> NDArray:
    """``v`` in ``like``'s dtype, a NumPy scalar: a literal under a trace
    (as JAX's ``np.sqrt(2 / np.pi).astype(x.dtype)``), not an array constant."""
    return np.asarray(v, aval_of(like).dtype)


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
    v = _lax_numpy._eager_host(x)  # (a concrete strong array, ArrayImpl or NumPy)
    if v is not None and (v.dtype in _HOST_FLOATS or v.dtype in HALF) and v.flags.c_contiguous:
        shape = v.shape
        axes = _lax_numpy._axes("max", len(shape), axis)  # tnp.max's check, and its error
        if 0 not in [shape[i] for i in axes]:  # (an empty axis: the general path's empty result)
            return from_numpy(_softmax_host(v, axes))
    a = tnp.asarray(x)
    unnormalized = tnp.exp(tnp.subtract(a, tnp.max(a, axis, keepdims=True, initial=-np.inf)))  # (as JAX's)
    return tnp.divide(unnormalized, tnp.sum(unnormalized, axis, keepdims=True))


_HOST_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _softmax_host(v: NDArray, axes: tuple[int, ...]) -> NDArray:
    """``softmax``'s equations on a C-contiguous host value of a float type,
    each with its impl's NumPy call: ``reduce_max``, ``reshape`` (keepdims),
    ``sub`` (NumPy broadcasting the maximum as the ``broadcast`` equation
    does), ``exp``, ``reduce_sum``, ``reshape``, ``div``. A 16-bit float
    computes each in float32 and rounds its result (the eval trace's rule).
    The sum is XLA's, as the primitive's eager evaluation is
    (``Rules.eval_on_device``): its one-equation program."""
    d = v.dtype
    keep = tuple(1 if i in axes else k for i, k in enumerate(v.shape))
    sum_params = params_of(("axis", axes))
    if d not in HALF:
        # (ufuncs keep float32/float64; a 0-d operand's NumPy scalars are made
        # an array once, at the end; the sum is at least 1 -- the maximum's
        # own exp -- or NaN, so the division cannot warn: no errstate)
        m = np.maximum.reduce(v, axis=axes, keepdims=True)  # np.max's reduction, its keepdims the reshape's values
        e = np.asarray(np.subtract(v, m))  # a new array: exp and div write into it
        np.exp(e, out=e)
        total = eval_on_host(reduce_sum_p, sum_params, [e])[0].reshape(keep)
        np.divide(e, total, out=e)
        return e
    f = np.dtype(np.float32)
    m = np.asarray(np.max(v.astype(f), axis=axes)).astype(d).reshape(keep)
    shifted = np.asarray(np.subtract(v.astype(f), m.astype(f)), dtype=f).astype(d)
    e = np.asarray(np.exp(shifted.astype(f)), dtype=f).astype(d)
    total = eval_on_host(reduce_sum_p, sum_params, [e])[0].reshape(keep)  # (in 16 bits: the program widens)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.divide(e.astype(f), total.astype(f)), dtype=f).astype(d)


def log_softmax(x: ArrayLike, axis: Axis = -1) -> Array:
    """``x - logsumexp(x)`` along ``axis``, shifted by the maximum."""
    a = tnp.asarray(x)
    shifted = tnp.subtract(a, tnp.max(a, axis, keepdims=True, initial=-np.inf))  # (as JAX's)
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


# -- the rest of jax.nn's activations ---------------------------------------------------
tanh = tnp.tanh  # jax.nn.tanh is jax.numpy.tanh


def identity(x: ArrayLike) -> Array:
    """``x`` itself (as an ``Array``)."""
    return tnp.asarray(x)


def soft_sign(x: ArrayLike) -> Array:
    """``x / (|x| + 1)``."""
    a = tnp.asarray(x)
    return tnp.divide(a, tnp.add(tnp.abs(a), 1))


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """``(x + sqrt(x**2 + b)) / 2``."""
    a = tnp.asarray(x)
    return tnp.divide(tnp.add(a, tnp.sqrt(tnp.add(tnp.square(a), b))), 2)


def sparse_plus(x: ArrayLike) -> Array:
    """0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` between."""
    a = tnp.asarray(x)
    middle = tnp.divide(tnp.power(tnp.add(a, 1.0), 2), 4)
    return tnp.where(tnp.less_equal(a, -1.0), 0.0, tnp.where(tnp.greater_equal(a, 1.0), a, middle))


def sparse_sigmoid(x: ArrayLike) -> Array:
    """``clip(x + 1, 0, 2) / 2``."""
    return tnp.multiply(0.5, tnp.clip(tnp.add(x, 1.0), 0.0, 2.0))


def mish(x: ArrayLike) -> Array:
    """``x * tanh(softplus(x))``."""
    a = tnp.asarray(x)
    return tnp.multiply(a, tnp.tanh(softplus(a)))


def glu(x: ArrayLike, axis: int = -1) -> Array:
    """Gated linear unit: ``x1 * sigmoid(x2)`` where ``x1, x2`` are the two
    halves of ``x`` along ``axis`` (whose size must be even)."""
    a = tnp.asarray(x)
    nd = aval_of(a).ndim
    if not -nd <= axis < nd:
        raise PrimitiveTypeError(f"glu: axis {axis} is out of bounds for an operand of rank {nd}")
    size = aval_of(a).shape[axis]
    if size % 2:
        raise PrimitiveTypeError(f"glu: axis size must be divisible by 2, got {size} (shape {aval_of(a).shape}, axis {axis})")
    x1, x2 = tnp.split(a, 2, axis)
    return tnp.multiply(x1, sigmoid(x2))


def log1mexp(x: ArrayLike) -> Array:
    """``log(1 - exp(-x))``, accurately on both sides of ``log 2`` (its
    derivative is ``1 / expm1(x)``, JAX's rule)."""
    a = tnp.asarray(x)
    below = tnp.less(a, float(np.log(2.0)))
    # each branch gets an argument where it is finite, so that the unchosen one
    # puts no NaN or infinity into gradients
    a1 = tnp.where(below, a, 1.0)
    a2 = tnp.where(below, 1.0, a)
    return tnp.where(below, tnp.log(tnp.negative(tnp.expm1(tnp.negative(a1)))), tnp.log1p(tnp.negative(tnp.exp(tnp.negative(a2)))))


def logmeanexp(x: ArrayLike, axis: Axis = None, where: ArrayLike | None = None, keepdims: bool = False) -> Array:
    """``log(mean(exp(x)))`` over ``axis`` (only where ``where`` is true):
    ``logsumexp`` minus the log of the number of terms."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    a = tnp.asarray(x)
    shape = aval_of(a).shape
    if where is None:
        dims = tuple(range(len(shape))) if axis is None else _lax_numpy._axes("logmeanexp", len(shape), axis)
        count: ArrayLike = np.asarray(int(np.prod([shape[d] for d in dims], dtype=np.int64)), aval_of(lse).dtype)
    else:
        w = tnp.broadcast_to(tnp.asarray(where), shape)
        count = tnp.sum(w, axis=axis, dtype=aval_of(lse).dtype, keepdims=keepdims)
    return tnp.subtract(lse, tnp.log(count))
