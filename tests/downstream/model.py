"""A two-layer network fitted by full-batch gradient descent, written the way
a JAX program is written: ``jit(value_and_grad(loss))``, ``tree.map`` SGD
updates, ``vmap`` per-example losses, a ``lax.scan`` training loop with a
``lax.cond`` inside, and the other transformations on the same functions."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax


class Params(NamedTuple):
    w1: tdx.Array
    b1: tdx.Array
    w2: tdx.Array
    b2: tdx.Array


def layer(w: tdx.Array, b: tdx.Array, x: tdx.Array) -> tdx.Array:
    return tnp.tanh(x @ w + b)


def predict(params: Params, x: tdx.Array) -> tdx.Array:
    h = layer(params.w1, params.b1, x)
    return h @ params.w2 + params.b2


def loss(params: Params, x: tdx.Array, y: tdx.Array) -> tdx.Array:
    """Mean squared error over the batch."""
    return tnp.mean((predict(params, x) - y) ** 2)


def example_loss(params: Params, x: tdx.Array, y: tdx.Array) -> tdx.Array:
    """The squared error of one example (``x``: a feature vector, ``y``: a target vector)."""
    return tnp.sum((predict(params, x) - y) ** 2)


def init_params(n_in: int, n_hidden: int, n_out: int, seed: int = 0) -> Params:
    rng = np.random.default_rng(seed)
    return Params(
        w1=tnp.asarray(rng.normal(0.0, 1.0 / np.sqrt(n_in), (n_in, n_hidden))),
        b1=tnp.zeros(n_hidden),
        w2=tnp.asarray(rng.normal(0.0, 1.0 / np.sqrt(n_hidden), (n_hidden, n_out))),
        b2=tnp.zeros(n_out),
    )


def make_data(n: int, n_in: int, n_out: int, seed: int = 1) -> tuple[tdx.Array, tdx.Array]:
    """Inputs and targets of a smooth function to fit."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 1.0, (n, n_in))
    y = np.sin(x @ rng.normal(0.0, 1.0, (n_in, n_out)))
    return tnp.asarray(x), tnp.asarray(y)


def sgd(params: Params, grads: Params, lr: tdx.ArrayLike) -> Params:
    return tdx.tree.map(lambda p, g: p - lr * g, params, grads)


loss_and_grad = tdx.jit(tdx.value_and_grad(loss))


def fit(params: Params, x: tdx.Array, y: tdx.Array, steps: int, lr: float) -> tuple[Params, list[float]]:
    """A Python training loop around a jitted ``value_and_grad``."""
    losses: list[float] = []
    for _ in range(steps):
        value, grads = loss_and_grad(params, x, y)
        params = sgd(params, grads, lr)
        losses.append(value.item())
    return params, losses


def clip(g: tdx.Array, max_norm: float) -> tdx.Array:
    """``g`` scaled down to norm ``max_norm`` if it is longer (a ``lax.cond``)."""
    norm = tnp.sqrt(tnp.sum(g * g))

    def shrink(v: tdx.Array) -> tdx.Array:
        return v * (max_norm / norm)

    def keep(v: tdx.Array) -> tdx.Array:
        return v

    return lax.cond(norm > max_norm, shrink, keep, g)


@tdx.jit
def fit_scan(params: Params, x: tdx.Array, y: tdx.Array, lrs: tdx.Array) -> tuple[Params, tdx.Array]:
    """One compiled training loop: ``lax.scan`` over the learning-rate
    schedule ``lrs``; gradients clipped with ``lax.cond``; returns the final
    parameters and the loss before each step."""

    def step(p: Params, lr: tdx.Array) -> tuple[Params, tdx.Array]:
        value, grads = tdx.value_and_grad(loss)(p, x, y)
        clipped = tdx.tree.map(lambda g: clip(g, 10.0), grads)
        return sgd(p, clipped, lr), value

    return lax.scan(step, params, lrs)


def per_example_losses(params: Params, x: tdx.Array, y: tdx.Array) -> tdx.Array:
    """``example_loss`` of each row of ``x`` and ``y`` (``vmap``)."""
    return tdx.vmap(example_loss, in_axes=(None, 0, 0))(params, x, y)


def input_gradient(params: Params, x: tdx.Array, y: tdx.Array) -> tdx.Array:
    """The gradient of the loss with respect to the inputs (``argnums=1``)."""
    return tdx.grad(loss, argnums=1)(params, x, y)


def both_gradients(params: Params, x: tdx.Array, y: tdx.Array) -> tuple[Params, tdx.Array]:
    return tdx.grad(loss, argnums=(0, 1))(params, x, y)


def layer_jvp(
    w: tdx.Array, b: tdx.Array, x: tdx.Array, v: tdx.Array
) -> tuple[tdx.Array, tdx.Array]:
    """The layer's output at ``x`` and its derivative along ``v``."""

    def f(x: tdx.Array) -> tdx.Array:
        return layer(w, b, x)

    return tdx.jvp(f, (x,), (v,))


def layer_vjp(w: tdx.Array, b: tdx.Array, x: tdx.Array, ct: tdx.Array) -> tdx.Array:
    """The cotangent ``ct`` of the layer's output pulled back to ``x``."""

    def f(x: tdx.Array) -> tdx.Array:
        return layer(w, b, x)

    _, pullback = tdx.vjp(f, x)
    (ct_x,) = pullback(ct)
    return ct_x


def layer_jacobians(w: tdx.Array, b: tdx.Array, x: tdx.Array) -> tuple[tdx.Array, tdx.Array]:
    """The Jacobian of the layer with respect to ``x``, forward and reverse mode."""
    return tdx.jacfwd(layer, argnums=2)(w, b, x), tdx.jacrev(layer, argnums=2)(w, b, x)


def energy(x: tdx.Array) -> tdx.Array:
    return tnp.sum(tnp.tanh(x) ** 2) + 0.5 * tnp.sum(x**4)


def energy_hessian(x: tdx.Array) -> tdx.Array:
    return tdx.hessian(energy)(x)


def energy_scaled(x: tdx.Array, scale: float) -> tdx.Array:
    return scale * energy(x)


def scaled_hessian(x: tdx.Array, scale: float) -> tdx.Array:
    """Keyword arguments pass through the transformations."""
    return tdx.jit(tdx.hessian(energy_scaled))(x, scale=scale)
