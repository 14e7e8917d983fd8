"""Top-level names and small modules JAX programs import (issue 29 item 7),
against JAX: typedax.errors, dtypes, typing, stages; linear_transpose,
custom_gradient, closure_convert, named_call, named_scope,
ensure_compile_time_eval, clear_caches, live_arrays and float0 (the tangent
type of integer and bool values under grad, jvp and vjp)."""

from __future__ import annotations

from typing import Any, cast

import jax as _jax
import jax.numpy as _jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import dtypes, errors, stages
from typedax import random as trandom
from typedax import typing as ttyping
from typedax.core.errors import MissingRuleError, NonLinearError

jax: Any = _jax  # the oracle, untyped
jnp: Any = _jnp


def _jax_error(f: Any) -> type[BaseException]:
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e)
    raise AssertionError("JAX raised nothing")


# -- typedax.errors ----------------------------------------------------------------
def test_errors_are_jaxs_names_for_the_same_situations() -> None:
    def branch(x: Any) -> Any:
        return x if x > 0 else -x

    def index(x: Any) -> Any:
        return [1, 2, 3][x]

    cases = [(branch, errors.TracerBoolConversionError, "TracerBoolConversionError"),
             (lambda x: int(x), errors.ConcretizationTypeError, "ConcretizationTypeError"),
             (index, errors.TracerIntegerConversionError, "TracerIntegerConversionError"),
             (lambda x: np.asarray(x), errors.TracerArrayConversionError, "TracerArrayConversionError")]
    for f, ours, name in cases:
        assert _jax_error(lambda: jax.jit(f)(1)).__name__ == name
        with pytest.raises(ours):
            tdx.jit(f)(1)
        with pytest.raises(errors.ConcretizationTypeError):  # their common base, a TypeError
            tdx.jit(f)(1)
    leaked: list[Any] = []

    def leak(x: Any) -> Any:
        leaked.append(x)
        return x

    tdx.jit(leak)(1.0)
    with pytest.raises(errors.UnexpectedTracerError):
        leaked[0] + 1
    assert issubclass(errors.UnexpectedTracerError, TypeError) and issubclass(jax.errors.UnexpectedTracerError, TypeError)
    assert errors.JaxRuntimeError is jax.errors.JaxRuntimeError
    assert issubclass(errors.NonConcreteBooleanIndexError, IndexError)
    assert _jax_error(lambda: jax.jit(lambda x: x[x > 0])(np.ones(3))).__name__ == "NonConcreteBooleanIndexError"
    with pytest.raises(errors.NonConcreteBooleanIndexError):
        tdx.jit(lambda x: x[x > 0])(np.ones(3))
    assert set(errors.__all__) <= set(dir(jax.errors))


# -- typedax.dtypes, typing, stages -------------------------------------------------------
def test_dtypes_as_jax_dtypes() -> None:
    assert dtypes.float0 == jax.dtypes.float0 == tdx.float0
    assert dtypes.bfloat16 is jax.dtypes.bfloat16
    key = trandom.key(0)
    assert dtypes.issubdtype(key.dtype, dtypes.prng_key) and dtypes.issubdtype(key.dtype, dtypes.extended)
    assert not dtypes.issubdtype(np.float32, dtypes.extended) and not dtypes.issubdtype(key.dtype, np.floating)
    pairs: list[tuple[Any, Any]] = [(np.float32, np.floating), (dtypes.bfloat16, np.floating), (np.int8, np.signedinteger),
                 (dtypes.float0, np.void), (np.uint8, np.floating)]
    for a, b in pairs:
        assert dtypes.issubdtype(a, b) == jax.dtypes.issubdtype(a, b)
    cases: list[tuple[Any, ...]] = [(1.0,), (np.float32(1), 2), (np.int8, 3), (np.float16, np.int32)]
    for args in cases:
        ours = dtypes.result_type(*args, return_weak_type_flag=True)
        assert isinstance(ours, tuple) and ours[1] == jax.dtypes.result_type(*args, return_weak_type_flag=True)[1]
    assert dtypes.result_type(np.float32(1), 2) == jax.dtypes.result_type(np.float32(1), 2) == np.float32
    assert dtypes.canonicalize_dtype(np.int8) == jax.dtypes.canonicalize_dtype(np.int8)
    with pytest.raises(ValueError, match="extended dtype"):
        dtypes.canonicalize_dtype(key.dtype)
    for x in (1, 1.0, True, np.ones(2, np.complex64)):
        assert dtypes.scalar_type_of(x) is jax.dtypes.scalar_type_of(x)
    for d in (np.float32, np.int8, np.bool_, dtypes.bfloat16):
        assert dtypes.itemsize_bits(d) == jax.dtypes.itemsize_bits(d)
    assert dtypes.finfo(np.float32).eps == jax.dtypes.finfo(np.float32).eps
    assert set(dtypes.__all__) <= set(dir(jax.dtypes))
    assert set(ttyping.__all__) == {"ArrayLike", "DTypeLike"} <= set(dir(jax.typing))


