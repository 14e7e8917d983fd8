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
from typing import Literal, overload

import numpy as np

from . import lax
from . import numpy as tnp
from ._numpy import lax_numpy as _lax_numpy
from .core.array import Array, ArrayLike, from_numpy
from .core.dtypes import HALF, DType, canonicalize_explicit, default_float, is_float
from .core.ir import NDArray
from .core.errors import PrimitiveTypeError
from .core.trace import Value, aval_of
from .lowering.eager import eval_on_host
from .primitives._params import params_of
from .primitives.structural import reduce_sum_p
from . import nn_initializers as initializers
from .scipy.special import logsumexp as logsumexp

__all__ = [
    "celu", "elu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu",
    "log_sigmoid", "log_softmax", "logsumexp", "one_hot", "relu", "relu6", "selu", "sigmoid",
    "silu", "softmax", "softplus", "standardize", "swish",
    "dot_product_attention", "glu", "identity", "log1mexp", "logmeanexp", "mish", "soft_sign",
    "sparse_plus", "sparse_sigmoid", "squareplus", "tanh",
    "avg_pool", "max_pool",  # flax.linen's pooling
    "initializers",
]

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


# -- attention: jax.nn.dot_product_attention's XLA implementation ----------------------
def _large_negative(dtype: DType) -> np.ndarray[tuple[()], np.dtype[np.floating]]:
    """JAX's mask value: -0.7 times the largest finite value (of float32 at most)."""
    m = min(float(tnp.finfo(dtype).max), float(np.finfo(np.float32).max))
    return np.asarray(-0.7 * m, dtype)


def _ensure_4d(t: ArrayLike) -> Array:
    a = tnp.asarray(t)
    n = 4 - aval_of(a).ndim
    return tnp.expand_dims(a, tuple(range(n))) if n > 0 else a


def _check_attention_operand(t: Array | None, shape: Sequence[int], dtype: DType | None, name: str) -> None:
    if t is None:
        return
    av = aval_of(t)
    if av.ndim != len(shape):
        raise PrimitiveTypeError(f"dot_product_attention: {name} ndim should be {len(shape)}, but got {av.ndim}")
    if dtype is not None and av.dtype != dtype:
        raise PrimitiveTypeError(f"dot_product_attention: {name} dtype should be {dtype}, but got {av.dtype}")
    if any(s != -1 and d != s for d, s in zip(av.shape, shape)):
        raise PrimitiveTypeError(
            f"dot_product_attention: {name} shape should be {list(shape)}: but got {av.shape}")


def _grouped(t: Array | None, k: int, g: int) -> Array | None:
    """A (B, N or 1, T, S) bias or mask as (B, K or 1, G or 1, T, S), the N
    query heads split into K groups of G (as JAX's ``_reshape_to_grouped``)."""
    if t is None:
        return None
    tb, tn, tt, ts = aval_of(t).shape
    if tn == 1:
        return tnp.expand_dims(t, 2)
    if tn != k * g:
        raise PrimitiveTypeError(
            f"dot_product_attention: a bias or mask of shape {aval_of(t).shape} must have 1 or {k * g} heads")
    return tnp.reshape(t, (tb, k, g, tt, ts))


def _attention_xla(
    q: Array, k: Array, v: Array, bias: Array | None, mask: Array | None, is_causal: bool, scale: float,
    q_seqlen: Array | None, kv_seqlen: Array | None, window: tuple[int, int] | None,
) -> tuple[Array, Array]:
    """JAX's ``_dot_product_attention_xla`` (without its vmap over the G query
    heads of each key/value head: the group is an axis of the einsums). Logits
    in ``promote_types(dtype, float32)``, the softmax in float32 (float64
    operands too, as JAX), the probabilities in the key's dtype. Returns the
    output (B, T, N, H) and the log-sum-exp residual (B, T, N)."""
    b, t, n, h = aval_of(q).shape
    _, s, nk, _ = aval_of(k).shape
    g = n // nk
    q5 = tnp.reshape(q, (b, t, nk, g, h))
    logits_dtype = tnp.promote_types(aval_of(q).dtype, np.dtype(np.float32))
    logits = tnp.einsum("BTKGH,BSKH->BKGTS", q5, k, preferred_element_type=logits_dtype)
    logits = tnp.multiply(logits, np.asarray(scale, logits_dtype))
    bias5, mask5 = _grouped(bias, nk, g), _grouped(mask, nk, g)
    if bias5 is not None:
        logits = tnp.astype(tnp.add(logits, bias5), logits_dtype)
    combined: Array | None = mask5
    def both(m: Array) -> Array:
        return m if combined is None else tnp.logical_and(combined, m)
    if is_causal:
        combined = both(tnp.tril(tnp.ones((t, s), dtype=np.dtype(bool))))
    if window is not None:
        qpos = lax.broadcasted_iota(np.dtype(np.int64), (t, s), 0)
        kpos = lax.broadcasted_iota(np.dtype(np.int64), (t, s), 1)
        combined = both(tnp.logical_and(tnp.greater_equal(qpos, tnp.subtract(kpos, window[1])),
                                        tnp.less_equal(qpos, tnp.add(kpos, window[0]))))
    if q_seqlen is not None or kv_seqlen is not None:
        pad: Array | None = None
        if q_seqlen is not None:
            pad = tnp.less(tnp.arange(t)[None, :, None], q_seqlen[:, None, None])
        if kv_seqlen is not None:
            kv = tnp.less(tnp.arange(s)[None, None, :], kv_seqlen[:, None, None])
            pad = kv if pad is None else tnp.logical_and(pad, kv)
        assert pad is not None
        combined = both(tnp.reshape(pad, (aval_of(pad).shape[0], 1, 1, aval_of(pad).shape[1], aval_of(pad).shape[2])))
    if combined is not None:
        logits = tnp.where(combined, logits, _large_negative(logits_dtype))
    logits32 = tnp.astype(logits, np.dtype(np.float32))
    probs = tnp.astype(softmax(logits32, axis=-1), aval_of(k).dtype)
    encoded = tnp.einsum("BKGTS,BSKH->BTKGH", probs, v)
    if q_seqlen is not None:
        keep = tnp.less(tnp.arange(t)[None, :], q_seqlen[:, None])
        encoded = tnp.multiply(encoded, tnp.astype(tnp.reshape(keep, (b, t, 1, 1, 1)), aval_of(encoded).dtype))
    lse = tnp.astype(logsumexp(logits32, axis=-1), aval_of(k).dtype)  # (B, K, G, T)
    lse = tnp.reshape(tnp.transpose(lse, (0, 3, 1, 2)), (b, t, n))
    return tnp.reshape(encoded, (b, t, n, h)), lax.stop_gradient(lse)


