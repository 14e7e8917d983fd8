"""Weak types (``ShapedArray.weak_type``, ``core/weak.py``), with JAX as the
oracle: a value computed from Python scalars only stays weakly typed, so the
strong array it meets keeps its dtype (``x_f32 / tnp.sqrt(32.0)`` is
float32), eagerly, under ``jit`` (Python scalar arguments too), ``vmap`` and
``grad``, with x64 on and off; ``==``, hashing, printing and the compile
cache ignore the flag, ``jit``'s dispatch does not."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
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
from typedax.core.avals import ShapedArray
from typedax.core.errors import PrimitiveTypeError
from typedax.core.weak import WEAK_OPERANDS
from typedax.registry import REGISTRY

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

X32 = np.ones(3, np.float32)
I32 = np.arange(3, dtype=np.int32)
F16 = np.ones(3, np.float16)

#: (name, f(np_module, lax_module, x)): each is run with (tnp, typedax.lax) and
#: (jnp, jax.lax) on the same ``x``; the result's dtype and weak flag must agree
CASES: list[tuple[str, Callable[[Any, Any, Any], Any]]] = [
    ("sqrt of a float", lambda np_, lx, x: np_.sqrt(32.0)),
    ("sqrt of an int", lambda np_, lx, x: np_.sqrt(2)),
    ("f32 / sqrt(32.0)", lambda np_, lx, x: x / np_.sqrt(32.0)),
    ("f32 * exp(1.0)", lambda np_, lx, x: x * np_.exp(1.0)),
    ("f32 * sqrt(len)", lambda np_, lx, x: x * np_.sqrt(x.shape[0])),
    ("asarray(2.0)", lambda np_, lx, x: np_.asarray(2.0)),
    ("array(2)", lambda np_, lx, x: np_.array(2)),
    ("f32 * asarray(2.0)", lambda np_, lx, x: x * np_.asarray(2.0)),
    ("asarray(2.0, float64)", lambda np_, lx, x: np_.asarray(2.0, dtype=np_.float64)),
    ("f32 * asarray(2.0, float64)", lambda np_, lx, x: x * np_.asarray(2.0, dtype=np_.float64)),
    ("weak * weak", lambda np_, lx, x: np_.sqrt(2.0) * np_.sqrt(3.0)),
    ("weak int * float", lambda np_, lx, x: np_.asarray(3) * 2.5),
    ("weak int / int", lambda np_, lx, x: np_.asarray(3) / 2),
    ("weak float + int", lambda np_, lx, x: np_.sqrt(2.0) + 1),
    ("weak + strong f64", lambda np_, lx, x: np_.sqrt(2.0) + np.float64(1.0)),
    ("weak int + i32", lambda np_, lx, x: np_.asarray(2) + np.int32(1)),
    ("i32 * weak float", lambda np_, lx, x: I32 * np_.sqrt(2.0)),
    ("f16 * weak", lambda np_, lx, x: F16 * np_.exp(0.5)),
    ("where of scalars", lambda np_, lx, x: np_.where(True, 1.0, 2.0)),
    ("where(mask, 1.0, 2.0)", lambda np_, lx, x: np_.where(x > 0, 1.0, 2.0)),
    ("broadcast_to(weak)", lambda np_, lx, x: np_.broadcast_to(np_.sqrt(2.0), (3,))),
    ("sum(2.0) is strong", lambda np_, lx, x: np_.sum(2.0)),
    ("x + sum(weak)", lambda np_, lx, x: x + np_.sum(np_.sqrt(2.0))),
    ("astype of weak is strong", lambda np_, lx, x: np_.sqrt(2.0).astype(np_.float64)),
    ("lax.mul(weak, 2.0)", lambda np_, lx, x: lx.mul(np_.sqrt(2.0), 2.0)),
    ("x * (2.0 * pi)", lambda np_, lx, x: x * (2.0 * math.pi)),
    ("maximum(weak, 0)", lambda np_, lx, x: np_.maximum(np_.sqrt(2.0), 0)),
    ("f32 - log(weak)", lambda np_, lx, x: x - np_.log(np_.asarray(2.0) + 1.0)),
    ("comparison of weak", lambda np_, lx, x: (np_.sqrt(2.0) > 1) & (x > 0)),
    ("full((3,), 2.0)", lambda np_, lx, x: np_.full((3,), 2.0)),
    ("f32 * full((3,), 2.0)", lambda np_, lx, x: x * np_.full((3,), 2.0)),
    ("full((3,), 2.0, float64)", lambda np_, lx, x: np_.full((3,), 2.0, np_.float64)),
    ("full_like(weak, 3)", lambda np_, lx, x: np_.full_like(np_.asarray(2.0), 3)),
    ("zeros_like(weak)", lambda np_, lx, x: np_.zeros_like(np_.sqrt(2.0))),
    ("ones_like(f32)", lambda np_, lx, x: np_.ones_like(x)),
    ("weak[0]", lambda np_, lx, x: np_.full((3,), 1.0)[0]),
    ("weak.at[0].set(2.0)", lambda np_, lx, x: np_.full((3,), 1.0).at[0].set(2.0)),
    ("weak.at[0].set(f64)", lambda np_, lx, x: np_.full((3,), 1.0).at[0].set(np.float64(2.0))),
    ("weak @ weak", lambda np_, lx, x: np_.full((2, 2), 1.0) @ np_.full((2,), 1.0)),
    ("hypot of scalars", lambda np_, lx, x: np_.hypot(3.0, 4.0)),
    ("f32 * deg2rad(90.0)", lambda np_, lx, x: x * np_.deg2rad(90.0)),
    ("logaddexp of scalars", lambda np_, lx, x: np_.logaddexp(1.0, 2.0)),
    ("sinc of a scalar", lambda np_, lx, x: np_.sinc(0.5)),
    ("concatenate weak", lambda np_, lx, x: np_.concatenate([np_.full((1,), 1.0), np_.full((1,), 2.0)])),
]


def _both(f: Callable[[Any, Any, Any], Any]) -> tuple[Any, Any]:
    return f(tnp, lax, tnp.asarray(X32)), f(jnp, jax.lax, jnp.asarray(X32))


@pytest.mark.parametrize("name,f", CASES, ids=[c[0] for c in CASES])
def test_eager_dtype_and_weak_flag_match_jax(name: str, f: Callable[[Any, Any, Any], Any]) -> None:
    ours, theirs = _both(f)
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type), name
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)


@pytest.mark.parametrize("name,f", CASES, ids=[c[0] for c in CASES])
def test_jit_dtype_and_weak_flag_match_jax(name: str, f: Callable[[Any, Any, Any], Any]) -> None:
    ours = tdx.jit(lambda x: f(tnp, lax, x))(X32)
    theirs = jax.jit(lambda x: f(jnp, jax.lax, x))(X32)
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type), name


@pytest.fixture
def x32() -> Iterator[None]:
    jax.config.update("jax_enable_x64", False)  # type: ignore[no-untyped-call]  # jax's config is untyped
    try:
        with tdx.config.context(enable_x64=False):
            yield
    finally:
        jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # as above


@pytest.mark.parametrize("name,f", CASES, ids=[c[0] for c in CASES])
def test_x32_dtype_and_weak_flag_match_jax(x32: None, name: str, f: Callable[[Any, Any, Any], Any]) -> None:
    ours, theirs = _both(f)
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type), name
    jitted = tdx.jit(lambda x: f(tnp, lax, x))(X32)
    assert (jitted.dtype, jitted.weak_type) == (theirs.dtype, theirs.weak_type), name


def test_python_scalar_arguments_of_jit_are_weak_and_keyed_apart() -> None:
    """``jit(f)(x, 0.1)`` stages a weak scalar (a learning rate keeps float32
    parameters float32); a 0-d float64 array of the same value is strong and
    must not be served the weak trace's executable, nor the other way round."""
    f = tdx.jit(lambda x, s: x * s)
    jf = jax.jit(lambda x, s: x * s)
    for s in (0.5, np.array(0.5), 0.5, "weak", np.array(0.5), 2, np.array(2)):
        ours = f(X32, tnp.asarray(0.5) if s == "weak" else s)
        theirs = jf(X32, jnp.asarray(0.5) if s == "weak" else s)
        assert ours.dtype == theirs.dtype, type(s)
    g = tdx.jit(lambda s: s * 2)
    assert g(2.0).weak_type and not g(np.array(2.0)).weak_type and g(2.0).weak_type
    # the compile cache shares the executable; the flags are each jaxpr's own
    assert repr(g(2.0)) == "Array(4., dtype=float64, weak_type=True)"
    assert repr(g(np.array(2.0))) == "Array(4., dtype=float64)"


