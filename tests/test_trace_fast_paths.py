"""The traced fast paths of ``typedax.numpy`` (issue 12's tracing target)
stage exactly the equations of the general paths, and raise their errors:

- ``x[i, :, j]`` with Python ints and ``:`` (``_indexing._ints_and_colons``)
  against ``parse`` and ``_static_get``;
- ``mean`` of a strong float32/float64 operand against ``sum`` then
  ``divide`` by the count (its general path);
- ``matmul``'s per-shape plan (``_matmul_plan``) against a written-out
  NumPy ``matmul`` and against the promoting path;
- the binary functions' direct bind (``_bind2``) against ``lax``'s
  function of ``_prepare2``'s operands.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax._numpy import lax_numpy
from typedax import lax
from typedax._numpy import array_indexing as _indexing
from typedax.core.errors import IndexingError, PrimitiveTypeError
from typedax.core.trace import aval_of

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _jaxpr(f: Any, *args: Any) -> str:
    return str(tdx.make_jaxpr(f)(*args))


@st.composite
def ints_and_colons(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[object, ...] | object]:
    shape = draw(shapes)
    n = draw(st.integers(0, len(shape) + 1))  # one too many, sometimes
    items: list[object] = [
        draw(st.one_of(st.just(slice(None)), st.integers(-6, 6))) for _ in range(n)
    ]
    idx: tuple[object, ...] | object = tuple(items)
    if n == 1 and draw(st.booleans()):
        idx = items[0]  # x[i], not x[(i,)]
    return shape, idx


@given(ints_and_colons())
def test_ints_and_colons_stage_the_general_equations(case: tuple[tuple[int, ...], Any]) -> None:
    shape, idx = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)

    def f(a: Any) -> Any:
        return a[idx]

    general = _indexing._ints_and_colons
    want_error: str | None = None
    want = ""
    try:
        _indexing._ints_and_colons = lambda idx, shape: None  # the general path, for comparison
        try:
            want = _jaxpr(f, x)
        except IndexingError as e:
            want_error = str(e)
    finally:
        _indexing._ints_and_colons = general
    if want_error is not None:
        with pytest.raises(IndexingError) as got:
            _jaxpr(f, x)
        assert str(got.value) == want_error
        return
    assert _jaxpr(f, x) == want
    # and the values: eager (NumPy's own indexing) and jitted (the fast path);
    # static integers out of range clamp, as JAX's
    np.testing.assert_array_equal(np.asarray(tdx.jit(f)(x)), x[_clamped(idx, shape)])


def _clamped(idx: Any, shape: tuple[int, ...]) -> Any:
    """``idx`` (ints and ``:``) with each int wrapped once and clamped, as JAX's get."""
    items = idx if isinstance(idx, tuple) else (idx,)
    out = tuple(
        min(max(i + n if i < 0 else i, 0), n - 1) if isinstance(i, int) else i
        for i, n in zip(items, shape)
    )
    return out if isinstance(idx, tuple) else out[0]


def test_ints_and_colons_leave_other_indices_to_the_general_path() -> None:
    x = np.zeros((3, 4), np.float32)
    for idx in [(True,), (np.int32(1),), (slice(1, None),), (None, 0), (Ellipsis, 1), (1.0,)]:
        assert _indexing._ints_and_colons(idx, x.shape) is None
    assert _indexing._ints_and_colons((3, 0), x.shape) is None  # out of bounds: the general path clamps
    x[2, 0] = 7.0
    assert float(tdx.jit(lambda a: a[3, 0])(x)) == 7.0
    tdx.config.update("jax_check_static_indices", True)  # or raises
    try:
        with pytest.raises(IndexingError, match="index 3 is out of bounds for axis 0 with size 3"):
            tdx.jit(lambda a: a[3, 0])(x + 1)
    finally:
        tdx.config.update("jax_check_static_indices", False)
    # a traced slice bound is not a colon (comparing it with None would raise)
    with pytest.raises(IndexingError, match="slice bounds must be static"):
        tdx.jit(lambda a, i: a[:i])(x, 1)


MEAN_DTYPES = [np.dtype(d) for d in (np.float32, np.float64, np.float16, np.int32, np.bool_)]


