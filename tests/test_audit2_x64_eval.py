"""Issue 23 (second audit): arrays made with x64 on compute inside
``config.context(enable_x64=False)`` as JAX's do (the 64-bit array meets
32-bit Python scalars by promotion; gradients and Jacobians of a 64-bit
computation seed it in its own dtype); and ``eval_jaxpr`` checks its
arguments, and a hand-built jaxpr's outputs, against the jaxpr's types."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import config, lax
from typedax.core import Jaxpr, ShapedArray, Var, eval_jaxpr
from typedax.core.errors import JaxprTypeError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def _f(np_: Any) -> Callable[[Any], Any]:
    return lambda x: (np_.sin(x) * x * 2.0).sum()


#: (name, program in terms of (library, numpy namespace, lax, array a, int array i)).
#: Each runs on arrays made with x64 on, inside a block with x64 off.
CASES: list[tuple[str, Callable[[Any, Any, Any, Any, Any], Any]]] = [
    ("a * 2", lambda lib, np_, lx, a, i: a * 2),
    ("a + 1.0", lambda lib, np_, lx, a, i: a + 1.0),
    ("2.5 - a", lambda lib, np_, lx, a, i: 2.5 - a),
    ("a / 2", lambda lib, np_, lx, a, i: a / 2),
    ("where", lambda lib, np_, lx, a, i: np_.where(a > 0, a, 0.0)),
    ("maximum", lambda lib, np_, lx, a, i: np_.maximum(a, 0.0)),
    ("clip", lambda lib, np_, lx, a, i: np_.clip(a, 0.0, 1.0)),
    ("int64 + 1", lambda lib, np_, lx, a, i: i + 1),
    ("a + a", lambda lib, np_, lx, a, i: a + a),
    ("mean", lambda lib, np_, lx, a, i: a.mean()),
    ("exp + 1", lambda lib, np_, lx, a, i: np_.exp(a) + 1),
    ("a[0] * 2.0", lambda lib, np_, lx, a, i: a[0] * 2.0),
    (".at[0].set", lambda lib, np_, lx, a, i: a.at[0].set(5.0)),
    ("jit", lambda lib, np_, lx, a, i: lib.jit(lambda x: x * 2)(a)),
    ("vmap", lambda lib, np_, lx, a, i: lib.vmap(lambda x: x * 2.0)(a)),
    ("grad", lambda lib, np_, lx, a, i: lib.grad(_f(np_))(a)),
    ("jit(grad)", lambda lib, np_, lx, a, i: lib.jit(lib.grad(_f(np_)))(a)),
    ("value_and_grad", lambda lib, np_, lx, a, i: lib.value_and_grad(_f(np_))(a)[1]),
    ("jvp", lambda lib, np_, lx, a, i: lib.jvp(_f(np_), (a,), (a,))[1]),
    ("linearize", lambda lib, np_, lx, a, i: lib.linearize(_f(np_), a)[1](a)),
    ("vmap(grad)", lambda lib, np_, lx, a, i: lib.vmap(lib.grad(lambda x: x * x * 2.0))(a)),
    ("hessian", lambda lib, np_, lx, a, i: lib.hessian(_f(np_))(a)),
    ("jacrev", lambda lib, np_, lx, a, i: lib.jacrev(lambda x: x * 2.0)(a)),
    ("jacrev of a scalar", lambda lib, np_, lx, a, i: lib.jacrev(lambda x: (x * 2.0).sum())(a)),
    ("jacfwd", lambda lib, np_, lx, a, i: lib.jacfwd(lambda x: x * 2.0)(a)),
    ("scan", lambda lib, np_, lx, a, i: lx.scan(lambda c, x: (c + x, c * 2.0), 0.0, a)[0]),
    ("softmax", lambda lib, np_, lx, a, i: lib.nn.softmax(a)),
]


@pytest.mark.parametrize("name,program", CASES, ids=[c[0] for c in CASES])
def test_x64_arrays_compute_with_x64_off_as_in_jax(
    name: str, program: Callable[[Any, Any, Any, Any, Any], Any]
) -> None:
    a_t, i_t = tnp.linspace(0.5, 1.5, 3), tnp.arange(3)
    a_j, i_j = jnp.linspace(0.5, 1.5, 3), jnp.arange(3)
    assert a_t.dtype == np.float64 and i_t.dtype == np.int64
    with config.context(enable_x64=False):
        got = program(tdx, tnp, lax, a_t, i_t)
    with jax.enable_x64(False):
        want = program(jax, jnp, jax.lax, a_j, i_j)
    assert got.dtype == want.dtype, name
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.fixture
def jaxpr_f64_3() -> Iterator[Jaxpr]:
    yield tdx.make_jaxpr(lambda x: x * 2.0)(np.ones(3)).jaxpr


def test_eval_jaxpr_checks_argument_types(jaxpr_f64_3: Jaxpr) -> None:
    np.testing.assert_array_equal(np.asarray(eval_jaxpr(jaxpr_f64_3, [np.ones(3)])[0]), [2.0] * 3)
    with pytest.raises(JaxprTypeError, match=r"input 0 has type float64\[5\], but the jaxpr's binder takes float64\[3\]"):
        eval_jaxpr(jaxpr_f64_3, [tnp.ones(5)])
    with pytest.raises(JaxprTypeError, match=r"input 0 has type float32\[3\]"):
        eval_jaxpr(jaxpr_f64_3, [np.ones(3, np.float32)])
    with pytest.raises(JaxprTypeError, match="takes 1 inputs, got 2"):
        eval_jaxpr(jaxpr_f64_3, [np.ones(3), np.ones(3)])
    # under a transformation the tracers are checked alike
    with pytest.raises(JaxprTypeError, match=r"input 0 has type float64\[4\]"):
        tdx.jit(lambda x: eval_jaxpr(jaxpr_f64_3, [x])[0])(np.ones(4))
    # a weak Python scalar fits a binder of its dtype
    scalar = tdx.make_jaxpr(lambda x: x * 2.0)(1.0).jaxpr
    assert float(np.asarray(eval_jaxpr(scalar, [3.0])[0])) == 6.0


def test_eval_jaxpr_refuses_a_binder_typed_apart_from_its_equation(jaxpr_f64_3: Jaxpr) -> None:
    eqn = jaxpr_f64_3.eqns[0]
    b = Var(ShapedArray((3,), np.dtype(np.float32)))
    bad = Jaxpr(jaxpr_f64_3.in_binders, (dataclasses.replace(eqn, out_binders=(b,)),), (b,))
    with pytest.raises(JaxprTypeError, match=r"out binder has type float32\[3\] but mul produces float64\[3\]"):
        eval_jaxpr(bad, [np.ones(3)])
