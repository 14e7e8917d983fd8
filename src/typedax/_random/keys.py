"""Keys and the generator: seeds (``PRNGKey``, ``key``), typed and raw
keys (``key_data``, ``wrap_key_data``, ``clone``, ``key_impl``,
``key_dtype``), and Threefry-2x32 used as JAX uses it (``split``,
``fold_in``, ``random_bits``, ``bits``, ``threefry_2x32``): typed keys bind
the ``random_*`` primitives (``primitives/keys.py``), raw keys' words the
``threefry2x32`` primitive (``primitives/prng.py``). Builds on ``base``."""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayLike, from_numpy
from ..core.avals import ShapedArray
from ..core.config import x64_enabled
from ..core.dtypes import EXTENDED, KEY, DType, INTEGER, UNSIGNED, canonicalize_explicit, is_float, uint32, uint64
from ..core.errors import RandomKeyError, RandomRangeError
from ..core.trace import Tracer, aval_of
from ..jitting import jit
from ..primitives import keys as _keys
from ..primitives.prng import threefry2x32
from .base import DTypeLike, KeyLike, RawKey, Shape, _UINT, _is_concrete, _is_typed, _key_of, _shape


# -- seeds -------------------------------------------------------------------------------
def _seed_words(seed: object, name: str) -> Array:
    if _is_typed(seed):
        raise RandomKeyError(f"{name} accepts a scalar seed, but was given a PRNG key.")
    if isinstance(seed, (bool, np.bool_)):
        raise RandomKeyError(f"{name}: the seed must be an integer, got {seed!r}")
    if isinstance(seed, int):
        if not -(1 << 63) <= seed < (1 << 63):
            raise RandomRangeError(
                f"{name}: the seed {seed} does not fit in 64 bits (a seed is an int64: "
                f"-2**63 <= seed < 2**63)"
            )
        s = seed if x64_enabled() else int(np.int64(seed).astype(np.int32))  # JAX's int32 with x64 off
        hi = (s >> 32) & 0xFFFFFFFF if x64_enabled() else 0
        return from_numpy(np.array([hi, s & 0xFFFFFFFF], np.uint32))
    if isinstance(seed, (float, complex, np.floating)):
        raise RandomKeyError(f"{name}: the seed must be an integer, got the float {seed!r}")
    if not isinstance(seed, (Array, np.ndarray, np.integer)):
        raise RandomKeyError(f"{name}: the seed must be an integer, got {type(seed).__name__}")
    a = _check_seed_array(seed, name)
    if _is_concrete(seed) and not isinstance(seed, Tracer):
        v = int(np.asarray(seed))
        bits = 8 * a.dtype.itemsize
        hi = (v >> 32) & 0xFFFFFFFF if bits == 64 else 0
        lo = v & 0xFFFFFFFF
        return from_numpy(np.array([hi, lo], np.uint32))
    # traced: JAX's equations, the typed key's words (random_seed's rules
    # turn the seed into words: written once, in primitives/keys.py)
    return _keys.random_unwrap(_keys.random_seed(seed))


def _check_seed_array(seed: object, name: str) -> ShapedArray:
    """The type of an array seed, which must be a scalar integer."""
    a = aval_of(seed)
    if a.ndim:
        raise RandomKeyError(
            f"{name} accepts a scalar seed, but was given an array of shape {a.shape} != (). "
            "Use typedax.vmap for batching"
        )
    if a.dtype not in INTEGER:
        raise RandomKeyError(f"{name}: the seed must be an integer, got {a.str_short()}")
    return a


def PRNGKey(seed: int | ArrayLike) -> Array:  # noqa: N802 - JAX's name
    """A raw PRNG key (``uint32[2]``) from an integer seed: the seed's high and
    low 32-bit words (``jax.random.PRNGKey``)."""
    return _seed_words(seed, "PRNGKey")


def key(seed: int | ArrayLike) -> Array:
    """A typed PRNG key (``key<fry>[]``) from an integer seed (``jax.random.key``):
    ``random_seed`` of a traced seed, the words of ``PRNGKey(seed)`` otherwise."""
    if isinstance(seed, Tracer):
        _check_seed_array(seed, "key")
        return _keys.random_seed(seed)
    return _keys.random_wrap(_seed_words(seed, "key"))


def key_data(keys: Array | ArrayLike) -> Array:
    """The ``uint32[..., 2]`` words of typed keys (raw keys are returned as they are)."""
    data, typed = _key_of("key_data", keys, batched=True)
    return _keys.random_unwrap(data) if typed else data


def wrap_key_data(key_bits_array: ArrayLike) -> Array:
    """Typed keys holding ``key_bits_array`` (``uint32[..., 2]``)."""
    if _is_typed(key_bits_array):
        raise RandomKeyError("wrap_key_data: expected key data (uint32[..., 2]), got typed keys")
    data, _ = _key_of("wrap_key_data", key_bits_array, batched=True)
    return _keys.random_wrap(data)


