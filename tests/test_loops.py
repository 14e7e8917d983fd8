"""``lax.while_loop``, ``lax.scan`` and ``lax.fori_loop``: evaluation,
abstract evaluation, errors, and their rules."""

from __future__ import annotations

import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.control_flow import scan_p, while_p
from typedax.core import PrimitiveTypeError
from typedax.core.trace import Value


def rnn_cell(c: Value, x: Value) -> tuple[Value, Value]:
    h = lax.tanh(lax.add(lax.mul(c, 0.9), x))
    return h, lax.mul(h, h)


def rnn_ref(c: float, xs: np.ndarray, reverse: bool = False) -> tuple[float, np.ndarray]:
    ys = np.zeros_like(xs)
    order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
    for i in order:
        c = float(np.tanh(c * 0.9 + xs[i]))
        ys[i] = c * c
    return c, ys


# -- while_loop -----------------------------------------------------------------


def test_while_eval() -> None:
    assert lax.while_loop(lambda c: lax.lt(c, 10), lambda c: lax.mul(c, 2), 1) == 16
    out = lax.while_loop(
        lambda c: lax.lt(c[0], 5),
        lambda c: (lax.add(c[0], 1), tnp.multiply(c[1], 1.5)),
        (0, np.array([1.0, 2.0])),
    )
    assert isinstance(out, tuple)
    assert int(np.asarray(out[0])) == 5
    np.testing.assert_allclose(np.asarray(out[1]), np.array([1.0, 2.0]) * 1.5**5)


def test_while_zero_iterations() -> None:
    assert lax.while_loop(lambda c: lax.lt(c, 0.0), lambda c: lax.add(c, 1.0), 3.0) == 3.0


def test_while_closure_constants() -> None:
    k = np.array([3.0, 2.0])
    limit = np.array([100.0, 1e9])

    def loop(x: Value) -> object:
        return lax.while_loop(lambda c: tnp.sum(lax.lt(c, limit)) == 2, lambda c: lax.mul(c, k), x)

    out = loop(np.ones(2))
    np.testing.assert_allclose(np.asarray(out), [243.0, 32.0])
    closed = tdx.make_jaxpr(loop)(np.ones(2))
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is while_p
    assert eqn.params["cond_nconsts"] == 1 and eqn.params["body_nconsts"] == 1


def test_error_while_body_changes_dtype() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"types \(int64\[\]\), but body_fun returns \* of types \(float64\[\]\)"):
        lax.while_loop(lambda c: lax.lt(c, 10), lambda c: lax.convert_element_type(c, np.float64), 1)


def test_error_while_body_changes_shape() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"float64\[2\].*float64\[1,2\]"):
        lax.while_loop(lambda c: lax.lt(lax.reduce_sum(c, (0,)), 10.0),
                       lambda c: lax.reshape(c, (1, 2)), np.ones(2))


def test_error_while_body_changes_structure() -> None:
    with pytest.raises(PrimitiveTypeError, match="same structure"):
        lax.while_loop(lambda c: lax.lt(c[0], 10), lambda c: c[0], (1, 2))


@pytest.mark.parametrize("bad", [lambda c: c, lambda c: lax.gt(np.ones(2), np.zeros(2)), lambda c: (lax.gt(c, 0), lax.gt(c, 1))])
def test_error_while_bad_predicate(bad: object) -> None:
    with pytest.raises(PrimitiveTypeError, match=r"cond_fun must return a boolean scalar"):
        lax.while_loop(bad, lambda c: c, 1)  # type: ignore[arg-type]  # a lambda


# -- scan -----------------------------------------------------------------------


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_eval(reverse: bool) -> None:
    xs = np.linspace(-1.0, 1.0, 7)
    c, ys = lax.scan(rnn_cell, 0.3, xs, reverse=reverse)
    c_ref, ys_ref = rnn_ref(0.3, xs, reverse)
    assert float(np.asarray(c)) == pytest.approx(c_ref)
    np.testing.assert_allclose(np.asarray(ys), ys_ref)


