"""Binary elementwise primitives with a rank-0 operand beside an operand of
any shape (JAX's n-ary rule: ``mul a 2.0:f32[]``), on either side: every
rule -- evaluation (NumPy as the oracle, and the same primitive on the
explicitly broadcast operands), ``jit`` (the lowering broadcasts), ``vmap``
(a batched and an unbatched scalar) against a loop, derivatives against
finite differences, the transposes' dot-product test, abstract evaluation
with the jaxpr text and typecheck, and weak types."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import Jaxpr, eval_jaxpr, parse_jaxpr, typecheck_jaxpr
from typedax.core.avals import ShapedArray
from typedax.core.errors import JaxprTypeError, PrimitiveTypeError
from typedax.core.ir import NO_PARAMS, Eqn, Lit, Primitive, Var
from typedax.core.trace import Value, aval_of, bind1
from typedax.interpreters.transpose import transpose_jaxpr
from typedax.primitives import bitwise, special
from typedax.registry import REGISTRY

from _examples import ci_cover, ci_examples

Arr = Any  # NumPy arrays of any dtype (NumPy's stubs type arithmetic per kind)

F64, F32, I32, BOOL = np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.bool_)

# no tiny magnitudes: XLA flushes subnormal results to zero, NumPy does not
ANY_F = st.floats(-3.0, 3.0).map(lambda v: 0.0 if abs(v) < 1e-100 else v)
NONZERO_F = st.floats(0.25, 3.0) | st.floats(-3.0, -0.25)
POSITIVE_F = st.floats(0.25, 3.0)
ANY_I = st.integers(-9, 9)
NONZERO_I = st.integers(1, 9) | st.integers(-9, -1)
BITS_I = st.integers(-100, 100)
NONNEG_I = st.integers(0, 1000)
AMOUNT = st.integers(0, 31)  # shift amounts below the bit width: NumPy's shifts agree with XLA's


def _trunc_div(x: Arr, y: Arr) -> Arr:
    return np.trunc(x.astype(np.float64) / y.astype(np.float64)).astype(x.dtype)


@dataclass(frozen=True)
class Case:
    prim: Primitive
    dtype: np.dtype[Any]
    left: st.SearchStrategy[Any]
    right: st.SearchStrategy[Any]
    ref: Callable[[Arr, Arr], Arr]

    def __str__(self) -> str:
        return f"{self.prim.name}-{self.dtype}"


def _p(name: str) -> Primitive:
    return REGISTRY[name]


def _complex(x: Arr, y: Arr) -> Arr:
    """``x + y * 1j`` part by part (``y * 1j`` would make ``inf * 1j`` NaN)."""
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), np.complex128)
    out.real, out.imag = x, y
    return out


C128 = np.dtype(np.complex128)

_COMPARISONS = {
    "greater": np.greater, "less": np.less, "ge": np.greater_equal, "le": np.less_equal,
    "eq": np.equal, "ne": np.not_equal,
}

CASES: list[Case] = [
    *(Case(_p(n), d, e, e, f) for n, f in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                                             ("max", np.maximum), ("min", np.minimum))
      for d, e in ((F64, ANY_F), (I32, ANY_I))),
    Case(_p("max"), BOOL, st.booleans(), st.booleans(), np.maximum),
    Case(_p("div"), F64, ANY_F, NONZERO_F, np.divide),
    Case(_p("div"), I32, ANY_I, NONZERO_I, _trunc_div),
    Case(_p("rem"), F64, ANY_F, NONZERO_F, np.fmod),
    Case(_p("rem"), I32, ANY_I, NONZERO_I, np.fmod),
    Case(_p("pow"), F64, POSITIVE_F, ANY_F, np.power),
    *(Case(_p(n), d, e, e, f) for n, f in _COMPARISONS.items() for d, e in ((F64, ANY_F), (I32, ANY_I))),
    *(Case(p, d, e, e, f) for p, f in ((bitwise.and_p, np.bitwise_and), (bitwise.or_p, np.bitwise_or),
                                       (bitwise.xor_p, np.bitwise_xor))
      for d, e in ((I32, BITS_I), (BOOL, st.booleans()))),
    Case(bitwise.shift_left_p, I32, BITS_I, AMOUNT, np.left_shift),
    Case(bitwise.shift_right_logical_p, I32, NONNEG_I, AMOUNT, np.right_shift),
    Case(bitwise.shift_right_arithmetic_p, I32, BITS_I, AMOUNT, np.right_shift),
    Case(special.atan2_p, F64, ANY_F, ANY_F, np.arctan2),
    Case(special.nextafter_p, F64, NONZERO_F, ANY_F, np.nextafter),  # from 0 it is subnormal
    Case(_p("complex"), F64, ANY_F, ANY_F, _complex),
]

#: Every two-operand elementwise primitive of the registry is covered.
BINARY_NAMES = {
    "add", "sub", "mul", "div", "rem", "pow", "max", "min", *_COMPARISONS, "and", "or", "xor",
    "shift_left", "shift_right_logical", "shift_right_arithmetic", "atan2", "nextafter", "complex",
}

SHAPES = st.sampled_from([(1,), (3,), (2, 3), (2, 1, 2)])
SIDES = ("scalar_left", "scalar_right")
# fewer examples under make test's ci profile (tests/_examples.py), the same elsewhere
FEW = ci_examples(8, otherwise=25)  # each example compiles, or differentiates numerically
SOME = ci_examples(12, otherwise=50)  # each example traces (and 82 cases)


def test_every_binary_elementwise_primitive_is_covered() -> None:
    assert {c.prim.name for c in CASES} == BINARY_NAMES
    from typedax.primitives.elementwise import _binary_batch

    # the primitives whose batching is the binary elementwise rule are exactly these
    batched_binary = {
        name for name, p in REGISTRY.items()
        if getattr(p.rules.batch, "__qualname__", "").startswith(_binary_batch.__qualname__)
    }
    assert batched_binary == BINARY_NAMES


@st.composite
def operands(draw: st.DrawFn, case: Case, side: str, batch: int = 0) -> tuple[Arr, Arr]:
    """``(left, right)``: the array (of a drawn shape, with ``batch``
    leading rows when given) and the rank-0 operand (``[batch]`` when given)."""
    shape = draw(SHAPES)
    lead = (batch,) if batch else ()
    arr_el, sc_el = (case.right, case.left) if side == "scalar_left" else (case.left, case.right)
    size = int(np.prod(lead + shape))
    arr = np.asarray(draw(st.lists(arr_el, min_size=size, max_size=size)), case.dtype).reshape(lead + shape)
    n = batch or 1
    sc = np.asarray(draw(st.lists(sc_el, min_size=n, max_size=n)), case.dtype).reshape(lead)
    return (sc, arr) if side == "scalar_left" else (arr, sc)


def _bind(prim: Primitive) -> Callable[[Value, Value], Value]:
    return lambda a, b: bind1(prim, (a, b), NO_PARAMS)


def _assert_same(got: object, want: Arr, exact: bool = True) -> None:
    g = np.asarray(got)
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape, want.dtype)
    if exact or want.dtype.kind != "f":
        np.testing.assert_array_equal(g, want)
    else:
        np.testing.assert_allclose(g, want, rtol=1e-13, atol=1e-15)


# -- evaluation, and jit ---------------------------------------------------------------
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_eager_matches_numpy_and_the_broadcast_operands(case: Case, side: str, data: st.DataObject) -> None:
    a, b = data.draw(operands(case, side))
    got = bind1(case.prim, (a, b), NO_PARAMS)
    shape = np.broadcast_shapes(a.shape, b.shape)
    out_dtype = BOOL if case.prim.name in _COMPARISONS else C128 if case.prim.name == "complex" else case.dtype
    with np.errstate(all="ignore"):
        want = np.asarray(case.ref(a, b), out_dtype)
    # eager pow is XLA's (the C library's pow, as under jit): NumPy's own is an ulp off at times
    _assert_same(got, want, exact=case.prim.name != "pow")
    # the same as the primitive on the operands broadcast explicitly (the old rule)
    spread = bind1(case.prim, (np.broadcast_to(a, shape), np.broadcast_to(b, shape)), NO_PARAMS)
    _assert_same(got, np.asarray(spread))


@FEW
# ci: each case on one side, the sides alternating over the cases; make test-long runs both sides of each
@pytest.mark.parametrize("case,side", ci_cover(CASES, SIDES))
@given(data=st.data())
def test_jit_matches_eager(case: Case, side: str, data: st.DataObject) -> None:
    a, b = data.draw(operands(case, side))
    f = _bind(case.prim)
    # XLA computes x / broadcast(s) as x * broadcast(1 / s) (JAX's jit too): an ulp off NumPy's
    _assert_same(tdx.jit(f)(a, b), np.asarray(f(a, b)), exact=case.prim.name not in ("pow", "atan2", "div"))


def test_lowering_broadcasts_the_scalar_operand() -> None:
    x, s = np.arange(3.0), np.float64(2.0)
    for f in (lax.mul, lax.gt, lax.atan2):
        text = tdx.jit(f).lower(x, s).as_text()
        assert "stablehlo.broadcast_in_dim" in text
        _assert_same(tdx.jit(f)(x, s), np.asarray(f(x, s)))
        _assert_same(tdx.jit(f)(s, x), np.asarray(f(s, x)))


def test_half_precision_scalar_operand() -> None:
    x = np.asarray([0.1, 1.5, -2.25], np.float16)
    s = np.float16(3.3)
    for p in (_p("add"), _p("mul"), _p("div"), special.nextafter_p):
        for a, b in ((x, s), (s, x)):
            got = bind1(p, (a, b), NO_PARAMS)
            assert aval_of(got) == ShapedArray((3,), np.dtype(np.float16))
            jitted = np.asarray(tdx.jit(_bind(p))(a, b))
            if p.name == "div":  # XLA's x * (1 / s): within an ulp of float16
                np.testing.assert_allclose(jitted.astype(F64), np.asarray(got, F64), rtol=2.0**-10)
            else:
                _assert_same(jitted, np.asarray(got))


# -- vmap ------------------------------------------------------------------------------
B = 3


def _loop(f: Callable[[Value, Value], Value], a: Arr, b: Arr, axes: tuple[int | None, int | None]) -> Arr:
    def take(v: Arr, ax: int | None, i: int) -> Arr:
        return v if ax is None else np.take(v, i, axis=ax)

    return np.stack([np.asarray(f(take(a, axes[0], i), take(b, axes[1], i))) for i in range(B)])


@SOME
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("case", CASES, ids=str)
@given(data=st.data())
def test_vmap_matches_a_loop(case: Case, side: str, data: st.DataObject) -> None:
    """A batched scalar (``[B]``) beside an unbatched or batched array (at
    axis 0 or the last), and an unbatched scalar beside a batched array."""
    f = _bind(case.prim)
    sa, sb = data.draw(operands(case, side, batch=B))  # both batched at 0
    sc_i = 0 if side == "scalar_left" else 1
    arr = (sa, sb)[1 - sc_i]
    sc = (sa, sb)[sc_i]
    arr_axis = data.draw(st.sampled_from([0, arr.ndim - 1]))
    arr_b = np.moveaxis(arr, 0, arr_axis)
    mode = data.draw(st.sampled_from(["batched scalar, batched array", "batched scalar, unbatched array",
                                      "unbatched scalar, batched array"]))
    if mode == "batched scalar, unbatched array":
        args, axes = [sc, arr[0]], [0, None]
    elif mode == "unbatched scalar, batched array":
        args, axes = [sc[0], arr_b], [None, arr_axis]
    else:
        args, axes = [sc, arr_b], [0, arr_axis]
    if sc_i == 1:
        args, axes = args[::-1], axes[::-1]
    got = tdx.vmap(f, in_axes=tuple(axes))(*args)
    want = _loop(f, args[0], args[1], (axes[0], axes[1]))
    _assert_same(got, want)
    # staged too: the batched jaxpr typechecks and evaluates to the same
    cj = tdx.make_jaxpr(tdx.vmap(f, in_axes=tuple(axes)))(*args)
    typecheck_jaxpr(cj.jaxpr)
    if mode == "unbatched scalar, batched array":  # the scalar stays rank-0: no broadcast of it
        names = [e.primitive.name for e in cj.jaxpr.eqns]
        assert names.count(case.prim.name) == 1 and "broadcast" not in names


# -- derivatives -----------------------------------------------------------------------
SMOOTH = [c for c in CASES if c.dtype == F64 and c.prim.name in
          {"add", "sub", "mul", "div", "max", "min", "rem", "pow", "atan2"}]


def _smooth_here(case: Case, a: Arr, b: Arr) -> bool:
    """Away from the kinks and jumps (ties of max/min, integers of x / y for
    rem, the origin for atan2), so that finite differences mean something."""
    name = case.prim.name
    if name in ("max", "min"):
        return bool(np.all(np.abs(a - b) > 1e-3))
    if name == "rem":
        q = a / b
        return bool(np.all(np.abs(q - np.round(q)) > 1e-3))
    if name == "atan2":
        return bool(np.all(a * a + b * b > 1e-2)) and bool(np.all((b > 1e-2) | (np.abs(a) > 1e-2)))
    return True


def _fd(f: Callable[[Arr], float], x: Arr, eps: float = 1e-6) -> Arr:
    g = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        d = np.zeros(x.shape)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@FEW
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("case", SMOOTH, ids=str)
@given(data=st.data())
def test_grad_matches_finite_differences(case: Case, side: str, data: st.DataObject) -> None:
    a, b = data.draw(operands(case, side))
    if not _smooth_here(case, a, b):
        return
    shape = np.broadcast_shapes(a.shape, b.shape)
    w = np.asarray(data.draw(st.lists(st.floats(-2, 2), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))),
                   F64).reshape(shape)

    def loss(x: Value, y: Value) -> Value:
        return lax.reduce_sum(lax.mul(bind1(case.prim, (x, y), NO_PARAMS), w), tuple(range(len(shape))))

    def num(x: Arr, y: Arr) -> float:
        return float(np.sum(np.asarray(case.ref(x, y)) * w))

    ga, gb = tdx.grad(loss, argnums=(0, 1))(a, b)
    assert np.shape(ga) == a.shape and np.shape(gb) == b.shape
    np.testing.assert_allclose(np.asarray(ga), _fd(lambda x: num(x, b), a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(gb), _fd(lambda y: num(a, y), b), rtol=1e-5, atol=1e-6)
    # forward mode, with only the scalar's tangent nonzero: the tangent has the output's shape
    sc_i = 0 if side == "scalar_left" else 1
    args = (a, b)

    def of_scalar(s: Value) -> Value:
        return bind1(case.prim, (s, args[1]) if sc_i == 0 else (args[0], s), NO_PARAMS)

    out, t = tdx.jvp(of_scalar, (args[sc_i],), (np.float64(1.0),))
    assert np.shape(t) == np.shape(out) == shape
    eps = 1e-6
    s0 = args[sc_i]
    fd = (np.asarray(of_scalar(s0 + eps)) - np.asarray(of_scalar(s0 - eps))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(t), fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("name", ["nextafter", "add", "sub", "rem", "greater"])
def test_jvp_of_the_scalar_alone_has_the_output_shape(name: str, side: str) -> None:
    """The rules whose tangent may be the scalar operand's own (a symbolic zero
    for the other): broadcast to the output's shape."""
    p = _p(name)
    x, s = np.asarray([0.5, 1.5, -2.5]), np.float64(0.75)

    def f(v: Value) -> Value:
        return bind1(p, (v, x) if side == "scalar_left" else (x, v), NO_PARAMS)

    out, t = tdx.jvp(f, (s,), (np.float64(1.0),))
    assert np.shape(t) == np.shape(out) == (3,)
    want = {"nextafter": 1.0 if side == "scalar_left" else 0.0, "add": 1.0,
            "sub": 1.0 if side == "scalar_left" else -1.0,
            "rem": 1.0 if side == "scalar_left" else -np.trunc(x / s), "greater": 0.0}[name]
    if name == "greater":  # a bool output: JAX's float0 zeros at the top level
        assert np.asarray(t).dtype == jax.dtypes.float0
    else:
        np.testing.assert_allclose(np.asarray(t, F64), np.broadcast_to(want, (3,)))
    # and under jit, where the tangent is staged (a bool output's: float0
    # zeros, rebuilt outside jit, as JAX's)
    _, tj = tdx.jit(lambda v, dv: tdx.jvp(f, (v,), (dv,)))(s, np.float64(1.0))
    assert np.shape(tj) == (3,)
    if name == "greater":
        assert np.asarray(tj).dtype == jax.dtypes.float0
    else:
        np.testing.assert_allclose(np.asarray(tj, F64), np.broadcast_to(want, (3,)))


