"""Debug switches (issue 27 item 5): ``disable_jit`` (context manager and
``config.update('jax_disable_jit', ...)``), ``jax_debug_nans`` /
``jax_debug_infs``, and ``jax_platform_name``, against JAX 0.10.2."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import DebugNanError, PlatformError
from typedax.lowering import runtime

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


@contextmanager
def _both_set(name: str, value: bool) -> Iterator[None]:
    """Set an option in typedax and JAX for the ``with`` body."""
    tdx.config.update(name, value)
    jax.config.update(name, value)  # type: ignore[no-untyped-call]  # as above
    try:
        yield
    finally:
        tdx.config.update(name, False)
        jax.config.update(name, False)  # type: ignore[no-untyped-call]  # as above


def _printing(capsys: pytest.CaptureFixture[str], f: Callable[[], object]) -> list[str]:
    capsys.readouterr()
    f()
    return capsys.readouterr().out.splitlines()


def _f_t(x: tdx.ArrayLike) -> tdx.Array:
    print("called with", type(x).__name__ != "JaxprTracer")
    return tnp.asarray(x) * 2


def _f_j(x: jax.Array) -> jax.Array:
    print("called with", not isinstance(x, jax.core.Tracer))
    return x * 2


def test_disable_jit_runs_the_python_body_on_each_call(capsys: pytest.CaptureFixture[str]) -> None:
    ft, fj = tdx.jit(_f_t), jax.jit(_f_j)
    # jitted: the body runs once (tracing), not on the second call
    assert _printing(capsys, lambda: (ft(1.0), ft(2.0))) == _printing(capsys, lambda: (fj(jnp.asarray(1.0)), fj(jnp.asarray(2.0))))
    assert _printing(capsys, lambda: ft(3.0)) == []
    with tdx.disable_jit(), jax.disable_jit():
        ours = _printing(capsys, lambda: (ft(3.0), ft(4.0)))
        theirs = _printing(capsys, lambda: (fj(jnp.asarray(3.0)), fj(jnp.asarray(4.0))))
        assert tdx.config.read("jax_disable_jit") is True
    assert ours == theirs == ["called with True", "called with True"]
    assert tdx.config.read("jax_disable_jit") is False and _printing(capsys, lambda: ft(5.0)) == []
    with _both_set("jax_disable_jit", True):
        assert _printing(capsys, lambda: ft(6.0)) == ["called with True"]
        assert float(ft(6.0)) == 12.0 and tdx.config.read("jax_disable_jit") is True
        with tdx.disable_jit(False):  # a context overrides the global value here
            assert _printing(capsys, lambda: ft(7.0)) == []
    assert _printing(capsys, lambda: ft(8.0)) == []


def test_disable_jit_with_transformations_and_static_args(capsys: pytest.CaptureFixture[str]) -> None:
    g = tdx.jit(lambda x, n: tnp.sin(x) * n, static_argnums=1)
    with tdx.disable_jit():
        assert float(tdx.grad(g)(0.5, 3)) == pytest.approx(3 * np.cos(0.5))
        np.testing.assert_allclose(np.asarray(tdx.vmap(g, in_axes=(0, None))(np.arange(3.0), 2)), 2 * np.sin(np.arange(3.0)))
        # a value-dependent Python branch works eagerly, as in JAX
        h = tdx.jit(lambda x: x + 1 if float(x) > 0 else x - 1)
        assert float(h(2.0)) == 3.0 and float(h(-2.0)) == -3.0
    with pytest.raises(TypeError, match="takes a bool"):
        with tdx.disable_jit("yes"):  # type: ignore[arg-type]  # not a bool: the error under test
            pass
    with pytest.raises(TypeError, match="takes a bool"):
        tdx.config.update("jax_disable_jit", 1)


def _log0(x: tdx.ArrayLike) -> tdx.Array:
    return tnp.log(x) * 0.0


def _log0_j(x: jax.Array) -> jax.Array:
    return jnp.log(x) * 0.0


def _log2(x: tdx.ArrayLike) -> tdx.Array:
    return tnp.log(x) * 2.0


def _log2_j(x: jax.Array) -> jax.Array:
    return jnp.log(x) * 2.0


def _message(f: Callable[[], object]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(FloatingPointError) as e:
            f()
    return str(e.value)


@pytest.mark.parametrize("option", ["jax_debug_nans", "jax_debug_infs"])
def test_debug_nans_and_infs_name_the_primitive(option: str) -> None:
    """``log(0.) * 0.``: a NaN made by ``mul`` (from log's -inf); with
    ``debug_infs`` alone JAX's jit sees no inf in that result, and
    ``log(0.) * 2.`` is caught at ``log``."""
    x = jnp.asarray(0.0)
    nans = option == "jax_debug_nans"
    ours, theirs = (_log0, _log0_j) if nans else (_log2, _log2_j)
    jax.clear_caches()  # type: ignore[no-untyped-call]  # unannotated in jax; its de-optimized re-run reuses executables compiled without the check
    with _both_set(option, True):
        want = _message(lambda: jax.jit(theirs)(x))
        assert want == ("invalid value (nan) encountered in mul" if nans else "invalid value (inf) encountered in log")
        for f in (ours, tdx.jit(ours), tdx.jit(tdx.jit(ours)), tdx.jit(lambda v: ours(v) + 1.0)):
            assert _message(lambda: f(0.0)) == want
            assert isinstance(_raised(lambda: f(0.0)), DebugNanError)
        assert _message(lambda: theirs(x)) == want  # JAX's eager ops check too
        if not nans:  # the NaN of log(0.) * 0. leaves jit unchecked with debug_infs only, as in JAX
            assert float(tnp.isnan(tdx.jit(_log0)(0.0))) == 1.0
            assert bool(jnp.isnan(jax.jit(_log0_j)(x)))
        # finite results pass, and so do integer ones
        assert float(tdx.jit(ours)(1.0)) == 0.0
        assert int(tdx.jit(lambda i: i // 2)(7)) == 3
        assert getattr(tdx.config, option) is True
    assert float(tnp.isnan(tdx.jit(_log0)(0.0))) == 1.0  # off again: no check


def _raised(f: Callable[[], object]) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            f()
        except BaseException as e:  # noqa: BLE001 - the test inspects it
            return e
    raise AssertionError("no exception")


def test_debug_nans_inside_control_flow() -> None:
    def f(x: tdx.ArrayLike) -> tdx.Array:
        return lax.fori_loop(0, 3, lambda i, c: c * 0.0 + tnp.sqrt(c - 10.0), tnp.asarray(x))

    def g(x: jax.Array) -> jax.Array:
        out: jax.Array = jax.lax.fori_loop(0, 3, lambda i, c: c * 0.0 + jnp.sqrt(c - 10.0), x)
        return out

    with _both_set("jax_debug_nans", True):
        want = _message(lambda: jax.jit(g)(jnp.asarray(1.0)))
        got = _message(lambda: tdx.jit(f)(1.0))
    assert "invalid value (nan) encountered in" in want and "invalid value (nan) encountered in" in got


@pytest.fixture
def platform_name_restored() -> Iterator[None]:
    """A platform name left set would outrank TYPEDAX_PLATFORM for later tests."""
    from typedax.core import config as config_module

    saved = config_module._PLATFORM_NAME[0]
    try:
        yield
    finally:
        config_module._PLATFORM_NAME[0] = saved


def test_platform_name(platform_name_restored: None) -> None:
    assert tdx.config.jax_platform_name in (None, runtime.platform())
    running = runtime.platform()
    tdx.jit(lambda x: x + 1)(1.0)  # the backend is running
    tdx.config.update("jax_platform_name", running)  # the same platform: fine
    assert tdx.config.jax_platform_name == running == tdx.config.read("platform_name")
    other = "cuda" if running == "cpu" else "cpu"
    with pytest.raises(PlatformError, match="already running"):
        tdx.config.update("jax_platform_name", other)
    with pytest.raises(PlatformError, match="choose one of cpu, cuda, gpu"):
        tdx.config.update("jax_platform_name", "tpu")
    assert tdx.config.jax_platform_name == running


def test_debug_nans_when_the_eager_rerun_finds_none() -> None:
    """A NaN only the compiled program made (here a host callback that
    answers NaN the first time only) is reported against the jit."""
    calls: list[int] = []

    def flaky(x: tdx.ArrayLike) -> object:
        calls.append(1)
        return np.asarray(np.nan if len(calls) == 1 else 0.0)

    def plus_one(x: tdx.ArrayLike) -> tdx.Array:
        return tnp.add(tdx.pure_callback(flaky, tdx.ShapeDtypeStruct((), np.dtype(np.float64)), x), 1.0)

    f = tdx.jit(plus_one)
    with _both_set("jax_debug_nans", True):
        with pytest.raises(DebugNanError, match=r"invalid value \(nan\) encountered in jit\(.*plus_one\); "
                                                r"evaluated again equation by equation, no primitive made it"):
            f(1.0)
    assert len(calls) == 2
