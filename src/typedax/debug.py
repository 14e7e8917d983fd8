"""``typedax.debug``: see values inside transformed and compiled code
(``jax.debug``). ``print`` and ``callback`` run with concrete values eagerly,
under ``jit`` (a host callback in the compiled program), ``vmap`` (once per
batch element), ``grad`` (the primal values) and inside ``cond``/``scan``/
``while_loop`` bodies; ``ordered=True`` keeps them in program order.
``jax.debug.breakpoint`` is not provided.
"""

from __future__ import annotations

import string
import sys
from dataclasses import dataclass

import numpy as np

from .control_flow.callbacks import debug_callback
from .core.errors import CallbackError

__all__ = ["callback", "print"]

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