def test_pow_jvp_with_a_scalar_exponent_and_a_zero_exponent() -> None:
    """``_pow_jvp``'s ``select`` of ``y == 0``: a rank-0 selector for a rank-0 ``y``."""
    x = np.asarray([0.5, 2.0, 3.0])
    for y in (np.float64(0.0), np.float64(2.5)):
        _, t = tdx.jvp(lambda v: lax.pow(v, y), (x,), (np.ones(3),))
        want = np.zeros(3) if y == 0 else y * x ** (y - 1)
        np.testing.assert_allclose(np.asarray(t), want)
        _, t = tdx.jvp(lambda v: lax.pow(x, v), (y,), (np.float64(1.0),))
        np.testing.assert_allclose(np.asarray(t), np.log(x) * x**y)


# -- transposition ---------------------------------------------------------------------
def _vdot(xs: Sequence[object], ys: Sequence[object]) -> float:
    return float(sum(np.vdot(np.asarray(x, F64), np.asarray(y, F64)) for x, y in zip(xs, ys)))


def _check_transpose(f: Callable[..., Value], fixed: Sequence[Arr], lin: Sequence[Arr],
                     rng: np.random.Generator) -> Jaxpr:
    """``f(*fixed, *lin)`` is linear in ``lin``: ``<v, A u> == <Aᵀ v, u>``."""
    cj = tdx.make_jaxpr(f)(*fixed, *lin)
    j = cj.jaxpr
    consts = [cast(Value, c) for c in cj.consts]
    tj = transpose_jaxpr(j, [False] * (len(consts) + len(fixed)) + [True] * len(lin))
    typecheck_jaxpr(tj)
    assert tj.out_avals == tuple(ShapedArray(u.shape, u.dtype) for u in lin)
    ys = eval_jaxpr(j, [*consts, *fixed, *lin])
    vs = [rng.normal(size=a.shape).astype(a.dtype) for a in j.out_avals]
    xbar = eval_jaxpr(tj, [*consts, *fixed, *vs])
    np.testing.assert_allclose(_vdot(vs, ys), _vdot(xbar, lin), rtol=1e-10, atol=1e-10)
    return tj


