"""Typed PRNG keys (``key<fry>``, JAX's extended dtype): their six primitives,
and the lowering of structural primitives on key arrays.

A key array of shape ``S`` has the type ``key<fry>[*S]`` (``core/dtypes.py``:
``KEY``, a NumPy structured dtype of two ``uint32`` words, so an eager value
holds one whole key per element). On a device and in StableHLO it is its
words, ``ui32[*S, 2]`` (``core.avals.physical_aval``).

The primitives, named and printed as JAX's:

- ``random_seed[impl=fry] seed``: integer seeds of shape ``S`` to keys of
  shape ``S`` -- the high and low 32 bits of a 64-bit seed, ``0`` and the
  seed (sign-extended) for a narrower one, as ``typedax.random.PRNGKey``;
- ``random_wrap[impl=fry] words``: ``uint32[*S, 2]`` to ``key<fry>[*S]``;
- ``random_unwrap keys``: the reverse;
- ``random_bits[bit_width=B shape=T] keys``: ``key<fry>[*S]`` to
  ``uintB[*S, *T]``, each key's bits (``typedax.random.bits`` of one key);
- ``random_split[shape=T] keys``: to ``key<fry>[*S, *T]``;
- ``random_fold_in keys data``: ``key<fry>[*S]`` and ``uint32[*S]`` to
  ``key<fry>[*S]``.

Each has every rule: NumPy evaluation (the cipher over whole arrays,
``prng.threefry2x32_numpy``), abstract evaluation, batching (a batch of
keys is a key array with one more leading axis), a zero JVP (keys and bits
are not differentiable) and a lowering to StableHLO on the words
(``prng.threefry_hlo``). They compute exactly what ``typedax.random``
computes on a raw ``uint32[2]`` key, so typed and raw keys give the same bits
(``tests/test_typed_keys.py`` checks both against JAX).

Structural primitives on key arrays (``broadcast``, ``reshape``,
``transpose``, ``squeeze``, ``rev``, ``slice``, ``dynamic_slice``,
``dynamic_update_slice``, ``concatenate``, ``gather``, ``scatter``,
``select_n``) check types as for any dtype and evaluate on the NumPy values
(NumPy moves whole structured elements); they lower through
``KEY_LOWERINGS``: the same primitive on the words, its params extended by
the trailing word axis. Arithmetic, comparisons, reductions and conversions
refuse keys in abstract evaluation (``key<fry>`` is in none of their dtype
sets), as JAX's do; any other primitive refuses them when lowered.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array, ArrayLike, install_keys_equal
from ..core.avals import ShapedArray, physical_aval
from ..core.dtypes import (
    EXTENDED,
    INTEGER,
    KEY,
    DType,
    int32,
    key_words,
    keys_of_words,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ..core.errors import PrimitiveTypeError
from ..core.ir import NO_PARAMS, Atom, Eqn, Lit, NDArray, Param, Params, Primitive, new_var
from ..core.rules import BatchDim, BatchRule, Family, Rules
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext, full, tensor_type
from ..hlo.interpret import KEY_LOWERINGS
from ._params import get_int, get_ints, params_of
from .elementwise import eq_p, ne_p
from .prng import threefry2x32_numpy, threefry_hlo
from .reductions import reduce_and, reduce_or
from .structural import broadcast_to, check_arity, install_wrap_keys, move_batch_axis, types_str, zero_jvp

#: the ``impl`` param of ``random_seed`` and ``random_wrap``: JAX's name of
#: the Threefry implementation in printed jaxprs
IMPL = "fry"
_UINT: dict[int, DType] = {8: uint8, 16: uint16, 32: uint32, 64: uint64}
_IMPL_PARAMS: Params = params_of(("impl", IMPL))


def _is_key(a: ShapedArray) -> bool:
    return a.dtype in EXTENDED


def _key_operand(name: str, a: ShapedArray) -> None:
    if not _is_key(a):
        raise PrimitiveTypeError(f"{name} takes an array of typed PRNG keys (key<fry>), got {a.str_short()}")


def _impl_param(name: str, params: Params) -> None:
    if params.get("impl") != IMPL:
        raise PrimitiveTypeError(f"{name}: param 'impl' must be {IMPL!r} (Threefry), got {params.get('impl')!r}")


# -- NumPy evaluation ------------------------------------------------------------------------
def _seed_words(seed: NDArray) -> NDArray:
    """``uint32[*S, 2]``: the high and low words of integer seeds of shape ``S``."""
    if seed.dtype.itemsize == 8:
        wide = seed.astype(np.uint64)  # two's complement: a negative seed's bits
        hi = (wide >> np.uint64(32)).astype(np.uint32)
        lo = (wide & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    else:
        hi = np.zeros(seed.shape, np.uint32)
        lo = seed.astype(np.uint32)  # sign-extended, then the low 32 bits (XLA's convert)
    return np.stack([hi, lo], axis=-1)


def _cipher(words: NDArray, shape: tuple[int, ...], data: NDArray | None = None) -> tuple[NDArray, NDArray]:
    """The two cipher words for keys ``words`` (``uint32[*S, 2]``) and
    counters: ``iota`` of ``shape`` after the key axes, or ``data`` (of shape
    ``S``) for ``fold_in``."""
    lead = words.shape[:-1]
    k1 = words[..., 0].reshape(lead + (1,) * len(shape))
    k2 = words[..., 1].reshape(lead + (1,) * len(shape))
    if data is None:
        n = math.prod(shape)
        _check_count(n)
        lo = np.arange(n, dtype=np.uint32).reshape(shape)
    else:
        lo = np.asarray(data, np.uint32)
    return threefry2x32_numpy(k1, k2, np.zeros((), np.uint32), lo)


def _check_count(n: int) -> None:
    if n >= 1 << 32:
        raise PrimitiveTypeError("typedax.random: more than 2**32 - 1 random values in one call")


def _bits_of(b1: NDArray, b2: NDArray, bit_width: int) -> NDArray:
    if bit_width == 64:
        return np.bitwise_or(np.left_shift(b1.astype(np.uint64), np.uint64(32)), b2.astype(np.uint64))
    x: NDArray = np.bitwise_xor(b1, b2)
    return x if bit_width == 32 else x.astype(_UINT[bit_width])


def _seed_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [keys_of_words(_seed_words(args[0]))]


def _wrap_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [keys_of_words(args[0])]


def _unwrap_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.array(key_words(args[0]))]


def _bits_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    shape = get_ints("random_bits", params, "shape")
    b1, b2 = _cipher(key_words(args[0]), shape)
    return [_bits_of(b1, b2, get_int("random_bits", params, "bit_width"))]


def _split_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    b1, b2 = _cipher(key_words(args[0]), get_ints("random_split", params, "shape"))
    return [keys_of_words(np.stack([b1, b2], axis=-1))]


def _fold_in_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    b1, b2 = _cipher(key_words(args[0]), (), args[1])
    return [keys_of_words(np.stack([b1, b2], axis=-1))]


# -- abstract evaluation ---------------------------------------------------------------------
def _seed_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("random_seed", avals, 1)
    _impl_param("random_seed", params)
    (s,) = avals
    if s.dtype not in INTEGER:
        raise PrimitiveTypeError(f"random_seed takes integer seeds, got {s.str_short()}")
    return [ShapedArray(s.shape, KEY)]


def _wrap_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("random_wrap", avals, 1)
    _impl_param("random_wrap", params)
    (w,) = avals
    if w.dtype != uint32 or not w.shape or w.shape[-1] != 2:
        raise PrimitiveTypeError(
            f"random_wrap takes key words, a uint32 array whose last dimension is 2, got {w.str_short()}"
        )
    return [ShapedArray(w.shape[:-1], KEY)]


def _unwrap_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("random_unwrap", avals, 1)
    _key_operand("random_unwrap", avals[0])
    return [physical_aval(avals[0])]


def _static_shape(name: str, params: Params) -> tuple[int, ...]:
    shape = get_ints(name, params, "shape")
    if any(d < 0 for d in shape):
        raise PrimitiveTypeError(f"{name}: param 'shape' must have non-negative sizes, got {shape}")
    _check_count(math.prod(shape))
    return shape


def _bits_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("random_bits", avals, 1)
    _key_operand("random_bits", avals[0])
    width = get_int("random_bits", params, "bit_width")
    if width not in _UINT:
        raise PrimitiveTypeError(f"random_bits: param 'bit_width' must be 8, 16, 32 or 64, got {width}")
    return [ShapedArray(avals[0].shape + _static_shape("random_bits", params), _UINT[width])]


def _split_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("random_split", avals, 1)
    _key_operand("random_split", avals[0])
    return [ShapedArray(avals[0].shape + _static_shape("random_split", params), KEY)]


def _fold_in_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("random_fold_in", avals, 2)
    k, d = avals
    _key_operand("random_fold_in", k)
    if d.dtype != uint32 or d.shape != k.shape:
        raise PrimitiveTypeError(
            f"random_fold_in takes keys and uint32 data of their shape, got ({types_str(avals)})"
        )
    return [k]


# -- batching --------------------------------------------------------------------------------
def _elementwise_batch(prim: Primitive) -> BatchRule:
    """``random_seed``/``random_unwrap``: the key (or seed) axes lead, so the
    batch axis stays where it is."""

    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        return [bind1(prim, vals, params)], [dims[0]]

    return rule


def _wrap_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    (w,), (d,) = vals, dims
    assert d is not None
    if d == aval_of(w).ndim - 1:  # batched along the words: the batch axis must lead
        w, d = move_batch_axis(size, d, 0, w), 0
    return [bind1(random_wrap_p, (w,), params)], [d]


def _leading_batch(prim: Primitive) -> BatchRule:
    """The key array's axes lead the result: batch at the front."""

    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        moved = [move_batch_axis(size, d, 0, v) for v, d in zip(vals, dims)]
        return [bind1(prim, moved, params)], [0]

    return rule


