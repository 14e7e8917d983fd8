"""``typedax.numpy`` as an array API standard namespace (issue 31), against
``jax.numpy`` (JAX 0.10.2, x64 on) as the oracle: the silent wrong answers
the conformance suite found (``arange``'s ``stop=None``, ``linalg.vecdot``),
the smaller fixes, and the array API surface (``copy=``, ``device=``,
``.mT``, DLPack, ``__array_namespace_info__``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import ArgumentValueError, DLPackError, PrimitiveTypeError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def _same(got: Any, want: Any) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    assert g.shape == w.shape, (g.shape, w.shape)
    np.testing.assert_array_equal(g, w)


# -- 1. silent wrong answers ------------------------------------------------------------

#: (start, stop, step) with None where the argument is left out
ARANGE_CASES: list[tuple[Any, Any, Any]] = [
    (10, None, 3), (2, None, 5), (0, None, 2281926656), (-7, None, -2), (7.5, None, 0.5), (10, None, -1),
    (1, 10, 3), (10, 1, -3), (0.5, 4, 0.7), (-2.5, 3.1, 0.5), (5, -5, -1.5), (3, 3, 1), (0, 1, 0.1),
    (1, 2, 0.25), (2, 1, 1),
    (-3, None, None), (4.5, None, None), (0, None, None), (6, None, None),
    (1, 7, None), (2.5, 7.2, None), (7, 1, None), (-4, -1, None),
]
ARANGE_DTYPES = (None, np.int32, np.int64, np.float16, np.float32, np.float64)


def _arange_calls(a: Any, b: Any, c: Any) -> list[Callable[[Any, Any], Any]]:
    """Every way of spelling ``arange(a, b, c)`` (None: not given), as
    functions of the namespace and the dtype."""
    if b is None and c is None:
        return [lambda ns, d: ns.arange(a, dtype=d), lambda ns, d: ns.arange(a, None, dtype=d),
                lambda ns, d: ns.arange(a, stop=None, dtype=d), lambda ns, d: ns.arange(start=a, dtype=d)]
    if b is None:
        return [lambda ns, d: ns.arange(a, step=c, dtype=d), lambda ns, d: ns.arange(a, None, c, d),
                lambda ns, d: ns.arange(a, stop=None, step=c, dtype=d),
                lambda ns, d: ns.arange(start=a, step=c, dtype=d)]
    if c is None:
        return [lambda ns, d: ns.arange(a, b, dtype=d), lambda ns, d: ns.arange(a, stop=b, dtype=d),
                lambda ns, d: ns.arange(start=a, stop=b, dtype=d), lambda ns, d: ns.arange(a, b, None, d)]
    return [lambda ns, d: ns.arange(a, b, c, d), lambda ns, d: ns.arange(a, b, step=c, dtype=d),
            lambda ns, d: ns.arange(a, stop=b, step=c, dtype=d),
            lambda ns, d: ns.arange(start=a, stop=b, step=c, dtype=d)]


@pytest.mark.parametrize("case", ARANGE_CASES, ids=str)
def test_arange_every_spelling_and_dtype_as_jax(case: tuple[Any, Any, Any]) -> None:
    for call in _arange_calls(*case):
        for d in ARANGE_DTYPES:
            try:
                want = call(jnp, d)
            except (ValueError, TypeError, OverflowError):
                with pytest.raises((ValueError, TypeError, OverflowError)):
                    call(tnp, d)
                continue
            _same(call(tnp, d), want)


def test_arange_issue_examples() -> None:
    _same(tnp.arange(10, step=3), np.array([0, 3, 6, 9]))
    _same(tnp.arange(2, step=5), np.array([0]))
    _same(tnp.arange(0, step=2281926656, dtype=np.float32), np.zeros(0, np.float32))  # was 2.28e9 elements


@pytest.mark.parametrize("make", [np.float32, np.int16, np.uint8, tnp.asarray], ids=["f32", "i16", "u8", "Array"])
def test_arange_numpy_scalar_and_array_bounds(make: Callable[[Any], Any]) -> None:
    jmake = jnp.asarray if make is tnp.asarray else make
    for a, b, c in [(1, 9, 2), (9, None, 4), (2, 7, None), (5, None, None)]:
        ta = [None if v is None else make(v) for v in (a, b, c)]
        ja = [None if v is None else jmake(v) for v in (a, b, c)]
        _same(tnp.arange(make(a), stop=ta[1], step=ta[2]), jnp.arange(jmake(a), stop=ja[1], step=ja[2]))


def test_arange_under_jit_and_vmap_as_eager() -> None:
    f = tdx.jit(lambda x: x + tnp.arange(10, step=3, dtype=np.float32))
    _same(f(np.float32(1)), jnp.arange(10, step=3, dtype=np.float32) + 1)
    _same(tdx.jit(lambda: tnp.arange(0.5, 4, 0.7))(), jnp.arange(0.5, 4, 0.7))
    g = tdx.vmap(lambda x: x * tnp.arange(7, step=2))
    _same(g(np.arange(3)), jax.vmap(lambda x: x * jnp.arange(7, step=2))(np.arange(3)))


def test_arange_errors() -> None:
    with pytest.raises(ArgumentValueError, match="step must not be zero"):
        tnp.arange(0, 5, 0)
    with pytest.raises(PrimitiveTypeError, match="concrete scalar"):
        tnp.arange(np.arange(3))
    with pytest.raises(PrimitiveTypeError, match="concrete scalar"):
        tdx.jit(lambda n: tnp.arange(n))(3)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int32, np.uint64, np.float32])
def test_linalg_vecdot_keeps_the_dtype(dtype: Any) -> None:
    x = np.arange(6).reshape(2, 3).astype(dtype)
    y = (np.arange(3) + 1).astype(dtype)
    for f, jf in [(tnp.linalg.vecdot, jnp.linalg.vecdot), (tnp.vecdot, jnp.vecdot)]:
        _same(f(x, y), jf(x, y))
        _same(tdx.jit(f)(x, y), jf(x, y))


def test_linalg_vecdot_checks_the_axes_before_broadcasting() -> None:
    for f, jf in [(tnp.linalg.vecdot, jnp.linalg.vecdot), (tnp.vecdot, jnp.vecdot)]:
        with pytest.raises(ValueError, match="axes must match"):
            jf(jnp.ones((1, 2)), jnp.ones((1,)))
        with pytest.raises(ArgumentValueError, match="axes must match"):
            f(tnp.ones((1, 2)), tnp.ones((1,)))
        _same(f(np.ones((4, 1, 3)), np.ones((2, 3)), axis=-1), jf(np.ones((4, 1, 3)), np.ones((2, 3)), axis=-1))
        _same(f(np.ones((3, 2)), np.ones((3, 1)), axis=0), jf(np.ones((3, 2)), np.ones((3, 1)), axis=0))
    x, y = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    _same(tdx.vmap(lambda a: tnp.linalg.vecdot(a, y))(x), jax.vmap(lambda a: jnp.linalg.vecdot(a, y))(x))
    _same(tdx.grad(lambda a: tnp.linalg.vecdot(a, y).sum())(x), jax.grad(lambda a: jnp.linalg.vecdot(a, y).sum())(x))


# -- 2. the smaller fixes --------------------------------------------------------------------


@pytest.mark.pinned_jax  # JAX 0.11's tri gives float64 under x64, 0.10's float32
@pytest.mark.parametrize("k", [2**31, -(2**31), 2**40, 3, -2, 1, 0])
def test_eye_and_tri_with_any_offset_as_jax(k: int) -> None:
    for n, m in [(2, None), (3, 5), (4, 2)]:
        _same(tnp.eye(n, m, k=k), jnp.eye(n, m, k=k))
        _same(tnp.tri(n, m, k=k), jnp.tri(n, m, k=k))
    _same(tdx.jit(lambda: tnp.eye(3, k=k))(), jnp.eye(3, k=k))


def test_squeeze_of_a_longer_axis_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        jnp.squeeze(jnp.ones((2, 1)), 0)
    with pytest.raises(ArgumentValueError, match="squeeze"):
        tnp.squeeze(tnp.ones((2, 1)), 0)
    with pytest.raises(ArgumentValueError, match="squeeze"):
        tdx.jit(lambda x: tnp.squeeze(x, 0))(np.ones((2, 1)))


def test_slogdet_is_a_named_tuple() -> None:
    a = np.array([[2.0, 1.0], [1.0, -3.0]])
    got, want = tnp.linalg.slogdet(a), jnp.linalg.slogdet(a)
    assert type(got).__name__ == type(want).__name__ == "SlogdetResult"
    assert got._fields == want._fields == ("sign", "logabsdet")
    np.testing.assert_allclose(np.asarray(got.logabsdet), np.asarray(want.logabsdet))
    _same(got.sign, want.sign)
    jitted = tdx.jit(tnp.linalg.slogdet)(a)
    np.testing.assert_allclose(np.asarray(jitted.logabsdet), np.asarray(want.logabsdet))


@pytest.mark.parametrize("dtype", [None, np.int8, np.int64, np.float32])
def test_linalg_trace_dtype(dtype: Any) -> None:
    x = np.arange(2 * 3 * 3).reshape(2, 3, 3).astype(np.int8)
    for offset in (0, 1, -1):
        _same(tnp.linalg.trace(x, offset=offset, dtype=dtype), jnp.linalg.trace(x, offset=offset, dtype=dtype))


@pytest.mark.pinned_jax  # the standard's version JAX reports moves with JAX
def test_bool_and_the_version() -> None:
    assert getattr(tnp, "bool") is tnp.bool_  # (served to callers; the module's builtin bool is untouched)
    from typedax.numpy import bool as b  # type: ignore[attr-defined]  # runtime-only name, see numpy.py's __getattr__
    assert b is tnp.bool_
    assert tnp.zeros(2, dtype=getattr(tnp, "bool")).dtype == np.bool_
    assert tnp.__array_api_version__ == jnp.__array_api_version__ == "2024.12"
    with pytest.raises(AttributeError, match="no attribute 'not_a_function'"):
        getattr(tnp, "not_a_function")


def test_linalg_cross_outer_tensordot_as_jax() -> None:
    x, y = np.arange(12.0).reshape(4, 3), np.array([1.0, -2.0, 0.5])
    _same(tnp.linalg.cross(x, y), jnp.linalg.cross(x, y))
    _same(tnp.linalg.cross(x.T, y[:, None], axis=0), jnp.linalg.cross(x.T, y[:, None], axis=0))
    _same(tnp.linalg.outer(x[0], y), jnp.linalg.outer(x[0], y))
    a, b = np.arange(24.0).reshape(2, 3, 4), np.arange(12.0).reshape(3, 4)
    for axes in (2, 0, ((1, 2), (0, 1))):
        _same(tnp.linalg.tensordot(a, b, axes=axes), jnp.linalg.tensordot(a, b, axes=axes))
    _same(tdx.jit(lambda u, v: tnp.linalg.cross(u, v))(x, y), jnp.linalg.cross(x, y))
    _same(tdx.grad(lambda u: tnp.linalg.outer(u, y).sum())(x[0]), jax.grad(lambda u: jnp.linalg.outer(u, y).sum())(x[0]))
    with pytest.raises(ValueError):
        jnp.linalg.cross(np.ones(2), np.ones(2))
    with pytest.raises(ArgumentValueError, match="3-dimensional vectors"):
        tnp.linalg.cross(np.ones(2), np.ones(2))
    with pytest.raises(ValueError):
        jnp.linalg.outer(np.ones((2, 2)), np.ones(2))
    with pytest.raises(ArgumentValueError, match="one-dimensional"):
        tnp.linalg.outer(np.ones((2, 2)), np.ones(2))


# -- 3. the array API surface ---------------------------------------------------------------


def test_copy_false_of_a_host_buffer_on_an_accelerator_as_jax(monkeypatch: pytest.MonkeyPatch) -> None:
    """JAX's ValueError, checked on the CPU by pretending the platform is a GPU."""
    from typedax._numpy import lax_numpy

    monkeypatch.setattr(lax_numpy, "_default_backend", lambda: "gpu")
    for host in (np.arange(3), np.float32(2.0)):
        with pytest.raises(ValueError, match=re.escape(
                f"jnp.asarray: cannot convert object of type {type(host)} to JAX Array on platform=gpu "
                "with copy=False. Consider using copy=None or copy=True instead.")):
            tnp.asarray(host, copy=False)
    _same(tnp.asarray([1.0, 2.0], copy=False), np.array([1.0, 2.0]))  # no buffer protocol: no copy to refuse
    _same(tnp.asarray(3, copy=False), np.array(3))