def test_weak_results_of_jit_feed_the_next_call() -> None:
    """A weak result passed back to jit stays weak (its own dispatch key)."""
    step = tdx.jit(lambda w, lr: w - lr * w)
    lr = tnp.asarray(0.1)  # weak, as jnp.asarray(0.1)
    w = tnp.asarray(X32)
    for _ in range(3):
        w = step(w, lr)
    assert w.dtype == np.float32
    half = tdx.jit(lambda s: s / 2)(lr)
    assert half.weak_type and (X32 * half).dtype == np.float32


def test_vmap_and_grad_keep_float32() -> None:
    """The attention scale of a float32 model stays float32 under every
    transformation (the transformer block of benchmarks/numpy_block.py)."""

    def loss(w: tdx.Array) -> tdx.Array:
        return tnp.sum(tnp.tanh(w / tnp.sqrt(w.shape[-1])) * (1.0 / math.sqrt(2)))

    w = tnp.asarray(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    assert tdx.grad(loss)(w).dtype == np.float32
    assert tdx.jit(tdx.grad(loss))(w).dtype == np.float32
    assert tdx.vmap(loss)(w).dtype == np.float32
    expected = jax.grad(lambda w: jnp.sum(jnp.tanh(w / jnp.sqrt(w.shape[-1])) * (1.0 / math.sqrt(2))))(
        np.asarray(w))
    np.testing.assert_allclose(np.asarray(tdx.grad(loss)(w)), np.asarray(expected), rtol=1e-6)


def test_the_flag_is_not_part_of_equality_printing_or_the_jaxpr() -> None:
    a = ShapedArray((2,), np.dtype(np.float64))
    w = a.weakened()
    assert w.weak_type and not a.weak_type and w == a and hash(w) == hash(a)
    assert a.weakened(False) is a and w.weakened(False) == a and not w.weakened(False).weak_type
    assert ShapedArray((), np.dtype(np.bool_)).weakened().weak_type is False  # no weak bool
    j_weak = tdx.make_jaxpr(lambda s: s * 2.0)(1.0)
    j_strong = tdx.make_jaxpr(lambda s: s * 2.0)(np.float64(1.0))
    assert j_weak.jaxpr.in_avals[0].weak_type and not j_strong.jaxpr.in_avals[0].weak_type
    assert str(j_weak) == str(j_strong) and j_weak.jaxpr == j_strong.jaxpr
    # the staged program is the one JAX stages: promotion happened while tracing
    assert "convert_element_type" in str(tdx.make_jaxpr(lambda x: x * tnp.sqrt(2.0))(X32))


def test_lax_refuses_a_weak_array_of_another_dtype_as_jax() -> None:
    """jax.lax promotes Python scalars, not weakly typed arrays."""
    with pytest.raises(TypeError):
        jax.lax.mul(X32, jnp.sqrt(2.0))
    with pytest.raises(PrimitiveTypeError, match="mul"):
        lax.mul(X32, tnp.sqrt(2.0))


def test_every_name_in_the_rule_is_a_primitive() -> None:
    names = {p.name for p in REGISTRY.primitives()}
    assert set(WEAK_OPERANDS) <= names, sorted(set(WEAK_OPERANDS) - names)


LOOPS: list[tuple[str, Callable[[Any, Any, Any], Any]]] = [
    ("scan from 0.0", lambda np_, lx, x: lx.scan(lambda c, a: (c + a, None), 0.0, x)[0]),
    ("fori_loop from 0.0", lambda np_, lx, x: lx.fori_loop(0, 3, lambda i, c: c + x[i], 0.0)),
    ("while_loop from 0.0", lambda np_, lx, x: lx.while_loop(lambda c: c < 10, lambda c: c + x[0], 0.0)),
    ("scan int carry", lambda np_, lx, x: lx.scan(lambda c, a: (c + 1, a * c), 0, x)[1]),
    ("scan weak carry kept", lambda np_, lx, x: lx.scan(lambda c, a: (c * 0.5, a), 1.0, x)[0]),
]


@pytest.mark.parametrize("name,f", LOOPS, ids=[c[0] for c in LOOPS])
def test_loops_promote_a_weak_initial_carry_as_jax(name: str, f: Callable[[Any, Any, Any], Any]) -> None:
    """``scan(lambda c, x: (c + x, None), 0.0, xs_f32)`` carries float32: the
    weak ``0.0`` takes the body's dtype and the body is traced again (JAX's
    ``_promote_weak_typed_inputs``)."""
    ours, theirs = _both(f)
    assert ours.dtype == theirs.dtype, name
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)
    jitted = tdx.jit(lambda x: f(tnp, lax, x))(X32)
    assert jitted.dtype == theirs.dtype, name