def test_stages_are_jits_objects() -> None:
    f = tdx.jit(lambda x: x * 2)
    assert isinstance(f, stages.Wrapped)
    traced = f.trace(np.float32(1))
    lowered = traced.lower()
    compiled = lowered.compile()
    assert isinstance(cast(object, traced), stages.Traced) and isinstance(cast(object, lowered), stages.Lowered)
    assert isinstance(cast(object, compiled), stages.Compiled) and float(np.asarray(compiled(np.float32(3)))) == 6.0


# -- linear_transpose, custom_gradient, closure_convert -------------------------------------
def test_linear_transpose_against_jax() -> None:
    x, y = np.float32(1), np.ones(3, np.float32)
    ours = tdx.linear_transpose(lambda a, b: 2 * a + tnp.cumsum(b), x, y)
    theirs = jax.linear_transpose(lambda a, b: 2 * a + jnp.cumsum(b), x, y)
    ct = np.arange(3, dtype=np.float32)
    for o, t in zip(ours(ct), theirs(ct)):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t))
    for o, t in zip(tdx.jit(ours)(ct), theirs(ct)):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t))
    tree_t: Any = tdx.linear_transpose(lambda d: {"a": d["x"] * 3}, {"x": np.float32(1)})({"a": np.float32(2)})
    assert float(np.asarray(tree_t[0]["x"])) == 6.0
    with pytest.raises(NonLinearError):  # JAX: an AssertionError
        tdx.linear_transpose(lambda a: a * a, 1.0)(1.0)
    with pytest.raises(NotImplementedError):  # JAX's class too
        tdx.linear_transpose(tnp.sin, 1.0)(1.0)
    assert issubclass(_jax_error(lambda: jax.linear_transpose(jnp.sin, 1.0)(1.0)), NotImplementedError)
    with pytest.raises(TypeError, match="cotangent type does not match"):
        tdx.linear_transpose(lambda a: 2 * a, 1.0)(np.ones(2))
    assert issubclass(MissingRuleError, NotImplementedError)


def test_custom_gradient_against_jax() -> None:
    def make(lib: Any, np_: Any) -> Any:
        def f(x: Any, y: Any) -> Any:
            return x * y, lambda g: (g * y * 10, g * np_.cos(x))

        return lib.custom_gradient(f)

    ours, theirs = make(tdx, tnp), make(jax, jnp)
    assert float(np.asarray(ours(2.0, 3.0))) == float(theirs(2.0, 3.0))
    grad_ours: Any = tdx.grad(ours, argnums=(0, 1))
    for o, t in zip(grad_ours(2.0, 3.0), jax.grad(theirs, argnums=(0, 1))(2.0, 3.0)):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tdx.jit(tdx.grad(ours))(2.0, 3.0)), 30.0)
    xs, ys = np.ones(2, np.float32), np.arange(2, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(tdx.vmap(tdx.grad(ours))(xs, ys)), np.asarray(jax.vmap(jax.grad(theirs))(xs, ys)))


def test_closure_convert_against_jax() -> None:
    y_ours, y_theirs = tnp.arange(3.0), jnp.arange(3.0)
    counts: dict[str, list[int]] = {"ours": [], "theirs": []}

    def outer(lib: Any, y: Any, who: str) -> Any:
        def run(z: Any) -> Any:
            def g(x: Any) -> Any:
                return x * z + y

            converted, consts = lib.closure_convert(g, 1.0)
            counts[who].append(len(consts))
            return converted(2.0, *consts).sum()

        return run

    o, t = outer(tdx, y_ours, "ours"), outer(jax, y_theirs, "theirs")
    assert float(np.asarray(tdx.grad(o)(3.0))) == float(jax.grad(t)(3.0))
    assert float(np.asarray(tdx.jit(o)(3.0))) == float(jax.jit(t)(3.0))
    np.testing.assert_allclose(np.asarray(tdx.vmap(o)(np.ones(2))), np.asarray(jax.vmap(t)(jnp.ones(2))))
    assert counts["ours"] == counts["theirs"] == [1, 1, 0]  # a batch of constants is not hoisted