def test_copy_keywords_as_jax() -> None:
    x, jx = tnp.arange(6.0), jnp.arange(6.0)
    for copy in (None, True, False):
        if copy is False and tdx.default_backend() != "cpu":  # a host buffer must be copied to the GPU
            with pytest.raises(ValueError) as theirs:
                jnp.asarray(np.arange(3), copy=False)
            with pytest.raises(ValueError, match=re.escape(str(theirs.value))):
                tnp.asarray(np.arange(3), copy=False)
        else:
            _same(tnp.asarray(np.arange(3), copy=copy), jnp.asarray(np.arange(3), copy=copy))
        _same(tnp.asarray(x, copy=copy), jnp.asarray(jx, copy=copy))
        _same(tnp.reshape(x, (2, 3), copy=copy), jnp.reshape(jx, (2, 3), copy=copy))
    for copy in (True, False):
        _same(tnp.astype(x, np.int32, copy=copy), jnp.astype(jx, np.int32, copy=copy))
        _same(x.astype(np.float32, copy=copy), jx.astype(np.float32, copy=copy))
    assert tnp.asarray(x, copy=False) is x  # (as JAX: the array itself)
    _same(tdx.jit(lambda a: tnp.astype(tnp.reshape(a, (3, 2), copy=True), np.float32, copy=True))(x),
          jnp.arange(6.0, dtype=np.float32).reshape(3, 2))


