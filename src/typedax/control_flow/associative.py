"""``lax.associative_scan``: an inclusive scan with an associative ``fn``,
in ``O(log n)`` rounds of whole-array calls of ``fn`` (Blelloch's parallel
prefix, the recursion JAX uses), not a sequential ``scan``.

One round: combine adjacent pairs ``fn(x[0::2], x[1::2])`` (half as many
elements), scan those recursively -- they are the results at the odd
positions -- then get the even positions from them,
``fn(odd[:-1], x[2::2])`` (the first element is ``x[0]`` itself), and
interleave the two. ``fn`` is called on exactly the slices JAX calls it
on, so an ``fn`` that works there works here. The interleave is exact: the
two halves are stacked along a new axis and reshaped (JAX pads each with
zeros and adds, which turns a ``-0.0`` into ``0.0``; here it stays ``-0.0``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, overload

from .. import tree
from ..core.array import Array, ArrayLike
from ..core.errors import PrimitiveTypeError
from ..core.trace import Value, aval_of, bind1
from ..primitives import reshape_p
from ..primitives._params import params_of
from ..primitives.shaping import concatenate, rev
from ..primitives.slicing import canonical_axis, slice_in_dim
from .common import as_value, types_str

T = TypeVar("T")


@overload
def associative_scan(
    fn: Callable[[Array, Array], ArrayLike], elems: ArrayLike, reverse: bool = False, axis: int = 0,
) -> Array: ...
@overload
def associative_scan(fn: Callable[[T, T], T], elems: T, reverse: bool = False, axis: int = 0) -> T: ...
def associative_scan(fn: Callable[..., object], elems: object, reverse: bool = False, axis: int = 0) -> object:
    """The inclusive scan of ``elems`` (a pytree of arrays of one length
    along ``axis``) under ``fn``: element ``k`` is ``fn`` folded over elements
    ``0 .. k`` (``jax.lax.associative_scan``); with ``reverse=True`` over
    elements ``k .. n - 1``. ``fn(a, b)`` takes and returns pytrees of
    ``elems``' structure, applied elementwise along ``axis`` (it is called
    on slices of many elements at once), and must be associative."""
    if not callable(fn):
        raise PrimitiveTypeError("associative_scan: fn must be callable")
    leaves, elems_tree = tree.flatten(elems)
    flat = [as_value(x, "associative_scan's elems") for x in leaves]
    if not flat:
        raise PrimitiveTypeError("associative_scan: elems must hold at least one array")
    ax = canonical_axis("associative_scan", axis, aval_of(flat[0]).ndim)
    for x in flat:
        a = aval_of(x)
        if a.ndim <= ax or a.shape[ax] != aval_of(flat[0]).shape[ax]:
            raise PrimitiveTypeError(
                f"associative_scan: every array in elems must have one length along axis {ax}, got "
                + types_str([aval_of(v) for v in flat])
            )
    if reverse:
        flat = [rev(x, (ax,)) for x in flat]

    def combine(a: Sequence[Value], b: Sequence[Value]) -> list[Value]:
        out = fn(tree.unflatten(elems_tree, a), tree.unflatten(elems_tree, b))
        out_leaves, out_tree = tree.flatten(out)
        outs = [as_value(c, "associative_scan's fn outputs") for c in out_leaves]
        want = [aval_of(x) for x in a]
        if out_tree != elems_tree or [aval_of(c) for c in outs] != want:
            raise PrimitiveTypeError(
                f"associative_scan: fn must return its arguments' structure and types {elems_tree} "
                f"{types_str(want)}, got {out_tree} {types_str([aval_of(c) for c in outs])}"
            )
        return outs

    def scan(xs: list[Value]) -> list[Value]:
        n = aval_of(xs[0]).shape[ax]
        if n < 2:
            return xs
        reduced = combine(
            [slice_in_dim(x, 0, -1, 2, ax) for x in xs], [slice_in_dim(x, 1, None, 2, ax) for x in xs]
        )
        odd = scan(reduced)
        if n % 2 == 0:
            even = combine([slice_in_dim(o, 0, -1, 1, ax) for o in odd], [slice_in_dim(x, 2, None, 2, ax) for x in xs])
        else:
            even = combine(odd, [slice_in_dim(x, 2, None, 2, ax) for x in xs])
        even = [concatenate([slice_in_dim(x, 0, 1, 1, ax), e], ax) for x, e in zip(xs, even)]
        return [_interleave(e, o, ax) for e, o in zip(even, odd)]

    out = scan(flat)
    if reverse:
        out = [rev(x, (ax,)) for x in out]
    return tree.unflatten(elems_tree, out)


def _interleave(a: Value, b: Value, axis: int) -> Value:
    """``a[0], b[0], a[1], b[1], ...`` along ``axis``; ``a`` has as many
    elements as ``b`` or one more (it then ends the result)."""
    sa, sb = aval_of(a).shape, aval_of(b).shape
    m = sb[axis]
    head = slice_in_dim(a, 0, m, 1, axis) if sa[axis] != m else a
    pair = (*sb[: axis + 1], 1, *sb[axis + 1:])
    both = concatenate([_reshape(head, pair), _reshape(b, pair)], axis + 1)
    out = _reshape(both, (*sb[:axis], 2 * m, *sb[axis + 1:]))
    if sa[axis] != m:
        out = concatenate([out, slice_in_dim(a, m, None, 1, axis)], axis)
    return out


def _reshape(x: Value, shape: tuple[int, ...]) -> Value:
    return bind1(reshape_p, (x,), params_of(("new_sizes", shape)))


__all__ = ["associative_scan"]