# -- named_call, named_scope, ensure_compile_time_eval, clear_caches, live_arrays ---------------
def test_names_and_compile_time_eval() -> None:
    f = tdx.named_call(lambda x: x * 2, name="dbl")
    assert f.__name__ == "dbl" and float(np.asarray(tdx.jit(f)(2.0))) == 4.0
    with tdx.named_scope("scope"):
        assert float(np.asarray(tdx.jit(lambda x: x + 1)(1.0))) == 2.0
    with pytest.raises(TypeError, match="must be a string"):
        with tdx.named_scope(3):  # type: ignore[arg-type]  # the wrong type on purpose
            pass
    with pytest.raises(TypeError):
        with jax.named_scope(3):
            pass
    seen: list[type] = []

    def g(x: Any) -> Any:
        with tdx.ensure_compile_time_eval():
            c = tnp.sin(tnp.arange(3.0))
            seen.append(type(c))
            if c[1] > 0:  # concrete: Python control flow works, as JAX's
                c = c * 2
        return x * c

    jaxpr = tdx.make_jaxpr(g)(np.ones(3))
    assert "sin" not in str(jaxpr) and seen == [tdx.core.array.ArrayImpl]
    np.testing.assert_allclose(np.asarray(tdx.jit(g)(np.ones(3))), 2 * np.sin(np.arange(3.0)))
    np.testing.assert_allclose(np.asarray(tdx.grad(lambda x: g(x).sum())(np.ones(3))), 2 * np.sin(np.arange(3.0)))


def test_clear_caches_and_live_arrays() -> None:
    traces: list[int] = []

    def h(x: Any) -> Any:
        traces.append(1)
        return x + 1

    jh = tdx.jit(h)
    jh(1.0)
    jh(1.0)
    assert len(traces) == 1
    tdx.clear_caches()
    jh(1.0)
    assert len(traces) == 2  # as JAX's clear_caches: the next call traces again
    x = tdx.device_put(np.arange(7.0, 14.0))
    live = [np.asarray(a) for a in tdx.live_arrays() if a.shape == (7,)]
    assert any(np.array_equal(a, np.arange(7.0, 14.0)) for a in live)
    del x


