"""A multilayer perceptron learns two interleaved spirals, compiled with
``jit(value_and_grad(loss))``; prints the falling loss, the held-out
accuracy, and the StableHLO of one step."""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import Array, lax

FloatArray = np.ndarray[tuple[int, ...], np.dtype[np.float32]]


class Layer(NamedTuple):
    w: Array
    b: Array


Params = list[Layer]


def spirals(n: int, rng: np.random.Generator, noise: float = 0.05) -> tuple[FloatArray, FloatArray]:
    """``n`` points of each of two interleaved spirals; labels 0 and 1."""
    t = np.sqrt(rng.uniform(0.0, 1.0, n)) * 3.0 * np.pi
    arm = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / (3.0 * np.pi)
    xs = np.concatenate([arm, -arm]) + rng.normal(0.0, noise, (2 * n, 2))
    ys = np.concatenate([np.zeros(n), np.ones(n)])
    order = rng.permutation(2 * n)
    return xs[order].astype(np.float32), ys[order].astype(np.float32)


def init_params(sizes: list[int], rng: np.random.Generator) -> Params:
    return [
        Layer(
            tnp.asarray((rng.normal(0.0, 1.0, (m, k)) / np.sqrt(m)).astype(np.float32)),
            tnp.zeros(k, np.float32),
        )
        for m, k in zip(sizes[:-1], sizes[1:])
    ]


def logits(params: Params, x: Array) -> Array:
    h = x
    for layer in params[:-1]:
        h = tnp.tanh(h @ layer.w + layer.b)
    last = params[-1]
    return (h @ last.w + last.b).reshape(-1)


def loss(params: Params, x: Array, y: Array) -> Array:
    """Mean binary cross-entropy of ``logistic(logits)`` against labels ``y``."""
    p = lax.logistic(logits(params, x))
    eps = 1e-6
    return -tnp.mean(y * tnp.log(p + eps) + (1.0 - y) * tnp.log(1.0 - p + eps))


class Adam(NamedTuple):
    m: Params
    v: Params


def adam(
    params: Params, grads: Params, state: Adam, step: Array, lr: float = 0.01
) -> tuple[Params, Adam]:
    b1, b2, eps = 0.9, 0.999, 1e-8
    m = tdx.tree.map(lambda m_, g: b1 * m_ + (1.0 - b1) * g, state.m, grads)
    v = tdx.tree.map(lambda v_, g: b2 * v_ + (1.0 - b2) * g * g, state.v, grads)
    c1 = 1.0 - tnp.power(np.float32(b1), step)
    c2 = 1.0 - tnp.power(np.float32(b2), step)
    new = tdx.tree.map(lambda p_, m_, v_: p_ - lr * (m_ / c1) / (tnp.sqrt(v_ / c2) + eps), params, m, v)
    return new, Adam(m, v)


def accuracy(params: Params, x: FloatArray, y: FloatArray) -> float:
    predicted = np.asarray(tdx.jit(logits)(params, tnp.asarray(x))) > 0.0
    return float(np.mean(predicted == (y > 0.5)))


def train(steps: int, log_every: int = 0) -> tuple[Params, list[float], float]:
    """Train on 1000 spiral points; the parameters, the losses, the accuracy
    on 500 held-out points."""
    rng = np.random.default_rng(0)
    x_train, y_train = spirals(500, rng)
    x_test, y_test = spirals(250, rng)
    params = init_params([2, 64, 64, 1], rng)
    zeros = tdx.tree.map(tnp.zeros_like, params)
    state = Adam(zeros, zeros)

    loss_and_grad = tdx.jit(tdx.value_and_grad(loss))
    update = tdx.jit(adam)
    x_dev, y_dev = tdx.device_put(x_train), tdx.device_put(y_train)
    losses: list[float] = []
    for i in range(1, steps + 1):
        value, grads = loss_and_grad(params, x_dev, y_dev)
        params, state = update(params, grads, state, tnp.asarray(np.float32(i)))
        if i == 1 or i == steps or (log_every and i % log_every == 0):
            losses.append(float(value))
            if log_every:
                print(f"step {i:5d}  loss {losses[-1]:.4f}")
    return params, losses, accuracy(params, x_test, y_test)


def main() -> None:
    print("== MLP on two interleaved spirals: jit(value_and_grad(loss))")
    start = time.perf_counter()
    params, _, acc = train(1500, log_every=250)
    print(f"held-out accuracy: {acc:.1%}  ({time.perf_counter() - start:.1f} s in all)")

    print("\n== the StableHLO of one step: jit(value_and_grad(loss)).lower(...)")
    x, y = spirals(500, np.random.default_rng(0))
    print(tdx.jit(tdx.value_and_grad(loss)).lower(params, tnp.asarray(x), tnp.asarray(y)).as_text())


if __name__ == "__main__":
    main()