def test_mT_to_device_and_the_namespace() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    _same(tnp.asarray(a).mT, jnp.asarray(a).mT)
    _same(tdx.jit(lambda x: x.mT)(a), jnp.asarray(a).mT)
    _same(tdx.vmap(lambda x: x.mT)(a), jax.vmap(lambda x: x.mT)(a))
    with pytest.raises(PrimitiveTypeError, match="matrix_transpose"):
        tnp.ones(3).mT
    x = tnp.asarray(a)
    (dev,) = tdx.devices()
    assert x.device == dev and x.to_device(dev) is x
    _same(tdx.jit(lambda y: y.to_device(dev) * 2)(a), a * 2)
    assert x.__array_namespace__() is tnp and x.__array_namespace__(api_version="2024.12") is tnp
    with pytest.raises(ArgumentValueError, match="api_version='2021.12' is not available"):
        x.__array_namespace__(api_version="2021.12")


def test_a_foreign_device_is_a_device_error() -> None:
    from typedax.core.errors import DeviceError

    (jdev,) = jax.devices()  # JAX's device: another client's, not typedax's
    (dev,) = tdx.devices()
    calls: list[tuple[str, Callable[..., Any]]] = [
        ("arange", lambda d: tnp.arange(3, device=d)), ("asarray", lambda d: tnp.asarray([1.0], device=d)),
        ("eye", lambda d: tnp.eye(2, device=d)), ("full", lambda d: tnp.full(2, 1.0, device=d)),
        ("full_like", lambda d: tnp.full_like(np.ones(2), 3, device=d)),
        ("linspace", lambda d: tnp.linspace(0, 1, 5, device=d)), ("ones", lambda d: tnp.ones(2, device=d)),
        ("ones_like", lambda d: tnp.ones_like(np.ones(2), device=d)), ("zeros", lambda d: tnp.zeros(2, device=d)),
        ("zeros_like", lambda d: tnp.zeros_like(np.ones(2), device=d)),
        ("astype", lambda d: tnp.astype(np.ones(2), np.int8, device=d)),
        ("empty", lambda d: tnp.empty(2, device=d)), ("empty_like", lambda d: tnp.empty_like(np.ones(2), device=d)),
    ]
    for name, call in calls:
        for d in (None, dev):
            out = call(d)
            assert out.device == dev, name
        with pytest.raises(DeviceError, match="not a typedax device"):
            call(jdev)
        with pytest.raises(DeviceError, match="not a typedax device"):
            call("cpu")
    for bad in (jdev, "cpu", None):
        with pytest.raises(DeviceError, match="not a typedax device"):
            tnp.ones(2).to_device(bad)  # type: ignore[arg-type]  # the wrong types, on purpose
    _same(tnp.full_like(np.ones(2), 3, shape=(2, 3)), jnp.full_like(np.ones(2), 3, shape=(2, 3)))
    _same(tnp.zeros_like(np.ones(2, np.int8), shape=4), jnp.zeros_like(np.ones(2, np.int8), shape=4))


