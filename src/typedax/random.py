"""Pseudo-random numbers as ``jax.random`` makes them: the same names and
signatures, and for the same key the same bits.

Keys. ``PRNGKey(seed)`` gives a raw key, a ``uint32[2]`` array, as JAX's
legacy keys; ``key(seed)`` gives a typed key, an ``Array`` of JAX's extended
dtype ``key<fry>`` and shape ``()``, holding the same words, which
``key_data`` and ``wrap_key_data`` convert from and to. Every function takes
either kind and gives keys of the kind it was given. Typed keys are arrays
like any other: they index, reshape, stack and pass through ``jit``,
``vmap`` (a batch of keys is a key array), ``scan``, ``cond`` and ``grad``,
and a jaxpr shows them as JAX's do (``a:key<fry>[]``, ``random_split``,
``random_bits``, ``random_fold_in``, ``random_seed``, ``random_wrap``,
``random_unwrap``: ``primitives/keys.py``). They refuse arithmetic and
conversion to NumPy (``key_data`` gives their words), as JAX's do.

The generator is Threefry-2x32 (``typedax.primitives.prng``: one primitive,
``threefry2x32``, with every rule), used as JAX uses it with
``jax_threefry_partitionable`` on (JAX 0.10's default):

- ``PRNGKey(seed)``: the seed as a 64-bit integer, split into its high and
  low 32-bit words.
- ``split(key, shape)``: for counters ``0, 1, ..., n - 1`` (a 64-bit iota
  in two 32-bit words, high then low), the two enciphered words are the new
  key of each position.
- ``fold_in(key, data)``: the key enciphering the counter ``(0, data)``.
- ``random_bits(key, width, shape)``: the two words of the same counters,
  xored (32 bits), truncated (8, 16), or high and low of a 64-bit word.

Samplers follow ``jax._src.random`` step by step (``uniform`` fills the
mantissa of a float in [1, 2); ``normal`` is ``sqrt(2) * erf_inv`` of a
uniform on (-1, 1); ``randint`` takes twice the bits; ``permutation`` sorts
by random keys; ``gamma`` is Marsaglia and Tsang's rejection sampler, one
``while_loop`` per element under ``vmap``; ``poisson`` is Knuth's algorithm
or Hörmann's transformed rejection and ``binomial`` inversion or BTRS, each a
``while_loop`` over the whole array; ``multinomial`` a ``scan`` of
binomials), so their results equal JAX's to
the last bit for the integer outputs and up to the last bits of
transcendental functions for the float ones. Like JAX's, each sampler is a
``jit``-compiled function of its static arguments (shape, dtype): an eager
call runs one cached executable, and under ``jit`` the sampler is a nested
``jit`` equation.

Differentiation: keys are not differentiable (their tangents are zero);
samplers are differentiable with respect to their float parameters
(``uniform``'s bounds, ``truncated_normal``'s, ``multivariate_normal``'s mean
and covariance, ``weibull_min``'s, ``wald``'s, ``triangular``'s, ...) as
JAX's are (the counts of ``poisson``, ``geometric`` and ``binomial`` have a
zero derivative); ``gamma``, ``loggamma``, ``beta`` and ``dirichlet`` with JAX's implicit reparameterization derivative
(``random_gamma_grad``: the sample's derivative through the incomplete gamma
function), attached without a primitive of their own, and so ``t``, ``f``,
``chisquare`` and ``generalized_normal``, which are made from them.

``clone`` is the identity (typedax has no key-reuse checker), ``key_impl``
is always ``"threefry2x32"`` and ``key_dtype()`` the ``key<fry>`` dtype:
the one implementation typedax has.

Shapes, ``num`` and similar arguments must be static Python integers; a
traced value there, a float or out-of-range seed, or a key of the wrong
shape or dtype raises ``RandomKeyError`` (or ``ConcretizationError`` for a
traced shape) saying what was expected.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import TypeAlias, cast

import numpy as np

from . import lax
from . import numpy as tnp
from .core.array import Array, ArrayImpl, ArrayLike, from_numpy
from .core.dtypes import (
    EXTENDED,
    KEY,
    DType,
    FLOATING,
    INTEGER,
    UNSIGNED,
    canonicalize_explicit,
    default_float,
    default_int,
    finfo,
    int_range,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .core.avals import ShapedArray
from .core.config import x64_enabled
from .core.errors import ConcretizationError, RandomKeyError, RandomRangeError
from .api_forward import vmap
from .core.trace import EVAL_TRACE, Tracer, aval_of, current_trace
from .jitting import jit
from .primitives import keys as _keys
from .primitives.prng import threefry2x32

__all__ = [
    "KeyArray", "PRNGKey", "key", "key_data", "wrap_key_data", "split", "fold_in", "bits",
    "random_bits", "uniform", "normal", "truncated_normal", "bernoulli", "categorical", "randint",
    "permutation", "choice", "shuffle", "gumbel", "exponential", "gamma", "loggamma", "beta",
    "dirichlet", "multivariate_normal", "orthogonal", "threefry_2x32", "laplace", "logistic",
    "cauchy", "rademacher", "lognormal", "chisquare", "pareto", "rayleigh", "poisson", "binomial",
    "multinomial", "t", "f", "geometric", "maxwell", "double_sided_maxwell", "weibull_min",
    "generalized_normal", "ball", "triangular", "wald", "clone", "key_impl", "key_dtype",
]

Shape: TypeAlias = Sequence[int]
DTypeLike: TypeAlias = "DType | type | str"

_UINT: dict[int, DType] = {8: uint8, 16: uint16, 32: uint32, 64: uint64}


# -- typed keys ------------------------------------------------------------------------
#: The type of typed key arrays: ``Array``s of dtype ``key<fry>`` (JAX's
#: ``jax.Array`` of an extended dtype); kept as a name for annotations.
KeyArray: TypeAlias = Array

RawKey: TypeAlias = "np.ndarray[tuple[int, ...], np.dtype[np.uint32]]"
KeyLike: TypeAlias = "Array | np.ndarray[tuple[int, ...], np.dtype[np.uint32]]"


def _is_typed(key: object) -> bool:
    return isinstance(key, (Array, np.ndarray, np.void)) and aval_of(key).dtype in EXTENDED


# -- argument checks ---------------------------------------------------------------------
def _key_of(name: str, key: object, *, batched: bool = False) -> tuple[Array, bool]:
    """``key`` as an ``Array`` -- typed keys as they are, a raw key as its
    ``uint32[..., 2]`` words -- and whether it was typed."""
    if _is_typed(key):
        # (a NumPy key array, or one element of one: np.void, is taken as keys)
        k = key if isinstance(key, Array) else from_numpy(np.asarray(key))
        if not batched and aval_of(k).ndim:
            raise RandomKeyError(
                f"{name} takes a single key, but was given a key array of shape {aval_of(k).shape} != (). "
                "Use typedax.vmap for batching."
            )
        return k, True
    if isinstance(key, (Array, np.ndarray)):
        data = key if isinstance(key, Array) else from_numpy(np.asarray(key))
    else:
        raise RandomKeyError(
            f"{name}: expected a PRNG key (from typedax.random.PRNGKey, key, split or fold_in), "
            f"got {type(key).__name__}"
        )
    a = aval_of(data)
    if a.dtype != uint32 or not a.shape or a.shape[-1] != 2:
        raise RandomKeyError(
            f"{name}: a raw PRNG key is a uint32 array with last dimension 2 (uint32[2]), got "
            f"{a.str_short()}; make one with typedax.random.PRNGKey(seed)"
        )
    if not batched and a.ndim != 1:
        raise RandomKeyError(
            f"{name} takes a single key, but was given a key array of shape {a.shape[:-1]} != (). "
            "Use typedax.vmap for batching."
        )
    return data, False


def _static_int(name: str, what: str, v: object) -> int:
    if isinstance(v, Tracer):
        raise ConcretizationError(
            f"{name}: {what} must be a static Python integer, got a traced value {aval_of(v).str_short()}; "
            "pass it as a static argument (jit(..., static_argnums=...)) or compute it outside the traced function"
        )
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        if isinstance(v, (ArrayImpl, np.ndarray)) and aval_of(v).ndim == 0 and aval_of(v).dtype in INTEGER:
            return int(np.asarray(v))
        raise RandomKeyError(f"{name}: {what} must be an integer, got {v!r}")
    return operator.index(v)


def _shape(name: str, shape: object) -> tuple[int, ...]:
    """A static shape: a tuple of non-negative Python integers."""
    if isinstance(shape, Tracer):
        raise ConcretizationError(
            f"{name}: shape must be static (a tuple of Python integers), got a traced value "
            f"{aval_of(shape).str_short()}"
        )
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        dims: Sequence[object] = (shape,)
    elif isinstance(shape, (tuple, list)):
        dims = shape
    else:
        raise RandomKeyError(f"{name}: shape must be a tuple of integers, got {shape!r}")
    out = tuple(_static_int(name, "each dimension of shape", d) for d in dims)
    if any(d < 0 for d in out):
        raise RandomKeyError(f"{name}: shape must have non-negative dimensions, got {out}")
    return out


def _float_dtype(name: str, dtype: object) -> DType:
    d = default_float() if dtype is None else canonicalize_explicit(np.dtype(cast(DTypeLike, dtype)), name)
    if d not in FLOATING:
        raise RandomKeyError(f"dtype argument to `{name}` must be a float dtype, got {d}")
    return d


def _check_shape(name: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
    if param_shapes:
        try:
            b: tuple[int, ...] | None = np.broadcast_shapes(shape, *param_shapes)
        except ValueError:
            b = None
        if b != shape:
            raise RandomKeyError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, and the "
                f"result of broadcasting the shapes must equal the shape argument, but got result {b} "
                f"for shape argument {shape}."
            )


def _is_concrete(*xs: object) -> bool:
    return current_trace() is EVAL_TRACE and not any(isinstance(x, Tracer) for x in xs)


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
    if isinstance(data, int) and not 0 <= data < 1 << 32:
        # a Python int is converted to uint32, as JAX does, which refuses one
        # out of range (wrapping would fold in another stream's data:
        # fold_in(k, 2**32 + 1) would be fold_in(k, 1)); NumPy integers and
        # arrays wrap, as in JAX
        raise RandomRangeError(f"fold_in: Python integer {data} out of bounds for uint32 (0 <= data < 2**32)")
    if isinstance(data, (int, np.integer, np.bool_)):
        d: ArrayLike = np.asarray(int(data) & 0xFFFFFFFF, np.uint32)
    else:
        if aval_of(data).dtype not in INTEGER and aval_of(data).dtype != np.bool_:
            raise RandomKeyError(f"fold_in: data must be an integer, got {aval_of(data).str_short()}")
        d = lax.convert_element_type(data, uint32)
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


# -- uniform, normal and their relatives -------------------------------------------------
def _to_rank(x: Array, rank: int) -> Array:
    s = aval_of(x).shape
    return x if len(s) == rank else lax.reshape(x, (1,) * (rank - len(s)) + s)


def _bcast(x: ArrayLike, shape: tuple[int, ...]) -> Array:
    return tnp.broadcast_to(x, shape)


def _uniform_impl(key: Array, minval: ArrayLike, maxval: ArrayLike, shape: tuple[int, ...], dtype: DType) -> Array:
    minval = _to_rank(lax.convert_element_type(minval, dtype), len(shape))
    maxval = _to_rank(lax.convert_element_type(maxval, dtype), len(shape))
    nbits, nmant = _float_bits(dtype)
    u = _UINT[nbits]
    rng_bits = 8 if nmant < 8 else nbits  # as JAX: bfloat16 draws 8 random bits
    b = _random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        b = lax.convert_element_type(b, u)
    # JAX puts the top ``nmant`` bits in the mantissa of a float in [1, 2) and
    # subtracts 1; the same float, exactly, is those bits (an integer below
    # 2**nmant, so converted exactly) times 2**-nmant
    mantissa = lax.convert_element_type(lax.shift_right_logical(b, np.asarray(rng_bits - nmant, u)), dtype)
    floats = lax.mul(mantissa, np.asarray(2.0 ** -nmant, dtype))
    span = lax.sub(maxval, minval)
    scaled = lax.add(lax.mul(floats, _bcast(span, shape)), _bcast(minval, shape))
    return lax.max(_bcast(minval, shape), scaled)


_uniform_jit = jit(_uniform_impl, static_argnums=(3, 4))


def uniform(
    key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None,
    minval: ArrayLike = 0.0, maxval: ArrayLike = 1.0,
) -> Array:
    """Uniform floats in ``[minval, maxval)`` (``jax.random.uniform``)."""
    data, _ = _key_of("uniform", key)
    d = _float_dtype("uniform", dtype)
    s = _shape("uniform", shape)
    _check_shape("uniform", s, aval_of(minval).shape, aval_of(maxval).shape)
    if _is_static_scalar(minval) and _is_static_scalar(maxval):
        return _uniform_static_jit(data, s, d, float(minval), float(maxval))
    return _uniform_jit(data, minval, maxval, s, d)


def _float_bits(dtype: DType) -> tuple[int, int]:
    """The width and the mantissa bits of a float dtype (float16 and bfloat16 too)."""
    return 8 * dtype.itemsize, int(finfo(dtype).nmant)


def _tiny(dtype: DType) -> float:
    """The smallest normal number of a float dtype."""
    return float(finfo(dtype).smallest_normal)


def _is_static_scalar(x: object) -> bool:
    return type(x) in (int, float)


def _uniform_static(key: Array, shape: tuple[int, ...], dtype: DType, minval: float, maxval: float) -> Array:
    return _uniform_impl(key, np.asarray(minval, dtype), np.asarray(maxval, dtype),
                         shape, dtype)


#: ``uniform`` with Python-number bounds: only the key is an argument.
_uniform_static_jit = jit(_uniform_static, static_argnums=(1, 2, 3, 4))


def _normal_impl(key: Array, shape: tuple[int, ...], dtype: DType) -> Array:
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = _uniform_impl(key, lo, np.array(1.0, dtype), shape, dtype)
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


_normal_jit = jit(_normal_impl, static_argnums=(1, 2))


def normal(key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard normal floats (``jax.random.normal``)."""
    data, _ = _key_of("normal", key)
    return _normal_jit(data, _shape("normal", shape), _float_dtype("normal", dtype))