@given(shape=SHAPES, seed=st.integers(0, 2**16), scalar_left=st.booleans())
def test_transposes_with_a_linear_scalar_pass_the_dot_product_test(
    shape: tuple[int, ...], seed: int, scalar_left: bool
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    s = np.float64(rng.normal())
    nz = np.where(np.abs(x) < 0.25, 1.0, x)

    def sides(p: str) -> Callable[[Value, Value], Value]:
        return lambda a, b: bind1(_p(p), (b, a) if scalar_left else (a, b), NO_PARAMS)

    # mul: the scalar linear beside a fixed array (its cotangent a sum), and the array beside a fixed scalar
    tj = _check_transpose(lambda c, u: sides("mul")(c, u), [x], [s], rng)
    assert "reduce_sum" in [e.primitive.name for e in tj.eqns]
    _check_transpose(lambda c, u: sides("mul")(u, c), [s], [x], rng)
    for p in ("add", "sub"):  # both linear (with a constant they are affine): a scalar and an array
        tj = _check_transpose(lambda u1, u2, p=p: sides(p)(u2, u1), [], [s, x], rng)
        assert "reduce_sum" in [e.primitive.name for e in tj.eqns]
    # div: the linear numerator, a scalar over a fixed array, and an array over a fixed scalar
    _check_transpose(lambda c, u: lax.div(u, c), [nz], [s], rng)
    _check_transpose(lambda c, u: lax.div(u, c), [np.float64(1.5)], [x], rng)


# -- abstract evaluation, text, typecheck -------------------------------------------------
def test_abstract_eval_takes_the_non_scalar_shape_and_checks_dtypes() -> None:
    for name in sorted(BINARY_NAMES):
        p = REGISTRY[name]
        dt = F32 if name not in ("and", "or", "xor") and "shift" not in name else I32
        a2, s2 = ShapedArray((2, 3), dt), ShapedArray((), dt)
        for pair in ((a2, s2), (s2, a2)):
            (out,) = p.abstract_eval(pair, NO_PARAMS)
            assert out.shape == (2, 3)
        with pytest.raises(PrimitiveTypeError, match=rf"{name} requires operands of one shape and dtype"):
            p.abstract_eval([a2, ShapedArray((3, 2), dt)], NO_PARAMS)
        with pytest.raises(PrimitiveTypeError, match=rf"{name} requires operands of one shape and dtype"):
            p.abstract_eval([a2, ShapedArray((), F64)], NO_PARAMS)


def test_text_round_trips_and_typechecks() -> None:
    a = Var(ShapedArray((3,), F32))
    s = Var(ShapedArray((), F32))
    c, d, e = Var(ShapedArray((3,), F32)), Var(ShapedArray((3,), F32)), Var(ShapedArray((3,), BOOL))
    j = Jaxpr((a, s), (
        Eqn(_p("mul"), (a, Lit.of(2.0, F32)), NO_PARAMS, (c,)),
        Eqn(_p("sub"), (s, c), NO_PARAMS, (d,)),
        Eqn(_p("greater"), (d, Lit.of(0.0, F32)), NO_PARAMS, (e,)),
    ), (d, e))
    typecheck_jaxpr(j)
    text = str(j)
    assert "mul a 2.0:float32" in text and "sub b c" in text
    back = parse_jaxpr(text)
    assert back == j and str(back) == text
    np.testing.assert_array_equal(
        np.asarray(eval_jaxpr(j, [np.asarray([1, 2, 3], F32), np.float32(5)])[0]), np.asarray([3, 1, -1], F32)
    )
    # a result typed with the scalar's shape is wrong
    bad = text.replace("c:float32[3] = mul", "c:float32[] = mul")
    with pytest.raises(JaxprTypeError, match="mul produces float32\\[3\\]"):
        parse_jaxpr(bad)
    # two different non-scalar shapes stay an error, naming both
    two = "{ lambda a:float32[3] b:float32[2] .\n  let c:float32[3] = add a b\n  in ( c ) }"
    with pytest.raises(JaxprTypeError, match=r"add requires operands of one shape and dtype .*got \(float32\[3\], float32\[2\]\)"):
        parse_jaxpr(two)


# -- weak types ----------------------------------------------------------------------
def test_weak_types() -> None:
    x32 = np.ones(3, np.float32)
    strong = lax.mul(x32, 2.0)  # a weak Python scalar beside a strong array: strong float32
    assert aval_of(strong) == ShapedArray((3,), F32) and not aval_of(strong).weak_type
    w = lax.mul(tnp.asarray(2.0), tnp.asarray(3.0))  # weak with weak: weak
    assert aval_of(w).weak_type
    wa = lax.broadcast_in_dim(tnp.asarray(2.0), (3,), ())
    assert aval_of(wa).weak_type
    assert aval_of(lax.add(wa, 1.0)).weak_type  # a weak array and a weak scalar: weak, shape (3,)
    assert aval_of(lax.add(wa, 1.0)).shape == (3,)
    assert not aval_of(lax.add(wa, np.float64(1.0))).weak_type  # a strong scalar: strong
    assert not aval_of(lax.gt(wa, 1.0)).weak_type  # bools are never weak

    def f(x: Value) -> tuple[Value, Value]:
        return lax.mul(x, 2.0), lax.mul(lax.broadcast_in_dim(tnp.asarray(2.0), (3,), ()), 0.5)

    cj = tdx.make_jaxpr(f)(x32)
    assert [v.aval.weak_type for v in cj.jaxpr.outs if isinstance(v, Var)] == [False, True]


# -- typedax.numpy and typedax.lax: no broadcast of a rank-0 operand ----------------------
_JAX_NAMES = {"greater": "gt", "less": "lt"}


def _structure(eqns: Sequence[Any], jax_names: bool) -> list[tuple[str, list[tuple[int, ...]]]]:
    if jax_names:
        return [(e.primitive.name, [tuple(v.aval.shape) for v in e.invars]) for e in eqns]
    return [(_JAX_NAMES.get(e.primitive.name, e.primitive.name), [a.aval.shape for a in e.inputs]) for e in eqns]


@pytest.mark.parametrize("name", ["x * 2.0", "lax.mul(x, s)", "lax.mul(s, x)", "maximum(x, 0.)", "x > 0",
                                  "2.0 / x", "x ** 2.5", "add(s, x)", "x - s", "arctan2(x, s)",
                                  "lax.gt(s, x)", "lax.max(x, s)"])
def test_staged_equations_match_jax(name: str) -> None:
    """JAX as the oracle: the same equations, with the same operand shapes
    (``c:f32[3] = mul a 2.0:f32[]``), and no ``broadcast`` of the scalar."""
    import jax
    import jax.numpy as jnp

    def make(np_: Any, lax_: Any) -> Callable[[Any, Any], Any]:
        return {
            "x * 2.0": lambda x, s: x * 2.0,
            "lax.mul(x, s)": lambda x, s: lax_.mul(x, s),
            "lax.mul(s, x)": lambda x, s: lax_.mul(s, x),
            "maximum(x, 0.)": lambda x, s: np_.maximum(x, 0.0),
            "x > 0": lambda x, s: x > 0,
            "2.0 / x": lambda x, s: 2.0 / x,
            "x ** 2.5": lambda x, s: x**2.5,
            "add(s, x)": lambda x, s: np_.add(s, x),
            "x - s": lambda x, s: x - s,
            "arctan2(x, s)": lambda x, s: np_.arctan2(x, s),
            "lax.gt(s, x)": lambda x, s: lax_.gt(s, x),
            "lax.max(x, s)": lambda x, s: lax_.max(x, s),
        }[name]

    x, s = np.ones((2, 3), np.float32), np.float32(2.0)
    mine = tdx.make_jaxpr(make(tnp, lax))(x, s)
    theirs = jax.make_jaxpr(make(jnp, jax.lax))(x, s)
    assert _structure(mine.jaxpr.eqns, False) == _structure(theirs.jaxpr.eqns, True)
    assert "broadcast" not in str(mine)
    assert parse_jaxpr(str(mine.jaxpr)) == mine.jaxpr


def test_numpy_block_of_scalar_ops_has_no_broadcasts() -> None:
    def f(x: tdx.Array) -> tdx.Array:
        y = (x - 1.0) * 0.5 + 2.0
        return tnp.where(y > 0.0, y / 3.0, 0.0) ** 2.0

    text = str(tdx.make_jaxpr(f)(tnp.ones((4, 5), tnp.float32)))
    # one broadcast: where's 0.0 (select_n's cases must have one shape); none for the arithmetic
    assert text.count("broadcast") == 1 and "broadcast [ axes=(0, 1), shape=(4, 5) ] 0.0:float32" in text
    assert "mul b 0.5:float32" in text and "pow " in text and "greater c 0.0" not in text


_TNP_OPS = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "greater", "less_equal",
            "equal", "not_equal", "remainder", "floor_divide", "arctan2", "bitwise_and", "bitwise_or",
            "left_shift", "right_shift", "logical_and", "logical_xor"]


