"""The fast paths of ``typedax.numpy`` and ``typedax.nn`` (issue 12) give
what the general paths give, bit for bit and weak flag for flag:

- ``memo_abstract`` (``core/trace.py``): a remembered abstract evaluation is
  the plain function's, weak flags included, and a rejected operand raises
  the same error every time;
- ``_prepare2``'s broadcast of two strong arrays of one dtype stages the
  same equations as ``_prepare`` and computes the same values;
- the eager host paths of ``mean``, ``nn.softmax``, arithmetic with a
  Python scalar (``x * 2.0``), the unary functions (``tanh``, ``exp``, ...)
  and ``matmul`` (``EAGER_FAST``) equal
  the primitive-by-primitive evaluation over float32/float64, float16,
  bfloat16, integer and bool inputs (those without a host path fall back).
"""

from __future__ import annotations

import inspect

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.config import EAGER_FAST
from typedax._numpy import lax_numpy
from typedax import lax, nn
from typedax.core.array import Array
from typedax.core.avals import ShapedArray
from typedax.core.errors import PrimitiveTypeError
from typedax.core.ir import NO_PARAMS
from typedax.primitives import broadcast_p, reduce_sum_p, reshape_p, transpose_p
from typedax.primitives._params import params_of

DTYPES = [np.dtype(d) for d in (
    np.bool_, np.int8, np.int32, np.int64, np.uint8, np.uint64,
    np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
)]
FLOATS = [d for d in DTYPES if d.kind == "f" or d == np.dtype(ml_dtypes.bfloat16)]


def _slow(f: Callable[[], Array]) -> Array:
    EAGER_FAST[0] = False
    try:
        return f()
    finally:
        EAGER_FAST[0] = True


def _same(a: Array, b: Array) -> None:
    assert type(a) is type(b)
    assert a.aval == b.aval and a.dtype == b.dtype and a.shape == b.shape
    assert a.aval.weak_type == b.aval.weak_type
    x, y = np.asarray(a), np.asarray(b)
    assert x.tobytes() == y.tobytes(), (x, y)


shapes = st.one_of(
    st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple),
    st.tuples(st.integers(1, 3), st.integers(20, 64)),  # long enough for 16-bit roundings to show
)


def _values(dtype: np.dtype[Any], shape: tuple[int, ...], seed: int, special: bool) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape) * rng.choice([1e-3, 1.0, 30.0, 1e4])
    if special and x.size:
        flat = x.reshape(-1)
        flat[rng.integers(0, x.size, size=2)] = rng.choice([np.inf, -np.inf, np.nan, 0.0, -0.0], size=2)
    out: np.ndarray[Any, Any]
    if dtype == np.bool_:
        out = x > 0
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        out = np.clip(np.nan_to_num(x * 40), info.min, info.max).astype(dtype)
    else:
        with np.errstate(over="ignore"):
            out = x.astype(dtype)
    return out


def _axis(shape: tuple[int, ...], data: st.DataObject) -> Any:
    nd = len(shape)
    if nd == 0:
        return data.draw(st.sampled_from([None, ()]))
    return data.draw(st.one_of(
        st.none(), st.integers(-nd, nd - 1),
        st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple),
    ))


@given(st.sampled_from(DTYPES), shapes, st.integers(0, 2**32 - 1), st.booleans(), st.booleans(), st.data())
def test_eager_mean_matches_primitives(
    dtype: np.dtype[Any], shape: tuple[int, ...], seed: int, special: bool, keepdims: bool, data: st.DataObject
) -> None:
    v = _values(dtype, shape, seed, special)
    axis = _axis(shape, data)
    for x in (tnp.asarray(v), v):
        slow = _slow(lambda: tnp.mean(x, axis=axis, keepdims=keepdims))
        _same(tnp.mean(x, axis=axis, keepdims=keepdims), slow)


@given(st.sampled_from(DTYPES), shapes, st.integers(0, 2**32 - 1), st.booleans(), st.data())
def test_eager_softmax_matches_primitives(
    dtype: np.dtype[Any], shape: tuple[int, ...], seed: int, special: bool, data: st.DataObject
) -> None:
    v = _values(dtype, shape, seed, special)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    for x in (tnp.asarray(v), v, tnp.asarray(np.asfortranarray(v))):
        try:
            slow = _slow(lambda: nn.softmax(x, axis=axis))
        except (PrimitiveTypeError, ValueError) as e:
            with pytest.raises(type(e), match=None):
                nn.softmax(x, axis=axis)
            continue
        with np.errstate(all="ignore"):
            _same(nn.softmax(x, axis=axis), slow)


