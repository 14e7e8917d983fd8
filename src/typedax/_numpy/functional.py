"""Function transformations and dtype names of ``jax.numpy`` (issue 12,
group 6): ``vectorize`` (``vmap`` over the loop dimensions, NumPy's
generalized-ufunc ``signature``), ``piecewise``; ``issubdtype``,
``isdtype``, ``can_cast``, ``iterable``, and the dtype names ``float_``,
``int_``, ``uint``, ``double``, ``single``, ``dtype``, ``ndarray`` and
NumPy's abstract scalar types (``jnp.issubdtype(x.dtype, jnp.floating)``)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Sequence
from typing import TypeVar

import numpy as np

from .. import lax
from ..core.array import Array, ArrayLike
from ..core.dtypes import FLOATING, DType, bfloat16, bool_, float32, float64, int64, uint64
from ..core.errors import PrimitiveTypeError
from ..core.trace import Tracer
from . import lax_numpy as tnp

float_ = float64
int_ = int64
uint = uint64
double = float64
single = float32
dtype = np.dtype
ndarray = Array
iterable = np.iterable

generic = np.generic
number = np.number
inexact = np.inexact
floating = np.floating
complexfloating = np.complexfloating
integer = np.integer
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger
character = np.character
flexible = np.flexible

_HALF_ABSTRACT = (np.floating, np.inexact, np.number, np.generic)


def _dtype_of(x: object) -> DType | None:
    """``np.dtype(x)``, or None for what is not a dtype (an abstract scalar type)."""
    try:
        return np.dtype(x)  # type: ignore[call-overload, no-any-return]  # any dtype-like, as NumPy takes
    except TypeError:
        return None


def issubdtype(arg1: object, arg2: object) -> bool:
    """``jnp.issubdtype``: NumPy's, with bfloat16 (and float16) floating as in JAX."""
    d1 = _dtype_of(arg1)
    if d1 is None:
        return bool(np.issubdtype(arg1, arg2))  # type: ignore[arg-type]  # a scalar type
    if d1 in FLOATING and arg2 in _HALF_ABSTRACT:
        return True
    if d1 == bfloat16:
        return _dtype_of(arg2) == d1
    return bool(np.issubdtype(d1, arg2))  # type: ignore[arg-type]  # a dtype-like


_KINDS: dict[str, Callable[[DType], bool]] = {
    "bool": lambda d: d == bool_,
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": lambda d: d.kind in "iu",
    "real floating": lambda d: d in FLOATING,
    "complex floating": lambda d: d.kind == "c",
    "numeric": lambda d: d.kind in "iuc" or d in FLOATING,
}


def isdtype(dtype: object, kind: str | object | tuple[object, ...]) -> bool:
    """``jnp.isdtype`` (the array API's): whether ``dtype`` is of ``kind`` (a
    name such as ``'real floating'``, a dtype, or a tuple of these)."""
    d = _dtype_of(dtype)
    if d is None:
        raise PrimitiveTypeError(f"isdtype: dtype argument must be a dtype, got {dtype!r}")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in _KINDS:
                raise PrimitiveTypeError(f"isdtype: Unrecognized kind={k!r}; expected one of {sorted(_KINDS)}")
            if _KINDS[k](d):
                return True
        elif d == _dtype_of(k):
            return True
    return False


def can_cast(from_: object, to: object, casting: str = "safe") -> bool:
    """``jnp.can_cast``: NumPy's rule (``casting='safe'`` by default)."""
    return bool(np.can_cast(from_, to, casting=casting))  # type: ignore[arg-type]  # dtype-likes


# -- vectorize --------------------------------------------------------------------------
_DIM = r"\w+"
_CORE = rf"(?:{_DIM}(?:,{_DIM})*)?"
_ARGS = rf"\({_CORE}\)(?:,\({_CORE}\))*"
_SIGNATURE = re.compile(rf"^{_ARGS}->{_ARGS}$")


def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    s = signature.replace(" ", "")
    if not _SIGNATURE.match(s):
        raise PrimitiveTypeError(f"vectorize: not a valid gufunc signature: {signature}")
    ins, outs = s.split("->")

    def parts(t: str) -> list[tuple[str, ...]]:
        return [tuple(p for p in group.split(",") if p) for group in re.findall(r"\(([^)]*)\)", t)]

    return parts(ins), parts(outs)


R = TypeVar("R")


