"""Typed access to primitive params, with errors that name the primitive."""

from __future__ import annotations

import functools

import numpy as np
from pyrsistent import pmap

from ..core.dtypes import DType
from ..core.errors import PrimitiveTypeError
from ..core.ir import Jaxpr, LazyJaxpr, Param, Params


def _get(prim: str, params: Params, key: str) -> Param:
    try:
        return params[key]  # (one lookup: a pyrsistent map's are Python code)
    except KeyError:
        raise PrimitiveTypeError(f"{prim}: missing param '{key}'") from None


def get_int(prim: str, params: Params, key: str) -> int:
    v = _get(prim, params, key)
    if type(v) is not int:
        raise PrimitiveTypeError(f"{prim}: param '{key}' must be an int, got {v!r}")
    return v


def get_ints(prim: str, params: Params, key: str) -> tuple[int, ...]:
    v = _get(prim, params, key)
    if type(v) is not tuple:
        if not isinstance(v, tuple):
            raise PrimitiveTypeError(f"{prim}: param '{key}' must be a tuple of ints, got {v!r}")
        v = tuple(v)  # a namedtuple, say: a plain tuple of its items
    for x in v:
        if type(x) is not int:
            raise PrimitiveTypeError(f"{prim}: param '{key}' must be a tuple of ints, got {v!r}")
    return v  # type: ignore[return-value]  # every item checked an int just above


def get_dtype(prim: str, params: Params, key: str) -> DType:
    v = _get(prim, params, key)
    if not isinstance(v, np.dtype):
        raise PrimitiveTypeError(f"{prim}: param '{key}' must be a dtype, got {v!r}")
    return v


def get_jaxpr(prim: str, params: Params, key: str) -> Jaxpr:
    v = _get(prim, params, key)
    if not isinstance(v, Jaxpr):
        raise PrimitiveTypeError(f"{prim}: param '{key}' must be a jaxpr, got {v!r}")
    return v


def get_lazy_jaxpr(prim: str, params: Params, key: str) -> LazyJaxpr:
    """A lazily traced jaxpr param (``core.ir.LazyJaxpr``); a plain jaxpr
    (built by hand, or parsed from text) counts as one already traced."""
    v = _get(prim, params, key)
    if isinstance(v, LazyJaxpr):
        return v
    if isinstance(v, Jaxpr):
        return LazyJaxpr.of(v)
    raise PrimitiveTypeError(f"{prim}: param '{key}' must be a jaxpr, got {v!r}")


def get_bool(prim: str, params: Params, key: str) -> bool:
    v = _get(prim, params, key)
    if not isinstance(v, bool):
        raise PrimitiveTypeError(f"{prim}: param '{key}' must be a bool, got {v!r}")
    return v


@functools.lru_cache(maxsize=4096, typed=True)
def params_of(*items: tuple[str, Param]) -> Params:
    """The params map of ``items``, shared between calls (building a ``pmap``
    costs microseconds). Only for values already normalized (ints, tuples of
    ints, dtypes): the cache keys on ``==``."""
    return pmap(dict(items))
