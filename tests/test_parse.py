"""``parse_jaxpr``: round trips (text -> IR -> text and IR -> text -> IR) over
staged functions, literals of every dtype, params of every kind and nested
jaxprs, and every error path with its line and column."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import pmap

import typedax as tdx
from typedax import Value
import typedax.numpy as tnp
from typedax import lax
from typedax.core import (
    Eqn,
    Jaxpr,
    JaxprSyntaxError,
    JaxprTypeError,
    Lit,
    Param,
    Params,
    Primitive,
    ShapedArray,
    Var,
    eval_jaxpr,
    parse_jaxpr as core_parse_jaxpr,
)
from typedax.core.dtypes import DType, bool_, float32, float64, int32, int64
from typedax.core.errors import JaxprTextTypeError, PrimitiveTypeError
from typedax.core.ir import NDArray
from typedax.core.parse import MAX_DEPTH
from typedax.core.rules import Family
from typedax.registry import REGISTRY
from typedax.primitives import add_p, mul_p, neg_p

# -- test-only primitives ------------------------------------------------------


def _call_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    body = params.get("jaxpr")
    if not isinstance(body, Jaxpr):
        raise PrimitiveTypeError("test_parse_call: param 'jaxpr' must be a jaxpr")
    if tuple(avals) != body.in_avals:
        raise PrimitiveTypeError(
            f"test_parse_call: operands {[a.str_short() for a in avals]} do not match "
            f"the jaxpr's inputs {[a.str_short() for a in body.in_avals]}"
        )
    return list(body.out_avals)


def _call_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    body = params["jaxpr"]
    assert isinstance(body, Jaxpr)
    return [np.asarray(x) for x in eval_jaxpr(body, list(args))]


def _ident_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return list(avals)


def _ident_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return list(args)


def _sink_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    return []


def _sink_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return []


# A call: runs its ``jaxpr`` param on its operands.
call_p = Primitive("test_parse_call", _call_impl, _call_abstract)
# Any params at all; returns its operands unchanged.
ident_p = Primitive("test_parse_ident", _ident_impl, _ident_abstract)
# No outputs: an equation with no out binders.
sink_p = Primitive("test_parse_sink", _sink_impl, _sink_abstract)

# The library's primitives and this module's own, in a registry of its own
# (the library's registry is a value nobody mutates).
TEST_REGISTRY = REGISTRY.extended(Family("test_parse", (call_p, ident_p, sink_p)))


def parse_jaxpr(text: str) -> Jaxpr:
    return core_parse_jaxpr(text, TEST_REGISTRY)

F64 = ShapedArray((), float64)


def roundtrip(j: Jaxpr) -> Jaxpr:
    """Check both round trips and return the parsed jaxpr."""
    text = str(j)
    parsed = parse_jaxpr(text)
    assert parsed == j, f"IR -> text -> IR changed the jaxpr:\n{text}\n---\n{parsed}"
    assert hash(parsed) == hash(j)
    assert str(parsed) == text
    return parsed


# -- round trips over staged functions -----------------------------------------

X34 = np.arange(12.0, dtype=np.float32).reshape(3, 4) - 5.5
I3 = np.arange(3, dtype=np.int32)


def f_sum(x: Value) -> object:
    return lax.reduce_sum(tnp.multiply(x, 2.0), (0,))


def f_broadcast(x: Value) -> object:
    return lax.broadcast(lax.reduce_sum(x, (1,)), (2,))


def f_broadcast_in_dim(x: Value) -> object:
    return lax.broadcast_in_dim(lax.reduce_sum(x, (0,)), (5, 4), (1,))


def f_dot_general(x: Value) -> object:
    return lax.dot_general(x, x, (((1,), (1,)), ((), ())))


def f_dot_batch(x: Value) -> object:
    y = lax.reshape(x, (3, 2, 2))
    return lax.dot_general(y, y, (((2,), (1,)), ((0,), (0,))))


def f_transpose_reshape(x: Value) -> object:
    return lax.reshape(lax.transpose(x, (1, 0)), (2, 6))


def f_convert(x: Value, i: Value) -> object:
    return lax.convert_element_type(x, np.float64), lax.convert_element_type(i, np.float32)


def f_integer_pow(x: Value) -> object:
    return lax.integer_pow(x, 3), lax.integer_pow(x, -2), lax.integer_pow(x, 0)


def f_select(x: Value) -> object:
    return lax.select(lax.gt(x, lax.neg(x)), x, lax.neg(x))


def f_select_n_int(x: Value, i: Value) -> object:
    return lax.select_n(i, x, lax.neg(x), lax.mul(x, x))


def f_numpy(x: Value) -> object:
    s = tnp.sum(tnp.divide(tnp.exp(tnp.sin(x)), 3.0), axis=1)
    return tnp.add(s, tnp.max(x)), tnp.transpose(x), tnp.reshape(x, (4, 3))


def f_literals(x: Value, i: Value) -> object:
    return (
        tnp.multiply(x, np.float32(np.nan)),
        tnp.add(x, np.float32(np.inf)),
        tnp.subtract(x, np.float32(-np.inf)),
        tnp.multiply(x, np.float32(-0.1)),
        tnp.multiply(i, np.int32(-7)),
        tnp.add(i, np.int32(2**31 - 1)),
    )


def f_scalar_literals(a: Value, n: Value, b: Value) -> object:
    return (
        lax.mul(a, -2.5),
        lax.add(a, math.nan),
        lax.mul(a, math.inf),
        lax.sub(a, -math.inf),
        lax.mul(a, 1e-300),
        lax.mul(a, 1.5e300),
        lax.mul(n, -3),
        lax.add(n, 2**63 - 1),
        lax.max(lax.gt(a, 0.0), b),
        2.0,
        True,
        -4,
    )


def f_nothing() -> object:
    return 1.0


def f_identity(x: Value) -> object:
    return x


def f_chain(x: Value) -> object:
    for _ in range(40):  # enough variables for two-letter names
        x = lax.tanh(lax.add(x, x))
    return x


def f_many_vars(x: Value) -> object:
    ys = [lax.sin(x)]
    for _ in range(700):  # past 'in' (~230) and into three-letter names
        ys.append(lax.add(ys[-1], x))
    return ys[-1]


def f_control_flow(x: Value) -> object:
    y = lax.cond(lax.gt(x, 0.0), lambda a: lax.sin(a), lambda a: lax.neg(a), x)
    z = lax.fori_loop(0, 3, lambda i, c: lax.mul(c, 2.0), y)
    w = lax.while_loop(lambda c: lax.lt(c, 100.0), lambda c: lax.mul(c, 3.0), lax.add(z, 1.0))
    return tdx.jit(lambda a: lax.cos(a))(w)


def f_scan(c: Value, xs: Value) -> object:
    return lax.scan(lambda c, x: (lax.add(c, x), lax.mul(c, x)), c, xs)


STAGED: list[tuple[Callable[..., object], tuple[object, ...]]] = [
    (f_sum, (X34,)),
    (f_broadcast, (X34,)),
    (f_broadcast_in_dim, (X34,)),
    (f_dot_general, (X34,)),
    (f_dot_batch, (X34,)),
    (f_transpose_reshape, (X34,)),
    (f_convert, (X34, I3)),
    (f_integer_pow, (X34,)),
    (f_select, (X34,)),
    (f_select_n_int, (np.float32(1.5), np.int32(2))),
    (f_numpy, (X34,)),
    (f_literals, (X34, I3)),
    (f_scalar_literals, (1.0, 2, True)),
    (f_nothing, ()),
    (f_identity, (X34,)),
    (f_chain, (np.float64(0.1),)),
    (f_many_vars, (np.float64(0.1),)),
    (f_control_flow, (np.float64(0.5),)),
    (f_scan, (np.float64(0.5), np.arange(4.0))),
]


@pytest.mark.parametrize("fun,args", STAGED, ids=[f.__name__ for f, _ in STAGED])
def test_roundtrip_staged(fun: Callable[..., object], args: tuple[object, ...]) -> None:
    closed = tdx.make_jaxpr(fun)(*args)
    parsed = roundtrip(closed.jaxpr)
    # the parsed jaxpr computes what the original does
    vals = [*closed.consts, *args]
    want = eval_jaxpr(closed.jaxpr, vals)  # type: ignore[arg-type]  # consts and args are arrays/scalars
    got = eval_jaxpr(parsed, vals)  # type: ignore[arg-type]  # as above
    for w, g in zip(want, got):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_literals_print_as_documented() -> None:
    text = str(tdx.make_jaxpr(f_literals)(X34, I3).jaxpr)
    for lit in ["nan:float32", " inf:float32", "-inf:float32", "-0.10000000149011612:float32",
                "-7:int32", "2147483647:int32"]:
        assert lit in text
    text = str(tdx.make_jaxpr(f_scalar_literals)(1.0, 2, True).jaxpr)
    for lit in ["-2.5", "nan", "-inf", "1e-300", "1.5e+300", "-3", "9223372036854775807", "True"]:
        assert lit in text


def test_many_variables_skip_reserved_names() -> None:
    j = tdx.make_jaxpr(f_many_vars)(np.float64(0.1)).jaxpr
    names = {line.split(":")[0].split()[-1] for line in str(j).splitlines() if ":" in line}
    assert len(names) > 700
    assert not names & {"in", "let", "inf", "nan", "lambda"}


# -- the tutorial's texts, character for character ------------------------------

TUTORIAL_TEXTS = [
    "{ lambda a:float64[] .\n  let b:float64[] = mul 2.0 a\n  in ( b ) }",
    "{ lambda a:float64[] b:float64[] .\n"
    "  let c:float64[] = sin a\n"
    "      d:float64[] = mul c b\n"
    "      e:float64[] = neg d\n"
    "  in ( e, c ) }",
    "{ lambda a:float64[3] .\n"
    "  let b:float64[] = reduce_sum [ axis=(0,) ] a\n"
    "      c:bool[] = greater b 0.0\n"
    "  in ( c, True, -1 ) }",
    "{ lambda .\n  let\n  in ( 1.0 ) }",
    "{ lambda .\n  let\n  in (  ) }",
]


@pytest.mark.parametrize("text", TUTORIAL_TEXTS)
def test_canonical_text_roundtrips_exactly(text: str) -> None:
    assert str(parse_jaxpr(text)) == text


def test_whitespace_is_insignificant() -> None:
    text = TUTORIAL_TEXTS[1]
    squashed = " ".join(text.split())
    spread = text.replace(" ", "\n\t  \r\n")
    j = parse_jaxpr(text)
    assert parse_jaxpr(squashed) == j
    assert parse_jaxpr(spread) == j
    assert str(parse_jaxpr(spread)) == text


def test_spaced_types_and_any_names() -> None:
    text = (
        "{ lambda in : float32 [ 2 , 3 ] let:int64[] x_1:float32[2,3] .\n"
        "  let lambda:float32[2,3] = add in x_1 in_:float32 [2, 3] = neg lambda\n"
        "  in ( in_, let, in ) }"
    )
    j = parse_jaxpr(text)
    a, b, c = j.in_binders
    assert a.aval == ShapedArray((2, 3), float32) and b.aval == ShapedArray((), int64)
    assert [e.primitive for e in j.eqns] == [add_p, neg_p]
    assert j.eqns[0].inputs == (a, c)
    assert j.outs == (j.eqns[1].out_binders[0], b, a)
    # printing renames canonically, and that reads back too
    roundtrip(j)


def test_variable_named_in_as_last_input() -> None:
    text = "{ lambda in:float64[] . let b:float64[] = mul in in in ( b ) }"
    j = parse_jaxpr(text)
    assert j.eqns[0].inputs == (j.in_binders[0], j.in_binders[0])


# -- literals -----------------------------------------------------------------


def _lit_jaxpr(lit: Lit) -> Jaxpr:
    x = Var(lit.aval)
    y = Var(lit.aval)
    return Jaxpr((x,), (Eqn(ident_p, (lit, x), NO, (Var(lit.aval), y)),), (y, lit))


NO: Params = pmap()

LIT_DTYPES: list[DType] = [bool_, int32, int64, float32, float64]


@pytest.mark.parametrize(
    "value,dtype",
    [
        (True, bool_), (False, bool_),
        (0, int32), (-(2**31), int32), (2**31 - 1, int32),
        (0, int64), (-(2**63), int64), (2**63 - 1, int64), (-5, int64),
        (0.0, float32), (-0.0, float32), (math.nan, float32), (math.inf, float32),
        (-math.inf, float32), (3.4028234663852886e38, float32), (1e-45, float32), (0.1, float32),
        (0.0, float64), (-0.0, float64), (math.nan, float64), (math.inf, float64),
        (-math.inf, float64), (1.7976931348623157e308, float64), (5e-324, float64), (-2.5, float64),
    ],
)
def test_literal_roundtrip(value: bool | int | float, dtype: DType) -> None:
    lit = Lit.of(value, dtype)
    parsed = roundtrip(_lit_jaxpr(lit))
    back = parsed.outs[1]
    assert isinstance(back, Lit) and back.aval.dtype == dtype
    if isinstance(value, float) and math.isnan(value):
        assert isinstance(back.val, float) and math.isnan(back.val)
    else:
        assert back.val == lit.val and type(back.val) is type(lit.val)
        assert math.copysign(1, float(back.val)) == math.copysign(1, float(lit.val))  # type: ignore[arg-type]  # the generated literals are real


@st.composite
def literals(draw: st.DrawFn) -> Lit:
    dtype = draw(st.sampled_from(LIT_DTYPES))
    if dtype == bool_:
        return Lit.of(draw(st.booleans()), dtype)
    if dtype == int32:
        return Lit.of(draw(st.integers(-(2**31), 2**31 - 1)), dtype)
    if dtype == int64:
        return Lit.of(draw(st.integers(-(2**63), 2**63 - 1)), dtype)
    if dtype == float32:
        return Lit.of(draw(st.floats(width=32)), dtype)
    return Lit.of(draw(st.floats()), dtype)


@given(st.lists(literals(), min_size=1, max_size=6))
def test_literal_roundtrip_property(lits: list[Lit]) -> None:
    j = Jaxpr((), (), tuple(lits))
    parsed = roundtrip(j)
    assert parsed.outs == tuple(lits)


def test_redundant_literal_suffix_is_accepted() -> None:
    j = parse_jaxpr("{ lambda . let in ( 3:int64, 2.0:float64, True:bool, -inf:float64 ) }")
    assert j.outs == (Lit.of(3), Lit.of(2.0), Lit.of(True), Lit.of(-math.inf))
    assert str(j) == "{ lambda .\n  let\n  in ( 3, 2.0, True, -inf ) }"


def test_float32_literal_is_rounded() -> None:
    j = parse_jaxpr("{ lambda . let in ( 0.1:float32 ) }")
    lit = j.outs[0]
    assert isinstance(lit, Lit) and lit.val == float(np.float32(0.1))
    assert "0.10000000149011612:float32" in str(j)


# -- params -----------------------------------------------------------------------


def _ident_with(params: dict[str, Param]) -> Jaxpr:
    x = Var(F64)
    y = Var(F64)
    return Jaxpr((x,), (Eqn(ident_p, (x,), pmap(params), (y,)),), (y,))


ALL_KINDS: dict[str, Param] = {
    "i": -3,
    "big": 2**100,
    "f": 0.25,
    "fnan": math.nan,
    "finf": math.inf,
    "fneg": -math.inf,
    "tiny": 5e-324,
    "t": True,
    "fa": False,
    "none": None,
    "s": 'a "quoted" \\ back\nslash\tand tab',
    "empty": "",
    "d_bool": np.dtype(np.bool_),
    "d_i32": np.dtype(np.int32),
    "d_i64": np.dtype(np.int64),
    "d_f32": np.dtype(np.float32),
    "d_f64": np.dtype(np.float64),
    "t0": (),
    "t1": (1,),
    "t2": (1, 2),
    "nested": ((1,), ((), (2, (3.5, "x", None))), (np.dtype(np.float32), True)),
}


def test_params_of_every_kind_roundtrip() -> None:
    parsed = roundtrip(_ident_with(ALL_KINDS))
    got = parsed.eqns[0].params
    assert set(got) == set(ALL_KINDS)
    for k, v in ALL_KINDS.items():
        g = got[k]
        if isinstance(v, float) and math.isnan(v):
            assert isinstance(g, float) and math.isnan(g)
        else:
            assert g == v and type(g) is type(v), k


def test_params_any_order_and_trailing_commas() -> None:
    j = parse_jaxpr(
        "{ lambda a:float64[] . let b:float64[] = test_parse_ident [ z=(1, 2,), a=(3,) ] a in ( b ) }"
    )
    assert dict(j.eqns[0].params) == {"z": (1, 2), "a": (3,)}
    assert "[ a=(3,), z=(1, 2) ]" in str(j)


def test_empty_params() -> None:
    for text in [
        "{ lambda a:float64[] . let b:float64[] = neg [ ] a in ( b ) }",
        "{ lambda a:float64[] . let b:float64[] = neg[] a in ( b ) }",
    ]:
        j = parse_jaxpr(text)
        assert j.eqns[0].params == NO and j.eqns[0].primitive == neg_p


def param_values(depth: int = 3) -> st.SearchStrategy[Param]:
    leaves: st.SearchStrategy[Param] = st.one_of(
        st.integers(),
        st.floats(),
        st.booleans(),
        st.none(),
        st.text(),
        st.sampled_from([np.dtype(d) for d in (np.bool_, np.int32, np.int64, np.float32, np.float64)]),
    )
    return st.recursive(leaves, lambda inner: st.lists(inner, max_size=3).map(tuple), max_leaves=8)


@given(st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True), param_values(), max_size=4))
def test_param_roundtrip_property(params: dict[str, Param]) -> None:
    roundtrip(_ident_with(params))


# -- nested jaxprs ------------------------------------------------------------------


def _double_jaxpr() -> Jaxpr:
    x = Var(F64)
    y = Var(F64)
    return Jaxpr((x,), (Eqn(mul_p, (Lit.of(2.0), x), NO, (y,)),), (y,))


def _call(body: Jaxpr, extra: dict[str, Param] | None = None) -> Jaxpr:
    """a -> (body(a)[0] + a, *body(a))"""
    a = Var(F64)
    bs = tuple(Var(F64) for _ in body.outs)
    c = Var(F64)
    params: dict[str, Param] = {"jaxpr": body, **(extra or {})}
    return Jaxpr(
        (a,),
        (Eqn(call_p, (a,), pmap(params), bs), Eqn(add_p, (bs[0], a), NO, (c,))),
        (c, *bs),
    )


def test_nested_jaxpr_roundtrip_and_eval() -> None:
    j = _call(_double_jaxpr(), {"name": "double"})
    text = str(j)
    assert "jaxpr={ lambda a:float64[] ." in text
    parsed = roundtrip(j)
    out = eval_jaxpr(parsed, [np.float64(1.5)])
    assert [float(np.asarray(o)) for o in out] == [4.5, 3.0]


def test_nested_jaxprs_have_their_own_namespace() -> None:
    # the inner jaxpr reuses the outer names a and b; the outer b is not visible inside
    text = (
        "{ lambda a:float64[] .\n"
        "  let b:float64[] = test_parse_call [ jaxpr={ lambda a:float64[] . let b:float64[] = neg a in ( b ) } ] a\n"
        "  in ( b ) }"
    )
    j = parse_jaxpr(text)
    inner = j.eqns[0].params["jaxpr"]
    assert isinstance(inner, Jaxpr) and inner.eqns[0].primitive == neg_p
    assert inner.in_binders[0] is not j.in_binders[0]
    roundtrip(j)
    leak = (
        "{ lambda a:float64[] .\n"
        "  let b:float64[] = test_parse_call [ jaxpr={ lambda c:float64[] . let d:float64[] = mul c a in ( d ) } ] a\n"
        "  in ( b ) }"
    )
    with pytest.raises(JaxprTextTypeError, match="unbound variable 'a'") as e:
        parse_jaxpr(leak)
    assert (e.value.line, e.value.column) == (2, 92)


def test_doubly_nested_jaxprs_and_jaxprs_in_tuples() -> None:
    inner = _call(_double_jaxpr())
    outer = _call(inner, {"branches": (_double_jaxpr(), (inner,))})
    parsed = roundtrip(outer)
    out = eval_jaxpr(parsed, [np.float64(1.0)])
    # inner(1) = (3, 2), so outer(1) = (3 + 1, 3, 2)
    assert [float(np.asarray(o)) for o in out] == [4.0, 3.0, 2.0]


def test_deep_but_allowed_nesting() -> None:
    body = _double_jaxpr()
    for _ in range(10):
        body = _call(body)
        x = Var(F64)
        ys = tuple(Var(F64) for _ in body.outs)
        body = Jaxpr((x,), (Eqn(call_p, (x,), pmap({"jaxpr": body}), ys),), (ys[0],))
    parsed = roundtrip(body)
    assert float(np.asarray(eval_jaxpr(parsed, [np.float64(1.0)])[0])) == 2.0 + 10.0
    deep: Param = 1
    for _ in range(MAX_DEPTH - 2):
        deep = (deep,)
    roundtrip(_ident_with({"deep": deep}))


def test_equation_with_no_out_binders() -> None:
    a = Var(F64)
    j = Jaxpr((a,), (Eqn(sink_p, (a, Lit.of(1.0)), NO, ()), Eqn(sink_p, (), NO, ())), (a,))
    parsed = roundtrip(j)
    assert [len(e.out_binders) for e in parsed.eqns] == [0, 0]
    hand = parse_jaxpr("{ lambda a:float64[] . let = test_parse_sink a 1.0 = test_parse_sink in ( a ) }")
    assert hand == j


# -- errors, each with its line and column --------------------------------------------

T = "{ lambda a:float64[] .\n  let b:float64[] = mul 2.0 a\n  in ( b ) }"

SYNTAX_ERRORS: list[tuple[str, int, int, str]] = [
    ("", 1, 1, "expected '{' to open a jaxpr, found end of input"),
    ("   \n  ", 2, 3, "expected '{' to open a jaxpr, found end of input"),
    ("   \n", 2, 1, "expected '{' to open a jaxpr, found end of input"),
    ("( lambda . let in ( ) }", 1, 1, "expected '{' to open a jaxpr, found '('"),
    ("{ lamda . let in ( ) }", 1, 3, "expected 'lambda' after '{', found 'lamda'"),
    ("{ lambda a . let in ( ) }", 1, 10, "expected a binder like 'a:float32[3]' or '.'"),
    ("{ lambda a:float64[] let in ( ) }", 1, 22, "or '.' after the input binders, found 'let'"),
    ("{ lambda . lett in ( ) }", 1, 12, "expected 'let'"),
    ("{ lambda . let in ( ) ", 1, 23, "expected '}' to close the jaxpr, found end of input"),
    ("{ lambda . let in ( ) } x", 1, 25, "expected end of input after the jaxpr, found 'x'"),
    ("{ lambda . let in 1.0 }", 1, 19, "expected '(' after 'in', found '1.0'"),
    ("{ lambda . let in ( 1.0 2.0 ) }", 1, 25, "expected ')' or ',' after an output, found '2.0'"),
    ("{ lambda . let in ( 1.0, ) }", 1, 26, "expected a variable or a literal, found ')'"),
    ("{ lambda . let ) in ( ) }", 1, 16, "expected an equation 'out:type = primitive ...' or 'in'"),
    ("{ lambda a:complex32[] . let in ( ) }", 1, 12, "unknown dtype 'complex32'; typedax supports"),
    ("{ lambda a:float64 . let in ( ) }", 1, 20, "expected '[' after the dtype to open the shape"),
    ("{ lambda a:float64[-1] . let in ( ) }", 1, 20, "expected a dimension size"),
    ("{ lambda a:float64[3,-1] . let in ( ) }", 1, 22, "expected a dimension size"),
    ("{ lambda a:float64[03] . let in ( ) }", 1, 20, "found '03'"),
    ("{ lambda a:float64[2.5] . let in ( ) }", 1, 20, "found '2.5'"),
    ("{ lambda a:float64[3,] . let in ( ) }", 1, 22, "found nothing"),
    ("{ lambda a:float64[99999999999999999999] . let in ( ) }", 1, 20, "is too large"),
    ("{ lambda a:float64 [ 3 4 ] . let in ( ) }", 1, 24, "expected ']' or ',' in the shape"),
    ("{ lambda a:3[] . let in ( ) }", 1, 12, "expected a dtype for the binder"),
    (T.replace("mul", "foo"), 2, 21, "unknown primitive 'foo'"),
    (T.replace("mul", "mul [ y=3, y=4 ]"), 2, 32, "param 'y' is given twice"),
    (T.replace("mul", "mul [ y 3 ]"), 2, 29, "expected '=' after the param name 'y', found '3'"),
    (T.replace("mul", "mul [ y=3 y=4 ]"), 2, 31, "expected ']' or ',' after a param, found 'y'"),
    (T.replace("mul", "mul [ =3 ]"), 2, 27, "expected a param name, found '='"),
    (T.replace("mul", "mul [ y=foo ]"), 2, 29, "expected a param value"),
    (T.replace("mul", "mul [ y=(1) ]"), 2, 31, "a one-element tuple needs a trailing comma"),
    (T.replace("mul", "mul [ y=(1 2) ]"), 2, 32, "expected ',' or ')' in a tuple, found '2'"),
    (T.replace("mul", 'mul [ y="a\\qb" ]'), 2, 31, "unknown escape '\\q'"),
    (T.replace("mul", 'mul [ y="ab ]'), 2, 29, "unterminated string"),
    (T.replace("mul", "mul [ y=1e999 ]"), 2, 29, "the literal 1e999 is out of range for float64"),
    (T.replace("mul", "mul [ y=1.2.3 ]"), 2, 29, "malformed number '1.2.3'"),
    (T.replace("= mul", "mul"), 2, 19, "expected a binder like 'a:float32[3]' or '=' in an equation"),
    (T.replace("= mul", "= 3"), 2, 21, "expected a primitive name after '=', found '3'"),
    (T.replace("2.0", "2abc"), 2, 25, "malformed number '2abc'"),
    (T.replace("2.0", "2.0:complex32"), 2, 29, "unknown dtype 'complex32'"),
    (T.replace("2.0", "2.0:complex64"), 2, 25, "the float literal 2.0 cannot have dtype complex64"),
    (T.replace("2.0", "1.0+2.0j:float32"), 2, 25, "the complex literal 1.0+2.0j cannot have dtype float32"),
    (T.replace("2.0", "1e999+2.0j:complex64"), 2, 25, "the literal 1e999+2.0j is out of range for complex64"),
    (T.replace("2.0", "1.0+1e39j:complex64"), 2, 25, "the literal 1.0+1e39j is out of range for complex64"),
    (T.replace("mul", "mul [ y=1.0+2.0j ]"), 2, 29, "a complex number (1.0+2.0j) is not a float"),
    (T.replace("2.0", "2.0:int32"), 2, 25, "the float literal 2.0 cannot have dtype int32"),
    (T.replace("2.0", "2:float32"), 2, 25, "the integer literal 2 cannot have dtype float32"),
    (T.replace("2.0", "True:int32"), 2, 25, "the literal True has dtype bool, not int32"),
    (T.replace("2.0", "3000000000:int32"), 2, 25, "the literal 3000000000 is out of range for int32"),
    (T.replace("2.0", "9223372036854775808"), 2, 25, "out of range for int64"),
    (T.replace("2.0", "1e39:float32"), 2, 25, "the literal 1e39 is out of range for float32"),
    (T.replace("2.0", "1e400"), 2, 25, "out of range for float64"),
    (T.replace("( b )", "( 2.0: )"), 3, 13, "expected a dtype after ':', found ')'"),
    (T.replace("2.0", "@"), 2, 25, "unexpected character '@'"),
    (T.replace("2.0", "- 2.0"), 2, 25, "unexpected character '-'"),
    (T.replace("2.0", "é"), 2, 25, "unexpected character 'é'"),
    (T.replace("2.0", "float32[3]"), 2, 25, "expected a variable or a literal, found 'float32[3]'"),
    ("{ lambda a:float32[2] .\r\n  let b:float32[2] = neg a\r\n  in ( b, ) }", 3, 11,
     "expected a variable or a literal, found ')'"),
]


@pytest.mark.parametrize("text,line,column,message", SYNTAX_ERRORS)
def test_syntax_errors(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(JaxprSyntaxError) as e:
        parse_jaxpr(text)
    err = e.value
    assert message in err.message
    assert (err.line, err.column) == (line, column), str(err)
    assert str(err).startswith(f"line {line}, column {column}: ")


TYPE_ERRORS: list[tuple[str, int, int, str]] = [
    (T.replace("2.0 a", "2.0 c"), 2, 29, "unbound variable 'c'"),
    (T.replace("in ( b )", "in ( c )"), 3, 8, "unbound variable 'c'"),
    (T.replace("2.0 a", "2.0 b"), 2, 29, "unbound variable 'b'"),  # not bound until after
    (T.replace("b:float64[] =", "b:float64[] b:float64[] ="), 2, 19, "variable 'b' is bound twice"),
    (T.replace("b:float64[] =", "a:float64[] ="), 2, 7, "variable 'a' is bound twice"),
    ("{ lambda a:float64[] a:int32[] . let in ( a ) }", 1, 22, "variable 'a' is bound twice"),
    (T.replace("b:float64[] =", "b:float32[] ="), 2, 7,
     "out binder 'b' has type float32[] but mul produces float64[]"),
    (T.replace("b:float64[] =", "b:float64[] c:float64[] ="), 2, 33,
     "mul produces 1 output(s) but the equation binds 2"),
    (T.replace("2.0 a", "2.0:float32 a"), 2, 21,
     "mul rejects its operands: mul requires operands of one shape and dtype"),
    (T.replace("2.0 a", "a"), 2, 21, "mul takes 2 operand(s)"),
    (T.replace("mul 2.0 a", "reduce_sum [ axis=(3,) ] a"), 2, 21, "axis=(3,) must be distinct axes"),
    (T.replace("mul 2.0 a", "reduce_sum [ axis=3 ] a"), 2, 21, "must be a tuple of ints"),
    (T.replace("mul 2.0 a", "reduce_sum a"), 2, 21, "missing param 'axis'"),
]


@pytest.mark.parametrize("text,line,column,message", TYPE_ERRORS)
def test_type_errors(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(JaxprTypeError) as e:
        parse_jaxpr(text)
    err = e.value
    assert isinstance(err, JaxprTextTypeError)
    assert message in err.message, err.message
    assert (err.line, err.column) == (line, column), str(err)
    assert not isinstance(err, JaxprSyntaxError)


def test_error_shows_the_line_with_a_caret() -> None:
    with pytest.raises(JaxprSyntaxError) as e:
        parse_jaxpr(T.replace("mul", "foo"))
    assert str(e.value) == (
        "line 2, column 21: unknown primitive 'foo'\n"
        "    let b:float64[] = foo 2.0 a\n"
        "                      ^"
    )


def test_nested_jaxpr_type_error_is_located() -> None:
    text = (
        "{ lambda a:float64[] .\n"
        "  let b:float64[] = test_parse_call [ jaxpr={ lambda a:float64[] .\n"
        "                                              let b:float32[] = neg a\n"
        "                                              in ( b ) } ] a\n"
        "  in ( b ) }"
    )
    with pytest.raises(JaxprTextTypeError, match="out binder 'b' has type float32") as e:
        parse_jaxpr(text)
    assert (e.value.line, e.value.column) == (3, 51)
    # the call itself rejecting mismatched operands is reported at the call
    bad_call = text.replace("b:float32[] = neg a", "b:float64[] = neg a").replace(
        "lambda a:float64[]", "lambda a:float32[]"
    ).replace("{ lambda a:float32[] .\n  let", "{ lambda a:float64[] .\n  let")
    bad_call = bad_call.replace("b:float64[] = neg a", "b:float32[] = neg a")
    with pytest.raises(JaxprTextTypeError, match="do not match the jaxpr's inputs") as e:
        parse_jaxpr(bad_call)
    assert (e.value.line, e.value.column) == (2, 21)


def test_deep_nesting_is_refused_without_recursion_error() -> None:
    for n in [MAX_DEPTH, 1000, 100_000]:  # (MAX_DEPTH: the tuples sit one level inside the jaxpr)
        text = T.replace("mul", "mul [ y=" + "(" * n + " ]")
        with pytest.raises(JaxprSyntaxError, match=f"nested more than {MAX_DEPTH} deep") as e:
            parse_jaxpr(text)
        assert e.value.line == 2
    nested = "{ lambda . let = test_parse_sink [ j=" * (MAX_DEPTH + 50)
    with pytest.raises(JaxprSyntaxError, match="nested more than") as e:
        parse_jaxpr(nested)
    assert (e.value.line, e.value.column) == (1, 1 + 37 * MAX_DEPTH)


def test_unknown_rule_error_is_a_type_error() -> None:
    # an abstract-evaluation rule that crashes on odd params is reported, not propagated
    text = T.replace("mul 2.0 a", "test_parse_call [ jaxpr=3 ] a")
    with pytest.raises(JaxprTextTypeError, match="param 'jaxpr' must be a jaxpr"):
        parse_jaxpr(text)


# -- size -------------------------------------------------------------------------


def test_large_jaxpr_parses_in_linear_time() -> None:
    def chain(x: Value) -> object:
        for _ in range(5_000):
            x = lax.mul(lax.sin(x), x)
        return x

    j = tdx.make_jaxpr(chain)(np.float32(1.0)).jaxpr
    text = str(j)
    t0 = time.perf_counter()
    parsed = parse_jaxpr(text)
    elapsed = time.perf_counter() - t0
    assert len(parsed.eqns) == 10_000
    assert parsed == j
    assert elapsed < 3.0, f"10k equations took {elapsed:.2f} s"


def test_parse_jaxpr_is_exported() -> None:
    import typedax.core

    assert typedax.core.parse_jaxpr is core_parse_jaxpr
