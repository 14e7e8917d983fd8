"""``typedax.config`` and ``enable_x64``: with x64 off, typedax does what JAX
does in its 32-bit mode (JAX, run in that mode, is the oracle): 64-bit
NumPy and Python values entering typedax become 32-bit, requested 64-bit
dtypes are truncated with JAX's warning, weak defaults are int32/float32,
integer sums accumulate in int32; jit retraces when the setting changes;
``config.context`` is scoped to its thread."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def outcome(f: Callable[[], object]) -> tuple[str, list[str]]:
    """The result's dtype (or the error's type) and the warnings' texts."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f()
            kind = str(np.asarray(r).dtype)
        except (OverflowError, ValueError, TypeError) as e:  # the builtin class both share
            kind = next(c.__name__ for c in (OverflowError, ValueError, TypeError) if isinstance(e, c))
    return kind, [str(m.message) for m in w if "Explicitly requested" in str(m.message)]


# -- the settings object ---------------------------------------------------------
def test_config_defaults_and_names() -> None:
    assert tdx.config.enable_x64 is True and tdx.config.jax_enable_x64 is True
    assert tdx.config.read("jax_enable_x64") is True
    tdx.config.update("enable_x64", False)
    try:
        assert (tdx.config.read("enable_x64"), tdx.config.read("jax_enable_x64")) == (False, False)
        assert tnp.zeros(2).dtype == np.float32
    finally:
        tdx.config.update("jax_enable_x64", True)
    assert tnp.zeros(2).dtype == np.float64  # the documented typedax default


def test_config_errors() -> None:
    with pytest.raises(AttributeError, match="Unrecognized config option: jax_enable_x65"):
        tdx.config.update("jax_enable_x65", False)
    with pytest.raises(TypeError, match="takes a bool"):
        tdx.config.update("jax_enable_x64", 0)  # the wrong type on purpose (an int: a bool option refuses it)
    with pytest.raises(ValueError, match="different values"):
        with tdx.config.context(enable_x64=True, jax_enable_x64=False):
            pass
    with pytest.raises(AttributeError):
        tdx.config.read("nope")
    assert tdx.config.enable_x64 is True


def test_context_nests_and_restores() -> None:
    with tdx.config.context(enable_x64=False):
        assert not tdx.config.read("enable_x64") and tnp.asarray(1.0).dtype == np.float32
        with tdx.config.context(jax_enable_x64=True):
            assert tdx.config.read("enable_x64") and tnp.asarray(1.0).dtype == np.float64
        with tdx.config.context():
            assert not tdx.config.read("enable_x64")
        assert not tdx.config.read("enable_x64")
    assert tdx.config.enable_x64 and tnp.asarray(1.0).dtype == np.float64
    with pytest.raises(RuntimeError):
        with tdx.config.context(enable_x64=False):
            raise RuntimeError
    assert tdx.config.enable_x64


