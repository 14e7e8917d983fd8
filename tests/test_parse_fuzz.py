"""Fuzzing ``parse_jaxpr``: random bytes, random text and random edits of valid
printed jaxprs either parse (and then round-trip) or raise ``JaxprSyntaxError``
/ ``JaxprTypeError`` with a position inside the text -- never anything else."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import pmap

import typedax as tdx
import typedax.numpy as tnp
from typedax import Value, lax
from typedax.core import (
    Eqn,
    Jaxpr,
    JaxprSyntaxError,
    JaxprTypeError,
    Lit,
    Params,
    Primitive,
    ShapedArray,
    Var,
    eval_jaxpr,
    parse_jaxpr as core_parse_jaxpr,
)
from typedax.core.dtypes import float32, float64, int32
from typedax.core.errors import JaxprTextTypeError, PrimitiveTypeError
from typedax.core.ir import NDArray
from typedax.core.rules import Family
from typedax.registry import REGISTRY
from typedax.primitives import mul_p, neg_p


def _call_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    body = params.get("jaxpr")
    if not isinstance(body, Jaxpr) or tuple(avals) != body.in_avals:
        raise PrimitiveTypeError("test_parse_fuzz_call: operands must match param 'jaxpr'")
    return list(body.out_avals)


def _call_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    body = params["jaxpr"]
    assert isinstance(body, Jaxpr)
    return [np.asarray(x) for x in eval_jaxpr(body, list(args))]


CALL_NAME = "test_parse_fuzz_call"
call_p = Primitive(CALL_NAME, _call_impl, _call_abstract)
TEST_REGISTRY = REGISTRY.extended(Family("test_parse_fuzz", (call_p,)))


def parse_jaxpr(text: str) -> Jaxpr:
    return core_parse_jaxpr(text, TEST_REGISTRY)


def _nested() -> Jaxpr:
    f64 = ShapedArray((), float64)
    x, y, z = Var(f64), Var(f64), Var(f64)
    inner = Jaxpr((x,), (Eqn(mul_p, (Lit.of(2.0), x), pmap(), (y,)), Eqn(neg_p, (y,), pmap(), (z,))), (z, y))
    a, b, c = Var(f64), Var(f64), Var(f64)
    params: Params = pmap({"jaxpr": inner, "name": 'a "name"\n', "flags": (True, None, (1, -2.5), float32)})
    return Jaxpr((a,), (Eqn(call_p, (a,), params, (b, c)),), (c, b, Lit.of(-1)))


def _f(x: Value, i: Value) -> object:
    y = tnp.sum(tnp.multiply(x, 2.0), axis=0)
    z = lax.dot_general(x, x, (((1,), (1,)), ((), ())))
    w = lax.select(lax.gt(x, lax.neg(x)), x, tnp.multiply(x, np.float32(np.nan)))
    return (
        lax.integer_pow(y, 3),
        z,
        lax.transpose(w, (1, 0)),
        lax.reshape(x, (4, 3)),
        lax.convert_element_type(i, np.float32),
        tnp.multiply(i, np.int32(-3)),
        lax.broadcast(y, (2,)),
    )


def _g(a: Value, n: Value) -> object:
    return lax.mul(a, -2.5), lax.add(a, float("inf")), lax.mul(n, 7), True


def _h(x: Value, xs: Value) -> object:
    y = lax.cond(lax.gt(x, 0.0), lambda a: lax.sin(a), lambda a: lax.neg(a), x)
    z = lax.fori_loop(0, 3, lambda i, c: lax.mul(c, 2.0), y)
    w = lax.while_loop(lambda c: lax.lt(c, 100.0), lambda c: lax.mul(c, 3.0), lax.add(z, 1.0))
    s = lax.scan(lambda c, x: (lax.add(c, x), lax.mul(c, x)), w, xs)
    return tdx.jit(lambda a: lax.cos(a))(w), s


CORPUS: list[str] = [
    str(tdx.make_jaxpr(_h)(0.5, np.arange(3.0)).jaxpr),
    str(tdx.make_jaxpr(_f)(np.ones((3, 4), np.float32), np.int32(1)).jaxpr),
    str(tdx.make_jaxpr(_g)(1.0, 2).jaxpr),
    str(_nested()),
    "{ lambda .\n  let\n  in ( 1.0 ) }",
]

VOCABULARY = [
    "{", "}", "(", ")", "[", "]", ",", ".", ":", "=", "lambda", "let", "in", "inf", "-inf",
    "nan", "True", "False", "None", "bool", "int32", "int64", "float32", "float64", "float16",
    "float32[3,4]", "float64[]", "int32[-1]", "mul", "neg", "add", "reduce_sum", "foo", CALL_NAME,
    "0", "-1", "3", "2.0", "1e999", "99999999999999999999", "2.0:float32", "3:int32", '"s"',
    '"\\q"', '"', "a", "b", "zz", "axis=(0,)", "[ y=3 ]", "\n", " ", "@", "é", "-",
]

_PIECES = re.compile(r"\s+|[{}()\[\],.:=]|[^\s{}()\[\],.:=]+")


def check(text: str) -> None:
    """The one allowed outcome: a jaxpr that round-trips, or a located library error."""
    try:
        j = parse_jaxpr(text)
    except JaxprSyntaxError as e:
        _check_position(text, e.line, e.column)
        return
    except JaxprTypeError as e:
        if isinstance(e, JaxprTextTypeError):
            _check_position(text, e.line, e.column)
        return
    printed = str(j)
    again = parse_jaxpr(printed)
    assert again == j
    assert str(again) == printed


def _check_position(text: str, line: int, column: int) -> None:
    lines = text.splitlines()
    assert 1 <= line <= len(lines) + 1, (line, len(lines))
    width = len(lines[line - 1]) if line <= len(lines) else 0
    assert 1 <= column <= width + 1, (line, column, width)


@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    check(data.decode("utf-8", errors="replace"))
    check(data.decode("latin-1"))


@given(st.text(max_size=300))
def test_random_text(text: str) -> None:
    check(text)


@given(st.lists(st.sampled_from(VOCABULARY), max_size=60))
def test_random_token_soup(tokens: list[str]) -> None:
    check(" ".join(tokens))
    check("".join(tokens))


@st.composite
def edited(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(
            ["delete", "insert", "duplicate", "swap", "token_delete", "token_insert",
             "token_duplicate", "token_swap", "token_replace"]
        ))
        if op.startswith("token_"):
            pieces = _PIECES.findall(text)
            i = draw(st.integers(0, len(pieces) - 1))
            if op == "token_delete":
                del pieces[i]
            elif op == "token_insert":
                pieces.insert(i, draw(st.sampled_from(VOCABULARY)))
            elif op == "token_duplicate":
                pieces.insert(i, pieces[i])
            elif op == "token_swap":
                k = draw(st.integers(0, len(pieces) - 1))
                pieces[i], pieces[k] = pieces[k], pieces[i]
            else:
                pieces[i] = draw(st.sampled_from(VOCABULARY))
            text = "".join(pieces)
            continue
        if not text:
            text = draw(st.sampled_from(VOCABULARY))
            continue
        i = draw(st.integers(0, len(text) - 1))
        if op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "insert":
            c = draw(st.one_of(st.sampled_from(list('{}()[],.:=-"\\ \n0123456789abeExyz_+')), st.characters()))
            text = text[:i] + c + text[i:]
        elif op == "duplicate":
            k = draw(st.integers(i, min(len(text), i + 20)))
            text = text[:k] + text[i:k] + text[k:]
        else:
            k = draw(st.integers(0, len(text) - 1))
            chars = list(text)
            chars[i], chars[k] = chars[k], chars[i]
            text = "".join(chars)
    return text


@given(edited())
def test_random_edits_of_valid_jaxprs(text: str) -> None:
    check(text)


def test_corpus_parses() -> None:
    for text in CORPUS:
        assert str(parse_jaxpr(text)) == text
    assert parse_jaxpr(str(_nested())) == _nested()
    assert "cond [" in CORPUS[0] and "while [" in CORPUS[0] and "jit [" in CORPUS[0]
    ints = [a for a in parse_jaxpr(CORPUS[1]).in_binders if a.aval.dtype == int32]
    assert len(ints) == 1
