"""Integers and permutations: ``randint`` (twice the bits, as JAX's),
``permutation`` and ``shuffle`` (sorting by random keys) and ``choice``.
Builds on ``base``, ``keys`` and ``samplers``."""

from __future__ import annotations

import math

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.dtypes import (
    DType,
    FLOATING,
    INTEGER,
    canonicalize_explicit,
    default_float,
    default_int,
    int_range,
)
from ..core.errors import RandomAxisError, RandomKeyError
from ..core.trace import aval_of
from ..jitting import jit
from .base import (
    DTypeLike,
    KeyLike,
    Shape,
    _UINT,
    _bcast,
    _check_shape,
    _key_of,
    _shape,
    _static_int,
    _to_rank,
)
from .keys import _random_bits, _split
from .samplers import gumbel, uniform


# -- integers and permutations -----------------------------------------------------------
def _clip_to(val: ArrayLike, dtype: DType) -> Array:
    """``val`` converted to the integer ``dtype``, clipped to its range (JAX's
    ``_convert_and_clip_integer``)."""
    vd = aval_of(val).dtype
    lo = max(int_range(dtype)[0], int_range(vd)[0])
    hi = min(int_range(dtype)[1], int_range(vd)[1])
    clipped = lax.clamp(np.asarray(lo, vd), val, np.asarray(hi, vd))
    return lax.convert_element_type(clipped, dtype)


