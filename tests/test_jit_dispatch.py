"""Issue 10: ``jit`` dispatch with host arguments. NumPy arrays, Python
scalars, device arrays and eager arrays -- alone, mixed, in pytrees, with
static arguments given by position or keyword -- trace once per type
signature and give the right values; another dtype, shape or static value
traces again; ``jit`` works on methods and static methods; results are
``tdx.Array``s."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import StaticArgumentError, TypedaxError
from typedax.core.ir import NDArray
from typedax.jitting import Jitted

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def close(ours: object, expected: object) -> None:
    o, e = np.asarray(ours), np.asarray(expected)
    assert o.shape == e.shape, (o.shape, e.shape)
    np.testing.assert_allclose(o, e, rtol=1e-12, atol=1e-12)


def all_arrays(out: object) -> bool:
    leaves = tdx.tree.leaves(out)
    return bool(leaves) and all(isinstance(v, tdx.Array) for v in leaves)


def count_slow_calls(jf: Jitted[Any, Any]) -> list[int]:
    """Count the calls that miss the fast path (``Jitted._call``: flatten,
    look the trace up, bind): a call that hits it never gets there."""
    calls: list[int] = []
    slow = jf._call

    def counting(args: tuple[object, ...], kwargs: dict[str, object]) -> Any:
        calls.append(1)
        return slow(args, kwargs)

    jf._call = counting  # type: ignore[method-assign]  # an instance attribute shadows the method
    return calls


# The forms one array value can be given in.
FORMS: dict[str, Callable[[NDArray], Any]] = {
    "numpy": lambda v: np.array(v),
    "eager": lambda v: tnp.asarray(v),
    "device": lambda v: tdx.device_put(v),
    "jit result": lambda v: tdx.jit(lambda a: a)(v),
}


def make_traced() -> tuple[list[tuple[tuple[int, ...], str]], Jitted[Any, Any]]:
    traces: list[tuple[tuple[int, ...], str]] = []

    def f(x: Any, y: Any) -> Any:
        traces.append((x.shape, x.dtype.name))
        return tnp.sin(x) * y + 1.0

    return traces, tdx.jit(f)


# -- one trace per type signature ---------------------------------------------------------------
def test_every_form_of_one_type_shares_one_trace_and_the_fast_path() -> None:
    traces, jf = make_traced()
    slow = count_slow_calls(jf)
    rng = np.random.default_rng(0)
    calls = 0
    for fx in FORMS:
        for fy in FORMS:
            xv, yv = rng.normal(size=3), rng.normal(size=3)
            out = jf(FORMS[fx](xv), FORMS[fy](yv))
            calls += 1
            assert isinstance(out, tdx.Array), (fx, fy, type(out))
            close(out, np.sin(xv) * yv + 1.0)
    assert len(traces) == 1, traces
    assert len(slow) == 1, f"{len(slow)} of {calls} calls missed the fast path"


def test_python_scalars_trace_once_per_type() -> None:
    traces: list[str] = []

    def f(x: Any, s: Any) -> Any:
        traces.append(type(s).__name__)
        return x * s

    jf = tdx.jit(f)
    slow = count_slow_calls(jf)
    x = np.arange(3.0)
    for s in (2.0, 3.0, -1.5, 0.0):
        out = jf(x, s)
        assert isinstance(out, tdx.Array)
        close(out, x * s)
    assert len(traces) == 1 and len(slow) == 1
    close(jf(x, 2), x * 2)  # an int is another type: a new trace
    close(jf(x, 5), x * 5)
    assert len(traces) == 2
    close(jf(x, True), x)
    assert len(traces) == 3
    close(jf(2.0, 3.0), 6.0)  # scalars only


def test_python_scalar_arguments_stay_weakly_typed() -> None:
    """A Python scalar argument is weakly typed, as in eager code and in JAX:
    ``x_f32 * s`` stays float32 when ``s`` is a Python float."""

    def f(x: Any, s: Any) -> Any:
        return x * s

    x32, i32 = np.ones(2, np.float32), np.ones(2, np.int32)
    for x, s in ((x32, 2.0), (i32, 2), (x32, 2)):
        eager = f(tnp.asarray(x), s)
        theirs = jax.jit(f)(x, s)
        ours = tdx.jit(f)(x, s)
        assert eager.dtype == theirs.dtype, (x.dtype, type(s))
        assert ours.dtype == theirs.dtype, f"jit({x.dtype} * {type(s).__name__}): {ours.dtype}, JAX {theirs.dtype}"


def test_another_dtype_or_shape_traces_again() -> None:
    traces, jf = make_traced()
    x, y = np.arange(3.0), np.ones(3)
    jf(x, y)
    jf(x.astype(np.float32), y.astype(np.float32))
    assert len(traces) == 2
    jf(np.arange(4.0), np.ones(4))
    assert len(traces) == 3
    jf(np.arange(6.0).reshape(2, 3), np.ones((2, 3)))
    assert len(traces) == 4
    # the earlier types are still cached, on every form
    for form in FORMS.values():
        close(jf(form(x), form(y)), np.sin(x) + 1.0)
        out = jf(form(x.astype(np.float32)), form(y.astype(np.float32)))
        assert out.dtype == np.float32
    assert len(traces) == 4
    assert traces == [((3,), "float64"), ((3,), "float32"), ((4,), "float64"), ((2, 3), "float64")]


@given(
    x=hnp.arrays(st.sampled_from([np.float32, np.float64]), hnp.array_shapes(max_dims=2, max_side=3),
                 elements=st.floats(-4, 4, width=32, allow_subnormal=False)),
    form=st.sampled_from(list(FORMS)),
)
def test_dispatch_agrees_with_eager(x: NDArray, form: str) -> None:
    """Any form, any type: the jitted result is the eager one (the fast path
    and the slow path alike)."""
    jf = _SHARED
    expected = np.asarray(_shared_f(x))
    for _ in range(2):
        out = jf(FORMS[form](x))
        assert isinstance(out, tdx.Array) and out.dtype == x.dtype
        # (atol: XLA may round float32 sums differently, and flushes subnormal
        # results to zero where eager NumPy keeps them)
        tol = 1e-5 if x.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(np.asarray(out), expected, rtol=tol, atol=tol)


def _shared_f(x: Any) -> Any:
    return tnp.sum(x * x, axis=0) - tnp.max(x)


_SHARED = tdx.jit(_shared_f)


def test_mutating_a_numpy_argument_between_calls() -> None:
    jf = tdx.jit(lambda a: a * 2.0)
    a = np.arange(3.0)
    first = jf(a)
    a[0] = 10.0
    second = jf(a)
    close(first, [0.0, 2.0, 4.0])
    close(second, [20.0, 2.0, 4.0])


# -- static arguments ----------------------------------------------------------------------------
def _power_sum(x: Any, n: int, mode: str = "sum") -> Any:
    _POWER_TRACES.append((n, mode))
    y = x
    for _ in range(n - 1):  # n must be a Python int: static
        y = y * x
    return tnp.sum(y) if mode == "sum" else tnp.max(y)


_POWER_TRACES: list[tuple[int, str]] = []


@pytest.mark.parametrize(
    "kwargs",
    [{"static_argnums": 1}, {"static_argnames": "n"}, {"static_argnums": (1,), "static_argnames": ("n",)},
     {"static_argnums": -2}],
    ids=["argnums", "argnames", "both", "negative argnums"],
)
def test_static_argument_by_position_and_keyword(kwargs: dict[str, Any]) -> None:
    _POWER_TRACES.clear()
    jf = tdx.jit(_power_sum, **kwargs)
    slow = count_slow_calls(jf)
    x = np.array([1.0, 2.0, 3.0])
    for v in (x, x + 1.0, tdx.device_put(x), tnp.asarray(x + 2.0)):
        close(jf(v, 3), np.sum(np.asarray(v) ** 3))
    assert _POWER_TRACES == [(3, "sum")]
    assert len(slow) == 1, "positional static calls of one type take the fast path"
    close(jf(x, 2), np.sum(x**2))  # another static value: a new trace
    assert _POWER_TRACES == [(3, "sum"), (2, "sum")]
    close(jf(x, 3), np.sum(x**3))  # and the first is still there
    assert len(_POWER_TRACES) == 2
    # by keyword: static too (not a ConcretizationError), traced at most once more
    close(jf(x, n=3), np.sum(x**3))
    close(jf(x + 1.0, n=3), np.sum((x + 1.0) ** 3))
    close(jf(x=x, n=3), np.sum(x**3))
    assert len(_POWER_TRACES) <= 4
    assert all(n in (2, 3) for n, _ in _POWER_TRACES)


def test_static_argnames_and_argnums_together() -> None:
    _POWER_TRACES.clear()
    jf = tdx.jit(_power_sum, static_argnums=1, static_argnames="mode")
    x = np.array([1.0, -2.0, 3.0])
    close(jf(x, 2, "max"), 9.0)
    close(jf(x, 2, mode="max"), 9.0)
    close(jf(x, 2, "sum"), 14.0)
    close(jf(x + 0.0, 2, "max"), 9.0)
    assert (2, "max") in _POWER_TRACES and (2, "sum") in _POWER_TRACES
    assert _POWER_TRACES.count((2, "sum")) == 1


def test_static_values_that_compare_equal_but_differ_in_type_trace_apart() -> None:
    traces: list[str] = []

    def f(x: Any, k: object) -> Any:
        traces.append(type(k).__name__)
        return x * 2.0 if isinstance(k, bool) else x * 3.0

    jf = tdx.jit(f, static_argnums=1)
    x = np.ones(2)
    close(jf(x, True), [2.0, 2.0])
    close(jf(x, 1), [3.0, 3.0])
    close(jf(x, True), [2.0, 2.0])
    assert traces == ["bool", "int"]


@pytest.mark.parametrize("bad", [[1, 2], {"a": 1}, np.array([1, 2]), {1, 2}])
def test_unhashable_static_argument_raises(bad: object) -> None:
    jf = tdx.jit(lambda x, n: x, static_argnums=1)
    jf(np.ones(2), 3)  # a fast path exists: the unhashable value must not slip through it
    with pytest.raises(StaticArgumentError, match="hashable"):
        jf(np.ones(2), bad)
    jk = tdx.jit(lambda x, n: x, static_argnames="n")
    with pytest.raises(StaticArgumentError, match="hashable"):
        jk(np.ones(2), n=bad)
    with pytest.raises(StaticArgumentError, match="hashable"):
        jk(np.ones(2), bad)


def test_static_tuple_argument() -> None:
    traces: list[int] = []

    def f(x: Any, shape: tuple[int, ...]) -> Any:
        traces.append(1)
        return tnp.reshape(x, shape)

    jf = tdx.jit(f, static_argnums=1)
    out = jf(np.arange(6.0), (2, 3))
    assert out.shape == (2, 3) and isinstance(out, tdx.Array)
    jf(np.arange(6.0) + 1.0, (2, 3))
    assert len(traces) == 1
    assert jf(np.arange(6.0), (3, 2)).shape == (3, 2)
    assert len(traces) == 2


# -- pytree arguments ----------------------------------------------------------------------------
class Params(NamedTuple):
    w: Any
    b: Any


def _loss(params: Params, batch: dict[str, Any]) -> Any:
    _LOSS_TRACES.append(1)
    pred = batch["x"] @ params.w + params.b
    return tnp.mean((pred - batch["y"]) ** 2)


_LOSS_TRACES: list[int] = []


def _loss_np(params: Params, batch: Mapping[str, NDArray]) -> float:
    pred = batch["x"] @ np.asarray(params.w) + np.asarray(params.b)
    return float(np.mean((pred - batch["y"]) ** 2))


@pytest.mark.parametrize("form", list(FORMS))
def test_pytree_of_numpy_leaves_takes_the_fast_path(form: str) -> None:
    _LOSS_TRACES.clear()
    jf = tdx.jit(_loss)
    slow = count_slow_calls(jf)
    rng = np.random.default_rng(1)
    params = Params(FORMS[form](rng.normal(size=(3, 2))), FORMS[form](rng.normal(size=2)))
    for _ in range(4):
        batch = {"x": rng.normal(size=(5, 3)), "y": rng.normal(size=(5, 2))}  # NumPy, as a data loader gives
        out = jf(params, batch)
        assert isinstance(out, tdx.Array)
        close(out, _loss_np(params, batch))
    assert len(_LOSS_TRACES) == 1
    assert len(slow) == 1, f"{len(slow)} of 4 calls with NumPy leaves missed the fast path"


def test_pytree_of_numpy_leaves_with_keyword_and_containers() -> None:
    traces: list[int] = []

    def f(xs: list[Any], pair: tuple[Any, Any], *, scale: Any) -> dict[str, Any]:
        traces.append(1)
        total = xs[0] + xs[1]
        return {"sum": total * scale, "pair": (pair[0] - pair[1], pair[1])}

    jf = tdx.jit(f)
    slow = count_slow_calls(jf)
    for i in range(3):
        a, b, c, d = (np.arange(3.0) + i + k for k in range(4))
        out = jf([a, b], (c, d), scale=2.0)
        assert all_arrays(out)
        close(out["sum"], (a + b) * 2.0)
        close(out["pair"][0], c - d)
        close(out["pair"][1], d)
    assert len(traces) == 1
    assert len(slow) == 1
    # a different structure traces again, and gives the right value
    out2 = jf([np.ones(3), np.ones(3)], (np.ones(3), np.zeros(3)), scale=np.float64(3.0))
    close(out2["sum"], [6.0, 6.0, 6.0])


def test_pytree_leaf_types_key_the_fast_path() -> None:
    traces: list[int] = []

    def f(d: dict[str, Any]) -> Any:
        traces.append(1)
        return d["a"] + tnp.sum(d["b"])

    jf = tdx.jit(f)
    close(jf({"a": np.ones(2), "b": np.ones(3)}), [4.0, 4.0])
    close(jf({"a": np.ones(2), "b": np.ones(3)}), [4.0, 4.0])
    assert len(traces) == 1
    out = jf({"a": np.ones(2, np.float32), "b": np.ones(3, np.float32)})
    assert out.dtype == np.float32 and len(traces) == 2
    close(jf({"a": np.ones(2), "b": np.ones(4)}), [5.0, 5.0])
    assert len(traces) == 3
    close(jf({"a": np.ones(2), "b": np.ones(3)}), [4.0, 4.0])
    assert len(traces) == 3


# -- methods ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Layer:
    """A dataclass: a pytree node, so ``self``'s arrays are traced arguments."""

    w: Any
    b: Any

    @tdx.jit
    def __call__(self, x: Any) -> Any:
        _METHOD_TRACES.append("Layer")
        return tnp.tanh(x @ self.w + self.b)

    @tdx.jit
    def scaled(self, x: Any, s: Any) -> Any:
        return self(x) * s


