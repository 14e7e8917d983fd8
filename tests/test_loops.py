"""``lax.while_loop``, ``lax.scan`` and ``lax.fori_loop``: evaluation,
abstract evaluation, errors, and their rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.control_flow import scan_p, while_p
from typedax.core import PrimitiveTypeError
from typedax.core.errors import ReverseModeError
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
    """A strong initial carry (a weak Python ``1`` would be promoted to the
    body's float64, as JAX's ``_promote_weak_typed_inputs`` does)."""
    with pytest.raises(PrimitiveTypeError, match=r"types \(int64\[\]\), but body_fun returns \* of types \(float64\[\]\)"):
        lax.while_loop(lambda c: lax.lt(c, 10), lambda c: lax.convert_element_type(c, np.float64), np.int64(1))


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
    # compiled too (the loop's slice of an empty xs was refused by StableHLO)
    for f in (lambda c: lax.scan(rnn_cell, c, np.zeros((0,))),
              lambda c: lax.scan(lambda c, _: (c + 1.0, (c, c * 2.0)), c, None, length=0)):
        c2, ys2 = tdx.jit(f)(0.5)
        assert float(np.asarray(c2)) == 0.5
        assert all(np.asarray(y).shape == (0,) for y in tdx.tree.leaves(ys2))


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
        # a strong init: a weak 1.0 would take the body's float32 (JAX's _promote_weak_typed_inputs)
        lax.scan(lambda c, x: (lax.convert_element_type(c, np.float32), x), np.float64(1.0), np.ones(3))


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
    # JAX's TypeError: float bounds of two dtypes (checked against JAX in test_fori_float_bounds_as_jax)
    with pytest.raises(PrimitiveTypeError, match="must have equal types, got float64 and int64"):
        lax.fori_loop(0.5, 3, lambda i, x: x, 1.0)
    with pytest.raises(PrimitiveTypeError, match="lower must be an integer"):
        lax.fori_loop(1j, 3j, lambda i, x: x, 1.0)
    with pytest.raises(PrimitiveTypeError, match="one dtype"):
        tdx.make_jaxpr(lambda a, b: lax.fori_loop(a, b, lambda i, x: x, 1.0))(
            np.int32(0), np.int64(3)
        )


def test_fori_float_bounds_as_jax() -> None:
    """JAX accepts float bounds of one dtype: known ones loop from int(lower)
    to int(upper) (a scan, with a weak int index), traced ones loop a float
    index from lower while it is below upper."""
    import jax  # the oracle

    def body(i: Any, c: Any) -> Any:
        return c + i * i

    for lo, hi in ((0.0, 3.0), (-1.5, 2.5), (np.float32(0.5), np.float32(3.7)), (3.0, 1.0)):
        want = jax.lax.fori_loop(lo, hi, body, 0.0)
        assert float(np.asarray(lax.fori_loop(lo, hi, body, 0.0))) == float(want)
    idx: list[Any] = []

    def record(i: Any, c: Any) -> Any:
        idx.append(i)
        return c

    # known bounds of any type: the index is a weak int64 (JAX's scan carries int(lower))
    bounds: list[tuple[Any, Any]] = [(0.0, 2.0), (np.int32(0), np.int32(2)), (np.int8(0), 2), (tnp.int32(0), tnp.int32(2))]
    for lo, hi in bounds:
        lax.fori_loop(lo, hi, record, 0.0)
        assert (idx[-1].dtype, idx[-1].weak_type) == (np.dtype(np.int64), True)  # JAX's: int64, weak
    # so an int8 carry stays int8, as JAX's
    def add_index(i: Any, c: Any) -> Any:
        return c + i

    carry: Any = lax.fori_loop(np.int32(0), np.int32(3), add_index, np.int8(1))
    assert carry.dtype == np.int8
    for lo, hi in ((np.float32(0.5), np.float32(3.7)), (-1.5, 2.5)):
        ours = tdx.jit(lambda a, b: lax.fori_loop(a, b, body, 0.0))(lo, hi)
        theirs = jax.jit(lambda a, b: jax.lax.fori_loop(a, b, body, 0.0))(lo, hi)
        assert float(np.asarray(ours)) == float(theirs)
    # a static trip count: reverse mode works, as JAX's
    g = tdx.grad(lambda x: lax.fori_loop(0.0, 3.0, lambda i, c: c * x, 1.0))(2.0)
    assert float(np.asarray(g)) == 12.0
    with pytest.raises(TypeError, match="equal types, got float32 and float64"):
        lax.fori_loop(np.float32(1), 3.0, body, 0.0)


# -- jvp ------------------------------------------------------------------------


def _fd(f: Callable[[float], object], x: float, eps: float = 1e-6) -> np.ndarray:
    hi = np.asarray(f(x + eps), dtype=np.float64)
    lo = np.asarray(f(x - eps), dtype=np.float64)
    return (hi - lo) / (2 * eps)


def _scan_of(a: Value) -> tuple[object, object]:
    xs = np.linspace(-1.0, 1.0, 6)
    return lax.scan(lambda c, x: (lax.tanh(lax.add(lax.mul(c, a), x)), lax.mul(c, x)), 0.5, xs)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_jvp_matches_finite_differences(reverse: bool) -> None:
    xs = np.linspace(-1.0, 1.0, 5)

    def f(c: float) -> object:
        return lax.scan(rnn_cell, c, xs, reverse=reverse)[0]

    def g(c: float) -> object:
        return lax.scan(rnn_cell, c, xs, reverse=reverse)[1]

    _, t = tdx.jvp(f, (0.3,), (1.0,))
    assert float(np.asarray(t)) == pytest.approx(float(_fd(f, 0.3)), rel=1e-6)
    _, t = tdx.jvp(g, (0.3,), (1.0,))
    np.testing.assert_allclose(np.asarray(t), _fd(g, 0.3), rtol=1e-5, atol=1e-9)


def test_scan_jvp_wrt_closed_over_constant_and_xs() -> None:
    def f(a: float) -> object:
        return _scan_of(a)[0]

    _, t = tdx.jvp(f, (0.8,), (1.0,))
    assert float(np.asarray(t)) == pytest.approx(float(_fd(f, 0.8)), rel=1e-6)

    def h(s: float) -> object:
        return lax.scan(rnn_cell, 0.1, tnp.multiply(np.linspace(0.0, 1.0, 4), s))[1]

    _, t = tdx.jvp(h, (1.5,), (1.0,))
    np.testing.assert_allclose(np.asarray(t), _fd(h, 1.5), rtol=1e-5)


def test_while_jvp() -> None:
    def f(x: float) -> object:
        out = lax.while_loop(
            lambda c: lax.lt(c[0], 4),
            lambda c: (lax.add(c[0], 1), lax.sin(lax.mul(c[1], x))),
            (0, 1.0),
        )
        assert isinstance(out, tuple)
        return out[1]

    _, t = tdx.jvp(f, (1.3,), (1.0,))
    assert float(np.asarray(t)) == pytest.approx(float(_fd(f, 1.3)), rel=1e-6)


def test_while_jvp_data_dependent_trip_count() -> None:
    def f(x: float) -> object:
        return lax.while_loop(lambda c: lax.lt(c, 100.0), lambda c: lax.mul(c, x), 1.0)

    _, t = tdx.jvp(f, (3.0,), (1.0,))
    # 3**5 = 243: d/dx x**5 = 5 x**4
    assert float(np.asarray(t)) == pytest.approx(5 * 3.0**4)


@pytest.mark.parametrize("dynamic", [False, True])
def test_fori_jvp(dynamic: bool) -> None:
    def f(x: float) -> object:
        hi: Value = np.asarray(5) if dynamic else 5
        return lax.fori_loop(0, hi, lambda i, c: lax.add(lax.mul(c, x), 1.0), 1.0)

    _, t = tdx.jvp(f, (0.7,), (1.0,))
    assert float(np.asarray(t)) == pytest.approx(float(_fd(f, 0.7)), rel=1e-6)


# -- vmap -----------------------------------------------------------------------


def test_vmap_while_batched_predicate() -> None:
    def f(x: Value) -> object:
        return lax.while_loop(lambda c: lax.lt(c, 10.0), lambda c: lax.mul(c, x), 1.0)

    xs = np.array([2.0, 3.0, 11.0, 1.5])
    out = tdx.vmap(f)(xs)
    np.testing.assert_allclose(np.asarray(out), [float(np.asarray(f(x))) for x in xs])


def test_vmap_while_unbatched_predicate() -> None:
    # a traced, unbatched bound (a known one, np.asarray(3) included, is a scan, as JAX's)
    def f(x: Value, n: Value) -> object:
        return lax.fori_loop(0, n, lambda i, c: lax.mul(c, x), 1.0)

    g = tdx.vmap(f, in_axes=(0, None))
    closed = tdx.make_jaxpr(g)(np.ones(3), 3)
    (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive is while_p]
    cj = eqn.params["cond_jaxpr"]
    assert isinstance(cj, tdx.Jaxpr) and cj.out_avals[0].shape == ()  # not batched
    xs = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(np.asarray(tdx.jit(g)(xs, 3)), xs**3)


def test_vmap_while_trip_counts_differ() -> None:
    def f(n: Value) -> object:
        return lax.fori_loop(0, n, lambda i, c: lax.add(c, lax.convert_element_type(i, np.float64)), 0.0)

    ns = np.array([0, 1, 4, 7])
    np.testing.assert_allclose(np.asarray(tdx.vmap(f)(ns)), [sum(range(n)) for n in ns])


@pytest.mark.parametrize("reverse", [False, True])
def test_vmap_scan(reverse: bool) -> None:
    cs = np.array([0.1, -0.4, 0.9])
    xss = np.linspace(-1.0, 1.0, 15).reshape(3, 5)
    c, ys = tdx.vmap(lambda c, xs: lax.scan(rnn_cell, c, xs, reverse=reverse))(cs, xss)
    for i in range(3):
        c_ref, ys_ref = rnn_ref(float(cs[i]), xss[i], reverse)
        assert float(np.asarray(c)[i]) == pytest.approx(c_ref)
        np.testing.assert_allclose(np.asarray(ys)[i], ys_ref)
    # batched along the xs' second axis, carry unbatched
    c, ys = tdx.vmap(lambda xs: lax.scan(rnn_cell, 0.2, xs, reverse=reverse), 1)(xss.T)
    for i in range(3):
        c_ref, ys_ref = rnn_ref(0.2, xss[i], reverse)
        assert float(np.asarray(c)[i]) == pytest.approx(c_ref)
        np.testing.assert_allclose(np.asarray(ys)[i], ys_ref)


def test_vmap_scan_batched_constant_only() -> None:
    def f(a: Value) -> object:
        return _scan_of(a)[0]

    a_s = np.array([0.5, 1.0, 1.5])
    np.testing.assert_allclose(
        np.asarray(tdx.vmap(f)(a_s)), [float(np.asarray(f(a))) for a in a_s]
    )


# -- jit ------------------------------------------------------------------------


@pytest.mark.parametrize("reverse", [False, True])
def test_jit_scan_equals_eager(reverse: bool) -> None:
    xs = np.linspace(-1.0, 1.0, 9)
    c, ys = tdx.jit(lambda c, xs: lax.scan(rnn_cell, c, xs, reverse=reverse))(0.3, xs)
    c_ref, ys_ref = rnn_ref(0.3, xs, reverse)
    assert float(np.asarray(c)) == pytest.approx(c_ref)
    np.testing.assert_allclose(np.asarray(ys), ys_ref)


def test_jit_scan_matrix_slices_and_consts() -> None:
    w = np.arange(6.0).reshape(2, 3) / 10

    def cell(h: Value, x: Value) -> tuple[Value, Value]:
        h2 = lax.tanh(lax.add(lax.dot(w.T, h), x))  # (3,2)@(2,) -> (3,)
        return lax.dot(w, h2), tnp.sum(h2)

    def f(c: Value, xs: Value) -> tuple[object, object]:
        return lax.scan(cell, c, xs, reverse=True)

    xs = np.linspace(0.0, 1.0, 12).reshape(4, 3)
    c0 = np.array([0.5, -0.5])
    c_j, ys_j = tdx.jit(f)(c0, xs)
    c_e, ys_e = f(c0, xs)
    np.testing.assert_allclose(np.asarray(c_j), np.asarray(c_e))
    np.testing.assert_allclose(np.asarray(ys_j), np.asarray(ys_e))
    h = c0
    ys_ref = np.zeros(4)
    for i in (3, 2, 1, 0):
        h2 = np.tanh(w.T @ h + xs[i])
        h, ys_ref[i] = w @ h2, h2.sum()
    np.testing.assert_allclose(np.asarray(c_j), h)
    np.testing.assert_allclose(np.asarray(ys_j), ys_ref)


def test_jit_while_equals_eager() -> None:
    def f(x: Value) -> object:
        return lax.while_loop(lambda c: lax.lt(c, 100.0), lambda c: lax.mul(c, x), 1.0)

    for x in (1.5, 3.0, 200.0):
        assert float(np.asarray(tdx.jit(f)(x))) == float(np.asarray(f(x)))
    assert "stablehlo.while" in tdx.jit(f).trace(2.0).lower().as_text()


def test_jit_fori_both_forms() -> None:
    def f(n: Value, x: Value) -> object:
        return lax.fori_loop(0, n, lambda i, c: lax.add(lax.mul(c, x), lax.convert_element_type(i, np.float64)), 1.0)

    for n in (0, 3, 7):
        ref = 1.0
        for i in range(n):
            ref = ref * 0.5 + i
        assert float(np.asarray(tdx.jit(f)(n, 0.5))) == pytest.approx(ref)
        assert float(np.asarray(tdx.jit(lambda x: f(n, x))(0.5))) == pytest.approx(ref)


def test_jit_of_vmap_while_batched_predicate() -> None:
    def f(x: Value) -> object:
        return lax.while_loop(lambda c: lax.lt(c, 10.0), lambda c: lax.mul(c, x), 1.0)

    xs = np.array([2.0, 3.0, 11.0, 1.5])
    np.testing.assert_allclose(
        np.asarray(tdx.jit(tdx.vmap(f))(xs)), [float(np.asarray(f(x))) for x in xs]
    )


# -- reverse mode ---------------------------------------------------------------


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_grad_matches_finite_differences(reverse: bool) -> None:
    xs = np.linspace(-1.0, 1.0, 6)

    def f(w: Value) -> Value:
        c, ys = lax.scan(lambda c, x: (lax.tanh(lax.add(lax.mul(c, w), x)), lax.mul(c, c)), 0.3, xs, reverse=reverse)
        return lax.add(tnp.sum(ys), c)

    fd = float(_fd(f, 0.9))
    assert float(np.asarray(tdx.grad(f)(0.9))) == pytest.approx(fd, rel=1e-6)
    assert float(np.asarray(tdx.jit(tdx.grad(f))(0.9))) == pytest.approx(fd, rel=1e-6)
    assert float(np.asarray(tdx.grad(tdx.jit(f))(0.9))) == pytest.approx(fd, rel=1e-6)


def test_scan_grad_wrt_init_and_xs() -> None:
    def f(c: Value, xs: Value) -> Value:
        c2, ys = lax.scan(rnn_cell, c, xs)
        return lax.add(tnp.sum(ys), lax.mul(c2, 2.0))

    xs = np.linspace(-1.0, 1.0, 5)
    gc, gx = tdx.grad(f, argnums=(0, 1))(0.2, xs)
    assert float(np.asarray(gc)) == pytest.approx(float(_fd(lambda c: f(c, xs), 0.2)), rel=1e-6)
    eps = 1e-6
    for i in range(5):
        d = np.zeros(5)
        d[i] = eps
        fd = (float(np.asarray(f(0.2, xs + d))) - float(np.asarray(f(0.2, xs - d)))) / (2 * eps)
        assert float(np.asarray(gx)[i]) == pytest.approx(fd, rel=1e-5)


def test_fori_static_grad() -> None:
    def f(x: Value) -> object:
        return lax.fori_loop(0, 4, lambda i, c: lax.sin(lax.mul(c, x)), 1.0)

    fd = float(_fd(f, 0.7))
    assert float(np.asarray(tdx.grad(f)(0.7))) == pytest.approx(fd, rel=1e-6)  # type: ignore[arg-type]  # a leaf
    assert float(np.asarray(tdx.jit(tdx.grad(f))(0.7))) == pytest.approx(fd, rel=1e-6)  # type: ignore[arg-type]  # a leaf


def test_while_linearize_works_but_grad_raises() -> None:
    def f(x: Value) -> object:
        return lax.while_loop(lambda c: lax.lt(c, 10.0), lambda c: lax.mul(c, x), 1.0)

    y, f_lin = tdx.linearize(f, 3.0)
    assert float(np.asarray(f_lin(1.0))) == pytest.approx(27.0)
    with pytest.raises(ReverseModeError, match="use lax.scan|Use lax.scan"):
        tdx.grad(f)(3.0)  # type: ignore[arg-type]  # a leaf
    with pytest.raises(ReverseModeError, match="fori_loop with static"):  # a traced bound: a while_loop
        tdx.jit(tdx.grad(lambda x, n: lax.fori_loop(0, n, lambda i, c: lax.mul(c, x), 1.0)))(3.0, 3)
    # a known one (an array too) is a scan, as JAX's: reverse mode works
    g = tdx.grad(lambda x: lax.fori_loop(0, np.asarray(3), lambda i, c: lax.mul(c, x), 1.0))(3.0)
    assert float(np.asarray(g)) == 27.0
    with pytest.raises(ReverseModeError):
        tdx.jit(tdx.grad(f))(3.0)  # type: ignore[arg-type]  # a leaf


# -- abstract evaluation of the primitives (what typecheck_jaxpr relies on) ------


def test_while_abstract_eval_errors() -> None:
    from pyrsistent import pmap

    from typedax.control_flow import WhileParams
    from typedax.core import ShapedArray

    f64 = ShapedArray((), np.dtype(np.float64))
    not_bool = tdx.make_jaxpr(lambda c: c)(1.0).jaxpr
    pred = tdx.make_jaxpr(lambda c: lax.lt(c, 1.0))(1.0).jaxpr
    to_f32 = tdx.make_jaxpr(lambda c: lax.convert_element_type(c, np.float32))(1.0).jaxpr
    with pytest.raises(PrimitiveTypeError, match="cond_jaxpr must return one bool"):
        while_p.abstract_eval([f64], WhileParams(not_bool, not_bool, 0, 0).to_params())
    with pytest.raises(PrimitiveTypeError, match="body_jaxpr must return the carry's types"):
        while_p.abstract_eval([f64], WhileParams(pred, to_f32, 0, 0).to_params())
    with pytest.raises(PrimitiveTypeError, match="missing param"):
        while_p.abstract_eval([f64], pmap())


def test_scan_abstract_eval_errors() -> None:
    from typedax.control_flow import ScanParams
    from typedax.core import ShapedArray

    f64 = ShapedArray((), np.dtype(np.float64))
    body = tdx.make_jaxpr(lambda c, x: (lax.add(c, x), c))(1.0, 1.0).jaxpr
    bad = tdx.make_jaxpr(lambda c, x: (lax.convert_element_type(c, np.float32), c))(1.0, 1.0).jaxpr
    xs = ShapedArray((3,), np.dtype(np.float64))
    assert [a.shape for a in scan_p.abstract_eval([f64, xs], ScanParams(body, 0, 1, 3, False, 1).to_params())] == [(), (3,)]
    with pytest.raises(PrimitiveTypeError, match="leading axis 4"):
        scan_p.abstract_eval([f64, xs], ScanParams(body, 0, 1, 4, False, 1).to_params())
    with pytest.raises(PrimitiveTypeError, match="must return the carry's types"):
        scan_p.abstract_eval([f64, xs], ScanParams(bad, 0, 1, 3, False, 1).to_params())
    with pytest.raises(PrimitiveTypeError, match="length must be >= 0"):
        scan_p.abstract_eval([f64], ScanParams(body, 0, 1, -1, False, 1).to_params())
    with pytest.raises(PrimitiveTypeError, match="unroll must be >= 0"):
        scan_p.abstract_eval([f64, xs], ScanParams(body, 0, 1, 3, False, -1).to_params())


def test_grad_through_while_loop_whose_tangent_is_a_symbolic_zero() -> None:
    """A loop closing over a differentiated value whose derivative is a
    symbolic zero (through ``ceil``): the unknown tangent constant is unused,
    so ``grad`` is 0 as in JAX (it raised an escaped-tracer error)."""
    import jax

    def f(lx: Any) -> Any:
        return lambda p: lx.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + lx.ceil(p)), (0, 0.0))[1]

    assert float(tdx.grad(f(lax))(0.3)) == float(jax.grad(f(jax.lax))(0.3)) == 0.0
    assert float(tdx.jit(tdx.grad(f(lax)))(0.3)) == 0.0
