"""``jit``'s fast path (``Jitted.__call__`` without ``_call``) gives what the
general path gives -- values bit for bit, dtypes, shapes, weak flags and
errors -- for every mix of argument kinds and each of its plans:

- device arrays only: their buffers go straight to the executable (an eager
  array is moved to the device first; a deleted one raises);
- host values copied one by one (``host_putter``), Python scalars through
  ``scalar_putter``, which remembers the buffer of each nonzero, non-NaN
  value (so ``-0.0`` after ``0.0``, NaNs, and values met again must still
  come out exactly);
- after ``PACK_AFTER`` calls, NumPy arrays sharing a dtype packed into one
  transfer and sliced back out by a second program (``_packed_entry``);

with x64 on and off, with static and donated arguments, in pytrees, and from
many threads at once. The general path is ``Jitted._call`` itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from test_jit_dispatch import count_slow_calls
from typedax.core.array import Array, ArrayImpl
from typedax.core.errors import DeletedArrayError
from typedax.jitting import Jitted
from typedax.jitting.api import PACK_AFTER

from _examples import ci_examples

DTYPES = [np.dtype(d) for d in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64,
    np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
)]
KINDS = ("numpy", "device", "eager", "scalar", "npscalar")
CALLS = PACK_AFTER + 3  # one general call, then the fast path's plans in turn




def same(got: object, want: object) -> None:
    """Equal pytrees of arrays: type, shape, dtype, weak flag and bytes."""
    g_leaves, g_tree = tdx.tree.flatten(got)
    w_leaves, w_tree = tdx.tree.flatten(want)
    assert g_tree == w_tree, (g_tree, w_tree)
    for g, w in zip(g_leaves, w_leaves):
        assert type(g) is ArrayImpl and type(w) is ArrayImpl, (type(g), type(w))
        assert g.aval == w.aval and g.aval.weak_type == w.aval.weak_type, (g.aval, w.aval)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes(), (g, w)


def values(dtype: np.dtype[Any], shape: tuple[int, ...], seed: int) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape) * 50
    if dtype == np.bool_:
        return np.asarray(x > 0)  # (a 0-d comparison gives a NumPy scalar)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(x, info.min, info.max).astype(dtype)
    out = x.astype(dtype)
    if out.size:
        flat = out.reshape(-1)
        flat[rng.integers(0, out.size)] = rng.choice([np.inf, -np.nan, -0.0, 0.0])
    return out


def as_kind(kind: str, v: np.ndarray[Any, Any]) -> object:
    if kind == "numpy":
        return np.array(v)
    if kind == "device":
        return tdx.device_put(v)
    if kind == "eager":
        return tnp.asarray(v)
    if kind == "npscalar":
        return np.asarray(v)[()]  # a NumPy scalar of v's dtype
    return v.item()  # scalar: only drawn for 0-d bool/int64/float64 values


def echo_and_sum(*xs: Any) -> Any:
    """Each argument back (the data movement itself) and a computed value."""
    total = tnp.sum(tnp.asarray(xs[0]).astype(np.float32))
    for x in xs[1:]:
        total = total + tnp.sum(tnp.asarray(x).astype(np.float32))
    return list(xs), total


@st.composite
def calls(draw: st.DrawFn) -> list[tuple[str, np.dtype[Any], tuple[int, ...]]]:
    """Argument specs: kind, dtype, shape (a Python scalar is 0-d of its dtype)."""
    n = draw(st.integers(1, 5))
    specs = []
    for _ in range(n):
        kind = draw(st.sampled_from(KINDS))
        if kind == "scalar":
            dtype = draw(st.sampled_from([np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.float64)]))
            shape: tuple[int, ...] = ()
        elif kind == "npscalar":  # np.float32(2.0) and the like: any dtype, 0-d
            dtype, shape = draw(st.sampled_from(DTYPES)), ()
        else:
            dtype = draw(st.sampled_from(DTYPES))
            shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        specs.append((kind, dtype, shape))
    # a shared dtype now and then, so that NumPy arrays get packed together
    if draw(st.booleans()):
        d = specs[0][1]
        specs = [(k, d if k != "scalar" else dt, s if k != "npscalar" else ()) for k, dt, s in specs]
    return specs


def run_both(
    jf: Jitted[Any, Any], make_args: Callable[[int], Sequence[object]], n_calls: int = CALLS
) -> None:
    """Call ``jf`` ``n_calls`` times with fresh arguments of one signature:
    each result equals the general path's on the same arguments, and only
    the first call takes the general path."""
    slow = count_slow_calls(jf)
    for i in range(n_calls):
        args = make_args(i)
        got = jf(*args)
        want = Jitted._call(jf, tuple(make_args(i)), {})
        same(got, want)
    assert len(slow) == 1, f"{len(slow)} of {n_calls} calls took the general path"


@ci_examples(30, otherwise=60)
@given(calls(), st.integers(0, 2**16), st.booleans())
def test_fast_path_equals_general_path(
    specs: list[tuple[str, np.dtype[Any], tuple[int, ...]]], seed: int, x64: bool
) -> None:
    jf = tdx.jit(echo_and_sum)

    def make_args(i: int) -> list[object]:
        return [as_kind(k, values(d, s, seed + 7 * i + j)) for j, (k, d, s) in enumerate(specs)]

    with tdx.config.context(enable_x64=x64):
        run_both(jf, make_args)


SCALARS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([0.0, -0.0, float("nan"), -float("nan"), 5e-324, 1e300, 1.0]),
)


@settings(max_examples=40)
@given(st.lists(st.tuples(SCALARS, SCALARS, st.integers(-2**63, 2**63 - 1), st.booleans()),
                min_size=2, max_size=8),
       st.booleans())
def test_python_scalars_remembered_or_not_come_out_exactly(
    seq: list[tuple[float, float, int, bool]], x64: bool
) -> None:
    """The scalar buffers are shared by value: whatever came before, each
    call's result is the general path's (0.0 / -0.0 and NaNs included)."""
    def f(a: Any, b: Any, n: Any, flag: Any) -> Any:
        return a, b, n, flag, a * b

    jf = tdx.jit(f)
    with tdx.config.context(enable_x64=x64):
        for a, b, n, flag in seq:
            if not x64:
                n = int(np.int32(n % 2**31))  # in int32's range (out of range raises: tested below)
            got = jf(a, b, n, flag)
            want = Jitted._call(jf, (a, b, n, flag), {})
            same(got, want)
            assert got[0].aval.weak_type and got[2].aval.weak_type and not got[3].aval.weak_type


def test_negative_zero_after_zero_and_nan_payloads() -> None:
    jf = tdx.jit(lambda a, b: (a, b, 1.0 / a))
    for _ in range(3):
        for a in (0.0, -0.0, 2.5, -0.0, 0.0):
            got = jf(a, 1.0)
            assert np.signbit(np.asarray(got[0])) == np.signbit(a)
            assert np.asarray(got[2]) == 1.0 / a if a else np.isinf(np.asarray(got[2]))
            assert np.signbit(np.asarray(got[2])) == np.signbit(a)
    nan = float("nan")
    got = jf(nan, nan)
    assert np.isnan(np.asarray(got[0])) and np.isnan(np.asarray(got[1]))


@pytest.mark.parametrize("x64", [True, False])
def test_out_of_range_int_raises_overflow_on_both_paths(x64: bool) -> None:
    """An int outside the program's integer type raises OverflowError, as in
    JAX -- on the general path too, which with x64 off used to wrap 2**40 to
    0 silently (it went through int64 first)."""
    big = 2**70 if x64 else 2**40
    with tdx.config.context(enable_x64=x64):
        jf = tdx.jit(lambda a, b: a + b)
        with pytest.raises(OverflowError):
            jf(big, 1)  # general path
        assert int(np.asarray(jf(1, 2))) == 3
        for _ in range(PACK_AFTER + 1):
            with pytest.raises(OverflowError):
                jf(big, 1)  # fast path
            assert int(np.asarray(jf(-1, 2))) == 1


def test_packing_needs_two_arrays_of_one_dtype_and_counts_calls() -> None:
    """The packed plan starts at call ``PACK_AFTER`` of a pattern, and gives
    the one-by-one plan's results."""
    jf = tdx.jit(lambda x, y, z: x * y + z)
    slow = count_slow_calls(jf)
    rng = np.random.default_rng(0)
    for _ in range(2 * PACK_AFTER):
        x, y, z = rng.normal(size=(3, 4))
        want = Jitted._call(jf, (x, y, z), {})  # XLA fuses a multiply-add: not NumPy's rounding
        np.testing.assert_allclose(np.asarray(want), x * y + z, rtol=1e-14)
        same(jf(x, y, z), want)
        dz = tdx.device_put(z)
        same(jf(x, y, dz), want)
        same(jf(x, tdx.device_put(y), dz), want)
    assert not slow  # the first _call above installed the fast path


