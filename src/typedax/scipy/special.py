"""Special functions, named and computed as ``jax.scipy.special``'s.

A face: it defines nothing and re-exports ``scipy/_special.py`` (which builds
on ``scipy/_base.py``, the promotion and constants the scipy modules share,
and ``typedax._lax.special``, the lax special functions under ``gammainc``,
``betainc``, ``zeta``, ``polygamma`` and the Bessel functions).

Where JAX gives a function its own derivative rule (``custom_jvp``), so does
typedax, with the same rule: ``xlogy``, ``xlog1py``, ``logit`` and the
``x log x`` inside ``entr`` / ``rel_entr`` (so their derivatives at the
boundary are JAX's: ``grad(entr)(0.)`` is inf, ``grad(logit)(0.)`` inf).
``logsumexp`` subtracts the maximum without ``stop_gradient`` (its
contributions to the derivative cancel, so the result is the same).
"""

from __future__ import annotations

from ._special import beta as beta
from ._special import betainc as betainc
from ._special import betaln as betaln
from ._special import boxcox as boxcox
from ._special import boxcox1p as boxcox1p
from ._special import comb as comb
from ._special import digamma as digamma
from ._special import entr as entr
from ._special import erf as erf
from ._special import erfc as erfc
from ._special import erfcx as erfcx
from ._special import erfinv as erfinv
from ._special import expit as expit
from ._special import factorial as factorial
from ._special import gamma as gamma
from ._special import gammainc as gammainc
from ._special import gammaincc as gammaincc
from ._special import gammaln as gammaln
from ._special import gammasgn as gammasgn
from ._special import i0 as i0
from ._special import i0e as i0e
from ._special import i1 as i1
from ._special import i1e as i1e
from ._special import kl_div as kl_div
from ._special import log_ndtr as log_ndtr
from ._special import log_softmax as log_softmax
from ._special import logit as logit
from ._special import logsumexp as logsumexp
from ._special import multigammaln as multigammaln
from ._special import ndtr as ndtr
from ._special import ndtri as ndtri
from ._special import poch as poch
from ._special import polygamma as polygamma
from ._special import rel_entr as rel_entr
from ._special import softmax as softmax
from ._special import xlog1py as xlog1py
from ._special import xlogy as xlogy
from ._special import zeta as zeta
# issue 29 item 7: more of jax.scipy.special (_special_names.py)
from ._special_names import bernoulli as bernoulli
from ._special_names import bessel_jn as bessel_jn
from ._special_names import dawsn as dawsn
from ._special_names import exp1 as exp1
from ._special_names import expi as expi
from ._special_names import expn as expn
from ._special_names import fresnel as fresnel
from ._special_names import hyp1f1 as hyp1f1
from ._special_names import hyp2f1 as hyp2f1
from ._special_names import loggamma as loggamma
from ._special_names import owens_t as owens_t
from ._special_names import sici as sici
from ._special_names import spence as spence
from ._special_names import wofz as wofz
from ._sph_harm import sph_harm_y as sph_harm_y

__all__ = [
    "digamma", "erf", "erfc", "erfinv", "expit", "gammaln", "logit", "logsumexp", "xlog1py", "xlogy",
    "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "entr", "erfcx", "factorial", "gamma",
    "gammainc", "gammaincc", "gammasgn", "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax",
    "multigammaln", "ndtr", "ndtri", "poch", "polygamma", "rel_entr", "softmax", "zeta",
    # issue 29 item 7: more of jax.scipy.special (_special_names.py)
    "bernoulli", "bessel_jn", "dawsn", "exp1", "expi", "expn", "fresnel", "hyp1f1", "hyp2f1", "loggamma", "owens_t", "sici", "spence", "wofz",
    "sph_harm_y",
]
