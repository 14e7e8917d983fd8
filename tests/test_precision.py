"""Matmul precision and ``preferred_element_type`` as JAX has them (issue 26):
``precision=`` and ``preferred_element_type=`` on ``lax.dot_general``,
``lax.dot``, ``tnp.dot``/``matmul``/``einsum``/``tensordot``/``inner``/
``vdot``; ``config``'s ``jax_default_matmul_precision`` and
``default_matmul_precision(...)``; the StableHLO ``precision_config``
compared with JAX's lowering of the same function for every spelling; the
param through the jaxpr text round trip, jvp, transpose and vmap; values
against JAX eagerly and under jit/grad/vmap; every error."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import parse_jaxpr
from typedax.core.errors import PrimitiveTypeError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

Arr = np.ndarray[Any, np.dtype[Any]]
RNG = np.random.default_rng(26)
X = RNG.standard_normal((3, 4)).astype(np.float32)
Y = RNG.standard_normal((4, 5)).astype(np.float32)
V = RNG.standard_normal(4).astype(np.float32)

SPELLINGS: list[Any] = [
    None, "default", "high", "highest", "bfloat16", "tensorfloat32", "float32", "fastest",
    "bfloat16_3x", "DEFAULT_PAIR", "HIGHEST_ENUM", ("highest", "high"), "ENUM_PAIR",
]


def _spell(p: Any, enum: Any) -> Any:
    """A spelling in either library's terms (its own ``lax.Precision``)."""
    named: dict[str, Any] = {"DEFAULT_PAIR": ("default", "default"), "HIGHEST_ENUM": enum.HIGHEST,
                             "ENUM_PAIR": (enum.DEFAULT, enum.HIGHEST)}
    return named.get(p, p) if isinstance(p, str) else p


def _products(lib: Any, lx: Any, p: Any) -> list[tuple[str, Callable[..., Any], tuple[Arr, ...]]]:
    """Each product function of a library with precision ``p``."""
    return [
        ("dot_general", lambda a, b: lx.dot_general(a, b, (((1,), (0,)), ((), ())), precision=p), (X, Y)),
        ("lax.dot", lambda a, b: lx.dot(a, b, precision=p), (X, Y)),
        ("dot", lambda a, b: lib.dot(a, b, precision=p), (X, Y)),
        ("matmul", lambda a, b: lib.matmul(a, b, precision=p), (X, Y)),
        ("matmul_vec", lambda a, b: lib.matmul(a, b, precision=p), (X, V)),
        ("einsum", lambda a, b: lib.einsum("ij,jk->ik", a, b, precision=p), (X, Y)),
        ("tensordot", lambda a, b: lib.tensordot(a, b, 1, precision=p), (X, Y)),
        ("inner", lambda a, b: lib.inner(a, b, precision=p), (X, X)),
        ("vdot", lambda a, b: lib.vdot(a, b, precision=p), (V, V)),
    ]


def _precisions(text: str) -> list[str]:
    """The ``precision = [..]`` of every dot_general in StableHLO text."""
    found = [re.search(r"precision = \[([A-Z, ]+)\]", line) for line in text.splitlines()
             if "stablehlo.dot_general" in line]
    return [m.group(1) if m else "(none)" for m in found]


@pytest.mark.parametrize("spelling", SPELLINGS, ids=str)
def test_lowered_precision_config_is_jaxs(spelling: Any) -> None:
    ours = _products(tnp, lax, _spell(spelling, lax.Precision))
    theirs = _products(jax.numpy, jax.lax, _spell(spelling, jax.lax.Precision))
    for (name, f, args), (_, g, _) in zip(ours, theirs):
        got = _precisions(tdx.jit(f).lower(*args).as_text())
        want = _precisions(jax.jit(g).lower(*args).as_text())
        assert got == want and got, (name, spelling, got, want)