# -- lowering --------------------------------------------------------------------------------
def _words_of(k: HloValue, key_shape: tuple[int, ...]) -> tuple[HloValue, HloValue]:
    """The first and second words of keys (``ui32[*S, 2]``), each ``ui32[*S]``."""
    n = len(key_shape)
    ty = tensor_type(ShapedArray(key_shape, uint32))
    out = []
    for w in (0, 1):
        sl = hlo.slice(k, [0] * n + [w], list(key_shape) + [w + 1], [1] * (n + 1))
        out.append(hlo.reshape(ty, sl))
    return out[0], out[1]


def _bcast(v: HloValue, aval: ShapedArray, dims: Sequence[int]) -> HloValue:
    return hlo.broadcast_in_dim(tensor_type(aval), v, list(dims))


def _cipher_hlo(
    k: HloValue, key_shape: tuple[int, ...], shape: tuple[int, ...], data: HloValue | None = None
) -> tuple[ShapedArray, list[HloValue]]:
    """``_cipher`` in StableHLO: the type of the words and the two words."""
    n = len(key_shape)
    out = ShapedArray(key_shape + shape, uint32)
    k1, k2 = (_bcast(w, out, range(n)) for w in _words_of(k, key_shape))
    if data is None:
        flat = hlo.iota(tensor_type(ShapedArray((math.prod(shape),), uint32)), 0)
        lo = _bcast(hlo.reshape(tensor_type(ShapedArray(shape, uint32)), flat), out,
                    range(n, n + len(shape)))
    else:
        lo = data
    return out, threefry_hlo(out, k1, k2, full(0, out), lo)