def test_context_is_scoped_to_its_thread() -> None:
    """One thread inside ``context(enable_x64=False)`` does not change what
    another (outside any context) computes, and vice versa."""
    inside, outside = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def off() -> None:
        with tdx.config.context(enable_x64=False):
            inside.set()
            outside.wait(10)
            seen["off"] = (tdx.config.enable_x64, tnp.asarray(np.ones(2)).dtype,
                           tdx.jit(lambda x: x * 2)(np.ones(2)).dtype)

    def on() -> None:
        inside.wait(10)
        seen["on"] = (tdx.config.enable_x64, tnp.asarray(np.ones(2)).dtype,
                      tdx.jit(lambda x: x * 2)(np.ones(2)).dtype)
        outside.set()

    threads = [threading.Thread(target=off), threading.Thread(target=on)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert seen["off"] == (False, np.float32, np.float32)
    assert seen["on"] == (True, np.float64, np.float64)
    assert tdx.config.enable_x64


def test_global_update_reaches_other_threads_but_not_their_contexts() -> None:
    seen: list[object] = []

    def worker() -> None:
        seen.append(tnp.asarray(1.0).dtype)
        with tdx.config.context(enable_x64=True):
            seen.append(tnp.asarray(1.0).dtype)

    tdx.config.update("jax_enable_x64", False)
    try:
        t = threading.Thread(target=worker)
        t.start()
        t.join(30)
    finally:
        tdx.config.update("jax_enable_x64", True)
    assert seen == [np.float32, np.float64]


# -- against JAX in its 32-bit mode --------------------------------------------
I64 = np.arange(-3, 3, dtype=np.int64)
F64 = np.linspace(-1.5, 2.0, 6)
I32 = I64.astype(np.int32)
B = I64 > 0

# (name, typedax, JAX): each a thunk
CASES: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
    ("asarray f64", lambda: tnp.asarray(F64), lambda: jnp.asarray(F64)),
    ("asarray i64", lambda: tnp.asarray(I64), lambda: jnp.asarray(I64)),
    ("asarray list int", lambda: tnp.asarray([1, 2]), lambda: jnp.asarray([1, 2])),
    ("asarray list float", lambda: tnp.asarray([1, 2.5]), lambda: jnp.asarray([1, 2.5])),
    ("asarray scalar", lambda: tnp.asarray(1.0), lambda: jnp.asarray(1.0)),
    ("asarray int scalar", lambda: tnp.asarray(3), lambda: jnp.asarray(3)),
    ("asarray f64 scalar", lambda: tnp.asarray(np.float64(2)), lambda: jnp.asarray(np.float64(2))),
    ("asarray big int", lambda: tnp.asarray(2**40), lambda: jnp.asarray(2**40)),
    ("asarray dtype=f64", lambda: tnp.asarray(F64, dtype=np.float64), lambda: jnp.asarray(F64, dtype=np.float64)),
    ("array dtype=i64", lambda: tnp.array(I32, dtype=np.int64), lambda: jnp.array(I32, dtype=np.int64)),
    ("zeros", lambda: tnp.zeros(3), lambda: jnp.zeros(3)),
    ("ones f64", lambda: tnp.ones(3, dtype=np.float64), lambda: jnp.ones(3, dtype=np.float64)),
    ("zeros i64", lambda: tnp.zeros(3, dtype=np.int64), lambda: jnp.zeros(3, dtype=np.int64)),
    ("full int", lambda: tnp.full(3, 7), lambda: jnp.full(3, 7)),
    ("full f64", lambda: tnp.full(3, 7, dtype=np.float64), lambda: jnp.full(3, 7, dtype=np.float64)),
    ("astype f64", lambda: tnp.asarray(I32).astype(np.float64), lambda: jnp.asarray(I32).astype(np.float64)),
    ("convert f64", lambda: lax.convert_element_type(tnp.asarray(I32), np.float64),
     lambda: jax.lax.convert_element_type(jnp.asarray(I32), np.float64)),
    ("sum i32", lambda: tnp.sum(tnp.asarray(I32)), lambda: jnp.sum(jnp.asarray(I32))),
    ("sum bool", lambda: tnp.sum(tnp.asarray(B)), lambda: jnp.sum(jnp.asarray(B))),
    ("sum dtype i64", lambda: tnp.sum(tnp.asarray(I32), dtype=np.int64),
     lambda: jnp.sum(jnp.asarray(I32), dtype=np.int64)),
    ("mean int", lambda: tnp.mean(tnp.asarray(I32)), lambda: jnp.mean(jnp.asarray(I32))),
    ("add numpy f64", lambda: tnp.add(F64, F64), lambda: jnp.add(F64, F64)),
    ("lax.add numpy f64", lambda: lax.add(F64, F64), lambda: jax.lax.add(F64, F64)),
    ("int + float scalar", lambda: tnp.asarray(I32) + 2.5, lambda: jnp.asarray(I32) + 2.5),
    ("i64 numpy * int", lambda: tnp.multiply(I64, 3), lambda: jnp.multiply(I64, 3)),
    ("divide ints", lambda: tnp.asarray(I32) / 2, lambda: jnp.asarray(I32) / 2),
    ("sin i64", lambda: tnp.sin(I64), lambda: jnp.sin(I64)),
    ("where scalars", lambda: tnp.where(True, 1.0, 2), lambda: jnp.where(True, 1.0, 2)),
    ("f64 scalar + int", lambda: tnp.add(np.float64(1.0), 1), lambda: jnp.add(np.float64(1.0), 1)),
    ("device_put f64", lambda: tdx.device_put(F64), lambda: jax.device_put(F64)),
    ("jit numpy f64", lambda: tdx.jit(lambda x: x * 2)(F64), lambda: jax.jit(lambda x: x * 2)(F64)),
    ("jit float", lambda: tdx.jit(lambda x: x * 2)(1.5), lambda: jax.jit(lambda x: x * 2)(1.5)),
    ("jit int", lambda: tdx.jit(lambda x: x * 2)(3), lambda: jax.jit(lambda x: x * 2)(3)),
    ("jit closed-over f64", lambda: tdx.jit(lambda x: x + F64)(I32), lambda: jax.jit(lambda x: x + F64)(I32)),
    ("jit zeros inside", lambda: tdx.jit(lambda x: x + tnp.zeros(6))(I32),
     lambda: jax.jit(lambda x: x + jnp.zeros(6))(I32)),
    ("grad", lambda: tdx.grad(lambda x: (x * x).sum())(F64), lambda: jax.grad(lambda x: (x * x).sum())(F64)),
    ("vmap", lambda: tdx.vmap(lambda x: x * 2.0)(I64), lambda: jax.vmap(lambda x: x * 2.0)(I64)),
]


