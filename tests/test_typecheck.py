"""``typecheck_jaxpr``: each error names the equation and the mismatch."""

from __future__ import annotations

import numpy as np
import pytest
from pyrsistent import pmap

from typedax.core import (
    ClosedJaxpr,
    Eqn,
    Jaxpr,
    JaxprType,
    JaxprTypeError,
    Lit,
    ShapedArray,
    Var,
    eval_jaxpr,
    typecheck_jaxpr,
)
from typedax.core.ir import NO_PARAMS, Atom
from typedax.core.typecheck import typecheck_closed
from typedax.primitives import add_p, convert_element_type_p, mul_p, sin_p, transpose_p

F32 = ShapedArray((), np.dtype(np.float32))
F64 = ShapedArray((), np.dtype(np.float64))
M23 = ShapedArray((2, 3), np.dtype(np.float64))


def test_well_typed_jaxpr_has_its_type() -> None:
    a, b = Var(F64), Var(F64)
    j = Jaxpr((a,), (Eqn(mul_p, (Lit.of(2.0), a), NO_PARAMS, (b,)),), (b, a, Lit.of(1)))
    t = typecheck_jaxpr(j)
    assert t == JaxprType((F64,), (F64, F64, ShapedArray((), np.dtype(np.int64))))
    assert str(t) == "(float64[]) -> (float64[], float64[], int64[])"
    assert j.type == t


def test_operand_types_that_disagree_name_primitive_types_and_equation() -> None:
    a, b, c = Var(F32), Var(F64), Var(F32)
    j = Jaxpr((a, b), (Eqn(add_p, (a, b), NO_PARAMS, (c,)),), (c,))
    with pytest.raises(JaxprTypeError) as e:
        typecheck_jaxpr(j)
    msg = str(e.value)
    assert "add requires operands of one shape and dtype (or a rank-0 operand of that dtype), got (float32[], float64[])" in msg
    assert "in equation: c:float32[] = add a b" in msg


def test_operand_dtype_the_primitive_rejects() -> None:
    a = Var(ShapedArray((2,), np.dtype(np.int32)))
    b = Var(a.aval)
    j = Jaxpr((a,), (Eqn(sin_p, (a,), NO_PARAMS, (b,)),), (b,))
    with pytest.raises(JaxprTypeError, match=r"sin accepts float16/bfloat16/float32/float64/complex64/complex128 operands, got int32\[2\]"):
        typecheck_jaxpr(j)


def test_bad_params_name_the_param_and_equation() -> None:
    a, b = Var(M23), Var(ShapedArray((3, 2), np.dtype(np.float64)))
    j = Jaxpr((a,), (Eqn(transpose_p, (a,), pmap({"perm": (0, 0)}), (b,)),), (b,))
    with pytest.raises(JaxprTypeError) as e:
        typecheck_jaxpr(j)
    assert "transpose: perm=(0, 0) is not a permutation of float64[2,3]'s axes" in str(e.value)
    assert "in equation: b:float64[3,2] = transpose [ perm=(0, 0) ] a" in str(e.value)


def test_out_binder_type_mismatch() -> None:
    a, b = Var(M23), Var(ShapedArray((2, 3), np.dtype(np.float32)))
    j = Jaxpr((a,), (Eqn(sin_p, (a,), NO_PARAMS, (b,)),), (b,))
    with pytest.raises(JaxprTypeError) as e:
        typecheck_jaxpr(j)
    msg = str(e.value)
    assert "out binder has type float32[2,3] but sin produces float64[2,3]" in msg
    assert "in equation: b:float32[2,3] = sin a" in msg


def test_param_decides_out_type() -> None:
    a, b = Var(F64), Var(F64)
    eqn = Eqn(convert_element_type_p, (a,), pmap({"new_dtype": np.dtype(np.int32)}), (b,))
    with pytest.raises(JaxprTypeError, match="out binder has type float64.. but convert_element_type produces int32"):
        typecheck_jaxpr(Jaxpr((a,), (eqn,), (b,)))


def test_equation_output_arity() -> None:
    a, b, c = Var(F64), Var(F64), Var(F64)
    j = Jaxpr((a,), (Eqn(sin_p, (a,), NO_PARAMS, (b, c)),), (b,))
    with pytest.raises(JaxprTypeError) as e:
        typecheck_jaxpr(j)
    assert "sin produces 1 outputs but the equation binds 2" in str(e.value)
    assert "in equation: b:float64[] c:float64[] = sin a" in str(e.value)


