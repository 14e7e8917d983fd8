"""Host callbacks (issue 27): ``pure_callback``, ``experimental.io_callback``,
``debug.callback`` and ``debug.print``, eagerly and under ``jit``, ``vmap``,
``grad`` and control flow, against JAX 0.10.2's output."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special  # type: ignore[import-untyped]  # scipy ships no type stubs

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import CallbackError, CallbackResultError, CallbackVmapError
from typedax.core.ir import Jaxpr
from typedax.interpreters.dce import dce_jaxpr

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

F64 = tdx.ShapeDtypeStruct((), np.dtype(np.float64))


def _jsds(shape: tuple[int, ...], dtype: object) -> object:
    return jax.ShapeDtypeStruct(shape, dtype)  # type: ignore[no-untyped-call]  # jax's ShapeDtypeStruct is unannotated


def _a(x: object) -> tdx.Array:
    """A typedax callback's result as an Array (its pytree is one leaf here)."""
    assert isinstance(x, tdx.Array)
    return x


def _j(x: object) -> jax.Array:
    assert isinstance(x, jax.Array)
    return x


def _out(capsys: pytest.CaptureFixture[str], run: Callable[[], object]) -> list[str]:
    capsys.readouterr()
    run()
    return capsys.readouterr().out.splitlines()


def _both(capsys: pytest.CaptureFixture[str], ours: Callable[[], object], theirs: Callable[[], object]) -> list[str]:
    """Run typedax's and JAX's versions; assert they print the same lines."""
    a = _out(capsys, lambda: tdx.block_until_ready(ours()))
    b = _out(capsys, lambda: jax.block_until_ready(theirs()))  # type: ignore[no-untyped-call]  # unannotated in jax
    assert a == b
    return a


# -- pure_callback ---------------------------------------------------------------------
def _erf_t(x: tdx.ArrayLike, vmap_method: str | None = "sequential") -> tdx.Array:
    a = tnp.asarray(x)
    return tdx.pure_callback(scipy.special.erf, tdx.ShapeDtypeStruct(a.shape, a.dtype), a, vmap_method=vmap_method)


def _erf_j(x: object, vmap_method: str | None = "sequential") -> jax.Array:
    a = jnp.asarray(x)
    return _j(jax.pure_callback(scipy.special.erf, _jsds(a.shape, a.dtype), a, vmap_method=vmap_method))


def test_pure_callback_scipy_eager_and_jit() -> None:
    x = np.linspace(-2, 2, 7)
    want = np.asarray(_erf_j(x))
    np.testing.assert_array_equal(np.asarray(_erf_t(x)), want)
    np.testing.assert_array_equal(np.asarray(tdx.jit(_erf_t)(x)), want)
    np.testing.assert_array_equal(np.asarray(tdx.jit(lambda v: tnp.sin(_erf_t(v)))(x)), np.asarray(jnp.sin(want)))
    x32 = x.astype(np.float32)
    out = tdx.jit(_erf_t)(x32)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), np.asarray(_erf_j(x32)))
    # the host function sees 16-bit values as they are (not widened to float32)
    seen: list[np.dtype[np.generic]] = []

    def half(a: tdx.ArrayLike) -> object:
        seen.append(np.asarray(a).dtype)
        return np.asarray(a) / 3

    x16 = x.astype(np.float16)
    spec = tdx.ShapeDtypeStruct(x16.shape, x16.dtype)
    def third(v: tdx.ArrayLike) -> tdx.Array:
        return tdx.pure_callback(half, spec, v)

    for f in (third, tdx.jit(third)):
        np.testing.assert_array_equal(np.asarray(f(x16)), x16 / 3)
    assert seen == [np.dtype(np.float16)] * 2


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized"])
def test_pure_callback_vmap_methods(capsys: pytest.CaptureFixture[str], method: str) -> None:
    """The shapes the callback sees (JAX's docstring example) and the values."""

    def cb(x: tdx.ArrayLike, y: tdx.ArrayLike) -> object:
        print(np.shape(x), np.shape(y))
        return np.add(np.asarray(x), np.asarray(y))

    def ours(x: tdx.Array, y: tdx.Array) -> tdx.Array:
        shape = np.broadcast_shapes(x.shape, y.shape)
        return tdx.pure_callback(cb, tdx.ShapeDtypeStruct(shape, np.dtype(np.float64)), x, y, vmap_method=method)

    def theirs(x: jax.Array, y: jax.Array) -> jax.Array:
        shape = jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y))
        return _j(jax.pure_callback(cb, _jsds(shape, jnp.float64), x, y, vmap_method=method))

    x, one = tnp.arange(4.0), tnp.asarray(1.0)
    xj, onej = jnp.arange(4.0), jnp.asarray(1.0)
    for wrap_t, wrap_j in ((tdx.vmap, jax.vmap), (lambda f, **k: tdx.jit(tdx.vmap(f, **k)), lambda f, **k: jax.jit(jax.vmap(f, **k)))):
        res: list[object] = []
        _both(capsys, lambda: res.append(wrap_t(ours, in_axes=(0, None))(x, one)),
              lambda: res.append(wrap_j(theirs, in_axes=(0, None))(xj, onej)))
        np.testing.assert_array_equal(np.asarray(res[0]), np.asarray(res[1]))
    # a SciPy function under vmap, batched along axis 1
    xs = np.linspace(-1, 1, 12).reshape(3, 4)
    np.testing.assert_array_equal(
        np.asarray(tdx.jit(tdx.vmap(partial(_erf_t, vmap_method=method), in_axes=1))(xs)),
        np.asarray(jax.vmap(partial(_erf_j, vmap_method=method), in_axes=1)(xs)),
    )