@given(shapes, st.sampled_from(MEAN_DTYPES), st.booleans(), st.booleans(), st.data())
def test_traced_mean_stages_sum_then_divide(
    shape: tuple[int, ...], dtype: np.dtype[Any], keepdims: bool, weak: bool, data: st.DataObject
) -> None:
    nd = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-nd, nd - 1) if nd else st.none()))
    x = np.ones(shape, dtype)
    if weak and dtype.kind == "f" and not shape:
        arg: Any = 1.5  # a weak float: the general path
    else:
        arg = x
    axes = tuple(range(nd)) if axis is None else (axis % nd,)
    n = int(np.prod([x.shape[i] for i in axes])) if nd else 1

    def mean(a: Any) -> Any:
        return tnp.mean(a, axis=axis, keepdims=keepdims)

    def general(a: Any) -> Any:  # mean's equations for a float operand
        return tnp.divide(tnp.sum(a, axis, keepdims=keepdims), float(n))

    got = tdx.jit(mean)(arg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's mean of an empty slice (NaN, as ours)
        want = np.mean(np.asarray(arg, dtype=np.float64), axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=2e-3)
    if dtype in (np.float32, np.float64) and n and arg is x:
        assert _jaxpr(mean, arg) == _jaxpr(general, arg)


@st.composite
def matmul_operands(draw: st.DrawFn) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    k, m, n = (draw(st.integers(1, 3)) for _ in range(3))
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))

    def lead() -> tuple[int, ...]:
        cut = draw(st.integers(0, len(batch)))
        return tuple(1 if draw(st.booleans()) else d for d in batch[cut:])

    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    d1, d2 = (draw(st.sampled_from([np.float32, np.float64, np.int32])) for _ in range(2))
    a = rng.normal(size=(k,)) if draw(st.booleans()) else rng.normal(size=lead() + (m, k))
    b = rng.normal(size=(k,)) if draw(st.booleans()) else rng.normal(size=lead() + (k, n))
    return (a * 3).astype(d1), (b * 3).astype(d2)


@given(matmul_operands())
def test_matmul_plan_matches_numpy_under_jit_and_grad(pair: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]) -> None:
    a, b = pair
    want = np.matmul(a, b)
    got = tdx.jit(lambda x, y: x @ y)(a, b)
    assert got.shape == want.shape and got.dtype == tnp.result_type(a, b)
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=1e-5, atol=1e-5)
    if a.dtype == b.dtype == np.float64:
        # the gradient flows back through the squeezes and the transpose
        g = tdx.grad(lambda x: tnp.sum(x @ b))(a)
        assert g.shape == a.shape
        eps = 1e-6
        da = np.random.default_rng(0).normal(size=a.shape)
        fd = (np.sum(np.matmul(a + eps * da, b)) - np.sum(np.matmul(a - eps * da, b))) / (2 * eps)
        np.testing.assert_allclose(np.sum(np.asarray(g) * da), fd, rtol=1e-6, atol=1e-8)


def test_matmul_plan_errors() -> None:
    with pytest.raises(PrimitiveTypeError, match="operands must be at least 1-d"):
        tdx.jit(lambda x: x @ x)(np.float32(1.0))
    with pytest.raises(PrimitiveTypeError, match=r"batch dimensions of shapes \(2, 3, 4\) and \(3, 4, 5\)"):
        tdx.jit(lambda x, y: x @ y)(np.ones((2, 3, 4), np.float32), np.ones((3, 4, 5), np.float32))
    with pytest.raises(PrimitiveTypeError, match="paired dimensions have different sizes"):
        tdx.jit(lambda x, y: x @ y)(np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))


BINARY = ["add", "subtract", "multiply", "divide"]
OPERANDS = st.sampled_from(["f32", "f64", "i32", "bool", "int", "float"])


def _operand(kind: str, shape: tuple[int, ...]) -> Any:
    if kind == "int":
        return 3
    if kind == "float":
        return 2.5
    dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "bool": np.bool_}[kind]
    return (np.arange(int(np.prod(shape))).reshape(shape) % 3 + 1).astype(dtype)


@given(st.sampled_from(BINARY), OPERANDS, OPERANDS, st.sampled_from([(), (3,), (2, 3)]), st.sampled_from([(), (3,), (2, 1)]))
def test_binary_functions_bind_what_lax_binds(
    op: str, k1: str, k2: str, s1: tuple[int, ...], s2: tuple[int, ...]
) -> None:
    x, y = _operand(k1, s1), _operand(k2, s2)
    lax_fn = {"add": lax.add, "subtract": lax.sub, "multiply": lax.mul, "divide": lax.div}[op]

    def fast(a: Any, b: Any) -> Any:
        return getattr(tnp, op)(a, b)

    def general(a: Any, b: Any) -> Any:  # _prepare2's operands through lax's checks
        p, q = lax_numpy._prepare2(a, b, keep_scalars=True)
        dt = aval_of(p).dtype
        if op in ("add", "multiply") and dt == np.bool_:
            return (lax.max if op == "add" else lax.min)(p, q)
        if op == "divide" and dt.kind in "biu":
            f = np.dtype(np.float32 if dt.itemsize <= 4 else np.float64)
            p, q = lax_numpy._convert(p, f), lax_numpy._convert(q, f)
        return lax_fn(p, q)

    def staged(f: Any, *args: Any) -> str:  # the jaxpr, or the error (bool - bool is refused by both)
        try:
            return _jaxpr(f, *args)
        except PrimitiveTypeError as e:
            return f"error: {e}"

    with np.errstate(all="ignore"):
        assert staged(fast, x, y) == staged(general, x, y)
        # both Python scalars: weak operands that lax converts
        assert _jaxpr(lambda: fast(2, 3.5)) == _jaxpr(lambda: general(2, 3.5))
