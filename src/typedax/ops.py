"""``typedax.ops``: ``jax.ops``'s segment reductions (implemented in
``typedax._numpy.segments``)."""

from ._numpy.segments import segment_max as segment_max
from ._numpy.segments import segment_min as segment_min
from ._numpy.segments import segment_prod as segment_prod
from ._numpy.segments import segment_sum as segment_sum

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]