UNARY = ["sin", "cos", "exp", "log", "tanh", "sqrt"]


@given(st.sampled_from(DTYPES), shapes, st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from(UNARY))
def test_eager_unary_functions_match_primitives(
    dtype: np.dtype[Any], shape: tuple[int, ...], seed: int, special: bool, name: str
) -> None:
    v = _values(dtype, shape, seed, special)
    f = getattr(tnp, name)
    with np.errstate(all="ignore"):
        for x in (tnp.asarray(v), v, tnp.full(shape, 0.5)):  # the last one weak: the general path
            _same(f(x), _slow(lambda: f(x)))


@given(st.sampled_from(DTYPES), st.integers(0, 4), st.integers(0, 4), st.integers(0, 4),
       st.sampled_from(["matrix", "vector", "batched"]), st.integers(0, 2**32 - 1))
def test_eager_matmul_matches_primitives(
    dtype: np.dtype[Any], n: int, k: int, m: int, kind: str, seed: int
) -> None:
    xshape = {"matrix": (n, k), "vector": (k,), "batched": (2, n, k)}[kind]
    a, b = _values(dtype, xshape, seed, False), _values(dtype, (k, m), seed + 1, False)
    bad = _values(dtype, (k + 1, m), seed, False)  # mismatched sizes: the general path's error
    pairs: list[tuple[tdx.ArrayLike, tdx.ArrayLike]] = [(tnp.asarray(a), tnp.asarray(b)), (a, tnp.asarray(b)), (tnp.asarray(a), tnp.asarray(_values(dtype, (k,), seed + 2, False))),
             (tnp.asarray(a), tnp.asarray(bad))]
    for x, y in pairs:
        with np.errstate(all="ignore"):
            try:
                slow = _slow(lambda: tnp.matmul(x, y))
            except PrimitiveTypeError as e:  # bool operands, mismatched sizes
                with pytest.raises(PrimitiveTypeError, match=None) as got:
                    tnp.matmul(x, y)
                assert str(got.value) == str(e)
                continue
            _same(tnp.matmul(x, y), slow)


def test_eager_paths_keep_errors_and_weak_inputs() -> None:
    x = tnp.asarray(np.ones((2, 3), np.float32))
    cases: list[Callable[[], Array]] = [
        lambda: tnp.mean(x, axis=2), lambda: nn.softmax(x, axis=5),
    ]
    for f in cases:
        with pytest.raises(Exception) as fast:
            f()
        with pytest.raises(Exception) as slow:
            _slow(f)
        assert type(fast.value) is type(slow.value) and str(fast.value) == str(slow.value)
    weak = tnp.full((3,), 2.0)  # weakly typed: the primitives' path
    assert weak.aval.weak_type
    _same(tnp.mean(weak), _slow(lambda: tnp.mean(weak)))
    _same(nn.softmax(weak), _slow(lambda: nn.softmax(weak)))
    empty = tnp.zeros((2, 0))  # an empty axis: an empty result both ways (as JAX's)
    _same(nn.softmax(empty), _slow(lambda: nn.softmax(empty)))


def _broadcastable(data: st.DataObject) -> tuple[tuple[int, ...], tuple[int, ...]]:
    out = data.draw(st.lists(st.integers(1, 3), max_size=3).map(tuple))
    def operand() -> tuple[int, ...]:
        lead = data.draw(st.integers(0, len(out)))
        return tuple(1 if data.draw(st.booleans()) else d for d in out[lead:])
    return operand(), operand()


@given(st.sampled_from(DTYPES), st.sampled_from(DTYPES), st.sampled_from(["add", "subtract", "multiply", "divide", "maximum", "greater"]), st.data())
def test_prepare2_broadcast_matches_prepare(
    d1: np.dtype[Any], d2: np.dtype[Any], op: str, data: st.DataObject
) -> None:
    s1, s2 = _broadcastable(data)
    if data.draw(st.booleans()):
        s2 = data.draw(st.lists(st.integers(1, 3), max_size=3).map(tuple))  # perhaps not broadcastable
    v1, v2 = _values(d1, s1, 1, False), _values(d2, s2, 2, False)
    fn = getattr(tnp, op)

    def fast(a: Any, b: Any) -> Any:
        return fn(a, b)

    def slow(a: Any, b: Any) -> Any:  # operands of one type: _prepare2 returns them as they are
        return fn(*lax_numpy._prepare(a, b, keep_scalars=True))  # a rank-0 operand stays rank-0 for these ops

    try:
        want = str(tdx.make_jaxpr(slow)(v1, v2))
    except PrimitiveTypeError as e:
        with pytest.raises(PrimitiveTypeError, match=None) as got:
            tdx.make_jaxpr(fast)(v1, v2)
        assert str(got.value) == str(e)
        return
    assert str(tdx.make_jaxpr(fast)(v1, v2)) == want
    a, b = tnp.asarray(v1), tnp.asarray(v2)
    with np.errstate(all="ignore"):
        _same(fast(a, b), slow(a, b))


