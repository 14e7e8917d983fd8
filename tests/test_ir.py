"""The IR: value vs identity equality, alpha-equivalence, immutability, the
canonical text, and evaluation of literals."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pyrsistent import pmap

from typedax.core import (
    ClosedJaxpr,
    Eqn,
    Jaxpr,
    Lit,
    Primitive,
    ShapedArray,
    Var,
    eval_jaxpr,
    parse_jaxpr,
    typecheck_jaxpr,
)
from typedax.core.ir import NO_PARAMS, Param
from typedax.primitives import add_p, convert_element_type_p, mul_p, reduce_sum_p, sin_p

F64 = ShapedArray((), np.dtype(np.float64))
I32 = ShapedArray((), np.dtype(np.int32))


def sin_then_mul(c: float = 2.0) -> Jaxpr:
    a, b, d = Var(F64), Var(F64), Var(F64)
    eqns = (Eqn(sin_p, (a,), NO_PARAMS, (b,)), Eqn(mul_p, (Lit.of(c), b), NO_PARAMS, (d,)))
    return Jaxpr((a,), eqns, (d, a))


def test_avals_compare_by_value() -> None:
    t = ShapedArray((2, 3), np.dtype(np.float32))
    assert t == ShapedArray((2, 3), np.dtype(np.float32)) and hash(t) == hash(ShapedArray((2, 3), np.dtype(np.float32)))
    assert t != ShapedArray((3, 2), np.dtype(np.float32))
    assert (t.ndim, t.size, str(t)) == (2, 6, "float32[2,3]")
    assert str(F64) == "float64[]"


def test_vars_are_distinct_by_identity() -> None:
    a, b = Var(F64), Var(F64)
    assert a != b and a == a
    assert len({a, b}) == 2


def test_literals_compare_by_value_and_dtype() -> None:
    assert Lit.of(2.0) == Lit.of(2.0) and hash(Lit.of(2.0)) == hash(Lit.of(2.0))
    assert Lit.of(1) != Lit.of(1.0)  # int64 vs float64
    assert Lit.of(1, np.dtype(np.int32)) != Lit.of(1)
    assert Lit.of(True) != Lit.of(1)
    assert Lit.of(float("nan")) == Lit.of(float("nan"))
    assert Lit.of(-0.0) != Lit.of(0.0)  # 1/x tells them apart
    assert Lit.of(np.float32(0.1)).aval.dtype == np.float32
    assert Lit.of(np.float32(0.1)).val == float(np.float32(0.1))
    assert Lit.of(3).aval == ShapedArray((), np.dtype(np.int64))


def test_ir_nodes_are_frozen() -> None:
    j = sin_then_mul()
    with pytest.raises(dataclasses.FrozenInstanceError):
        j.eqns = ()  # type: ignore[misc]  # checking the runtime refusal
    with pytest.raises(dataclasses.FrozenInstanceError):
        j.eqns[0].inputs = ()  # type: ignore[misc]  # checking the runtime refusal
    with pytest.raises(dataclasses.FrozenInstanceError):
        F64.shape = (1,)  # type: ignore[misc]  # checking the runtime refusal


def test_jaxprs_are_equal_up_to_renaming() -> None:
    j, k = sin_then_mul(), sin_then_mul()
    assert j == k and hash(j) == hash(k)
    assert j != sin_then_mul(3.0)
    assert sin_then_mul(0.0) != sin_then_mul(-0.0)
    assert len({j, k, sin_then_mul(3.0)}) == 2


def test_jaxpr_equality_sees_which_variable_is_used() -> None:
    a, b = Var(F64), Var(F64)
    c, d = Var(F64), Var(F64)
    j1 = Jaxpr((a, b), (Eqn(mul_p, (a, b), NO_PARAMS, (c,)),), (c,))
    j2 = Jaxpr((a, b), (Eqn(mul_p, (b, a), NO_PARAMS, (d,)),), (d,))
    j3 = Jaxpr((a, b), (Eqn(mul_p, (a, a), NO_PARAMS, (d,)),), (d,))
    assert j1 != j2 and j1 != j3 and j2 != j3


def test_jaxpr_equality_sees_params_and_binder_types() -> None:
    a, b = Var(F64), Var(I32)
    j1 = Jaxpr((a,), (Eqn(convert_element_type_p, (a,), pmap({"new_dtype": np.dtype(np.int32)}), (b,)),), (b,))
    c, d = Var(F64), Var(ShapedArray((), np.dtype(np.int64)))
    j2 = Jaxpr((c,), (Eqn(convert_element_type_p, (c,), pmap({"new_dtype": np.dtype(np.int64)}), (d,)),), (d,))
    assert j1 != j2


def test_nested_jaxpr_params_compare_up_to_renaming() -> None:
    def call(body: Jaxpr) -> Jaxpr:
        x, y = Var(F64), Var(F64)
        p: Param = body
        return Jaxpr((x,), (Eqn(call_p, (x,), pmap({"jaxpr": p}), (y,)),), (y,))

    call_p = Primitive("test_call", lambda args, params: list(args), lambda avals, params: list(avals))
    assert call(sin_then_mul()) == call(sin_then_mul())
    assert hash(call(sin_then_mul())) == hash(call(sin_then_mul()))
    assert call(sin_then_mul()) != call(sin_then_mul(5.0))
    text = str(call(sin_then_mul()))
    assert text == (
        "{ lambda a:float64[] .\n"
        "  let b:float64[] = test_call [ jaxpr={ lambda a:float64[] .\n"
        "                                        let b:float64[] = sin a\n"
        "                                            c:float64[] = mul 2.0 b\n"
        "                                        in ( c, a ) } ] a\n"
        "  in ( b ) }"
    )


def test_free_variables_compare_by_identity() -> None:
    free = Var(F64)
    a = Var(F64)
    j1 = Jaxpr((a,), (), (free,))
    j2 = Jaxpr((a,), (), (free,))
    j3 = Jaxpr((a,), (), (Var(F64),))
    assert j1 == j2 and j1 != j3


def test_closed_jaxprs_compare_jaxpr_and_const_values() -> None:
    def closed(c: np.ndarray[tuple[int], np.dtype[np.float64]]) -> ClosedJaxpr:
        k, x, y = Var(ShapedArray((2,), np.dtype(np.float64))), Var(F64), Var(F64)
        return ClosedJaxpr(Jaxpr((k, x), (Eqn(sin_p, (x,), NO_PARAMS, (y,)),), (y, k)), (c,))

    assert closed(np.ones(2)) == closed(np.ones(2))
    assert closed(np.ones(2)) != closed(np.zeros(2))
    assert closed(np.ones(2)).in_avals == (F64,)
    assert str(closed(np.ones(2))) == str(closed(np.ones(2)).jaxpr)


def test_canonical_text() -> None:
    a = Var(ShapedArray((2,), np.dtype(np.int32)))
    b, c = Var(a.aval), Var(I32)
    eqns = (Eqn(add_p, (a, a), NO_PARAMS, (b,)), Eqn(reduce_sum_p, (b,), pmap({"axis": (0,)}), (c,)))
    outs = (c, Lit.of(True), Lit.of(2, np.dtype(np.int32)), Lit.of(1.5, np.dtype(np.float32)), c)
    j = Jaxpr((a,), eqns, outs)
    text = (
        "{ lambda a:int32[2] .\n"
        "  let b:int32[2] = add a a\n"
        "      c:int32[] = reduce_sum [ axis=(0,) ] b\n"
        "  in ( c, True, 2:int32, 1.5:float32, c ) }"
    )
    assert str(j) == text
    assert parse_jaxpr(text) == j and str(parse_jaxpr(text)) == text


def test_many_variables_get_two_letter_names() -> None:
    vs = [Var(F64) for _ in range(30)]
    eqns = tuple(Eqn(sin_p, (vs[i],), NO_PARAMS, (vs[i + 1],)) for i in range(29))
    j = Jaxpr((vs[0],), eqns, (vs[29],))
    lines = str(j).splitlines()
    assert lines[-2] == "      ae:float64[] = sin ad"
    assert parse_jaxpr(str(j)) == j
    typecheck_jaxpr(j)


def test_literals_keep_their_dtype_when_evaluated() -> None:
    a, b = Var(I32), Var(I32)
    j = Jaxpr((a,), (Eqn(add_p, (Lit.of(1, np.dtype(np.int32)), a), NO_PARAMS, (b,)),),
              (b, Lit.of(2, np.dtype(np.int32)), Lit.of(0.5, np.dtype(np.float32))))
    outs = [np.asarray(o) for o in eval_jaxpr(j, [np.int32(4)])]
    assert [o.dtype for o in outs] == [np.int32, np.int32, np.float32]
    assert [o.item() for o in outs] == [5, 2, 0.5]
