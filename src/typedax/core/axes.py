"""The named axes in scope: what ``shard_map`` binds (its mesh's axes) and
collectives (``psum``, ``all_gather``, ``axis_index``, ...) read.

JAX keeps this as ``core.get_axis_env()``; here it is an immutable value in
a ``ContextVar`` (like the interpreter stack), extended for the extent of a
``with binding(...)`` block: tracing a ``shard_map`` body, and every rule
that re-traces or checks that body, runs inside one. A collective's abstract
evaluation asks ``axis_size`` for each name, so a wrong name is an
``AxisNameError`` naming the operation and the axes in scope.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import AxisNameError

#: (name, size) of each bound axis, outermost first.
AxisEnv = tuple[tuple[str, int], ...]

_ENV: ContextVar[AxisEnv] = ContextVar("typedax_axis_env", default=())


def axis_env() -> AxisEnv:
    return _ENV.get()


@contextmanager
def binding(axes: Sequence[tuple[str, int]]) -> Iterator[None]:
    """Bind ``axes`` (names and sizes) for the ``with`` body."""
    token = _ENV.set(_ENV.get() + tuple(axes))
    try:
        yield
    finally:
        _ENV.reset(token)


def axis_size(name: str, op: str) -> int:
    """The size of the bound axis ``name`` (the innermost binding wins)."""
    for n, size in reversed(_ENV.get()):
        if n == name:
            return size
    bound = [n for n, _ in _ENV.get()]
    raise AxisNameError(
        f"{op}: unbound axis name: {name!r}. The axis names bound here "
        f"(by shard_map's mesh or vmap's axis_name) are {bound}"
    )


def axes_size(names: Sequence[str], op: str) -> int:
    out = 1
    for n in names:
        out *= axis_size(n, op)
    return out


def checked_size(names: Sequence[str], op: str) -> int | None:
    """For abstract evaluation: the named axes' size where some axes are
    bound (a wrong name is then an ``AxisNameError``), and ``None`` where
    none are. A jaxpr parsed from text checks a ``shard_map`` body's
    equations before it reads the mesh (its param after ``jaxpr``), so they
    are accepted there and checked again, with the axes bound, by
    ``shard_map``'s own abstract evaluation; the ``lax`` functions check
    their names when called (``axes_size``)."""
    return axes_size(names, op) if _ENV.get() else None


# -- vmap(axis_name=...) ------------------------------------------------------------------
#: The axis name of the ``vmap`` whose batching trace is applying a rule
#: now (``None``: an unnamed one, or no rule): a collective's batching rule
#: reads it to know whether it reduces over the batch it is given.
_FRAME: ContextVar[str | None] = ContextVar("typedax_vmap_frame", default=None)


@contextmanager
def vmap_frame(name: str | None) -> Iterator[None]:
    token = _FRAME.set(name)
    try:
        yield
    finally:
        _FRAME.reset(token)


def current_vmap_frame() -> str | None:
    return _FRAME.get()


def names_in_params(params: Mapping[str, object]) -> tuple[str, ...]:
    """The axis names a collective's params name (its ``axes`` or ``axis_name``)."""
    out: list[str] = []
    for key in ("axes", "axis_name"):
        v = params.get(key)
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(n for n in v if isinstance(n, str))
    return tuple(out)
