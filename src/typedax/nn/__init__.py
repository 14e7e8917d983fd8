"""Neural-network functions, named and computed as ``jax.nn``'s.

This module is a face: it defines nothing and only re-exports the
implementation in ``typedax/_nn/`` (``functions``: activations, softmax and
their relatives; ``pooling``: flax's ``max_pool``/``avg_pool``;
``attention``: ``dot_product_attention``; ``initializers``:
``typedax.nn.initializers``, whose face is ``typedax/nn/initializers.py``).
``logsumexp`` is ``typedax.scipy.special``'s, as in JAX."""

from __future__ import annotations

from . import initializers as initializers  # jax.nn.initializers (a module, as JAX's)

# -- activations, softmax and their relatives (_nn/functions.py)
from .._nn.functions import celu as celu
from .._nn.functions import elu as elu
from .._nn.functions import gelu as gelu
from .._nn.functions import glu as glu
from .._nn.functions import hard_sigmoid as hard_sigmoid
from .._nn.functions import hard_silu as hard_silu
from .._nn.functions import hard_swish as hard_swish
from .._nn.functions import hard_tanh as hard_tanh
from .._nn.functions import identity as identity
from .._nn.functions import leaky_relu as leaky_relu
from .._nn.functions import log1mexp as log1mexp
from .._nn.functions import log_sigmoid as log_sigmoid
from .._nn.functions import log_softmax as log_softmax
from .._nn.functions import logmeanexp as logmeanexp
from .._nn.functions import mish as mish
from .._nn.functions import one_hot as one_hot
from .._nn.functions import relu as relu
from .._nn.functions import relu6 as relu6
from .._nn.functions import selu as selu
from .._nn.functions import sigmoid as sigmoid
from .._nn.functions import silu as silu
from .._nn.functions import soft_sign as soft_sign
from .._nn.functions import softmax as softmax
from .._nn.functions import softplus as softplus
from .._nn.functions import sparse_plus as sparse_plus
from .._nn.functions import sparse_sigmoid as sparse_sigmoid
from .._nn.functions import squareplus as squareplus
from .._nn.functions import standardize as standardize
from .._nn.functions import swish as swish
from .._nn.functions import tanh as tanh

# -- pooling, as flax.linen's (_nn/pooling.py)
from .._nn.pooling import avg_pool as avg_pool
from .._nn.pooling import max_pool as max_pool

# -- attention (_nn/attention.py)
from .._nn.attention import dot_product_attention as dot_product_attention

# -- jax.nn.logsumexp is jax.scipy.special's
from ..scipy.special import logsumexp as logsumexp

__all__ = [
    "celu", "elu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu",
    "log_sigmoid", "log_softmax", "logsumexp", "one_hot", "relu", "relu6", "selu", "sigmoid",
    "silu", "softmax", "softplus", "standardize", "swish",
    "dot_product_attention", "glu", "identity", "log1mexp", "logmeanexp", "mish", "soft_sign",
    "sparse_plus", "sparse_sigmoid", "squareplus", "tanh",
    "avg_pool", "max_pool",  # flax.linen's pooling
    "initializers",
]