def _stack_words(aval: ShapedArray, b1: HloValue, b2: HloValue) -> HloValue:
    one = tensor_type(ShapedArray(aval.shape + (1,), uint32))
    return hlo.concatenate([hlo.reshape(one, b1), hlo.reshape(one, b2)], aval.ndim)


def _seed_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    s = eqn.inputs[0].aval
    u = ShapedArray(s.shape, uint32)
    hi: HloValue = full(0, u)
    if s.dtype.itemsize == 8:
        hi = hlo.convert(tensor_type(u), hlo.shift_right_logical(args[0], full(32, s)))
    lo = hlo.convert(tensor_type(u), args[0])
    return [_stack_words(u, hi, lo)]


def _identity_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    return [args[0]]  # the same words, read as keys (or keys read as words)


def _bits_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    kshape = eqn.inputs[0].aval.shape
    aval, (b1, b2) = _cipher_hlo(args[0], kshape, get_ints("random_bits", eqn.params, "shape"))
    width = get_int("random_bits", eqn.params, "bit_width")
    if width == 64:
        wide = ShapedArray(aval.shape, uint64)
        hi = hlo.shift_left(hlo.convert(tensor_type(wide), b1), full(32, wide))
        return [hlo.or_(hi, hlo.convert(tensor_type(wide), b2))]
    x = hlo.xor(b1, b2)
    if width == 32:
        return [x]
    return [hlo.convert(tensor_type(ShapedArray(aval.shape, _UINT[width])), x)]


def _split_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    kshape = eqn.inputs[0].aval.shape
    aval, (b1, b2) = _cipher_hlo(args[0], kshape, get_ints("random_split", eqn.params, "shape"))
    return [_stack_words(aval, b1, b2)]


def _fold_in_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    kshape = eqn.inputs[0].aval.shape
    aval, (b1, b2) = _cipher_hlo(args[0], kshape, (), args[1])
    return [_stack_words(aval, b1, b2)]


