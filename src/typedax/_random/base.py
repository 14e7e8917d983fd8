"""What every module of ``typedax.random`` checks and shares: the type
aliases of keys, shapes and dtypes, reading a key argument (typed or raw)
and its static shape, dtype and parameter arguments, and the small numeric
helpers of the samplers. Builds on the core and the ``numpy`` layer only."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TypeAlias, cast

import numpy as np

from .. import lax
from .. import numpy as tnp
from ..core.array import Array, ArrayImpl, ArrayLike, from_numpy
from ..core.dtypes import (
    EXTENDED,
    DType,
    FLOATING,
    INTEGER,
    canonicalize_explicit,
    default_float,
    default_int,
    finfo,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ..core.errors import ConcretizationError, RandomKeyError
from ..core.trace import EVAL_TRACE, Tracer, aval_of, current_trace


Shape: TypeAlias = Sequence[int]
DTypeLike: TypeAlias = "DType | type | str"

_UINT: dict[int, DType] = {8: uint8, 16: uint16, 32: uint32, 64: uint64}


# -- typed keys ------------------------------------------------------------------------
#: The type of typed key arrays: ``Array``s of dtype ``key<fry>`` (JAX's
#: ``jax.Array`` of an extended dtype); kept as a name for annotations.
KeyArray: TypeAlias = Array

RawKey: TypeAlias = "np.ndarray[tuple[int, ...], np.dtype[np.uint32]]"
KeyLike: TypeAlias = "Array | np.ndarray[tuple[int, ...], np.dtype[np.uint32]]"


def _is_typed(key: object) -> bool:
    return isinstance(key, (Array, np.ndarray, np.void)) and aval_of(key).dtype in EXTENDED


# -- argument checks ---------------------------------------------------------------------
def _key_of(name: str, key: object, *, batched: bool = False) -> tuple[Array, bool]:
    """``key`` as an ``Array`` -- typed keys as they are, a raw key as its
    ``uint32[..., 2]`` words -- and whether it was typed."""
    if _is_typed(key):
        # (a NumPy key array, or one element of one: np.void, is taken as keys)
        k = key if isinstance(key, Array) else from_numpy(np.asarray(key))
        if not batched and aval_of(k).ndim:
            raise RandomKeyError(
                f"{name} takes a single key, but was given a key array of shape {aval_of(k).shape} != (). "
                "Use typedax.vmap for batching."
            )
        return k, True
    if isinstance(key, (Array, np.ndarray)):
        data = key if isinstance(key, Array) else from_numpy(np.asarray(key))
    else:
        raise RandomKeyError(
            f"{name}: expected a PRNG key (from typedax.random.PRNGKey, key, split or fold_in), "
            f"got {type(key).__name__}"
        )
    a = aval_of(data)
    if a.dtype != uint32 or not a.shape or a.shape[-1] != 2:
        raise RandomKeyError(
            f"{name}: a raw PRNG key is a uint32 array with last dimension 2 (uint32[2]), got "
            f"{a.str_short()}; make one with typedax.random.PRNGKey(seed)"
        )
    if not batched and a.ndim != 1:
        raise RandomKeyError(
            f"{name} takes a single key, but was given a key array of shape {a.shape[:-1]} != (). "
            "Use typedax.vmap for batching."
        )
    return data, False


def _static_int(name: str, what: str, v: object) -> int:
    if isinstance(v, Tracer):
        raise ConcretizationError(
            f"{name}: {what} must be a static Python integer, got a traced value {aval_of(v).str_short()}; "
            "pass it as a static argument (jit(..., static_argnums=...)) or compute it outside the traced function"
        )
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        if isinstance(v, (ArrayImpl, np.ndarray)) and aval_of(v).ndim == 0 and aval_of(v).dtype in INTEGER:
            return int(np.asarray(v))
        raise RandomKeyError(f"{name}: {what} must be an integer, got {v!r}")
    return operator.index(v)


def _shape(name: str, shape: object) -> tuple[int, ...]:
    """A static shape: a tuple of non-negative Python integers."""
    if isinstance(shape, Tracer):
        raise ConcretizationError(
            f"{name}: shape must be static (a tuple of Python integers), got a traced value "
            f"{aval_of(shape).str_short()}"
        )
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        dims: Sequence[object] = (shape,)
    elif isinstance(shape, (tuple, list)):
        dims = shape
    else:
        raise RandomKeyError(f"{name}: shape must be a tuple of integers, got {shape!r}")
    out = tuple(_static_int(name, "each dimension of shape", d) for d in dims)
    if any(d < 0 for d in out):
        raise RandomKeyError(f"{name}: shape must have non-negative dimensions, got {out}")
    return out


def _float_dtype(name: str, dtype: object) -> DType:
    d = default_float() if dtype is None else canonicalize_explicit(np.dtype(cast(DTypeLike, dtype)), name)
    if d not in FLOATING:
        raise RandomKeyError(f"dtype argument to `{name}` must be a float dtype, got {d}")
    return d


def _check_shape(name: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
    if param_shapes:
        try:
            b: tuple[int, ...] | None = np.broadcast_shapes(shape, *param_shapes)
        except ValueError:
            b = None
        if b != shape:
            raise RandomKeyError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, and the "
                f"result of broadcasting the shapes must equal the shape argument, but got result {b} "
                f"for shape argument {shape}."
            )


def _is_concrete(*xs: object) -> bool:
    return current_trace() is EVAL_TRACE and not any(isinstance(x, Tracer) for x in xs)


# -- shapes and numbers the samplers share ---------------------------------------------
def _to_rank(x: Array, rank: int) -> Array:
    s = aval_of(x).shape
    return x if len(s) == rank else lax.reshape(x, (1,) * (rank - len(s)) + s)


def _bcast(x: ArrayLike, shape: tuple[int, ...]) -> Array:
    return tnp.broadcast_to(x, shape)


def _float_bits(dtype: DType) -> tuple[int, int]:
    """The width and the mantissa bits of a float dtype (float16 and bfloat16 too)."""
    return 8 * dtype.itemsize, int(finfo(dtype).nmant)


def _tiny(dtype: DType) -> float:
    """The smallest normal number of a float dtype."""
    return float(finfo(dtype).smallest_normal)


def _is_static_scalar(x: object) -> bool:
    return type(x) in (int, float)


def _float_param_shape(name: str, shape: Shape | None, *params: ArrayLike) -> tuple[int, ...]:
    pshapes = [aval_of(p).shape for p in params]
    if shape is None:
        return tuple(np.broadcast_shapes(*pshapes)) if pshapes else ()
    s = _shape(name, shape)
    _check_shape(name, s, *pshapes)
    return s


def _moveaxis(x: Array, src: int, dst: int) -> Array:
    perm = [i for i in range(aval_of(x).ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, tuple(perm))


def _int_dtype(name: str, dtype: object) -> DType:
    d = default_int() if dtype is None else canonicalize_explicit(np.dtype(cast(DTypeLike, dtype)), name)
    if d not in INTEGER:
        raise RandomKeyError(f"dtype argument to `{name}` must be an int dtype, got {d}")
    return d


def _inexact_dtype(x: ArrayLike) -> DType:
    """``x``'s dtype if a float, else the default float (``promote_dtypes_inexact``)."""
    d = aval_of(x).dtype
    return d if d in FLOATING else default_float()


def _check_safe_cast(name: str, dtype: DType, *args: ArrayLike) -> None:
    """JAX's ``_check_all_safe_to_cast``: each parameter converts to ``dtype``
    without loss under the promotion rules (Python scalars are weak, so always)."""
    for a in args:
        if type(a) in (bool, int, float):
            continue
        ad = aval_of(a).dtype
        if tnp.result_type(ad, dtype) != dtype:
            raise RandomKeyError(f"In arguments to {name}, cannot safely cast argument of type {ad} to {dtype}")


def _no_tangent(x: ArrayLike) -> ArrayLike:
    """``x`` detached from differentiation where it is traced: a sampler of
    counts (floors and selects of its parameters) has a zero derivative, and
    its rejection loops then carry no tangents."""
    return lax.stop_gradient(x) if isinstance(x, Tracer) else x


def _const(v: float, dtype: DType) -> np.ndarray[tuple[()], np.dtype[np.generic]]:
    return np.asarray(v, dtype)