# -- the generator -----------------------------------------------------------------------
def _counters(shape: tuple[int, ...]) -> tuple[Array | np.uint32, Array]:
    """The high and low words of a 64-bit iota of ``shape`` (row-major)."""
    n = math.prod(shape)
    if n >= 1 << 32:
        raise NotImplementedError("typedax.random: more than 2**32 - 1 random values in one call")
    if len(shape) == 1:
        return np.uint32(0), lax.iota(uint32, n)
    lo = lax.reshape(lax.iota(uint32, n), shape) if shape else cast(Array, np.uint32(0))
    return np.uint32(0), lo


def _words(key: Array) -> tuple[Array, Array]:
    return key[0], key[1]


# Each of the three takes a typed key (then it is one primitive, as JAX's
# jaxprs show it) or a raw key's words.
def _split(key: Array, shape: tuple[int, ...]) -> Array:
    if _is_typed(key):
        return _keys.random_split(key, shape)
    k1, k2 = _words(key)
    hi, lo = _counters(shape)
    b1, b2 = threefry2x32(k1, k2, hi, lo)
    return tnp.stack([b1, b2], axis=len(shape))


def _fold_in(key: Array, data: ArrayLike) -> Array:
    if _is_typed(key):
        return _keys.random_fold_in(key, data)
    k1, k2 = _words(key)
    b1, b2 = threefry2x32(k1, k2, np.uint32(0), data)
    return tnp.stack([b1, b2])


def _random_bits(key: Array, bit_width: int, shape: tuple[int, ...]) -> Array:
    if _is_typed(key):
        return _keys.random_bits(key, bit_width, shape)  # (it checks the count as _counters does)
    k1, k2 = _words(key)
    hi, lo = _counters(shape)
    b1, b2 = threefry2x32(k1, k2, hi, lo)
    if bit_width == 64:
        h = lax.convert_element_type(b1, uint64)
        return lax.bitwise_or(lax.shift_left(h, np.asarray(32, np.uint64)), lax.convert_element_type(b2, uint64))
    x = lax.bitwise_xor(b1, b2)
    return x if bit_width == 32 else lax.convert_element_type(x, _UINT[bit_width])


_split_jit = jit(_split, static_argnums=(1,))
_fold_in_jit = jit(_fold_in)


def threefry_2x32(keypair: tuple[ArrayLike, ArrayLike], count: ArrayLike) -> Array:
    """JAX's ``threefry_2x32(keypair, count)``: the counters ``count`` (any
    shape, ``uint32``) split in two halves, enciphered, and joined."""
    k1, k2 = keypair
    flat = tnp.ravel(count)
    n = aval_of(flat).shape[0]
    odd = n % 2
    if odd:
        flat = lax.concatenate([flat, tnp.zeros((1,), uint32)], 0)
    half = (n + odd) // 2
    y1, y2 = threefry2x32(k1, k2, flat[:half], flat[half:])
    out = lax.concatenate([y1, y2], 0)
    return lax.reshape(out[:n] if odd else out, aval_of(count).shape)


def split(key: Array | RawKey, num: int | tuple[int, ...] = 2) -> Array:
    """``num`` new keys (or an array of keys of shape ``num``) along a new
    leading axis (``jax.random.split``), of the kind ``key`` is. Typed keys
    under a transformation stage one ``random_split`` equation, as JAX's."""
    data, typed = _key_of("split", key)
    shape = _shape("split", num)
    if typed and not _is_concrete(data):
        return _split(data, shape)
    return _split_jit(data, shape)


def fold_in(key: Array | RawKey, data: ArrayLike) -> Array:
    """A new key from ``key`` and the 32-bit integer ``data`` (``jax.random.fold_in``)."""
    kd, typed = _key_of("fold_in", key)
    if aval_of(data).ndim:
        raise RandomKeyError(
            f"fold_in accepts a scalar, but was given an array of shape {aval_of(data).shape} != (). "
            "Use typedax.vmap for batching."
        )
    if type(data) is float:  # JAX converts a Python float by int(): truncated, range checked (NaN: ValueError)
        data = int(data)
    if isinstance(data, int) and not 0 <= data < 1 << 32:
        # a Python int is converted to uint32, as JAX does, which refuses one
        # out of range (wrapping would fold in another stream's data:
        # fold_in(k, 2**32 + 1) would be fold_in(k, 1)); NumPy integers and
        # arrays wrap, as in JAX
        raise RandomRangeError(f"fold_in: Python integer {data} out of bounds for uint32 (0 <= data < 2**32)")
    if isinstance(data, (int, np.integer, np.bool_)):
        d: ArrayLike = np.asarray(int(data) & 0xFFFFFFFF, np.uint32)
    elif isinstance(data, (np.floating, np.ndarray)) and is_float(aval_of(data).dtype):
        # JAX's jnp.asarray(data, dtype='uint32'): a NumPy float by NumPy's cast
        d = np.asarray(data, dtype=np.uint32)
    else:
        a = aval_of(data)
        if a.dtype not in INTEGER and a.dtype != np.bool_ and not is_float(a.dtype):
            raise RandomKeyError(f"fold_in: data must be an integer (or a float), got {a.str_short()}")
        d = lax.convert_element_type(data, uint32)  # a float array: XLA's conversion, as JAX's
    if typed and not _is_concrete(kd, d):
        return _fold_in(kd, d)
    return _fold_in_jit(kd, d)


