"""``rng_bit_generator``: XLA's stateless bit generator
(``stablehlo.rng_bit_generator``), JAX's primitive with every rule, and
``jax.lax.rng_bit_generator``.

``rng_bit_generator(key; shape, dtype, algorithm)`` returns ``(new_key,
bits)``: ``key`` is ``uint32[4]`` (JAX's usual form, read by XLA as
``uint64[2]``) or ``uint64[2]``; ``bits`` are unsigned integers of ``shape``.
The values are XLA's algorithms' (the platform's default, Threefry or
Philox), so eager evaluation runs the one-equation program
(``eval_on_device``), as JAX's dispatch does, and equals ``jit``.

The outputs are integers: their tangents are zero. Batching is JAX's: a
batch of keys draws one batch of bits from the *first* key (shape
``(batch, *shape)``) and writes that key's successor into its place.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import UNSIGNED, DType, uint32, uint64
from ..core.errors import PrimitiveTypeError
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Rules, Tangent
from ..core.trace import Value, as_value, bind
from ..hlo import HloValue, LoweringContext
from ..hlo._mlir import element_type
from ._params import _get, get_dtype, get_ints, params_of
from .dynamic_slicing import dynamic_update_index_in_dim, index_in_dim
from .structural import check_arity, move_batch_axis, zero_like


class RandomAlgorithm(enum.IntEnum):
    """Which algorithm ``rng_bit_generator`` uses (``jax.lax.RandomAlgorithm``)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:
        return self.name


_HLO_NAMES = {"RNG_DEFAULT": "DEFAULT", "RNG_THREE_FRY": "THREE_FRY", "RNG_PHILOX": "PHILOX"}


def rng_bit_generator(
    key: ArrayLike, shape: Sequence[int], dtype: DType | type = np.uint32,
    algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT,
) -> tuple[Array, Array]:
    """``(new_key, bits)``: uniformly random ``bits`` of ``shape`` and the
    unsigned ``dtype`` from XLA's stateless generator (``jax.lax.rng_bit_generator``;
    ``key`` a ``uint32[4]`` or ``uint64[2]`` array; ``algorithm`` the
    platform's default, Threefry or Philox)."""
    try:
        dims = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"rng_bit_generator: shape must be a sequence of integers, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise TypeError(f"rng_bit_generator: shape must have non-negative sizes, got {dims}")
    d = np.dtype(dtype)
    if d not in UNSIGNED:
        raise TypeError(f"rng_bit_generator: unsupported dtype {d}")
    if not isinstance(algorithm, RandomAlgorithm):
        raise TypeError(f"rng_bit_generator: algorithm must be a lax.RandomAlgorithm, got {algorithm!r}")
    k = as_value(key, "rng_bit_generator's key")
    new_key, bits = bind(rng_bit_generator_p, (k,), _params_of(dims, d, algorithm.name))
    return new_key, bits


def _params_of(shape: tuple[int, ...], dtype: DType, algorithm: str) -> Params:
    return params_of(("shape", shape), ("dtype", dtype), ("algorithm", algorithm))


def _params(params: Params) -> tuple[tuple[int, ...], DType, str]:
    algorithm = _get("rng_bit_generator", params, "algorithm")
    if not isinstance(algorithm, str) or algorithm not in _HLO_NAMES:
        raise PrimitiveTypeError(
            f"rng_bit_generator: param 'algorithm' must be one of {sorted(_HLO_NAMES)}, got {algorithm!r}")
    dtype = get_dtype("rng_bit_generator", params, "dtype")
    if dtype not in UNSIGNED:
        raise PrimitiveTypeError(f"rng_bit_generator: param 'dtype' must be unsigned, got {dtype}")
    return get_ints("rng_bit_generator", params, "shape"), dtype, algorithm


def _abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("rng_bit_generator", avals, 1)
    (key,) = avals
    if not ((key.dtype == uint32 and key.shape == (4,)) or (key.dtype == uint64 and key.shape == (2,))):
        raise PrimitiveTypeError(
            f"rng_bit_generator: the key must be uint32[4] or uint64[2], got {key.str_short()}")
    shape, dtype, _ = _params(params)
    return [ShapedArray(key.shape, key.dtype), ShapedArray(shape, dtype)]


def _impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    raise PrimitiveTypeError("rng_bit_generator: its values are XLA's; it evaluates through XLA only")


def _eval_on_device(values: Sequence[NDArray], avals: Sequence[ShapedArray], params: Params) -> tuple[int, ...] | None:
    return ()  # XLA's generator, eager as under jit


def _jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    outs: list[Value] = list(bind(rng_bit_generator_p, primals, params))
    return outs, [zero_like(o) for o in outs]


def _batch(axis_size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    (keys,), (b,) = vals, dims
    if b is None:
        return list(bind(rng_bit_generator_p, (keys,), params)), [None, None]
    keys = move_batch_axis(axis_size, b, 0, keys)
    shape, dtype, algorithm = _params(params)
    first = index_in_dim(keys, 0, 0, keepdims=False)
    new_key, bits = bind(rng_bit_generator_p, (first,), _params_of((axis_size, *shape), dtype, algorithm))
    return [dynamic_update_index_in_dim(keys, new_key, 0, 0), bits], [0, 0]


def _lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    shape, dtype, algorithm = _params(eqn.params)
    (key,) = args
    u32, u64 = ir.IntegerType.get_unsigned(32), ir.IntegerType.get_unsigned(64)
    as_u32 = eqn.inputs[0].aval.dtype == uint32
    if as_u32:  # XLA's generator takes u64[2] (JAX's lowering)
        key = hlo.bitcast_convert(ir.RankedTensorType.get([2], u64), hlo.reshape(ir.RankedTensorType.get([2, 2], u32), key))
    out_key, bits = hlo.RngBitGeneratorOp(
        key.type, ir.RankedTensorType.get(list(shape), element_type(dtype)),
        hlo.RngAlgorithmAttr.get(_HLO_NAMES[algorithm]), key).results
    if as_u32:
        out_key = hlo.reshape(ir.RankedTensorType.get([4], u32), hlo.bitcast_convert(ir.RankedTensorType.get([2, 2], u32), out_key))
    return [out_key, bits]


rng_bit_generator_p: Primitive = Primitive(
    "rng_bit_generator", _impl, _abstract,
    rules=Rules(jvp=_jvp, batch=_batch, lower=_lower, eval_on_device=_eval_on_device),
)

FAMILY = Family("rng_bit_generator", (rng_bit_generator_p,))