def vectorize(pyfunc: Callable[..., R], *, excluded: Collection[int | str] = frozenset(),
              signature: str | None = None) -> Callable[..., R]:
    """``jnp.vectorize``: ``pyfunc`` mapped over the leading (loop) dimensions
    of its arguments, broadcast together, by ``vmap``; ``signature`` (NumPy's
    ``'(n),(n)->()'``) names each argument's core dimensions, which
    ``pyfunc`` sees whole. Arguments in ``excluded`` (positions or names)
    are passed through unmapped."""
    from ..api_forward import vmap

    ins_sig, outs_sig = _parse_signature(signature) if signature is not None else (None, None)

    @functools.wraps(pyfunc)
    def wrapped(*args: object, **kwargs: object) -> R:
        static_pos = {i for i in excluded if isinstance(i, int)}
        dyn = [i for i in range(len(args)) if i not in static_pos]
        mapped_kw = {k: v for k, v in kwargs.items() if k not in excluded}
        static_kw = {k: v for k, v in kwargs.items() if k in excluded}
        kw_names = list(mapped_kw)
        arrays = [tnp.asarray(args[i]) for i in dyn] + [tnp.asarray(mapped_kw[k]) for k in kw_names]  # type: ignore[arg-type]  # array arguments
        if ins_sig is not None and len(ins_sig) != len(arrays):
            raise PrimitiveTypeError(
                f"vectorize: wrong number of positional arguments: expected {len(ins_sig)}, got {len(arrays)}"
            )
        core_ranks = [len(ins_sig[j]) if ins_sig is not None else 0 for j in range(len(arrays))]
        sizes: dict[str, int] = {}
        for j, a in enumerate(arrays):
            if a.ndim < core_ranks[j]:
                raise PrimitiveTypeError(
                    f"vectorize: input with shape {a.shape} does not have enough dimensions for its core "
                    f"dimensions {ins_sig[j] if ins_sig is not None else ()}"
                )
            if ins_sig is not None:
                for name, n in zip(ins_sig[j], a.shape[a.ndim - core_ranks[j]:]):
                    if sizes.setdefault(name, n) != n:
                        raise PrimitiveTypeError(f"vectorize: inconsistent size for core dimension {name!r}: {sizes[name]} vs {n}")
        loop = tuple(np.broadcast_shapes(*(a.shape[: a.ndim - r] for a, r in zip(arrays, core_ranks))))
        arrays = [tnp.broadcast_to(a, loop + a.shape[a.ndim - r:]) for a, r in zip(arrays, core_ranks)]

        def call(*xs: Array) -> R:
            full: list[object] = list(args)
            for i, x in zip(dyn, xs[: len(dyn)]):
                full[i] = x
            kw: dict[str, object] = dict(static_kw)
            kw.update(zip(kw_names, xs[len(dyn):]))
            return pyfunc(*full, **kw)

        f: Callable[..., R] = call
        for _ in loop:
            f = vmap(f)
        out = f(*arrays)
        if outs_sig is not None and len(outs_sig) > 1 and not isinstance(out, tuple):
            raise PrimitiveTypeError(f"vectorize: the function must return {len(outs_sig)} outputs, per the signature")
        return out

    return wrapped


def piecewise(x: ArrayLike, condlist: Sequence[ArrayLike] | ArrayLike,
              funclist: Sequence[ArrayLike | Callable[..., ArrayLike]], *args: object, **kw: object) -> Array:
    """``jnp.piecewise``: ``funclist[i](x)`` where ``condlist[i]`` holds (the
    last true condition wins), the extra function (or 0) where none does. Each
    function is evaluated on the whole of ``x`` and the values selected."""
    xa = tnp.asarray(x)
    conds = [tnp.asarray(c) for c in condlist] if isinstance(condlist, (list, tuple)) else \
        [lax.index_in_dim(tnp.asarray(condlist), i, 0, keepdims=False) for i in range(tnp.asarray(condlist).shape[0])]
    nc, nf = len(conds), len(funclist)
    if nf == nc + 1:
        funcs = list(funclist[-1:]) + list(funclist[:-1])
    elif nf == nc:
        funcs = [0] + list(funclist)
    else:
        raise PrimitiveTypeError(f"piecewise: with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}")
    out = tnp.zeros_like(xa)

    def value(fn: ArrayLike | Callable[..., ArrayLike]) -> Array:
        v = fn(xa, *args, **kw) if callable(fn) else fn
        return tnp.astype(tnp.broadcast_to(tnp.asarray(v), xa.shape), xa.dtype)

    out = value(funcs[0])
    for c, fn in zip(conds, funcs[1:]):
        out = tnp.where(tnp.astype(c, bool_), value(fn), out)
    return out


def ravel_multi_index(multi_index: Sequence[ArrayLike], dims: Sequence[int], mode: str = "raise",
                      order: str = "C") -> Array:
    """``jnp.ravel_multi_index``: per-axis indices as flat indices into an
    array of shape ``dims`` (``mode='raise'`` checks concrete indices;
    ``'wrap'``/``'clip'`` work traced)."""
    if len(multi_index) != len(dims):
        raise PrimitiveTypeError(f"ravel_multi_index: len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    ds = tuple(int(d) for d in dims)
    idx = [tnp.asarray(i) for i in multi_index]
    for i in idx:
        if i.dtype.kind not in "iu":
            raise PrimitiveTypeError("ravel_multi_index: only int indices permitted")
    d = tnp.result_type(0, *idx)
    if mode == "raise":
        for i, n in zip(idx, ds):
            if isinstance(i, Tracer):
                raise PrimitiveTypeError("ravel_multi_index: mode='raise' needs concrete indices; use mode='wrap' or 'clip' under jit")
            v = np.asarray(i)
            if ((v < 0) | (v >= n)).any():
                raise PrimitiveTypeError("ravel_multi_index: invalid entry in coordinates array")
    elif mode == "clip":
        idx = [tnp.clip(i, 0, n - 1) for i, n in zip(idx, ds)]
    elif mode == "wrap":
        idx = [tnp.remainder(i, n) for i, n in zip(idx, ds)]
    else:
        raise PrimitiveTypeError(f"ravel_multi_index: invalid mode={mode!r}. Expected 'raise', 'wrap' or 'clip'.")
    if order == "F":
        strides = np.cumprod((1,) + ds[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + ds[1:][::-1])[::-1]
    else:
        raise PrimitiveTypeError(f"ravel_multi_index: invalid order={order!r}. Expected 'C' or 'F'")
    result = tnp.zeros((), d)
    for i, s in zip(idx, strides):
        result = tnp.add(result, tnp.multiply(tnp.astype(i, d), int(s)))
    return result
