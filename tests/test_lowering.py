"""StableHLO lowering and the runtime: every primitive compiled by XLA agrees
with its NumPy evaluation; device arrays; the platform setting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
from typedax import lax
from typedax import numpy as tnp
from typedax.core import Jaxpr, eval_jaxpr
from typedax.core.dtypes import DType, float32
from typedax.core.ir import NDArray
from typedax.registry import REGISTRY
from typedax.core.trace import Value, bind
from typedax.jitting import JitParams, jit_p
from typedax.lowering import Array, PlatformError, device_put, lower_jaxpr
from typedax.lowering import runtime
from typedax.testing import covered_primitives, jaxprs_with_args

from _examples import ci_examples
from _tested_elsewhere import TESTED_ELSEWHERE



def run_compiled(jaxpr: Jaxpr, args: list[NDArray]) -> list[NDArray]:
    outs = bind(jit_p, list(args), JitParams(jaxpr, "test").to_params())
    return [np.asarray(o) for o in outs]


def tolerance(dtype: DType) -> float:
    return 2e-5 if dtype == float32 else 1e-12


def assert_same(got: NDArray, want: NDArray) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    if want.dtype.kind == "f":
        tol = tolerance(want.dtype)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


def test_every_primitive_has_a_lowering_rule() -> None:
    # (other test modules register throwaway ``test_*`` primitives)
    missing = [p.name for p in REGISTRY.primitives() if p.rules.lower is None]
    assert missing == []


def test_generator_covers_every_first_order_primitive() -> None:
    names = set(REGISTRY) - TESTED_ELSEWHERE
    assert names <= covered_primitives()


# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs the profile's count
@ci_examples(15)
@given(jaxprs_with_args(max_eqns=8))
def test_compiled_jaxpr_agrees_with_numpy(case: tuple[Jaxpr, list[NDArray]]) -> None:
    jaxpr, args = case
    want = [np.asarray(x) for x in eval_jaxpr(jaxpr, list(args))]
    got = run_compiled(jaxpr, args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w)


# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs the profile's count
@ci_examples(15)
@given(jaxprs_with_args(max_eqns=6, dtypes=[np.dtype(np.float32)], float_only=True))
def test_compiled_float32_jaxpr_agrees_with_numpy(case: tuple[Jaxpr, list[NDArray]]) -> None:
    jaxpr, args = case
    want = [np.asarray(x) for x in eval_jaxpr(jaxpr, list(args))]
    for g, w in zip(run_compiled(jaxpr, args), want):
        assert_same(g, w)


# -- rules with semantics worth pinning down ---------------------------------------
def test_integer_division_rounds_toward_zero() -> None:
    x = np.array([7, -7, 7, -7, 0], np.int32)
    y = np.array([2, 2, -2, -2, 3], np.int32)
    got = np.asarray(tdx.jit(lax.div)(x, y))
    np.testing.assert_array_equal(got, [3, -3, -3, 3, 0])
    np.testing.assert_array_equal(np.asarray(lax.div(x, y)), got)


@pytest.mark.parametrize("y", [0, 1, 2, 3, 5, 8, -1, -3])
def test_integer_pow_by_repeated_squaring(y: int) -> None:
    x = np.array([0.5, -1.5, 2.0], np.float64)
    got = np.asarray(tdx.jit(lambda v: lax.integer_pow(v, y))(x))
    np.testing.assert_allclose(got, x**y, rtol=1e-14)
    text = tdx.jit(lambda v: lax.integer_pow(v, y)).lower(x).as_text()
    assert "stablehlo.power" not in text


def test_integer_pow_of_ints() -> None:
    x = np.array([-3, 2, 5], np.int64)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lambda v: lax.integer_pow(v, 3))(x)), x**3)


def test_select_n_with_int32_selector_and_three_cases() -> None:
    which = np.array([2, 0, 1, 2], np.int32)
    a, b, c = (np.full(4, v, np.float32) for v in (10.0, 20.0, 30.0))
    got = np.asarray(tdx.jit(lax.select_n)(which, a, b, c))
    np.testing.assert_array_equal(got, [30.0, 10.0, 20.0, 30.0])


def test_select_n_with_scalar_bool_selector() -> None:
    a, b = np.zeros(3), np.ones(3)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lax.select_n)(np.bool_(True), a, b)), b)


def test_convert_to_bool_is_nonzero() -> None:
    x = np.array([0.0, -0.5, 2.0, 0.0], np.float32)
    got = np.asarray(tdx.jit(lambda v: lax.convert_element_type(v, np.bool_))(x))
    np.testing.assert_array_equal(got, [False, True, True, False])


def test_reduce_max_of_ints_and_bools() -> None:
    i = np.array([[-5, -7], [-9, -1]], np.int64)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lambda v: lax.reduce_max(v, (1,)))(i)), [-5, -1])
    b = np.array([[False, False], [False, True]])
    np.testing.assert_array_equal(np.asarray(tdx.jit(lambda v: lax.reduce_max(v, (1,)))(b)), [False, True])


def test_comparisons_on_bools_and_signed_ints() -> None:
    b = np.array([False, True, True]), np.array([True, True, False])
    np.testing.assert_array_equal(np.asarray(tdx.jit(lax.gt)(*b)), b[0] > b[1])
    i = np.array([-1, 0, 3], np.int32), np.array([1, 0, -3], np.int32)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lax.lt)(*i)), i[0] < i[1])


def test_batched_dot_general_lowers_to_one_dot_general() -> None:
    lhs = np.random.default_rng(0).normal(size=(2, 3, 4))
    rhs = np.random.default_rng(1).normal(size=(2, 4, 5))
    dn = (((2,), (1,)), ((0,), (0,)))
    f = tdx.jit(lambda a, b: lax.dot_general(a, b, dn))
    np.testing.assert_allclose(np.asarray(f(lhs, rhs)), lhs @ rhs, rtol=1e-12)
    text = f.lower(lhs, rhs).as_text()
    assert text.count("stablehlo.dot_general") == 1
    assert "batching_dims = [0] x [0]" in text


def test_broadcast_with_size_one_operand_dims() -> None:
    x = np.arange(3.0).reshape(3, 1)
    f = tdx.jit(lambda v: lax.broadcast_in_dim(v, (2, 3, 4), (1, 2)))
    np.testing.assert_array_equal(np.asarray(f(x)), np.broadcast_to(x, (2, 3, 4)))
    assert "stablehlo.broadcast_in_dim" in f.lower(x).as_text()


def test_lowered_module_is_stablehlo_with_public_main() -> None:
    cj = tdx.make_jaxpr(lambda x: lax.reduce_sum(lax.sin(x), (0,)))(np.ones(3))
    text = lower_jaxpr(cj.jaxpr, "f").as_text()
    assert "func.func public @main" in text
    assert "stablehlo.reduce" in text and "stablehlo.sine" in text
    assert "module @jit_f" in text


# -- device arrays -------------------------------------------------------------------
def test_array_basics() -> None:
    x = device_put(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    assert isinstance(x, Array)
    assert x.shape == (2, 3) and x.dtype == np.float32 and x.ndim == 2 and x.size == 6
    assert len(x) == 2
    assert x.block_until_ready() is x
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0).reshape(2, 3))
    assert repr(x).startswith("Array([[0., 1., 2.],") and "dtype=float32" in repr(x)
    assert float(device_put(np.float64(2.5))) == 2.5
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)


def test_array_operators_follow_typedax_numpy() -> None:
    x = device_put(np.array([1.0, 2.0], np.float32))
    y = tnp.add(tnp.multiply(x, 2.0), 1.0)
    assert np.asarray(y).dtype == np.float32
    np.testing.assert_array_equal(np.asarray(y), [3.0, 5.0])
    np.testing.assert_array_equal(np.asarray(x > 1.5), [False, True])
    np.testing.assert_array_equal(np.asarray(-x), [-1.0, -2.0])
    np.testing.assert_array_equal(np.asarray(x @ x), 5.0)


def test_device_put_copies_the_host_buffer() -> None:
    host = np.arange(3.0)
    x = device_put(host)
    host[0] = 100.0
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0])


def test_results_stay_on_the_device() -> None:
    out = tdx.jit(lambda v: v + 1.0)(np.zeros(2))
    assert isinstance(out, Array)
    again = tdx.jit(lambda v: v * 3.0)(out)
    np.testing.assert_array_equal(np.asarray(again), [3.0, 3.0])


def test_array_flows_through_transformations() -> None:
    x = device_put(np.array([0.5, 1.0]))
    g = tdx.grad(lambda v: lax.reduce_sum(lax.sin(v), (0,)))(x)
    np.testing.assert_allclose(np.asarray(g), np.cos([0.5, 1.0]))
    cj = tdx.make_jaxpr(lambda v: v * x)(np.ones(2))
    assert len(cj.consts) == 1


# -- platform --------------------------------------------------------------------------
def test_unknown_platform_is_refused() -> None:
    with pytest.raises(PlatformError, match="unknown platform 'tpu'"):
        runtime.set_platform("tpu")


def test_platform_cannot_change_once_running() -> None:
    runtime.backend()
    running = runtime.platform()  # "cpu", or "cuda" under TYPEDAX_PLATFORM=cuda (make test-gpu)
    assert running == runtime._requested_platform()
    other = "cuda" if running == "cpu" else "cpu"
    with pytest.raises(PlatformError, match="already running"):
        runtime.set_platform(other)
    runtime.set_platform(running)  # the running one is fine


def test_platform_environment_variable_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "_REQUESTED", [])
    monkeypatch.setenv("TYPEDAX_PLATFORM", "abacus")
    with pytest.raises(PlatformError, match="TYPEDAX_PLATFORM='abacus'"):
        runtime._requested_platform()
    monkeypatch.setenv("TYPEDAX_PLATFORM", "CUDA")
    assert runtime._requested_platform() == "cuda"


@given(st.sampled_from(["float32", "float64", "int32", "int64", "bool"]))
def test_device_put_round_trips_every_dtype(name: str) -> None:
    host = np.asarray(np.arange(4) % 2 if name == "bool" else np.arange(4) - 2).astype(name)
    x = device_put(host)
    assert x.dtype == host.dtype
    np.testing.assert_array_equal(np.asarray(x), host)
