"""Tracing the tutorial's functions to jaxprs, printing and evaluating them."""

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax


def main() -> None:
    print("== make_jaxpr(lambda x: 2. * x)(3.)")
    closed = tdx.make_jaxpr(lambda x: 2.0 * x)(3.0)
    print(closed)
    print(tdx.typecheck_jaxpr(closed.jaxpr))

    print("\n== omnistaging: make_jaxpr(lambda: mul(2., 2.))()")
    print(tdx.make_jaxpr(lambda: tnp.asarray(2.0) * 2.0)())

    def f(x: tdx.ArrayLike) -> tdx.Array:
        y = lax.sin(x) * 2.0
        return -y + x

    print("\n== f(x) = -(sin(x) * 2) + x")
    fj = tdx.make_jaxpr(f)(3.0)
    print(fj)
    print("eval_jaxpr(f, 3.0) =", tdx.eval_jaxpr(fj.jaxpr, [3.0])[0], "numpy:", -(np.sin(3.0) * 2) + 3.0)
