"""jax.numpy's names of issue 29, item 7, against JAX as the oracle (values,
dtypes, weak types, errors), eagerly and under ``jit``/``vmap``/``grad``
where JAX supports them: ``packbits``/``unpackbits``, ``histogram2d``/
``histogramdd``, ``place``, ``mask_indices``, ``frombuffer``/``fromiter``/
``fromstring``, ``r_``/``c_``, ``i0``/``kaiser``, the print options,
``einsum_path``, ``polyfit``, ``roots``, and ml_dtypes' small floats
(``tnp.float8_e4m3fn`` ...) as dtypes, eager and ``jit`` bit for bit equal
to JAX's."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import ConcretizationError, TypePromotionError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

RNG = np.random.default_rng(0)


def _same(got: object, want: object, tol: float = 1e-6) -> None:
    """Equal dtype, shape and weak type, and values within ``tol``."""
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    if isinstance(got, tdx.Array) and isinstance(want, jax.Array):
        assert got.aval.weak_type == want.weak_type, (got.aval.weak_type, want.weak_type)
    if g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)


def _vs(got: Any, jax_fn: Callable[[], Any], value: Any, tol: float = 1e-6) -> None:
    """``got`` has the shapes, dtypes and weak types of JAX's result (by
    ``jax.eval_shape``: JAX's eager dispatch would compile each operation)
    and the values ``value`` (NumPy's, or JAX's from one jitted call)."""
    spec = jax.tree.leaves(jax.eval_shape(jax_fn))
    gots = got if isinstance(got, (tuple, list)) else [got]
    values = value if isinstance(value, (tuple, list)) else [value]
    assert len(gots) == len(spec) == len(values)
    for g, sp, v in zip(gots, spec, values):
        assert (g.shape, g.dtype, g.aval.weak_type) == (sp.shape, sp.dtype, sp.weak_type), (g.aval, sp)
        w = np.asarray(v)
        if g.dtype.kind in "biu":
            np.testing.assert_array_equal(np.asarray(g), w)
        else:
            np.testing.assert_allclose(np.asarray(g), w, rtol=tol, atol=tol, equal_nan=True)


def _same_tree(got: Any, want: Any, tol: float = 1e-6) -> None:
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _same_tree(g, w, tol)
    else:
        _same(got, want, tol)


# -- packbits / unpackbits ------------------------------------------------------------------

BITS = RNG.integers(0, 2, (3, 11)).astype(np.int32)


@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits_unpackbits(axis: int | None, bitorder: Literal["big", "little"]) -> None:
    packed = tnp.packbits(BITS, axis, bitorder)
    _vs(packed, lambda: jnp.packbits(BITS, axis, bitorder), np.packbits(BITS, axis, bitorder=bitorder))
    p = np.asarray(packed)
    for count in (None, 3, -2, 30):
        _vs(tnp.unpackbits(p, axis, count, bitorder), lambda: jnp.unpackbits(p, axis, count, bitorder),
            np.unpackbits(p, axis, count, bitorder=bitorder))


def test_packbits_transformed() -> None:
    _vs(tdx.jit(lambda b: tnp.packbits(b, 1))(BITS), lambda: jnp.packbits(BITS, 1), np.packbits(BITS, 1))
    u8 = np.array([[3, 250], [7, 128]], np.uint8)
    _vs(tdx.vmap(lambda v: tnp.unpackbits(v, count=12))(u8), lambda: jax.vmap(lambda v: jnp.unpackbits(v, count=12))(u8),
        np.unpackbits(u8, 1, 12))
    b = np.array([True, False, True])
    _vs(tnp.packbits(b), lambda: jnp.packbits(b), np.packbits(b))


def test_packbits_errors() -> None:
    with pytest.raises(TypeError, match="integer or boolean"):
        tnp.packbits(np.ones(3))
    with pytest.raises(ValueError, match="'order' must be"):
        tnp.packbits(BITS, bitorder="middle")
    with pytest.raises(TypeError, match="unsigned byte"):
        tnp.unpackbits(BITS)


# -- histogram2d / histogramdd ---------------------------------------------------------------

SAMPLE = RNG.standard_normal((20, 3)).astype(np.float32)
WEIGHTS = RNG.random(20).astype(np.float32)


def test_histogramdd() -> None:
    h, e = tnp.histogramdd(SAMPLE, bins=4)
    hn, en = np.histogramdd(SAMPLE, bins=4)
    _vs([h, *e], lambda: jnp.histogramdd(SAMPLE, bins=4), [hn, *en], 1e-6)
    kw: dict[str, Any] = {"bins": [3, 4, 5], "weights": WEIGHTS, "density": True, "range": [(-1, 1), None, (-2, 2)]}
    h, e = tnp.histogramdd(SAMPLE, **kw)
    hn, en = np.histogramdd(SAMPLE, **kw)
    _vs([h, *e], lambda: jnp.histogramdd(SAMPLE, **kw), [hn, *en], 1e-5)


@pytest.mark.parametrize("bins", [5, [3, 4], np.linspace(-2, 2, 6).astype(np.float32)])
def test_histogram2d(bins: Any) -> None:
    x, y = SAMPLE[:, 0], SAMPLE[:, 1]
    _vs(tnp.histogram2d(x, y, bins=bins), lambda: jnp.histogram2d(x, y, bins=bins), np.histogram2d(x, y, bins=bins))


def test_histogram2d_jit() -> None:
    x, y = SAMPLE[:, 0], SAMPLE[:, 1]
    r = [(-1.0, 1.0), (-1.0, 1.0)]
    got = tdx.jit(lambda a, b: tnp.histogram2d(a, b, bins=3, range=r, weights=WEIGHTS)[0])(x, y)
    _vs(got, lambda: jnp.histogram2d(x, y, bins=3, range=r, weights=WEIGHTS)[0],
        np.histogram2d(x, y, bins=3, range=r, weights=WEIGHTS)[0], 1e-6)


def test_histogramdd_errors() -> None:
    with pytest.raises(ValueError, match="one weight for each sample"):
        tnp.histogramdd(SAMPLE, weights=WEIGHTS[:3])
    with pytest.raises(ValueError, match="a bin for each dimension"):
        tnp.histogramdd(SAMPLE, bins=[3, 4])
    with pytest.raises(ValueError, match="range must be a sequence"):
        tnp.histogramdd(SAMPLE, range=[(0, 1)])


# -- place / mask_indices ----------------------------------------------------------------------

def test_place() -> None:
    a = np.arange(10.0, dtype=np.float32).reshape(2, 5)
    m = a % 3 == 0
    vals = np.array([-1.0, -2.0], np.float32)
    want = a.copy()
    np.place(want, m, vals)
    _vs(tnp.place(a, m, vals, inplace=False), lambda: jnp.place(a, m, vals, inplace=False), want)
    got = tdx.jit(lambda x, k: tnp.place(x, k, 7.0, inplace=False))(a, m)
    _vs(got, lambda: jnp.place(a, m, 7.0, inplace=False), np.where(m, 7.0, a))
    with pytest.raises(ValueError, match="cannot modify arrays in-place"):
        tnp.place(a, m, vals)
    with pytest.raises(ValueError, match="same size"):
        tnp.place(a, m[0], vals, inplace=False)
    with pytest.raises(ValueError, match="empty array"):
        tnp.place(a, m, np.zeros(0), inplace=False)


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_mask_indices(k: int) -> None:
    n = int(np.triu(np.ones((4, 4)), k).sum())
    _vs(tnp.mask_indices(4, tnp.triu, k), lambda: jnp.mask_indices(4, jnp.triu, k, size=n), np.mask_indices(4, np.triu, k))
    i, j = np.mask_indices(3, np.tril, k)
    pad = [(0, 10 - i.size)]
    _vs(tnp.mask_indices(3, tnp.tril, k, size=10), lambda: jnp.mask_indices(3, jnp.tril, k, size=10), [np.pad(i, pad), np.pad(j, pad)])


# -- frombuffer / fromiter / fromstring ----------------------------------------------------------

def test_from_buffer_and_string() -> None:
    buf = np.arange(6, dtype=np.int16).tobytes()
    _same(tnp.frombuffer(buf, np.int16), jnp.frombuffer(buf, np.int16))
    _same(tnp.frombuffer(buf, np.int16, count=2, offset=2), jnp.frombuffer(buf, np.int16, count=2, offset=2))
    _same(tnp.fromstring("1 2 3.5", sep=" "), jnp.fromstring("1 2 3.5", sep=" "))
    _same(tnp.fromstring("1,2", dtype=np.int32, sep=","), jnp.fromstring("1,2", dtype=np.int32, sep=","))
    with pytest.raises(NotImplementedError, match="fromiter"):
        tnp.fromiter(iter([1, 2]), float)


def test_save_load_and_numpys_own_objects_as_jax(tmp_path: Any) -> None:
    """``save``/``savez``/``array_repr``/``object_`` are NumPy's, as JAX's;
    ``load`` gives an Array with bfloat16 restored (an ``.npz`` and strings
    as NumPy's); ``fromfile`` is refused, as JAX's."""
    import io

    for name in ("save", "savez", "object_"):
        assert getattr(tnp, name) is getattr(jnp, name) is getattr(np, name)
    assert tnp.array_repr(tnp.arange(3.0)) == jnp.array_repr(jnp.arange(3.0))  # type: ignore[arg-type]  # JAX re-exports NumPy's (its stub says ndarray)
    for x in (np.arange(3.0), np.arange(4, dtype=jnp.bfloat16), np.array([True, False])):
        f, g = io.BytesIO(), io.BytesIO()
        tnp.save(f, tnp.asarray(x))
        jnp.save(g, jnp.asarray(x))
        assert f.getvalue() == g.getvalue()
        f.seek(0)
        ours = tnp.load(f)
        assert isinstance(ours, tdx.Array)
        _same(ours, jnp.load(io.BytesIO(g.getvalue())))
    f = io.BytesIO()
    tnp.save(f, np.array(["a", "b"]))
    f.seek(0)
    strs = tnp.load(f)
    assert type(strs) is np.ndarray and strs.tolist() == ["a", "b"]
    path = tmp_path / "a.npz"
    tnp.savez(path, a=tnp.arange(3))
    npz: Any = tnp.load(path)
    assert npz["a"].tolist() == [0, 1, 2]
    with pytest.raises(NotImplementedError, match="fromfile"):
        tnp.fromfile(path)
    assert issubclass(_error_class(lambda: jnp.fromfile(path)), NotImplementedError)  # type: ignore[no-untyped-call]  # JAX leaves it unannotated


def _error_class(f: Callable[[], object]) -> type[BaseException]:
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e)
    raise AssertionError("nothing raised")


# -- r_ / c_ -------------------------------------------------------------------------------------

R_CASES: list[Callable[[Any], Any]] = [
    lambda r: r[1:4, 0, [5, 6]],
    lambda r: r[0:1:5j],
    lambda r: r[-1:1:6j, [0.5], 2],
    lambda r: r["0,2", [1, 2], [3, 4]],
    lambda r: r["1,2,0", [1, 2], [3, 4]],
    lambda r: r["r", 1:3],
    lambda r: r["c", [1, 2]],
    lambda r: r[np.ones((2, 2)), np.zeros((2, 2))],
]
C_CASES: list[Callable[[Any], Any]] = [
    lambda c: c[[1, 2], [3, 4]],
    lambda c: c[np.ones((2, 2)), [5, 6]],
    lambda c: c[1:3, 4:6],
]


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")  # NumPy's 'r'/'c' make np.matrix
@pytest.mark.parametrize("case", range(len(R_CASES)))
def test_r_(case: int) -> None:
    _vs(R_CASES[case](tnp.r_), lambda: R_CASES[case](jnp.r_), R_CASES[case](np.r_))


@pytest.mark.parametrize("case", range(len(C_CASES)))
def test_c_(case: int) -> None:
    _vs(C_CASES[case](tnp.c_), lambda: C_CASES[case](jnp.c_), C_CASES[case](np.c_))


def test_r_errors() -> None:
    with pytest.raises(ValueError, match="could not understand directive"):
        tnp.r_["a,b", [1]]
    with pytest.raises(ValueError, match="placed at the beginning"):
        tnp.r_[[1], "r"]


# -- i0 / kaiser -----------------------------------------------------------------------------------

I0_X = np.array([-30.0, -3.0, -0.5, 0.0, 1.0, 9.0], np.float32)


@pytest.mark.parametrize("x", [I0_X, I0_X.astype(np.float64), 2.0, np.arange(3)], ids=["f32", "f64", "weak", "int"])
def test_i0(x: Any) -> None:
    _vs(tnp.i0(x), lambda: jnp.i0(x), np.i0(np.asarray(x, np.float64)), 2e-6)


def test_i0_transformed() -> None:
    _same(tdx.jit(tnp.i0)(I0_X), np.i0(I0_X).astype(np.float32), 2e-6)
    x64 = I0_X.astype(np.float64)

    def grads(i0: Any, grad: Any, vmap: Any, x: Any) -> Any:
        return vmap(grad(i0))(x), grad(grad(i0))(x[3])  # (x[3] is 0: JAX's rule makes both derivatives 0)

    want = jax.jit(lambda x: grads(jnp.i0, jax.grad, jax.vmap, x))(x64)
    _same_tree(grads(tnp.i0, tdx.grad, tdx.vmap, x64), want, 1e-12)
    with pytest.raises(ValueError, match="Unsupported input type"):
        tnp.i0(np.ones(2, np.complex64))


@pytest.mark.parametrize(("m", "beta"), [(0, 1.0), (1, 2.0), (7, 3.0), (6, 14.0)])
def test_kaiser(m: int, beta: float) -> None:
    _vs(tnp.kaiser(m, beta), lambda: jnp.kaiser(m, beta), np.kaiser(m, beta), 1e-12)


# -- print options -----------------------------------------------------------------------------------

def test_printoptions() -> None:
    x = tnp.asarray([1.23456, 2.0])
    with tnp.printoptions(precision=2):
        assert repr(x) == "Array([1.23, 2.  ], dtype=float64)"
        assert tnp.get_printoptions()["precision"] == 2
    before = tnp.get_printoptions()
    try:
        tnp.set_printoptions(precision=3)
        assert str(x) == "[1.235 2.   ]"
    finally:
        tnp.set_printoptions(**before)
    assert tnp.printoptions is np.printoptions and tnp.set_printoptions is np.set_printoptions  # (JAX wraps them)


# -- einsum_path ----------------------------------------------------------------------------------------

PATH_CASES: list[tuple[str, tuple[tuple[int, ...], ...]]] = [
    ("ij,jk,kl->il", ((2, 3), (3, 4), (4, 5))),
    ("ij,jk,kl->il", ((20, 3), (3, 40), (40, 2))),
    ("ab,bc,cd,de->ae", ((2, 9), (9, 3), (3, 8), (8, 2))),
    ("ii->i", ((3, 3),)),
]


@pytest.mark.parametrize("case", range(len(PATH_CASES)))
@pytest.mark.parametrize("optimize", ["auto", "greedy", "optimal", True, False])
def test_einsum_path(case: int, optimize: str | bool) -> None:
    spec, shapes = PATH_CASES[case]
    ops = [np.zeros(s, np.float32) for s in shapes]
    path, report = tnp.einsum_path(spec, *ops, optimize=optimize)
    assert path == jnp.einsum_path(spec, *ops, optimize=optimize)[0]
    assert "Optimized scaling" in report


def test_einsum_path_traced_and_errors() -> None:
    paths: list[list[tuple[int, ...]]] = []

    def f(a: tdx.Array, b: tdx.Array) -> tdx.Array:
        paths.append(tnp.einsum_path("ij,jk->ik", a, b)[0])
        return a @ b

    tdx.jit(f)(tnp.ones((2, 3)), tnp.ones((3, 4)))
    assert paths == [[(0, 1)]]
    with pytest.raises(ValueError, match="optimize must be"):
        tnp.einsum_path("ij,jk->ik", np.ones((2, 3)), np.ones((3, 4)), optimize="nonsense")


# -- polyfit -------------------------------------------------------------------------------------------------

PX = np.linspace(-1, 1, 9).astype(np.float32)
PY = (2 * PX**2 - PX + 0.3 + 0.01 * RNG.standard_normal(9)).astype(np.float32)
PW = RNG.random(9).astype(np.float32)
PY2 = np.stack([PY, 2 * PY], 1)


@pytest.mark.parametrize("kw", [
    {"deg": 2}, {"deg": 2, "full": True}, {"deg": 2, "w": PW, "cov": True}, {"deg": 1, "cov": "unscaled"},
    {"deg": 3, "rcond": 1e-3},
], ids=["plain", "full", "w-cov", "unscaled", "rcond"])
def test_polyfit(kw: dict[str, Any]) -> None:
    _vs(tnp.polyfit(PX, PY, **kw), lambda: jnp.polyfit(PX, PY, **kw), jax.jit(lambda x, y: jnp.polyfit(x, y, **kw))(PX, PY), 2e-5)


def test_polyfit_2d_and_transformed() -> None:
    c, v = tnp.polyfit(PX, PY2, 1, w=PW, cov=True)
    cn, vn = np.polyfit(PX.astype(np.float64), PY2.astype(np.float64), 1, w=PW, cov=True)
    _vs([c, v], lambda: jnp.polyfit(PX, PY2, 1, w=PW, cov=True), [cn, vn], 2e-4)
    _same(tdx.jit(lambda y: tnp.polyfit(PX, y, 2))(PY), np.polyfit(PX, PY, 2).astype(np.float32), 2e-5)
    px, py = PX.astype(np.float64), PY.astype(np.float64)
    want = jax.jit(jax.grad(lambda y: jnp.polyfit(px, y, 2) @ np.array([1.0, 2.0, 3.0])))(py)
    _same(tdx.grad(lambda y: tnp.polyfit(px, y, 2) @ np.array([1.0, 2.0, 3.0]))(py), want, 1e-10)


def test_polyfit_errors() -> None:
    with pytest.raises(ValueError, match="deg >= 0"):
        tnp.polyfit(PX, PY, -1)
    with pytest.raises(TypeError, match="1D vector for x"):
        tnp.polyfit(PX.reshape(3, 3), PY, 1)
    with pytest.raises(TypeError, match="same length"):
        tnp.polyfit(PX, PY[:4], 1)
    with pytest.raises(ValueError, match="not inexact"):  # JAX reads finfo(x.dtype)
        tnp.polyfit(np.arange(5), np.arange(5), 1)
    with pytest.raises(ValueError, match="must exceed order"):
        tnp.polyfit(PX[:3], PY[:3], 2, cov=True)


# -- roots ---------------------------------------------------------------------------------------------------

ROOTS_P = [
    np.array([1.0, -3.0, 2.0]),
    np.array([0, 0, 1.0, -3, 2], np.float32),
    np.array([2, 0, 0, 1]),
    np.array([5.0]),
    np.array([0.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("case", range(len(ROOTS_P)))
def test_roots(case: int) -> None:
    p = ROOTS_P[case]
    want = np.roots(p)
    _same(tnp.roots(p), want.astype(np.complex64 if p.dtype == np.float32 else np.complex128), 1e-5)
    want_all = jax.jit(lambda q: jnp.roots(q, strip_zeros=False))(p)  # the dropped roots NaN, at the end
    _same(tnp.roots(p, strip_zeros=False), want_all, 1e-5)


def test_roots_transformed_and_errors() -> None:
    p = np.array([0.0, 1.0, -3.0, 2.0])
    _same(tdx.jit(lambda q: tnp.roots(q, strip_zeros=False))(p), np.array([1.0, 2.0, np.nan + 1j * np.nan]), 1e-12)
    ps = np.array([[1.0, -3, 2], [1, 0, -4]])
    _same(tdx.vmap(lambda q: tnp.roots(q, strip_zeros=False))(ps), np.array([[2.0, 1.0], [-2.0, 2.0]], np.complex128), 1e-12)
    # d/dq of the sum of the roots, -q[1]/q[0]: (q[1]/q[0]**2, -1/q[0], 0)
    _same(tdx.grad(lambda q: tnp.roots(q).real.sum())(p[1:]), np.array([-3.0, -1.0, 0.0]), 1e-10)
    with pytest.raises(ConcretizationError, match="strip_zeros=False"):
        tdx.jit(tnp.roots)(p)
    with pytest.raises(ValueError, match="rank-1"):
        tnp.roots(np.ones((2, 2)))


# -- ml_dtypes' small floats -------------------------------------------------------------------------------

SMALL = ["float4_e2m1fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
         "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
F8_X = (RNG.standard_normal(16) * 8).astype(np.float32)
OPS_ON = ["float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float4_e2m1fn"]


def _bits_same(got: object, want: object) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype)
    np.testing.assert_array_equal(g.astype(np.float32), w.astype(np.float32))  # (NaNs equal)


def _small_ops(v: Any) -> Any:
    return (v * v + 1.0, v.sum(), v.max(), v.astype(np.float32) * 2, v < 1.0)


@functools.cache
def _small_reference() -> dict[str, tuple[Any, ...]]:
    """JAX's values for every small float, from one jitted program (JAX's
    eager dispatch would compile each operation for each type)."""

    def ref(x32: Any, x64: Any) -> dict[str, tuple[Any, ...]]:
        out = {}
        for name in SMALL:
            t = getattr(jnp, name)
            v = x32.astype(t)
            out[name] = (v, x64.astype(t), jnp.zeros((2, 3), t), v + 1.0, *(_small_ops(v) if name in OPS_ON else ()))
        return out

    if tdx.default_backend() != "cpu":
        # eagerly, each operation its own program, as typedax's eager
        # evaluation on a GPU: in one jitted program XLA's GPU fusions keep
        # intermediates in wider types and convert in other steps
        return ref(jnp.asarray(F8_X), jnp.asarray(F8_X.astype(np.float64)))
    return jax.jit(ref)(F8_X, F8_X.astype(np.float64))  # type: ignore[no-any-return]  # jax is untyped


@pytest.mark.parametrize("name", SMALL)
def test_small_float_dtypes(name: str) -> None:
    """Conversions, eager and under jit, bit for bit as JAX's, and a weakly
    typed Python float taking the small type."""
    t, tj = getattr(tnp, name), getattr(jnp, name)
    assert np.dtype(t) == np.dtype(tj) and tnp.finfo(t).eps == jnp.finfo(tj).eps  # type: ignore[no-untyped-call]  # ml_dtypes' finfo (jnp.finfo) is untyped
    want = _small_reference()[name]
    x = tnp.asarray(F8_X).astype(t)
    got = (x, tnp.asarray(F8_X.astype(np.float64), dtype=t), tnp.zeros((2, 3), t), x + 1.0)
    for g, w in zip(got, want[:4], strict=True):
        _bits_same(g, w)
    _bits_same(tdx.jit(lambda v: v.astype(t))(F8_X.astype(np.float64)), want[1])
    _bits_same(t(1.7), np.asarray(1.7, np.dtype(tj)))
    assert (x + 1.0).aval.weak_type is False and (x + 1.0).dtype == np.dtype(t)


@pytest.mark.parametrize("name", OPS_ON)
def test_small_float_ops(name: str) -> None:
    """Arithmetic, a sum (in the small type, as JAX's), a max (without
    infinities, its identity is the least finite value) and a comparison,
    eagerly and under jit, bit for bit as JAX's."""
    x = tnp.asarray(F8_X).astype(getattr(tnp, name))
    want = _small_reference()[name][4:]
    for g, w in zip(_small_ops(x), want, strict=True):
        _bits_same(g, w)
    if tdx.default_backend() != "cpu":  # (the reference is eager there: jit is compared with JAX's jit)
        want = jax.jit(_small_ops)(jnp.asarray(F8_X).astype(getattr(jnp, name)))
    for g, w in zip(tdx.jit(_small_ops)(x), want, strict=True):
        _bits_same(g, w)


