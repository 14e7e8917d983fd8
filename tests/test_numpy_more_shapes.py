"""Issue 12, group 2: creation and manipulation functions of typedax.numpy
against jax.numpy (the oracle): values and dtypes eager and under jit,
gradients, vmap, and JAX's errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import AxisError, PrimitiveTypeError

from _numpy_oracle import Table, assert_same, by_name, check, grad_check

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

R = np.random.default_rng(1)
M34 = R.normal(size=(3, 4))
M34F = M34.astype(np.float32)
T234 = R.normal(size=(2, 3, 4))
I34 = R.integers(-5, 5, size=(3, 4)).astype(np.int32)
B34 = R.normal(size=(3, 4)) > 0
V3 = np.array([1.0, -2.0, 0.5])
V4 = np.arange(4.0)
IV = np.array([3, 1, 4, 1, 5], np.int32)

# (function name, positional args, keyword args): called alike on tnp and jnp
CASES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("eye", (3,), {}), ("eye", (3, 5, 1), {}), ("eye", (4, 2), {"k": -1, "dtype": np.int32}),
    ("eye", (0,), {}), ("identity", (3,), {"dtype": bool}),
    ("tri", (3, 4, 1), {}), ("tri", (2,), {"dtype": np.int32, "k": -1}),
    ("tril", (M34,), {}), ("tril", (T234, 1), {}), ("triu", (I34, -1), {}), ("triu", (B34,), {}),
    ("diag", (V3,), {}), ("diag", (V3, 2), {}), ("diag", (V3, -1), {}), ("diag", (M34,), {}),
    ("diag", (M34, 1), {}), ("diag", (M34, -2), {}), ("diag", (M34, 7), {}),
    ("diagonal", (T234,), {}), ("diagonal", (T234, 1, 1, 2), {}), ("diagonal", (T234, -1, 2, 0), {}),
    ("diagonal", (I34, 2), {}),
    ("trace", (M34,), {}), ("trace", (I34, 1), {}), ("trace", (T234, 0, 1, 2), {}),
    ("trace", (B34,), {}), ("trace", (I34,), {"dtype": np.float32}),
    ("empty", ((2, 3),), {}), ("empty", (4,), {"dtype": np.int32}), ("empty_like", (I34,), {}),
    ("moveaxis", (T234, 0, -1), {}), ("moveaxis", (T234, (0, 1), (2, 0)), {}),
    ("swapaxes", (T234, 0, 2), {}), ("permute_dims", (T234, (1, 2, 0)), {}),
    ("matrix_transpose", (T234,), {}),
    ("atleast_1d", (2.0,), {}), ("atleast_1d", (V3,), {}), ("atleast_2d", (V3,), {}),
    ("atleast_2d", (M34,), {}), ("atleast_3d", (1.0,), {}), ("atleast_3d", (V3,), {}),
    ("atleast_3d", (M34,), {}), ("atleast_3d", (T234,), {}),
    ("broadcast_to", (V3, (2, 3)), {}),
    ("concat", ([M34, I34],), {}), ("concat", ([M34, I34],), {"axis": 1}), ("concat", ([V3, V4],), {"axis": None}),
    ("hstack", ([V3, V4],), {}), ("hstack", ([M34, I34],), {}), ("vstack", ([V4, V4],), {}),
    ("vstack", ([M34, I34],), {}), ("dstack", ([M34, I34],), {}), ("dstack", ([V3, V3],), {}),
    ("column_stack", ([V3, V3],), {}), ("column_stack", ([M34[:, :2], V3],), {}),
    ("append", (M34, I34), {}), ("append", (M34, I34, 0), {}), ("append", (V3, 2.0), {}),
    ("tile", (V3, 2), {}), ("tile", (M34, (2, 1)), {}), ("tile", (V3, (2, 1, 2)), {}), ("tile", (I34, 0), {}),
    ("repeat", (V3, 2), {}), ("repeat", (M34, 3, 1), {}), ("repeat", (M34, np.array([1, 0, 2]), 0), {}),
    ("repeat", (I34, 2), {"axis": None}), ("repeat", (V3, np.array([2, 1, 3])), {"total_repeat_length": 4}),
    ("repeat", (V3, np.array([2, 1, 3])), {"total_repeat_length": 8}),
    ("roll", (V4, 1), {}), ("roll", (V4, -5), {}), ("roll", (M34, 2), {}), ("roll", (M34, 1, 1), {}),
    ("roll", (T234, (1, -1), (0, 2)), {}),
    ("take", (M34, IV[:3]), {}), ("take", (M34, np.array([[0, -1], [2, 7]]), 1), {}),
    ("take", (M34, np.array([0, 5, -1])), {"axis": 0, "mode": "clip"}),
    ("take", (I34, np.array([0, 5, -1, -9])), {"axis": 1}),
    ("take", (M34, np.array([0, 5, -1])), {"axis": 1, "mode": "wrap"}),
    ("take", (M34, np.array([4, 13])), {"fill_value": 2.5}),
    ("take_along_axis", (M34, np.argsort(M34, axis=1), 1), {}),
    ("take_along_axis", (M34, np.array([[0], [2], [-1]]), 1), {}),
    ("take_along_axis", (M34, np.array([[0, 1, 2, 9]]), 0), {}),
    ("take_along_axis", (V4, np.array([3, 0])), {"axis": None}),
    ("diff", (V4 ** 2,), {}), ("diff", (M34, 2, 0), {}), ("diff", (I34,), {"prepend": 0, "append": I34[:, :1]}),
    ("diff", (B34,), {}), ("diff", (V3, 0), {}),
    ("ediff1d", (M34,), {}), ("ediff1d", (I34,), {"to_begin": np.array([7, 8]), "to_end": 2.7}),
    ("outer", (V3, V4), {}), ("outer", (I34, V3), {}),
    ("inner", (V3, V3), {}), ("inner", (M34, T234), {}), ("inner", (2.0, M34), {}),
    ("vdot", (M34, M34), {}), ("vdot", (I34, M34), {}),
    ("tensordot", (T234, M34.T, 1), {}), ("tensordot", (T234, T234, 3), {}), ("tensordot", (M34, V4, 0), {}),
    ("tensordot", (T234, M34, ((1, 2), (0, 1))), {}), ("tensordot", (I34, B34, ([0], [0])), {}),
    ("kron", (M34[:2, :2], I34[:2]), {}), ("kron", (V3, M34), {}),
    ("cross", (V3, V3[::-1]), {}), ("cross", (M34[:, :3], V3), {}), ("cross", (M34[:, :2], M34[:, 2:]), {}),
    ("cross", (M34[:, :2], M34[:, 1:]), {}), ("cross", (M34[:3, :3], M34[:3, 1:]), {"axisa": 0, "axisb": 1, "axisc": 0}),
    ("cross", (I34[:, :3], I34[:, 1:]), {}),
    ("trapezoid", (M34,), {}), ("trapezoid", (M34,), {"dx": 0.5, "axis": 0}), ("trapezoid", (M34, V4), {}),
    ("trapezoid", (M34, np.cumsum(np.abs(M34), 1)), {}), ("trapezoid", (I34,), {}),
    ("trapezoid", (M34F,), {}),
]


TABLE = Table(CASES, by_name, static=lambda name, i: name == "repeat" and i == 1)


# JAX 0.11's tri gives float64 under x64 where 0.10's gives float32
@pytest.mark.parametrize("case", [
    pytest.param(i, id=f"{c[0]}-{i}", marks=[pytest.mark.pinned_jax] if c[0] == "tri" and "dtype" not in c[2] else [])
    for i, c in enumerate(CASES)
])
def test_against_jax(case: int) -> None:
    TABLE.check(case)


@pytest.mark.parametrize("name, args", [
    ("meshgrid", (V3, V4)), ("meshgrid", (V3, V4, IV)), ("meshgrid", (V3,)),
    ("split", (V4 * 1.5, 2)), ("split", (M34, [1, 3], 1)), ("split", (T234, [1, 3], 2)),
    ("array_split", (V4, 3)), ("array_split", (M34, 5, 1)),
    ("hsplit", (M34, 2)), ("hsplit", (V4, [1])), ("vsplit", (M34, [1])), ("dsplit", (T234, 2)),
    ("broadcast_arrays", (V3, M34[:, :1], 2.0)), ("unstack", (M34,)),
    ("atleast_2d", (V3, 1.0, M34)),
])
def test_list_results_against_jax(name: str, args: tuple[Any, ...]) -> None:
    got, want = getattr(tnp, name)(*args), getattr(jnp, name)(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w, what=name)


def test_list_results_under_jit_and_options() -> None:
    for kw in ({"indexing": "ij"}, {"sparse": True}, {"sparse": True, "indexing": "ij"}):
        got = tdx.jit(lambda a, b, kw=kw: tnp.meshgrid(a, b, **kw))(V3, V4)
        want = jnp.meshgrid(V3, V4, **kw)
        for g, w in zip(got, want):
            assert_same(g, w)
    assert_same(tdx.jit(lambda x: tnp.split(x, 3, axis=1))(T234[:, :, :3]), jnp.split(T234[:, :, :3], 3, axis=2 - 1))
    assert_same(tnp.unstack(T234, axis=-1), jnp.unstack(T234, axis=-1))
    assert tnp.broadcast_shapes((2, 1), (3,), ()) == jnp.broadcast_shapes((2, 1), (3,), ())
    assert_same(tnp.indices((2, 3)), jnp.indices((2, 3)))
    assert_same(tnp.indices((2, 3), dtype=np.int32, sparse=True), jnp.indices((2, 3), dtype=np.int32, sparse=True))


def test_traced_roll_shift_and_repeats() -> None:
    for s in (-3, 0, 2, 7):
        got = tdx.jit(lambda x, k: tnp.roll(x, k))(M34, np.int32(s))
        assert_same(got, jnp.roll(M34, s))
        got = tdx.jit(lambda x, k: tnp.roll(x, k, axis=1))(M34, np.int64(s))
        assert_same(got, jnp.roll(M34, s, axis=1))
    reps = np.array([2, 0, 3])
    for total in (3, 5, 8):
        got = tdx.jit(lambda x, r, t=total: tnp.repeat(x, r, total_repeat_length=t))(V3, reps)
        assert_same(got, jnp.repeat(V3, reps, total_repeat_length=total))
    with pytest.raises(PrimitiveTypeError, match="total_repeat_length"):
        tdx.jit(lambda x, r: tnp.repeat(x, r))(V3, reps)


@pytest.mark.parametrize("name, f", [
    ("tensordot", lambda m, a, b: m.tensordot(a, b.T, 1)),
    ("kron", lambda m, a, b: m.kron(a, b)),
    ("outer", lambda m, a, b: m.outer(a, b)),
    ("inner", lambda m, a, b: m.inner(a, b)),
    ("vdot", lambda m, a, b: m.vdot(a, b)),
    ("cross", lambda m, a, b: m.cross(a[:, :3], b[:, 1:])),
    ("trapezoid", lambda m, a, b: m.trapezoid(a, m.cumsum(m.abs(b), 1))),
    ("diagonal+trace", lambda m, a, b: m.diagonal(a, 1) * m.trace(b)),
    ("tril/triu/diag", lambda m, a, b: m.tril(a) + m.triu(b, 1) + m.diag(m.diag(a))[:, :1]),
    ("take", lambda m, a, b: m.take(a, np.array([[2, 0], [1, 1]]), 1) * m.take_along_axis(b, np.array([[3], [0], [1]]), 1)[:2]),
    ("tile/repeat/roll", lambda m, a, b: m.tile(a, (1, 2)) + m.repeat(b, 2, 1) + m.repeat(m.roll(a, 3, None).reshape(3, 4), 2, 1)),
    ("stacks", lambda m, a, b: m.hstack([a, b]) * m.concat([b, a], axis=1)),
    ("diff", lambda m, a, b: m.diff(a, 2, 1, append=b[:, :1])),
])
def test_grads_against_jax(name: str, f: Any) -> None:
    a, b = M34, R.normal(size=(3, 4))
    for argnums in (0, 1):
        got = tdx.grad(lambda x, y: tnp.sum(tnp.sin(f(tnp, x, y))), argnums=argnums)(a, b)
        want = jax.jit(jax.grad(lambda x, y: jnp.sum(jnp.sin(f(jnp, x, y))), argnums=argnums))(a, b)
        assert_same(got, want, rtol=1e-10, what=name)


def test_vmap_against_a_loop() -> None:
    xs = R.normal(size=(5, 3, 4))
    fs: list[Callable[[Any], tdx.Array]] = [
        lambda x: tnp.diagonal(x, 1),
        lambda x: tnp.tril(x) @ tnp.triu(x).T,
        lambda x: tnp.take(x, np.array([2, 0]), 0),
        lambda x: tnp.take_along_axis(x, tnp.argsort(x, axis=1), 1),
        lambda x: tnp.tensordot(x, x, ((0, 1), (0, 1))),
        lambda x: tnp.roll(tnp.tile(x, 2), 3, 1),
        lambda x: tnp.cross(x[:, :3], x[:, 1:]),
        lambda x: tnp.kron(x[:2, :2], x[:, :1]),
    ]
    for f in fs:
        assert_same(tdx.vmap(f)(xs), np.stack([np.asarray(f(x)) for x in xs]))
    ks = np.array([0, 1, -2, 5, 3], np.int32)
    assert_same(tdx.vmap(lambda x, k: tnp.roll(x, k, 1))(xs, ks), np.stack([np.roll(x, k, 1) for x, k in zip(xs, ks)]))


@pytest.mark.parametrize("call, err, match", [
    (lambda: tnp.split(np.zeros(5), 2), PrimitiveTypeError, "equal division"),
    (lambda: tnp.vsplit(np.zeros(4), 2), PrimitiveTypeError, "2 or more"),
    (lambda: tnp.dsplit(np.zeros((2, 2)), 2), PrimitiveTypeError, "3 or more"),
    (lambda: tnp.moveaxis(np.zeros((2, 3)), 2, 0), AxisError, "out of bounds"),
    (lambda: tnp.moveaxis(np.zeros((2, 3)), (0, 1), 0), PrimitiveTypeError, "Inconsistent"),
    (lambda: tnp.swapaxes(np.zeros((2, 3)), 0, -3), AxisError, "out of bounds"),
    (lambda: tnp.matrix_transpose(np.zeros(3)), PrimitiveTypeError, "two-dimensional"),
    (lambda: tnp.tril(np.zeros(3)), PrimitiveTypeError, "2-dimensional"),
    (lambda: tnp.diagonal(np.zeros((2, 2)), 0, 1, 1), PrimitiveTypeError, "same"),
    (lambda: tnp.diag(np.zeros((2, 2, 2))), PrimitiveTypeError, "1- or 2-dimensional"),
    (lambda: tnp.eye(-1), PrimitiveTypeError, "negative"),
    (lambda: tnp.eye(2.5), PrimitiveTypeError, "static integer"),  # type: ignore[arg-type]  # the error under test
    (lambda: tnp.meshgrid(np.zeros((2, 2))), PrimitiveTypeError, "1D"),
    (lambda: tnp.meshgrid(np.zeros(2), indexing="zz"), PrimitiveTypeError, "indexing"),
    (lambda: tnp.broadcast_shapes((2,), (3,)), PrimitiveTypeError, "incompatible"),
    (lambda: tnp.broadcast_arrays(np.zeros(2), np.zeros(3)), PrimitiveTypeError, "incompatible"),
    (lambda: tnp.take(np.zeros(3), np.array([0]), mode="raise"), PrimitiveTypeError, "not supported"),
    (lambda: tnp.take(np.zeros(3), np.array([0]), mode="bogus"), PrimitiveTypeError, "Invalid mode"),
    (lambda: tnp.take(np.zeros(3), np.array([0.5])), PrimitiveTypeError, "integers"),
    (lambda: tnp.take_along_axis(np.zeros((2, 2)), np.zeros(2, np.int32), 0), PrimitiveTypeError, "same number"),
    (lambda: tnp.take_along_axis(np.zeros((2, 2)), np.zeros((2, 2)), 0), PrimitiveTypeError, "integer type"),
    (lambda: tnp.diff(np.zeros(3), -1), PrimitiveTypeError, "non-negative"),
    (lambda: tnp.diff(np.float64(1.0)), PrimitiveTypeError, "at least one dimensional"),
    (lambda: tnp.tensordot(np.zeros((2, 3)), np.zeros((3, 2)), 3), PrimitiveTypeError, "exceeds"),
    (lambda: tnp.tensordot(np.zeros((2, 3)), np.zeros((3, 2)), ([0], [0])), PrimitiveTypeError, "shape mismatch"),
    (lambda: tnp.tensordot(np.zeros((2, 3)), np.zeros((3, 2)), ([0, 1], [0])), PrimitiveTypeError, "equal length"),
    (lambda: tnp.cross(np.zeros(4), np.zeros(3)), PrimitiveTypeError, "dimension must be 2 or 3"),
    (lambda: tnp.repeat(np.zeros(3), -1), PrimitiveTypeError, "negative"),
    (lambda: tnp.repeat(np.zeros(3), 2, total_repeat_length=5), PrimitiveTypeError, "total_repeat_length"),
    (lambda: tnp.unstack(np.float64(1.0)), PrimitiveTypeError, "rank > 0"),
    (lambda: tnp.fliplr(np.zeros(3)), PrimitiveTypeError, "at least 2"),
    (lambda: tnp.vdot(np.zeros(3), np.zeros(4)), PrimitiveTypeError, "same size"),
])
def test_errors(call: Any, err: type[Exception], match: str) -> None:
    with pytest.raises(err, match=match):
        call()


def test_fliplr_flipud() -> None:
    check(tnp.fliplr, jnp.fliplr, T234)
    check(tnp.flipud, jnp.flipud, V3)
    grad_check(tnp.flipud, jnp.flipud, M34)


def test_along_axis_indices_below_minus_n_are_out_of_bounds() -> None:
    """An index in [-2n, -n) is out of bounds (filled, clipped to 0, or
    dropped), not counted from the end twice."""
    x, i = np.arange(4.0), np.array([-5, -1, 4, 2])
    for kw in ({}, {"mode": "clip"}, {"mode": "fill", "fill_value": -7.0}):
        want = np.asarray(jnp.take_along_axis(x, i, 0, **kw))
        np.testing.assert_array_equal(np.asarray(tnp.take_along_axis(x, i, 0, **kw)), want)
    np.testing.assert_array_equal(np.asarray(tnp.take_along_axis(np.arange(8.0).reshape(2, 4), np.array([-9, 3]), None)),
                                  np.asarray(jnp.take_along_axis(np.arange(8.0).reshape(2, 4), np.array([-9, 3]), None)))
    np.testing.assert_array_equal(np.asarray(tnp.put_along_axis(x, np.array([-5, -1]), 9.0, 0, inplace=False)),
                                  np.asarray(jnp.put_along_axis(x, np.array([-5, -1]), 9.0, axis=0, inplace=False)))


def test_creation_ends_and_steps_are_jaxs() -> None:
    """Review findings: 16-bit aranges counted in float64 and rounded once,
    geomspace's ends exact (so an integer dtype keeps 1000), and
    cumulative_sum widening narrow integers."""
    for d in (jnp.float16, jnp.bfloat16):
        np.testing.assert_array_equal(np.asarray(tnp.arange(0, 3, 0.3, dtype=d)).astype(np.float64),
                                      np.asarray(jnp.arange(0, 3, 0.3, dtype=d)).astype(np.float64))
    np.testing.assert_array_equal(np.asarray(tnp.geomspace(1, 1000, 4, dtype=np.int64)), [1, 9, 99, 1000])
    np.testing.assert_allclose(np.asarray(tnp.geomspace(np.array([1.0, 2.0]), np.array([100.0, 200.0]), 3, axis=1)),
                               np.asarray(jnp.geomspace(np.array([1.0, 2.0]), np.array([100.0, 200.0]), 3, axis=1)))
    for f in ("cumulative_sum", "cumulative_prod"):
        for d in (np.int8, np.uint8, np.bool_, np.int32):
            x = np.ones(3, d)
            assert getattr(tnp, f)(x).dtype == getattr(jnp, f)(x).dtype, (f, d)