def _randint_impl(key: Array, minval: ArrayLike, maxval: ArrayLike, shape: tuple[int, ...], dtype: DType) -> Array:
    nbits = 8 * dtype.itemsize
    if aval_of(minval).dtype not in INTEGER:
        minval = lax.convert_element_type(minval, default_int())
    if aval_of(maxval).dtype not in INTEGER:
        maxval = lax.convert_element_type(maxval, default_int())
    md = aval_of(maxval).dtype
    top = _clip_to(np.asarray(int_range(dtype)[1], dtype), md)
    out_of_range = lax.gt(maxval, top)
    minval = _bcast(_to_rank(_clip_to(minval, dtype), len(shape)), shape)
    maxval = _bcast(_to_rank(_clip_to(maxval, dtype), len(shape)), shape)
    out_of_range = _bcast(_to_rank(out_of_range, len(shape)), shape)
    ks = _split(key, (2,))
    higher = _random_bits(ks[0], nbits, shape)
    lower = _random_bits(ks[1], nbits, shape)
    u = _UINT[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), u)
    one = tnp.ones(shape, u)
    span = lax.select(lax.le(maxval, minval), one, span)
    span = lax.select(tnp.logical_and(out_of_range, lax.gt(maxval, minval)), lax.add(span, one), span)
    # a span of the type's whole range wraps to 0, and x rem 0 is x (XLA's rule); it
    # is spelled out so that XLA never folds a constant remainder by zero (it
    # crashes the process: the bounds are constants in the static-bounds jit)
    whole = lax.eq(span, tnp.zeros(shape, u))
    safe = lax.select(whole, one, span)

    def rem(x: Array) -> Array:
        return lax.select(whole, x, lax.rem(x, safe))

    multiplier = rem(_bcast(np.asarray(2 ** (nbits // 2), u), shape))
    multiplier = rem(lax.mul(multiplier, multiplier))
    offset = rem(lax.add(lax.mul(rem(higher), multiplier), rem(lower)))
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def randint(
    key: KeyLike, shape: Shape, minval: ArrayLike, maxval: ArrayLike, dtype: DTypeLike | None = None
) -> Array:
    """Uniform integers in ``[minval, maxval)`` (``jax.random.randint``)."""
    data, _ = _key_of("randint", key)
    d = default_int() if dtype is None else canonicalize_explicit(np.dtype(dtype), "randint")
    if d not in INTEGER:
        raise RandomKeyError(f"randint only accepts integer dtypes, got {d}")
    s = _shape("randint", shape)
    _check_shape("randint", s, aval_of(minval).shape, aval_of(maxval).shape)
    if type(minval) is int and type(maxval) is int:  # Python bounds: only the key is an argument
        return _randint_static_jit(data, s, d, minval, maxval)
    return _randint_jit(data, tnp.asarray(minval), tnp.asarray(maxval), s, d)


def _randint_any(key: Array, minval: ArrayLike, maxval: ArrayLike, shape: tuple[int, ...], dtype: DType) -> Array:
    if dtype.itemsize >= 4:
        return _randint_impl(key, minval, maxval, shape, dtype)
    # JAX samples 8- and 16-bit integers as int32 (less modulo bias) and converts
    lo, hi = int_range(dtype)
    mn = tnp.clip(tnp.astype(minval, np.int32), lo, hi)
    mx = tnp.clip(tnp.astype(maxval, np.int32), lo, hi + 1)
    return tnp.astype(_randint_impl(key, mn, mx, shape, np.dtype(np.int32)), dtype)


def _randint_static(key: Array, shape: tuple[int, ...], dtype: DType, minval: int, maxval: int) -> Array:
    d = default_int()
    return _randint_any(key, np.asarray(minval, d), np.asarray(maxval, d), shape, dtype)


_randint_jit = jit(_randint_any, static_argnums=(3, 4))
_randint_static_jit = jit(_randint_static, static_argnums=(1, 2, 3, 4))


def _shuffle_impl(key: Array, x: ArrayLike, axis: int) -> Array:
    x = tnp.asarray(x)
    size = math.prod(aval_of(x).shape)
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        ks = _split(key, (2,))
        key, sub = ks[0], ks[1]
        sort_keys = _random_bits(sub, 32, aval_of(x).shape)
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


_shuffle_jit = jit(_shuffle_impl, static_argnums=(2,))


def _axis(name: str, axis: int, ndim: int) -> int:
    a = _static_int(name, "axis", axis)
    if not -ndim <= a < ndim:
        raise RandomAxisError(f"{name}: axis {axis} is out of bounds for an array of rank {ndim}")
    return a % ndim


def permutation(key: KeyLike, x: int | ArrayLike, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of ``arange(x)``, or of ``x`` along ``axis``
    (``jax.random.permutation``)."""
    data, _ = _key_of("permutation", key)
    xa = aval_of(x)
    if not xa.ndim:
        if xa.dtype not in INTEGER and not isinstance(x, int):
            raise RandomKeyError("permutation: x must be an integer or at least 1-dimensional")
        r = _static_int("permutation", "x", x)
        return _shuffle_jit(data, tnp.arange(r), _axis("permutation", axis, 1))
    ax = _axis("permutation", axis, xa.ndim)
    if independent or xa.ndim == 1:
        return _shuffle_jit(data, x, ax)
    ind = _shuffle_jit(data, tnp.arange(xa.shape[ax]), 0)
    return _take(tnp.asarray(x), ind, ax)


def _take(x: Array, ind: Array, axis: int) -> Array:
    idx: tuple[object, ...] = (slice(None),) * axis + (ind,)
    return x[idx]


def shuffle(key: KeyLike, x: ArrayLike, axis: int = 0) -> Array:
    """``x`` shuffled along ``axis``, each vector along it independently
    (JAX's former ``jax.random.shuffle``; ``permutation(..., independent=True)``)."""
    data, _ = _key_of("shuffle", key)
    xa = aval_of(x)
    if not xa.ndim:
        raise RandomKeyError("shuffle: x must be at least 1-dimensional")
    return _shuffle_jit(data, x, _axis("shuffle", axis, xa.ndim))


def choice(
    key: KeyLike, a: int | ArrayLike, shape: Shape = (), replace: bool = True,
    p: ArrayLike | None = None, axis: int = 0, mode: str | None = None,
) -> Array:
    """A random sample of ``a`` (or of ``arange(a)``), with or without
    replacement, uniform or with probabilities ``p`` (``jax.random.choice``)."""
    data, _ = _key_of("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise RandomKeyError(f"shape argument of typedax.random.choice must be a sequence, got {shape!r}")
    s = _shape("choice", shape)
    arr = tnp.asarray(a)
    aa = aval_of(arr)
    if aa.ndim == 0:
        n_inputs = _static_int("choice", "a", a)
        ax = 0
    else:
        ax = _axis("choice", axis, aa.ndim)
        n_inputs = aa.shape[ax]
    n_draws = math.prod(s)
    if n_draws == 0:
        return tnp.zeros(s, aa.dtype)
    if n_inputs <= 0:
        raise RandomKeyError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise RandomKeyError(
            f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) when 'replace=False'"
        )
    if p is None:
        if replace:
            ind = randint(data, s, 0, n_inputs)
            result = ind if aa.ndim == 0 else _take(arr, ind, ax)
        else:
            perm = permutation(data, n_inputs if aa.ndim == 0 else arr, ax)
            idx: tuple[object, ...] = (slice(None),) * ax + (slice(n_draws),)
            result = perm[idx]
    else:
        pa = tnp.asarray(p)
        if aval_of(pa).dtype not in FLOATING:
            pa = tnp.astype(pa, default_float())
        if aval_of(pa).shape != (n_inputs,):
            raise RandomKeyError(
                "p must be None or a 1D vector with the same size as a.shape[axis]. "
                f"p has shape {aval_of(pa).shape} and a.shape[axis] is {n_inputs}."
            )
        if replace:
            p_cuml = tnp.cumsum(pa)
            pd = aval_of(p_cuml).dtype
            r = tnp.multiply(p_cuml[-1], tnp.subtract(np.asarray(1, pd), uniform(data, s, dtype=pd)))
            ind = _searchsorted(p_cuml, r)
        else:
            g = tnp.add(gumbel(data, (n_inputs,), dtype=aval_of(pa).dtype, mode=mode), tnp.log(pa))
            ind = tnp.astype(lax.top_k(g, n_draws)[1], default_int())
        result = ind if aa.ndim == 0 else _take(arr, ind, ax)
    out_shape = s if aa.ndim == 0 else aa.shape[:ax] + s + aa.shape[ax + 1:]
    return tnp.reshape(result, out_shape)


def _searchsorted(sorted_: Array, v: Array) -> Array:
    """The leftmost insertion index of each ``v`` in the 1-D ``sorted_``
    (``jnp.searchsorted``, side "left"): how many entries are less."""
    less = tnp.less(sorted_, tnp.expand_dims(v, -1))
    return tnp.sum(tnp.astype(less, default_int()), axis=-1)