def test_cond_result_is_weak_only_if_both_branches_are() -> None:
    both: tdx.Array = lax.cond(True, lambda: tnp.sqrt(2.0), lambda: tnp.sqrt(3.0))
    one = tdx.jit(lambda: lax.cond(True, lambda: tnp.sqrt(2.0), lambda: np.float64(1.0)))()
    assert isinstance(one, tdx.Array) and both.weak_type and not one.weak_type


_DTYPES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "bfloat16", "float32", "float64"]
_KINDS = ["py_int", "py_float", "weak_int", "weak_float", *_DTYPES]


def _operand(kind: str, np_: Any) -> Any:
    if kind == "py_int":
        return 3
    if kind == "py_float":
        return 1.5
    if kind == "weak_int":
        return np_.asarray(3) + 0
    if kind == "weak_float":
        return np_.sqrt(2.25)
    return np_.asarray(np.ones(2), dtype=getattr(np_, kind))


@given(st.sampled_from(_KINDS), st.sampled_from(_KINDS),
       st.sampled_from(["add", "multiply", "subtract", "maximum", "where"]))
@ci_examples(25, otherwise=50, deadline=None)
def test_binary_promotion_with_weak_operands_matches_jax(a: str, b: str, op: str) -> None:
    """Every pair of operand kinds -- Python scalars, weak arrays, strong
    arrays of each dtype -- gives JAX's result dtype and weak flag (or both
    refuse), eagerly and under jit."""
    def run(np_: Any) -> Any:
        x, y = _operand(a, np_), _operand(b, np_)
        if op == "where":
            return np_.where(True, x, y)
        return getattr(np_, op)(x, y)

    try:
        theirs = run(jnp)
    except TypeError:
        with pytest.raises(TypeError):
            run(tnp)
        return
    ours = run(tnp)
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type), (a, b, op)
    jitted = tdx.jit(lambda: run(tnp))()
    assert (jitted.dtype, jitted.weak_type) == (theirs.dtype, theirs.weak_type), (a, b, op, "jit")


