"""A multilayer perceptron learns two interleaved spirals, compiled with
``jit(value_and_grad(loss))``; prints the falling loss, the held-out
accuracy, and the StableHLO of one step."""

from __future__ import annotations

import time
from typing import cast

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import Value, lax

Params = list[tuple[Value, Value]]
FloatArray = np.ndarray[tuple[int, ...], np.dtype[np.float32]]


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
        (
            (rng.normal(0.0, 1.0, (m, k)) / np.sqrt(m)).astype(np.float32),
            np.zeros(k, np.float32),
        )
        for m, k in zip(sizes[:-1], sizes[1:])
    ]


def logits(params: Params, x: Value) -> Value:
    h = x
    for w, b in params[:-1]:
        h = tnp.tanh(tnp.add(tnp.matmul(h, w), b))
    w, b = params[-1]
    return tnp.reshape(tnp.add(tnp.matmul(h, w), b), [-1])


def loss(params: Params, x: Value, y: Value) -> Value:
    """Mean binary cross-entropy of ``logistic(logits)`` against labels ``y``."""
    z = logits(params, x)
    p = lax.logistic(z)
    eps = 1e-6
    ll = tnp.add(
        tnp.multiply(y, tnp.log(tnp.add(p, eps))),
        tnp.multiply(tnp.subtract(1.0, y), tnp.log(tnp.add(tnp.subtract(1.0, p), eps))),
    )
    return tnp.negative(tnp.mean(ll))


def adam(
    params: Params, grads: Params, m: Params, v: Params, step: Value, lr: float = 0.01
) -> tuple[Params, Params, Params]:
    b1, b2, eps = 0.9, 0.999, 1e-8
    c1 = tnp.subtract(1.0, tnp.power(np.float32(b1), step))
    c2 = tnp.subtract(1.0, tnp.power(np.float32(b2), step))
    new_p: Params = []
    new_m: Params = []
    new_v: Params = []
    for (p_w, p_b), (g_w, g_b), (m_w, m_b), (v_w, v_b) in zip(params, grads, m, v):
        layer_p: list[Value] = []
        layer_m: list[Value] = []
        layer_v: list[Value] = []
        for p_, g_, m_, v_ in ((p_w, g_w, m_w, v_w), (p_b, g_b, m_b, v_b)):
            m2 = tnp.add(tnp.multiply(b1, m_), tnp.multiply(1.0 - b1, g_))
            v2 = tnp.add(tnp.multiply(b2, v_), tnp.multiply(1.0 - b2, tnp.multiply(g_, g_)))
            step_ = tnp.divide(tnp.divide(m2, c1), tnp.add(tnp.sqrt(tnp.divide(v2, c2)), eps))
            layer_p.append(tnp.subtract(p_, tnp.multiply(lr, step_)))
            layer_m.append(m2)
            layer_v.append(v2)
        new_p.append((layer_p[0], layer_p[1]))
        new_m.append((layer_m[0], layer_m[1]))
        new_v.append((layer_v[0], layer_v[1]))
    return new_p, new_m, new_v


def accuracy(params: Params, x: FloatArray, y: FloatArray) -> float:
    predicted = np.asarray(tdx.jit(logits)(params, x)) > 0.0
    return float(np.mean(predicted == (y > 0.5)))


def train(steps: int, log_every: int = 0) -> tuple[Params, list[float], float]:
    """Train on 1000 spiral points; the parameters, the losses, the accuracy
    on 500 held-out points."""
    rng = np.random.default_rng(0)
    x_train, y_train = spirals(500, rng)
    x_test, y_test = spirals(250, rng)
    params = init_params([2, 64, 64, 1], rng)
    m: Params = [(np.zeros_like(w), np.zeros_like(b)) for w, b in params]
    v: Params = [(np.zeros_like(w), np.zeros_like(b)) for w, b in params]

    loss_and_grad = tdx.jit(tdx.value_and_grad(loss))
    update = tdx.jit(adam)
    x_dev, y_dev = tdx.device_put(x_train), tdx.device_put(y_train)
    losses: list[float] = []
    for i in range(1, steps + 1):
        value, grads = loss_and_grad(params, x_dev, y_dev)
        params, m, v = update(params, cast(Params, grads), m, v, np.float32(i))
        if i == 1 or i == steps or (log_every and i % log_every == 0):
            losses.append(float(np.asarray(value)))
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
    print(tdx.jit(tdx.value_and_grad(loss)).lower(params, x, y).as_text())


if __name__ == "__main__":
    main()
