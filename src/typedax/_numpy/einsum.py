"""``jnp.einsum`` (issue 12, group 3): the subscripts parsed (explicit or
implicit output, ``...``, repeated labels within an operand), then the
operands contracted left to right, each step one ``dot_general`` whose
batch dimensions are the labels both sides share and still need, after
summing out the labels no one else needs. ``optimize`` is accepted and
ignored (the order is left to right)."""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import DType, bool_
from ..core.errors import ArgumentValueError, PrimitiveTypeError, ShapeError
from ..primitives._precision import PrecisionLike
from . import lax_numpy as tnp
from .creation import diagonal
from .manipulation import _bool_dot

_LETTERS = string.ascii_letters


def _parse(subscripts: str, ndims: Sequence[int]) -> tuple[list[str], str]:
    """The input label strings (``...`` expanded to fresh uppercase-free
    labels) and the output labels."""
    s = subscripts.replace(" ", "")
    if "->" in s:
        lhs, out = s.split("->", 1)
        explicit = True
    else:
        lhs, out, explicit = s, "", False
    ins = lhs.split(",")
    if len(ins) != len(ndims):
        raise ArgumentValueError(
            f"einsum: {len(ins)} operand subscripts in {subscripts!r} for {len(ndims)} operands"
        )
    used = set(c for c in s if c.isalpha())
    for c in s:
        if not (c.isalpha() or c in ",.->"):
            raise PrimitiveTypeError(f"einsum: invalid subscript {c!r} in {subscripts!r}")
    fresh = [c for c in "".join(chr(i) for i in range(0x100, 0x200)) if c not in used]
    ell_rank = 0
    for term, nd in zip(ins, ndims):
        if "..." in term:
            ell_rank = max(ell_rank, nd - (len(term) - 3))
    ell = "".join(fresh[:ell_rank])
    expanded: list[str] = []
    for term, nd in zip(ins, ndims):
        if term.count("...") > 1 or ("." in term.replace("...", "")):
            raise PrimitiveTypeError(f"einsum: invalid ellipsis in {term!r}")
        if "..." in term:
            k = nd - (len(term) - 3)
            if k < 0:
                raise PrimitiveTypeError(f"einsum: operand subscripts {term!r} have more labels than its {nd} axes")
            term = term.replace("...", ell[ell_rank - k:])
        if len(term) != nd:
            raise PrimitiveTypeError(
                f"einsum: operand subscripts {term!r} name {len(term)} axes of an operand with {nd}"
            )
        expanded.append(term)
    if explicit:
        if out.count("...") > 1 or "." in out.replace("...", ""):
            raise PrimitiveTypeError(f"einsum: invalid ellipsis in the output {out!r}")
        out = out.replace("...", ell)
        all_in = set("".join(expanded))
        for c in out:
            if c not in all_in:
                raise ArgumentValueError(f"einsum: output subscript {c!r} does not appear in the inputs")
        if len(set(out)) != len(out):
            raise ArgumentValueError(f"einsum: output subscripts {out!r} repeat a label")
    else:
        joined = "".join(expanded)
        out = ell + "".join(sorted(c for c in set(joined) if joined.count(c) == 1 and c not in ell))
    return expanded, out


def _diagonalize(x: Array, labels: str) -> tuple[Array, str]:
    """A label repeated within one operand: its diagonal."""
    while True:
        dup = next((c for c in labels if labels.count(c) > 1), None)
        if dup is None:
            return x, labels
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        if x.shape[i] != x.shape[j]:
            raise ShapeError(
                f"einsum: label {dup!r} has sizes {x.shape[i]} and {x.shape[j]} in one operand"
            )
        x = diagonal(x, 0, i, j)
        labels = "".join(c for k, c in enumerate(labels) if k not in (i, j)) + dup


def _sum_out(x: Array, labels: str, keep: set[str]) -> tuple[Array, str]:
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return x, labels
    summed = lax.reduce_or(x, axes) if x.dtype == bool_ else lax.reduce_sum(x, axes)  # bools: or, as JAX
    return summed, "".join(c for c in labels if c in keep)