def test_dlpack_both_ways() -> None:
    from typedax.core.errors import DeviceError

    x = tnp.arange(6.0).reshape(2, 3)
    assert x.__dlpack_device__() == (1, 0)
    _same(np.from_dlpack(x), np.asarray(x))
    _same(jnp.from_dlpack(x), np.asarray(x))  # JAX reads typedax's export
    _same(tnp.from_dlpack(np.arange(4, dtype=np.uint16)), np.arange(4, dtype=np.uint16))
    _same(tnp.from_dlpack(jnp.arange(3.0)), np.arange(3.0))  # type: ignore[arg-type]  # jax's stub: __dlpack__ only
    _same(tnp.from_dlpack(x), np.asarray(x))
    legacy = x.__dlpack__()  # (a pre-1.0 consumer: a writable copy is exported)
    assert type(legacy).__name__ == "PyCapsule"
    assert tnp.from_dlpack(x) is x and tnp.from_dlpack(x, copy=False) is x
    _same(tnp.from_dlpack(x, copy=True), x)
    with pytest.raises(BufferError, match="copy=False, but a ndarray must be copied"):
        tnp.from_dlpack(np.ones(2), copy=False)
    with pytest.raises(DLPackError, match="stream"):
        x.__dlpack__(stream=1)
    with pytest.raises(DeviceError, match="not a typedax device"):
        tnp.from_dlpack(np.ones(2), device=jax.devices()[0])
    with pytest.raises(DLPackError, match="cannot read a list on the host"):
        tnp.from_dlpack(cast(Any, [1.0, 2.0]))

    class FarAway:  # a tensor in the memory of a CUDA device typedax does not run on
        def __dlpack__(self, *, stream: object = None) -> object:
            raise AssertionError("not exported")

        def __dlpack_device__(self) -> tuple[int, int]:
            return (2, 99)

    with pytest.raises(DLPackError, match="in the memory of CUDA device 99, which typedax does not run on"):
        tnp.from_dlpack(cast(Any, FarAway()))
    if tdx.default_backend() == "gpu":  # JAX's GPU array: copied on the GPU, never through the host
        y = tnp.from_dlpack(jnp.arange(6.0).reshape(2, 3))  # type: ignore[arg-type]  # jax's stub: __dlpack__ only
        assert y.devices() == x.devices() and cast(Any, y)._host is None  # (ArrayImpl: no host copy)
        _same(y, np.arange(6.0).reshape(2, 3))
    with pytest.raises(tdx.core.errors.ConcretizationError):
        tdx.jit(lambda y: np.from_dlpack(y))(x)


