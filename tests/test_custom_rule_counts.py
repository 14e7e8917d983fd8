"""How many times a ``custom_jvp`` / ``custom_vjp`` function and its rules
run, under each transformation, against JAX as the oracle (issue 29, item 4).

Each function and rule appends to a log when Python runs it (a program that
prints from them prints as many lines as JAX's when the counts agree); the
logs of typedax and JAX must be equal, case by case. Also: Python control
flow on primal values in a ``custom_jvp`` function and its rule works under
eager ``grad`` and ``jvp``, as JAX's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

Lib = tuple[ModuleType, ModuleType]
Log = list[str]


def jvp_fn(lib: ModuleType, np_: ModuleType) -> tuple[Any, Log]:
    log: Log = []

    @lib.custom_jvp  # type: ignore[untyped-decorator, misc, unused-ignore]  # jax's decorators are untyped
    def f(x: Any) -> Any:
        log.append("f")
        return np_.sin(x) * 2.0

    @f.defjvp  # type: ignore[untyped-decorator, misc, unused-ignore]  # jax's decorators are untyped
    def f_jvp(primals: Any, tangents: Any) -> Any:
        log.append("jvp")
        (x,), (x_dot,) = primals, tangents
        return f(x), np_.cos(x) * 2.0 * x_dot

    return f, log


def vjp_fn(lib: ModuleType, np_: ModuleType) -> tuple[Any, Log]:
    log: Log = []

    @lib.custom_vjp  # type: ignore[untyped-decorator, misc, unused-ignore]  # jax's decorators are untyped
    def f(x: Any) -> Any:
        log.append("f")
        return np_.sin(x) * 2.0

    def fwd(x: Any) -> Any:
        log.append("fwd")
        return f(x), np_.cos(x)

    def bwd(c: Any, g: Any) -> Any:
        log.append("bwd")
        return (2.0 * c * g,)

    f.defvjp(fwd, bwd)
    return f, log


X = 0.5
XS = np.arange(3.0)

Case = Callable[[ModuleType, Any], object]
CASES: dict[str, Case] = {
    "call": lambda lib, f: f(X),
    "jit": lambda lib, f: lib.jit(f)(X),
    "grad": lambda lib, f: lib.grad(f)(X),
    "jit_grad": lambda lib, f: lib.jit(lib.grad(f))(X),
    "grad_jit": lambda lib, f: lib.grad(lib.jit(f))(X),
    "vmap": lambda lib, f: lib.vmap(f)(XS),
    "jit_vmap": lambda lib, f: lib.jit(lib.vmap(f))(XS),
    "vmap_grad": lambda lib, f: lib.vmap(lib.grad(f))(XS),
    "grad_vmap": lambda lib, f: lib.grad(lambda v: lib.vmap(f)(v).sum())(XS),
    "jvp": lambda lib, f: lib.jvp(f, (X,), (1.0,)),
    "linearize": lambda lib, f: lib.linearize(f, X)[1](1.0),
    "vjp": lambda lib, f: lib.vjp(f, X)[1](1.0),
    "vjp_unused": lambda lib, f: lib.vjp(f, X)[0],
    "grad_grad": lambda lib, f: lib.grad(lib.grad(f))(X),
    "make_jaxpr": lambda lib, f: lib.make_jaxpr(f)(X),
    "make_jaxpr_grad": lambda lib, f: lib.make_jaxpr(lib.grad(f))(X),
    "jit_grad_grad": lambda lib, f: lib.jit(lib.grad(lib.grad(f)))(X),
}

#: The cases where typedax's counts still differ from JAX's, with why (none:
#: staged rules are lazily traced jaxprs, ``core.ir.LazyJaxpr``, as JAX's thunks).
DIFFER: dict[tuple[str, str], str] = {}
FORWARD_ONLY = ("jvp", "linearize")  # a custom_vjp function refuses these, in both libraries


def counts(lib: ModuleType, np_: ModuleType, kind: str, case: str) -> dict[str, int] | str:
    """How many times each piece ran, or the error's class name."""
    f, log = (jvp_fn if kind == "jvp" else vjp_fn)(lib, np_)
    try:
        CASES[case](lib, f)
    except Exception as e:  # noqa: BLE001 - the oracle says which error
        return "TypeError" if isinstance(e, TypeError) else type(e).__name__
    return dict(Counter(log))


PARAMS = [
    pytest.param(k, c, marks=[pytest.mark.xfail(strict=True, reason=DIFFER[k, c])] if (k, c) in DIFFER else [],
                 id=f"{k}-{c}")
    for k in ("jvp", "vjp") for c in CASES
]


@pytest.mark.parametrize(("kind", "case"), PARAMS)
def test_counts_match_jax(kind: str, case: str) -> None:
    want = counts(jax, jnp, kind, case)
    if kind == "vjp" and case in FORWARD_ONLY:
        assert want == "TypeError"
    assert counts(tdx, tnp, kind, case) == want


# -- Python control flow on primal values ----------------------------------------------
def branchy(lib: ModuleType, np_: ModuleType) -> Any:
    @lib.custom_jvp  # type: ignore[untyped-decorator, misc, unused-ignore]  # jax's decorators are untyped
    def f(x: Any) -> Any:
        if x > 0:  # Python control flow on the primal value
            return np_.sqrt(x)
        return -x

    @f.defjvp  # type: ignore[untyped-decorator, misc, unused-ignore]  # jax's decorators are untyped
    def f_jvp(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        if x > 0:
            return f(x), t / (2.0 * np_.sqrt(x))
        return f(x), -t

    return f


@pytest.mark.parametrize("x", [4.0, -3.0])
def test_control_flow_on_primals_under_eager_differentiation(x: float) -> None:
    def run(lib: ModuleType, np_: ModuleType) -> list[float]:
        f = branchy(lib, np_)
        p, t = lib.jvp(f, (x,), (1.0,))
        return [float(f(x)), float(lib.grad(f)(x)), float(p), float(t),
                float(lib.grad(lambda y: f(y) * y)(x)), float(lib.grad(lib.grad(f))(x))]

    got, want = run(tdx, tnp), run(jax, jnp)
    np.testing.assert_allclose(got, want, rtol=1e-15)