def test_small_float_promotion_and_transforms() -> None:
    x = tnp.zeros(2, tnp.float8_e4m3fn)
    with pytest.raises(TypePromotionError, match="8-bit floats do not support implicit promotion"):
        x + tnp.zeros(2, np.float32)
    with pytest.raises(ValueError, match="no available implicit dtype promotion path"):
        x + tnp.zeros(2, tnp.float8_e5m2)
    with pytest.raises(ValueError, match="4-bit floats"):
        tnp.zeros(2, tnp.float4_e2m1fn) + tnp.zeros(2, tnp.bfloat16)
    assert (x + np.int32(3)).dtype == np.dtype(tnp.float8_e4m3fn)
    v = np.ones((2, 3), np.float32)
    assert tdx.vmap(lambda r: r.astype(tnp.float8_e5m2))(v).dtype == np.dtype(jnp.float8_e5m2)
    g = tdx.grad(lambda r: r.astype(tnp.float8_e4m3fn).astype(np.float32).sum())(v[0])
    _same(g, jax.grad(lambda r: r.astype(jnp.float8_e4m3fn).astype(np.float32).sum())(v[0]))
    assert tnp.issubdtype(tnp.float8_e4m3fn, tnp.floating)


def test_small_float_edges_are_xla_values() -> None:
    """Eagerly the small floats evaluate through XLA, as JAX's do, where
    float32 evaluation on the host would differ: XLA flushes float32
    subnormals (``2**-127 + 2**-127`` in ``float8_e8m0fnu`` is NaN, which has
    no zero) and converts ``float4_e2m1fn``'s -6 to ``int8`` as -128."""
    e = np.array([2.0**-127, 1.0], np.float32).astype(np.dtype(jnp.float8_e8m0fnu))
    f = np.array([-6.0, 6.0, 1.5], np.float32).astype(np.dtype(jnp.float4_e2m1fn))
    want = jax.jit(lambda a, b: (a + a, b.astype(np.int8)))(e, f)
    _bits_same(tnp.add(e, e), want[0])
    _bits_same(tnp.asarray(f).astype(np.int8), want[1])


def test_static_counts_as_jax() -> None:
    """``M`` of ``kaiser`` and ``deg`` of ``polyfit`` go through ``int()``,
    as JAX's ``concrete_or_error(int, ...)``: 5.0 is 5; traced, an error."""
    _vs(tnp.kaiser(5.0, 1.0), lambda: jnp.kaiser(5.0, 1.0), np.kaiser(5, 1.0), 1e-12)  # type: ignore[arg-type]  # a float M, as JAX takes
    _same(tnp.polyfit(PX, PY, 1.0), np.polyfit(PX, PY, 1).astype(np.float32), 2e-5)  # type: ignore[arg-type]  # a float deg, as JAX takes
    with pytest.raises(ConcretizationError, match="M must be concrete"):
        tdx.jit(lambda m: tnp.kaiser(m, 1.0))(5)