def _rules(
    batch: Callable[[Primitive], BatchRule],
    lower: Callable[[LoweringContext, Eqn, Sequence[HloValue]], list[HloValue]],
) -> Callable[[Primitive], Rules]:
    def rules(prim: Primitive) -> Rules:
        return Rules(jvp=zero_jvp(prim), batch=batch(prim), lower=lower)

    return rules


random_seed_p = Primitive("random_seed", _seed_impl, _seed_abstract,
                          rules_for=_rules(_elementwise_batch, _seed_lower))
random_wrap_p = Primitive("random_wrap", _wrap_impl, _wrap_abstract,
                          rules_for=_rules(lambda _: _wrap_batch, _identity_lower))
random_unwrap_p = Primitive("random_unwrap", _unwrap_impl, _unwrap_abstract,
                            rules_for=_rules(_elementwise_batch, _identity_lower))
random_bits_p = Primitive("random_bits", _bits_impl, _bits_abstract,
                          rules_for=_rules(_leading_batch, _bits_lower))
random_split_p = Primitive("random_split", _split_impl, _split_abstract,
                           rules_for=_rules(_leading_batch, _split_lower))
random_fold_in_p = Primitive("random_fold_in", _fold_in_impl, _fold_in_abstract,
                             rules_for=_rules(_leading_batch, _fold_in_lower))

FAMILY = Family("typed keys", (
    random_seed_p, random_wrap_p, random_unwrap_p, random_bits_p, random_split_p, random_fold_in_p,
))


# -- the lax-level functions (typedax.random builds on them) --------------------------------
def random_seed(seeds: ArrayLike) -> Array:
    """Typed keys from integer seeds (``random_seed[impl=fry]``)."""
    return bind1(random_seed_p, (seeds,), _IMPL_PARAMS)


def random_wrap(words: ArrayLike) -> Array:
    """Typed keys holding ``words`` (``uint32[..., 2]``)."""
    return bind1(random_wrap_p, (words,), _IMPL_PARAMS)


def random_unwrap(keys: ArrayLike) -> Array:
    """The ``uint32[..., 2]`` words of typed keys."""
    return bind1(random_unwrap_p, (keys,), NO_PARAMS)


def random_bits(keys: ArrayLike, bit_width: int, shape: tuple[int, ...]) -> Array:
    """Each key's ``bit_width``-bit random bits of ``shape``, after the key axes."""
    return bind1(random_bits_p, (keys,), params_of(("bit_width", bit_width), ("shape", shape)))


def random_split(keys: ArrayLike, shape: tuple[int, ...]) -> Array:
    """Each key's new keys of ``shape``, after the key axes."""
    return bind1(random_split_p, (keys,), params_of(("shape", shape)))


def random_fold_in(keys: ArrayLike, data: ArrayLike) -> Array:
    """Each key with its ``uint32`` datum folded in."""
    return bind1(random_fold_in_p, (keys, data), NO_PARAMS)


def _broadcast_keys(k: ArrayLike, have: tuple[int, ...], shape: tuple[int, ...]) -> ArrayLike:
    """Keys of shape ``have`` broadcast to ``shape`` (NumPy's rule: new axes lead)."""
    if have == shape:
        return k
    return broadcast_to(k, shape, tuple(range(len(shape) - len(have))))


def keys_equal(x: ArrayLike, y: ArrayLike, equal: bool) -> Array:
    """``x == y`` (or ``!=``) of two key arrays, key by key (a key equals
    another when both its words do), as JAX's key arrays compare."""
    ax, ay = aval_of(x), aval_of(y)
    if ax.dtype not in EXTENDED or ay.dtype not in EXTENDED:
        raise PrimitiveTypeError(
            f"{'==' if equal else '!='} compares typed PRNG keys only with keys, got ({types_str([ax, ay])})"
        )
    try:
        shape = np.broadcast_shapes(ax.shape, ay.shape)
    except ValueError:
        raise PrimitiveTypeError(
            f"{'==' if equal else '!='}: key arrays of shapes {ax.shape} and {ay.shape} do not broadcast"
        ) from None
    wx, wy = (random_unwrap(_broadcast_keys(k, a.shape, shape)) for k, a in ((x, ax), (y, ay)))
    last = (len(shape),)
    if equal:
        return reduce_and(bind1(eq_p, (wx, wy), NO_PARAMS), last)
    return reduce_or(bind1(ne_p, (wx, wy), NO_PARAMS), last)


# -- structural primitives on key arrays: lowered on the words ------------------------------
def _physical_eqn(eqn: Eqn, params: Params, extra: Sequence[Atom] = ()) -> Eqn:
    """``eqn`` on the words of its key operands and results, with ``params``
    and ``extra`` operands after its own."""

    def phys(a: Atom) -> Atom:
        return a if isinstance(a, Lit) else new_var(physical_aval(a.aval))

    return Eqn(
        eqn.primitive,
        tuple(phys(a) for a in eqn.inputs) + tuple(extra),
        params,
        tuple(new_var(physical_aval(v.aval)) for v in eqn.out_binders),
    )


