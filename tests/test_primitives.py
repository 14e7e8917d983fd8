"""Every first-order primitive: NumPy evaluation against NumPy itself, and
abstract-evaluation errors; then the ``lax`` and ``numpy`` namespaces."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import ml_dtypes
import numpy as np
import numpy.typing as npt
import pytest
from pyrsistent import pmap

from typedax.registry import REGISTRY
import typedax.numpy as tnp
from typedax import lax, make_jaxpr
from typedax.core import PrimitiveTypeError, Primitive, ShapedArray
from typedax.core.dtypes import SUPPORTED, DType
from typedax.core.ir import NO_PARAMS, Params
from typedax.primitives import (

    broadcast_p,
    convert_element_type_p,
    dot_general_p,
    integer_pow_p,
    reduce_max_p,
    reduce_min_p,
    reduce_sum_p,
    reshape_p,
    select_n_p,
    transpose_p,
)

Arr: TypeAlias = "npt.NDArray[Any]"
FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
NUMERIC = FLOATS + INTS
ALL = NUMERIC + ("bool",)


def sample(shape: tuple[int, ...], dtype: str | DType, seed: int = 0, positive: bool = False) -> Arr:
    """Random values of ``dtype``: floats in [-2, 2] (or (0.1, 2]), ints in [-5, 5]."""
    rng = np.random.default_rng(seed)
    d = np.dtype(dtype)
    if d == np.bool_:
        return rng.random(shape) < 0.5
    if d.kind == "i":
        lo = 1 if positive else -5
        return rng.integers(lo, 6, size=shape).astype(d)
    return rng.uniform(0.1 if positive else -2.0, 2.0, size=shape).astype(d)


def prim(name: str) -> Primitive:
    return REGISTRY[name]


def run(p: Primitive, args: list[Arr], params: Params = NO_PARAMS) -> Arr:
    """Evaluate with ``impl`` and check the result against ``abstract_eval``."""
    (out,) = p.impl(args, params)
    (t,) = p.abstract_eval([ShapedArray(a.shape, a.dtype) for a in args], params)
    assert (out.shape, out.dtype) == (t.shape, t.dtype)
    return np.asarray(out)


def same(got: Arr, want: Arr) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6 if got.dtype == np.float32 else 1e-12)
    else:
        np.testing.assert_array_equal(got, want)


# -- unary -------------------------------------------------------------------------

UNARY: dict[str, tuple[Callable[[Arr], Arr], tuple[str, ...], bool]] = {
    "neg": (np.negative, NUMERIC, False),
    "abs": (np.abs, NUMERIC, False),
    "sin": (np.sin, FLOATS, False),
    "cos": (np.cos, FLOATS, False),
    "exp": (np.exp, FLOATS, False),
    "log": (np.log, FLOATS, True),
    "tanh": (np.tanh, FLOATS, False),
    "logistic": (lambda x: 1 / (1 + np.exp(-x)), FLOATS, False),
    "sqrt": (np.sqrt, FLOATS, True),
    "floor": (np.floor, FLOATS, False),
    "ceil": (np.ceil, FLOATS, False),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ALL)
def test_unary(name: str, dtype: str) -> None:
    fn, allowed, positive = UNARY[name]
    x = sample((3, 2), dtype, positive=positive)
    if dtype in allowed:
        same(run(prim(name), [x]), np.asarray(fn(x), dtype=dtype))
    else:
        with pytest.raises(PrimitiveTypeError, match=rf"{name} accepts .* operands, got {dtype}\[3,2\]"):
            prim(name).abstract_eval([ShapedArray((3, 2), np.dtype(dtype))], NO_PARAMS)


# -- binary ------------------------------------------------------------------------

BINARY: dict[str, tuple[Callable[[Arr, Arr], Arr], tuple[str, ...]]] = {
    "add": (np.add, NUMERIC),
    "sub": (np.subtract, NUMERIC),
    "mul": (np.multiply, NUMERIC),
    "max": (np.maximum, ALL),
    "min": (np.minimum, ALL),
    "pow": (np.power, FLOATS),
    "greater": (np.greater, ALL),
    "less": (np.less, ALL),
    "ge": (np.greater_equal, ALL),
    "le": (np.less_equal, ALL),
    "eq": (np.equal, ALL),
    "ne": (np.not_equal, ALL),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", ALL)
def test_binary(name: str, dtype: str) -> None:
    fn, allowed = BINARY[name]
    x = sample((2, 3), dtype, seed=1, positive=name == "pow")
    y = sample((2, 3), dtype, seed=2)
    y[0, 0] = x[0, 0]  # a tie, for the comparisons
    if dtype in allowed:
        same(run(prim(name), [x, y]), np.asarray(fn(x, y)))
    else:
        t = ShapedArray((2, 3), np.dtype(dtype))
        with pytest.raises(PrimitiveTypeError, match=rf"{name} accepts .* operands, got \({dtype}\[2,3\], {dtype}\[2,3\]\)"):
            prim(name).abstract_eval([t, t], NO_PARAMS)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_div(dtype: str) -> None:
    x = sample((4, 3), dtype, seed=3)
    y = sample((4, 3), dtype, seed=4, positive=True) * np.where(sample((4, 3), "bool"), 1, -1).astype(dtype)
    got = run(prim("div"), [x, y])
    if dtype in FLOATS:
        same(got, x / y)
    else:  # integer division rounds toward zero
        same(got, np.trunc(x.astype(np.float64) / y).astype(dtype))
        same(run(prim("div"), [np.array([-7, 7, -7], dtype), np.array([2, -2, -2], dtype)]),
             np.array([-3, -3, 3], dtype))


@pytest.mark.parametrize("name", sorted(BINARY) + ["div"])
def test_binary_operands_must_agree(name: str) -> None:
    p = prim(name)
    f32, f64 = ShapedArray((2,), np.dtype(np.float32)), ShapedArray((2,), np.dtype(np.float64))
    one_or_scalar = rf"{name} requires operands of one shape and dtype \(or a rank-0 operand of that dtype\)"
    with pytest.raises(PrimitiveTypeError, match=rf"{one_or_scalar}, got \(float32\[2\], float64\[2\]\)"):
        p.abstract_eval([f32, f64], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match=rf"{one_or_scalar}, got \(float32\[2\], float32\[3\]\)"):
        p.abstract_eval([f32, ShapedArray((3,), np.dtype(np.float32))], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match=rf"{one_or_scalar}, got \(float32\[2\], float64\[\]\)"):
        p.abstract_eval([f32, ShapedArray((), np.dtype(np.float64))], NO_PARAMS)  # a scalar's dtype must agree
    # a rank-0 operand meets any shape, on either side (JAX's n-ary rule): the result has the other's
    f32_0 = ShapedArray((), np.dtype(np.float32))
    assert p.abstract_eval([f32, f32_0], NO_PARAMS)[0].shape == (2,)
    assert p.abstract_eval([f32_0, f32], NO_PARAMS)[0].shape == (2,)
    assert p.abstract_eval([f32_0, f32_0], NO_PARAMS)[0].shape == ()
    with pytest.raises(PrimitiveTypeError, match=rf"{name} takes 2 operand\(s\), got 1"):
        p.abstract_eval([f32], NO_PARAMS)


# -- integer_pow, select_n, convert_element_type -----------------------------------


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("y", [0, 1, 2, 3, 5, -1, -2])
def test_integer_pow(dtype: str, y: int) -> None:
    x = sample((5,), dtype, seed=5, positive=y < 0)
    params: Params = pmap({"y": y})
    if y < 0 and dtype in INTS:
        with pytest.raises(PrimitiveTypeError, match=rf"integer_pow of an integer operand {dtype}\[5\] needs y >= 0, got y={y}"):
            integer_pow_p.abstract_eval([ShapedArray((5,), np.dtype(dtype))], params)
        return
    want = x.astype(np.float64) ** y
    same(run(integer_pow_p, [x], params), np.asarray(want, dtype=dtype))


def test_integer_pow_params() -> None:
    t = ShapedArray((), np.dtype(np.float64))
    with pytest.raises(PrimitiveTypeError, match="integer_pow: missing param 'y'"):
        integer_pow_p.abstract_eval([t], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match="integer_pow: param 'y' must be an int, got 2.0"):
        integer_pow_p.abstract_eval([t], pmap({"y": 2.0}))
    with pytest.raises(PrimitiveTypeError, match="integer_pow accepts numeric operands, got bool"):
        integer_pow_p.abstract_eval([ShapedArray((), np.dtype(np.bool_))], pmap({"y": 2}))


@pytest.mark.parametrize("dtype", ALL)
def test_select_n(dtype: str) -> None:
    cases = [sample((2, 3), dtype, seed=s) for s in (6, 7, 8)]
    pred = sample((2, 3), "bool", seed=9)
    same(run(select_n_p, [pred, cases[0], cases[1]]), np.where(pred, cases[1], cases[0]))
    same(run(select_n_p, [np.asarray(True), cases[0], cases[1]]), cases[1])
    which = np.random.default_rng(10).integers(0, 3, size=(2, 3)).astype(np.int32)
    same(run(select_n_p, [which, *cases]), np.choose(which, cases))
    same(run(select_n_p, [np.asarray(2, np.int32), *cases]), cases[2])
    same(run(select_n_p, [pred, cases[0]]), cases[0])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int64", "uint8", "uint32", "uint64"])
def test_select_n_takes_any_integer_selector(dtype: str) -> None:
    # as JAX's select_n; out of range clamped to the first or last case, eager as under jit
    import typedax as tdx

    cases = [np.arange(5.0) * k for k in (1, -1, 10)]
    which = np.array([0, 1, 2, 1, 0], dtype)
    want = np.choose(which.astype(np.int64), cases)
    same(np.asarray(lax.select_n(which, *cases)), want)
    same(np.asarray(tdx.jit(lax.select_n)(which, *cases)), want)
    same(np.asarray(tdx.vmap(lax.select_n)(which, *cases)), want)
    high = np.array([0, 1, 2, 100, 3], dtype)  # 100 and 3: past the last case
    eager = np.asarray(lax.select_n(high, *cases))
    same(eager, np.asarray(tdx.jit(lax.select_n)(high, *cases)))
    same(eager, np.choose(np.minimum(high, 2).astype(np.int64), cases))


def test_select_n_errors() -> None:
    f = ShapedArray((2,), np.dtype(np.float32))
    b = ShapedArray((2,), np.dtype(np.bool_))
    with pytest.raises(PrimitiveTypeError, match="select_n selector must be bool or an integer, got float32"):
        select_n_p.abstract_eval([f, f, f], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match="bool selector takes at most 2 cases, got 3"):
        select_n_p.abstract_eval([b, f, f, f], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match=r"cases must have one type, got \(float32\[2\], float64\[2\]\)"):
        select_n_p.abstract_eval([b, f, ShapedArray((2,), np.dtype(np.float64))], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match=r"selector shape must be \(\) or the cases' shape"):
        select_n_p.abstract_eval([ShapedArray((3,), np.dtype(np.bool_)), f, f], NO_PARAMS)
    with pytest.raises(PrimitiveTypeError, match="needs a selector and at least one case"):
        select_n_p.abstract_eval([b], NO_PARAMS)


@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", ALL)
def test_convert_element_type(src: str, dst: str) -> None:
    x = sample((7,), src, seed=11)
    same(run(convert_element_type_p, [x], pmap({"new_dtype": np.dtype(dst)})), x.astype(dst))


def test_convert_element_type_param_must_be_a_dtype() -> None:
    with pytest.raises(PrimitiveTypeError, match="convert_element_type: param 'new_dtype' must be a dtype, got 'float32'"):
        convert_element_type_p.abstract_eval([ShapedArray((), np.dtype(np.int32))], pmap({"new_dtype": "float32"}))


def test_unsupported_dtypes_are_refused() -> None:
    # (the small floats are supported since issue 29, item 7; ml_dtypes' int4 is not)
    with pytest.raises(PrimitiveTypeError, match="unsupported dtype int4; typedax supports bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64, complex64, complex128, float4_e2m1fn, float8_e3m4"):
        ShapedArray((), np.dtype(ml_dtypes.int4))
    with pytest.raises(PrimitiveTypeError, match="dimensions must be ints >= 0"):
        ShapedArray((-1,), np.dtype(np.float32))


# -- structural ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL)
def test_broadcast(dtype: str) -> None:
    x = sample((3, 1), dtype, seed=12)
    got = run(broadcast_p, [x], pmap({"shape": (2, 3, 4), "axes": (0,)}))
    same(got, np.broadcast_to(x[None], (2, 3, 4)))
    got = run(broadcast_p, [x], pmap({"shape": (3, 2, 5), "axes": (1,)}))
    same(got, np.broadcast_to(x[:, None, :], (3, 2, 5)))
    s = sample((), dtype, seed=13)
    same(run(broadcast_p, [s], pmap({"shape": (2, 2), "axes": (0, 1)})), np.full((2, 2), s))


def test_broadcast_errors() -> None:
    t = ShapedArray((3,), np.dtype(np.float32))
    with pytest.raises(PrimitiveTypeError, match=r"broadcast: operand float32\[3\] does not fit shape=\(2, 4\) with new axes=\(0,\)"):
        broadcast_p.abstract_eval([t], pmap({"shape": (2, 4), "axes": (0,)}))
    with pytest.raises(PrimitiveTypeError, match=r"broadcast: axes=\(0, 0\) must be distinct axes of shape=\(2, 2, 3\)"):
        broadcast_p.abstract_eval([t], pmap({"shape": (2, 2, 3), "axes": (0, 0)}))
    with pytest.raises(PrimitiveTypeError, match=r"broadcast: axes=\(5,\)"):
        broadcast_p.abstract_eval([t], pmap({"shape": (2, 3), "axes": (5,)}))
    with pytest.raises(PrimitiveTypeError, match="broadcast: negative size"):
        broadcast_p.abstract_eval([t], pmap({"shape": (-1, 3), "axes": (0,)}))
    with pytest.raises(PrimitiveTypeError, match="broadcast: param 'shape' must be a tuple of ints"):
        broadcast_p.abstract_eval([t], pmap({"shape": 3, "axes": ()}))


@pytest.mark.parametrize("dtype", ALL)
def test_reshape_and_transpose(dtype: str) -> None:
    x = sample((2, 3, 4), dtype, seed=14)
    same(run(reshape_p, [x], pmap({"new_sizes": (4, 6)})), x.reshape(4, 6))
    same(run(reshape_p, [x], pmap({"new_sizes": (24,)})), x.reshape(24))
    same(run(transpose_p, [x], pmap({"perm": (2, 0, 1)})), x.transpose(2, 0, 1))
    s = sample((), dtype)
    same(run(reshape_p, [s], pmap({"new_sizes": (1, 1)})), s.reshape(1, 1))
    same(run(transpose_p, [s], pmap({"perm": ()})), s)


def test_reshape_and_transpose_errors() -> None:
    t = ShapedArray((2, 3), np.dtype(np.int32))
    with pytest.raises(PrimitiveTypeError, match=r"reshape: cannot reshape int32\[2,3\] to new_sizes=\(4, 2\)"):
        reshape_p.abstract_eval([t], pmap({"new_sizes": (4, 2)}))
    with pytest.raises(PrimitiveTypeError, match=r"transpose: perm=\(0,\) is not a permutation of int32\[2,3\]'s axes"):
        transpose_p.abstract_eval([t], pmap({"perm": (0,)}))
    with pytest.raises(PrimitiveTypeError, match=r"transpose takes 1 operand\(s\), got 2"):
        transpose_p.abstract_eval([t, t], pmap({"perm": (1, 0)}))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("axis", [(), (0,), (2,), (0, 2), (2, 0), (0, 1, 2)])
def test_reductions(dtype: str, axis: tuple[int, ...]) -> None:
    x = sample((2, 3, 4), dtype, seed=15)
    params: Params = pmap({"axis": axis})
    same(run(reduce_max_p, [x], params), np.asarray(np.max(x, axis=axis)))
    same(run(reduce_min_p, [x], params), np.asarray(np.min(x, axis=axis)))
    if dtype == "bool":
        with pytest.raises(PrimitiveTypeError, match=r"reduce_sum does not accept bool operands, got bool\[2,3,4\]"):
            reduce_sum_p.abstract_eval([ShapedArray(x.shape, x.dtype)], params)
    else:
        same(run(reduce_sum_p, [x], params), np.asarray(np.sum(x, axis=axis), dtype=dtype))


def test_reduction_errors() -> None:
    t = ShapedArray((2, 0), np.dtype(np.float32))
    for p in (reduce_sum_p, reduce_max_p, reduce_min_p):
        with pytest.raises(PrimitiveTypeError, match=rf"{p.name}: axis=\(2,\) must be distinct axes of float32\[2,0\]"):
            p.abstract_eval([t], pmap({"axis": (2,)}))
        with pytest.raises(PrimitiveTypeError, match=rf"{p.name}: axis=\(0, 0\) must be distinct"):
            p.abstract_eval([t], pmap({"axis": (0, 0)}))
    for p in (reduce_sum_p, reduce_max_p, reduce_min_p):  # an empty axis reduces to the identity (as JAX)
        assert p.abstract_eval([t], pmap({"axis": (1,)})) == [ShapedArray((2,), t.dtype)]


DOT_CASES: list[tuple[tuple[int, ...], tuple[int, ...], Any, str]] = [
    ((2, 3), (3, 4), (((1,), (0,)), ((), ())), "ij,jk->ik"),
    ((3,), (3,), (((0,), (0,)), ((), ())), "i,i->"),
    ((2, 3), (3,), (((1,), (0,)), ((), ())), "ij,j->i"),
    ((2,), (3,), (((), ()), ((), ())), "i,j->ij"),
    ((5, 2, 3), (5, 3, 4), (((2,), (1,)), ((0,), (0,))), "bij,bjk->bik"),
    ((3, 5, 2), (4, 3, 5), (((0,), (1,)), ((1,), (2,))), "cbi,kcb->bik"),
    ((2, 3), (2, 3), (((0, 1), (0, 1)), ((), ())), "ij,ij->"),
    ((), (), (((), ()), ((), ())), ",->"),
]


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("case", range(len(DOT_CASES)))
def test_dot_general(dtype: str, case: int) -> None:
    ls, rs, dn, spec = DOT_CASES[case]
    x, y = sample(ls, dtype, seed=16), sample(rs, dtype, seed=17)
    got = run(dot_general_p, [x, y], pmap({"dimension_numbers": dn}))
    same(got, np.asarray(np.einsum(spec, x.astype(np.float64), y.astype(np.float64)), dtype=dtype))


def test_dot_general_errors() -> None:
    a = ShapedArray((2, 3), np.dtype(np.float32))
    b = ShapedArray((4, 3), np.dtype(np.float32))

    def check(x: ShapedArray, y: ShapedArray, dn: Any, what: str) -> None:
        with pytest.raises(PrimitiveTypeError, match=what):
            dot_general_p.abstract_eval([x, y], pmap({"dimension_numbers": dn}))

    check(a, b, (((1,), (0,)), ((), ())), r"dot_general\(float32\[2,3\], float32\[4,3\], .*paired dimensions have different sizes")
    check(a, ShapedArray((3,), np.dtype(np.float64)), (((1,), (0,)), ((), ())), "operands must have one dtype")
    c = ShapedArray((2,), np.dtype(np.bool_))
    check(c, c, (((0,), (0,)), ((), ())), "bool operands are not supported")
    check(a, b, (((1,), (1, 0)), ((), ())), "contracting and batch dimensions must pair up")
    check(a, b, (((2,), (1,)), ((), ())), "dimensions must be distinct axes of each operand")
    check(a, b, (((1, 1), (1, 1)), ((), ())), "dimensions must be distinct axes of each operand")
    check(a, b, ((1,), (1,)), "dimension_numbers must be")


def test_every_first_order_primitive_is_tested_here() -> None:
    tested = set(UNARY) | set(BINARY) | {
        "div", "integer_pow", "select_n", "convert_element_type", "broadcast", "reshape",
        "transpose", "reduce_sum", "reduce_max", "reduce_min", "dot_general",
        "rem",  # in tests/test_rem.py
        # in tests/test_slicing.py, test_shaping.py, test_clamp.py
        "slice", "dynamic_slice", "dynamic_update_slice", "concatenate", "pad", "rev", "iota",
        "squeeze", "clamp",
        "stop_gradient",  # in tests/test_stop_gradient.py
        # in tests/test_gather_scatter.py and tests/test_indexing.py
        "gather", "scatter", "scatter-add", "scatter-mul", "scatter-min", "scatter-max",
        # in tests/test_reductions.py, test_cumulative.py, test_sorting.py
        "reduce_prod", "reduce_and", "reduce_or", "argmax", "argmin", "cumsum", "cumprod",
        "cummax", "cummin", "cumlogsumexp", "sort", "top_k",
        # in tests/test_windowed.py
        "reduce_window_sum", "reduce_window_max", "reduce_window_min", "reduce_window",
        "select_and_gather_add", "select_and_scatter_add",
        # in tests/test_bitcast.py
        "bitcast_convert_type", "reduce_precision",
        # in tests/test_special.py and tests/test_bitwise.py
        "log1p", "expm1", "exp2", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
        "asinh", "acosh", "atanh", "erf", "erfc", "erf_inv", "lgamma", "digamma", "round",
        "sign", "is_finite", "nextafter", "sinc_maclaurin",  # sinc_maclaurin: tests/test_audit2_grad.py
        "not", "and", "or", "xor", "shift_left", "shift_right_logical", "shift_right_arithmetic",
        "population_count",
        "clz",  # in tests/test_lax_extra_names.py
        "conv_general_dilated",  # in tests/test_convolution.py
        "threefry2x32",  # in tests/test_random.py
    }
    from typedax.testing import FIRST_ORDER_PRIMITIVES

    assert tested == FIRST_ORDER_PRIMITIVES


# -- lax ---------------------------------------------------------------------------


def dtype_of(x: object) -> np.dtype[Any]:
    return np.asarray(x).dtype


def test_lax_weak_python_scalars_take_the_array_dtype() -> None:
    x = np.ones((), np.float32)
    assert dtype_of(lax.mul(x, 2.0)) == np.float32
    assert dtype_of(lax.add(2, np.ones((), np.int32))) == np.int32
    assert dtype_of(lax.mul(2.0, 3.0)) == np.float64
    cj = make_jaxpr(lambda x: lax.mul(x, 2.0))(x)
    assert str(cj) == "{ lambda a:float32[] .\n  let b:float32[] = mul a 2.0:float32\n  in ( b ) }"


def test_lax_is_strict_about_dtypes_and_shapes() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"add requires operands of one shape and dtype \(or a rank-0 operand of that dtype\), got \(float32\[3\], float64\[3\]\)"):
        lax.add(np.ones(3, np.float32), np.ones(3))
    with pytest.raises(PrimitiveTypeError, match=r"mul: shapes \(3,\) and \(2, 3\) do not broadcast in lax"):
        lax.mul(np.ones(3), np.ones((2, 3)))  # ranks differ: typedax.numpy broadcasts, lax does not
    with pytest.raises(PrimitiveTypeError, match=r"add: shapes \(2, 3\) and \(3, 2\) do not broadcast in lax"):
        lax.add(np.ones((2, 3)), np.ones((3, 2)))
    # eagerly and while staging alike
    with pytest.raises(PrimitiveTypeError, match=r"add requires operands of one shape and dtype"):
        make_jaxpr(lax.add)(np.ones(3, np.float32), np.ones(3))


def test_lax_functions_match_numpy() -> None:
    x, y = sample((2, 3), "float64", 20), sample((2, 3), "float64", 21)
    same(np.asarray(lax.sub(x, y)), x - y)
    same(np.asarray(lax.max(x, y)), np.maximum(x, y))
    same(np.asarray(lax.abs(x)), np.abs(x))
    same(np.asarray(lax.gt(x, y)), x > y)
    same(np.asarray(lax.select(x > y, x, y)), np.where(x > y, x, y))
    same(np.asarray(lax.broadcast(x, (4,))), np.broadcast_to(x, (4, 2, 3)))
    same(np.asarray(lax.broadcast_in_dim(np.ones(3), (2, 3), (1,))), np.ones((2, 3)))
    same(np.asarray(lax.reduce_sum(x, (1,))), x.sum(1))
    same(np.asarray(lax.reduce_max(x, (0, 1))), np.asarray(x.max()))
    same(np.asarray(lax.transpose(x, (1, 0))), x.T)
    same(np.asarray(lax.reshape(x, (3, 2))), x.reshape(3, 2))
    same(np.asarray(lax.dot(x, y.T)), x @ y.T)
    same(np.asarray(lax.integer_pow(x, 3)), x**3)
    same(np.asarray(lax.convert_element_type(x, np.int32)), x.astype(np.int32))
    same(np.asarray(lax.logistic(x)), 1 / (1 + np.exp(-x)))
    with pytest.raises(PrimitiveTypeError, match="must be increasing; transpose first"):
        lax.broadcast_in_dim(np.ones((2, 3)), (3, 2, 4), (1, 0))


# -- numpy -------------------------------------------------------------------------


def test_python_scalar_keeps_the_array_dtype() -> None:
    x = np.ones((2,), np.float32)
    assert dtype_of(tnp.multiply(x, 2.0)) == np.float32
    assert dtype_of(tnp.add(np.ones(2, np.int32), 3)) == np.int32
    assert dtype_of(tnp.add(np.ones(2, np.int32), 3.5)) == np.float64
    assert dtype_of(tnp.add(np.ones(2, np.bool_), 1)) == np.int64
    assert dtype_of(tnp.multiply(2, 3)) == np.int64
    cj = make_jaxpr(lambda x: x * 2.0)(x)
    assert cj.out_avals == (ShapedArray((2,), np.dtype(np.float32)),)


def test_lax_broadcasts_rank_0_and_size_1_operands_as_jax_lax() -> None:
    x = sample((2, 3), "float64", 24)
    same(np.asarray(lax.mul(x, 2.0)), x * 2.0)  # a Python scalar, rank 0
    same(np.asarray(lax.add(x, np.float64(1.5))), x + 1.5)  # a rank-0 array
    same(np.asarray(lax.sub(np.ones((), np.float64), x)), 1.0 - x)
    col, row = sample((2, 1), "float64", 25), sample((1, 3), "float64", 26)
    same(np.asarray(lax.add(col, row)), col + row)  # size-1 dimensions, equal ranks
    same(np.asarray(lax.max(x, row)), np.maximum(x, row))
    same(np.asarray(lax.mul(np.ones(3, np.float32), 2.0)), np.full(3, 2.0, np.float32))  # weak scalar
    cj = make_jaxpr(lambda a, b: lax.add(a, b))(col, row)
    assert [e.primitive.name for e in cj.jaxpr.eqns] == ["reshape", "broadcast", "reshape", "broadcast", "add"]


# JAX's promotion for typedax's dtypes (``jnp.promote_types``, recorded here;
# tests/test_promotion.py checks the lattice against JAX itself).
_JAX_PROMOTE = {
    ("bool", "bool"): "bool", ("bool", "int32"): "int32", ("bool", "int64"): "int64",
    ("bool", "float32"): "float32", ("bool", "float64"): "float64",
    ("int32", "int32"): "int32", ("int32", "int64"): "int64", ("int32", "float32"): "float32",
    ("int32", "float64"): "float64", ("int64", "int64"): "int64", ("int64", "float32"): "float32",
    ("int64", "float64"): "float64", ("float32", "float32"): "float32",
    ("float32", "float64"): "float64", ("float64", "float64"): "float64",
}


@pytest.mark.parametrize("a", NUMERIC)
@pytest.mark.parametrize("b", ALL)
def test_promotion_follows_jax(a: str, b: str) -> None:
    x, y = sample((2,), a, 22), sample((2,), b, 23)
    d = np.dtype(_JAX_PROMOTE.get((a, b)) or _JAX_PROMOTE[(b, a)])
    xd, yd = x.astype(d), y.astype(d)
    same(np.asarray(tnp.add(x, y)), np.add(xd, yd))
    same(np.asarray(tnp.multiply(y, x)), np.multiply(yd, xd))
    same(np.asarray(tnp.maximum(x, y)), np.maximum(xd, yd))
    same(np.asarray(tnp.less(x, y)), np.less(x, y))


def _jax_inexact(d: np.dtype[np.generic]) -> np.dtype[np.generic]:
    """The float type JAX gives an int or bool operand of a float function."""
    return d if d.kind == "f" else np.dtype(np.float32) if d.itemsize <= 4 else np.dtype(np.float64)


@pytest.mark.parametrize("a", NUMERIC)
def test_divide_and_power(a: str) -> None:
    x, y = sample((3,), a, 24), sample((3,), a, 25, positive=True)
    same(np.asarray(tnp.divide(x, y)), np.true_divide(x, y).astype(_jax_inexact(x.dtype)))  # JAX: float32 for int32
    same(np.asarray(tnp.power(y, 2)), y**2)
    xf = sample((3,), "float64", 26, positive=True)
    same(np.asarray(tnp.power(xf, y)), np.power(xf, y))


@pytest.mark.parametrize(
    ("xs", "ys"), [((2, 3), (3,)), ((2, 1), (1, 4)), ((), (2, 2)), ((3, 1, 2), (4, 1))]
)
def test_broadcasting(xs: tuple[int, ...], ys: tuple[int, ...]) -> None:
    x, y = sample(xs, "float32", 27), sample(ys, "float32", 28)
    same(np.asarray(tnp.add(x, y)), x + y)
    same(np.asarray(tnp.subtract(y, x)), y - x)
    same(np.asarray(tnp.greater(x, y)), x > y)


def test_shapes_that_do_not_broadcast() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"shapes \(2, 3\), \(2,\) do not broadcast together"):
        tnp.add(np.ones((2, 3)), np.ones(2))


@pytest.mark.parametrize(
    ("xs", "ys"),
    [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((5, 2, 3), (5, 3, 4))],
)
def test_matmul(xs: tuple[int, ...], ys: tuple[int, ...]) -> None:
    x, y = sample(xs, "float64", 29), sample(ys, "float64", 30)
    same(np.asarray(tnp.matmul(x, y)), np.asarray(x @ y))
    cj = make_jaxpr(lambda a, b: a @ b)(x, y)
    assert cj.out_avals[0].shape == np.matmul(x, y).shape


def test_matmul_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="matmul: operands must be at least 1-d"):
        tnp.matmul(np.ones(()), np.ones(3))
    with pytest.raises(PrimitiveTypeError, match="paired dimensions have different sizes"):
        tnp.matmul(np.ones((2, 3)), np.ones((4, 2)))


def test_where() -> None:
    c = sample((2, 3), "bool", 31)
    x, y = sample((2, 3), "float32", 32), sample((3,), "float32", 33)
    same(np.asarray(tnp.where(c, x, y)), np.where(c, x, y))
    same(np.asarray(tnp.where(c, x, 0.0)), np.where(c, x, np.float32(0)))
    ci = sample((2, 3), "int32", 34)
    same(np.asarray(tnp.where(ci, x, y)), np.where(ci, x, y))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("dtype", ALL)
def test_sum_mean_max(axis: int | tuple[int, int] | None, dtype: str) -> None:
    x = sample((3, 4), dtype, 35)
    # as in JAX (x64) and NumPy, int32 and bool sums accumulate in int64
    sum_dtype = np.int64 if dtype in ("bool", "int32") else dtype
    same(np.asarray(tnp.sum(x, axis)), np.asarray(np.sum(x, axis), dtype=sum_dtype))
    same(np.asarray(tnp.mean(x, axis)), np.asarray(np.mean(x, axis), dtype=_jax_inexact(x.dtype)))
    same(np.asarray(tnp.max(x, axis)), np.asarray(np.max(x, axis)))


def test_reshape_transpose_astype() -> None:
    x = sample((2, 3, 4), "int32", 36)
    same(np.asarray(tnp.reshape(x, (4, -1))), x.reshape(4, -1))
    same(np.asarray(tnp.transpose(x)), x.T)
    same(np.asarray(tnp.transpose(x, (1, 0, 2))), x.transpose(1, 0, 2))
    same(np.asarray(tnp.astype(x, np.float32)), x.astype(np.float32))
    same(np.asarray(tnp.sin(x)), np.sin(x).astype(_jax_inexact(x.dtype)))
