"""``jax.image``: image resampling (``resize``, ``scale_and_translate``,
``ResizeMethod``), as JAX's.

A face: it defines nothing; the implementation is ``typedax/_image/scale.py``.
"""

from ._image.scale import ResizeMethod as ResizeMethod
from ._image.scale import resize as resize
from ._image.scale import scale_and_translate as scale_and_translate

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]