_METHOD_TRACES: list[str] = []


class Scaler:
    """An ordinary object, hashable by identity: ``self`` static."""

    def __init__(self, factor: float) -> None:
        self.factor = factor

    @tdx.jit(static_argnums=0)
    def apply(self, x: Any) -> Any:
        _METHOD_TRACES.append("Scaler")
        return x * self.factor

    @staticmethod
    @tdx.jit
    def double(x: Any) -> Any:
        _METHOD_TRACES.append("double")
        return x * 2.0


class Opaque:
    @tdx.jit
    def f(self, x: Any) -> Any:
        return x


def test_jit_method_of_a_pytree_class() -> None:
    _METHOD_TRACES.clear()
    rng = np.random.default_rng(2)
    layer = Layer(rng.normal(size=(3, 2)), rng.normal(size=2))
    x = rng.normal(size=(4, 3))
    expected = np.tanh(x @ layer.w + layer.b)
    for _ in range(3):
        out = layer(x)
        assert isinstance(out, tdx.Array)
        close(out, expected)
    assert _METHOD_TRACES == ["Layer"]
    # another instance of the same types: the same trace, its own values
    other = Layer(np.asarray(layer.w) * 2.0, np.asarray(layer.b))
    close(other(x), np.tanh(x @ (np.asarray(layer.w) * 2.0) + layer.b))
    assert _METHOD_TRACES == ["Layer"]
    close(layer.scaled(x, 3.0), expected * 3.0)
    # through the class, self passed explicitly
    close(Layer.__call__(layer, x), expected)
    # under grad, with respect to the layer itself
    g = tdx.grad(lambda lyr: tnp.sum(lyr(x)))(layer)
    g_jax = jax.grad(lambda w, b: jax.numpy.sum(jax.numpy.tanh(x @ w + b)), argnums=(0, 1))(layer.w, layer.b)
    close(g.w, g_jax[0])
    close(g.b, g_jax[1])


