"""The counter-based PRNG's one primitive, with every rule: ``threefry2x32``,
the Threefry-2x32 block cipher (Salmon et al., "Parallel random numbers: as
easy as 1, 2, 3", SC 2011) with 20 rounds, exactly as JAX defines it
(``jax._src.random.threefry2x32``).

``threefry2x32 k1 k2 x1 x2`` takes four ``uint32`` operands -- the two key
words and the two counter words -- and gives the two enciphered words
``y1, y2``. Operands of rank 0 broadcast; the others must all have one shape,
which is the shape of both results. Everything ``typedax.random`` computes
(``split``, ``fold_in``, ``random_bits``) is this primitive applied to
counters built from ``iota``, so a jaxpr of a sampler reads like JAX's
lowering of it.

Why one primitive and not a composition of ``add``/``xor``/shift
primitives: the cipher is 20 rounds of 5 word operations plus 5 key
injections, about 120 equations per use; as one primitive a jaxpr stays
readable (``y1:uint32[n] y2:uint32[n] = threefry2x32 k1 k2 x1 x2``),
``impl`` is one vectorized NumPy loop over whole arrays (so eager and
``eval_jaxpr`` stay fast), and the lowering emits the unrolled rounds as
StableHLO integer ops (``add``/``xor``/``shift_left``/
``shift_right_logical``/``or`` on ``ui32``, as JAX's
``_threefry2x32_lowering``), which XLA fuses into one loop.

Rules: abstract evaluation checks the dtypes and shapes; batching is
elementwise (batched operands are moved to the front and broadcast, rank-0
unbatched operands stay scalars); the JVP is a zero tangent (the results are
integers); no transpose (it is never linear).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike
from ..core.avals import ShapedArray
from ..core.dtypes import uint32
from ..core.errors import PrimitiveTypeError
from ..core.ir import NO_PARAMS, Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, JvpRule, Rules, Tangent
from ..core.trace import Value, aval_of, bind
from ..hlo import HloValue, LoweringContext, full, tensor_type
from .structural import broadcast_to, check_arity, move_batch_axis, types_str, zero_like

#: The rotation amounts of the even and odd groups of four rounds.
ROTATIONS: tuple[tuple[int, int, int, int], tuple[int, int, int, int]] = ((13, 15, 26, 6), (17, 29, 16, 24))
#: The key schedule's parity constant (Threefish's ``C240`` for 32-bit words).
PARITY = 0x1BD11BDA


def _out_shape(name: str, avals: Sequence[ShapedArray]) -> tuple[int, ...]:
    shapes = {a.shape for a in avals if a.shape}
    if len(shapes) > 1:
        raise PrimitiveTypeError(
            f"{name}: operands must be scalars or of one shape, got ({types_str(avals)})"
        )
    return shapes.pop() if shapes else ()


def _abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("threefry2x32", avals, 4)
    if any(a.dtype != uint32 for a in avals):
        raise PrimitiveTypeError(f"threefry2x32 takes uint32 operands, got ({types_str(avals)})")
    out = ShapedArray(_out_shape("threefry2x32", avals), uint32)
    return [out, out]


def threefry2x32_numpy(k1: NDArray, k2: NDArray, x1: NDArray, x2: NDArray) -> tuple[NDArray, NDArray]:
    """Threefry-2x32 on ``uint32`` NumPy arrays (rank-0 operands broadcast):
    20 rounds over whole arrays, in place, wrapping as ``uint32`` does."""
    shape = np.broadcast_shapes(np.shape(k1), np.shape(k2), np.shape(x1), np.shape(x2))
    u = np.uint32
    ka, kb = np.asarray(k1, u), np.asarray(k2, u)
    ks = (ka, kb, ka ^ kb ^ u(PARITY))
    a = np.empty(shape, u)
    b = np.empty(shape, u)
    t = np.empty(shape, u)
    np.add(x1, ks[0], out=a)
    np.add(x2, ks[1], out=b)
    for i in range(5):
        for r in ROTATIONS[i % 2]:
            np.add(a, b, out=a)
            np.left_shift(b, u(r), out=t)
            np.right_shift(b, u(32 - r), out=b)
            np.bitwise_or(b, t, out=b)
            np.bitwise_xor(b, a, out=b)
        np.add(a, ks[(i + 1) % 3], out=a)
        np.add(b, ks[(i + 2) % 3], out=b)
        np.add(b, u(i + 1), out=b)
    return a, b


def _impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    y1, y2 = threefry2x32_numpy(*args)
    return [y1, y2]


def _jvp_for(prim: Primitive) -> JvpRule:
    def rule(
        primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
    ) -> tuple[list[Value], list[Tangent]]:
        outs = bind(prim, primals, params)
        return list(outs), [zero_like(o) for o in outs]

    return rule


def _batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    per_example = [
        aval_of(v).shape if d is None else aval_of(v).shape[:d] + aval_of(v).shape[d + 1 :]
        for v, d in zip(vals, dims)
    ]
    shapes = {s for s in per_example if s}
    shape = shapes.pop() if len(shapes) == 1 else ()
    out: list[Value] = []
    for v, d, s in zip(vals, dims, per_example):
        if d is None and not s:
            out.append(v)  # a scalar broadcasts as it is
            continue
        x = move_batch_axis(size, d, 0, v)
        if s != shape:  # a batched per-example scalar: broadcast along the shape
            x = broadcast_to(x, (size,) + shape, tuple(range(1, len(shape) + 1)))
        out.append(x)
    return list(bind(threefry2x32_p, out, params)), [0, 0]


def _lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    aval = eqn.out_binders[0].aval
    ty = tensor_type(aval)

    def bcast(v: HloValue, a: ShapedArray) -> HloValue:
        return v if a.shape == aval.shape else hlo.broadcast_in_dim(ty, v, [])

    k1, k2, x1, x2 = (bcast(v, x.aval) for v, x in zip(args, eqn.inputs))
    return threefry_hlo(aval, k1, k2, x1, x2)


def threefry_hlo(
    aval: ShapedArray, k1: HloValue, k2: HloValue, x1: HloValue, x2: HloValue
) -> list[HloValue]:
    """The cipher's rounds as StableHLO ops on four ``ui32`` tensors of type
    ``aval`` (the typed-key primitives share it, ``primitives/keys.py``)."""

    def const(c: int) -> HloValue:
        return full(c, aval)

    ks = (k1, k2, hlo.xor(hlo.xor(k1, k2), const(PARITY)))
    a = hlo.add(x1, ks[0])
    b = hlo.add(x2, ks[1])
    for i in range(5):
        for r in ROTATIONS[i % 2]:
            a = hlo.add(a, b)
            b = hlo.or_(hlo.shift_left(b, const(r)), hlo.shift_right_logical(b, const(32 - r)))
            b = hlo.xor(a, b)
        a = hlo.add(a, ks[(i + 1) % 3])
        b = hlo.add(hlo.add(b, ks[(i + 2) % 3]), const(i + 1))
    return [a, b]


threefry2x32_p = Primitive(
    "threefry2x32", _impl, _abstract,
    rules_for=lambda p: Rules(jvp=_jvp_for(p), batch=_batch, lower=_lower),
)

FAMILY = Family("prng", (threefry2x32_p,))


# -- the lax-level function ---------------------------------------------------------
def threefry2x32(k1: ArrayLike, k2: ArrayLike, x1: ArrayLike, x2: ArrayLike) -> tuple[Array, Array]:
    """Threefry-2x32 of the counter words ``(x1, x2)`` under the key words
    ``(k1, k2)``: two ``uint32`` arrays (operands of rank 0 broadcast)."""
    y1, y2 = bind(threefry2x32_p, (k1, k2, x1, x2), NO_PARAMS)
    return y1, y2