def _bits_jitted(key: Array, bit_width: int, shape: tuple[int, ...]) -> Array:
    return _random_bits(key, bit_width, shape)


_bits_jit = jit(_bits_jitted, static_argnums=(1, 2))


def random_bits(key: KeyLike, bit_width: int, shape: Shape) -> Array:
    """Uniform random bits: an unsigned array of ``bit_width`` (8, 16, 32 or 64) bits."""
    data, typed = _key_of("random_bits", key)
    if bit_width not in _UINT:
        raise RandomKeyError(f"random_bits: bit_width must be 8, 16, 32 or 64, got {bit_width!r}")
    if bit_width == 64 and not x64_enabled():
        raise RandomKeyError("random_bits: 64-bit values need x64 (typedax.config.update('jax_enable_x64', True))")
    return _bits(data, typed, bit_width, _shape("random_bits", shape))


def _bits(key: Array, typed: bool, bit_width: int, shape: tuple[int, ...]) -> Array:
    """Eagerly one cached executable; typed keys under a transformation one
    ``random_bits`` equation, as JAX's."""
    if typed and not _is_concrete(key):
        return _random_bits(key, bit_width, shape)
    return _bits_jit(key, bit_width, shape)


def bits(key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Uniform random bits of an unsigned ``dtype`` (default ``uint64``, or
    ``uint32`` with x64 off) (``jax.random.bits``)."""
    data, typed = _key_of("bits", key)
    d = (uint64 if x64_enabled() else uint32) if dtype is None else canonicalize_explicit(
        np.dtype(dtype), "bits")
    if d not in UNSIGNED:
        raise RandomKeyError(f"dtype argument to `bits` must be an unsigned int dtype, got {d}")
    return _bits(data, typed, 8 * d.itemsize, _shape("bits", shape))


# -- key utilities ---------------------------------------------------------------------
def clone(key: Array | RawKey) -> Array:
    """A copy of ``key`` (``jax.random.clone``): JAX's clone exists for
    its key-reuse checker, which typedax does not have, so this is the
    identity on keys (typed or raw, any shape). Unlike JAX's, which passes
    any value through, it refuses what is not a key (``RandomKeyError``)."""
    data, _ = _key_of("clone", key, batched=True)
    return data


def key_impl(keys: KeyLike) -> str:
    """The name of the keys' PRNG implementation (``jax.random.key_impl``):
    always ``"threefry2x32"``, the only one typedax has (raw keys are read as
    threefry keys, as JAX's default)."""
    _key_of("key_impl", keys, batched=True)
    return _IMPL_NAME


_IMPL_NAME = "threefry2x32"
#: the PRNG implementations JAX 0.10 knows by name (typedax has the first)
_JAX_PRNG_NAMES = ("threefry2x32", "philox2x32", "philox4x32", "rbg", "unsafe_rbg", "threefry4x32")


def key_dtype(impl_spec: str | DType | None = None) -> DType:
    """The dtype of typed keys of a PRNG implementation (``jax.random.key_dtype``):
    ``key<fry>`` for ``None`` (the default) or ``"threefry2x32"``; that dtype
    is returned as it is. typedax's key dtype is a NumPy structured dtype
    (``core/dtypes.py``: ``KEY``), so ``str`` of it shows its two words, while
    jaxprs and array reprs print ``key<fry>``. JAX's other implementations
    (``"rbg"``, ``"philox4x32"``, ...) are not in typedax: ``RandomKeyError``
    says so."""
    if impl_spec is None:
        return KEY
    if isinstance(impl_spec, np.dtype):
        if impl_spec in EXTENDED:
            return impl_spec
        raise RandomKeyError(f"key_dtype: {impl_spec} is not a PRNG key dtype")
    if isinstance(impl_spec, str):
        if impl_spec == _IMPL_NAME:
            return KEY
        if impl_spec in _JAX_PRNG_NAMES:
            raise RandomKeyError(
                f'key_dtype: the PRNG implementation "{impl_spec}" is not available in typedax '
                f'(it has only "{_IMPL_NAME}")'
            )
        raise RandomKeyError(
            f'unrecognized PRNG implementation "{impl_spec}". Did you mean one of: "{_IMPL_NAME}"?'
        )
    raise RandomKeyError(f"unrecognized type {type(impl_spec)} for specifying PRNG implementation.")
