"""``lax.map``: ``f`` over the leading axis of ``xs`` as a ``scan`` with no
carry; with ``batch_size``, a ``scan`` over batches, each a ``vmap`` of
``f``, and one more ``vmap`` for the remainder (JAX's algorithm)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, overload

import numpy as np

from .. import tree
from ..core.array import Array, ArrayLike
from ..core.errors import PrimitiveTypeError
from ..core.trace import Value, aval_of, bind1
from ..interpreters.batching import vmap_flat
from ..primitives import reshape_p
from ..primitives._params import params_of
from ..primitives.shaping import concatenate
from ..primitives.slicing import slice_in_dim
from .common import as_value
from .scans import scan

X = TypeVar("X")
Y = TypeVar("Y")


@overload
def map(f: Callable[[Array], Y], xs: ArrayLike, *, batch_size: int | None = None) -> Y: ...  # noqa: A001 - jax.lax's name
@overload
def map(f: Callable[[X], Y], xs: X, *, batch_size: int | None = None) -> Y: ...  # noqa: A001 - jax.lax's name
def map(f: Callable[..., Y], xs: object, *, batch_size: int | None = None) -> Y:  # noqa: A001 - jax.lax's name
    """``stack([f(x) for x in xs])`` over the leading axis of every leaf of
    ``xs`` (``jax.lax.map``), one ``f`` at a time in a ``scan``. With
    ``batch_size=b`` (> 0) it applies ``vmap(f)`` to ``b`` rows at a time
    in the scan and to the ``n % b`` remaining rows once more; ``batch_size=0``
    is one ``vmap`` over all of them."""
    if batch_size is None:
        def one(carry: tuple[()], x: object) -> tuple[tuple[()], Y]:
            return (), f(x)

        return scan(one, (), xs)[1]
    bs: object = batch_size
    if isinstance(bs, bool) or not isinstance(bs, (int, np.integer)) or bs < 0:
        raise PrimitiveTypeError(f"map: batch_size must be a non-negative integer or None, got {batch_size!r}")
    b = int(bs)
    leaves, xs_tree = tree.flatten(xs)
    vals = [as_value(x, "map's xs") for x in leaves]
    if not vals:
        return scan(lambda c, x: ((), f(x)), (), xs)[1]  # scan's error: no length to map over
    sizes = {aval_of(v).shape[0] if aval_of(v).ndim else None for v in vals}
    if len(sizes) != 1 or None in sizes:
        raise PrimitiveTypeError(
            "map: every leaf of xs must have one leading axis length, got shapes "
            + ", ".join(aval_of(v).str_short() for v in vals)
        )
    n = sizes.pop()
    assert n is not None
    batches, rem = (0, n) if b == 0 else divmod(n, b)
    full = batches * b
    parts: list[list[Value]] = []
    out_trees: list[tree.TreeDef] = []
    if batches:
        stacked = [_reshape(slice_in_dim(v, 0, full), (batches, b, *aval_of(v).shape[1:])) for v in vals]

        def batch(carry: tuple[()], chunk: list[Value]) -> tuple[tuple[()], list[Value]]:
            return (), _vmapped(f, xs_tree, chunk, b, out_trees)

        ys: list[Value] = scan(batch, (), stacked)[1]
        parts.append([_reshape(y, (full, *aval_of(y).shape[2:])) for y in ys])
    if rem or not batches:
        parts.append(_vmapped(f, xs_tree, [slice_in_dim(v, full, n) for v in vals], rem, out_trees))
    outs = parts[0] if len(parts) == 1 else [concatenate([a, c], 0) for a, c in zip(*parts)]
    return tree.unflatten(out_trees[0], outs)  # type: ignore[return-value]  # f's output structure, stacked


def _vmapped(
    f: Callable[..., Y], xs_tree: tree.TreeDef, chunk: Sequence[Value], size: int,
    out_trees: list[tree.TreeDef],
) -> list[Value]:
    """``vmap(f)`` over axis 0 of the flat leaves ``chunk`` (of ``xs_tree``)."""

    def flat(ins: list[Value]) -> list[Value]:
        out = f(tree.unflatten(xs_tree, ins))
        out_leaves, out_tree = tree.flatten(out)
        if out_trees and out_trees[0] != out_tree:
            raise PrimitiveTypeError(
                f"map: f returned {out_tree} for the remainder but {out_trees[0]} for the batches"
            )
        out_trees.append(out_tree)
        return [as_value(y, "the outputs of map's f") for y in out_leaves]

    return vmap_flat(flat, size, [0] * len(chunk), list(chunk), lambda: [0] * out_trees[-1].num_leaves)


def _reshape(x: Value, shape: tuple[int, ...]) -> Value:
    return bind1(reshape_p, (x,), params_of(("new_sizes", shape)))


__all__ = ["map"]