@st.composite
def _scalar_operand(draw: st.DrawFn) -> Any:
    """A rank-0 operand: a Python scalar, a NumPy scalar, a strong or weak
    typedax scalar."""
    kind = draw(st.sampled_from(["int", "float", "bool", "np", "strong", "weak"]))
    v = draw(st.integers(1, 3))
    if kind == "int":
        return v
    if kind == "float":
        return float(v) + 0.5
    if kind == "bool":
        return bool(v % 2)
    dtype = draw(st.sampled_from([np.int32, np.int64, np.float32, np.float64, np.uint8, np.bool_]))
    if kind == "np":
        return np.asarray(v, dtype)
    if kind == "strong":
        return tnp.asarray(np.asarray(v, dtype))
    return tnp.asarray(float(v) if dtype in (np.float32, np.float64) else v)  # a weak typedax scalar


# ci: 6 examples (each compiles two programs); make test-long runs the profile's count
@ci_examples(6, otherwise=50)
@pytest.mark.parametrize("op", _TNP_OPS)
@given(data=st.data())
def test_numpy_ops_with_a_scalar_agree_with_the_broadcast_operands(op: str, data: st.DataObject) -> None:
    """Values, dtypes and weak flags as before the change (the scalar
    broadcast explicitly): eagerly and under jit, the scalar on either side."""
    fn = getattr(tnp, op)
    dtype = data.draw(st.sampled_from([np.int32, np.int64, np.float32, np.float64, np.bool_, np.uint8]))
    arr = tnp.asarray(np.asarray(data.draw(st.lists(st.integers(0, 4), min_size=6, max_size=6)), dtype).reshape(2, 3))
    sc = data.draw(_scalar_operand())
    left = data.draw(st.booleans())
    if op == "power" and type(sc) is int and not left:
        return  # a Python int exponent is integer_pow's (as JAX), an array's is not: not comparable
    args = (sc, arr) if left else (arr, sc)
    spread = tuple(tnp.broadcast_to(a, (2, 3)) for a in args)

    def outcome(f: Callable[[], Any]) -> tuple[str, Any]:
        try:
            with np.errstate(all="ignore"):
                out = f()
        except PrimitiveTypeError as e:
            return "error", str(e)
        a = aval_of(out)
        return "ok", (a.dtype, a.shape, a.weak_type, np.asarray(out).tobytes())

    got, want = outcome(lambda: fn(*args)), outcome(lambda: fn(*spread))
    if got[0] == "error" or want[0] == "error":
        assert got[0] == want[0] == "error"
        return
    assert got == want
    jitted = outcome(lambda: tdx.jit(fn)(*args))
    want_jit = outcome(lambda: tdx.jit(lambda a, b: fn(tnp.broadcast_to(a, (2, 3)), tnp.broadcast_to(b, (2, 3))))(*args))
    assert jitted[0] == want_jit[0]
    if jitted[0] == "ok":
        g, w = jitted[1], want_jit[1]
        assert g[:3] == w[:3]
        assert g[3] == w[3] or op in ("divide", "power", "arctan2", "remainder", "floor_divide")  # XLA's x * (1/s)
