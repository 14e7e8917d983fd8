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

This module is a face: it defines nothing and only re-exports the
implementation in ``typedax/_random/`` (``base``: argument checks and key
types; ``keys``: seeds and the generator; ``samplers``, ``integers``,
``multivariate``, ``gamma``, ``counts``: the distributions), as
``jax/random.py`` re-exports ``jax._src.random``.
"""

from __future__ import annotations

# -- key and argument types (_random/base.py)
from ._random.base import DTypeLike as DTypeLike
from ._random.base import KeyArray as KeyArray
from ._random.base import KeyLike as KeyLike
from ._random.base import RawKey as RawKey

# -- seeds, keys and the generator (_random/keys.py)
from ._random.keys import PRNGKey as PRNGKey
from ._random.keys import bits as bits
from ._random.keys import clone as clone
from ._random.keys import fold_in as fold_in
from ._random.keys import key as key
from ._random.keys import key_data as key_data
from ._random.keys import key_dtype as key_dtype
from ._random.keys import key_impl as key_impl
from ._random.keys import random_bits as random_bits
from ._random.keys import split as split
from ._random.keys import threefry_2x32 as threefry_2x32
from ._random.keys import wrap_key_data as wrap_key_data

# -- uniform, normal and the samplers made from them (_random/samplers.py)
from ._random.samplers import bernoulli as bernoulli
from ._random.samplers import categorical as categorical
from ._random.samplers import cauchy as cauchy
from ._random.samplers import double_sided_maxwell as double_sided_maxwell
from ._random.samplers import exponential as exponential
from ._random.samplers import geometric as geometric
from ._random.samplers import gumbel as gumbel
from ._random.samplers import laplace as laplace
from ._random.samplers import logistic as logistic
from ._random.samplers import lognormal as lognormal
from ._random.samplers import maxwell as maxwell
from ._random.samplers import normal as normal
from ._random.samplers import pareto as pareto
from ._random.samplers import rademacher as rademacher
from ._random.samplers import rayleigh as rayleigh
from ._random.samplers import triangular as triangular
from ._random.samplers import truncated_normal as truncated_normal
from ._random.samplers import uniform as uniform
from ._random.samplers import wald as wald
from ._random.samplers import weibull_min as weibull_min

# -- integers and permutations (_random/integers.py)
from ._random.integers import choice as choice
from ._random.integers import permutation as permutation
from ._random.integers import randint as randint
from ._random.integers import shuffle as shuffle

# -- vectors and matrices (_random/multivariate.py)
from ._random.multivariate import multivariate_normal as multivariate_normal
from ._random.multivariate import orthogonal as orthogonal

# -- gamma and what is made from it (_random/gamma.py)
from ._random.gamma import ball as ball
from ._random.gamma import beta as beta
from ._random.gamma import chisquare as chisquare
from ._random.gamma import dirichlet as dirichlet
from ._random.gamma import f as f
from ._random.gamma import gamma as gamma
from ._random.gamma import generalized_normal as generalized_normal
from ._random.gamma import loggamma as loggamma
from ._random.gamma import t as t

# -- counts: poisson, binomial, multinomial (_random/counts.py)
from ._random.counts import binomial as binomial
from ._random.counts import multinomial as multinomial
from ._random.counts import poisson as poisson

__all__ = [
    "KeyArray", "PRNGKey", "key", "key_data", "wrap_key_data", "split", "fold_in", "bits",
    "random_bits", "uniform", "normal", "truncated_normal", "bernoulli", "categorical", "randint",
    "permutation", "choice", "shuffle", "gumbel", "exponential", "gamma", "loggamma", "beta",
    "dirichlet", "multivariate_normal", "orthogonal", "threefry_2x32", "laplace", "logistic",
    "cauchy", "rademacher", "lognormal", "chisquare", "pareto", "rayleigh", "poisson", "binomial",
    "multinomial", "t", "f", "geometric", "maxwell", "double_sided_maxwell", "weibull_min",
    "generalized_normal", "ball", "triangular", "wald", "clone", "key_impl", "key_dtype", "KeyLike",
    "RawKey",
]
