"""Issue 12, group 3: statistics, searching and einsum of typedax.numpy
against jax.numpy (the oracle): values and dtypes eager and under jit,
gradients, vmap, the concrete-only functions, and JAX's errors."""

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

from _numpy_oracle import GradTable, Table, assert_same, by_name, jax_value

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

R = np.random.default_rng(2)
M = R.normal(size=(4, 5))
MF = M.astype(np.float32)
T = R.normal(size=(2, 3, 4))
I = R.integers(-4, 6, size=(4, 5)).astype(np.int32)
B = R.normal(size=(4, 5)) > 0.3
NAN = M.copy()
NAN[0, 1] = NAN[2, 3] = NAN[2, 0] = np.nan
NAN[3, :] = np.nan
W = R.uniform(0.5, 2.0, size=(4, 5))
SORTED = np.array([-1.0, 0.0, 0.0, 2.5, 3.0, np.nan])
MASK = R.normal(size=(4, 5)) > -0.5

CASES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("var", (M,), {}), ("var", (M, 0), {"ddof": 1}), ("var", (T, (0, 2)), {"keepdims": True}),
    ("var", (I,), {}), ("var", (B, 1), {}), ("var", (MF, 1), {"ddof": 5}), ("var", (M,), {"where": MASK}),
        ("std", (M,), {}), ("std", (T, -1), {"ddof": 1, "keepdims": True}), ("std", (I,), {}),
    ("nanvar", (NAN,), {}), ("nanvar", (NAN, 1), {"ddof": 1}), ("nanstd", (NAN, 0), {}),
    ("nansum", (NAN,), {}), ("nansum", (NAN, 1), {"keepdims": True}),
    ("nanprod", (NAN, 0), {}), ("nanmean", (NAN,), {}), ("nanmean", (NAN, 1), {}),
    ("nanmax", (NAN,), {}), ("nanmax", (NAN, 1), {}), ("nanmin", (NAN, 0), {"keepdims": True}),
    ("nanmax", (I, 1), {}), ("nanmin", (NAN, 1), {"initial": -0.5, "where": MASK}),
    ("nanargmax", (NAN[:3], 1), {}), ("nanargmin", (NAN[:3],), {}),
    ("ptp", (M,), {}), ("ptp", (I, 1), {}), ("ptp", (T, (0, 1)), {"keepdims": True}),
    ("count_nonzero", (I,), {}), ("count_nonzero", (B, 0), {}),
    ("average", (M,), {}), ("average", (M, 1), {"weights": W}), ("average", (M, 0), {"weights": W[:, 0]}),
    ("average", (I, 1), {"weights": W[0], "keepdims": True}), ("average", (M, None), {"weights": W, "returned": True}),
    ("average", (I,), {"returned": True}),
    ("median", (M,), {}), ("median", (M, 1), {}), ("median", (T, (0, 2)), {"keepdims": True}),
    ("median", (NAN, 1), {}), ("nanmedian", (NAN, 1), {}), ("nanmedian", (NAN,), {}),
    ("quantile", (M, 0.3), {}), ("quantile", (M, np.array([0.0, 0.25, 1.0]), 1), {}),
    ("quantile", (T, np.array([0.1, 0.9]), (0, 2)), {"keepdims": True}),
    ("quantile", (MF, 0.7, 0), {"method": "lower"}), ("quantile", (M, 0.7, 0), {"method": "higher"}),
    ("quantile", (M, np.array([0.5, 0.375]), 1), {"method": "nearest"}),
    ("quantile", (I, 0.4, 1), {"method": "midpoint"}), ("quantile", (NAN, 0.5, 1), {}),
    ("nanquantile", (NAN, np.array([0.2, 0.8]), 1), {}), ("nanquantile", (NAN, 0.5), {"method": "lower"}),
    ("percentile", (M, 30.0), {}), ("percentile", (M, np.array([10.0, 90.0]), 0), {}),
    ("nanpercentile", (NAN, 50, 1), {}),
    ("cov", (M,), {}), ("cov", (M, None, False), {}), ("cov", (M[0], M[1]), {}), ("cov", (I,), {"bias": True}),
    ("cov", (M,), {"ddof": 2}), ("cov", (M,), {"fweights": np.array([1, 2, 1, 3, 1])}),
    ("cov", (M,), {"aweights": W[0]}), ("cov", (M,), {"aweights": W[0], "fweights": np.array([1, 2, 1, 3, 1]), "ddof": 0}),
    ("cov", (M[0],), {}),
    ("corrcoef", (M,), {}), ("corrcoef", (M, None, False), {}), ("corrcoef", (M[0], M[1]), {}),
    ("searchsorted", (SORTED, np.array([-2.0, 0.0, 1.0, 3.0, 9.0, np.nan])), {}),
    ("searchsorted", (SORTED, np.array([[-2.0, 0.0], [3.0, np.nan]])), {"side": "right"}),
    ("searchsorted", (np.arange(5, dtype=np.int32), 2.5), {}),
    ("searchsorted", (np.array([3.0, 1.0, 2.0]), np.array([1.5, 2.5])), {"sorter": np.array([1, 2, 0])}),
    ("digitize", (M, np.array([-1.0, 0.0, 1.0])), {}), ("digitize", (M, np.array([1.0, 0.0, -1.0])), {}),
    ("digitize", (np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 2.0])), {"right": True}),
    ("bincount", (np.array([0, 1, 1, 3, 0, 7]),), {}), ("bincount", (np.array([0, 1, 1, 3]),), {"minlength": 6}),
    ("bincount", (np.array([0, 1, 1, 3], np.int32),), {"weights": np.array([0.5, 1.0, 2.0, 3.0], np.float32)}),
    ("bincount", (np.array([0, -1, 1, 9]),), {"length": 4}), ("bincount", (np.array([True, False, True]),), {}),
    ("histogram", (M,), {}), ("histogram", (M, 4), {"range": (-1.0, 1.0)}), ("histogram", (I, np.array([-4.0, 0.0, 1.0, 5.0])), {}),
    ("histogram", (M, 3), {"weights": W, "density": True}), ("histogram", (np.ones(3), 2), {}),
   
    ("logspace", (0.0, 2.0, 5), {}), ("logspace", (np.float32(1), 3.0, 4), {"endpoint": False, "base": 2.0}),
    ("logspace", (np.array([0.0, 1.0]), 2.0, 3), {"axis": 1}),
    ("geomspace", (1.0, 1000.0, 4), {}), ("geomspace", (-1.0, -16.0, 5), {"endpoint": False}),
    ("geomspace", (np.array([1.0, 2.0]), np.array([10.0, 20.0]), 3), {"axis": 1}),
]