def test_mutating_a_numpy_argument_after_a_packed_call() -> None:
    """The arguments are copied during the call: changing them afterwards
    changes no result, and the next call sees the new values."""
    jf = tdx.jit(lambda x, y: x - y)
    x, y = np.arange(4.0), np.ones(4)
    for i in range(2 * PACK_AFTER):
        x[0] = i
        want = x - y
        out = jf(x, y)
        x[:] = -7.0
        y[:] = 5.0
        np.testing.assert_array_equal(np.asarray(out), want)
        x[:], y[:] = np.arange(4.0), np.ones(4)


def _assert_deleted_raises(jf: Callable[..., Any], *args: object) -> None:
    with pytest.raises(DeletedArrayError):
        jf(*args)


@pytest.mark.parametrize("other", ["device", "numpy", "numpy pair"])
def test_deleted_array_raises_on_every_plan(other: str) -> None:
    jf = tdx.jit(lambda x, y, z: x + y + z)
    v = np.arange(3.0)

    def args(dead: Array) -> tuple[object, ...]:
        if other == "device":
            return dead, tdx.device_put(v), tdx.device_put(v)
        if other == "numpy":
            return dead, v, tdx.device_put(v)
        return dead, v, v.copy()

    for _ in range(PACK_AFTER + 2):
        live = tdx.device_put(v)
        np.testing.assert_array_equal(np.asarray(jf(*args(live))), 3 * v)
        dead = tdx.device_put(v)
        dead.delete()
        _assert_deleted_raises(jf, *args(dead))
        eager_dead = tnp.asarray(v)
        eager_dead.delete()
        _assert_deleted_raises(jf, *args(eager_dead))


