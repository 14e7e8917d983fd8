"""Must fail ``mypy --strict``: one mistake per line, each through a typedax
transformation, each marked ``# <transformation>/<mistake>`` and, where
mypy catches it, ``E: <error code>``. A mistake marked ``(not caught)`` is
one the current signatures let through (they take ``Callable[..., T]`` or
``object``): mypy must report nothing on that line, so a signature that
starts catching it fails the test until the marker is updated.
``tests/test_typed_downstream.py`` runs mypy on this file; ``mypy.ini``
excludes this folder from the project-wide run. Never imported or run.
"""

from __future__ import annotations

from typing import NamedTuple

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax


class Params(NamedTuple):
    w: tdx.Array
    b: tdx.Array


def loss(params: Params, x: tdx.Array, y: tdx.Array) -> tdx.Array:
    return tnp.mean((tnp.tanh(x @ params.w + params.b) - y) ** 2)


def f(x: tdx.Array, scale: float = 1.0) -> tdx.Array:
    return scale * tnp.tanh(x)


def g2(x: tdx.Array, y: tdx.Array) -> tdx.Array:
    return x * y


def energy(x: tdx.Array) -> tdx.Array:
    return tnp.sum(x**4)


def pair(x: tdx.Array) -> tuple[tdx.Array, tdx.Array]:
    return tnp.sum(x), x


def step(c: tdx.Array, x: tdx.Array) -> tuple[tdx.Array, tdx.Array]:
    return c + x, c * x


def mistakes(params: Params, x: tdx.Array, y: tdx.Array) -> None:
    # jit
    tdx.jit(f)(x, scal=2.0)  # jit/wrong-keyword E: call-arg
    tdx.jit(g2)(x)  # jit/missing-argument E: call-arg
    tdx.jit(f)("x")  # jit/wrong-type E: arg-type
    tdx.jit(f)(x).shape()  # jit/result-misuse E: operator
    tdx.jit(f, static_argnum=1)  # jit/wrong-keyword-to-jit E: call-overload

    # grad
    tdx.grad(loss)(params, x, label=y)  # grad/wrong-keyword E: call-arg
    tdx.grad(loss)(params, x)  # grad/missing-argument E: call-arg
    tdx.grad(loss)(x, x, y)  # grad/wrong-type E: arg-type
    tdx.grad(loss)(params, x, y) @ x  # grad/result-misuse E: operator
    tdx.grad(pair)(x)  # grad/non-scalar-function E: arg-type

    # value_and_grad
    tdx.value_and_grad(loss)(params, x, labels=y)  # value_and_grad/wrong-keyword E: call-arg
    tdx.value_and_grad(loss)(params, y=y)  # value_and_grad/missing-argument E: call-arg
    tdx.value_and_grad(loss)(params, x, [1.0, 2.0])  # value_and_grad/wrong-type E: arg-type
    tdx.value_and_grad(loss)(params, x, y)[1].weights  # value_and_grad/result-misuse E: attr-defined

    # vmap
    tdx.vmap(f)(x, scael=2.0)  # vmap/wrong-keyword E: call-arg
    tdx.vmap(g2)(x)  # vmap/missing-argument E: call-arg
    tdx.vmap(f)(x, scale="2")  # vmap/wrong-type E: arg-type
    total: float = tdx.vmap(f)(x)  # vmap/result-misuse E: assignment

    # jvp: primals and tangents are Sequence[object], f is Callable[..., T]
    tdx.jvp(f, (x,), (x,), scale=2.0)  # jvp/wrong-keyword E: call-overload
    tdx.jvp(g2, (x,), (x,))  # jvp/missing-argument E: arg-type
    tdx.jvp(f, ("x",), ("x",))  # jvp/wrong-type E: arg-type
    tdx.jvp(f, (x,), (x,))[1].shape()  # jvp/result-misuse E: operator

    # vjp: f is Callable[[*Ts], T] and the primals are *Ts
    tdx.vjp(f, x, scale=2.0)  # vjp/wrong-keyword E: call-overload
    tdx.vjp(g2, x)  # vjp/missing-argument E: arg-type
    tdx.vjp(f, "x")  # vjp/wrong-type E: arg-type
    out: str = tdx.vjp(f, x)[0]  # vjp/result-misuse E: assignment
    tdx.vjp(f, x)[1]("ct")  # vjp/wrong-cotangent-type E: arg-type

    # jacfwd
    tdx.jacfwd(f)(x, scal=2.0)  # jacfwd/wrong-keyword E: call-arg
    tdx.jacfwd(g2)(x)  # jacfwd/missing-argument E: call-arg
    tdx.jacfwd(f)("x")  # jacfwd/wrong-type E: arg-type
    tdx.jacfwd(f)(x).shape()  # jacfwd/result-misuse E: operator

    # jacrev
    tdx.jacrev(f)(x, scal=2.0)  # jacrev/wrong-keyword E: call-arg
    tdx.jacrev(g2)(x)  # jacrev/missing-argument E: call-arg
    tdx.jacrev(f)("x")  # jacrev/wrong-type E: arg-type
    tdx.jacrev(f)(x).upper()  # jacrev/result-misuse E: attr-defined

    # hessian
    tdx.hessian(f)(x, scal=2.0)  # hessian/wrong-keyword E: call-arg
    tdx.hessian(g2)(x)  # hessian/missing-argument E: call-arg
    tdx.hessian(energy)([1.0, 2.0])  # hessian/wrong-type E: arg-type
    h: list[float] = tdx.hessian(energy)(x)  # hessian/result-misuse E: assignment

    # lax.scan: init is object, xs is X
    lax.scan(step, x, x, reversed=True)  # scan/wrong-keyword E: call-arg
    lax.scan(step, x)  # scan/missing-argument E: call-arg
    lax.scan(step, "zero", x)  # scan/wrong-type (not caught)
    lax.scan(step, x, "xs")  # scan/wrong-type-xs E: arg-type
    lax.scan(step, x, x)[1].shape()  # scan/result-misuse E: operator

    # lax.cond: true_fun and false_fun are Callable[..., T], operands *object
    lax.cond(x > 0, f, f, x, scale=2.0)  # cond/wrong-keyword E: call-arg
    lax.cond(x > 0, g2, g2, x)  # cond/missing-argument E: arg-type
    lax.cond(x > 0, f, f, "x")  # cond/wrong-type E: arg-type
    lax.cond("yes", f, f, x)  # cond/wrong-type-pred E: arg-type
    lax.cond(x > 0, f, f, x).shape()  # cond/result-misuse E: operator

    # tree.map: f is Callable[..., object], so a lambda's parameters are Any
    tdx.tree.map(lambda p: p.upper(), params)  # tree.map/leaf-misuse (not caught)