@given(shapes, st.sampled_from(DTYPES), st.booleans())
def test_memo_abstract_is_the_plain_function(shape: tuple[int, ...], dtype: np.dtype[Any], weak: bool) -> None:
    x = ShapedArray(shape, dtype).weakened(weak)
    n = len(shape)
    cases = [
        (broadcast_p, params_of(("shape", (2,) + shape), ("axes", (0,)))),
        (reshape_p, params_of(("new_sizes", (int(np.prod(shape)),)))),
        (reshape_p, params_of(("new_sizes", (int(np.prod(shape)) + 1,)))),  # rejected
        (transpose_p, params_of(("perm", tuple(reversed(range(n)))))),
        (transpose_p, params_of(("perm", (0,) * (n + 1)))),  # rejected
        (reduce_sum_p, params_of(("axis", tuple(range(n))))),
        (reduce_sum_p, NO_PARAMS),  # rejected: no axis
    ]
    for prim, params in cases:
        plain = inspect.unwrap(prim.abstract_eval)  # under memo_abstract (and core/ir.py's key check)
        try:
            want = plain([x], params)
        except PrimitiveTypeError as e:
            for _ in range(2):
                with pytest.raises(PrimitiveTypeError) as got:
                    prim.abstract_eval([x], params)
                assert str(got.value) == str(e)
            continue
        for _ in range(2):
            out = prim.abstract_eval([x], params)
            assert out == want and [a.weak_type for a in out] == [a.weak_type for a in want]


scalars = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**70), 2**70),
    st.sampled_from([0.0, -0.0, 1e-45, 3.4e38, 1e300, 7, -3]),
)


@given(st.sampled_from(DTYPES), shapes, st.integers(0, 2**32 - 1), st.booleans(), scalars,
       st.sampled_from(["add", "subtract", "multiply", "divide"]), st.booleans())
def test_eager_scalar_arithmetic_matches_primitives(
    dtype: np.dtype[Any], shape: tuple[int, ...], seed: int, special: bool, s: float | int, op: str,
    scalar_left: bool,
) -> None:
    x = tnp.asarray(_values(dtype, shape, seed, special))
    fn: Callable[[Any, Any], Array] = getattr(tnp, op)

    def run() -> Array:
        return fn(s, x) if scalar_left else fn(x, s)

    with np.errstate(all="ignore"):
        try:
            slow = _slow(run)
        except (PrimitiveTypeError, OverflowError, TypeError) as e:
            with pytest.raises(type(e)) as got:
                run()
            assert str(got.value) == str(e)
            return
        _same(run(), slow)


@given(st.sampled_from(DTYPES), shapes, st.integers(0, 2**32 - 1), st.booleans(),
       st.sampled_from(["add", "subtract", "multiply", "divide"]), st.booleans(), st.booleans())
def test_eager_pair_arithmetic_matches_primitives(
    dtype: np.dtype[Any], shape: tuple[int, ...], seed: int, special: bool, op: str,
    on_device: bool, weak_y: bool,
) -> None:
    """Two arrays of one type (``x + y``) compute on their host values; a
    device-only operand or a weak one takes the general path."""
    x = tnp.asarray(_values(dtype, shape, seed, special))
    y = tnp.asarray(_values(dtype, shape, seed + 1, special))
    if on_device:
        y = tdx.device_put(y)
    if weak_y and not shape and dtype.kind == "f":
        y = tnp.asarray(tdx.jit(lambda: 1.5)())  # a weak float of the same shape
    fn: Callable[[Any, Any], Array] = getattr(tnp, op)
    with np.errstate(all="ignore"):
        try:
            slow = _slow(lambda: fn(x, y))
        except PrimitiveTypeError as e:
            with pytest.raises(PrimitiveTypeError) as got:
                fn(x, y)
            assert str(got.value) == str(e)
            return
        _same(fn(x, y), slow)