def test_eager_arrays_not_yet_on_the_device() -> None:
    jf = tdx.jit(lambda x, y: x * y)
    for i in range(PACK_AFTER + 2):
        x, y = tnp.asarray(np.full(3, float(i))), tnp.asarray(np.full(3, 2.0))
        assert x._dev is None  # type: ignore[attr-defined]  # an eager array: host only
        np.testing.assert_array_equal(np.asarray(jf(x, y)), np.full(3, 2.0 * i))


@pytest.mark.parametrize("kind", ["device", "numpy", "scalar"])
def test_donation_on_the_fast_path(kind: str) -> None:
    """A donated device array is deleted by each fast call; a donated NumPy
    array or Python scalar is copied (nothing of the caller's is deleted,
    nothing shared is consumed: a later call with the same scalar works)."""
    jf = tdx.jit(lambda x, y: x * y + 1.0, donate_argnums=0)
    slow = count_slow_calls(jf)
    for i in range(PACK_AFTER + 3):
        x: object
        y: object
        if kind == "device":
            x, y = tdx.device_put(np.full(3, 2.0)), tdx.device_put(np.full(3, float(i)))
        elif kind == "numpy":
            x, y = np.full(3, 2.0), np.full(3, float(i))
        else:
            x, y = 2.0, 3.0
        want = 2.0 * (float(i) if kind != "scalar" else 3.0) + 1.0
        out = jf(x, y)
        np.testing.assert_array_equal(np.asarray(out), np.full(np.shape(out), want))
        if isinstance(x, Array):
            assert x.is_deleted()
            assert isinstance(y, Array) and not y.is_deleted()
        elif isinstance(x, np.ndarray):
            assert x[0] == 2.0
    assert len(slow) == 1