def test_jit_method_with_static_self() -> None:
    _METHOD_TRACES.clear()
    s2, s3 = Scaler(2.0), Scaler(3.0)
    x = np.arange(3.0)
    close(s2.apply(x), x * 2.0)
    close(s2.apply(x + 1.0), (x + 1.0) * 2.0)
    assert _METHOD_TRACES == ["Scaler"]
    close(s3.apply(x), x * 3.0)  # another self: another static value
    assert _METHOD_TRACES == ["Scaler", "Scaler"]
    close(Scaler.apply(s2, x), x * 2.0)
    assert len(_METHOD_TRACES) == 2
    assert isinstance(s3.apply(x), tdx.Array)


def test_jit_staticmethod() -> None:
    _METHOD_TRACES.clear()
    x = np.arange(3.0)
    close(Scaler.double(x), x * 2.0)
    close(Scaler(1.0).double(x), x * 2.0)
    assert isinstance(Scaler.double(x), tdx.Array)
    assert _METHOD_TRACES == ["double"]


def test_jit_method_of_an_opaque_class_is_refused() -> None:
    """``self`` is neither an array, a pytree nor static: a library error
    naming the problem, not a silently dropped ``self`` (JAX: TypeError)."""
    with pytest.raises(TypedaxError, match="Opaque"):
        Opaque().f(np.ones(2))


