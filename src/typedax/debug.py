"""``typedax.debug``: see values inside transformed and compiled code
(``jax.debug``). ``print`` and ``callback`` run with concrete values eagerly,
under ``jit`` (a host callback in the compiled program), ``vmap`` (once per
batch element), ``grad`` (the primal values) and inside ``cond``/``scan``/
``while_loop`` bodies; ``ordered=True`` keeps them in program order.
``visualize_array_sharding``/``visualize_sharding`` draw which devices hold
which block of an array as a plain-text table (JAX draws it with ``rich``,
which typedax does not need: no colours).
``jax.debug.breakpoint`` is not provided.
"""

from __future__ import annotations

import string
import sys
from dataclasses import dataclass

import numpy as np

from .control_flow.callbacks import debug_callback
from .core.array import Array
from .core.errors import CallbackError, ConcretizationError, ShardingError
from .core.sharding import Sharding
from .core.trace import Tracer

__all__ = ["callback", "print", "visualize_array_sharding", "visualize_sharding"]

callback = debug_callback


@dataclass(frozen=True, slots=True)
class _Printer:
    """Formats and writes one ``debug.print`` line (a value, so the same
    ``print`` traced again names the same callback)."""

    fmt: str
    printoptions: tuple[tuple[str, object], ...]
    has_placeholders: bool

    def __call__(self, *args: object, **kwargs: object) -> None:
        if self.has_placeholders:
            with np.printoptions(**dict(self.printoptions)):  # type: ignore[arg-type]  # np.get_printoptions()'s own items
                msg = self.fmt.format(*args, **kwargs)
        else:
            msg = " ".join((self.fmt, *(str(a) for a in args)))
        sys.stdout.write(msg + "\n")


class _FormatChecker(string.Formatter):
    """JAX's check: every argument is used by the format string."""

    def format_field(self, value: object, format_spec: str) -> str:
        return ""

    def check_unused_args(self, used_args: set[int | str], args: object, kwargs: object) -> None:
        assert isinstance(args, (list, tuple)) and isinstance(kwargs, dict)
        unused = [a for i, a in enumerate(args) if i not in used_args]
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused:
            raise CallbackError(f"Unused positional arguments to `typedax.debug.print`: {unused}")
        if unused_kw:
            raise CallbackError(
                f"Unused keyword arguments to `typedax.debug.print`: {unused_kw}. "
                'You may be passing an f-string (i.e, `f"{x}"`) into `typedax.debug.print` '
                "and instead should pass in a regular string."
            )


def print(fmt: str, *args: object, ordered: bool = False, **kwargs: object) -> None:  # noqa: A001 - JAX's name
    """``jax.debug.print``: ``print(fmt.format(*args, **kwargs))`` with the
    concrete values, wherever the computation runs (NumPy's print options
    at the time of the call apply)."""
    has_placeholders = False
    if fmt:
        _FormatChecker().format(fmt, *args, **kwargs)
        _, field, *_ = next(iter(string.Formatter().parse(fmt)))
        has_placeholders = field is not None
    opts = tuple(sorted(np.get_printoptions().items()))
    debug_callback(_Printer(fmt, opts, has_placeholders), *args, ordered=ordered,
                   _label="debug.print", **kwargs)


def visualize_array_sharding(arr: Array, *, use_color: bool = True, scale: float = 1.0,
                             min_width: int = 9, max_width: int = 80, color_map: object = None) -> None:
    """``jax.debug.visualize_array_sharding``: a table of ``arr``'s blocks
    (1 or 2 dimensions), each naming the devices that hold it, as
    ``CPU 0,4`` (plain text: ``use_color`` and ``color_map`` are accepted
    and ignored)."""
    if isinstance(arr, Tracer):
        raise ConcretizationError(
            "visualize_array_sharding: needs a concrete array, not a traced value (its sharding is "
            "XLA's to choose when the program compiles)")
    visualize_sharding(arr.shape, arr.sharding, use_color=use_color, scale=scale,
                       min_width=min_width, max_width=max_width, color_map=color_map)


def visualize_sharding(shape: tuple[int, ...], sharding: Sharding, *, use_color: bool = True, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map: object = None) -> None:
    """``jax.debug.visualize_sharding``: the table of an array of ``shape``
    laid out by ``sharding``. JAX's sizes: a block's width in characters
    is its share of the columns times ``25 * scale * columns / rows``
    (within ``min_width`` and ``max_width``), its height its share of the
    rows times ``10 * scale`` lines."""
    shape = tuple(int(d) for d in shape)
    if not 1 <= len(shape) <= 2:
        raise ShardingError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    base_height = int(10 * scale)
    base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
    kind = next(iter(sharding.device_set)).platform.upper()
    held: dict[tuple[int, int], set[int]] = {}
    widths: dict[tuple[int, int], float] = {}
    heights: dict[tuple[int, int], float | None] = {}
    for device, index in sharding.devices_indices_map(shape).items():
        spans = [(sl.start or 0, shape[d] if sl.stop is None else sl.stop) for d, sl in enumerate(index)]
        chunks = [start // (stop - start) if stop > start else 0 for start, stop in spans]
        if len(shape) == 2:
            key = (chunks[0], chunks[1])
            heights[key] = (spans[0][1] - spans[0][0]) / shape[0]
            widths[key] = (spans[1][1] - spans[1][0]) / shape[1]
        else:
            key = (0, chunks[0])
            heights[key] = None
            widths[key] = (spans[0][1] - spans[0][0]) / shape[0]
        held.setdefault(key, set()).add(device.id)
    rows = max(r for r, _ in held) + 1
    cols = max(c for _, c in held) + 1
    cells: dict[tuple[int, int], tuple[str, int, int]] = {}  # entry, width, lines
    for key, ids in held.items():
        entry = f"{kind} " + ",".join(str(i) for i in sorted(ids))
        width = min(max(int(widths[key] * base_width * 2.5), min_width), max_width)
        h = heights[key]
        height = 1 if h is None else int(h * base_height)
        left, rem = divmod(width - len(entry) - 2, 2)
        top, rem_v = divmod(height - 2, 2)
        cells[key] = (entry, max(left, 0) + len(entry) + max(left + rem, 0), max(top, 0) + 1 + max(top + rem_v, 0))
    col_w = [max(cells[r, c][1] for r in range(rows)) for c in range(cols)]
    row_h = [max(cells[r, c][2] for c in range(cols)) for r in range(rows)]

    def rule(a: str, m: str, b: str) -> str:  # a border of the box
        return a + m.join("\u2500" * w for w in col_w) + b

    lines = [rule("\u250c", "\u252c", "\u2510")]
    for r in range(rows):
        for k in range(row_h[r]):
            middle = (row_h[r] - 1) // 2
            lines.append("\u2502" + "\u2502".join(
                (cells[r, c][0] if k == middle else "").center(col_w[c]) for c in range(cols)) + "\u2502")
        lines.append(rule("\u251c", "\u253c", "\u2524") if r < rows - 1 else rule("\u2514", "\u2534", "\u2518"))
    sys.stdout.write("\n".join(lines) + "\n\n")
