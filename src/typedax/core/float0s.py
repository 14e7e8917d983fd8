"""``float0`` values at the boundaries of ``jit`` and ``vmap``.

A float0 array (``core/dtypes.py``: ``float0``) is the tangent or cotangent
of an integer or bool value: it holds no data, only a shape. typedax keeps
it out of jaxprs (no primitive computes on it, and XLA has no such type),
so ``jit`` and ``vmap`` treat a float0 leaf as a value known from its type
alone: an argument is handed to the function as the NumPy float0 zeros
themselves (a ``jit`` trace is keyed on its shape), and a result is rebuilt
as NumPy float0 zeros outside (``vmap`` gives it the batch axis). This is
what JAX's dispatch does at its boundary too (float0 arguments replaced by
placeholders, results rebuilt as NumPy float0 zeros: ``pxla.py``), without
the placeholders.

The derivative of an integer value is float0 zeros where such a boundary
takes it (``float0_ok``): at the top level, and directly inside a function
under ``jit`` or ``vmap``. Inside other traces (a loop body, an outer
derivative, ``make_jaxpr``) it is zeros of the value's own dtype, as before
float0, since those cannot carry float0 values.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeAlias

import numpy as np

from .dtypes import float0
from .trace import EVAL_TRACE, Trace, current_trace

#: The float0 leaves of a flat list: (position, shape) of each, in order.
Float0Slots: TypeAlias = tuple[tuple[int, tuple[int, ...]], ...]
Float0Array: TypeAlias = "np.ndarray[tuple[int, ...], np.dtype[np.generic]]"

#: The trace directly under which a ``jit`` or ``vmap`` is running the
#: user's function (which takes float0 results back out), if any.
_BOUNDARY: ContextVar[Trace | None] = ContextVar("typedax_float0_boundary", default=None)


def is_float0(x: object) -> bool:
    """Whether ``x`` is a NumPy array of JAX's float0."""
    return isinstance(x, np.ndarray) and x.dtype == float0


def float0_zeros(shape: tuple[int, ...]) -> Float0Array:
    """NumPy float0 zeros of ``shape`` (what JAX returns: a host array)."""
    return np.zeros(shape, float0)


def split_float0(leaves: Sequence[object]) -> tuple[list[object], Float0Slots]:
    """The leaves that are not float0, and where the float0 ones were."""
    slots = tuple((i, tuple(x.shape)) for i, x in enumerate(leaves) if is_float0(x))  # type: ignore[attr-defined]  # is_float0: an ndarray
    if not slots:
        return list(leaves), ()
    at = {i for i, _ in slots}
    return [x for i, x in enumerate(leaves) if i not in at], slots


def merge_float0(values: Sequence[object], slots: Float0Slots) -> list[object]:
    """``values`` with float0 zeros put back at ``slots`` (``split_float0``'s inverse)."""
    if not slots:
        return list(values)
    out: list[object] = []
    it = iter(values)
    for i, shape in slots:
        while len(out) < i:
            out.append(next(it))
        out.append(float0_zeros(shape))
    out.extend(it)
    return out


def float0_ok() -> bool:
    """Whether a derivative of an integer value made here may be float0:
    at the top level, or directly under a ``jit``/``vmap`` boundary."""
    t = current_trace()
    return t is EVAL_TRACE or t is _BOUNDARY.get()


@contextmanager
def float0_boundary() -> Iterator[None]:
    """Run the user's function of a ``jit`` or ``vmap`` (under its trace,
    already current): float0 results made directly in it come back out."""
    token = _BOUNDARY.set(current_trace())
    try:
        yield
    finally:
        _BOUNDARY.reset(token)