def test_convolution_lowers_jaxs_precision_config() -> None:
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    k = RNG.standard_normal((3, 2, 2, 2)).astype(np.float32)
    for p in (None, "high", ("highest", "default")):
        got = tdx.jit(lambda a, b: lax.conv(a, b, (1, 1), "SAME", precision=p)).lower(x, k).as_text()
        want = jax.jit(lambda a, b: jax.lax.conv(a, b, (1, 1), "SAME", precision=p)).lower(x, k).as_text()
        pick = re.compile(r"precision_config = \[[^\]]*\]|precision = \[[^\]]*\]")
        assert pick.findall(got) == pick.findall(want) and pick.findall(got), (p, got, want)


@pytest.mark.parametrize("setting", ["default", "high", "highest", "bfloat16", "tensorfloat32", "float32"])
def test_default_matmul_precision_config_and_context_as_jaxs(setting: str) -> None:
    f = lambda a, b: a @ b  # noqa: E731
    with jax.default_matmul_precision(setting):
        want = _precisions(jax.jit(f).lower(X, Y).as_text())
    with tdx.default_matmul_precision(setting):
        assert tdx.config.default_matmul_precision == setting
        assert _precisions(tdx.jit(f).lower(X, Y).as_text()) == want
        # an explicit precision wins over the setting
        assert _precisions(tdx.jit(lambda a, b: tnp.matmul(a, b, precision="default")).lower(X, Y).as_text()) == ["DEFAULT, DEFAULT"]
    assert tdx.config.read("default_matmul_precision") is None
    tdx.config.update("jax_default_matmul_precision", setting)
    try:
        assert tdx.config.read("default_matmul_precision") == setting
        assert _precisions(tdx.jit(f).lower(X, Y).as_text()) == want
        with tdx.default_matmul_precision(None):  # a context may unset it, as JAX's
            assert _precisions(tdx.jit(f).lower(X, Y).as_text()) == ["DEFAULT, DEFAULT"]
    finally:
        tdx.config.update("jax_default_matmul_precision", None)
    assert _precisions(tdx.jit(f).lower(X, Y).as_text()) == ["DEFAULT, DEFAULT"]


def test_jit_retraces_per_precision_setting() -> None:
    traces: list[int] = []

    def f(a: tdx.Array, b: tdx.Array) -> tdx.Array:
        traces.append(1)
        return a @ b

    g = tdx.jit(f)
    x, y = tnp.asarray(X), tnp.asarray(Y)
    g(x, y)
    g(x, y)  # the fast path
    with tdx.default_matmul_precision("highest"):
        g(x, y)
        g(x, y)
        assert "HIGHEST" in str(g.trace(x, y).jaxpr)
    g(x, y)
    assert len(traces) == 2  # once per setting (the trace for None still cached after)
    np.testing.assert_allclose(np.asarray(g(x, y)), X @ Y, rtol=FLOAT_RTOL)


def test_precision_param_prints_parses_and_survives_transformations() -> None:
    p = ("HIGHEST", "HIGH")

    def f(a: Any, b: Any) -> tdx.Array:
        return tnp.sum(tnp.tanh(lax.dot(a, b, precision=("highest", "high"))))

    j = tdx.make_jaxpr(f)(X, Y).jaxpr
    assert 'precision=("HIGHEST", "HIGH")' in str(j)
    assert parse_jaxpr(str(j)) == j
    for jx_ in (tdx.make_jaxpr(tdx.grad(f, argnums=(0, 1)))(X, Y).jaxpr,
                tdx.make_jaxpr(tdx.vmap(f, in_axes=(0, None)))(np.stack([X, X]), Y).jaxpr,
                tdx.make_jaxpr(lambda a, b: tdx.jvp(f, (a, b), (a, b)))(X, Y).jaxpr):
        text = str(jx_)
        dots = [line for line in text.splitlines() if "dot_general" in line]
        assert dots and all(f"precision={p!r}".replace("'", '"') in d for d in dots), text
        assert parse_jaxpr(text) == jx_