def test_namespace_info_as_jax() -> None:
    info, jinfo = tnp.__array_namespace_info__(), cast(Any, jnp.__array_namespace_info__())  # (untyped)
    assert info.capabilities() == jinfo.capabilities()
    assert jinfo.default_device() is None
    info.default_device()  # (None: "uncommitted", i.e. typedax's one device)
    assert info.devices() == [None, *tdx.devices()]
    assert info.default_dtypes() == jinfo.default_dtypes()
    for kind in (None, "bool", "signed integer", "unsigned integer", "integral", "real floating", "numeric",
                 "complex floating", ("bool", "real floating")):
        assert info.dtypes(kind=kind) == jinfo.dtypes(kind=kind), kind
    with tdx.config.context(enable_x64=False):  # (JAX in 32-bit mode: no 64-bit types)
        assert "float64" not in info.dtypes() and info.default_dtypes()["integral"] == np.int32
    with pytest.raises(PrimitiveTypeError, match="unknown kind 'floating'"):
        info.dtypes(kind="floating")


# -- 5. array API consumers ----------------------------------------------------------------------


def test_array_api_compat_finds_typedax_numpy() -> None:
    import array_api_compat as compat

    x: Any = tnp.arange(6.0).reshape(2, 3)  # (array-api-compat's types are its own protocols)
    assert compat.array_namespace(x) is tnp
    assert compat.array_namespace(x, tnp.ones(2), 3.0) is tnp
    assert compat.is_array_api_obj(x)
    assert compat.device(x) == tdx.devices()[0] and compat.size(x) == 6
    seen: list[object] = []

    def f(y: tdx.Array) -> tdx.Array:
        seen.append(compat.array_namespace(y))  # a tracer's namespace is typedax.numpy too
        return y * 2

    tdx.jit(f)(x)
    tdx.grad(lambda y: f(y).sum())(x)
    assert seen == [tnp, tnp]


