"""Helpers of the tests of typedax.numpy against jax.numpy (tests/test_numpy_more*.py):
run a function eagerly and under ``typedax.jit``, and compare values and
dtypes with JAX's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

import typedax as tdx

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def assert_same(got: object, want: object, rtol: float = 1e-6, atol: float = 1e-12, what: str = "") -> None:
    """``got`` (typedax) equals ``want`` (JAX) in dtype, shape and value (NaNs equal)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (what, got, want)
        for g, w in zip(got, want):
            assert_same(g, w, rtol, atol, what)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype, f"{what}: dtype {g.dtype}, JAX gives {w.dtype}"
    assert g.shape == w.shape, f"{what}: shape {g.shape}, JAX gives {w.shape}"
    if w.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w, err_msg=what)
    else:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def jax_value(jf: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``jf(*args, **kwargs)`` computed by ``jax.jit`` with the NumPy-array
    arguments traced (one compilation instead of one per operation: several
    times faster than JAX's eager mode here); eagerly where JAX needs
    concrete values."""
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    kw_arrays = [k for k, v in kwargs.items() if isinstance(v, np.ndarray)]

    def staged(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(arrays, xs):
            full[i] = x
        kw = dict(kwargs)
        for k, x in zip(kw_arrays, xs[len(arrays):]):
            kw[k] = x
        return jf(*full, **kw)

    try:
        return jax.jit(staged)(*[args[i] for i in arrays], *[kwargs[k] for k in kw_arrays])
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerIntegerConversionError,
            jax.errors.TracerBoolConversionError):
        return jf(*args, **kwargs)


def check(tf: Callable[..., Any], jf: Callable[..., Any], *args: Any, jit: bool = True,
          rtol: float = 1e-6, atol: float = 1e-12) -> None:
    """``tf(*args)`` eagerly and under ``tdx.jit`` (the NumPy-array arguments
    traced, the rest static) against ``jf(*args)``."""
    want = jax_value(jf, *args)
    assert_same(tf(*args), want, rtol, atol, "eager")
    if not jit:
        return
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    def staged(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(arrays, xs):
            full[i] = x
        return tf(*full)

    assert_same(tdx.jit(staged)(*[args[i] for i in arrays]), want, rtol, atol, "jit")


def grad_check(tf: Callable[..., Any], jf: Callable[..., Any], *args: Any, argnums: int = 0,
               rtol: float = 1e-6, atol: float = 1e-10) -> None:
    """The gradient of the sum of ``tf`` against JAX's (float64 arguments)."""
    import jax.numpy as jnp
    import typedax.numpy as tnp

    got = tdx.grad(lambda *a: tnp.sum(tf(*a)), argnums=argnums)(*args)
    want = jax.jit(jax.grad(lambda *a: jnp.sum(jf(*a)), argnums=argnums))(*args)
    assert_same(got, want, rtol, atol, "grad")


Case = tuple[str, tuple[Any, ...], dict[str, Any]]


class Table:
    """A table of cases ``(function name, args, kwargs)`` called alike on
    ``jax.numpy`` and ``typedax.numpy``. JAX's values of all cases come from
    one ``jax.jit`` compilation and typedax's jitted values from one
    ``typedax.jit`` (a compilation per case cost most of these tests' time);
    the NumPy-array arguments are traced, except where ``static(name, i)``
    says so; the cases ``eager_only(name, kwargs)`` names (concrete-only
    functions) are compared eagerly. Should a batch fail, each case is
    computed alone, so a failure names its case."""

    def __init__(self, cases: list[Case], resolve: Callable[[Any, str], Callable[..., Any]],
                 static: Callable[[str, int], bool] = lambda name, i: False,
                 eager_only: Callable[[str, dict[str, Any]], bool] = lambda name, kw: False) -> None:
        self.cases = cases
        self.resolve = resolve
        self.static = static
        self.eager_only = eager_only
        self._want: list[Any] | None = None
        self._jit: list[Any] | None = None

    def _traced(self, k: int) -> list[int]:
        name, args, _ = self.cases[k]
        return [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.ndim > 0 and not self.static(name, i)]

    def _batched(self, mod: Any, jit: Callable[..., Any], ks: list[int]) -> list[Any]:
        def run(*flat: Any) -> list[Any]:
            it = iter(flat)
            outs = []
            for k in ks:
                name, args, kwargs = self.cases[k]
                full = list(args)
                for i in self._traced(k):
                    full[i] = next(it)
                outs.append(self.resolve(mod, name)(*full, **kwargs))
            return outs

        flat = [self.cases[k][1][i] for k in ks for i in self._traced(k)]
        return list(jit(run)(*flat))

    def _compute(self, mod: Any, jit: Callable[..., Any]) -> list[Any]:
        ks = [k for k, (name, _, kw) in enumerate(self.cases) if not self.eager_only(name, kw)]
        out: list[Any] = [None] * len(self.cases)
        try:
            for k, v in zip(ks, self._batched(mod, jit, ks)):
                out[k] = v
        except Exception:  # noqa: BLE001 - then case by case, so the failing one is named
            for k in ks:
                try:
                    out[k] = self._batched(mod, jit, [k])[0]
                except Exception as e:  # noqa: BLE001 - kept for the case's own test to raise
                    out[k] = e
        return out

    def want(self, k: int) -> Any:
        if self._want is None:
            import jax.numpy as jnp

            self._want = self._compute(jnp, jax.jit)
        name, args, kwargs = self.cases[k]
        if self.eager_only(name, kwargs):
            import jax.numpy as jnp

            return self.resolve(jnp, name)(*args, **kwargs)
        if isinstance(self._want[k], Exception):
            raise self._want[k]
        return self._want[k]

    def jitted(self, k: int) -> Any:
        """typedax's jitted value of case ``k`` (None for an eager-only case or
        one with no traced argument)."""
        name, _, kwargs = self.cases[k]
        if self.eager_only(name, kwargs) or not self._traced(k):
            return None
        if self._jit is None:
            import typedax.numpy as tnp

            self._jit = self._compute(tnp, tdx.jit)
        if isinstance(self._jit[k], Exception):
            raise self._jit[k]
        return self._jit[k]

    def check(self, k: int, rtol: float = 1e-6, atol: float = 1e-12) -> None:
        import typedax.numpy as tnp

        name, args, kwargs = self.cases[k]
        want = self.want(k)
        assert_same(self.resolve(tnp, name)(*args, **kwargs), want, rtol, atol, f"{name} eager")
        got = self.jitted(k)
        if got is not None:
            assert_same(got, want, rtol, atol, f"{name} jit")


def by_name(mod: Any, name: str) -> Callable[..., Any]:
    """``mod.name`` (``Table``'s default way to find a function)."""
    fn: Callable[..., Any] = getattr(mod, name)
    return fn


class GradTable:
    """JAX's gradients of ``sum(sin(f(jnp, x)))`` for each ``f``, all from one
    ``jax.jit`` compilation (one per function cost more than the tests)."""

    def __init__(self, fs: list[Callable[[Any, Any], Any]], x: Any) -> None:
        self.fs = fs
        self.x = x
        self._want: list[Any] | None = None

    def want(self, k: int) -> Any:
        if self._want is None:
            import jax.numpy as jnp

            def grads(x: Any) -> list[Any]:
                return [jax.grad(lambda y, f=f: jnp.sum(jnp.sin(f(jnp, y))))(x) for f in self.fs]

            self._want = list(jax.jit(grads)(self.x))
        return self._want[k]

    def check(self, k: int, rtol: float = 1e-9, atol: float = 1e-12, what: str = "") -> None:
        import typedax.numpy as tnp

        f = self.fs[k]
        got = tdx.grad(lambda y: tnp.sum(tnp.sin(f(tnp, y))))(self.x)
        assert_same(got, self.want(k), rtol, atol, what or f"grad {k}")