def test_static_arguments_between_packed_ones() -> None:
    def f(x: Any, n: int, y: Any, *, scale: float = 1.0) -> Any:
        return (x * n + y) * scale

    jf = tdx.jit(f, static_argnums=1)
    slow = count_slow_calls(jf)
    rng = np.random.default_rng(3)
    for _ in range(PACK_AFTER + 2):
        x, y = rng.normal(size=(2, 5))
        np.testing.assert_allclose(np.asarray(jf(x, 3, y)), x * 3 + y, rtol=1e-14)
        np.testing.assert_allclose(np.asarray(jf(x, 4, y)), x * 4 + y, rtol=1e-14)
    assert len(slow) == 2


def test_pytree_of_numpy_leaves_packed() -> None:
    def loss(params: dict[str, Any], batch: tuple[Any, Any]) -> Any:
        pred = batch[0] @ params["w"] + params["b"]
        return tnp.mean((pred - batch[1]) ** 2)

    jf = tdx.jit(loss)
    slow = count_slow_calls(jf)
    rng = np.random.default_rng(4)
    params = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    for _ in range(PACK_AFTER + 2):
        batch = (rng.normal(size=(4, 3)), rng.normal(size=(4, 2)))
        got = jf(params, batch)
        same(got, Jitted._call(jf, (params, batch), {}))
    assert len(slow) == 1


def test_closed_over_constants_with_packed_arguments() -> None:
    c = tdx.device_put(np.arange(4.0))
    w = np.linspace(0.0, 1.0, 4)

    jf = tdx.jit(lambda x, y: x * c + y * w)
    for i in range(PACK_AFTER + 2):
        x, y = np.full(4, float(i)), np.full(4, 2.0)
        np.testing.assert_allclose(np.asarray(jf(x, y)), x * np.arange(4.0) + y * w, rtol=1e-14)


def test_x64_off_narrows_packed_numpy_arrays_as_the_general_path() -> None:
    jf = tdx.jit(lambda x, y, n: (x + y, x * n))
    with tdx.config.context(enable_x64=False):
        for i in range(PACK_AFTER + 2):
            x, y = np.full(3, 1.0 / 3.0 + i), np.arange(3, dtype=np.int64) + 2**31 + i  # wraps, as JAX's astype
            got = jf(x, x, 3)
            want = Jitted._call(jf, (x, x, 3), {})
            same(got, want)
            assert got[0].dtype == np.float32 and got[1].dtype == np.float32
            got2 = jf(y, y, 2)
            same(got2, Jitted._call(jf, (y, y, 2), {}))
            assert got2[0].dtype == np.int32


def test_many_threads_share_the_plans() -> None:
    jf = tdx.jit(lambda x, y, s: x * y + s)
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(50):
                x, y = rng.normal(size=(2, 6))
                s = float(rng.integers(0, 4))
                kind = rng.integers(0, 3)
                xa: object = x if kind else tdx.device_put(x)
                ya: object = y if kind != 1 else tnp.asarray(y)
                np.testing.assert_allclose(np.asarray(jf(xa, ya, s)), x * y + s, rtol=1e-14, atol=1e-14)
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_remembered_zeros_of_each_type_and_sign() -> None:
    """Zeros are remembered under a key per sign and dtype: 0, False, 0.0
    and -0.0 each come back as themselves, whichever came first."""
    jf = tdx.jit(lambda i, b, f: (i, b, f))
    for _ in range(3):
        for i, b, f in ((0, False, 0.0), (0, False, -0.0), (1, True, -0.0), (0, True, 0.0)):
            got = jf(i, b, f)
            same(got, Jitted._call(jf, (i, b, f), {}))
            assert int(np.asarray(got[0])) == i and bool(np.asarray(got[1])) is b
            assert np.signbit(np.asarray(got[2])) == np.signbit(f)
