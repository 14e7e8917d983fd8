"""``make_jaxpr``: the tutorial's printed examples, omnistaging, constants,
pytrees, concretization errors and escaped tracers."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, NamedTuple

import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import ConcretizationError, EscapedTracerError, ShapedArray, Tracer
from typedax.core.trace import Value

F64 = ShapedArray((), np.dtype(np.float64))


def test_tutorial_make_jaxpr_prints_exactly() -> None:
    cj = tdx.make_jaxpr(lambda x: 2.0 * x)(3.0)
    assert str(cj) == "{ lambda a:float64[] .\n  let b:float64[] = mul 2.0 a\n  in ( b ) }"
    assert str(tdx.typecheck_jaxpr(cj.jaxpr)) == "(float64[]) -> (float64[])"
    assert cj.consts == ()


def test_omnistaging_records_operations_on_constants() -> None:
    cj = tdx.make_jaxpr(lambda: lax.mul(2.0, 2.0))()
    assert str(cj) == "{ lambda .\n  let a:float64[] = mul 2.0 2.0\n  in ( a ) }"


def test_staged_jaxpr_evaluates_like_the_function() -> None:
    def f(x: Value, y: Value) -> Value:
        return tnp.subtract(tnp.add(tnp.multiply(tnp.sin(x), y), tnp.sum(x)), 1)

    x, y = np.linspace(-1, 1, 4), np.arange(4.0)
    cj = tdx.make_jaxpr(f)(x, y)
    tdx.typecheck_jaxpr(cj.jaxpr)
    (out,) = tdx.eval_jaxpr(cj.jaxpr, [*cj.consts, x, y])  # type: ignore[list-item]  # consts are arrays
    np.testing.assert_allclose(np.asarray(out), np.sin(x) * y + x.sum() - 1)


def test_shaped_arrays_stand_for_arguments() -> None:
    cj = tdx.make_jaxpr(lambda x: x * 2.0)(ShapedArray((2, 3), np.dtype(np.float32)))
    assert cj.in_avals == (ShapedArray((2, 3), np.dtype(np.float32)),)
    assert cj.out_avals == (ShapedArray((2, 3), np.dtype(np.float32)),)
    t = ShapedArray((4,), np.dtype(np.int32))
    cj = tdx.make_jaxpr(lambda d: tnp.add(d["a"], d["b"]))({"a": t, "b": np.ones(4, np.int32)})
    assert cj.in_avals == (t, t)


def test_python_scalars_become_literals_of_their_type() -> None:
    cj = tdx.make_jaxpr(lambda x: (x + 1, x > 0.5, tnp.multiply(x, True)))(np.int32(3))
    text = str(cj)
    assert "add a 1:int32" in text
    assert cj.out_avals[1] == ShapedArray((), np.dtype(np.bool_))


def test_closed_over_arrays_become_constants() -> None:
    c = np.arange(3.0)
    cj = tdx.make_jaxpr(lambda x: x * c + c)(np.ones(3))
    assert len(cj.consts) == 1  # one binder, however often used
    const = cj.consts[0]
    assert isinstance(const, np.ndarray) and const is not c and np.array_equal(const, c)  # a copy, read now
    assert cj.in_avals == (ShapedArray((3,), np.dtype(np.float64)),)
    assert len(cj.jaxpr.in_binders) == 2
    assert str(cj) == (
        "{ lambda a:float64[3] b:float64[3] .\n"
        "  let c:float64[3] = mul b a\n"
        "      d:float64[3] = add c a\n"
        "  in ( d ) }"
    )
    x = np.array([1.0, 2.0, 3.0])
    (out,) = tdx.eval_jaxpr(cj.jaxpr, [c, x])
    np.testing.assert_allclose(np.asarray(out), x * c + c)


def test_zero_dim_arrays_become_literals() -> None:
    k = np.float32(0.5)
    cj = tdx.make_jaxpr(lambda x: x * k)(np.float32(2))
    assert cj.consts == ()
    assert "mul a 0.5:float32" in str(cj)


def test_returning_an_input_or_a_constant() -> None:
    c = np.ones(2)
    cj = tdx.make_jaxpr(lambda x: (x, c, 3.0))(1.0)
    assert str(cj) == "{ lambda a:float64[2] b:float64[] .\n  let\n  in ( b, a, 3.0 ) }"


# -- pytrees ------------------------------------------------------------------------


class Pair(NamedTuple):
    x: Value
    y: Value


@dataclasses.dataclass(frozen=True)
class Params:
    w: Value
    b: Value


def test_pytree_arguments_and_results() -> None:
    def f(p: Params, d: dict[str, Value], t: Pair, n: None) -> dict[str, object]:
        return {"z": (tnp.multiply(p.w, t.x), [d["b"]]), "a": Pair(d["a"], tnp.add(p.b, t.y)), "none": n}

    w, b = np.ones((2,), np.float32), np.zeros((), np.float32)
    cj = tdx.make_jaxpr(f)(Params(w, b), {"b": np.int32(1), "a": 2.0}, Pair(w, b), None)
    # leaves in order: dataclass fields, dict keys sorted, namedtuple fields
    assert [str(t) for t in cj.in_avals] == [
        "float32[2]", "float32[]", "float64[]", "int32[]", "float32[2]", "float32[]",
    ]
    # results flatten the same way: "a" (a Pair) before "none" before "z"
    assert [str(t) for t in cj.out_avals] == ["float64[]", "float32[]", "float32[2]", "int32[]"]
    outs = tdx.eval_jaxpr(cj.jaxpr, [w, b, 2.0, np.int32(1), w * 3, b + 1])
    flat_want, _ = tdx.tree.flatten(f(Params(w, b), {"b": np.int32(1), "a": 2.0}, Pair(w * 3, b + 1), None))
    assert len(outs) == len(flat_want)
    for got, want in zip(outs, flat_want):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_keyword_arguments() -> None:
    def f(x: Value, *, scale: Value) -> Value:
        return tnp.multiply(x, scale)

    cj = tdx.make_jaxpr(f)(1.0, scale=np.float64(2.0))
    assert cj.in_avals == (F64, F64)


def test_non_array_result_is_refused() -> None:
    with pytest.raises(TypeError, match="str is not a valid typedax array type"):
        tdx.make_jaxpr(lambda x: "nope")(1.0)


# -- concretization -------------------------------------------------------------------


def branchy(x: Value) -> Value:
    if tnp.greater(x, 0):
        return x
    return tnp.negative(x)


@pytest.mark.parametrize(
    ("use", "what"),
    [(bool, r"bool\(\)"), (int, r"int\(\)"), (float, r"float\(\)")],
)
def test_concretization_error_names_the_function(use: type, what: str) -> None:
    def g(x: Value) -> Value:
        use(x)
        return x

    with pytest.raises(ConcretizationError, match=rf"{what} of a traced value of type float64\[\] while staging function '.*g'"):
        tdx.make_jaxpr(g)(1.0)


def test_python_control_flow_on_a_traced_value() -> None:
    with pytest.raises(ConcretizationError, match="branchy") as e:
        tdx.make_jaxpr(branchy)(1.0)
    assert "lax.cond" in str(e.value)


def test_array_conversion_of_a_traced_value() -> None:
    with pytest.raises(ConcretizationError, match=r"np.asarray\(\)"):
        tdx.make_jaxpr(lambda x: np.asarray(x))(np.ones(2))


# -- escaped tracers -------------------------------------------------------------------

_leaked: list[Tracer] = []


def _leak(x: Value) -> Value:
    assert isinstance(x, Tracer)
    _leaked.append(x)
    return x * 2.0


def test_escaped_tracer_used_eagerly() -> None:
    _leaked.clear()
    tdx.make_jaxpr(_leak)(1.0)
    (t,) = _leaked
    with pytest.raises(EscapedTracerError, match=r"float64\[\] from staging of '_leak' was used after that transformation finished"):
        t * 3.0
    with pytest.raises(EscapedTracerError):
        lax.sin(t)


def test_escaped_tracer_used_in_another_trace() -> None:
    _leaked.clear()
    tdx.make_jaxpr(_leak)(1.0)
    (t,) = _leaked
    with pytest.raises(EscapedTracerError, match="after that transformation finished"):
        tdx.make_jaxpr(lambda y: y + t)(2.0)


def test_tracer_of_a_trace_that_does_not_enclose_the_current_one() -> None:
    """Another thread starts from the bottom interpreter: a tracer of a trace
    still running in this thread is foreign there."""
    errors: list[EscapedTracerError] = []

    def f(x: Value) -> Value:
        def other() -> None:
            try:
                tdx.make_jaxpr(lambda y: y + x)(1.0)
            except EscapedTracerError as e:
                errors.append(e)

        th = threading.Thread(target=other)
        th.start()
        th.join()
        return x

    tdx.make_jaxpr(f)(1.0)
    (e,) = errors
    assert "from staging of 'test_tracer_of_a_trace_that_does_not_enclose_the_current_one.<locals>.f' was used outside it" in str(e)


def test_enclosing_trace_tracers_are_constants_of_an_inner_trace() -> None:
    inner: list[tdx.ClosedJaxpr] = []

    def f(x: Value) -> Value:
        inner.append(tdx.make_jaxpr(lambda y: y * x)(1.0))
        return x

    tdx.make_jaxpr(f)(2.0)
    (cj,) = inner
    assert len(cj.consts) == 1 and isinstance(cj.consts[0], Tracer)
    assert str(cj) == "{ lambda a:float64[] b:float64[] .\n  let c:float64[] = mul b a\n  in ( c ) }"


def test_make_jaxpr_static_argnums_axis_env_and_return_shape_as_jax() -> None:
    """JAX's make_jaxpr arguments: static positional arguments are passed
    as they are (negative counting from the end; out of range or unhashable
    a ValueError), ``axis_env`` binds names for collectives, and
    ``return_shape`` gives the output's ShapeDtypeStructs."""
    import jax as _jax  # the oracle (its x64 as this process has it: compare structure and counts)

    jax: Any = _jax

    def f(x: Any, n: int) -> tuple[Any, Any]:
        return x * float(n), x

    for nums in (1, (1,), -1):
        closed = tdx.make_jaxpr(f, static_argnums=nums)(2.0, 3)
        assert len(closed.jaxpr.in_binders) == 1 and len(closed.jaxpr.eqns) == 1
        assert float(tdx.eval_jaxpr(closed.jaxpr, [2.0])[0]) == 6.0  # type: ignore[arg-type]  # a scalar result
        assert len(jax.make_jaxpr(f, static_argnums=nums)(2.0, 3).jaxpr.invars) == 1
    closed, shapes = tdx.make_jaxpr(f, static_argnums=1, return_shape=True)(np.ones(2, np.float32), 3)
    assert shapes == (ShapedArray((2,), np.dtype(np.float32)), ShapedArray((2,), np.dtype(np.float32)))
    _, jshapes = jax.make_jaxpr(f, static_argnums=1, return_shape=True)(np.ones(2, np.float32), 3)
    assert [(s.shape, s.dtype) for s in shapes] == [(s.shape, s.dtype) for s in jshapes]
    for bad in ((5, (2.0, 3)), (1, (2.0, [3]))):
        with pytest.raises(ValueError):
            jax.make_jaxpr(lambda a, b: a, static_argnums=bad[0])(*bad[1])
        with pytest.raises(ValueError):
            tdx.make_jaxpr(lambda a, b: a, static_argnums=bad[0])(*bad[1])
    closed = tdx.make_jaxpr(lambda x: lax.psum(x, "i"), axis_env=[("i", 4)])(1.0)
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["psum"]
    jclosed = jax.make_jaxpr(lambda x: jax.lax.psum(x, "i"), axis_env=[("i", 4)])(1.0)
    assert [e.primitive.name for e in jclosed.jaxpr.eqns] == ["psum"]