def _pet_cases() -> list[tuple[str, Arr, Arr, Any]]:
    h = RNG.standard_normal((3, 4)).astype(np.float16)
    hk = RNG.standard_normal((4, 2)).astype(np.float16)
    i8 = RNG.integers(-128, 128, (3, 40)).astype(np.int8)
    i8k = RNG.integers(-128, 128, (40, 2)).astype(np.int8)
    return [
        ("f16->f32", h, hk, np.float32),
        ("f32->f64", X, Y, np.float64),
        ("i8->i32", i8, i8k, np.int32),
        ("i8->i16 wraps", i8, i8k, np.int16),
        ("i8->f32", i8, i8k, np.float32),
    ]


#: A float product's tolerance against JAX's: on the CPU XLA computes at full
#: precision; on a GPU the default precision lets a float32 product run in
#: TF32 (JAX's eager dispatch does; typedax's eager products are NumPy's)
FLOAT_RTOL = 1e-6 if tdx.default_backend() == "cpu" else 2e-3


@pytest.mark.parametrize("case", _pet_cases(), ids=lambda c: c[0])
def test_preferred_element_type_values_as_jaxs(case: tuple[str, Arr, Arr, Any]) -> None:
    _, a, b, pet = case
    want = np.asarray(jax.lax.dot(a, b, preferred_element_type=pet))
    for f in (lambda u, v: lax.dot(u, v, preferred_element_type=pet),
              lambda u, v: tnp.matmul(u, v, preferred_element_type=pet),
              lambda u, v: tnp.einsum("ij,jk->ik", u, v, preferred_element_type=pet),
              lambda u, v: tnp.tensordot(u, v, 1, preferred_element_type=pet)):
        runs: list[Callable[..., Any]] = [f, tdx.jit(f)]
        for g in runs:
            got = np.asarray(g(a, b))
            assert got.dtype == want.dtype
            _close_to_jaxs(got, want)
    # vmap over the rows, against JAX's
    got = np.asarray(tdx.vmap(lambda r: lax.dot(r, b, preferred_element_type=pet))(a))
    _close_to_jaxs(got, want)


def _close_to_jaxs(got: Arr, want: Arr) -> None:
    """Equal for integers; for floats within ``FLOAT_RTOL`` of the largest
    entry (a TF32 product's error is relative to its terms, not its sum)."""
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    scale = float(np.max(np.abs(want.astype(np.float64)), initial=0.0))
    np.testing.assert_allclose(got, want, rtol=FLOAT_RTOL, atol=FLOAT_RTOL * scale if FLOAT_RTOL > 1e-6 else 0)


def test_grad_with_preferred_element_type_as_jaxs() -> None:
    a = RNG.standard_normal((3, 4)).astype(np.float16)
    b = RNG.standard_normal((4, 2)).astype(np.float16)

    def loss(lib: Any, lx: Any) -> Callable[..., Any]:
        return lambda u, v: lib.sum(lib.sin(lx.dot(u, v, precision="highest", preferred_element_type=np.float32)))

    want = jax.grad(loss(jax.numpy, jax.lax), argnums=(0, 1))(a, b)
    grads: list[Callable[..., Any]] = [tdx.grad(loss(tnp, lax), argnums=(0, 1)),
                                       tdx.jit(tdx.grad(loss(tnp, lax), argnums=(0, 1)))]
    for g in grads:
        got = g(a, b)
        for x, y in zip(got, want):
            assert x.dtype == y.dtype == np.float16
            np.testing.assert_allclose(np.asarray(x, np.float32), np.asarray(y, np.float32), rtol=2e-3, atol=2e-3)
    text = str(tdx.make_jaxpr(tdx.grad(loss(tnp, lax), argnums=(0, 1)))(a, b).jaxpr)
    assert text.count('precision=("HIGHEST", "HIGHEST")') == 3, text  # the product and its two transposes