def test_array_api_extra_runs_on_typedax_arrays() -> None:
    import array_api_extra as xpx

    x_np = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -0.75]])
    t: Any = tnp.asarray(x_np)  # (array-api-extra's types are its own protocols)
    j: Any = jnp.asarray(x_np)
    cases: list[Callable[[Any], Any]] = [
        lambda a: xpx.cov(a), lambda a: xpx.sinc(a), lambda a: xpx.kron(a, a),
        lambda a: xpx.atleast_nd(a[0], ndim=3), lambda a: xpx.isclose(a, a + 1e-12),
        lambda a: xpx.apply_where(a > 0, a, lambda v: v**0.5, fill_value=0.0),
        lambda a: xpx.nunique(a), lambda a: xpx.setdiff1d(a[0], a[1]),
    ]
    for case in cases:
        want = case(j)
        got = case(t)
        assert isinstance(got, tdx.Array)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
    cov: Any = xpx.cov  # (its result type is array-api-extra's protocol: no .sum)
    sinc: Any = xpx.sinc
    jitted = tdx.jit(lambda a: cov(a) + sinc(a).sum())(x_np)  # (under jit: tracers)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(cov(j) + sinc(j).sum()), rtol=1e-12)
    g = tdx.grad(lambda a: sinc(a).sum())(x_np)
    np.testing.assert_allclose(np.asarray(g), np.asarray(jax.grad(lambda a: sinc(a).sum())(j)), rtol=1e-12)