def test_pure_callback_vmap_without_method_raises_as_jax() -> None:
    x = np.arange(3.0)
    with pytest.raises(NotImplementedError) as theirs:
        jax.vmap(partial(_erf_j, vmap_method=None))(x)
    with pytest.raises(CallbackVmapError) as ours:
        tdx.vmap(partial(_erf_t, vmap_method=None))(x)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(CallbackError, match="vmap_method must be"):
        _erf_t(x, vmap_method="bogus")


def test_pure_callback_in_control_flow() -> None:
    x = np.linspace(0.1, 1.0, 4)

    def body_t(c: tdx.Array, v: tdx.Array) -> tuple[tdx.Array, tdx.Array]:
        return c + v, _erf_t(c * v)

    def body_j(c: jax.Array, v: jax.Array) -> tuple[jax.Array, jax.Array]:
        return c + v, _erf_j(c * v)

    ct, yt = tdx.jit(lambda xs: lax.scan(body_t, tnp.asarray(0.5), xs))(x)
    cj, yj = jax.jit(lambda xs: jax.lax.scan(body_j, jnp.asarray(0.5), xs))(x)
    np.testing.assert_array_equal(np.asarray(yt), np.asarray(yj))
    wt = tdx.jit(lambda v: lax.while_loop(lambda s: s < 0.99, lambda s: _erf_t(s) + 0.3, v))(0.1)
    wj = jax.jit(lambda v: jax.lax.while_loop(lambda s: s < 0.99, lambda s: _erf_j(s) + 0.3, v))(0.1)
    assert float(wt) == float(wj)
    for p in (True, False):
        got = tdx.jit(lambda v: lax.cond(p, _erf_t, lambda u: u, v))(x)
        want = jax.jit(lambda v: jax.lax.cond(p, _erf_j, lambda u: u, v))(x)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_pure_callback_grad_raises_as_jax() -> None:
    with pytest.raises(ValueError) as theirs:
        jax.grad(lambda v: _erf_j(v))(0.5)
    for f in (tdx.grad(_erf_t), tdx.jit(tdx.grad(_erf_t))):
        with pytest.raises(CallbackError) as ours:
            f(0.5)
        assert str(ours.value).replace("typedax", "jax") == str(theirs.value)


def test_pure_callback_unused_is_dropped_and_printed_jaxpr() -> None:
    calls: list[int] = []

    def count(x: object) -> object:
        calls.append(1)
        return x

    def f(x: tdx.ArrayLike) -> tdx.Array:
        tdx.pure_callback(count, tdx.ShapeDtypeStruct((), np.dtype(np.float64)), x)
        return tnp.asarray(x) * 2

    closed = tdx.make_jaxpr(f)(1.0)
    text = str(closed)
    assert re.search(r'pure_callback \[ callback="count#\d+", result_dtypes=\(float64,\), '
                     r'result_shapes=\(\(\),\), vmap_method=None \]', text), text
    assert tdx.parse_jaxpr(text) == closed.jaxpr
    pruned, _ = dce_jaxpr(closed.jaxpr, [True])
    assert "pure_callback" not in str(pruned)
    tdx.jit(f)(1.0)
    assert calls == []  # JAX drops an unused pure callback too