# -- float0 -------------------------------------------------------------------------------
def test_float0_tangents_as_jax() -> None:
    def f(x: Any, n: Any) -> Any:
        return x * n

    grad_both: Any = tdx.grad(f, argnums=(0, 1), allow_int=True)
    ours = grad_both(2.0, 3)
    theirs = jax.grad(f, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert float(np.asarray(ours[0])) == float(theirs[0])
    assert np.asarray(ours[1]).dtype == np.asarray(theirs[1]).dtype == tdx.float0
    with pytest.raises(TypeError, match="allow_int"):
        grad_int: Any = tdx.grad(f, argnums=1)
        grad_int(2.0, 3)
    assert issubclass(_jax_error(lambda: jax.grad(f, argnums=1)(2.0, 3)), TypeError)
    # jvp: float0 tangents in for integer primals, float0 tangents out for integer outputs
    z0 = np.zeros((), tdx.float0)
    (p_o, t_o), (p_t, t_t) = (lib.jvp(lambda x, n: (x * n, n * 2), (2.0, 3), (1.0, z0)) for lib in (tdx, jax))
    assert float(np.asarray(t_o[0])) == float(t_t[0]) == 3.0
    assert np.asarray(t_o[1]).dtype == np.asarray(t_t[1]).dtype == tdx.float0
    with pytest.raises(TypeError, match="float0"):
        tdx.jvp(lambda x: x, (1.0,), (z0,))
    # in a pytree too
    tree_p, tree_t = tdx.jvp(lambda d: d["n"] * 2, ({"n": np.arange(3)},), ({"n": np.zeros(3, tdx.float0)},))
    assert np.asarray(tree_t).dtype == tdx.float0 and np.asarray(tree_t).shape == (3,)
    # vjp: a float0 cotangent for an integer output, float0 cotangents for integer inputs
    pullback: Any = tdx.vjp(lambda x, n: (x * n, n), 2.0, 3)[1]
    ct_o = pullback((1.0, z0))
    ct_t = jax.vjp(lambda x, n: (x * n, n), 2.0, 3)[1]((1.0, z0))
    assert float(np.asarray(ct_o[0])) == float(ct_t[0])
    assert np.asarray(ct_o[1]).dtype == np.asarray(ct_t[1]).dtype == tdx.float0


def _same(ours: Any, theirs: Any) -> None:
    """Equal pytrees of arrays: leaves, shapes, values, and float0 where JAX's
    are (NumPy arrays, as JAX's)."""
    o_leaves, o_tree = tdx.tree_util.tree_flatten(ours)
    t_leaves, t_tree = jax.tree_util.tree_flatten(theirs)
    assert len(o_leaves) == len(t_leaves)
    for o, t in zip(o_leaves, t_leaves):
        o_arr, t_arr = np.asarray(o), np.asarray(t)
        assert o_arr.shape == t_arr.shape
        assert (o_arr.dtype == tdx.float0) == (t_arr.dtype == tdx.float0)
        if t_arr.dtype == tdx.float0:
            assert type(o) is np.ndarray  # a host array, as JAX's
        else:  # (JAX runs with x64 off here: its floats are float32)
            np.testing.assert_allclose(o_arr, t_arr)


def test_float0_through_jit_and_vmap_as_jax() -> None:
    def f(x: Any, n: Any) -> Any:
        return x * n

    def g(lib: Any) -> Any:
        return lib.grad(f, argnums=(0, 1), allow_int=True)

    xs, ns = np.arange(3.0), np.arange(3)
    z3 = np.zeros(3, tdx.float0)
    for outer in (False, True):  # and the same again inside jit
        def wrap(lib: Any, h: Any) -> Any:
            return lib.jit(h) if outer else h
        _same(wrap(tdx, tdx.jit(g(tdx)))(2.0, 3), wrap(jax, jax.jit(g(jax)))(2.0, 3))
        _same(wrap(tdx, tdx.vmap(g(tdx)))(xs, ns), wrap(jax, jax.vmap(g(jax)))(xs, ns))
    _same(tdx.vmap(g(tdx), in_axes=(0, None))(xs, 3), jax.vmap(g(jax), in_axes=(0, None))(xs, 3))
    _same(tdx.vmap(tdx.jit(g(tdx)))(xs, ns), jax.vmap(jax.jit(g(jax)))(xs, ns))
    # jit of jvp with a float0 tangent in, and an integer output's float0 tangent out
    def jvp_of(lib: Any) -> Any:
        return lib.jit(lambda n, t: lib.jvp(lambda m: (m * 2, m * 0.5), (n,), (t,)))
    _same(jvp_of(tdx)(ns, z3), jvp_of(jax)(ns, z3))
    # vjp of a function with an integer input, under jit
    def vjp_of(lib: Any) -> Any:
        def h(x: Any, n: Any) -> Any:
            y, pullback = lib.vjp(f, x, n)
            return pullback(y)
        return lib.jit(h)
    _same(vjp_of(tdx)(2.0, 3), vjp_of(jax)(2.0, 3))
    # float0 arguments and results of jit and vmap themselves, in pytrees and with out_axes
    for lib in (tdx, jax):
        assert np.shape(lib.jit(lambda d: d["t"])({"t": z3})) == (3,)
    _same(tdx.vmap(lambda t, x: (t, x), out_axes=(1, 0))(np.zeros((3, 2), tdx.float0), xs),
          jax.vmap(lambda t, x: (t, x), out_axes=(1, 0))(np.zeros((3, 2), tdx.float0), xs))
    _same(tdx.vmap(lambda t: t, in_axes=1)(np.zeros((2, 3), tdx.float0)),
          jax.vmap(lambda t: t, in_axes=1)(np.zeros((2, 3), tdx.float0)))
    # the batch size counts float0 arguments too
    with pytest.raises(ValueError, match="inconsistent sizes"):
        tdx.vmap(lambda t, x: x)(np.zeros(2, tdx.float0), xs)
    assert issubclass(_jax_error(lambda: jax.vmap(lambda t, x: x)(np.zeros(2, tdx.float0), xs)), ValueError)
    # a jitted function keeps one trace per float0 shape, and its fast path
    traced: list[int] = []

    def counted_grad(x: Any, n: Any) -> Any:
        traced.append(1)
        return g(tdx)(x, n)

    def counted_id(t: Any) -> Any:
        traced.append(2)
        return t

    jg = tdx.jit(counted_grad)
    for _ in range(3):
        _same(jg(2.0, 3), jax.grad(f, argnums=(0, 1), allow_int=True)(2.0, 3))
    jt = tdx.jit(counted_id)
    assert [np.shape(jt(np.zeros(k, tdx.float0))) for k in (1, 2, 1)] == [(1,), (2,), (1,)]
    assert traced == [1, 2, 2]
    # ahead of time: a float0 argument is no input of the program
    compiled = tdx.jit(lambda x, t: (x * 2, t)).lower(xs, z3).compile()
    assert len(compiled.traced.in_avals) == 1 and np.shape(compiled(xs, z3)[1]) == (3,)
    with pytest.raises(TypeError, match="float0 arguments"):
        compiled(xs, np.zeros(2, tdx.float0))
    # float0 values support no operations, as JAX's
    with pytest.raises(TypeError, match="float0"):
        tnp.add(z3, 1)
    assert issubclass(_jax_error(lambda: jnp.add(z3, 1)), TypeError)