def test_f32_matmul_every_precision_as_jaxs() -> None:
    """Each precision's float32 product equals JAX's, under ``jit`` and
    eagerly. On the CPU XLA computes float32 products at full precision
    whatever the precision says, so all are one value there, and the eager
    NumPy product (``host_matmul``, which ignores precision) is a
    full-precision product too, equal up to the summation order. On a GPU
    ``None``/``'default'`` are TF32 (JAX's default there) and eager
    evaluation is XLA's on the GPU, so eager equals JAX's eager bit for bit."""
    a = RNG.standard_normal((64, 128)).astype(np.float32)
    b = RNG.standard_normal((128, 32)).astype(np.float32)
    full = a.astype(np.float64) @ b.astype(np.float64)
    on_cpu = tdx.default_backend() == "cpu"
    highest = np.asarray(tdx.jit(lambda u, v: tnp.matmul(u, v, precision="highest"))(a, b))
    np.testing.assert_allclose(highest, full, rtol=1e-5, atol=2e-5)
    for p in (None, "default", "high", "highest"):
        jitted = np.asarray(tdx.jit(lambda u, v: tnp.matmul(u, v, precision=p))(a, b))
        np.testing.assert_array_equal(jitted, np.asarray(jax.jit(lambda u, v: jax.numpy.matmul(u, v, precision=p))(a, b)))
        eager = np.asarray(tnp.matmul(a, b, precision=p))
        if on_cpu:
            np.testing.assert_array_equal(jitted, highest)
            np.testing.assert_allclose(eager, full, rtol=1e-5, atol=2e-5)
        else:
            np.testing.assert_array_equal(eager, np.asarray(jax.numpy.matmul(a, b, precision=p)))


def test_precision_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"dot_general: precision must be None, a lax.Precision.*'fast'"):
        lax.dot_general(X, Y, (((1,), (0,)), ((), ())), precision="fast")
    with pytest.raises(PrimitiveTypeError, match=r"matmul: precision must be a pair"):
        tnp.matmul(X, Y, precision=("high", "high", "high"))  # type: ignore[arg-type]  # the error under test
    # JAX's error class (ValueError), and its refusal of a mixed or None-holding pair
    for bad in ("fast", (lax.Precision.DEFAULT, "float32"), ("high", None)):
        with pytest.raises(ValueError):
            jax.numpy.matmul(X, Y, precision=_spell(bad, jax.lax.Precision))
        with pytest.raises(ValueError, match=r"matmul: (precision must be None|a precision pair must be two)"):
            tnp.matmul(X, Y, precision=bad)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(PrimitiveTypeError, match=r"preferred_element_type float16 must not be narrower than float32"):
        lax.dot(X, Y, preferred_element_type=np.float16)
    with pytest.raises(PrimitiveTypeError, match=r"input type float32 is incompatible with preferred_element_type int32"):
        tnp.dot(X, Y, preferred_element_type=np.int32)
    with pytest.raises(ValueError, match=r"jax_default_matmul_precision must be None or one of .*'fast'"):
        tdx.config.update("jax_default_matmul_precision", "fast")
    with pytest.raises(ValueError, match=r"dot-algorithm presets are not supported"):
        tdx.config.update("jax_default_matmul_precision", "F32_F32_F32")
    with pytest.raises(ValueError, match=r"default_matmul_precision must be None or one of"):
        with tdx.default_matmul_precision(3):  # type: ignore[arg-type]  # the error under test
            pass
    assert tdx.config.default_matmul_precision is None
    # a hand-written equation with a bad param names the param
    bad = "{ lambda a:float32[3,4] b:float32[4,5] .\n  let c:float32[3,5] = dot_general [ dimension_numbers=(((1,), (0,)), ((), ())), precision=(\"HIGHEST\", \"FAST\"), preferred_element_type=None ] a b\n  in ( c ) }"
    with pytest.raises(Exception, match=r"dot_general: param 'precision' must be None or a pair of precision names"):
        parse_jaxpr(bad)
