"""Forward mode and batching: derivatives of the tutorial's functions with
``jvp``, ``vmap`` examples, ``jacfwd``, and the pure ``jvp_jaxpr`` /
``vmap_jaxpr`` transformations printed."""

from collections.abc import Callable

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.transforms import jvp_jaxpr, vmap_jaxpr


def f(x: tdx.ArrayLike) -> tdx.Array:
    """The tutorial's ``f``: -(sin(x) * 2) + x."""
    y = lax.sin(x) * 2.0
    return -y + x


def deriv(g: Callable[[tdx.ArrayLike], tdx.Array]) -> Callable[[tdx.ArrayLike], tdx.Array]:
    def dg(x: tdx.ArrayLike) -> tdx.Array:
        return tdx.jvp(g, (x,), (1.0,))[1]

    return dg


def with_control_flow(x: tdx.ArrayLike) -> tdx.Array:
    x = tnp.asarray(x)
    if x > 0.0:  # concrete under jvp, as in the tutorial
        return 2.0 * x
    return x


def main() -> None:
    print("== jvp(sin, (3.,), (1.,))")
    y, t = tdx.jvp(lax.sin, (3.0,), (1.0,))
    print("sin(3) =", y, " d/dx sin at 3 =", t, " cos(3) =", np.cos(3.0))

    print("\n== jvp of f(x) = -(sin(x) * 2) + x at 3")
    y, t = tdx.jvp(f, (3.0,), (1.0,))
    print(y, t)

    print("\n== higher derivatives of sin at 3, by nesting jvp")
    d = deriv(lax.sin)
    for n in range(1, 5):
        print(f"d^{n} sin(3) =", d(3.0))
        d = deriv(d)

    print("\n== Python control flow under jvp")
    print(deriv(with_control_flow)(3.0), deriv(with_control_flow)(-3.0))

    print("\n== pytrees in and out")
    y2, t2 = tdx.jvp(lambda x: {"hi": f(x), "there": [x, lax.sin(x)]}, (3.0,), (1.0,))
    print(y2)
    print(t2)

    print("\n== no perturbation confusion: d/dx [x * d/dy (x + y)] = 1")
    print(deriv(lambda x: tnp.asarray(x) * deriv(lambda yy: tnp.asarray(x) + yy)(2.0))(3.0))

    print("\n== vmap(add_one_to_a_scalar)(arange(3.))")
    print(tdx.vmap(lambda s: 1.0 + s)(np.arange(3.0)))

    print("\n== vmap with in_axes=(None, 0): a matrix times each of a batch of vectors")
    w = np.arange(6.0).reshape(2, 3)
    print(tdx.vmap(lambda m, v: m @ v, in_axes=(None, 0))(w, np.eye(3)))

    print("\n== jacfwd(sin)(arange(3.))")
    print(tdx.jacfwd(lax.sin)(np.arange(3.0)))

    print("\n== per-example Jacobians: vmap(jacfwd(tanh))")
    print(tdx.vmap(tdx.jacfwd(lax.tanh))(np.array([[0.0, 1.0], [2.0, -1.0]])))

    jaxpr = tdx.make_jaxpr(f)(3.0).jaxpr
    print("\n== the jaxpr of f")
    print(jaxpr)
    print("\n== jvp_jaxpr(f): primal, then tangent inputs and outputs")
    print(jvp_jaxpr(jaxpr))

    g = tdx.make_jaxpr(lambda v, m: tnp.sum((m @ v) * v))(np.ones(3), np.ones((3, 3))).jaxpr
    print("\n== g(v, m) = sum((m @ v) * v)")
    print(g)
    print("\n== vmap_jaxpr(g, 4, in_dims=(0, None))")
    print(vmap_jaxpr(g, 4, (0, None)))


if __name__ == "__main__":
    main()