def test_wrong_result_type_names_callback_and_types() -> None:
    def bad(x: object) -> object:
        return np.asarray(x, np.float32)

    def f(x: tdx.ArrayLike) -> tdx.Array:
        return tdx.pure_callback(bad, tdx.ShapeDtypeStruct((2,), np.dtype(np.float64)), x)

    msg = "pure_callback: callback 'bad' returned float32[2] for result 0, but its result_shape_dtypes declare float64[2]"
    with pytest.raises(CallbackResultError, match=re.escape(msg)):
        f(np.ones(2))
    with pytest.raises(Exception, match=re.escape(msg)):  # XLA reports the callback's error
        tdx.block_until_ready(tdx.jit(f)(np.ones(2)))
    with pytest.raises(CallbackResultError, match=re.escape("returned float64[3] for result 0")):
        tdx.pure_callback(lambda x: np.ones(3), tdx.ShapeDtypeStruct((2,), np.dtype(np.float64)), 1.0)
    with pytest.raises(CallbackResultError, match="returned 2 results where its result_shape_dtypes declare 1"):
        tdx.pure_callback(lambda x: (x, x), tdx.ShapeDtypeStruct((), np.dtype(np.float64)), 1.0)
    with pytest.raises(CallbackError, match="needs a shape and a dtype"):
        tdx.pure_callback(lambda x: x, 3, 1.0)
    with pytest.raises(CallbackError, match="names no function registered"):
        tdx.eval_jaxpr(tdx.parse_jaxpr(
            '{ lambda a:float64[] . let b:float64[] = pure_callback [ callback="f#999999", '
            'result_dtypes=(float64,), result_shapes=((),), vmap_method=None ] a in ( b ) }'), [1.0])


def test_pure_callback_pytrees_and_kwargs() -> None:
    def f(x: tdx.ArrayLike, *, y: tdx.ArrayLike) -> object:
        return {"s": np.asarray(x) + np.asarray(y), "p": (np.asarray(x) * np.asarray(y),)}

    spec = {"s": tdx.ShapeDtypeStruct((2,), np.dtype(np.float64)), "p": (tdx.ShapeDtypeStruct((2,), np.dtype(np.float64)),)}
    out = tdx.jit(lambda a, b: tdx.pure_callback(f, spec, a, y=b))(np.ones(2), np.full(2, 3.0))
    assert isinstance(out, dict) and isinstance(out["p"], tuple)
    np.testing.assert_array_equal(np.asarray(out["s"]), [4.0, 4.0])
    np.testing.assert_array_equal(np.asarray(out["p"][0]), [3.0, 3.0])


# -- debug.print / debug.callback ---------------------------------------------------
def test_debug_print_eager_jit(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x: tdx.ArrayLike) -> tdx.Array:
        tdx.debug.print("x: {}", x)
        y = tnp.sin(x)
        tdx.debug.print("y: {y}, x+1: {}", tnp.asarray(x) + 1, y=y)
        return y

    def g(x: jax.Array) -> jax.Array:
        jax.debug.print("x: {}", x)
        y = jnp.sin(x)
        jax.debug.print("y: {y}, x+1: {}", x + 1, y=y)
        return y

    x = np.array([1.0, 2.0])
    lines = _both(capsys, lambda: f(x), lambda: g(jnp.asarray(x)))
    assert lines[0] == "x: [1. 2.]"
    _both(capsys, lambda: tdx.jit(f)(x), lambda: jax.jit(g)(x))
    _both(capsys, lambda: tdx.jit(f)(np.float32(3.0)), lambda: jax.jit(g)(np.float32(3.0)))


