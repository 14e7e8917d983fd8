"""Reverse mode: ``linearize``, ``vjp`` and ``grad`` on the tutorial's
functions, Python control flow under ``grad``, per-example gradients with
``vmap``, a Hessian, and the linearized and transposed jaxprs printed."""

from __future__ import annotations

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.trace import aval_of
from typedax.transforms import linearize_jaxpr, transpose_jaxpr


def f(x: tdx.ArrayLike) -> tdx.Array:
    """The tutorial's ``f``: -(sin(x) * 2) + x."""
    y = lax.sin(x) * 2.0
    return -y + x


def relu_square(x: tdx.ArrayLike) -> tdx.Array:
    x = tnp.asarray(x)
    """``x**2 if x > 0 else 0``: Python control flow on the primal value."""
    return x**2 if x > 0.0 else tnp.zeros(())


def mlp_loss(params: list[tuple[tdx.Array, tdx.Array]], x: tdx.ArrayLike, y: tdx.ArrayLike) -> tdx.Array:
    h = tnp.asarray(x)
    for w, b in params:
        h = tnp.tanh(h @ w + b)
    return tnp.mean((h - y) * (h - y))


def main() -> None:
    print("== linearize(sin, 3.)")
    y, sin_lin = tdx.linearize(tnp.sin, 3.0)
    print(y, np.sin(3.0))
    print(sin_lin(1.0), np.cos(3.0))

    print("\n== vjp(sin, 3.) and grad(f)(3.) for f(x) = -(sin(x) * 2) + x")
    _, f_vjp = tdx.vjp(tnp.sin, 3.0)
    print(f_vjp(1.0), np.cos(3.0))
    print(tdx.grad(f)(3.0))

    print("\n== grad through nested jits: f(x) = g(2x), g(x) = cos(x) * 2")
    g = tdx.jit(lambda x: tnp.cos(x) * 2.0)
    h = tdx.jit(lambda x: g(x * 2.0))
    print(tdx.grad(h)(3.0))

    print("\n== Python control flow under grad: x**2 if x > 0 else 0")
    print(tdx.grad(relu_square)(3.0), tdx.grad(relu_square)(-3.0))

    print("\n== higher derivatives of sin at 1, by nesting grad")
    d = tdx.grad(tnp.sin)
    for n in range(1, 5):
        print(f"d^{n} sin(1) =", d(1.0))
        d = tdx.grad(d)

    print("\n== value_and_grad of a small MLP loss (pytree parameters)")
    rng = np.random.default_rng(0)
    params: list[tuple[tdx.Array, tdx.Array]] = [
        (tnp.asarray(rng.normal(size=(3, 4)) / 2), tnp.zeros(4)),
        (tnp.asarray(rng.normal(size=(4, 1)) / 2), tnp.zeros(1)),
    ]
    xs, ys = rng.normal(size=(5, 3)), rng.normal(size=(5, 1))
    loss, grads = tdx.value_and_grad(mlp_loss)(params, xs, ys)
    print("loss", loss)
    print("shapes of the gradient:", [aval_of(t).str_short() for t in tdx.tree.leaves(grads)])

    print("\n== per-example gradients: vmap(grad(loss), in_axes=(None, 0, 0))")
    per_example = tdx.vmap(tdx.grad(mlp_loss), in_axes=(None, 0, 0))(params, xs, ys)
    print("per-example gradient shapes:", [aval_of(t).str_short() for t in tdx.tree.leaves(per_example)])

    print("\n== Hessian of sum(x**3) + sum(x)**2 at (1, 2, 3): diag(6x) + 2")
    hess = tdx.hessian(lambda x: tnp.sum(x**3) + tnp.sum(x) ** 2)
    print(hess(np.array([1.0, 2.0, 3.0])))

    print("\n== jacrev of tanh(W @ x) (3x2 Jacobian)")
    w = np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 1.0]])
    print(tdx.jacrev(lambda x: tnp.tanh(w @ x))(np.array([0.1, 0.2])))

    print("\n== linearize_jaxpr / transpose_jaxpr of f")
    jaxpr = tdx.make_jaxpr(f)(3.0).jaxpr
    print(jaxpr)
    primal, linear, num_res = linearize_jaxpr(jaxpr)
    print("-- primal part (outputs, then", num_res, "residual(s)):")
    print(primal)
    print("-- linear part (residuals, tangents) -> tangents:")
    print(linear)
    print("-- its transpose (residuals, cotangents) -> cotangents:")
    print(transpose_jaxpr(linear, [False] * num_res + [True]))

    print("\n== make_jaxpr(grad(f))(3.)")
    print(tdx.make_jaxpr(tdx.grad(f))(3.0))


if __name__ == "__main__":
    main()
