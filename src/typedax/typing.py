"""``jax.typing``: the types to annotate inputs with.

A face: it defines nothing. ``ArrayLike`` is what every typedax function
accepts as an array (a typedax ``Array``, a NumPy array or scalar, a Python
number); ``DTypeLike`` what names a dtype (a name such as ``'float32'``, a
scalar type such as ``np.float32``, or a dtype). Annotate outputs with
``typedax.Array``, as JAX's documentation advises for ``jax.Array``.
"""

from .core.array import ArrayLike as ArrayLike
from .core.dtypes import DTypeLike as DTypeLike

__all__ = ["ArrayLike", "DTypeLike"]
