"""Issue 8: inputs that used to give silently wrong answers now give JAX's
answer or a clear library error (JAX is the reference for both)."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import (
    ArgnumsError,
    AxisError,
    ConcretizationError,
    PrimitiveTypeError,
    StaticArgumentError,
    TangentTypeError,
    TracerArrayConversionError,
)

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax.config.update has no annotations


def jax_raises(f: Callable[[], object]) -> bool:
    try:
        f()
    except Exception:
        return True
    return False


# -- 1. NumPy / math functions on tracers ----------------------------------------------
def _np_asarray(x: Any) -> Any:
    return np.asarray(x)


def _np_sin(x: Any) -> Any:
    return np.sin(x)


@pytest.mark.parametrize(
    "name, ours, theirs",
    [
        ("x * np.exp(x)", lambda: tdx.grad(lambda x: x * np.exp(x))(1.0),
         lambda: jax.grad(lambda x: x * np.exp(x))(1.0)),
        ("np.dot(x, x)", lambda: tdx.grad(lambda x: np.dot(x, x))(np.ones(3)),
         lambda: jax.grad(lambda x: np.dot(x, x))(np.ones(3))),
        ("jvp np.tanh", lambda: tdx.jvp(np.tanh, (0.5,), (1.0,)), lambda: jax.jvp(np.tanh, (0.5,), (1.0,))),
        ("jacrev np.sin", lambda: tdx.jacrev(_np_sin)(np.ones(2)), lambda: jax.jacrev(_np_sin)(np.ones(2))),
        ("vmap np.asarray", lambda: tdx.vmap(_np_asarray)(np.ones(3)), lambda: jax.vmap(_np_asarray)(jnp.ones(3))),
        ("jit np.sin", lambda: tdx.jit(_np_sin)(np.ones(3)), lambda: jax.jit(_np_sin)(np.ones(3))),
    ],
)
def test_numpy_functions_on_tracers_raise(name: str, ours: Callable[[], object], theirs: Callable[[], object]) -> None:
    assert jax_raises(theirs), name
    with pytest.raises(TracerArrayConversionError, match="Use typedax.numpy"):
        ours()


@pytest.mark.parametrize(
    "name, ours, theirs",
    [
        ("math.sin", lambda: tdx.grad(math.sin)(1.0), lambda: jax.grad(math.sin)(1.0)),
        ("float(x) * x", lambda: tdx.grad(lambda x: float(x) * x)(2.0), lambda: jax.grad(lambda x: float(x) * x)(2.0)),
        ("complex(x)", lambda: tdx.jvp(lambda x: complex(x).real * x, (2.0,), (1.0,)),
         lambda: jax.jvp(lambda x: complex(x).real * x, (2.0,), (1.0,))),
    ],
)
def test_float_of_a_differentiated_value_raises(name: str, ours: Callable[[], object], theirs: Callable[[], object]) -> None:
    assert jax_raises(theirs), name
    with pytest.raises(ConcretizationError, match="would drop its derivative"):
        ours()


def test_python_control_flow_on_concrete_values_keeps_working() -> None:
    def f(x: Any) -> Any:
        return x if x > 0 else -x  # bool() of a comparison

    assert float(np.asarray(tdx.grad(f)(1.0))) == float(jax.grad(lambda x: x if x > 0 else -x)(1.0)) == 1.0
    assert float(np.asarray(tdx.grad(f)(-2.0))) == -1.0
    # int() is piecewise constant: allowed, with a zero derivative through it (as JAX)
    assert float(np.asarray(tdx.grad(lambda x: int(x) * x)(2.0))) == float(jax.grad(lambda x: int(x) * x)(2.0))
    # under vmap, an unbatched value is concrete
    def f2(x: Any, y: Any) -> Any:
        return x if y > 0 else -x

    out = tdx.vmap(f2, in_axes=(0, None))(np.ones(3), 1.0)
    np.testing.assert_array_equal(np.asarray(out), np.ones(3))


# -- 3. jit's static arguments -------------------------------------------------------------
def test_static_arguments_are_keyed_by_type_and_value() -> None:
    def f(x: Any, n: Any) -> Any:
        return x * 0.5 if isinstance(n, float) else x * 2.0

    jh = tdx.jit(f, static_argnums=1)
    jj = jax.jit(f, static_argnums=1)
    for n in (1, 1.0, True, np.int32(1), 1):
        assert float(np.asarray(jh(1.0, n))) == float(jj(1.0, n)), repr(n)


def test_static_argnums_and_argnames_resolve_from_the_signature() -> None:
    def g(x: Any, n: Any) -> Any:
        return x * (2.0 if n > 1 else 1.0)  # Python control flow on n: it must be static

    by_name = tdx.jit(g, static_argnames="n")
    assert float(np.asarray(by_name(1.0, 2))) == float(jax.jit(g, static_argnames="n")(1.0, 2)) == 2.0
    by_num = tdx.jit(g, static_argnums=1)
    assert float(np.asarray(by_num(1.0, n=3))) == float(jax.jit(g, static_argnums=1)(1.0, n=3)) == 2.0
    assert by_num.static_argnames == ("n",) and by_name.static_argnums == (1,)
    assert tdx.jit(g, static_argnums=-1).static_argnums == (1,)


@pytest.mark.parametrize("kwargs", [{"static_argnums": 5}, {"static_argnums": -5}, {"static_argnames": "zz"}])
def test_static_arguments_the_function_lacks_are_refused(kwargs: dict[str, Any]) -> None:
    def f(x: Any, n: Any) -> Any:
        return x

    with pytest.raises(ValueError):
        jax.jit(f, **kwargs)
    with pytest.raises(StaticArgumentError, match="jit of"):
        tdx.jit(f, **kwargs)


def test_static_arguments_of_functions_with_varargs_are_kept() -> None:
    def f(*args: Any, **kwargs: Any) -> Any:
        return args[0] * (2.0 if kwargs["k"] > 1 else 1.0)

    assert float(np.asarray(tdx.jit(f, static_argnames="k")(1.0, k=2))) == 2.0


# -- 4. jit dispatch keys under threads -----------------------------------------------------
def test_aval_keys_stay_distinct_under_16_threads() -> None:
    from typedax.core.avals import ShapedArray
    from typedax.lowering.array import aval_key

    start = threading.Barrier(16)
    results: list[dict[ShapedArray, int]] = [{} for _ in range(16)]

    def work(t: int) -> None:
        start.wait()
        for i in range(3000):  # the same fresh shapes in every thread, racing
            a = ShapedArray((7919, i % 1500, 1 + i // 1500), np.dtype(np.float32))
            results[t][a] = aval_key(a)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for r in results[1:]:
        assert r == results[0]  # one key per aval, whoever made it
    keys = list(results[0].values())
    assert len(set(keys)) == len(keys) == 3000  # distinct avals, distinct keys


def test_jit_dispatch_never_mixes_array_types_across_threads() -> None:
    f = tdx.jit(lambda x: tnp.sum(x, axis=0))
    shapes = [(2, 3), (3, 2), (4, 1), (1, 4), (2, 2), (5, 3)]
    arrays = {s: tdx.device_put(np.arange(np.prod(s), dtype=np.float64).reshape(s)) for s in shapes}
    errors: list[str] = []

    def work(t: int) -> None:
        for i in range(200):
            s = shapes[(t + i) % len(shapes)]
            got = np.asarray(f(arrays[s]))
            want = np.arange(np.prod(s), dtype=np.float64).reshape(s).sum(axis=0)
            if got.shape != want.shape or not np.array_equal(got, want):
                errors.append(f"{s}: {got} != {want}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[:3]


# -- 10. a closed-over NumPy array mutated after tracing -----------------------------------
def test_closed_over_arrays_are_read_when_traced() -> None:
    m = np.ones(3)
    f = tdx.jit(lambda x: x + m)
    jm = np.ones(3)
    jf = jax.jit(lambda x: x + jm)
    z = np.zeros(3)
    for _ in range(2):
        f(tdx.device_put(z))
        f(z)
        jf(z)
    m[0] = 100.0
    jm[0] = 100.0
    want = np.asarray(jf(z))
    np.testing.assert_array_equal(want, np.ones(3))  # JAX: the trace-time value
    np.testing.assert_array_equal(np.asarray(f(tdx.device_put(z))), want)
    np.testing.assert_array_equal(np.asarray(f(z)), want)
    # and the staged constant cannot be changed through the jaxpr either
    closed = tdx.make_jaxpr(lambda x: x + m)(z)
    const = closed.consts[0]
    assert isinstance(const, np.ndarray) and not const.flags.writeable


# -- 2, 11, 12 and friends: typedax.numpy's axes, reshape and sums ---------------------------
@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda: tnp.sum(np.ones((2, 3, 4)), axis=5), lambda: jnp.sum(np.ones((2, 3, 4)), axis=5)),
        (lambda: tnp.sum(np.ones((2, 3)), axis=-3), lambda: jnp.sum(np.ones((2, 3)), axis=-3)),
        (lambda: tnp.mean(np.ones((2, 3)), axis=2), lambda: jnp.mean(np.ones((2, 3)), axis=2)),
        (lambda: tnp.max(np.ones((2, 3)), axis=(0, 0)), lambda: jnp.max(np.ones((2, 3)), axis=(0, 0))),
        (lambda: tnp.transpose(np.ones((2, 3)), (0, 2)), lambda: jnp.transpose(np.ones((2, 3)), (0, 2))),
        (lambda: tnp.transpose(np.ones((2, 3)), (0, 0)), lambda: jnp.transpose(np.ones((2, 3)), (0, 0))),
        (lambda: tnp.sum(np.float64(1.0), axis=0), lambda: jnp.sum(np.float64(1.0), axis=0)),
    ],
)
def test_out_of_range_or_repeated_axes_raise(ours: Callable[[], object], theirs: Callable[[], object]) -> None:
    assert jax_raises(theirs)
    with pytest.raises(AxisError):
        ours()


def test_in_range_negative_axes_still_work() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(np.asarray(tnp.sum(x, axis=-1)), x.sum(axis=-1))
    np.testing.assert_array_equal(np.asarray(tnp.transpose(x, (-1, 0, 1))), x.transpose(2, 0, 1))


@pytest.mark.parametrize("shape, new", [((0, 3), (0, -1)), ((6,), (4, -1)), ((6,), (-1, -1)), ((6,), (-2, -3))])
def test_reshape_refuses_what_numpy_refuses(shape: tuple[int, ...], new: tuple[int, ...]) -> None:
    assert jax_raises(lambda: jnp.reshape(np.zeros(shape), new))
    with pytest.raises(PrimitiveTypeError, match="cannot reshape"):
        tnp.reshape(np.zeros(shape), new)


def test_integer_sums_accumulate_in_int64() -> None:
    for x in (np.array([2**31 - 1, 1], np.int32), np.array([2**30] * 3, np.int32), np.ones(5, np.bool_)):
        ours, theirs = np.asarray(tnp.sum(x)), np.asarray(jnp.sum(x))
        assert ours.dtype == theirs.dtype == np.int64 and ours == theirs == np.sum(x)


def test_zeros_like_of_a_tracer_is_a_broadcast_literal() -> None:
    big = np.broadcast_to(np.float32(1.0), (2**15, 2**15))  # a view: 4 GiB if allocated
    j = tdx.make_jaxpr(tnp.zeros_like)(big)
    assert not j.consts and "broadcast" in str(j) and "0.0" in str(j)


# -- 5. lax refuses floats where it would truncate -----------------------------------------
@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda: lax.add(np.int32(1), 2.5), lambda: jax.lax.add(np.int32(1), 2.5)),
        (lambda: lax.lt(np.int32(1), 2.5), lambda: jax.lax.lt(np.int32(1), 2.5)),
        (lambda: lax.max(np.int32(1), 2.5), lambda: jax.lax.max(np.int32(1), 2.5)),
        (lambda: lax.mul(np.arange(3, dtype=np.int32), 0.5), lambda: jax.lax.mul(np.arange(3, dtype=np.int32), 0.5)),
        (lambda: lax.integer_pow(np.float64(2.0), 2.5), lambda: jax.lax.integer_pow(np.float64(2.0), 2.5)),  # type: ignore[arg-type]  # the mistake under test
        (lambda: lax.reshape(np.ones(6), (2.9, 3)), lambda: jax.lax.reshape(np.ones(6), (2.9, 3))),  # type: ignore[arg-type]  # the mistake under test
        (lambda: lax.transpose(np.ones((2, 3)), (1.9, 0)), lambda: jax.lax.transpose(np.ones((2, 3)), (1.9, 0))),  # type: ignore[arg-type]  # the mistake under test
        (lambda: lax.reduce_sum(np.ones((2, 3)), (0.7,)), lambda: jax.lax.reduce_sum(np.ones((2, 3)), (0.7,))),  # type: ignore[arg-type]  # the mistake under test
    ],
)
def test_lax_refuses_to_truncate_floats(ours: Callable[[], object], theirs: Callable[[], object]) -> None:
    assert jax_raises(theirs)
    with pytest.raises(PrimitiveTypeError):
        ours()


def test_lax_accepts_numpy_integers_as_dimensions() -> None:
    x = np.ones(6)
    assert np.asarray(lax.reshape(x, (np.int64(2), 3))).shape == (2, 3)  # type: ignore[arg-type]  # NumPy ints are accepted
    assert float(np.asarray(lax.integer_pow(np.float64(2.0), np.int64(3)))) == 8.0  # type: ignore[arg-type]  # NumPy ints are accepted


# -- 6, 7: argnums and tangents that were silently misread --------------------------------
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jacrev", "jacfwd", "hessian"])
def test_repeated_or_empty_argnums_raise(transform: str) -> None:
    ours = getattr(tdx, transform)

    def f(x: Any, y: Any) -> Any:
        return x * y

    with pytest.raises(ArgnumsError, match="more than once"):
        ours(f, argnums=(0, 0))(1.0, 2.0)
    with pytest.raises(ArgnumsError, match="names no argument"):
        ours(f, argnums=())(1.0, 2.0)
    assert jax_raises(lambda: getattr(jax, transform)(f, argnums=())(1.0, 2.0))


def test_a_float_tangent_for_an_integer_primal_raises() -> None:
    assert jax_raises(lambda: jax.jvp(lambda n: n * 2.0, (3,), (1.0,)))
    with pytest.raises(TangentTypeError, match="tangent 0 has type float64"):
        tdx.jvp(lambda n: n * 2.0, (3,), (1.0,))
    with pytest.raises(TangentTypeError, match="not zero"):
        tdx.jvp(lambda n: n * 2.0, (np.int32(3),), (np.int32(1),))
    # zeros of the primal's own dtype: no derivative, as JAX's float0 zeros
    out, t = tdx.jvp(lambda n: n * 2.0, (3,), (0,))
    assert float(np.asarray(out)) == 6.0 and float(np.asarray(t)) == 0.0


# -- 8, 9: eager evaluation has jit's (XLA's) semantics -------------------------------------
def test_abs_of_negative_zero_is_positive_zero() -> None:
    for got in (lax.abs(-0.0), tdx.jit(lax.abs)(-0.0), lax.abs(np.float32(-0.0))):
        assert not np.signbit(np.asarray(got))
    assert not np.signbit(np.asarray(jax.lax.abs(-0.0)))
    # and its derivative is JAX's (1 at 0)
    for x in (-2.0, 0.0, 3.0):
        assert float(np.asarray(tdx.grad(lax.abs)(x))) == float(jax.grad(jax.lax.abs)(x))


def test_eager_and_jit_agree_with_jax_on_the_reported_cases() -> None:
    cases: list[tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]] = [
        (lax.div, jax.lax.div, (np.int32(5), np.int32(0))),
        (lax.div, jax.lax.div, (np.int32(-2**31), np.int32(-1))),
        (lambda x: lax.convert_element_type(x, np.int32), lambda x: jax.lax.convert_element_type(x, np.int32),
         (np.array([np.inf, -np.inf, np.nan, 3e9, -3e9, 2.7, -2.7]),)),
        (lax.select_n, jax.lax.select_n, (np.array([5, -1, 0, 1], np.int32), np.zeros(4), np.ones(4))),
        (lax.max, jax.lax.max, (np.array([0.0, -0.0]), np.array([-0.0, 0.0]))),
        (lax.min, jax.lax.min, (np.array([0.0, -0.0]), np.array([-0.0, 0.0]))),
    ]
    for ours, theirs, args in cases:
        want = np.asarray(jax.jit(theirs)(*args))
        for got in (np.asarray(ours(*args)), np.asarray(tdx.jit(ours)(*args))):
            assert got.dtype == want.dtype and np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want)), (args, got, want)


# -- crashes that were not library errors -------------------------------------------------
def test_shaped_array_normalizes_dtype_spellings() -> None:
    want = tdx.ShapedArray((3,), np.dtype(np.float32))
    for spelling in (np.float32, "float32"):
        got = tdx.ShapedArray((3,), spelling)  # type: ignore[arg-type]  # the spellings under test
        assert got == want and hash(got) == hash(want) and str(got) == "float32[3]"
    with pytest.raises(PrimitiveTypeError, match="is not a dtype"):
        tdx.ShapedArray((3,), "foo")  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(PrimitiveTypeError, match="more than an array can hold"):
        tdx.ShapedArray((2**32, 2**32), np.dtype(np.float32))


def test_eval_jaxpr_takes_closed_jaxprs_and_names_bad_input() -> None:
    from pyrsistent import pmap

    from typedax.core import Eqn, Jaxpr, JaxprTypeError, Var
    from typedax.primitives import mul_p

    closed = tdx.make_jaxpr(lambda x: x * np.arange(3.0))(np.ones(3))
    np.testing.assert_array_equal(np.asarray(tdx.eval_jaxpr(closed, [np.ones(3)])[0]), np.arange(3.0))
    with pytest.raises(TypeError, match="parse_jaxpr"):
        tdx.eval_jaxpr("{ lambda . let in ( ) }", [])  # type: ignore[arg-type]  # the mistake under test
    f64 = tdx.ShapedArray((), np.dtype(np.float64))
    a, b = Var(f64), Var(f64)
    unbound = Jaxpr((a,), (Eqn(mul_p, (a, b), pmap(), (Var(f64),)),), (a,))
    with pytest.raises(JaxprTypeError, match="unbound variable"):
        tdx.eval_jaxpr(unbound, [1.0])


def test_device_arrays_copy_and_pickle() -> None:
    import copy
    import pickle

    a = tdx.device_put(np.arange(3.0))
    assert copy.copy(a) is a and copy.deepcopy({"a": a})["a"] is a
    np.testing.assert_array_equal(np.asarray(pickle.loads(pickle.dumps(a))), np.arange(3.0))


def test_jit_trace_takes_shaped_arrays() -> None:
    t = tdx.jit(lambda x, y: x * 2.0 + y).trace(tdx.ShapedArray((3,), np.dtype(np.float64)), 1.0)
    np.testing.assert_array_equal(np.asarray(t.lower().compile()(np.ones(3), 1.0)), [3.0, 3.0, 3.0])


def test_dot_general_accepts_what_jax_lax_accepts() -> None:
    x = np.arange(4.0).reshape(2, 2)
    for dn in (((0, 0), ((), ())), [[[1], [0]], [[], []]]):
        want = np.asarray(jax.lax.dot_general(x, x, dn))  # type: ignore[arg-type]  # jax.lax accepts these too
        np.testing.assert_array_equal(np.asarray(lax.dot_general(x, x, dn)), want)  # type: ignore[arg-type]  # ints and lists accepted
    np.testing.assert_array_equal(np.asarray(lax.dot_general(x, x, None)), np.asarray(jax.lax.dot_general(x, x, None)))  # type: ignore[arg-type]  # jax.lax takes None too
    with pytest.raises(PrimitiveTypeError, match="dimension_numbers must be"):
        lax.dot_general(x, x, 3)  # type: ignore[arg-type]  # the mistake under test


def test_sizes_beyond_int64_are_library_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="fori_loop: upper=9223372036854775808"):
        tdx.jit(lambda x: lax.fori_loop(0, 2**63, lambda i, c: c, x))(1.0)
    with pytest.raises(PrimitiveTypeError, match="more than an array can hold"):
        lax.broadcast_in_dim(1.0, (2**63,), ())


# -- caches are bounded and go with their function --------------------------------------
def test_compile_cache_keeps_the_most_recently_used() -> None:
    from typedax.lowering.cache import CompileCache

    cache = CompileCache(max_size=2)
    jaxprs = [tdx.make_jaxpr(lambda x: x * float(k))(1.0).jaxpr for k in range(3)]
    for j in jaxprs[:2]:
        cache.get(j, "f")
    cache.get(jaxprs[0], "f")  # used again: the most recent
    cache.get(jaxprs[2], "f")  # evicts jaxprs[1]
    assert cache.stats().size == 2
    assert cache.peek(jaxprs[0]) is not None and cache.peek(jaxprs[2]) is not None
    assert cache.peek(jaxprs[1]) is None


def test_a_jitted_functions_traces_are_bounded_and_released(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc
    import weakref

    import typedax.jitting.api as jit_api

    monkeypatch.setattr(jit_api, "MAX_TRACES_PER_FUNCTION", 3)
    f = tdx.jit(lambda x: x * 2.0)
    for n in range(1, 8):
        np.testing.assert_array_equal(np.asarray(f(np.ones(n))), 2 * np.ones(n))
        f(tdx.device_put(np.ones(n)))
    assert len(f._staged) == 3 and len(f._fast) <= 3
    np.testing.assert_array_equal(np.asarray(f(np.ones(1))), [2.0])  # evicted: traced again
    ref = weakref.ref(f)
    del f
    gc.collect()
    assert ref() is None  # nothing global holds the function or its traces


def test_a_hand_built_jit_with_a_wrong_out_binder_type_is_a_type_error() -> None:
    from pyrsistent import pmap

    from typedax.core import Eqn, Jaxpr, JaxprTypeError, Var
    from typedax.jitting import JitParams, jit_p
    from typedax.primitives import sin_p

    f64, f32 = tdx.ShapedArray((), np.dtype(np.float64)), tdx.ShapedArray((), np.dtype(np.float32))
    a, out = Var(f64), Var(f32)
    inner = Jaxpr((a,), (Eqn(sin_p, (a,), pmap(), (out,)),), (out,))
    x, y = Var(f64), Var(f32)
    outer = Jaxpr((x,), (Eqn(jit_p, (x,), JitParams(inner, "bad").to_params(), (y,)),), (y,))
    with pytest.raises(JaxprTypeError, match="out binder has type float32.* but sin produces float64"):
        tdx.eval_jaxpr(outer, [1.0])


def test_one_value_guard_names_where_a_non_array_came_from() -> None:
    from typedax.core.trace import as_value

    assert as_value(1.0) == 1.0
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: tdx.make_jaxpr(lambda x: "nope")(1.0), "the outputs of the function must be arrays"),
        (lambda: tdx.jvp(lambda x: x, ("a",), (1.0,)), "arguments and results must be arrays"),
        (lambda: lax.scan(lambda c, x: (c, None), "c", None, length=2), "scan's init must be arrays"),
        (lambda: lax.cond(True, lambda x: x, lambda x: x, object()), "cond operands must be arrays"),
    ]
    for run, message in cases:
        with pytest.raises(PrimitiveTypeError, match=message + ".* is not a valid typedax array type"):
            run()
