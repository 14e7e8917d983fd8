"""Pooling: flax.linen's ``max_pool`` and ``avg_pool``
(``flax/linen/pooling.py``), windowed reductions over the middle dimensions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayLike
from ..core.dtypes import default_float, is_float
from ..core.errors import PrimitiveTypeError


# -- pooling: flax.linen's max_pool and avg_pool (flax/linen/pooling.py) ----------------
def _pool(op: str, x: Array, window_shape: Sequence[int], strides: Sequence[int] | None,
          padding: str | Sequence[tuple[int, int]], reduce: str) -> Array:
    """flax's ``pool``: inputs are (batch..., window dims..., features); a
    window of ``window_shape`` over the middle dimensions (one leading batch
    dimension is added for the reduction when there is none)."""
    from ..primitives import windowed

    window = tuple(window_shape)
    n = len(window)
    st = (1,) * n if not strides else tuple(strides)
    if len(st) != n:
        raise PrimitiveTypeError(f"{op}: strides {st} must have one entry per window dimension {window}")
    n_batch = x.ndim - (n + 1)
    if n_batch < 0:
        raise PrimitiveTypeError(
            f"{op}: inputs of shape {x.shape} need the {n} window dimensions of {window} and a feature "
            "dimension (and optional leading batch dimensions)"
        )
    single = n_batch == 0
    if single:
        x, n_batch = lax.expand_dims(x, (0,)), 1
    pads: str | tuple[tuple[int, int], ...]
    if isinstance(padding, str):
        pads = padding
    else:
        pairs = tuple(tuple(p) for p in padding)
        if len(pairs) != n or any(len(p) != 2 for p in pairs):
            raise PrimitiveTypeError(f"{op}: padding {padding!r} must be one (low, high) pair per window dimension {window}")
        pads = ((0, 0),) * n_batch + tuple((int(p[0]), int(p[1])) for p in pairs) + ((0, 0),)
    fn = {"add": windowed.reduce_window_sum, "max": windowed.reduce_window_max}[reduce]
    y = fn(x, (1,) * n_batch + window + (1,), (1,) * n_batch + st + (1,), pads)
    return lax.squeeze(y, (0,)) if single else y


def max_pool(inputs: ArrayLike, window_shape: Sequence[int], strides: Sequence[int] | None = None,
             padding: str | Sequence[tuple[int, int]] = "VALID") -> Array:
    """The maximum of each window, as ``flax.linen.max_pool``: ``inputs`` are
    (batch, window dims..., features) (the batch dimension may be left
    out); ``padding`` is ``'VALID'``, ``'SAME'`` or one (low, high) pair
    per window dimension. Padding never wins (it holds -inf, or the dtype's
    smallest value); the gradient goes to the first maximal element of each
    window, as JAX's."""
    return _pool("max_pool", tnp.asarray(inputs), window_shape, strides, padding, "max")


def avg_pool(inputs: ArrayLike, window_shape: Sequence[int], strides: Sequence[int] | None = None,
             padding: str | Sequence[tuple[int, int]] = "VALID", count_include_pad: bool = True) -> Array:
    """The mean of each window, as ``flax.linen.avg_pool`` (same layout and
    padding as ``max_pool``). With ``count_include_pad`` every window
    divides by its full size (padding counts as zeros); without, by the
    number of input elements it covers. Float inputs keep their dtype (flax
    divides by float64 ones under x64 there), integers give floats."""
    x = tnp.asarray(inputs)
    y = _pool("avg_pool", x, window_shape, strides, padding, "add")
    if count_include_pad:
        return tnp.divide(y, float(np.prod(window_shape)))
    div_shape = x.shape[:-1] + (1,)
    if len(div_shape) - 2 == len(tuple(window_shape)):
        div_shape = (1,) + div_shape[1:]
    ones = tnp.ones(div_shape, dtype=x.dtype if is_float(x.dtype) else default_float())
    return tnp.divide(y, _pool("avg_pool", ones, window_shape, strides, padding, "add"))
