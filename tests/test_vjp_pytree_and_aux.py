"""Two of JAX's conveniences ported programs use (issue 29, item 6): the
function ``vjp`` returns is a pytree (a ``Partial`` whose leaves are the
residuals, as JAX's), so it can leave a ``jit``, ride in a ``scan`` carry
and enter a ``jit`` as an argument; and ``jacfwd``/``hessian`` take
``has_aux`` (JAX's argument order: ``argnums, has_aux, holomorphic``)."""

from __future__ import annotations

from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import GradOutputError

X = np.array([0.3, -1.2, 2.0], np.float32)
CT = np.array([1.0, -0.5, 2.0], np.float32)


def f(a: Any) -> Any:
    return tnp.sin(a) * a + tnp.exp(a[0])


def jf(a: Any) -> Any:
    return jnp.sin(a) * a + jnp.exp(a[0])


def test_the_pullback_is_a_pytree_of_residuals_as_jaxs() -> None:
    _, pb = tdx.vjp(f, X)
    assert isinstance(pb, tdx.tree_util.Partial)
    leaves = tdx.tree_util.tree_leaves(pb)
    assert leaves and all(isinstance(x, (tdx.Array, np.ndarray)) for x in leaves)
    want = jax.vjp(jf, X)[1](CT)[0]
    np.testing.assert_allclose(pb(CT)[0], want, rtol=1e-6)
    # rebuilt from its leaves, it is the same function
    rebuilt: Any = tdx.tree_util.tree_unflatten(tdx.tree_util.tree_structure(pb), leaves)
    np.testing.assert_allclose(rebuilt(CT)[0], want, rtol=1e-6)


def test_the_pullback_leaves_a_jit_rides_a_scan_and_enters_a_jit() -> None:
    want = np.asarray(jax.jit(lambda a: jax.vjp(jf, a)[1])(X)(CT)[0])
    pb = tdx.jit(lambda a: tdx.vjp(f, a)[1])(X)
    np.testing.assert_allclose(pb(CT)[0], want, rtol=1e-6)
    carried: Any
    carried, _ = lax.scan(lambda c, _: (c, None), pb, None, length=2)
    np.testing.assert_allclose(carried(CT)[0], want, rtol=1e-6)
    np.testing.assert_allclose(tdx.jit(lambda p, c: p(c))(pb, CT)[0], want, rtol=1e-6)


def g(a: Any) -> tuple[Any, Any]:
    return tnp.sin(a) * a[1], {"norm": tnp.sum(a * a), "n": 3}


def jg(a: Any) -> tuple[Any, Any]:
    return jnp.sin(a) * a[1], {"norm": jnp.sum(a * a), "n": 3}


@pytest.mark.parametrize("jit", [False, True])
def test_jacfwd_and_hessian_with_aux_as_jax(jit: bool) -> None:
    wrap = tdx.jit if jit else (lambda h: h)
    jac: Any
    aux: Any
    jac, aux = wrap(tdx.jacfwd(g, has_aux=True))(X)
    jjac, jaux = jax.jacfwd(jg, has_aux=True)(X)
    np.testing.assert_allclose(jac, jjac, rtol=1e-6)
    np.testing.assert_allclose(aux["norm"], jaux["norm"], rtol=1e-6)
    assert int(aux["n"]) == 3 and np.shape(aux["norm"]) == ()

    def h(a: Any) -> tuple[Any, Any]:
        return tnp.sum(tnp.sin(a) * a), a[0] * 2

    def jh(a: Any) -> tuple[Any, Any]:
        return jnp.sum(jnp.sin(a) * a), a[0] * 2

    hess: Any
    hess, haux = wrap(tdx.hessian(h, has_aux=True))(X)
    jhess, jhaux = jax.hessian(jh, has_aux=True)(X)
    np.testing.assert_allclose(hess, jhess, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(haux, jhaux, rtol=1e-6)
    # positional, JAX's order: argnums, has_aux, holomorphic
    jac2, _ = cast(Any, tdx.jacfwd)(g, 0, True)(X)
    np.testing.assert_allclose(jac2, jjac, rtol=1e-6)


def test_jacfwd_has_aux_needs_a_pair() -> None:
    with pytest.raises(TypeError, match="has_aux=True requires the function to return a pair"):
        tdx.jacfwd(lambda a: tnp.sin(a), has_aux=True)(X)  # type: ignore[call-overload]  # the mistake under test
    with pytest.raises(GradOutputError):
        tdx.jacfwd(lambda a: (a, a, a), has_aux=True)(X)  # type: ignore[call-overload]  # as above


def test_integer_outputs_under_jit_and_vmap_give_float0_tangents() -> None:
    # JAX's float0 zeros at the top level and through jit and vmap (which
    # once gave zeros of the output's own dtype, and before that raised)
    def f(a: Any) -> Any:
        return tnp.argmax(a), tnp.sum(a * a)

    _, (ti, tf) = tdx.jvp(f, (X,), (CT,))
    assert np.asarray(ti).dtype == jax.dtypes.float0
    _, (ji, jfl) = tdx.jit(lambda a, t: tdx.jvp(f, (a,), (t,)))(X, CT)
    assert np.asarray(ji).dtype == jax.dtypes.float0 and np.isclose(float(jfl), float(tf))
    _, (vi, vfl) = tdx.vmap(lambda a, t: tdx.jvp(f, (a,), (t,)))(np.stack([X, X]), np.stack([CT, CT]))
    assert np.asarray(vi).dtype == jax.dtypes.float0 and np.shape(vi) == (2,)
    assert np.allclose(np.asarray(vfl), float(tf))
    n = np.arange(3)
    g = tdx.jit(tdx.grad(lambda a, k: tnp.sum(a * k), argnums=(0, 1), allow_int=True))(X, n)
    np.testing.assert_allclose(np.asarray(g[0]), n.astype(np.float32))
    assert np.asarray(g[1]).dtype == jax.dtypes.float0 and np.shape(g[1]) == (3,)
