"""``jax.nn.dot_product_attention``'s XLA implementation (grouped-query
attention, masks, causal and local windows, sequence lengths), built on
``functions.softmax`` and ``logsumexp``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, overload

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType
from ..core.errors import PrimitiveTypeError
from ..core.trace import aval_of
from ..scipy.special import logsumexp
from .functions import softmax


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