@pytest.mark.usefixtures("x64_off")  # (tests/conftest.py)
@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_x32_matches_jax(name: str) -> None:
    _, ours, theirs = next(c for c in CASES if c[0] == name)
    o_kind, o_warn = outcome(ours)
    j_kind, j_warn = outcome(theirs)
    assert o_kind == j_kind, (name, o_kind, j_kind)
    assert o_warn[:1] == j_warn[:1], (o_warn, j_warn)  # JAX may warn twice for one request
    if o_kind not in ("OverflowError", "ValueError", "TypeError"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the warnings were compared above
            np.testing.assert_allclose(np.asarray(ours()), np.asarray(theirs()), rtol=1e-6)


BINARY: list[Callable[[Any, Any], object]] = [
    tnp.add, tnp.subtract, tnp.multiply, tnp.divide, tnp.maximum, tnp.power, tnp.greater,
]
J_BINARY: list[Callable[[Any, Any], object]] = [
    jnp.add, jnp.subtract, jnp.multiply, jnp.divide, jnp.maximum, jnp.power, jnp.greater,
]
OPERANDS: list[tuple[str, Callable[[Any], Any]]] = [
    ("numpy f64", lambda lib: F64), ("numpy i64", lambda lib: I64), ("numpy i32", lambda lib: I32),
    ("numpy bool", lambda lib: B), ("python float", lambda lib: 1.5), ("python int", lambda lib: 2),
    ("array f64", lambda lib: lib.asarray(F64)), ("array i64", lambda lib: lib.asarray(I64)),
    ("numpy f32", lambda lib: F64.astype(np.float32)),
]


@pytest.mark.usefixtures("x64_off")  # (tests/conftest.py)
@given(op=st.integers(0, len(BINARY) - 1), a=st.integers(0, len(OPERANDS) - 1),
       b=st.integers(0, len(OPERANDS) - 1), jitted=st.booleans())
def test_x32_promotion_sweep_matches_jax(op: int, a: int, b: int, jitted: bool) -> None:
    """Each binary operation on each pair of operand kinds, eager and under
    ``jit``: the result dtype and value are JAX's in its 32-bit mode."""
    xa, xb = OPERANDS[a][1], OPERANDS[b][1]
    if OPERANDS[a][0].startswith("python") and OPERANDS[b][0].startswith("python"):
        return  # two Python scalars: constant folding in Python, nothing typed
    ints = {"numpy i64", "numpy i32", "numpy bool", "python int", "array i64"}
    if BINARY[op] is tnp.power and {OPERANDS[a][0], OPERANDS[b][0]} <= ints:
        return  # integer ** integer array: a known gap (a clear error, test_numpy_api)

    def ours() -> object:
        f = BINARY[op]
        if jitted:
            return tdx.jit(lambda u, v: f(u, v))(xa(tnp), xb(tnp))
        return f(xa(tnp), xb(tnp))

    def theirs() -> object:
        f = J_BINARY[op]
        if jitted:
            return jax.jit(lambda u, v: f(u, v))(xa(jnp), xb(jnp))
        return f(xa(jnp), xb(jnp))

    o_kind, _ = outcome(ours)
    j_kind, _ = outcome(theirs)
    assert o_kind == j_kind, (OPERANDS[a][0], OPERANDS[b][0], o_kind, j_kind)
    if o_kind not in ("OverflowError", "ValueError", "TypeError"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_allclose(np.asarray(ours()), np.asarray(theirs()), rtol=2e-6, equal_nan=True)


# -- jit's caches key on the setting ---------------------------------------------
def test_jit_retraces_when_the_setting_changes() -> None:
    traces: list[int] = []

    def f(x: Any) -> tdx.Array:
        traces.append(1)
        return tnp.add(x, tnp.ones(3))

    jf = tdx.jit(f)
    for _ in range(2):  # the second round takes the fast paths of both settings
        a = jf(np.arange(3.0))
        with tdx.config.context(enable_x64=False):
            b = jf(np.arange(3.0))
            c = jf(2.0)
        d = jf(2.0)
        assert [str(v.dtype) for v in (a, b, c, d)] == ["float64", "float32", "float32", "float64"]
        np.testing.assert_array_equal(np.asarray(b), [1.0, 2.0, 3.0])
    assert len(traces) == 4  # one per (types, setting), never again


def test_same_input_types_different_body_types_retrace() -> None:
    """A device float32 argument has one type under both settings; the
    body's ``zeros`` does not: the trace is keyed on the setting too."""
    jf = tdx.jit(lambda x: x.astype(np.int32).sum() + tnp.zeros(()))
    x = tdx.device_put(np.ones(3, np.float32))
    assert jf(x).dtype == np.float64
    with tdx.config.context(enable_x64=False):
        assert jf(x).dtype == np.float32
    assert jf(x).dtype == np.float64


def test_donation_under_x32() -> None:
    jf = tdx.jit(lambda x, y: x + y, donate_argnums=0)
    with tdx.config.context(enable_x64=False):
        for _ in range(2):
            x = tnp.asarray(np.arange(3.0))
            out = jf(x, np.ones(3))
            assert out.dtype == np.float32 and x.is_deleted()
            np.testing.assert_array_equal(np.asarray(out), [1.0, 2.0, 3.0])