def test_jaxpr_output_arity_for_params_holding_jaxprs() -> None:
    a = Var(F64)
    j = Jaxpr((a,), (), (a, a))
    assert typecheck_closed(j, 2) == JaxprType((F64,), (F64, F64))
    with pytest.raises(JaxprTypeError, match=r"expected a jaxpr with 1 outputs, got type \(float64\[\]\) -> \(float64\[\], float64\[\]\)"):
        typecheck_closed(j, 1)


def test_unbound_variable_in_an_equation() -> None:
    a, free, c = Var(F64), Var(F64), Var(F64)
    j = Jaxpr((a,), (Eqn(add_p, (a, free), NO_PARAMS, (c,)),), (c,))
    with pytest.raises(JaxprTypeError) as e:
        typecheck_jaxpr(j)
    assert "unbound variable of type float64[] in equation: c:float64[] = add a b" in str(e.value)


def test_unbound_variable_in_the_outputs() -> None:
    a = Var(F64)
    with pytest.raises(JaxprTypeError, match=r"unbound variable of type float32\[\] in the jaxpr's outputs"):
        typecheck_jaxpr(Jaxpr((a,), (), (a, Var(F32))))


def test_variable_used_before_its_equation() -> None:
    a, b, c = Var(F64), Var(F64), Var(F64)
    eqns = (Eqn(sin_p, (b,), NO_PARAMS, (c,)), Eqn(sin_p, (a,), NO_PARAMS, (b,)))
    with pytest.raises(JaxprTypeError, match="unbound variable"):
        typecheck_jaxpr(Jaxpr((a,), eqns, (c,)))


def test_input_binder_bound_twice() -> None:
    a = Var(F64)
    with pytest.raises(JaxprTypeError, match="bound twice among the jaxpr's input binders"):
        Jaxpr((a, a), (), (a,))


def test_equation_rebinds_an_input() -> None:
    a = Var(F64)
    with pytest.raises(JaxprTypeError, match="variable bound twice, in equation: sin"):
        Jaxpr((a,), (Eqn(sin_p, (a,), NO_PARAMS, (a,)),), (a,))


def test_two_equations_bind_one_variable() -> None:
    a, b = Var(F64), Var(F64)
    eqns = (Eqn(sin_p, (a,), NO_PARAMS, (b,)), Eqn(sin_p, (a,), NO_PARAMS, (b,)))
    with pytest.raises(JaxprTypeError, match="bound twice"):
        Jaxpr((a,), eqns, (b,))


def test_non_scalar_literal() -> None:
    a, b = Var(M23), Var(M23)
    lit = Lit(1.0, M23)  # bypassing Lit.of, which refuses it
    with pytest.raises(JaxprTypeError, match="non-scalar literal in equation"):
        typecheck_jaxpr(Jaxpr((a,), (Eqn(add_p, (a, lit), NO_PARAMS, (b,)),), (b,)))
    with pytest.raises(JaxprTypeError, match="a literal must be a scalar"):
        Lit.of(np.ones(2))


def test_non_atom_operand() -> None:
    a, b = Var(F64), Var(F64)
    bogus: Atom = 2.0  # type: ignore[assignment]  # deliberately ill-typed, as untyped callers could
    with pytest.raises(JaxprTypeError, match="float is not an atom"):
        typecheck_jaxpr(Jaxpr((a,), (Eqn(add_p, (a, bogus), NO_PARAMS, (b,)),), (b,)))


def test_eval_jaxpr_checks_argument_count() -> None:
    a = Var(F64)
    with pytest.raises(JaxprTypeError, match="takes 1 inputs, got 2"):
        eval_jaxpr(Jaxpr((a,), (), (a,)), [1.0, 2.0])


def test_closed_jaxpr_with_too_many_consts() -> None:
    a = Var(F64)
    with pytest.raises(JaxprTypeError, match="2 constants for a jaxpr with 1 input binders"):
        ClosedJaxpr(Jaxpr((a,), (), (a,)), (np.ones(()), np.ones(())))
