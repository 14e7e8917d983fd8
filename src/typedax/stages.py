"""``jax.stages``: the objects of ``jit``'s ahead-of-time path.

A face: it defines nothing. ``Wrapped`` is what ``jit`` returns (typedax's
``Jitted``); ``jit(f).trace(*args)`` gives a ``Traced`` (``.jaxpr``,
``.lower()``), ``.lower(*args)`` a ``Lowered`` (``.as_text()``,
``.compile()``), and ``.compile()`` a ``Compiled`` (callable, ``.as_text()``,
``.memory_analysis()``, ``.cost_analysis()``), as JAX's. JAX's ``ArgInfo``
and ``CompilerOptions`` are not provided (typedax's stages do not expose
per-argument info or compiler options).
"""

from .jitting.api import Compiled as Compiled
from .jitting.api import Jitted as Wrapped
from .jitting.api import Lowered as Lowered
from .jitting.api import Traced as Traced

__all__ = ["Compiled", "Lowered", "Traced", "Wrapped"]