# -- results ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", list(FORMS) + ["python scalar"])
def test_results_are_arrays(form: str) -> None:
    def f(x: Any) -> tuple[Any, dict[str, Any], list[Any]]:
        return x, {"c": 2.0, "s": tnp.sin(x)}, [np.ones(2), lax.add(x, 1.0)]

    jf = tdx.jit(f)
    x: Any = 0.5 if form == "python scalar" else FORMS[form](np.array([0.5, 1.0]))
    for _ in range(3):  # the tracing call, then the fast path
        out = jf(x)
        assert all_arrays(out), [type(v) for v in tdx.tree.leaves(out)]
        close(out[1]["s"], np.sin(np.asarray(x)))
        close(out[1]["c"], 2.0)


# -- issue 30: the written-out paths of Jitted.__call__ -------------------------------------------
def _affine(a: Any, b: Any, c: Any) -> Any:
    return a * 2.0 + b * c


@pytest.mark.parametrize("statics", [(), (0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)], ids=str)
def test_three_arguments_every_static_pattern_and_kind(statics: tuple[int, ...]) -> None:
    """Three positional arguments (written out in ``__call__``), each static
    pattern: device, NumPy, eager and scalar arguments of one type share one
    trace, each mix of kinds its own fast-path entry made without the
    general path, and every result equals the general path's."""
    jf = tdx.jit(_affine, static_argnums=statics)
    slow = count_slow_calls(jf)
    rng = np.random.default_rng(len(statics))
    forms: list[Callable[[NDArray], Any]] = [tdx.device_put, np.array, tnp.asarray]
    for call in range(4):
        xs = [rng.normal(size=3) for _ in range(3)]
        args = [1.5 if i in statics else forms[(call + i) % 3](x) for i, x in enumerate(xs)]
        got = jf(*args)
        want = Jitted._call(jf, tuple(args), {})
        assert isinstance(got, tdx.Array) and got.aval == want.aval and got.aval.weak_type == want.aval.weak_type
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert len(slow) == 1, f"{len(slow)} of 4 calls took the general path"


def test_weak_array_and_python_scalar_are_separate_kinds() -> None:
    """A weakly typed ``Array`` (a jitted function's result on a Python
    scalar) and a Python scalar share a type key but not a kind: each gets
    its own entry (the scalar's copied, the array's buffer passed), and the
    results keep the weak type."""
    jf = tdx.jit(lambda x: x * 3)
    slow = count_slow_calls(jf)
    w = jf(2.0)
    assert w.aval.weak_type and w.dtype == np.float64
    for v in (w, 5.0, w, -1.0):
        out = jf(v)
        assert out.aval.weak_type and float(out) == float(v) * 3
    assert len(slow) == 1


def test_static_values_beyond_the_kind_offset_stay_apart() -> None:
    """Keys carry an argument's kind as an offset of its type key; a large
    static value (an int past that offset) must never be taken for a kind
    and find another static value's entry."""
    jf = tdx.jit(lambda x, n: x * n, static_argnums=1)
    x = np.arange(3.0)
    big = (1 << 40) + 5
    close(jf(tdx.device_put(x), 5), x * 5)
    close(jf(x, big), x * big)  # a NumPy array: a new mix of kinds, another static value
    close(jf(x, 5), x * 5)
    close(jf(tdx.device_put(x), big), x * big)