def _with(params: Params, **changes: Param) -> Params:
    return params_of(*((k, changes.get(k, v)) for k, v in params.items()))


def _own_lowering(eqn: Eqn) -> Callable[[LoweringContext, Eqn, Sequence[HloValue]], Sequence[HloValue]]:
    rule = eqn.primitive.rules.lower
    assert rule is not None, eqn.primitive.name  # every primitive in KEY_LOWERINGS has one
    return rule


def _on_words(
    params_for: Callable[[Eqn], Params],
) -> Callable[[LoweringContext, Eqn, Sequence[HloValue]], Sequence[HloValue]]:
    """A lowering on the words: the primitive's own rule with ``params_for(eqn)``."""

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
        return _own_lowering(eqn)(ctx, _physical_eqn(eqn, params_for(eqn)), args)

    return lower


def _rank(eqn: Eqn, i: int = 0) -> int:
    return eqn.inputs[i].aval.ndim


def _out_rank(eqn: Eqn) -> int:
    return eqn.out_binders[0].aval.ndim


def _slice_params(eqn: Eqn) -> Params:
    p = eqn.params
    strides = p.get("strides")
    return _with(
        p,
        start_indices=get_ints("slice", p, "start_indices") + (0,),
        limit_indices=get_ints("slice", p, "limit_indices") + (2,),
        strides=None if strides is None else get_ints("slice", p, "strides") + (1,),
    )


def _with_zero_index(
    sizes_key: str | None,
) -> Callable[[LoweringContext, Eqn, Sequence[HloValue]], Sequence[HloValue]]:
    """``dynamic_slice`` / ``dynamic_update_slice``: one more start index, 0,
    for the word axis (and the slice takes both words)."""

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
        indices = [a for a in eqn.inputs[1:] if a.aval.ndim == 0 and a.aval.dtype in INTEGER]
        idx_dtype = indices[0].aval.dtype if indices else int32
        zero = Lit.of(0, idx_dtype)
        params = eqn.params
        if sizes_key is not None:
            params = _with(params, **{sizes_key: get_ints(eqn.primitive.name, params, sizes_key) + (2,)})
        peqn = _physical_eqn(eqn, params, (zero,))
        return _own_lowering(eqn)(ctx, peqn, [*args, full(0, zero.aval)])

    return lower


def _select_n_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    pred = eqn.inputs[0].aval
    peqn = _physical_eqn(eqn, eqn.params)
    if pred.ndim:  # a predicate per key: the same for both words
        wide = ShapedArray(pred.shape + (2,), pred.dtype)
        args = [_bcast(args[0], wide, range(pred.ndim)), *args[1:]]
        peqn = Eqn(peqn.primitive, (new_var(wide), *peqn.inputs[1:]), peqn.params, peqn.out_binders)
    return _own_lowering(eqn)(ctx, peqn, args)


KEY_LOWERINGS.update({
    "broadcast": _on_words(lambda e: _with(
        e.params, shape=get_ints("broadcast", e.params, "shape") + (2,))),
    "reshape": _on_words(lambda e: _with(
        e.params, new_sizes=get_ints("reshape", e.params, "new_sizes") + (2,))),
    "transpose": _on_words(lambda e: _with(
        e.params, perm=get_ints("transpose", e.params, "perm") + (_rank(e),))),
    "squeeze": _on_words(lambda e: e.params),
    "rev": _on_words(lambda e: e.params),
    "concatenate": _on_words(lambda e: e.params),
    "slice": _on_words(_slice_params),
    "gather": _on_words(lambda e: _with(
        e.params,
        offset_dims=get_ints("gather", e.params, "offset_dims") + (_out_rank(e),),
        slice_sizes=get_ints("gather", e.params, "slice_sizes") + (2,),
    )),
    "scatter": _on_words(lambda e: _with(
        e.params,
        update_window_dims=get_ints("scatter", e.params, "update_window_dims") + (_rank(e, 2),),
    )),
    "dynamic_slice": _with_zero_index("slice_sizes"),
    "dynamic_update_slice": _with_zero_index(None),
    "select_n": _select_n_lower,
})

install_keys_equal(keys_equal)  # == and != of typed keys (core/array.py): the core does not import upward
install_wrap_keys(random_wrap)  # zeros of typed keys (structural.zeros_like_aval)
