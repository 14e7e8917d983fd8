"""Control flow with hypothesis-generated loop bodies and branches, and the
jaxprs of cond / while / scan through every pure transformation.

Each generated body wraps a random well-typed jaxpr ``J`` (from
``typedax.testing``) so that the loop stays in ``J``'s domain: the carry is
``J``'s inputs, updated as ``c' = 2 tanh(c / 2 + 0.1 s)`` (inside (-2, 2),
where generated jaxprs are finite) with ``s`` mixing ``J``'s outputs and the
scanned ``x``; ``J``'s outputs are the ``y``s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import Jaxpr
from typedax.core.errors import ReverseModeError
from typedax.core.trace import Value, aval_of
from typedax.core.eval import eval_jaxpr
from typedax.testing import args_for, jaxprs
from typedax.transforms import (
    dce_jaxpr,
    jvp_jaxpr,
    linearize_jaxpr,
    partial_eval_jaxpr,
    transpose_jaxpr,
    vmap_jaxpr,
)

LENGTH = 4
Carry = tuple[Value, ...]
Step = Callable[[Carry, Value], tuple[Carry, Carry]]


def step_of(j: Jaxpr) -> Step:
    def step(carry: Carry, x: Value) -> tuple[Carry, Carry]:
        outs = eval_jaxpr(j, list(carry))
        s = x
        for o in outs:
            total = lax.reduce_sum(o, tuple(range(aval_of(o).ndim)))
            s = lax.add(s, lax.tanh(lax.convert_element_type(total, np.float64)))
        s = tnp.multiply(s, 0.1)
        new = tuple(tnp.multiply(tnp.tanh(tnp.add(tnp.multiply(c, 0.5), s)), 2.0) for c in carry)
        return new, tuple(outs)

    return step


def python_loop(step: Step, init: Carry, xs: np.ndarray) -> tuple[Carry, list[Carry]]:
    carry, ys = init, []
    for x in xs:
        carry, y = step(carry, x)
        ys.append(y)
    return carry, ys


cases = jaxprs(differentiable=True, min_inputs=1, max_inputs=3, max_outputs=2, max_eqns=5).flatmap(
    lambda j: st.tuples(st.just(j), args_for(j), args_for(j))
)
XS = np.linspace(-1.0, 1.0, LENGTH)


def close(a: object, b: object) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                               rtol=1e-9, atol=1e-9)


@given(cases)
def test_generated_scan_equals_python_loop(case: tuple[Jaxpr, list[np.ndarray], list[np.ndarray]]) -> None:
    j, args, _ = case
    step = step_of(j)
    init = tuple(args)
    (c, ys) = lax.scan(step, init, XS)
    c_ref, ys_ref = python_loop(step, init, XS)
    for a, b in zip(c, c_ref):
        close(a, b)
    for k, y in enumerate(ys):
        close(y, np.stack([np.asarray(yr[k], dtype=np.float64) for yr in ys_ref]))


@given(cases)
def test_generated_while_and_fori_equal_scan(case: tuple[Jaxpr, list[np.ndarray], list[np.ndarray]]) -> None:
    j, args, _ = case
    step = step_of(j)
    init = tuple(args)
    c_scan, _ = lax.scan(step, init, np.zeros(LENGTH))

    def body(i: Value, c: Carry) -> Carry:
        return step(c, 0.0)[0]

    c_while = lax.fori_loop(0, np.asarray(LENGTH), body, init)  # traced-style bound: a while loop
    c_static = lax.fori_loop(0, LENGTH, body, init)
    for a, b, c in zip(c_scan, c_while, c_static):
        close(a, b)
        close(a, c)


@given(cases, st.booleans())
def test_generated_cond_equals_python(case: tuple[Jaxpr, list[np.ndarray], list[np.ndarray]], p: bool) -> None:
    j, args, _ = case
    step = step_of(j)
    init = tuple(args)
    out = lax.cond(p, lambda c: step(c, 0.5)[0], lambda c: c, init)
    ref = step(init, 0.5)[0] if p else init
    for a, b in zip(out, ref):
        close(a, b)


def _dot(xs: Sequence[object], ys: Sequence[object]) -> float:
    return float(sum(np.sum(np.asarray(a) * np.asarray(b)) for a, b in zip(xs, ys)))


@given(cases)
def test_generated_scan_jvp_vjp_and_finite_differences(
    case: tuple[Jaxpr, list[np.ndarray], list[np.ndarray]],
) -> None:
    j, args, other = case
    step = step_of(j)

    def f(*init: Value) -> tuple[Carry, Carry]:
        return lax.scan(step, tuple(init), XS)

    tangents = tuple(np.asarray(o) * 0.5 for o in other)
    out, t_out = tdx.jvp(f, tuple(args), tangents)
    out_leaves = tdx.tree.leaves(out)
    t_leaves = tdx.tree.leaves(t_out)
    cts = [np.cos(np.asarray(o, dtype=np.float64) + k) for k, o in enumerate(out_leaves)]
    _, f_vjp = tdx.vjp(f, *args)
    ct_in = f_vjp(tdx.tree.unflatten(tdx.tree.structure(out), cts))
    # <ct, J t> = <J^T ct, t>
    assert _dot(cts, t_leaves) == pytest.approx(_dot(ct_in, tangents), rel=1e-7, abs=1e-9)
    eps = 1e-6
    hi = tdx.tree.leaves(f(*[a + eps * t for a, t in zip(args, tangents)]))
    lo = tdx.tree.leaves(f(*[a - eps * t for a, t in zip(args, tangents)]))
    for t, h, l in zip(t_leaves, hi, lo):
        fd = (np.asarray(h, dtype=np.float64) - np.asarray(l, dtype=np.float64)) / (2 * eps)
        np.testing.assert_allclose(np.asarray(t, dtype=np.float64), fd, rtol=1e-4, atol=1e-6)


@given(cases)
def test_generated_scan_vmap_equals_loop_over_batch(
    case: tuple[Jaxpr, list[np.ndarray], list[np.ndarray]],
) -> None:
    j, args, other = case
    step = step_of(j)
    batch = [np.stack([a, b]) for a, b in zip(args, other)]
    xs = np.stack([XS, XS[::-1]])

    def f(init: Carry, xs: Value) -> tuple[Carry, Carry]:
        return lax.scan(step, init, xs)

    out = tdx.vmap(f)(tuple(batch), xs)
    for k, ex in enumerate((args, other)):
        ref = f(tuple(ex), xs[k])
        for a, b in zip(tdx.tree.leaves(out), tdx.tree.leaves(ref)):
            close(np.asarray(a)[k], b)


@settings(max_examples=8)
@given(cases)
def test_generated_scan_jit_equals_eager(case: tuple[Jaxpr, list[np.ndarray], list[np.ndarray]]) -> None:
    j, args, _ = case
    step = step_of(j)

    def f(init: Carry) -> tuple[Carry, Carry]:
        return lax.scan(step, init, XS)

    for a, b in zip(tdx.tree.leaves(tdx.jit(f)(tuple(args))), tdx.tree.leaves(f(tuple(args)))):
        close(a, b)


# -- the pure transformations on jaxprs with control flow ------------------------


def f_cond(x: Value, y: Value) -> Value:
    return lax.cond(lax.gt(x, 0.0), lambda a, b: lax.mul(lax.sin(a), b), lambda a, b: lax.cos(lax.add(a, b)), x, y)


def f_while(x: Value, y: Value) -> Value:
    return lax.while_loop(
        lambda c: lax.lt(c[0], 3),
        lambda c: (lax.add(c[0], 1), lax.sin(lax.add(lax.mul(c[1], x), y))),
        (0, x),
    )[1]


def f_scan(x: Value, y: Value) -> Value:
    c, ys = lax.scan(lambda c, xi: (lax.tanh(lax.add(lax.mul(c, x), xi)), lax.mul(c, y)), x, lax.broadcast(y, (3,)))
    return lax.add(c, lax.reduce_sum(ys, (0,)))


FUNS = {"cond": f_cond, "while": f_while, "scan": f_scan}
POINTS = [(0.7, -0.4), (-0.6, 0.3)]


def _fd(f: Callable[[float, float], Value], x: float, y: float, which: int, eps: float = 1e-6) -> float:
    if which == 0:
        return (float(np.asarray(f(x + eps, y))) - float(np.asarray(f(x - eps, y)))) / (2 * eps)
    return (float(np.asarray(f(x, y + eps))) - float(np.asarray(f(x, y - eps)))) / (2 * eps)


@pytest.mark.parametrize("name", sorted(FUNS))
def test_text_round_trip_and_typecheck(name: str) -> None:
    j = tdx.make_jaxpr(FUNS[name])(0.5, 0.5).jaxpr
    text = str(j)
    back = tdx.parse_jaxpr(text)
    assert back == j
    assert str(back) == text
    assert tdx.typecheck_jaxpr(back) == tdx.typecheck_jaxpr(j)


@pytest.mark.parametrize("name", sorted(FUNS))
@pytest.mark.parametrize("x, y", POINTS)
def test_pure_transformations(name: str, x: float, y: float) -> None:
    f = FUNS[name]
    j = tdx.make_jaxpr(f)(0.5, 0.5).jaxpr
    value = float(np.asarray(f(x, y)))
    # jvp_jaxpr: primal outputs then tangents
    jj = jvp_jaxpr(j)
    tdx.typecheck_jaxpr(jj)
    p, t = eval_jaxpr(jj, [x, y, 1.0, 0.0])
    assert float(np.asarray(p)) == pytest.approx(value)
    assert float(np.asarray(t)) == pytest.approx(_fd(f, x, y, 0), rel=1e-6, abs=1e-8)
    # vmap_jaxpr: per example
    vj = vmap_jaxpr(j, 2, [0, None])
    (out,) = eval_jaxpr(vj, [np.array([x, -x]), y])
    np.testing.assert_allclose(np.asarray(out), [value, float(np.asarray(f(-x, y)))])
    # dce_jaxpr keeps the meaning
    d, used = dce_jaxpr(j, [True])
    assert float(np.asarray(eval_jaxpr(d, [a for a, u in zip([x, y], used) if u])[0])) == pytest.approx(value)
    # partial_eval_jaxpr with y unknown: known part then unknown part
    j1, j2, out_uk, nres = partial_eval_jaxpr(j, [False, True])
    known = eval_jaxpr(j1, [x])
    n_known = out_uk.count(False)
    rest = eval_jaxpr(j2, [*known[n_known:], y])
    res = known[:n_known] if not out_uk[0] else rest
    assert float(np.asarray(res[0])) == pytest.approx(value)
    # linearize_jaxpr, then transpose_jaxpr of the linear part (reverse mode)
    jp, jl, nres = linearize_jaxpr(j)
    prim = eval_jaxpr(jp, [x, y])
    assert float(np.asarray(prim[0])) == pytest.approx(value)
    (tl,) = eval_jaxpr(jl, [*prim[1:], 0.0, 1.0])
    assert float(np.asarray(tl)) == pytest.approx(_fd(f, x, y, 1), rel=1e-6, abs=1e-8)
    lin_in = [False] * nres + [True, True]
    if name == "while":
        with pytest.raises(ReverseModeError):
            transpose_jaxpr(jl, lin_in)
        return
    tj = transpose_jaxpr(jl, lin_in)
    tdx.typecheck_jaxpr(tj)
    gx, gy = eval_jaxpr(tj, [*prim[1:], 1.0])
    assert float(np.asarray(gx)) == pytest.approx(_fd(f, x, y, 0), rel=1e-6, abs=1e-8)
    assert float(np.asarray(gy)) == pytest.approx(_fd(f, x, y, 1), rel=1e-6, abs=1e-8)