def test_gradients_have_their_primal_s_weak_flag_as_jax() -> None:
    """``grad(jnp.tanh)(2.0)`` prints ``Array(0.0706..., dtype=float64, weak_type=True)``
    in JAX's docs; so here."""
    pairs = [
        (tdx.grad(tnp.tanh)(2.0), jax.grad(jnp.tanh)(2.0)),
        (tdx.jit(tdx.grad(tnp.tanh))(2.0), jax.jit(jax.grad(jnp.tanh))(2.0)),
        (tdx.value_and_grad(lambda x: x * x)(2.0)[1], jax.value_and_grad(lambda x: x * x)(2.0)[1]),
    ]
    def mul(x: tdx.ArrayLike, y: tdx.ArrayLike) -> tdx.Array:
        return tnp.multiply(x, y)

    two = tdx.grad(mul, argnums=(0, 1))(2.0, tnp.float32(3.0))
    two_j = jax.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, jnp.float32(3.0))
    pairs += list(zip(two, two_j))
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)


def test_review_findings_weak_flags_do_not_leak_between_equal_programs() -> None:
    """Review findings, each a silent float32-for-float64 before its fix:
    jit's transformation caches keyed by jaxprs that compare without weak
    flags; a weak initial carry kept on a loop's strong result; asarray of a
    NumPy float64 (a float subclass) taken for a Python float; a weak operand
    left weak beside a strong one of its dtype."""
    f32 = np.ones(2, np.float32)
    g = tdx.jit(lambda y: y * 2)
    tdx.jvp(g, (1.0,), (1.0,))  # caches the weak version first
    p, _ = tdx.jvp(g, (np.float64(1),), (np.float64(1),))
    assert (p * f32).dtype == np.float64
    tdx.vmap(g)(tnp.full((2,), 1.0))
    assert (tdx.vmap(g)(np.ones(2)) * f32).dtype == np.float64
    xs = tnp.asarray(np.arange(1.0, 4.0))
    c, _ = lax.scan(lambda c, x: (c + x, None), 0.0, xs)
    assert (c * f32).dtype == np.float64
    assert (lax.fori_loop(0, 3, lambda i, c: c + xs[i], 0.0) * f32).dtype == np.float64
    assert (lax.while_loop(lambda c: c < 3, lambda c: c + xs[0], 0.0) * f32).dtype == np.float64
    ys: Any = lax.scan(lambda c, x: (c, c * 2.0), tnp.asarray(1.0), None, length=2)[1]
    assert ys.weak_type  # the body's y is weak (asarray(1.0) is), as JAX's
    assert (tnp.asarray(np.float64(1.1)) * f32).dtype == np.float64
    assert (tnp.copysign(tnp.asarray(2.0), np.ones(2)) * f32).dtype == np.float64


def test_grad_with_x64_off_stages_canonical_literals(x32: None) -> None:
    """``grad(lambda x: x * 2)(1.0)`` with x64 off: the Python ``2`` is a
    float32 literal in the linearized program (it was a float64 one, and the
    multiplication refused it)."""
    for f in (lambda x: x * 2, lambda x: x + x * 3.0):
        ours, theirs = tdx.grad(f)(1.0), jax.grad(f)(1.0)
        assert repr(ours) == repr(theirs)
        assert repr(tdx.jit(tdx.grad(f))(1.0)) == repr(theirs)