@overload
def dot_product_attention(
    query: ArrayLike, key: ArrayLike, value: ArrayLike, bias: ArrayLike | None = None,
    mask: ArrayLike | None = None, *, scale: float | None = None, is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None, key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None, return_residual: Literal[False] = False,
) -> Array: ...


@overload
def dot_product_attention(
    query: ArrayLike, key: ArrayLike, value: ArrayLike, bias: ArrayLike | None = None,
    mask: ArrayLike | None = None, *, scale: float | None = None, is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None, key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None, return_residual: Literal[True],
) -> tuple[Array, Array]: ...


def dot_product_attention(
    query: ArrayLike, key: ArrayLike, value: ArrayLike, bias: ArrayLike | None = None,
    mask: ArrayLike | None = None, *, scale: float | None = None, is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None, key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None, return_residual: bool = False,
) -> Array | tuple[Array, Array]:
    """Scaled dot-product attention, ``softmax(q k^T * scale + bias, masked) v``,
    as ``jax.nn.dot_product_attention`` computes it with
    ``implementation='xla'`` (the only one here: ``'cudnn'`` is refused).

    ``query`` is (B, T, N, H) (or (T, N, H)), ``key``/``value`` (B, S, K, H)
    with N a multiple of K (grouped-query attention); ``bias`` and ``mask``
    broadcast to (B, N, T, S) (``mask`` is bool: False drops a logit);
    ``scale`` defaults to ``1/sqrt(H)``; ``is_causal`` keeps ``s <= t``;
    ``query_seq_lengths``/``key_value_seq_lengths`` (int32, (B,)) mask padding
    (query rows past the length give 0); ``local_window_size`` ``(left,
    right)`` (or one int for both) keeps ``t - left <= s <= t + right``. With
    ``return_residual`` also the log-sum-exp of each row of logits, (B, T, N)."""
    if implementation == "cudnn":
        raise PrimitiveTypeError(
            "dot_product_attention: implementation='cudnn' is not available in typedax (it has no cuDNN "
            "kernels); use implementation='xla' or None")
    if implementation not in (None, "xla"):
        raise PrimitiveTypeError(f"dot_product_attention: Unsupported implementation option: {implementation}")
    output_shape = aval_of(tnp.asarray(query)).shape
    q, k, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    b4 = None if bias is None else _ensure_4d(bias)
    m4 = None if mask is None else _ensure_4d(mask)
    qs = None if query_seq_lengths is None else tnp.asarray(query_seq_lengths)
    kvs = None if key_value_seq_lengths is None else tnp.asarray(key_value_seq_lengths)
    window = (local_window_size, local_window_size) if isinstance(local_window_size, int) else local_window_size
    bk, sk, nk, hk = aval_of(k).shape
    _check_attention_operand(v, [bk, sk, nk, hk], aval_of(k).dtype, "value")
    _check_attention_operand(q, [bk, -1, -1, hk], aval_of(k).dtype, "query")
    _check_attention_operand(m4, [-1] * 4, np.dtype(bool), "mask")
    _check_attention_operand(b4, [-1] * 4, None, "bias")
    _check_attention_operand(qs, [bk], np.dtype(np.int32), "query_seq_lengths")
    _check_attention_operand(kvs, [bk], np.dtype(np.int32), "key_value_seq_lengths")
    if aval_of(q).shape[-2] % nk != 0:
        raise PrimitiveTypeError(
            "dot_product_attention: The number of query heads must be a multiple of key/value heads, "
            f"but got {aval_of(q).shape[-2]} vs {nk}")
    scale_val = 1.0 / float(np.sqrt(hk)) if scale is None else scale
    out, residual = _attention_xla(q, k, v, b4, m4, is_causal, scale_val, qs, kvs, window)
    out = tnp.reshape(out, output_shape)
    if return_residual:
        return out, tnp.reshape(residual, output_shape[:-1])
    return out
