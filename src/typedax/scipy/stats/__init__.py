"""``typedax.scipy.stats``: distributions as ``jax.scipy.stats`` has them."""

from . import bernoulli as bernoulli
from . import beta as beta
from . import binom as binom
from . import cauchy as cauchy
from . import chi2 as chi2
from . import expon as expon
from . import gamma as gamma
from . import geom as geom
from . import laplace as laplace
from . import logistic as logistic
from . import multivariate_normal as multivariate_normal
from . import norm as norm
from . import pareto as pareto
from . import poisson as poisson
from . import t as t
from . import uniform as uniform
from . import vonmises as vonmises

__all__ = [
    "bernoulli", "beta", "binom", "cauchy", "chi2", "expon", "gamma", "geom", "laplace", "logistic", "multivariate_normal", "norm",
    "pareto", "poisson", "t", "uniform", "vonmises",
]