def einsum(subscripts: str, /, *operands: ArrayLike, out: None = None, optimize: object = "auto",
           precision: PrecisionLike = None, preferred_element_type: DType | type | None = None) -> Array:
    """``jnp.einsum`` with string subscripts (``'ij,jk->ik'``, ``'...ii->...i'``,
    implicit output ``'ij,jk'``)."""
    if out is not None:
        raise PrimitiveTypeError("einsum: The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        raise PrimitiveTypeError("einsum: the subscripts must be a string (the interleaved form is not supported)")
    if not operands:
        raise PrimitiveTypeError("einsum: no operands given")
    arrays = [tnp.asarray(a) for a in tnp._promote(*operands)] if len(operands) > 1 else [tnp.asarray(operands[0])]
    ins, out_labels = _parse(subscripts, [a.ndim for a in arrays])
    sizes: dict[str, int] = {}
    for a, labels in zip(arrays, ins):
        for c, n in zip(labels, a.shape):
            if c in sizes and n != sizes[c] and 1 not in (n, sizes[c]):
                raise ShapeError(
                    f"einsum: label {c!r} has sizes {sizes[c]} and {n} (in {subscripts!r})"
                )
            sizes[c] = n if c not in sizes or sizes[c] == 1 else sizes[c]
    terms: list[tuple[Array, str]] = []
    for a, labels in zip(arrays, ins):
        a, labels = _diagonalize(a, labels)
        if any(n == 1 and sizes[c] != 1 for c, n in zip(labels, a.shape)):  # size-1 axes broadcast
            a = tnp.broadcast_to(a, tuple(sizes[c] for c in labels))
        terms.append((a, labels))

    def needed(k: int) -> set[str]:
        """Labels used by the output or by terms after the k-th."""
        rest = set(out_labels)
        for _, lab in terms[k + 1:]:
            rest |= set(lab)
        return rest

    x, xl = terms[0]
    for k in range(1, len(terms)):
        y, yl = terms[k]
        keep = needed(k)
        x, xl = _sum_out(x, xl, keep | set(yl))
        y, yl = _sum_out(y, yl, keep | set(xl))
        batch = [c for c in xl if c in yl and c in keep]
        contract = [c for c in xl if c in yl and c not in keep]
        dn = ((tuple(xl.index(c) for c in contract), tuple(yl.index(c) for c in contract)),
              (tuple(xl.index(c) for c in batch), tuple(yl.index(c) for c in batch)))
        x = _bool_dot(x, y, dn, precision, preferred_element_type)
        xl = "".join(batch) + "".join(c for c in xl if c not in batch and c not in contract) + \
            "".join(c for c in yl if c not in batch and c not in contract)
    x, xl = _sum_out(x, xl, set(out_labels))
    perm = tuple(xl.index(c) for c in out_labels)
    if perm != tuple(range(len(perm))):
        x = lax.transpose(x, perm)
    if preferred_element_type is not None:
        x = tnp.astype(x, preferred_element_type)
    return x


_PATH_OPTIMIZERS = ("auto", "optimal", "greedy")


def einsum_path(subscripts: str, /, *operands: ArrayLike,
                optimize: bool | str | list[tuple[int, ...]] = "auto") -> tuple[list[tuple[int, ...]], str]:
    """``jnp.einsum_path`` (issue 29, item 7): the order in which to contract
    the operands, as a list of index tuples (JAX's first result), and a report
    of its cost (NumPy's ``einsum_path`` text, where JAX gives opt_einsum's
    ``PathInfo``, which prints alike). Only the operands' shapes are read, so
    tracers are accepted. ``'auto'`` searches every order for up to 6
    operands (JAX's path, opt_einsum's, for up to 4; for 5 and 6 opt_einsum
    prunes its search, so a path of equal cost may differ) and is greedy
    above; ``False`` contracts left to right."""
    if not isinstance(subscripts, str):
        raise PrimitiveTypeError("einsum_path: the subscripts must be a string (the interleaved form is not supported)")
    dummies = [np.broadcast_to(np.zeros((), np.float32), np.shape(a) if not isinstance(a, Array) else a.shape)
               for a in operands]
    spec: str | list[object]
    if isinstance(optimize, bool):
        steps: list[tuple[int, ...]] = [(0, 1)] * (len(operands) - 1) or [(0,)]
        spec = "optimal" if optimize else ["einsum_path", *steps]
    elif isinstance(optimize, str):
        if optimize not in _PATH_OPTIMIZERS:
            raise ArgumentValueError(f"einsum_path: optimize must be one of {_PATH_OPTIMIZERS}, a bool or a path; got {optimize!r}")
        spec = "greedy" if optimize == "greedy" or (optimize == "auto" and len(operands) > 6) else "optimal"
    else:
        spec = ["einsum_path", *(tuple(int(i) for i in step) for step in optimize)]
    path, report = np.einsum_path(subscripts, *dummies, optimize=spec)
    return [tuple(int(i) for i in step) for step in path[1:]], str(report)