def test_debug_print_vmap_grad_scan(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x: tdx.ArrayLike) -> tdx.Array:
        tdx.debug.print("x: {}", x)
        return tnp.sin(x) * x

    def g(x: jax.Array) -> jax.Array:
        jax.debug.print("x: {}", x)
        return jnp.sin(x) * x

    xs = np.arange(3.0)
    lines = _both(capsys, lambda: tdx.vmap(f)(xs), lambda: jax.vmap(g)(jnp.asarray(xs)))
    assert lines == ["x: 0.0", "x: 1.0", "x: 2.0"]  # once per batch element
    _both(capsys, lambda: tdx.jit(tdx.vmap(f))(xs), lambda: jax.jit(jax.vmap(g))(xs))
    _both(capsys, lambda: tdx.grad(f)(2.0), lambda: jax.grad(g)(2.0))
    _both(capsys, lambda: tdx.jit(tdx.grad(f))(2.0), lambda: jax.jit(jax.grad(g))(2.0))
    _both(capsys, lambda: tdx.jit(tdx.vmap(tdx.grad(f)))(xs), lambda: jax.jit(jax.vmap(jax.grad(g)))(xs))

    def body_t(c: tdx.Array, x: tdx.Array) -> tuple[tdx.Array, tdx.Array]:
        tdx.debug.print("c={c} x={x}", c=c, x=x)
        return c + x, c

    def body_j(c: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        jax.debug.print("c={c} x={x}", c=c, x=x)
        return c + x, c

    c0, j0 = tnp.asarray(0.0), jnp.asarray(0.0)
    lines = _both(capsys, lambda: tdx.jit(lambda v: lax.scan(body_t, c0, v))(xs),
                  lambda: jax.jit(lambda v: jax.lax.scan(body_j, j0, v))(xs))
    assert len(lines) == 3
    _both(capsys, lambda: lax.scan(body_t, c0, tnp.asarray(xs)), lambda: jax.lax.scan(body_j, j0, jnp.asarray(xs)))

    # while and cond bodies
    def step_t(s: tdx.Array) -> tdx.Array:
        tdx.debug.print("s={}", s)
        return s + 1

    def step_j(s: jax.Array) -> jax.Array:
        jax.debug.print("s={}", s)
        return s + 1

    _both(capsys, lambda: tdx.jit(lambda v: lax.while_loop(lambda s: s < 3, step_t, v))(0),
          lambda: jax.jit(lambda v: jax.lax.while_loop(lambda s: s < 3, step_j, v))(0))
    for p in (True, False):
        _both(capsys, lambda: tdx.jit(lambda v: lax.cond(p, step_t, lambda u: u * 2, v))(1.5),
              lambda: jax.jit(lambda v: jax.lax.cond(p, step_j, lambda u: u * 2, v))(1.5))


def test_debug_print_is_kept_when_its_values_are_unused(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x: tdx.ArrayLike) -> tdx.Array:
        tdx.debug.print("dead: {}", tnp.cos(x))
        return tnp.asarray(x)

    closed = tdx.make_jaxpr(f)(1.0)
    pruned, _ = dce_jaxpr(closed.jaxpr, [True])
    assert "debug_callback" in str(pruned) and "cos" in str(pruned)
    # nested in a jit and in a cond whose outputs are unused
    outer = tdx.make_jaxpr(lambda x: (tdx.jit(f)(x), lax.cond(True, f, f, x), x)[2])(1.0)
    pruned, _ = dce_jaxpr(outer.jaxpr, [True])
    assert str(pruned).count("debug_callback") == 3
    assert _out(capsys, lambda: tdx.jit(f)(0.0)) == ["dead: 1.0"]


def test_debug_print_ordered(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x: tdx.ArrayLike) -> tdx.Array:
        for i in range(5):
            tdx.debug.print("{i}: {}", tnp.asarray(x) + i, i=i, ordered=True)
        return tnp.asarray(x)

    lines = _out(capsys, lambda: tdx.jit(f)(0.0))
    assert lines == [f"{i}: {float(i)}" for i in range(5)]
    text = tdx.jit(f).lower(0.0).as_text()
    target = "xla_ffi_python_cpu_callback" if tdx.default_backend() == "cpu" else "xla_ffi_python_gpu_callback"
    assert text.count("!stablehlo.token") >= 5 and target in text


def test_debug_callback(capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[tuple[object, ...]] = []

    def log(x: object, tag: str, *, y: object) -> None:
        seen.append((np.asarray(x).tolist(), tag, np.asarray(y).tolist()))

    def f(x: tdx.ArrayLike) -> tdx.Array:
        tdx.debug.callback(log, x, "tag", y=tnp.asarray(x) * 2)
        return tnp.asarray(x) + 1

    tdx.jit(f)(np.arange(2.0))
    tdx.vmap(f)(np.arange(2.0))
    f(tnp.asarray(3.0))
    assert seen == [([0.0, 1.0], "tag", [0.0, 2.0]), (0.0, "tag", 0.0), (1.0, "tag", 2.0), (3.0, "tag", 6.0)]
    with pytest.raises(CallbackError, match="must be callable"):
        tdx.debug.callback(3, 1.0)  # type: ignore[arg-type]  # not a callable: the error under test
    with pytest.raises(CallbackError, match="Unused positional arguments"):
        tdx.debug.print("{}", 1.0, 2.0)
    with pytest.raises(CallbackError, match="Unused keyword arguments"):
        tdx.debug.print("x", y=1.0)


# -- io_callback -------------------------------------------------------------------
def test_io_callback_ordered_and_errors() -> None:
    log: list[float] = []

    def record(x: object) -> object:
        log.append(float(np.asarray(x)))
        return np.asarray(x) * 2

    spec = F64

    def f(x: tdx.ArrayLike) -> tdx.Array:
        for i in range(4):
            tdx.experimental.io_callback(record, spec, tnp.asarray(x) + i, ordered=True)
        return tdx.experimental.io_callback(record, spec, x, ordered=True)

    out = tdx.jit(f)(1.0)
    assert float(out) == 2.0 and log == [1.0, 2.0, 3.0, 4.0, 1.0]
    log.clear()
    out = tdx.jit(tdx.vmap(lambda x: tdx.experimental.io_callback(record, spec, x)))(np.arange(3.0))
    np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])
    assert log == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError) as theirs:
        jax.vmap(lambda x: jax.experimental.io_callback(record, _jsds((), jnp.float64), x, ordered=True))(np.arange(3.0))
    with pytest.raises(CallbackError) as ours:
        tdx.vmap(lambda x: tdx.experimental.io_callback(record, spec, x, ordered=True))(np.arange(3.0))
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(CallbackError, match="IO callbacks do not support JVP"):
        tdx.grad(lambda x: tdx.experimental.io_callback(record, spec, x))(1.0)
    # an io_callback whose result is unused still runs
    log.clear()
    tdx.jit(lambda x: (tdx.experimental.io_callback(record, spec, x), x)[1])(5.0)
    assert log == [5.0]