def _truncated_normal_impl(
    key: Array, lower: ArrayLike, upper: ArrayLike, shape: tuple[int, ...], dtype: DType
) -> Array:
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lax.div(lower, sqrt2))
    b = lax.erf(lax.div(upper, sqrt2))
    u = _uniform_impl(key, a, b, shape, dtype)
    out = lax.mul(sqrt2, lax.erf_inv(u))
    lo = lax.nextafter(_stop(lower), np.array(np.inf, dtype))
    hi = lax.nextafter(_stop(upper), np.array(-np.inf, dtype))
    return tnp.clip(out, _bcast(lo, shape), _bcast(hi, shape))


def _stop(x: Array) -> Array:
    """``x`` with no gradient: ``nextafter``'s tangent is zero already, so
    this is ``x`` (kept to mirror JAX's ``stop_gradient`` there)."""
    return x


_truncated_normal_jit = jit(_truncated_normal_impl, static_argnums=(3, 4))


def truncated_normal(
    key: KeyLike, lower: ArrayLike, upper: ArrayLike, shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Standard normal floats truncated to ``(lower, upper)`` (``jax.random.truncated_normal``)."""
    data, _ = _key_of("truncated_normal", key)
    d = _float_dtype("truncated_normal", dtype)
    pshapes = (aval_of(lower).shape, aval_of(upper).shape)
    if shape is None:
        s = np.broadcast_shapes(*pshapes)
    else:
        s = _shape("truncated_normal", shape)
        _check_shape("truncated_normal", s, *pshapes)
    return _truncated_normal_jit(data, lower, upper, s, d)


def _bernoulli_impl(key: Array, p: ArrayLike, shape: tuple[int, ...]) -> Array:
    d = aval_of(p).dtype
    return lax.lt(_uniform_impl(key, np.zeros((), d), np.ones((), d), shape, d),
                  _bcast(p, shape))


_bernoulli_jit = jit(_bernoulli_impl, static_argnums=(2,))


def bernoulli(key: KeyLike, p: ArrayLike = 0.5, shape: Shape | None = None) -> Array:
    """Booleans that are True with probability ``p`` (``jax.random.bernoulli``)."""
    data, _ = _key_of("bernoulli", key)
    pa = aval_of(p)
    if pa.dtype not in FLOATING:
        raise RandomKeyError(f"bernoulli probability `p` must have a floating dtype, got {pa.dtype}.")
    if shape is None:
        s = pa.shape
    else:
        s = _shape("bernoulli", shape)
        _check_shape("bernoulli", s, pa.shape)
    if isinstance(p, float):
        p = np.asarray(p, default_float())
    return _bernoulli_jit(data, p, s)


def _gumbel_impl(key: Array, shape: tuple[int, ...], dtype: DType, mode: str) -> Array:
    _, nmant = _float_bits(dtype)
    tiny = _tiny(dtype)
    if mode == "high":
        u = _uniform_impl(key, np.zeros((), dtype), np.ones((), dtype),
                          (2,) + shape, dtype)
        high, low = u[0], u[1]
        x = tnp.where(lax.ge(high, np.asarray(0.5, dtype)), high,
                      lax.add(lax.add(high, lax.mul(np.asarray(2.0 ** -nmant, dtype), low)),
                              np.asarray(tiny, dtype)))
        return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
    u = _uniform_impl(key, np.asarray(tiny, dtype), np.ones((), dtype), shape, dtype)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


_gumbel_jit = jit(_gumbel_impl, static_argnums=(1, 2, 3))


def gumbel(key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None, mode: str | None = None) -> Array:
    """Standard Gumbel floats (``jax.random.gumbel``; ``mode`` "low" or "high")."""
    data, _ = _key_of("gumbel", key)
    m = "low" if mode is None else mode
    if m not in ("low", "high"):
        raise RandomKeyError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel_jit(data, _shape("gumbel", shape), _float_dtype("gumbel", dtype), m)


def _exponential_impl(key: Array, shape: tuple[int, ...], dtype: DType) -> Array:
    u = _uniform_impl(key, np.zeros((), dtype), np.ones((), dtype), shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))


_exponential_jit = jit(_exponential_impl, static_argnums=(1, 2))


def exponential(key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard exponential floats (``jax.random.exponential``)."""
    data, _ = _key_of("exponential", key)
    return _exponential_jit(data, _shape("exponential", shape), _float_dtype("exponential", dtype))


def categorical(
    key: KeyLike, logits: ArrayLike, axis: int = -1, shape: Shape | None = None,
    replace: bool = True, mode: str | None = None,
) -> Array:
    """Indices drawn with probabilities ``softmax(logits, axis)``, by the
    Gumbel-max trick (top-k without replacement) (``jax.random.categorical``)."""
    data, _ = _key_of("categorical", key)
    lg = tnp.asarray(logits)
    la = aval_of(lg)
    nd = la.ndim
    ax = _static_int("categorical", "axis", axis)
    if not -nd <= ax < nd:
        raise RandomKeyError(f"categorical: axis {axis} is out of bounds for logits of rank {nd}")
    batch_shape = tuple(d for i, d in enumerate(la.shape) if i != ax % nd)
    if shape is None:
        s = batch_shape
    else:
        s = _shape("categorical", shape)
        _check_shape("categorical", s, batch_shape)
    prefix = s[: len(s) - len(batch_shape)]
    m = "low" if mode is None else mode
    if replace:
        a = ax - nd if ax >= 0 else ax
        logits_shape = list(s[len(s) - len(batch_shape):])
        logits_shape.insert(a % nd, la.shape[a])
        g = gumbel(data, (*prefix, *logits_shape), la.dtype, mode=m)
        expanded = lax.expand_dims(lg, tuple(range(len(prefix)))) if prefix else lg
        return tnp.argmax(tnp.add(g, expanded), axis=a)
    lg2 = tnp.add(lg, gumbel(data, la.shape, la.dtype, mode=m))
    k = math.prod(prefix)
    if k > la.shape[ax]:
        raise RandomKeyError(
            f"Number of samples without replacement ({k}) cannot exceed number of categories ({la.shape[ax]})."
        )
    _, idx = lax.top_k(_moveaxis(lg2, ax % nd, nd - 1), k)
    perm = (aval_of(idx).ndim - 1, *range(aval_of(idx).ndim - 1))
    return lax.reshape(lax.transpose(idx, perm), s)


# -- samplers made from the ones above (JAX's formulas) ----------------------------
def _float_param_shape(name: str, shape: Shape | None, *params: ArrayLike) -> tuple[int, ...]:
    pshapes = [aval_of(p).shape for p in params]
    if shape is None:
        return tuple(np.broadcast_shapes(*pshapes)) if pshapes else ()
    s = _shape(name, shape)
    _check_shape(name, s, *pshapes)
    return s


def laplace(key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard Laplace floats (``jax.random.laplace``)."""
    d = _float_dtype("laplace", dtype)
    epsneg = 2.0 ** -(_float_bits(d)[1] + 1)
    u = uniform(key, shape, d, minval=-1.0 + epsneg, maxval=1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def logistic(key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard logistic floats (``jax.random.logistic``)."""
    d = _float_dtype("logistic", dtype)
    x = uniform(key, shape, d, minval=_tiny(d), maxval=1.0)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def cauchy(key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard Cauchy floats (``jax.random.cauchy``)."""
    d = _float_dtype("cauchy", dtype)
    u = uniform(key, shape, d, minval=2.0 ** -_float_bits(d)[1], maxval=1.0)
    return lax.tan(lax.mul(np.asarray(np.pi, d), lax.sub(u, np.asarray(0.5, d))))


def rademacher(key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """-1 or 1 with equal probability (``jax.random.rademacher``; default int dtype)."""
    d = default_int() if dtype is None else canonicalize_explicit(np.dtype(dtype), "rademacher")
    b = tnp.astype(bernoulli(key, 0.5, _shape("rademacher", shape)), d)
    return tnp.astype(tnp.subtract(tnp.multiply(2, b), 1), d)


def lognormal(key: KeyLike, sigma: ArrayLike = 1.0, shape: Shape | None = None,
              dtype: DTypeLike | None = None) -> Array:
    """exp(sigma * N(0, 1)) (``jax.random.lognormal``)."""
    d = _float_dtype("lognormal", dtype)
    s = _float_param_shape("lognormal", shape, sigma)
    return lax.exp(tnp.multiply(normal(key, s, d), lax.convert_element_type(sigma, d)))


def chisquare(key: KeyLike, df: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Chi-square(df) floats, as 2 * gamma(df / 2) (``jax.random.chisquare``)."""
    d = _float_dtype("chisquare", dtype)
    s = _float_param_shape("chisquare", shape, df)
    half = lax.div(lax.convert_element_type(df, d), np.asarray(2.0, d))
    return lax.mul(lax.exp(loggamma(key, half, s, d)), np.asarray(2.0, d))


def pareto(key: KeyLike, b: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Pareto(b) floats, exp(Exponential / b) (``jax.random.pareto``)."""
    d = _float_dtype("pareto", dtype)
    s = _float_param_shape("pareto", shape, b)
    return lax.exp(tnp.divide(exponential(key, s, d), lax.convert_element_type(b, d)))


def rayleigh(key: KeyLike, scale: ArrayLike = 1.0, shape: Shape | None = None,
             dtype: DTypeLike | None = None) -> Array:
    """Rayleigh(scale) floats, scale * sqrt(-2 log U) (``jax.random.rayleigh``)."""
    d = _float_dtype("rayleigh", dtype)
    s = _float_param_shape("rayleigh", shape, scale)
    u = uniform(key, s, d)
    sc = tnp.broadcast_to(lax.convert_element_type(scale, d), s)
    return lax.mul(sc, lax.sqrt(lax.mul(lax.log(u), np.asarray(-2.0, d))))


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
        raise RandomKeyError(f"{name}: axis {axis} is out of bounds for an array of rank {ndim}")
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


# -- gamma and what is made from it ------------------------------------------------------
def _gamma_one(key: Array, alpha: Array, log_space: bool) -> Array:
    """One gamma(alpha) sample by Marsaglia and Tsang's method, as JAX's
    ``_gamma_one`` (a while loop over proposals)."""
    d_ = aval_of(alpha).dtype

    def c(v: float) -> Array:
        return tnp.asarray(np.asarray(v, d_))

    zero, one = c(0.0), c(1.0)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, c(1.0 / 3.0))
    cc = lax.div(c(1.0 / 3.0), lax.sqrt(d))

    def cond_fn(state: tuple[Array, Array, Array, Array]) -> Array:
        _, x, v, u = state
        first = lax.ge(u, lax.sub(one, lax.mul(c(0.0331), lax.mul(x, x))))
        second = lax.ge(lax.log(u), lax.add(lax.mul(x, c(0.5)), lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))))
        return tnp.logical_and(first, second)

    def body_fn(state: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        def next_kxv(kxv: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
            ks = _split(kxv[0], (2,))
            x = _normal_impl(ks[1], (), d_)
            return ks[0], x, lax.add(one, lax.mul(x, cc))

        ks = _split(state[0], (3,))
        _, x, v = lax.while_loop(lambda kxv: lax.le(kxv[2], zero), next_kxv, (ks[1], zero, c(-1.0)))
        X = lax.mul(x, x)
        V = lax.mul(lax.mul(v, v), v)
        U = _uniform_impl(ks[2], zero, one, (), d_)
        return ks[0], X, V, U

    ks = _split(key, (2,))
    _, _, V, _ = lax.while_loop(cond_fn, body_fn, (ks[0], zero, one, c(2.0)))
    if log_space:
        log_samples = lax.neg(_exponential_impl(ks[1], (), d_))
        log_boost = lax.select(tnp.logical_or(boost_mask, lax.eq(log_samples, zero)), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = lax.sub(one, _uniform_impl(ks[1], zero, one, (), d_))
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _detach(x: Array) -> Array:
    """``x`` with a zero derivative (JAX's ``stop_gradient`` there)."""
    return lax.stop_gradient(x)


def _gamma_impl(
    key: Array, a: ArrayLike, shape: tuple[int, ...], dtype: DType, log_space: bool, differentiable: bool
) -> Array:
    a = _bcast(lax.convert_element_type(a, dtype), shape)
    a_fixed = _detach(a) if differentiable else a
    n = math.prod(shape)
    keys = _split(key, (n,))
    flat = lax.reshape(a_fixed, (n,))
    samples = lax.reshape(vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, flat), shape)
    if not differentiable:  # a concrete ``a``: nothing can differentiate it
        return samples
    # JAX's derivative (implicit reparameterization, ``random_gamma_p``'s JVP):
    # d sample / d a = -(dP/da) / (dP/dx) at the sample, P the regularized
    # incomplete gamma function; attached as ``sample + (a - a_fixed) * grad``,
    # whose value is the sample and whose derivative is ``grad`` (0 where it
    # is not finite, so the value stays the sample)
    if log_space:
        x = lax.exp(samples)
        x = lax.select(lax.eq(x, np.zeros((), dtype)), tnp.full(shape, _tiny(dtype), dtype), x)
        grad = lax.div(_random_gamma_grad(a_fixed, x), x)
    else:
        grad = _random_gamma_grad(a_fixed, samples)
    grad = lax.select(lax.is_finite(grad), grad, tnp.zeros_like(grad))
    return lax.add(samples, lax.mul(lax.sub(a, a_fixed), _detach(grad)))


def _random_gamma_grad(a: Array, x: Array) -> Array:
    """d x / d a for a gamma(a) sample ``x`` (JAX's ``random_gamma_grad``:
    the incomplete gamma function's series below ``max(1, a)``, its continued
    fraction above, differentiated, as ``jax._src.lax.special``)."""
    d = aval_of(a).dtype
    shape = aval_of(a).shape

    def c(v: float) -> Array:
        return tnp.full(shape, v, d)

    is_nan = tnp.logical_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, c(0.0))
    domain_error = tnp.logical_or(lax.lt(x, c(0.0)), lax.le(a, c(0.0)))
    use_igammac = tnp.logical_and(lax.gt(x, c(1.0)), lax.gt(x, a))
    ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a))
    underflow = lax.lt(ax, c(-float(np.log(np.finfo(np.float64 if d.itemsize == 8 else np.float32).max))))
    enabled = tnp.logical_not(tnp.logical_or(tnp.logical_or(x_is_zero, domain_error), tnp.logical_or(underflow, is_nan)))
    cf = _igammac_cf_sample_derivative(x, a, tnp.logical_and(enabled, use_igammac))
    series = _igamma_series_sample_derivative(x, a, tnp.logical_and(enabled, tnp.logical_not(use_igammac)))
    out = lax.select(use_igammac, lax.neg(cf), series)
    out = lax.select(x_is_zero, c(0.0), out)
    return lax.select(tnp.logical_or(domain_error, is_nan), c(float("nan")), out)


def _eps(d: DType) -> float:
    return float(np.ldexp(1.0, -_float_bits(d)[1]))


def _igamma_series_sample_derivative(x: Array, a: Array, enabled: Array) -> Array:
    d = aval_of(a).dtype
    eps = _eps(d)
    zeros, ones = tnp.zeros_like(a), tnp.ones_like(a)

    def body(v: tuple[Array, ...]) -> tuple[Array, ...]:
        en, r0, c0, ans0, x_, dc0, dans0 = v
        r = lax.add(r0, ones)
        dc = lax.sub(lax.mul(dc0, lax.div(x_, r)), lax.div(lax.mul(c0, x_), lax.mul(r, r)))
        dans = lax.add(dans0, dc)
        cc = lax.mul(c0, lax.div(x_, r))
        ans = lax.add(ans0, cc)
        cond = tnp.logical_and(en, lax.gt(lax.abs(lax.div(dc, dans)), tnp.full_like(dc, eps)))
        return (cond, lax.select(en, r, r0), lax.select(en, cc, c0), lax.select(en, ans, ans0), x_,
                lax.select(en, dc, dc0), lax.select(en, dans, dans0))

    init = (enabled, a, ones, ones, x, zeros, zeros)
    out = lax.while_loop(lambda v: tnp.any(v[0]), body, init)
    ans, dans = out[3], out[6]
    dlogax_da = lax.sub(lax.log(x), lax.digamma(lax.add(a, ones)))
    return lax.div(lax.mul(lax.neg(lax.add(dans, lax.mul(ans, dlogax_da))), x), a)


def _igammac_cf_sample_derivative(x: Array, a: Array, enabled: Array) -> Array:
    d = aval_of(a).dtype
    eps = _eps(d)
    zeros, ones = tnp.zeros_like(a), tnp.ones_like(a)
    big = tnp.full_like(a, 1.0 / eps)
    epsv = tnp.full_like(a, eps)

    def cond(v: tuple[Array, ...]) -> Array:
        return tnp.logical_and(lax.lt(v[5], np.asarray(2000.0, d)), tnp.any(v[0]))

    def body(v: tuple[Array, ...]) -> tuple[Array, ...]:
        (en, ans0, t0, y0, z0, cnt, pkm1_0, qkm1_0, pkm2_0, qkm2_0,
         dpkm2_0, dqkm2_0, dpkm1_0, dqkm1_0, dans0) = v
        cnt = lax.add(cnt, np.asarray(1.0, d))
        cb = tnp.full_like(a, cnt)
        y = lax.add(y0, ones)
        z = lax.add(z0, tnp.full_like(a, 2.0))
        yc = lax.mul(y, cb)
        pk = lax.sub(lax.mul(pkm1_0, z), lax.mul(pkm2_0, yc))
        qk = lax.sub(lax.mul(qkm1_0, z), lax.mul(qkm2_0, yc))
        nz = lax.ne(qk, zeros)
        r = lax.div(pk, qk)
        t = lax.select(nz, lax.abs(lax.div(lax.sub(ans0, r), r)), ones)
        ans = lax.select(nz, r, ans0)
        dpk = lax.add(lax.sub(lax.sub(lax.mul(dpkm1_0, z), pkm1_0), lax.mul(dpkm2_0, yc)), lax.mul(pkm2_0, cb))
        dqk = lax.add(lax.sub(lax.sub(lax.mul(dqkm1_0, z), qkm1_0), lax.mul(dqkm2_0, yc)), lax.mul(qkm2_0, cb))
        dans = lax.select(nz, lax.div(lax.sub(dpk, lax.mul(ans, dqk)), qk), dans0)
        gcond = lax.select(nz, lax.abs(lax.sub(dans, dans0)), ones)
        pkm2, pkm1, qkm2, qkm1 = pkm1_0, pk, qkm1_0, qk
        dpkm2, dqkm2, dpkm1, dqkm1 = dpkm1_0, dqkm1_0, dpk, dqk
        rescale = lax.gt(lax.abs(pk), big)

        def rs(v_: Array) -> Array:
            return lax.select(rescale, lax.mul(v_, epsv), v_)

        pkm2, pkm1, qkm2, qkm1 = rs(pkm2), rs(pkm1), rs(qkm2), rs(qkm1)
        dpkm2, dqkm2, dpkm1, dqkm1 = rs(dpkm2), rs(dqkm2), rs(dpkm1), rs(dqkm1)
        c2 = tnp.logical_and(en, lax.gt(gcond, epsv))
        keep = [(ans, ans0), (t, t0), (y, y0), (z, z0)]
        rest = [(pkm1, pkm1_0), (qkm1, qkm1_0), (pkm2, pkm2_0), (qkm2, qkm2_0), (dpkm2, dpkm2_0),
                (dqkm2, dqkm2_0), (dpkm1, dpkm1_0), (dqkm1, dqkm1_0), (dans, dans0)]
        return (c2, *(lax.select(en, n_, o) for n_, o in keep), cnt,
                *(lax.select(en, n_, o) for n_, o in rest))

    y = lax.sub(ones, a)
    z = lax.add(lax.add(x, y), ones)
    pkm2, qkm2 = ones, x
    pkm1 = lax.add(x, ones)
    qkm1 = lax.mul(z, x)
    ans = lax.div(pkm1, qkm1)
    dqkm1 = lax.neg(x)
    dans = lax.div(lax.sub(zeros, lax.mul(ans, dqkm1)), qkm1)
    init = (enabled, ans, ones, y, z, tnp.asarray(np.zeros((), d)), pkm1, qkm1, pkm2, qkm2,
            zeros, zeros, zeros, dqkm1, dans)
    out = lax.while_loop(cond, body, init)
    dlogax_da = lax.sub(lax.log(x), lax.digamma(a))
    return lax.neg(lax.mul(lax.add(out[14], lax.mul(out[1], dlogax_da)), x))


_gamma_jit = jit(_gamma_impl, static_argnums=(2, 3, 4, 5))


def _gamma_args(name: str, key: KeyLike, a: ArrayLike, shape: Shape | None, dtype: DTypeLike | None
                ) -> tuple[Array, tuple[int, ...], DType]:
    data, _ = _key_of(name, key)
    d = _float_dtype(name, dtype)
    if shape is None:
        s = aval_of(a).shape
    else:
        s = _shape(name, shape)
        _check_shape(name, s, aval_of(a).shape)
    return data, s, d


def gamma(key: KeyLike, a: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Gamma(a, 1) floats (``jax.random.gamma``)."""
    data, s, d = _gamma_args("gamma", key, a, shape, dtype)
    if math.prod(s) == 0:
        return tnp.zeros(s, d)
    return _gamma_jit(data, a, s, d, False, isinstance(a, Tracer))


def loggamma(key: KeyLike, a: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """The logarithm of gamma(a, 1) floats, accurate for small ``a`` (``jax.random.loggamma``)."""
    data, s, d = _gamma_args("loggamma", key, a, shape, dtype)
    if math.prod(s) == 0:
        return tnp.zeros(s, d)
    return _gamma_jit(data, a, s, d, True, isinstance(a, Tracer))


def beta(key: KeyLike, a: ArrayLike, b: ArrayLike, shape: Shape | None = None,
         dtype: DTypeLike | None = None) -> Array:
    """Beta(a, b) floats, from two log-gamma samples (``jax.random.beta``)."""
    data, _ = _key_of("beta", key)
    d = _float_dtype("beta", dtype)
    pshapes = (aval_of(a).shape, aval_of(b).shape)
    if shape is None:
        s = np.broadcast_shapes(*pshapes)
    else:
        s = _shape("beta", shape)
        _check_shape("beta", s, *pshapes)
    ks = split(data)
    lga = loggamma(ks[0], _bcast(lax.convert_element_type(a, d), s), s, d)
    lgb = loggamma(ks[1], _bcast(lax.convert_element_type(b, d), s), s, d)
    log_max = lax.max(lga, lgb)
    ga = tnp.exp(lax.sub(lga, log_max))
    gb = tnp.exp(lax.sub(lgb, log_max))
    return lax.div(ga, lax.add(ga, gb))


def dirichlet(key: KeyLike, alpha: ArrayLike, shape: Shape | None = None,
              dtype: DTypeLike | None = None) -> Array:
    """Dirichlet(alpha) vectors along the last axis (``jax.random.dirichlet``)."""
    data, _ = _key_of("dirichlet", key)
    d = _float_dtype("dirichlet", dtype)
    aa = aval_of(alpha)
    if aa.ndim < 1:
        raise RandomKeyError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {aa.ndim}")
    if shape is None:
        s = aa.shape[:-1]
    else:
        s = _shape("dirichlet", shape)
        _check_shape("dirichlet", s, aa.shape[:-1])
    full = s + aa.shape[-1:]
    lg = loggamma(data, _bcast(lax.convert_element_type(alpha, d), full), full, d)
    e = tnp.exp(tnp.subtract(lg, tnp.max(lg, axis=-1, keepdims=True)))
    return tnp.divide(e, tnp.sum(e, axis=-1, keepdims=True))


# -- linear algebra the multivariate samplers need ----------------------------------------
def _cholesky(a: Array) -> Array:
    """The lower Cholesky factor of the positive definite ``a[..., n, n]``
    (column by column; ``n`` is static), of ``a`` symmetrized first, as
    ``jnp.linalg.cholesky(symmetrize_input=True)``: so a gradient w.r.t. ``a``
    spreads over both triangles, as JAX's."""
    n = aval_of(a).shape[-1]
    a = tnp.multiply(tnp.add(a, tnp.swapaxes(a, -1, -2)), 0.5)
    cols: list[Array] = []
    for j in range(n):
        lj = [c[..., j] for c in cols]  # L[..., j, :j]
        s = a[..., j, j]
        for v in lj:
            s = tnp.subtract(s, tnp.multiply(v, v))
        djj = tnp.sqrt(s)
        col = a[..., :, j]
        for k, v in enumerate(lj):
            col = tnp.subtract(col, tnp.multiply(cols[k], tnp.expand_dims(v, -1)))
        col = tnp.divide(col, tnp.expand_dims(djj, -1))
        mask = np.arange(n) > j
        col = tnp.where(mask, col, tnp.where(np.arange(n) == j, tnp.expand_dims(djj, -1), 0.0))
        cols.append(col)
    return tnp.stack(cols, axis=-1)


def multivariate_normal(
    key: KeyLike, mean: ArrayLike, cov: ArrayLike, shape: Shape | None = None,
    dtype: DTypeLike | None = None, method: str = "cholesky",
) -> Array:
    """Normal vectors with mean ``mean[..., n]`` and covariance ``cov[..., n, n]``
    (``jax.random.multivariate_normal``; ``method="cholesky"``)."""
    data, _ = _key_of("multivariate_normal", key)
    if method != "cholesky":
        raise RandomKeyError(f"multivariate_normal: method {method!r} is not supported (only 'cholesky')")
    m = tnp.asarray(mean)
    cv = tnp.asarray(cov)
    if aval_of(m).dtype not in FLOATING:
        m = tnp.astype(m, default_float())
    d = aval_of(m).dtype if dtype is None else _float_dtype("multivariate_normal", dtype)
    ms, cs = aval_of(m).shape, aval_of(cv).shape
    if len(ms) < 1:
        raise RandomKeyError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {len(ms)}")
    if len(cs) < 2:
        raise RandomKeyError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {len(cs)}")
    n = ms[-1]
    if cs[-2:] != (n, n):
        raise RandomKeyError(
            f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got cov.shape == {cs}."
        )
    if shape is None:
        s = np.broadcast_shapes(ms[:-1], cs[:-2])
    else:
        s = _shape("multivariate_normal", shape)
        _check_shape("normal", s, ms[:-1], cs[:-2])
    factor = _cholesky(tnp.astype(cv, d))
    z = normal(data, s + (n,), d)
    return tnp.add(tnp.astype(m, d), tnp.sum(tnp.multiply(factor, tnp.expand_dims(z, -2)), axis=-1))


def _orthonormal_columns(z: Array) -> Array:
    """Q of ``z = QR`` with R's diagonal positive (Gram-Schmidt, twice over)."""
    k = aval_of(z).shape[-1]
    qs: list[Array] = []
    for j in range(k):
        v = z[..., :, j]
        for _ in range(2):  # re-orthogonalize: as accurate as Householder
            for q in qs:
                v = tnp.subtract(v, tnp.multiply(tnp.sum(tnp.multiply(q, v), axis=-1, keepdims=True), q))
        v = tnp.divide(v, tnp.sqrt(tnp.sum(tnp.multiply(v, v), axis=-1, keepdims=True)))
        qs.append(v)
    return tnp.stack(qs, axis=-1)


def orthogonal(key: KeyLike, n: int, shape: Shape = (), dtype: DTypeLike | None = None,
               m: int | None = None) -> Array:
    """A uniformly random (semi-)orthogonal ``n`` by ``m`` matrix (Haar
    measure) (``jax.random.orthogonal``)."""
    data, _ = _key_of("orthogonal", key)
    nn = _static_int("orthogonal", "n", n)
    mm = nn if m is None else _static_int("orthogonal", "m", m)
    d = _float_dtype("orthogonal", dtype)
    s = _shape("orthogonal", shape)
    z = normal(data, (*s, max(nn, mm), min(nn, mm)), d)
    q = _orthonormal_columns(z)
    r = aval_of(q).ndim
    return _moveaxis(q, r - 1, r - 2) if nn < mm else q


def _moveaxis(x: Array, src: int, dst: int) -> Array:
    perm = [i for i in range(aval_of(x).ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, tuple(perm))


# -- the rest of jax.random: discrete samplers and more compositions --------------------
def _int_dtype(name: str, dtype: object) -> DType:
    d = default_int() if dtype is None else canonicalize_explicit(np.dtype(cast(DTypeLike, dtype)), name)
    if d not in INTEGER:
        raise RandomKeyError(f"dtype argument to `{name}` must be an int dtype, got {d}")
    return d


def _inexact_dtype(x: ArrayLike) -> DType:
    """``x``'s dtype if a float, else the default float (``promote_dtypes_inexact``)."""
    d = aval_of(x).dtype
    return d if d in FLOATING else default_float()


def _check_safe_cast(name: str, dtype: DType, *args: ArrayLike) -> None:
    """JAX's ``_check_all_safe_to_cast``: each parameter converts to ``dtype``
    without loss under the promotion rules (Python scalars are weak, so always)."""
    for a in args:
        if type(a) in (bool, int, float):
            continue
        ad = aval_of(a).dtype
        if tnp.result_type(ad, dtype) != dtype:
            raise RandomKeyError(f"In arguments to {name}, cannot safely cast argument of type {ad} to {dtype}")


def _no_tangent(x: ArrayLike) -> ArrayLike:
    """``x`` detached from differentiation where it is traced: a sampler of
    counts (floors and selects of its parameters) has a zero derivative, and
    its rejection loops then carry no tangents."""
    return lax.stop_gradient(x) if isinstance(x, Tracer) else x


def _const(v: float, dtype: DType) -> np.ndarray[tuple[()], np.dtype[np.generic]]:
    return np.asarray(v, dtype)


def _loop_bound(max_iters: int) -> tuple[DType, int]:
    """The dtype and bound of a while loop's iteration counter (``i < max_iters``)."""
    it = default_int()
    return it, min(max_iters, int_range(it)[1])


def _poisson_knuth(key: Array, lam: Array, shape: tuple[int, ...], dtype: DType, max_iters: int) -> Array:
    """Knuth's algorithm over the whole array at once, as JAX's: count the
    uniforms (float32) whose running log-product stays above ``-lam``."""
    f32 = np.dtype(np.float32)
    it, bound = _loop_bound(max_iters)
    neg_lam = lax.neg(lam)
    one = tnp.ones(shape, dtype)

    def body(c: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        i, k, rng, log_prod = c
        ks = _split(rng, (2,))
        k = lax.select(lax.gt(log_prod, neg_lam), lax.add(k, one), k)
        u = _uniform_impl(ks[1], _const(0.0, f32), _const(1.0, f32), shape, f32)
        return lax.add(i, _const(1, it)), k, ks[0], lax.add(log_prod, lax.log(u))

    def cond(c: tuple[Array, Array, Array, Array]) -> Array:
        return tnp.logical_and(tnp.any(lax.gt(c[3], neg_lam)), lax.lt(c[0], _const(bound, it)))

    init = (tnp.zeros((), it), tnp.zeros(shape, dtype), key, tnp.zeros(shape, f32))
    k = lax.while_loop(cond, body, init)[1]
    return lax.sub(k, one)


def _poisson_rejection(key: Array, lam: Array, shape: tuple[int, ...], dtype: DType, max_iters: int) -> Array:
    """Hörmann's transformed rejection (PTRS), as JAX's: all elements draw
    each round, and each keeps its first accepted proposal."""
    f = aval_of(lam).dtype
    it, bound = _loop_bound(max_iters)

    def c(v: float) -> np.ndarray[tuple[()], np.dtype[np.generic]]:
        return _const(v, f)

    log_lam = lax.log(lam)
    b = lax.add(c(0.931), lax.mul(c(2.53), lax.sqrt(lam)))
    a = lax.add(c(-0.059), lax.mul(c(0.02483), b))
    inv_alpha = lax.add(c(1.1239), lax.div(c(1.1328), lax.sub(b, c(3.4))))
    v_r = lax.sub(c(0.9277), lax.div(c(3.6224), lax.sub(b, c(2.0))))

    def body(st: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        i, k_out, accepted, rng = st
        ks = _split(rng, (3,))
        u = lax.sub(_uniform_impl(ks[1], c(0.0), c(1.0), shape, f), c(0.5))
        v = _uniform_impl(ks[2], c(0.0), c(1.0), shape, f)
        u_shifted = lax.sub(c(0.5), lax.abs(u))
        k = lax.floor(lax.add(lax.add(lax.mul(lax.add(lax.div(lax.mul(c(2.0), a), u_shifted), b), u), lam),
                              c(0.43)))
        s = lax.log(lax.div(lax.mul(v, inv_alpha), lax.add(lax.div(a, lax.mul(u_shifted, u_shifted)), b)))
        t_ = lax.sub(lax.add(lax.neg(lam), lax.mul(k, log_lam)), lax.lgamma(lax.add(k, c(1.0))))
        accept1 = tnp.logical_and(lax.ge(u_shifted, c(0.07)), lax.le(v, v_r))
        reject = tnp.logical_or(lax.lt(k, c(0.0)),
                                tnp.logical_and(lax.lt(u_shifted, c(0.013)), lax.gt(v, u_shifted)))
        accept = tnp.logical_or(accept1, tnp.logical_and(tnp.logical_not(reject), lax.le(s, t_)))
        return (lax.add(i, _const(1, it)), lax.select(accept, k, k_out), tnp.logical_or(accepted, accept),
                ks[0])

    def cond(st: tuple[Array, Array, Array, Array]) -> Array:
        return tnp.logical_and(tnp.any(tnp.logical_not(st[2])), lax.lt(st[0], _const(bound, it)))

    init = (tnp.zeros((), it), tnp.full(shape, -1.0, f), tnp.zeros(shape, np.dtype(np.bool_)), key)
    k = lax.while_loop(cond, body, init)[1]
    return lax.convert_element_type(k, dtype)


def _poisson_impl(key: Array, lam: ArrayLike, shape: tuple[int, ...], dtype: DType) -> Array:
    f32 = np.dtype(np.float32)
    lam = lax.convert_element_type(_bcast(lam, shape), f32)
    use_knuth = tnp.logical_or(lax.ne(lam, lam), lax.lt(lam, _const(10.0, f32)))
    lam_knuth = lax.select(use_knuth, lam, tnp.zeros(shape, f32))
    # PTRS accepts at least 89% of proposals for large rates: a large one for
    # the elements Knuth's algorithm serves
    lam_rejection = lax.select(use_knuth, tnp.full(shape, 1e5, f32), lam)
    max_iters = int_range(dtype)[1]
    result = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lax.eq(lam, tnp.zeros(shape, f32)), tnp.zeros(shape, dtype), result)


_poisson_jit = jit(_poisson_impl, static_argnums=(2, 3))


def poisson(key: KeyLike, lam: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Poisson(lam) integers (``jax.random.poisson``; default int dtype).

    As JAX's: ``lam`` is taken in float32; rates below 10 (and NaN) by
    Knuth's algorithm, the others by Hörmann's transformed rejection, both
    looping over the whole array (so an element's value depends on the shape
    it was drawn in, as in JAX); the counter of either loop stops at the
    dtype's largest value. ``lam == 0`` gives 0, a NaN rate -1. Integers:
    the derivative with respect to ``lam`` is zero."""
    data, _ = _key_of("poisson", key)
    d = _int_dtype("poisson", dtype)
    s = _float_param_shape("poisson", shape, lam)
    if math.prod(s) == 0:
        return tnp.zeros(s, d)
    # counts: their derivative is zero (JAX's too), so the rate enters the
    # loops without a tangent
    return _poisson_jit(data, _no_tangent(lam), s, d)


_STIRLING_TAIL = (
    0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
    0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
    0.00925546218271273, 0.00833056343336287,
)


def _stirling_approx_tail(k: Array) -> Array:
    """log(k!) minus its Stirling approximation: a table for k <= 9, a series
    above (as JAX's, the series of k clamped to 9)."""
    d = aval_of(k).dtype
    use_table = lax.le(k, _const(9.0, d))
    k = lax.clamp(_const(0.0, d), k, _const(9.0, d))
    kp1 = lax.add(k, _const(1.0, d))
    kp1sq = lax.mul(kp1, kp1)
    inner = lax.sub(_const(1.0 / 360, d), lax.div(_const(1.0 / 1260, d), kp1sq))
    approx = lax.div(lax.sub(_const(1.0 / 12, d), lax.div(inner, kp1sq)), kp1)
    idx = lax.convert_element_type(lax.floor(k), np.dtype(np.int32))
    table = tnp.asarray(np.asarray(_STIRLING_TAIL, d))
    return lax.select(use_table, table[idx], approx)


def _binomial_inversion(key: Array, count: Array, prob: Array, shape: tuple[int, ...], dtype: DType) -> Array:
    """The number of geometric(prob) waiting times that fit in ``count`` trials."""
    f = aval_of(prob).dtype
    log1minusprob = lax.log1p(lax.neg(prob))
    one = tnp.ones(shape, f)

    def body(c: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        num_geom, geom_sum, rng = c
        ks = _split(rng, (2,))
        num_geom = lax.select(lax.le(geom_sum, count), lax.add(num_geom, one), num_geom)
        u = _uniform_impl(ks[0], _const(0.0, f), _const(1.0, f), shape, f)
        geom = lax.ceil(lax.div(lax.log(u), log1minusprob))
        return num_geom, lax.add(geom_sum, geom), ks[1]

    def cond(c: tuple[Array, Array, Array]) -> Array:
        return tnp.any(lax.le(c[1], count))

    k = lax.while_loop(cond, body, (tnp.zeros(shape, f), tnp.zeros(shape, f), key))[0]
    return lax.convert_element_type(lax.sub(k, one), dtype)


def _btrs(key: Array, count: Array, prob: Array, shape: tuple[int, ...], dtype: DType) -> Array:
    """Hörmann's transformed rejection with squeeze (BTRS), as JAX's."""
    f = aval_of(prob).dtype

    def c(v: float) -> np.ndarray[tuple[()], np.dtype[np.generic]]:
        return _const(v, f)

    one_minus_p = lax.sub(c(1.0), prob)
    stddev = lax.sqrt(lax.mul(lax.mul(count, prob), one_minus_p))
    b = lax.add(c(1.15), lax.mul(c(2.53), stddev))
    a = lax.add(lax.add(c(-0.0873), lax.mul(c(0.0248), b)), lax.mul(c(0.01), prob))
    cc = lax.add(lax.mul(count, prob), c(0.5))
    v_r = lax.sub(c(0.92), lax.div(c(4.2), b))
    r = lax.div(prob, one_minus_p)
    alpha = lax.mul(lax.add(c(2.83), lax.div(c(5.1), b)), stddev)
    m = lax.floor(lax.mul(lax.add(count, c(1.0)), prob))

    def body(st: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        k_out, accepted, rng = st
        ks = _split(rng, (3,))
        u = _uniform_impl(ks[1], c(0.0), c(1.0), shape, f)
        v = _uniform_impl(ks[2], c(0.0), c(1.0), shape, f)
        u = lax.sub(u, c(0.5))
        us = lax.sub(c(0.5), lax.abs(u))
        accept1 = tnp.logical_and(lax.ge(us, c(0.07)), lax.le(v, v_r))
        k = lax.floor(lax.add(lax.mul(lax.add(lax.div(lax.mul(c(2.0), a), us), b), u), cc))
        reject = tnp.logical_or(lax.lt(k, c(0.0)), lax.gt(k, count))
        v = lax.log(lax.div(lax.mul(v, alpha), lax.add(lax.div(a, lax.mul(us, us)), b)))
        cm1 = lax.add(lax.sub(count, m), c(1.0))
        ck1 = lax.add(lax.sub(count, k), c(1.0))
        ub = lax.add(lax.mul(lax.add(m, c(0.5)), lax.log(lax.div(lax.add(m, c(1.0)), lax.mul(r, cm1)))),
                     lax.mul(lax.add(count, c(1.0)), lax.log(lax.div(cm1, ck1))))
        ub = lax.add(ub, lax.mul(lax.add(k, c(0.5)), lax.log(lax.div(lax.mul(r, ck1), lax.add(k, c(1.0))))))
        ub = lax.add(ub, _stirling_approx_tail(m))
        ub = lax.add(ub, _stirling_approx_tail(lax.sub(count, m)))
        ub = lax.sub(ub, _stirling_approx_tail(k))
        ub = lax.sub(ub, _stirling_approx_tail(lax.sub(count, k)))
        accept = tnp.logical_or(accept1, tnp.logical_and(tnp.logical_not(reject), lax.le(v, ub)))
        return lax.select(accept, k, k_out), tnp.logical_or(accepted, accept), ks[0]

    def cond(st: tuple[Array, Array, Array]) -> Array:
        return tnp.any(tnp.logical_not(st[1]))

    init = (tnp.full(shape, -1.0, f), tnp.zeros(shape, np.dtype(np.bool_)), key)
    return lax.convert_element_type(lax.while_loop(cond, body, init)[0], dtype)


def _binomial_impl(key: Array, count: ArrayLike, prob: ArrayLike, shape: tuple[int, ...], dtype: DType) -> Array:
    f = _inexact_dtype(prob)
    prob = _bcast(lax.convert_element_type(prob, f), shape)
    count = _bcast(lax.convert_element_type(count, f), shape)

    def full(v: float) -> Array:
        return tnp.full(shape, v, f)

    p_lt_half = lax.lt(prob, full(0.5))
    q = lax.select(p_lt_half, prob, lax.sub(full(1.0), prob))
    count_nan_or_neg = tnp.logical_or(lax.ne(count, count), lax.lt(count, full(0.0)))
    count_inf = tnp.isinf(count)
    q_is_nan = lax.ne(q, q)
    q_l_0 = lax.lt(q, full(0.0))
    q = lax.select(tnp.logical_or(q_is_nan, q_l_0), full(0.01), q)
    use_inversion = tnp.logical_or(count_nan_or_neg, lax.le(lax.mul(count, q), full(10.0)))
    count = lax.floor(count)  # as np.random.binomial for a float count
    count_inv = lax.select(use_inversion, count, full(0.0))
    count_btrs = lax.select(use_inversion, full(1e4), count)
    q_btrs = lax.select(use_inversion, full(0.5), q)
    samples = lax.select(use_inversion, _binomial_inversion(key, count_inv, q, shape, dtype),
                         _btrs(key, count_btrs, q_btrs, shape, dtype))
    invalid = tnp.logical_or(tnp.logical_or(q_l_0, q_is_nan), count_nan_or_neg)
    samples = lax.select(invalid, tnp.full(shape, np.nan, dtype), samples)
    samples = lax.select(tnp.logical_and(count_inf, tnp.logical_not(invalid)), tnp.full(shape, np.inf, dtype),
                         samples)
    keep = tnp.logical_or(tnp.logical_or(p_lt_half, count_nan_or_neg), tnp.logical_or(q_is_nan, count_inf))
    return lax.select(keep, samples, lax.sub(lax.convert_element_type(count, dtype), samples))


_binomial_jit = jit(_binomial_impl, static_argnums=(3, 4))


def binomial(key: KeyLike, n: ArrayLike, p: ArrayLike, shape: Shape | None = None,
             dtype: DTypeLike | None = None) -> Array:
    """Binomial(n, p) counts as floats (``jax.random.binomial``; default float dtype).

    As JAX's: computed in ``p``'s float type (the default float for an
    integer ``p``), ``n`` floored; by inversion (counting geometric waiting
    times) where ``n * min(p, 1 - p) <= 10`` and by transformed rejection
    (BTRS) elsewhere, over the whole array. A NaN or negative ``n`` or an
    invalid ``p`` gives NaN, an infinite ``n`` infinity. Counts: the
    derivative with respect to ``n`` and ``p`` is zero, as JAX's. The BTRS
    bound uses JAX's Stirling tail, whose series is evaluated at ``min(k, 9)``
    (JAX clamps ``k`` before it), so that the counts stay JAX's."""
    data, _ = _key_of("binomial", key)
    d = _float_dtype("binomial", dtype)
    s = _float_param_shape("binomial", shape, n, p)
    if math.prod(s) == 0:
        return tnp.zeros(s, d)
    return _binomial_jit(data, _no_tangent(n), _no_tangent(p), s, d)


def multinomial(key: KeyLike, n: ArrayLike, p: ArrayLike, *, shape: Shape | None = None,
                dtype: DTypeLike | None = None, unroll: int | bool = 1) -> Array:
    """Counts of ``n`` trials over the outcomes of ``p`` (last axis)
    (``jax.random.multinomial``): a scan over the outcomes drawing each count
    as a binomial of what remains.

    As JAX's code (not its docstring), ``shape`` is the whole result shape,
    outcomes last: ``p`` broadcasts to it and ``n`` to ``shape[:-1]``; the
    default is ``p.shape``. The result has ``dtype`` (default float).
    ``unroll`` is accepted for JAX's signature; typedax's ``scan`` does not
    unroll, which changes no value."""
    data, _ = _key_of("multinomial", key)
    if not isinstance(cast(object, unroll), (bool, int, np.integer)):  # a traced or float unroll
        raise RandomKeyError(f"multinomial: unroll must be a Python integer or bool, got {unroll!r}")
    d = default_float() if dtype is None else canonicalize_explicit(np.dtype(dtype), "multinomial")
    ft = tnp.result_type(n, p)
    ft = ft if ft in FLOATING else default_float()
    pa = aval_of(p)
    if pa.ndim < 1:
        raise RandomKeyError(f"multinomial requires p.ndim >= 1 (outcomes on the last axis), got p.ndim == {pa.ndim}")
    s = pa.shape if shape is None else _shape("multinomial", shape)
    if not s:
        raise RandomKeyError("multinomial: shape must have at least one dimension (the outcomes)")
    _check_shape("multinomial", s, pa.shape)
    _check_shape("multinomial", s[:-1], aval_of(n).shape)
    nn = _bcast(lax.convert_element_type(n, ft), s[:-1])
    pp = tnp.moveaxis(_bcast(lax.convert_element_type(p, ft), s), -1, 0)
    remaining = lax.cumsum(pp, 0, reverse=True)
    ratios = tnp.divide(pp, tnp.where(lax.eq(remaining, tnp.zeros_like(remaining)), tnp.ones_like(remaining),
                                      remaining))
    keys = _split_jit(data, (s[-1],))

    def step(remainder: Array, ratio_key: tuple[Array, Array]) -> tuple[Array, Array]:
        ratio, k = ratio_key
        count = binomial(k, remainder, tnp.clip(ratio, 0, 1), dtype=aval_of(remainder).dtype)
        return lax.sub(remainder, count), count

    _, counts = lax.scan(step, nn, (ratios, keys))
    return tnp.astype(tnp.moveaxis(counts, 0, -1), d)


def t(key: KeyLike, df: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Student's t(df) floats, ``normal * sqrt((df / 2) / gamma(df / 2))``
    (``jax.random.t``); differentiable in ``df`` through ``gamma``."""
    data, _ = _key_of("t", key)
    d = _float_dtype("t", dtype)
    s = _float_param_shape("t", shape, df)
    _check_safe_cast("t", d, df)
    ks = split(data)
    n = normal(ks[0], s, d)
    half_df = lax.div(lax.convert_element_type(df, d), _const(2.0, d))
    g = gamma(ks[1], half_df, s, d)
    return tnp.multiply(n, tnp.sqrt(tnp.divide(half_df, g)))


def f(key: KeyLike, dfnum: ArrayLike, dfden: ArrayLike, shape: Shape | None = None,
      dtype: DTypeLike | None = None) -> Array:
    """F(dfnum, dfden) floats, a ratio of two chi-squares over their degrees
    of freedom (``jax.random.f``); differentiable in both through ``gamma``."""
    data, _ = _key_of("f", key)
    d = _float_dtype("f", dtype)
    s = _float_param_shape("f", shape, dfnum, dfden)
    _check_safe_cast("f", d, dfnum, dfden)
    dfden_ = lax.convert_element_type(dfden, d)
    dfnum_ = lax.convert_element_type(dfnum, d)
    ks = split(data)
    chi2_dfn = chisquare(ks[1], dfnum_, s, d)
    chi2_dfd = chisquare(ks[0], dfden_, s, d)
    return tnp.divide(tnp.divide(chi2_dfn, dfnum_), tnp.divide(chi2_dfd, dfden_))


def _maxwell_impl(key: Array, shape: tuple[int, ...], dtype: DType) -> Array:
    x = _normal_impl(key, (*shape, 3), dtype)
    return lax.sqrt(tnp.sum(lax.mul(x, x), axis=-1))


_maxwell_jit = jit(_maxwell_impl, static_argnums=(1, 2))


def maxwell(key: KeyLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """One-sided Maxwell floats: the norm of three standard normals
    (``jax.random.maxwell``)."""
    data, _ = _key_of("maxwell", key)
    return _maxwell_jit(data, _shape("maxwell", shape), _float_dtype("maxwell", dtype))


def _double_sided_maxwell_impl(key: Array, loc: ArrayLike, scale: ArrayLike, shape: tuple[int, ...],
                                dtype: DType) -> Array:
    ks = _split(key, (2,))
    rvs = _maxwell_impl(ks[0], shape, dtype)
    # rademacher's signs: bernoulli(0.5) as 2 * b - 1
    b = lax.convert_element_type(_bernoulli_impl(ks[1], _const(0.5, default_float()), shape), dtype)
    sign = lax.sub(lax.mul(_const(2.0, dtype), b), _const(1.0, dtype))
    # one compiled function, as JAX's: XLA may fuse ``* scale + loc``, which
    # cancels for loc near -sign * maxwell * scale
    return tnp.add(tnp.multiply(tnp.multiply(sign, rvs), scale), loc)


_double_sided_maxwell_jit = jit(_double_sided_maxwell_impl, static_argnums=(3, 4))


def double_sided_maxwell(key: KeyLike, loc: ArrayLike, scale: ArrayLike, shape: Shape = (),
                         dtype: DTypeLike | None = None) -> Array:
    """Double-sided Maxwell floats, ``sign * maxwell * scale + loc``
    (``jax.random.double_sided_maxwell``).

    As JAX's: the result shape is ``shape + broadcast(loc, scale).shape``,
    and an empty ``shape`` counts as the parameters' shape (so parameters of
    shape ``(2,)`` and ``shape=()`` give ``(2, 2)``)."""
    data, _ = _key_of("double_sided_maxwell", key)
    d = _float_dtype("double_sided_maxwell", dtype)
    s = _shape("double_sided_maxwell", shape)
    try:
        params_shape = tuple(np.broadcast_shapes(aval_of(loc).shape, aval_of(scale).shape))
    except ValueError:
        raise RandomKeyError(
            f"double_sided_maxwell: loc of shape {aval_of(loc).shape} and scale of shape "
            f"{aval_of(scale).shape} do not broadcast"
        ) from None
    return _double_sided_maxwell_jit(data, loc, scale, (s or params_shape) + params_shape, d)


def _weibull_min_impl(key: Array, scale: ArrayLike, concentration: ArrayLike, shape: tuple[int, ...],
                      dtype: DType) -> Array:
    u = _uniform_impl(key, _const(0.0, dtype), _const(1.0, dtype), shape, dtype)
    return tnp.multiply(tnp.power(lax.neg(lax.log1p(lax.neg(u))), tnp.divide(1.0, concentration)), scale)


_weibull_min_jit = jit(_weibull_min_impl, static_argnums=(3, 4))


def weibull_min(key: KeyLike, scale: ArrayLike, concentration: ArrayLike, shape: Shape = (),
                dtype: DTypeLike | None = None) -> Array:
    """Weibull floats by the inverse cdf, ``(-log(1 - U)) ** (1 / concentration)
    * scale`` (``jax.random.weibull_min``); differentiable in both parameters.
    As JAX's, the parameters broadcast with the ``shape``-d sample (they are
    not checked against ``shape``)."""
    data, _ = _key_of("weibull_min", key)
    d = _float_dtype("weibull_min", dtype)
    s = _shape("weibull_min", shape)
    try:
        np.broadcast_shapes(s, aval_of(scale).shape, aval_of(concentration).shape)
    except ValueError:
        raise RandomKeyError(
            f"weibull_min: scale of shape {aval_of(scale).shape} and concentration of shape "
            f"{aval_of(concentration).shape} do not broadcast with the sample shape {s}"
        ) from None
    return _weibull_min_jit(data, scale, concentration, s, d)


def _reciprocal(p: ArrayLike) -> ArrayLike:
    """``1 / p``: a Python float for a Python number (weak, as JAX's)."""
    if type(p) in (int, float):
        return 1 / cast(float, p)
    return tnp.divide(1.0, p)


def generalized_normal(key: KeyLike, p: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Generalized normal floats, density proportional to ``exp(-|x|**p)``:
    ``sign * gamma(1 / p) ** (1 / p)`` (``jax.random.generalized_normal``);
    differentiable in ``p`` through ``gamma``."""
    s = _shape("generalized_normal", shape)
    data, _ = _key_of("generalized_normal", key)
    d = _float_dtype("generalized_normal", dtype)
    ks = split(data)
    inv_p = _reciprocal(p)
    g = gamma(ks[0], inv_p, s, d)
    r = rademacher(ks[1], s, d)
    return tnp.multiply(r, tnp.power(g, inv_p))


def ball(key: KeyLike, d: int, p: ArrayLike = 2, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Points uniform in the unit Lp ball of dimension ``d``, shape
    ``(*shape, d)`` (``jax.random.ball``; Barthe et al., math/0503650)."""
    s = _shape("ball", shape)
    data, _ = _key_of("ball", key)
    dd = _static_int("ball", "d", d)
    ks = split(data)
    g = generalized_normal(ks[0], p, (*s, dd), dtype)
    e = exponential(ks[1], s, _float_dtype("ball", dtype))
    norm = tnp.power(tnp.add(tnp.sum(tnp.power(tnp.abs(g), p), axis=-1), e), _reciprocal(p))
    return tnp.divide(g, tnp.expand_dims(norm, -1))


def _wald_impl(key: Array, mean: ArrayLike, shape: tuple[int, ...], dtype: DType) -> Array:
    ks = _split(key, (2,))
    mean = _bcast(lax.convert_element_type(mean, dtype), shape)
    v = _normal_impl(ks[0], shape, dtype)
    z = _uniform_impl(ks[1], _const(0.0, dtype), _const(1.0, dtype), shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    two = _const(2.0, dtype)
    sqrt_term = lax.sqrt(lax.add(lax.mul(lax.mul(_const(4.0, dtype), mean), y), lax.mul(mean_sq, y_sq)))
    x = lax.sub(lax.add(mean, lax.div(lax.mul(mean_sq, y), two)), lax.mul(lax.div(mean, two), sqrt_term))
    return lax.select(lax.le(z, lax.div(mean, lax.add(mean, x))), x, lax.div(mean_sq, x))


_wald_jit = jit(_wald_impl, static_argnums=(2, 3))


def wald(key: KeyLike, mean: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Wald (inverse Gaussian, unit shape) floats with mean ``mean``, by
    Michael, Schucany and Haas's transformation (``jax.random.wald``)."""
    data, _ = _key_of("wald", key)
    d = _float_dtype("wald", dtype)
    s = _float_param_shape("wald", shape, mean)
    _check_safe_cast("wald", d, mean)
    return _wald_jit(data, mean, s, d)


def _geometric_impl(key: Array, p: ArrayLike, shape: tuple[int, ...], dtype: DType) -> Array:
    pd = _inexact_dtype(p)
    p = lax.convert_element_type(p, pd)
    u = _uniform_impl(key, _const(0.0, pd), _const(1.0, pd), shape, pd)
    u = lax.select(lax.eq(u, tnp.zeros(shape, pd)), tnp.ones(shape, pd), u)  # as JAX's: no log(0)
    log_one_minus_p = _bcast(lax.log1p(lax.neg(p)), shape)
    g = lax.add(lax.floor(lax.div(lax.log(u), log_one_minus_p)), _const(1.0, pd))
    return lax.convert_element_type(g, dtype)


_geometric_jit = jit(_geometric_impl, static_argnums=(2, 3))


def geometric(key: KeyLike, p: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None) -> Array:
    """Geometric(p) integers: the number of trials up to the first success,
    ``floor(log U / log(1 - p)) + 1`` (``jax.random.geometric``; default int dtype)."""
    data, _ = _key_of("geometric", key)
    d = _int_dtype("geometric", dtype)
    s = _float_param_shape("geometric", shape, p)
    return _geometric_jit(data, p, s, d)


def _triangular_impl(key: Array, left: ArrayLike, mode: ArrayLike, right: ArrayLike, shape: tuple[int, ...],
                     dtype: DType) -> Array:
    left = _bcast(lax.convert_element_type(left, dtype), shape)
    right = _bcast(lax.convert_element_type(right, dtype), shape)
    mode = _bcast(lax.convert_element_type(mode, dtype), shape)
    width = lax.sub(right, left)
    fc = lax.div(lax.sub(mode, left), width)
    u = _uniform_impl(key, _const(0.0, dtype), _const(1.0, dtype), shape, dtype)
    out1 = lax.add(left, lax.sqrt(lax.mul(lax.mul(u, width), lax.sub(mode, left))))
    out2 = lax.sub(right, lax.sqrt(lax.mul(lax.mul(lax.sub(_const(1.0, dtype), u), width), lax.sub(right, mode))))
    return lax.select(lax.lt(u, fc), out1, out2)


_triangular_jit = jit(_triangular_impl, static_argnums=(4, 5))


def triangular(key: KeyLike, left: ArrayLike, mode: ArrayLike, right: ArrayLike, shape: Shape | None = None,
               dtype: DTypeLike | None = None) -> Array:
    """Triangular(left, mode, right) floats by the inverse cdf
    (``jax.random.triangular``); differentiable in the three parameters."""
    data, _ = _key_of("triangular", key)
    d = _float_dtype("triangular", dtype)
    s = _float_param_shape("triangular", shape, left, mode, right)
    _check_safe_cast("triangular", d, left, mode, right)
    return _triangular_jit(data, left, mode, right, s, d)


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
