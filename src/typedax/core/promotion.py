"""JAX's type promotion: the least upper bound in a lattice of dtypes, in
which Python scalars are *weak* (``i*``, ``f*``, ``c*``) and sit below every integer,
float or complex dtype, so ``x_f32 * 2.0`` stays float32 and ``x_i32 + x_f32`` is
float32 (NumPy would give float64).

The lattice is JAX's (``jax._src.dtypes``), written out for the dtypes
typedax has and those it will have; a weak result takes the default dtype of
its kind (int64, float64; int32, float32 with x64 off, ``core/config.py``),
and ``dtype_of_node`` gives the canonical dtype of a node (JAX's
``result_type`` canonicalizes; ``promote_types`` does not). Weakness is a property of Python
scalars and of weakly typed arrays (``ShapedArray.weak_type``, ``core/weak.py``):
a weak array stands at its kind's weak node.
"""

from __future__ import annotations

import functools
from typing import Final, TypeAlias

import numpy as np

from .avals import ShapedArray
from .dtypes import (
    KEY,
    KEY_NAME,
    NAMES,
    SMALL_FLOATS,
    DType,
    canonicalize_dtype,
    complex128,
    default_complex,
    default_float,
    default_int,
    float64,
    int64,
    is_complex,
    is_float,
)
from .errors import PrimitiveTypeError, TypePromotionError

#: A lattice node: a dtype name, or a weak kind ("i*" Python int, "f*" Python
#: float, "c*" Python complex).
Node: TypeAlias = str

#: The floats of fewer than 16 bits: each only above ``f*`` (issue 29, item 7).
_SMALL_FLOAT_NAMES: Final = tuple(d.name for d in SMALL_FLOATS)

# node -> the nodes directly above it
_EDGES: Final[dict[Node, tuple[Node, ...]]] = {
    "bool": ("i*",),
    "i*": ("uint8", "int8"),
    "uint8": ("int16", "uint16"),
    "uint16": ("int32", "uint32"),
    "uint32": ("int64", "uint64"),
    "uint64": ("f*",),
    "int8": ("int16",),
    "int16": ("int32",),
    "int32": ("int64",),
    "int64": ("f*",),
    "f*": ("float16", "bfloat16", "c*", *_SMALL_FLOAT_NAMES),  # (the small floats are leaves, as in JAX)
    "float16": ("float32",),
    "bfloat16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    "c*": ("complex64",),
    "complex64": ("complex128",),
    "complex128": (),
    **{n: () for n in _SMALL_FLOAT_NAMES},
}
_WEAK_DEFAULT: Final[dict[Node, DType]] = {"i*": int64, "f*": float64, "c*": complex128}


@functools.cache
def _upper(node: Node) -> frozenset[Node]:
    """``node`` and every node above it."""
    out = {node}
    for n in _EDGES[node]:
        out |= _upper(n)
    return frozenset(out)


@functools.cache
def join(a: Node, b: Node) -> Node:
    """The least upper bound of two lattice nodes. Typed PRNG keys
    (``key<fry>``) are outside the lattice: they join only themselves."""
    if a == b:
        return a
    if a == KEY_NAME or b == KEY_NAME:
        raise PrimitiveTypeError(
            f"typed PRNG keys (key<fry>) do not combine with other types, got {a} and {b}; "
            "use typedax.random.key_data(keys) for their uint32 words"
        )
    common = _upper(a) & _upper(b)
    for c in common:
        if common <= _upper(c):
            return c
    # only the small floats (issue 29, item 7) have no common type with others, as in JAX
    bits = "4-bit" if "float4_e2m1fn" in (a, b) else "8-bit"
    raise TypePromotionError(
        f"Input dtypes {(a, b)} have no available implicit dtype promotion path. To avoid unintended "
        f"promotion, {bits} floats do not support implicit promotion. If you'd like your inputs to be "
        "promoted to another type, you can do so explicitly using e.g. x.astype('float32')")


def node_of_dtype(d: DType) -> Node:
    """``d``'s lattice node: its name (looked up: ``np.dtype.name`` is slow)."""
    name = NAMES.get(d)
    if name is not None:
        return name
    name = d.name
    if name not in _EDGES:
        raise PrimitiveTypeError(f"dtype {name} has no place in typedax's type promotion")
    return name


def weak_node(aval: ShapedArray) -> Node:
    """The weak lattice node of a weakly typed value's kind (``c*``, ``f*``, ``i*``)."""
    d = aval.dtype
    return "f*" if is_float(d) else "c*" if is_complex(d) else "i*"


def dtype_of_node(node: Node) -> DType:
    """The dtype of a lattice node with the current x64 setting: a weak
    node's default dtype, a dtype canonicalized (JAX's ``result_type``)."""
    if node == "i*":
        return default_int()
    if node == "f*":
        return default_float()
    if node == "c*":
        return default_complex()
    if node == KEY_NAME:
        return KEY
    return canonicalize_dtype(np.dtype(node))


def promote_types(a: DType, b: DType) -> DType:
    """The dtype two arrays of these dtypes promote to (``jnp.promote_types``:
    not canonicalized, as JAX's is not)."""
    node = join(node_of_dtype(np.dtype(a)), node_of_dtype(np.dtype(b)))
    weak = _WEAK_DEFAULT.get(node)
    return weak if weak is not None else np.dtype(node)