def test_jaxpr_with_effects_round_trips() -> None:
    def f(x: tdx.ArrayLike) -> tdx.Array:
        tdx.debug.print("v {}", x, ordered=True)
        return tdx.experimental.io_callback(lambda v: v, F64, x)

    j = tdx.make_jaxpr(f)(1.0).jaxpr
    assert isinstance(j, Jaxpr)
    assert tdx.parse_jaxpr(str(j)) == j
    assert 'debug_callback [ callback="debug.print#' in str(j)


def _layouts(text: str) -> list[str]:
    return re.findall(r"(?:operand|result)_layouts = \[(?:dense<[^>]*> : tensor<\w+>(?:, )?)*\]", text)


@pytest.mark.parametrize("ordered", [False, True])
def test_callbacks_ask_for_row_major_buffers_as_jax(ordered: bool) -> None:
    """The host callback's custom call carries JAX's default (row-major)
    operand and result layouts, tokens included: a GPU compiler free to pick
    layouts handed jit(vmap(f, in_axes=1)) of a pure_callback a transposed
    buffer before they were set."""
    def host(x: object, s: object) -> np.ndarray:
        return np.asarray(x) * 2

    def ours(x: tdx.Array, s: tdx.Array) -> tdx.Array:
        out = tdx.ShapeDtypeStruct(x.shape, x.dtype)
        if ordered:
            return tdx.experimental.io_callback(host, out, x, s, ordered=True)
        return tdx.pure_callback(host, out, x, s)

    def theirs(x: jax.Array, s: jax.Array) -> jax.Array:
        out = jax.ShapeDtypeStruct(x.shape, x.dtype)  # type: ignore[no-untyped-call]  # jax's ShapeDtypeStruct is unannotated
        if ordered:
            return jax.experimental.io_callback(host, out, x, s, ordered=True)  # type: ignore[no-any-return]  # JAX's result is untyped
        return jax.pure_callback(host, out, x, s)  # type: ignore[no-any-return]  # as above

    x, s = tnp.ones((2, 3, 4), tnp.float32), tnp.asarray(1.0, tnp.float32)
    mine = _layouts(tdx.jit(ours).lower(x, s).as_text())
    assert mine == _layouts(jax.jit(theirs).lower(np.asarray(x), np.asarray(s)).as_text())
    assert mine[0].startswith("operand_layouts") and "dense<[2, 1, 0]>" in mine[0]