def _call(mod: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return getattr(mod, name)(*args, **kwargs)


TABLE = Table(CASES, by_name, eager_only=lambda name, kw: name == "bincount" and "length" not in kw)


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_against_jax(case: int) -> None:
    TABLE.check(case, rtol=2e-6)


NONZERO_IN = np.array([[0, 3, 0], [1, 0, 0], [0, 2, 5]], np.int32)


@pytest.mark.parametrize("name, args, kwargs", [
    ("nonzero", (NONZERO_IN,), {}), ("nonzero", (NONZERO_IN,), {"size": 2}),
    ("nonzero", (NONZERO_IN,), {"size": 6, "fill_value": -1}), ("nonzero", (NONZERO_IN,), {"size": 5, "fill_value": (7, 8)}),
    ("flatnonzero", (NONZERO_IN,), {"size": 6, "fill_value": 99}),
    ("argwhere", (NONZERO_IN,), {}), ("argwhere", (NONZERO_IN,), {"size": 6, "fill_value": -1}),
    ("argwhere", (np.float64(3.0),), {}),
    ("unique", (np.array([3, 1, 3, 2, 1], np.int32),), {}),
    ("unique", (np.array([3.0, np.nan, 1.0, np.nan]),), {}),
    ("unique", (NONZERO_IN,), {"return_index": True, "return_inverse": True, "return_counts": True}),
    ("unique", (np.array([3, 1, 3, 2, 1], np.int32),), {"size": 5}),
    ("unique", (np.array([3, 1, 3, 2, 1], np.int32),), {"size": 4, "fill_value": -7}),
    ("unique", (np.array([[1, 2], [1, 2], [0, 5]]),), {"axis": 0}),
])
def test_concrete_only_against_jax(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    want = jax_value(getattr(jnp, name), *args, **kwargs)
    assert_same(_call(tnp, name, args, kwargs), want, what=f"{name} eager")
    if "size" in kwargs and name != "unique" or (name == "unique" and "size" in kwargs and len(kwargs) <= 2):
        got = tdx.jit(lambda x: _call(tnp, name, (x,), kwargs))(args[0])
        assert_same(got, want, what=f"{name} jit")


@pytest.mark.parametrize("call", [
    lambda x: tnp.nonzero(x), lambda x: tnp.flatnonzero(x), lambda x: tnp.argwhere(x),
    lambda x: tnp.unique(x), lambda x: tnp.bincount(x),
])
def test_traced_input_without_size_is_a_clear_error(call: Callable[[Any], Any]) -> None:
    with pytest.raises(ConcretizationError, match="static (size|length)"):
        tdx.jit(call)(np.array([0, 1, 2]))


EINSUMS: list[tuple[str, tuple[tuple[int, ...], ...]]] = [
    ("ij,jk->ik", ((3, 4), (4, 5))), ("ij,jk", ((3, 4), (4, 5))), ("ii", ((4, 4),)), ("ii->i", ((4, 4),)),
    ("ij->ji", ((3, 4),)), ("ijk->", ((2, 3, 4),)), ("ijk->k", ((2, 3, 4),)), ("i,i", ((5,), (5,))),
    ("i,j->ij", ((3,), (4,))), ("bij,bjk->bik", ((2, 3, 4), (2, 4, 5))), ("...ij,...jk->...ik", ((2, 3, 4), (4, 5))),
    ("...k,k", ((2, 3, 4), (4,))), ("ij,jk,kl->il", ((3, 4), (4, 5), (5, 2))), ("ijk,ikl,ilm->jm", ((2, 3, 4), (2, 4, 3), (2, 3, 2))),
    ("iij->j", ((3, 3, 2),)), ("ij,ij->i", ((3, 4), (3, 4))), ("ij,kj->ik", ((3, 4), (5, 4))),
    ("i...->...", ((3, 2, 2),)), ("ab,b...->a...", ((3, 4), (4, 2, 2))), ("a,b,c->abc", ((2,), (3,), (4,))),
    ("ij,j->", ((3, 4), (1,))), ("ji,j", ((4, 3), (4,))),
]


EINSUM_OPS = [[R.normal(size=s) for s in shapes] for _, shapes in EINSUMS]
EINSUM_TABLE = Table([("einsum", (spec, *ops), {}) for (spec, _), ops in zip(EINSUMS, EINSUM_OPS)], by_name)
EINSUM_GRADS = {"ij,jk->ik", "ii->i", "...ij,...jk->...ik", "ijk,ikl,ilm->jm", "iij->j", "a,b,c->abc", "ij,j->"}


@pytest.mark.parametrize("case", range(len(EINSUMS)), ids=[e[0] for e in EINSUMS])
def test_einsum_against_jax(case: int) -> None:
    EINSUM_TABLE.check(case, rtol=1e-10)
    spec, ops = EINSUMS[case][0], EINSUM_OPS[case]
    if spec in EINSUM_GRADS:
        argnums = tuple(range(len(ops)))
        got = tdx.grad(lambda *a: tnp.sum(tnp.sin(tnp.einsum(spec, *a))), argnums=argnums)(*ops)
        wgrad = jax.jit(jax.grad(lambda *a: jnp.sum(jnp.sin(jnp.einsum(spec, *a))), argnums=argnums))(*ops)
        assert_same(got, wgrad, rtol=1e-10, what="grad")


def test_einsum_dtypes_and_errors() -> None:
    a, b = I[:, :3].astype(np.int32), MF[:3]
    assert_same(tnp.einsum("ij,jk->ik", a, b), jnp.einsum("ij,jk->ik", a, b), rtol=1e-6)
    assert_same(tnp.einsum("ij,jk->ik", a, I.T[:3]), jnp.einsum("ij,jk->ik", a, I.T[:3]))
    assert_same(tnp.einsum("ij->i", B), jnp.einsum("ij->i", B))
    assert_same(tnp.einsum("ij,j->i", B, B[0]), jnp.einsum("ij,j->i", B, B[0]))
    got = tnp.einsum("ij,jk->ik", a, b, preferred_element_type=np.float64)
    assert_same(got, jnp.einsum("ij,jk->ik", a, b, preferred_element_type=np.float64), rtol=1e-6)
    for spec, ops, match in [
        ("ij,jk->ik", (M, M), "sizes"), ("ij->k", (M,), "does not appear"), ("ij->ii", (M,), "repeat"),
        ("ij,jk", (M,), "operand subscripts"), ("ijk", (M,), "name 3 axes"), ("i$", (M,), "invalid subscript"),
        ("ii", (M,), "sizes"),
    ]:
        with pytest.raises(PrimitiveTypeError, match=match):
            tnp.einsum(spec, *ops)


GRADS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("var", lambda m, x: m.var(x, axis=1, ddof=1)), ("std", lambda m, x: m.std(x)),
    ("std(keepdims)", lambda m, x: m.std(x, 0, keepdims=True) * x),
    ("nanvar", lambda m, x: m.nanvar(m.where(x > 1.0, m.nan, x), 1)),
    ("nanstd", lambda m, x: m.nanstd(m.where(x > 1.0, m.nan, x), 0)),
    ("nanmean", lambda m, x: m.nanmean(m.where(x > 1.0, m.nan, x), 1)),
    ("nansum", lambda m, x: m.nansum(m.where(x > 1.0, m.nan, x))),
    ("nanmax", lambda m, x: m.nanmax(m.where(x > 1.0, m.nan, x), 1)),
    ("average", lambda m, x: m.average(x, 1, weights=m.abs(x) + 1.0)),
    ("median", lambda m, x: m.median(x, 1)), ("quantile", lambda m, x: m.quantile(x, np.array([0.3, 0.8]), 0)),
    ("percentile", lambda m, x: m.percentile(x, 42.0)),
    ("ptp", lambda m, x: m.ptp(x, 1)), ("cov", lambda m, x: m.cov(x)), ("corrcoef", lambda m, x: m.corrcoef(x)),
]
GRAD_TABLE = GradTable([f for _, f in GRADS], M)


@pytest.mark.parametrize("case", range(len(GRADS)), ids=[g[0] for g in GRADS])
def test_grads_against_jax(case: int) -> None:
    GRAD_TABLE.check(case, what=GRADS[case][0])


def test_vmap_against_a_loop() -> None:
    xs = R.normal(size=(4, 3, 5))
    fs: list[Callable[[Any], tdx.Array]] = [
        lambda x: tnp.var(x, 1), lambda x: tnp.median(x, 0), lambda x: tnp.quantile(x, np.array([0.2, 0.7])),
        lambda x: tnp.cov(x), lambda x: tnp.einsum("ij,kj->ik", x, x), lambda x: tnp.searchsorted(np.linspace(-2, 2, 7), x),
        lambda x: tnp.nanmax(tnp.where(x > 0.5, tnp.nan, x), 1), lambda x: tnp.nonzero(x > 0, size=4)[1],
        lambda x: tnp.bincount(tnp.astype(tnp.abs(x[0]) * 3, np.int32), length=6),
    ]
    for f in fs:
        assert_same(tdx.vmap(f)(xs), np.stack([np.asarray(f(x)) for x in xs]), rtol=1e-12)
    unique = tdx.vmap(lambda x: tnp.unique(tnp.round(x * 2), size=5))(xs)
    assert_same(unique, np.stack([np.asarray(jnp.unique(jnp.round(x * 2), size=5)) for x in xs]))


@pytest.mark.parametrize("call, err, match", [
    (lambda: tnp.var(M, 2), AxisError, "out of bounds"),
    (lambda: tnp.std(M, (0, 0)), AxisError, "repeated"),
    (lambda: tnp.var(M, ddof=1, correction=1), PrimitiveTypeError, "both"),
    (lambda: tnp.quantile(M, 0.5, method="hazen"), PrimitiveTypeError, "method"),
    (lambda: tnp.quantile(M, np.zeros((2, 2))), PrimitiveTypeError, "rank <= 1"),
    (lambda: tnp.average(M, weights=W[0]), PrimitiveTypeError, "Axis must be specified"),
    (lambda: tnp.average(M, 1, weights=W[:, 0]), PrimitiveTypeError, "Length of weights"),
    (lambda: tnp.ptp(B), PrimitiveTypeError, "bool"),
    (lambda: tnp.cov(T), PrimitiveTypeError, "more than 2"),
    (lambda: tnp.searchsorted(M, 0.0), PrimitiveTypeError, "1-dimensional"),
    (lambda: tnp.searchsorted(M[0], 0.0, side="middle"), PrimitiveTypeError, "side"),
    (lambda: tnp.digitize(M, M), PrimitiveTypeError, "1-dimensional"),
    (lambda: tnp.bincount(M[0]), PrimitiveTypeError, "integer type"),
    (lambda: tnp.bincount(I), PrimitiveTypeError, "1-dimensional"),
    (lambda: tnp.nonzero(np.float64(1.0)), PrimitiveTypeError, "0d"),
    (lambda: tnp.nonzero(I, size=-1), PrimitiveTypeError, "size"),
    (lambda: tnp.nanmax(M, where=MASK), PrimitiveTypeError, "initial"),
    (lambda: tnp.var(M, out=M), PrimitiveTypeError, "out"),  # type: ignore[arg-type]  # the error under test
])
def test_errors(call: Callable[[], Any], err: type[Exception], match: str) -> None:
    with pytest.raises(err, match=match):
        call()