def test_scan_pytrees_and_no_xs() -> None:
    def f(c: dict[str, Value], _: None) -> tuple[dict[str, Value], tuple[Value, None]]:
        return {"i": lax.add(c["i"], 1), "s": tnp.multiply(c["s"], 2.0)}, (c["i"], None)

    carry, out = lax.scan(f, {"i": 0, "s": np.ones(2)}, None, length=4)
    assert isinstance(out, tuple)
    ys, none = out
    assert none is None
    np.testing.assert_array_equal(np.asarray(ys), [0, 1, 2, 3])
    assert isinstance(carry, dict)
    np.testing.assert_allclose(np.asarray(carry["s"]), [16.0, 16.0])


def test_scan_zero_length() -> None:
    c, ys = lax.scan(rnn_cell, 0.5, np.zeros((0,)))
    assert float(np.asarray(c)) == 0.5
    assert np.asarray(ys).shape == (0,)


def test_scan_staged() -> None:
    closed = tdx.make_jaxpr(lambda c, xs: lax.scan(rnn_cell, c, xs))(0.1, np.zeros(5))
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is scan_p and eqn.params["length"] == 5
    xs = np.arange(5.0) / 5
    out = tdx.eval_jaxpr(closed.jaxpr, [0.1, xs])
    c_ref, ys_ref = rnn_ref(0.1, xs)
    assert float(np.asarray(out[0])) == pytest.approx(c_ref)
    np.testing.assert_allclose(np.asarray(out[1]), ys_ref)


def test_error_scan_changes_carry() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"scan: f must return a carry"):
        lax.scan(lambda c, x: (lax.convert_element_type(c, np.float32), x), 1.0, np.ones(3))


def test_error_scan_not_a_pair() -> None:
    with pytest.raises(PrimitiveTypeError, match=r"pair \(carry, y\)"):
        lax.scan(lambda c, x: c, 1.0, np.ones(3))


def test_error_scan_lengths() -> None:
    with pytest.raises(PrimitiveTypeError, match="disagree"):
        lax.scan(rnn_cell, 1.0, np.ones(3), length=4)
    with pytest.raises(PrimitiveTypeError, match="disagree"):
        lax.scan(lambda c, x: (c, x), 1.0, (np.ones(3), np.ones(2)))
    with pytest.raises(PrimitiveTypeError, match="give length"):
        lax.scan(lambda c, x: (c, c), 1.0, None)
    with pytest.raises(PrimitiveTypeError, match="leading axis"):
        lax.scan(lambda c, x: (c, c), 1.0, 2.0)
    with pytest.raises(PrimitiveTypeError, match="length must be"):
        lax.scan(lambda c, x: (c, c), 1.0, None, length=-1)


# -- fori_loop ------------------------------------------------------------------


def test_fori_static_is_scan() -> None:
    def body(i: Value, x: Value) -> Value:
        return lax.add(lax.mul(x, 0.5), lax.convert_element_type(i, np.float64))

    ref = 1.0
    for i in range(2, 9):
        ref = ref * 0.5 + i
    assert float(np.asarray(lax.fori_loop(2, 9, body, 1.0))) == pytest.approx(ref)
    closed = tdx.make_jaxpr(lambda x: lax.fori_loop(2, 9, body, x))(1.0)
    assert [e.primitive for e in closed.jaxpr.eqns] == [scan_p]
    assert lax.fori_loop(5, 2, body, 1.0) == 1.0


def test_fori_dynamic_is_while() -> None:
    def body(i: Value, x: Value) -> Value:
        return lax.add(x, i)

    closed = tdx.make_jaxpr(lambda n: lax.fori_loop(0, n, body, 0))(3)
    assert [e.primitive for e in closed.jaxpr.eqns] == [while_p]
    for n in (0, 1, 5):
        assert int(np.asarray(tdx.eval_jaxpr(closed.jaxpr, [n])[0])) == sum(range(n))
    lo32 = np.asarray(1, np.int32)
    closed = tdx.make_jaxpr(lambda lo: lax.fori_loop(lo, 4, body, lo))(lo32)
    assert int(np.asarray(tdx.eval_jaxpr(closed.jaxpr, [lo32])[0])) == 1 + 1 + 2 + 3


def test_error_fori_bounds() -> None:
    with pytest.raises(PrimitiveTypeError, match="lower must be an integer scalar"):
        lax.fori_loop(0.5, 3, lambda i, x: x, 1.0)
    with pytest.raises(PrimitiveTypeError, match="one dtype"):
        tdx.make_jaxpr(lambda a, b: lax.fori_loop(a, b, lambda i, x: x, 1.0))(
            np.int32(0), np.int64(3)
        )
