"""Issue 12, group 5: more of typedax.numpy (divmod, modf, real/imag/angle,
isin, bitwise aliases, index helpers, select, delete, compress, put_along_axis,
cumulative_sum, vecdot/matvec/vecmat, apply_along_axis, polynomials, windows)
against jax.numpy: values and dtypes eager and under jit, grads, errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import AxisError, ConcretizationError, PrimitiveTypeError

from _examples import PROFILE, ci_jit
from _numpy_oracle import GradTable, Table, assert_same, by_name, jax_value

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

R = np.random.default_rng(5)
M = R.normal(size=(3, 4))
T = R.normal(size=(2, 3, 4))
I = R.integers(-6, 7, size=(3, 4)).astype(np.int32)
J = np.where(I == 0, 3, I).astype(np.int32)
X = np.array([-2.5, -1.0, -0.0, 0.0, 0.5, 3.75, np.inf, np.nan])
P = np.array([2.0, -1.0, 0.5, 3.0])

CASES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("divmod", (I, J), {}), ("divmod", (M, 0.7), {}), ("modf", (X,), {}), ("modf", (I,), {}),
    ("real", (M,), {}), ("imag", (I,), {}), ("conj", (M,), {}), ("conjugate", (I,), {}),
    ("angle", (X,), {}), ("angle", (I,), {"deg": True}), ("iscomplex", (M,), {}), ("isreal", (I,), {}),
    ("bitwise_count", (I,), {}), ("bitwise_count", (I.astype(np.uint16),), {}), ("bitwise_invert", (I,), {}),
    ("bitwise_left_shift", (I, np.int32(2)), {}), ("bitwise_right_shift", (I, np.int32(1)), {}),
    ("isin", (I, np.array([1, 2, -3])), {}), ("isin", (M, M[0]), {"invert": True}), ("isin", (I, 3), {}),
    ("copy", (M,), {}),
    ("select", ([M > 0.5, M < -0.5], [M, -M]), {}), ("select", ([I > 0, I < -2], [I, 2 * I]), {"default": -1}),
    ("select", ([M > 0], [I]), {"default": 0.5}),
    ("delete", (M, 1), {"axis": 1}), ("delete", (M, np.array([0, 2])), {}), ("delete", (T, slice(0, 3, 2)), {"axis": 2}),
    ("delete", (M, np.array([-1, 0])), {"axis": 0}),
    ("compress", (np.array([True, False, True]), M), {"axis": 0}), ("compress", (np.array([True, False, True]), M), {}),
    ("compress", (np.array([1, 0, 0, 1]), M), {"axis": 1, "size": 3, "fill_value": 9.0}),
    ("extract", (M > 0, M), {}), ("extract", (I > 0, I), {"size": 5}),
    ("put_along_axis", (M, np.array([[0], [2], [-1]]), 9.0, 1), {"inplace": False}),
    ("put_along_axis", (M, np.argsort(M, axis=0)[:1], M[:1] * 10, 0), {"inplace": False}),
    ("fill_diagonal", (M, 5.0), {"inplace": False}), ("fill_diagonal", (M, np.array([1.0, 2.0])), {"inplace": False}),
    ("fill_diagonal", (T[:, :2, :2].copy(), 0.5), {"inplace": False}),
    ("unravel_index", (np.array([0, 5, 11, 12, -1, -13]), (3, 4)), {}), ("unravel_index", (np.int32(7), (2, 2, 2)), {}),
    ("cumulative_sum", (M,), {"axis": 1}), ("cumulative_sum", (P,), {"include_initial": True}),
    ("cumulative_prod", (I,), {"axis": 0, "include_initial": True}), ("cumulative_sum", (I > 0,), {"axis": 1}),
    ("nancumsum", (X,), {}), ("nancumprod", (np.where(M > 1, np.nan, M), 1), {}), ("nancumsum", (I, 0), {}),
    ("vecdot", (M, M), {}), ("vecdot", (T, M), {"axis": -1}), ("vecdot", (T, T), {"axis": 1}),
    ("matvec", (T, M[0]), {}), ("matvec", (M, T[:, 0]), {}), ("vecmat", (M[:, 0], M), {}), ("vecmat", (T[:, :, 0], T), {}),
    ("rollaxis", (T, 2), {}), ("rollaxis", (T, 0, 3), {}), ("rollaxis", (T, -1, 1), {}),
    ("resize", (M, (2, 7)), {}), ("resize", (P, 3), {}), ("resize", (M, (0, 2)), {}),
    ("polyval", (P, M), {}), ("polyval", (P.astype(np.int32), I), {}), ("polyval", (P, 2.0), {}),
    ("polyadd", (P, P[:2]), {}), ("polyadd", (P[:1], I[0]), {}), ("polysub", (P[:2], P), {}),
    ("polymul", (P, P[:3]), {}), ("polymul", (I[0], I[1]), {}),
    ("polyder", (P,), {}), ("polyder", (P, 2), {}), ("polyder", (P, 0), {}), ("polyder", (I[0], 3), {}),
    ("polyint", (P,), {}), ("polyint", (P, 2), {"k": np.array([1.0, 2.0])}), ("polyint", (I[0],), {"k": 3}),
    ("vander", (P,), {}), ("vander", (I[0], 3), {"increasing": True}), ("vander", (P, 0), {}),
    ("hamming", (7,), {}), ("hanning", (6,), {}), ("bartlett", (5,), {}), ("blackman", (8,), {}), ("hamming", (1,), {}),
    ("bartlett", (0,), {}),
    ("partition", (M, 2), {}), ("partition", (T, 0, 1), {}), ("partition", (I.astype(np.uint32), 3), {}),
    ("argpartition", (M, 1), {}), ("argpartition", (T, 1, 0), {}), ("argpartition", (I, -1), {}),
    ("lexsort", ((I[0], I[1], I[2]),), {}), ("lexsort", (I,), {"axis": 0}),
    ("gcd", (I, J), {}), ("gcd", (I, np.int32(4)), {}), ("lcm", (I, J), {}), ("lcm", (I.astype(np.uint16), np.uint16(6)), {}),
    ("interp", (np.linspace(-1, 5, 13), np.array([0.0, 1.0, 3.0, 4.0]), P), {}),
    ("interp", (M, np.array([-1.0, 0.0, 2.0]), P[:3]), {"left": -9.0, "right": "extrapolate"}),
    ("interp", (np.linspace(-1, 5, 13), np.array([0.0, 1.0, 3.0, 4.0]), P), {"period": 3.5}),
]


TABLE = Table(CASES, by_name, static=lambda name, i: name == "delete" and i == 1,
              eager_only=lambda name, kw: name in ("compress", "extract") and "size" not in kw)


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_against_jax(case: int) -> None:
    TABLE.check(case)


@pytest.mark.parametrize("name, args", [
    ("tril_indices", (3, 1, 5)), ("triu_indices", (4, -1)), ("triu_indices_from", (M, 1)), ("diag_indices", (2, 3)),
    ("diag_indices_from", (np.zeros((3, 3, 3)),)),
])
def test_index_helpers_against_jax(name: str, args: tuple[Any, ...]) -> None:
    assert_same(getattr(tnp, name)(*args), getattr(jnp, name)(*args), what=name)


def test_apply_along_and_over_axes_and_fromfunction() -> None:
    for ax in (0, 1, 2):
        for f, g in ((lambda v: tnp.sort(v)[:2], lambda v: jnp.sort(v)[:2]), (tnp.sum, jnp.sum),
                     (lambda v: tnp.outer(v, v), lambda v: jnp.outer(v, v))):
            assert_same(tnp.apply_along_axis(f, ax, T), jnp.apply_along_axis(g, ax, T), rtol=1e-12)
    got = tdx.jit(lambda t: tnp.apply_along_axis(lambda v: tnp.cumsum(v) * 2.0, 1, t))(T)
    assert_same(got, jnp.apply_along_axis(lambda v: jnp.cumsum(v) * 2.0, 1, T), rtol=1e-12)
    assert_same(tnp.apply_over_axes(tnp.sum, T, [0, 2]), jnp.apply_over_axes(jnp.sum, T, [0, 2]), rtol=1e-12)
    assert_same(tnp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=np.int32),
                jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=np.int32))
    assert_same(tnp.fromfunction(lambda i, j: i - j, (3, 2)), jnp.fromfunction(lambda i, j: i - j, (3, 2)))
    assert tnp.iscomplexobj(M) is False and tnp.isrealobj(tnp.asarray(M)) is True


GRADS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("divmod/modf", lambda m, x: m.divmod(x, 0.7)[1] + m.modf(x * 3)[0]),
    ("select", lambda m, x: m.select([x > 0.5, x < -0.5], [x * x, m.sin(x)], default=1.0)),
    ("delete", lambda m, x: m.delete(x, 1, axis=1).sum() + m.delete(x, np.array([0, 2]), axis=0).sum()),
    ("put_along_axis", lambda m, x: m.put_along_axis(x, np.array([[1], [0], [3]]), x[:, :1] * 3, 1, inplace=False)),
    ("fill_diagonal", lambda m, x: m.fill_diagonal(x, x[0, 0] * 2, inplace=False)),
    ("cumulative_sum", lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True)),
    ("vecdot/matvec", lambda m, x: m.vecdot(x, x) + m.matvec(x, x[0])),
    ("polyval", lambda m, x: m.polyval(x[0], x)), ("polymul", lambda m, x: m.polymul(x[0], x[1])),
    ("polyint/polyder", lambda m, x: m.polyint(x[0], 2) + m.polyder(m.polyval(x[1], x[2]) * x[2, :], 1).sum()),
    ("vander", lambda m, x: m.vander(x[0], 3)),
    ("angle", lambda m, x: m.angle(x) * x),
    ("partition", lambda m, x: m.partition(x, 2)), ("interp", lambda m, x: m.interp(x, np.array([-1.0, 0.0, 2.0]), x[0, :3])),
]
GRAD_TABLE = GradTable([f for _, f in GRADS], M)


@pytest.mark.parametrize("case", range(len(GRADS)), ids=[g[0] for g in GRADS])
def test_grads_against_jax(case: int) -> None:
    GRAD_TABLE.check(case, what=GRADS[case][0])


@pytest.mark.parametrize("call, match", [
    (lambda: tnp.select([M > 0], [M, M]), "length"),
    (lambda: tnp.select([I], [M]), "boolean"),
    (lambda: tnp.select([], []), "non-empty"),
    (lambda: tnp.delete(M, 7, axis=1), "out of bounds"),
    (lambda: tnp.compress(M > 0, M), "1D"),
    (lambda: tdx.jit(lambda c: tnp.compress(c, M, axis=0))(np.array([True, False, True])), "static size"),
    (lambda: tnp.put_along_axis(M, np.array([[0]]), 1.0, 1), "inplace=False"),
    (lambda: tnp.fill_diagonal(M, 1.0), "inplace=False"),
    (lambda: tnp.fill_diagonal(T, 1.0, inplace=False), "equal length"),
    (lambda: tnp.cumulative_sum(M), "axis"),
    (lambda: tnp.vecdot(M, T[:, :, :3]), "differ"),
    (lambda: tnp.rollaxis(T, 0, 5), "start"),
    (lambda: tnp.resize(M, (-1, 2)), "non-negative"),
    (lambda: tnp.polyder(P, -1), "positive"),
    (lambda: tnp.polyint(P, 2, k=np.ones(3)), "length 1 or m"),
    (lambda: tnp.vander(M), "one-dimensional"),
    (lambda: tnp.bitwise_count(M), "integers"),
    (lambda: tnp.diag_indices_from(M), "equal length"),
    (lambda: tnp.tril_indices_from(T), "2-D"),
    (lambda: tnp.gcd(M, M), "integers"),
    (lambda: tnp.partition(M, 4), "out of bounds"),
    (lambda: tnp.lexsort([M[0], M[1, :2]]), "same shape"),
    (lambda: tnp.interp(M, M, M), "one-dimensional"),
    (lambda: tnp.interp(M, P, P[:2]), "same size"),
])
def test_errors(call: Callable[[], Any], match: str) -> None:
    with pytest.raises((PrimitiveTypeError, AxisError, ConcretizationError), match=match):
        call()


def test_compress_grad_and_vmap() -> None:
    c = np.array([True, False, True])
    got = tdx.grad(lambda x: tnp.sum(tnp.sin(tnp.compress(c, x, axis=0))))(M)
    want = jax.grad(lambda x: jnp.sum(jnp.sin(jnp.compress(c, x, axis=0))))(M)  # (JAX's needs c concrete: no jit)
    assert_same(got, want, rtol=1e-12)
    got = tdx.vmap(lambda x: tnp.extract(x > 0, x, size=3))(T)
    assert_same(got, np.stack([np.asarray(jnp.extract(t > 0, t, size=3)) for t in T]))


NANS = np.array([3.0, 1.0, 3.0, np.nan, np.nan, 2.0])
SET_A = np.array([3, 1, 3, 2, 5], np.int32)
SET_B = np.array([1, 5, 7, 7], np.int32)


@pytest.mark.parametrize("name", ["unique_values", "unique_counts", "unique_inverse", "unique_all"])
@pytest.mark.parametrize("x", [NANS, I], ids=["nans", "ints"])
def test_unique_array_api_against_jax(name: str, x: Any) -> None:
    got, want = getattr(tnp, name)(x), getattr(jnp, name)(x)
    if isinstance(want, tuple):
        assert type(got).__name__.lstrip("_") == type(want).__name__.lstrip("_")
        assert getattr(got, "_fields") == getattr(want, "_fields")
    assert_same(got, want, what=name)


@pytest.mark.parametrize("name", ["intersect1d", "union1d", "setdiff1d", "setxor1d"])
def test_set_operations_against_jax(name: str) -> None:
    # ci: JAX's value under jax.jit (_jv); make test-long takes the eager one
    assert_same(getattr(tnp, name)(SET_A, SET_B), _jv(getattr(jnp, name), SET_A, SET_B), what=name)
    for kw in ({"size": 7}, {"size": 2, "fill_value": -1}):  # (JAX's are jit-compiled with a size)
        want = jax_value(lambda a, b, kw=kw: getattr(jnp, name)(a, b, **kw), SET_A, SET_B)
        assert_same(getattr(tnp, name)(SET_A, SET_B, **kw), want, what=name)
    if name == "intersect1d":
        assert_same(getattr(tnp, name)(M[0], M[0, :2]), getattr(jnp, name)(M[0], M[0, :2]), what=name)


def test_set_operations_traced() -> None:
    got = tdx.jit(lambda a, b: tnp.union1d(a, b, size=8))(SET_A, SET_B)
    assert_same(got, jnp.union1d(SET_A, SET_B, size=8))
    assert_same(tnp.intersect1d(SET_A, SET_B, return_indices=True), jnp.intersect1d(SET_A, SET_B, return_indices=True))
    for name in ("intersect1d", "setdiff1d", "setxor1d", "unique_values"):
        with pytest.raises(ConcretizationError):
            tdx.jit(lambda a, name=name: getattr(tnp, name)(*((a, a) if name != "unique_values" else (a,))))(SET_A)


@pytest.mark.parametrize("args, kw", [
    ((np.arange(6.0) ** 2,), {}), ((M,), {}), ((M, 0.5), {}), ((M, 2.0, 0.5), {}), ((T,), {"axis": (2, 0)}),
    ((T, 3.0), {"axis": -1}), ((I,), {}), ((I[0],), {}),
])
def test_gradient_against_jax(args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    assert_same(tnp.gradient(*args, **kw), jnp.gradient(*args, **kw), rtol=1e-12)


def test_gradient_grad_and_jit() -> None:
    def both(x: Any) -> Any:
        g = tnp.gradient(x, 0.5)
        return tnp.stack(g) if isinstance(g, list) else g

    got = tdx.grad(lambda x: tnp.sum(tnp.sin(both(x))))(M)
    want = jax.jit(jax.grad(lambda x: jnp.sum(jnp.sin(jnp.stack(jnp.gradient(x, 0.5))))))(M)
    assert_same(got, want, rtol=1e-12)
    assert_same(tdx.jit(both)(M), jnp.stack(jnp.gradient(M, 0.5)), rtol=1e-12)


def test_block_choose_diagflat_ix_trim_zeros() -> None:
    parts: Any = [[M[:2, :2], M[:2, 2:]], [M[2:]]]
    assert_same(tnp.block(parts), jnp.block(parts))
    mixed: Any = [np.arange(3.0), 2.0]
    assert_same(tnp.block(mixed), jnp.block(mixed))
    grid: Any = [[M, I], [I, M]]
    assert_same(tdx.jit(lambda a, b: tnp.block([[a, b], [b, a]]))(M, I), jnp.block(grid))
    for mode in ("wrap", "clip"):
        idx = np.array([[0, 1, 2, 5], [-1, 2, 1, 0], [1, 1, 0, 3]])
        assert_same(tnp.choose(idx, [M, I, 0.5], mode=mode), jnp.choose(idx, [M, I, 0.5], mode=mode))
    for k in (0, 1, -2):
        assert_same(tnp.diagflat(M[:2, :2], k), jnp.diagflat(M[:2, :2], k))
    assert_same(tnp.ix_(np.array([0, 2]), np.arange(3)), jnp.ix_(np.array([0, 2]), np.arange(3)))
    assert_same(tnp.asarray(M)[tnp.ix_(np.array([0, 2]), np.array([1, 3]))], M[np.ix_([0, 2], [1, 3])])
    for trim in ("fb", "f", "b"):
        z = np.array([0, 0, 1, 0, 2, 0])
        assert_same(tnp.trim_zeros(z, trim), jnp.trim_zeros(z, trim))
    assert tnp.s_[1:2] == jnp.s_[1:2] and tnp.index_exp[0] == jnp.index_exp[0]
    checks: list[tuple[Callable[[], object], str]] = [
        (lambda: tnp.block([(M,)]), "tuples"), (lambda: tnp.block([]), "empty"),
        (lambda: tnp.block([[M], M]), "depths"), (lambda: tnp.choose(np.array([0]), [M]), "raise"),
        (lambda: tnp.ix_(np.array([True])), "Boolean"), (lambda: tnp.gradient(np.ones(1)), "too small"),
        (lambda: tnp.gradient(M, np.ones(3)), "Non-constant"),
    ]
    for call, match in checks:
        with pytest.raises(PrimitiveTypeError, match=match):
            call()


def test_dtype_names_and_predicates() -> None:
    import ml_dtypes

    for name in ("float_", "int_", "uint", "double", "single"):
        assert getattr(tnp, name) == np.dtype(getattr(jnp, name)), name
    assert tnp.ndarray is tdx.Array and tnp.dtype("float32") == jnp.dtype("float32")
    pairs = [(ml_dtypes.bfloat16, np.floating), (np.float16, np.inexact), (np.int32, np.integer), (np.int32, np.floating),
             (np.float32, np.float32), (ml_dtypes.bfloat16, ml_dtypes.bfloat16), (np.uint8, np.signedinteger),
             (np.float64, np.number), (np.bool_, np.generic), (np.dtype("int64"), tnp.signedinteger)]
    for a, b in pairs:
        assert tnp.issubdtype(a, b) == jnp.issubdtype(a, b), (a, b)
    kinds: list[tuple[Any, Any]] = [(np.float32, "real floating"), (np.int32, "integral"), (np.bool_, "bool"), (np.uint8, ("signed integer", "bool")),
                 (ml_dtypes.bfloat16, "real floating"), (np.float32, np.float32), (np.int8, "numeric")]
    for d, k in kinds:
        assert tnp.isdtype(d, k) == jnp.isdtype(d, k), (d, k)
    assert tnp.can_cast(np.int32, np.float64) == jnp.can_cast(np.int32, np.float64)
    assert tnp.iterable([1]) and not tnp.iterable(1)
    with pytest.raises(PrimitiveTypeError, match="kind"):
        tnp.isdtype(np.float32, "reals")


def test_vectorize_against_jax() -> None:
    x, y = M, M[0]
    f: Callable[[Any, Any], Any] = lambda a, b: a * b + 1.0
    assert_same(tnp.vectorize(f)(x, y), jnp.vectorize(f)(x, y), rtol=1e-12)
    assert_same(tdx.jit(tnp.vectorize(f))(x, y), jnp.vectorize(f)(x, y), rtol=1e-12)
    dot = tnp.vectorize(lambda a, b: tnp.sum(a * b), signature="(n),(n)->()")
    assert_same(dot(T, M), jnp.vectorize(lambda a, b: jnp.sum(a * b), signature="(n),(n)->()")(T, M), rtol=1e-12)
    colsum = tnp.vectorize(lambda m: tnp.sum(m, axis=0) * m[0], signature="(n,m)->(m)")
    want = jnp.vectorize(lambda m: jnp.sum(m, axis=0) * m[0], signature="(n,m)->(m)")(T)
    assert_same(colsum(T), want, rtol=1e-12)
    scaled = tnp.vectorize(lambda a, s: a * s, excluded={1})
    assert_same(scaled(M, 2.0), M * 2.0)
    got = tdx.grad(lambda a: tnp.sum(dot(a, M)))(T)
    assert_same(got, jax.grad(lambda a: jnp.sum(jnp.vectorize(lambda u, v: jnp.sum(u * v), signature="(n),(n)->()")(a, M)))(T), rtol=1e-12)
    with pytest.raises(PrimitiveTypeError, match="signature"):
        tnp.vectorize(f, signature="(n)->(")
    with pytest.raises(PrimitiveTypeError, match="core dimension"):
        dot(M, np.ones(5))


def test_piecewise_and_ravel_multi_index_against_jax() -> None:
    x = M
    conds = [x < -0.3, x > 0.7]
    funcs: list[Any] = [lambda v: -v, lambda v: v * 2, 7.0]
    assert_same(tnp.piecewise(x, conds, funcs), jnp.piecewise(x, conds, funcs), rtol=1e-12)
    assert_same(tnp.piecewise(x, conds, funcs[:2]), jnp.piecewise(x, conds, funcs[:2]), rtol=1e-12)
    got = tdx.jit(lambda a: tnp.piecewise(a, [a < -0.3, a > 0.7], funcs))(x)
    assert_same(got, jnp.piecewise(x, conds, funcs), rtol=1e-12)
    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    assert_same(tdx.grad(lambda a: tnp.sum(tnp.piecewise(a, [a < -0.3, a > 0.7], funcs)))(x),
                ci_jit(jax.grad(lambda a: jnp.sum(jnp.piecewise(a, [a < -0.3, a > 0.7], funcs))))(x))
    idx = (np.array([0, 1, 2, 5]), np.array([3, 0, 1, -1]))
    for mode in ("wrap", "clip"):
        for order in ("C", "F"):
            assert_same(tnp.ravel_multi_index(idx, (3, 4), mode=mode, order=order),
                        jnp.ravel_multi_index(idx, (3, 4), mode=mode, order=order))
    assert_same(tdx.jit(lambda i, j: tnp.ravel_multi_index((i, j), (3, 4), mode="wrap"))(*idx),
                jnp.ravel_multi_index(idx, (3, 4), mode="wrap"))
    ok = (np.array([0, 2]), np.array([3, 1]))
    assert_same(tnp.ravel_multi_index(ok, (3, 4)), jnp.ravel_multi_index(ok, (3, 4)))
    with pytest.raises(PrimitiveTypeError, match="invalid entry"):
        tnp.ravel_multi_index(idx, (3, 4))
    with pytest.raises(PrimitiveTypeError, match="functions are expected"):
        tnp.piecewise(x, conds, funcs[:1])


INSERTS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((M, 1, 9.0), {}), ((M, np.array([0, 2]), np.array([7.0, 8.0])), {"axis": 1}),
    ((M, 1, np.array([1.0, 2.0, 3.0])), {"axis": 1}), ((M, slice(0, 2), -1.0), {"axis": 0}),
    ((np.arange(5), np.array([3, -1, 0]), np.array([10, 20, 30])), {}), ((M, 2, np.array([[5.0, 6.0, 7.0, 8.0]])), {"axis": 0}),
    ((I, np.array([1]), np.array([[1], [2], [3]])), {"axis": 1}),
]


@pytest.mark.parametrize("case", range(len(INSERTS)))
def test_insert_against_jax(case: int) -> None:
    args, kw = INSERTS[case]
    # ci: JAX's value under jax.jit, the NumPy arrays traced (_numpy_oracle.jax_value: one compile,
    # not one per op of its eager dispatch); make test-long takes the eager one
    want = jax_value(jnp.insert, *args, **kw) if PROFILE == "ci" else jnp.insert(*args, **kw)
    assert_same(tnp.insert(*args, **kw), want)
    if case == 1:
        got = tdx.jit(lambda m, i, v: tnp.insert(m, i, v, axis=1))(*args)
        assert_same(got, want)

        def loss(m: Any, v: Any) -> tdx.Array:
            return tnp.sum(tnp.sin(tnp.insert(m, args[1], v, axis=1)))

        both: tuple[int, ...] = (0, 1)
        g = tdx.grad(loss, argnums=both)(M, args[2])

        def jax_loss(m: Any, v: Any) -> Any:
            return jnp.sum(jnp.sin(jnp.insert(m, args[1], v, axis=1)))

        # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
        w = ci_jit(jax.grad(jax_loss, argnums=(0, 1)))(M, args[2])
        assert_same(g, w, rtol=1e-12)


def test_mgrid_ogrid_against_jax() -> None:
    assert_same(tnp.mgrid[0:3], jnp.mgrid[0:3])
    assert_same(tnp.mgrid[0:3, 0:4], jnp.mgrid[0:3, 0:4])
    assert_same(tnp.mgrid[0:1:5j, 2:4], jnp.mgrid[0:1:5j, 2:4], rtol=1e-12)
    assert_same(tnp.mgrid[-1:1:0.5], jnp.mgrid[-1:1:0.5], rtol=1e-12)
    assert_same(tnp.ogrid[0:3, 0:4], jnp.ogrid[0:3, 0:4])
    assert_same(tnp.ogrid[0:2:3j], jnp.ogrid[0:2:3j], rtol=1e-12)


def _jv(f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """JAX's ``f(*args, **kwargs)``: under ci by ``jax.jit``, the NumPy arrays traced
    (_numpy_oracle.jax_value: one compile, not one per op of its eager dispatch); eagerly
    under any other profile (make test-long)."""
    return jax_value(f, *args, **kwargs) if PROFILE == "ci" else f(*args, **kwargs)


def test_frexp_spacing_unwrap_put_poly_polydiv_against_jax() -> None:
    # ci: JAX's values under jax.jit (_jv); make test-long takes the eager ones
    x = np.array([0.0, -0.0, 1.0, -3.5, 1e-300, np.inf, -np.inf, np.nan, 1e300, 0.75, 7.0])  # (no subnormals:
    for d in (np.float64, np.float32):  # XLA flushes them, eager NumPy keeps them: docs/architecture.md)
        xx = x.astype(d)
        assert_same(tnp.frexp(xx), _jv(jnp.frexp, xx))
        assert_same(tdx.jit(tnp.frexp)(xx), _jv(jnp.frexp, xx))
        assert_same(tnp.spacing(xx), _jv(jnp.spacing, xx))
    assert_same(tnp.frexp(I), _jv(jnp.frexp, I))
    p = np.cumsum(R.uniform(-4, 4, size=(3, 20)), 1)
    for kw in ({}, {"axis": 0}, {"discont": 4.0}, {"period": 5.0}):
        assert_same(tnp.unwrap(p, **kw), _jv(jnp.unwrap, p, **kw), rtol=1e-12)
    assert_same(tnp.unwrap(I, period=8), _jv(jnp.unwrap, I, period=8))
    # ci: JAX's derivative under jax.jit (tests/_examples.py: ci_jit); make test-long takes the eager one
    assert_same(tdx.grad(lambda q: tnp.sum(tnp.sin(tnp.unwrap(q))))(p), ci_jit(jax.grad(lambda q: jnp.sum(jnp.sin(jnp.unwrap(q)))))(p),
                rtol=1e-12)
    for mode in (None, "clip", "wrap"):
        args = (M, np.array([1, 5, 20, -1]), np.array([9.0, 8.0]))
        assert_same(tnp.put(*args, mode=mode, inplace=False), _jv(jnp.put, *args, mode=mode, inplace=False))
    with pytest.raises(PrimitiveTypeError, match="inplace=False"):
        tnp.put(M, np.array([0]), 1.0)
    assert_same(tnp.poly(P), _jv(jnp.poly, P), rtol=1e-12)
    assert_same(tnp.poly(2.0), _jv(jnp.poly, 2.0))
    u, v = np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([2.0, 1.0, 3.0])
    assert_same(tnp.polydiv(u, v), _jv(jnp.polydiv, u, v), rtol=1e-12)
    assert_same(tdx.jit(tnp.polydiv)(u, v), _jv(jnp.polydiv, u, v), rtol=1e-12)
    assert_same(tnp.polydiv(v, u), _jv(jnp.polydiv, v, u), rtol=1e-12)
