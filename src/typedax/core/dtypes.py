"""The dtypes typedax supports, and how Python and NumPy values map onto them."""

from __future__ import annotations

import warnings
from typing import Any, Final, TypeAlias, cast

import ml_dtypes
import numpy as np

from .config import X32_POSSIBLE, x64_enabled

DType: TypeAlias = "np.dtype[np.generic]"

bool_: Final[DType] = np.dtype(np.bool_)
int8: Final[DType] = np.dtype(np.int8)
int16: Final[DType] = np.dtype(np.int16)
int32: Final[DType] = np.dtype(np.int32)
int64: Final[DType] = np.dtype(np.int64)
uint8: Final[DType] = np.dtype(np.uint8)
uint16: Final[DType] = np.dtype(np.uint16)
uint32: Final[DType] = np.dtype(np.uint32)
uint64: Final[DType] = np.dtype(np.uint64)
float16: Final[DType] = np.dtype(np.float16)
bfloat16: Final[DType] = np.dtype(ml_dtypes.bfloat16)  # NumPy's kind "V": test membership, never .kind
float32: Final[DType] = np.dtype(np.float32)
float64: Final[DType] = np.dtype(np.float64)
complex64: Final[DType] = np.dtype(np.complex64)
complex128: Final[DType] = np.dtype(np.complex128)
#: The 8-bit (and 4-bit) floats of ml_dtypes that jax.numpy exports and XLA
#: computes on the CPU (issue 29, item 7): NumPy's kind "V", as bfloat16's.
#: Each is a leaf of the promotion lattice above Python floats, as in JAX;
#: XLA on the CPU computes them in wider floats, rounding each result, as
#: the 16-bit ones (``NARROW``). (ml_dtypes' float6 types have no XLA type on the CPU.)
float4_e2m1fn: Final[DType] = np.dtype(ml_dtypes.float4_e2m1fn)
float8_e3m4: Final[DType] = np.dtype(ml_dtypes.float8_e3m4)
float8_e4m3: Final[DType] = np.dtype(ml_dtypes.float8_e4m3)
float8_e4m3b11fnuz: Final[DType] = np.dtype(ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fn: Final[DType] = np.dtype(ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz: Final[DType] = np.dtype(ml_dtypes.float8_e4m3fnuz)
float8_e5m2: Final[DType] = np.dtype(ml_dtypes.float8_e5m2)
float8_e5m2fnuz: Final[DType] = np.dtype(ml_dtypes.float8_e5m2fnuz)
float8_e8m0fnu: Final[DType] = np.dtype(ml_dtypes.float8_e8m0fnu)
#: Whether a type of one of them has been made in this process: until then
#: eager evaluation does not look for them (``core/trace.py``).
SMALL_SEEN: Final[list[bool]] = [False]
#: The floats of fewer than 16 bits (JAX's ``_float8_dtypes`` and ``_float4_dtypes``).
SMALL_FLOATS: Final[tuple[DType, ...]] = (
    float4_e2m1fn, float8_e3m4, float8_e4m3, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz,
    float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu,
)

SUPPORTED: Final[tuple[DType, ...]] = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64,
    complex64, complex128, *SMALL_FLOATS,
)

#: JAX's typed PRNG keys, ``key<fry>``: an *extended* dtype (JAX's term), one
#: element of which is a whole Threefry key, two ``uint32`` words. typedax
#: represents it as a NumPy structured dtype with one field of two words, so
#: a key array of shape ``S`` is a NumPy array of shape ``S`` whose elements
#: are keys: NumPy's own indexing, reshapes, transposes, concatenation and
#: ``where`` move whole keys, and ``KEY_WORDS`` views give the words. On a
#: device (and in StableHLO) a key array is its words, ``ui32[*S, 2]``
#: (``primitives/keys.py``). It is not in ``SUPPORTED``: no arithmetic,
#: reduction or conversion accepts it.
KEY: Final[DType] = np.dtype([("fry", np.uint32, (2,))])
KEY_NAME: Final = "key<fry>"
#: The extended dtypes (JAX's ``dtypes.extended``): typed keys only.
EXTENDED: Final[frozenset[DType]] = frozenset({KEY})

#: Whether a typed key has been made in this process: until then nothing
#: checks operands for keys (``core/ir.py``: ``Primitive``).
KEYS_SEEN: Final[list[bool]] = [False]
#: Primitives that take typed keys: the key primitives themselves, those
#: whose lowering takes any type (loops, conditionals, calls), and the
#: structural ones, which lower on the keys' words (``primitives/keys.py``:
#: ``KEY_LOWERINGS``). Every other primitive refuses key operands.
KEY_NATIVE: Final = frozenset({
    "random_seed", "random_wrap", "random_unwrap", "random_bits", "random_split", "random_fold_in",
    "cond", "while", "scan", "jit", "custom_jvp_call", "custom_vjp_call", "custom_lin",
})
KEY_STRUCTURAL: Final = frozenset({
    "broadcast", "reshape", "transpose", "squeeze", "rev", "concatenate", "slice", "gather",
    "scatter", "dynamic_slice", "dynamic_update_slice", "select_n",
})

BY_NAME: Final[dict[str, DType]] = {**{d.name: d for d in SUPPORTED}, KEY_NAME: KEY}
# ``np.dtype.name`` is a slow Python-level property; printing looks names up here.
NAMES: Final[dict[DType, str]] = {**{d: d.name for d in SUPPORTED}, KEY: KEY_NAME}
FLOATING: Final[frozenset[DType]] = frozenset({float16, bfloat16, float32, float64, *SMALL_FLOATS})
#: The 16-bit floats: evaluated eagerly as XLA on CPU computes them, each
#: operation in float32 and its result rounded (core/trace.py); their sums
#: and products accumulate in float32, as jax.numpy's.
HALF: Final[frozenset[DType]] = frozenset({float16, bfloat16})
#: The floats XLA on CPU computes in float32, rounding each result: the 16-bit
#: ones and the smaller ones (whose sums and products, as JAX's, do not widen).
NARROW: Final[frozenset[DType]] = HALF | frozenset(SMALL_FLOATS)
#: The complex types (JAX's ``complexfloating``): pairs of float32 or float64.
COMPLEX: Final[frozenset[DType]] = frozenset({complex64, complex128})
#: Floats and complex types (JAX's ``inexact``): the types with derivatives.
INEXACT: Final[frozenset[DType]] = FLOATING | COMPLEX
#: The real type of each complex type's parts (``real``, ``imag``, ``abs``).
REAL_OF: Final[dict[DType, DType]] = {complex64: float32, complex128: float64}
#: The complex type with parts of each real float type (``complex``).
COMPLEX_OF: Final[dict[DType, DType]] = {float32: complex64, float64: complex128}
SIGNED: Final[frozenset[DType]] = frozenset({int8, int16, int32, int64})
UNSIGNED: Final[frozenset[DType]] = frozenset({uint8, uint16, uint32, uint64})
#: Integers of either signedness (JAX's ``_int``); arithmetic wraps around in both.
INTEGER: Final[frozenset[DType]] = SIGNED | UNSIGNED


def is_key(d: DType) -> bool:
    """Whether ``d`` is the typed-key dtype ``key<fry>``."""
    return d is KEY or d == KEY


def key_words(x: np.ndarray[tuple[int, ...], DType]) -> np.ndarray[tuple[int, ...], np.dtype[np.uint32]]:
    """The words of a host key array of shape ``S``: ``uint32[*S, 2]`` (a view
    where ``x`` is contiguous)."""
    flat = x if x.flags.c_contiguous else x.copy()  # (ascontiguousarray makes rank 0 rank 1)
    return cast("np.ndarray[tuple[int, ...], np.dtype[np.uint32]]", flat["fry"])  # type: ignore[call-overload]  # a field of a structured array: NumPy's stubs take no str index


def keys_of_words(w: np.ndarray[tuple[int, ...], np.dtype[np.generic]]) -> np.ndarray[tuple[int, ...], DType]:
    """The key array of shape ``S`` whose words are ``w`` (``uint32[*S, 2]``)."""
    words = np.ascontiguousarray(w, dtype=np.uint32)
    return cast("np.ndarray[tuple[int, ...], DType]", words.view(KEY).reshape(words.shape[:-1]))


def is_float(d: DType) -> bool:
    return d in FLOATING


def is_complex(d: DType) -> bool:
    return d in COMPLEX


def is_inexact(d: DType) -> bool:
    """Whether ``d`` is a float or complex type (JAX's ``inexact``: the types
    that have derivatives)."""
    return d in INEXACT


def real_dtype(d: DType) -> DType:
    """The real type of ``d``: a complex type's part type, any other type itself."""
    return REAL_OF.get(d, d)


def is_int(d: DType) -> bool:
    return d in INTEGER


def finfo(dtype: DType | type) -> np.finfo[np.floating[Any]]:
    """Machine limits of a float dtype: NumPy's ``finfo``, bfloat16's too
    (``ml_dtypes.finfo``, what ``jnp.finfo`` is)."""
    return cast("np.finfo[np.floating[Any]]", ml_dtypes.finfo(dtype))  # type: ignore[no-untyped-call]  # ml_dtypes ships it untyped


def is_unsigned(d: DType) -> bool:
    return d in UNSIGNED


def int_range(d: DType) -> tuple[int, int]:
    """The least and greatest value of an integer dtype (bool: 0 and 1)."""
    if d == bool_:
        return 0, 1
    info = np.iinfo(d)  # type: ignore[type-var]  # an integer dtype (callers check)
    return int(info.min), int(info.max)


# -- x64 off: JAX's canonical dtypes -------------------------------------------
#: The 32-bit type each 64-bit one becomes with x64 off (JAX's
#: ``canonicalize_dtype``).
TO_32: Final[dict[DType, DType]] = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


def canonicalize_dtype(d: DType) -> DType:
    """``d`` as it is with the current x64 setting (JAX's ``canonicalize_dtype``)."""
    if not X32_POSSIBLE[0] or x64_enabled():
        return d
    return TO_32.get(d, d)


def canonicalize_explicit(d: DType, fun_name: str) -> DType:
    """A dtype the user asked for by name: canonicalized, with JAX's warning
    when that changes it (``_maybe_canonicalize_explicit_dtype``). Typed
    keys are made by ``typedax.random`` only, never by converting numbers."""
    if d in EXTENDED:
        from .errors import PrimitiveTypeError  # (errors imports nothing of ours)

        raise PrimitiveTypeError(
            f"{fun_name}: values cannot be converted to typed PRNG keys (key<fry>); "
            "make keys with typedax.random.key or wrap_key_data"
        )
    if not X32_POSSIBLE[0] or x64_enabled():
        return d
    c = TO_32.get(d, d)
    if c != d:
        warnings.warn(
            f"Explicitly requested dtype {d} requested in {fun_name} is not available, "
            f"and will be truncated to dtype {c.name}. To enable more dtypes, set the "
            "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell "
            "environment variable. See https://github.com/jax-ml/jax#current-gotchas for more.",
            stacklevel=3,
        )
    return c


def default_int() -> DType:
    """The default integer type: int64, or int32 with x64 off."""
    return int64 if not X32_POSSIBLE[0] or x64_enabled() else int32


def default_float() -> DType:
    """The default float type: float64, or float32 with x64 off."""
    return float64 if not X32_POSSIBLE[0] or x64_enabled() else float32


def default_complex() -> DType:
    """The default complex type: complex128, or complex64 with x64 off."""
    return complex128 if not X32_POSSIBLE[0] or x64_enabled() else complex64


# -- float0 and dtype-likes (issue 29 item 7) ----------------------------------
#: JAX's ``float0``: the dtype of the tangent (and cotangent) of an integer or
#: bool value, which has no derivative. Arrays of it hold nothing (zero bytes
#: per element) and never enter a jaxpr: the transformations' user API turns
#: them into symbolic zeros on the way in and gives them back on the way out,
#: as NumPy arrays (as JAX's ``grad(..., allow_int=True)`` and ``jvp`` do);
#: ``jit`` and ``vmap`` pass them around their traces (``core/float0s.py``).
float0: Final[DType] = np.dtype([("float0", np.void, 0)])

#: JAX's ``jax.typing.DTypeLike``: what names a dtype (a name, a scalar
#: type, a dtype, or an object with a ``dtype``).
DTypeLike: TypeAlias = "str | type | np.dtype[np.generic]"
