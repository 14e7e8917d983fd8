"""The samplers drawn from a fixed number of uniform bits per element:
``uniform`` (the mantissa of a float in [1, 2)), ``normal``,
``truncated_normal``, ``bernoulli``, ``gumbel``, ``exponential``,
``categorical`` and the compositions JAX makes of them (``laplace``,
``logistic``, ``cauchy``, ``rademacher``, ``lognormal``, ``pareto``,
``rayleigh``, ``maxwell``, ``double_sided_maxwell``, ``weibull_min``,
``wald``, ``geometric``, ``triangular``). Builds on ``base`` and ``keys``."""

from __future__ import annotations

import math

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType, FLOATING, canonicalize_explicit, default_float, default_int
from ..core.errors import RandomAxisError, RandomKeyError
from ..core.trace import aval_of
from ..jitting import jit
from .base import (
    DTypeLike,
    KeyLike,
    Shape,
    _UINT,
    _bcast,
    _check_safe_cast,
    _check_shape,
    _const,
    _float_bits,
    _float_dtype,
    _float_param_shape,
    _inexact_dtype,
    _int_dtype,
    _is_static_scalar,
    _key_of,
    _moveaxis,
    _shape,
    _static_int,
    _tiny,
    _to_rank,
)
from .keys import _random_bits, _split


# -- uniform, normal and their relatives -------------------------------------------------
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
        return _uniform_static_jit(data, s, d, float(minval), float(maxval))  # type: ignore[arg-type]  # a complex bound raises here, as in JAX
    return _uniform_jit(data, minval, maxval, s, d)


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
        raise RandomAxisError(f"categorical: axis {axis} is out of bounds for logits of rank {nd}")
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


# -- samplers made from the ones above (JAX's formulas) ----------------------------------
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
