"""A small convolutional network learns scikit-learn's 8x8 handwritten digits
(1,797 images, bundled with scikit-learn: no download): conv -> max-pool ->
conv -> max-pool -> dense, in NHWC/HWIO layouts, trained with
``jit(value_and_grad(loss))`` and Adam written with tree maps. Prints one line
per epoch (loss, accuracy, time) and the held-out accuracy; saves the loss
curve and the learned first-layer filters when matplotlib is installed.

Needs the demo extra: ``pip install -e '.[demo]'`` (scikit-learn, matplotlib).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
import typedax.random as random
from typedax import Array, lax, nn
from typedax.nn import initializers

OUT_DIR = Path("demo-output") / "cnn_digits"
DN = ("NHWC", "HWIO", "NHWC")
IntArray = np.ndarray[tuple[int, ...], np.dtype[np.int32]]
FloatArray = np.ndarray[tuple[int, ...], np.dtype[np.float32]]


class Params(NamedTuple):
    conv1: Array  # (3, 3, 1, 16) HWIO
    bias1: Array
    conv2: Array  # (3, 3, 16, 32)
    bias2: Array
    dense: Array  # (2 * 2 * 32, 10)
    bias3: Array


class Adam(NamedTuple):
    m: Params
    v: Params
    step: Array


def init_params(key: random.KeyArray) -> Params:
    keys = random.split(key, 3)
    k1, k2, k3 = keys[0], keys[1], keys[2]
    he = initializers.he_normal()
    glorot = initializers.glorot_normal()
    f32 = tnp.float32
    return Params(
        he(k1, (3, 3, 1, 16), f32), tnp.zeros(16, f32),
        he(k2, (3, 3, 16, 32), f32), tnp.zeros(32, f32),
        glorot(k3, (2 * 2 * 32, 10), f32), tnp.zeros(10, f32),
    )


def logits(p: Params, x: Array) -> Array:
    """``x``: (batch, 8, 8, 1) -> (batch, 10)."""
    h = lax.conv_general_dilated(x, p.conv1, (1, 1), "SAME", dimension_numbers=DN) + p.bias1
    h = nn.max_pool(nn.relu(h), (2, 2), strides=(2, 2))  # (batch, 4, 4, 16)
    h = lax.conv_general_dilated(h, p.conv2, (1, 1), "SAME", dimension_numbers=DN) + p.bias2
    h = nn.max_pool(nn.relu(h), (2, 2), strides=(2, 2))  # (batch, 2, 2, 32)
    return h.reshape(h.shape[0], -1) @ p.dense + p.bias3


def loss(p: Params, x: Array, labels: Array) -> Array:
    """Mean softmax cross-entropy against one-hot ``labels``."""
    return -tnp.mean(tnp.sum(labels * nn.log_softmax(logits(p, x)), axis=-1))


def adam_update(p: Params, g: Params, s: Adam, lr: float = 3e-3) -> tuple[Params, Adam]:
    b1, b2, eps = 0.9, 0.999, 1e-8
    m = tdx.tree.map(lambda m_, g_: b1 * m_ + (1 - b1) * g_, s.m, g)
    v = tdx.tree.map(lambda v_, g_: b2 * v_ + (1 - b2) * g_ * g_, s.v, g)
    t = s.step + 1.0
    c1, c2 = 1 - tnp.power(np.float32(b1), t), 1 - tnp.power(np.float32(b2), t)
    new = tdx.tree.map(lambda p_, m_, v_: p_ - lr * (m_ / c1) / (tnp.sqrt(v_ / c2) + eps), p, m, v)
    return new, Adam(m, v, t)


def train_step(p: Params, s: Adam, x: Array, labels: Array) -> tuple[Params, Adam, Array]:
    value, g = tdx.value_and_grad(loss)(p, x, labels)
    p, s = adam_update(p, g, s)
    return p, s, value


def accuracy(p: Params, x: Array, y: IntArray) -> float:
    predicted = np.asarray(tdx.jit(logits)(p, x)).argmax(axis=1)
    return float(np.mean(predicted == y))


def load() -> tuple[FloatArray, IntArray, FloatArray, IntArray] | None:
    """The digits as (N, 8, 8, 1) float32 in [0, 1]: 80% to train on, 20%
    held out (the same split every run); None without scikit-learn."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        return None
    digits: Any = load_digits()
    x = (np.asarray(digits.images, np.float32) / 16.0)[..., None]
    y = np.asarray(digits.target, np.int32)
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order], y[order]
    n_test = len(y) // 5
    return x[n_test:], y[n_test:], x[:n_test], y[:n_test]


def train(epochs: int = 15, batch: int = 64, seed: int = 0) -> tuple[Params, list[float], float, float] | None:
    """Train and return the parameters, the loss of each epoch, the held-out
    accuracy and the wall time; None without scikit-learn."""
    data = load()
    if data is None:
        return None
    x_train, y_train, x_test, y_test = data
    print(f"{len(y_train)} training and {len(y_test)} held-out 8x8 digits")
    start = time.perf_counter()
    params = init_params(random.key(seed))
    zeros = tdx.tree.map(tnp.zeros_like, params)
    state = Adam(zeros, zeros, tnp.zeros((), tnp.float32))
    step = tdx.jit(train_step)
    onehot = np.eye(10, dtype=np.float32)[y_train]
    xs_test = tdx.device_put(x_test)
    rng = np.random.default_rng(seed)
    n_batches = len(y_train) // batch  # drop the ragged end: one shape, one compilation
    losses: list[float] = []
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        order = rng.permutation(len(y_train))
        total = 0.0
        for b in range(n_batches):
            idx = order[b * batch:(b + 1) * batch]
            params, state, value = step(params, state, tnp.asarray(x_train[idx]), tnp.asarray(onehot[idx]))
            total += float(value)
        losses.append(total / n_batches)
        acc = accuracy(params, xs_test, y_test)
        print(f"epoch {epoch:2d}  loss {losses[-1]:.4f}  held-out accuracy {acc:6.2%}  "
              f"{time.perf_counter() - t0:5.2f} s")
    return params, losses, accuracy(params, xs_test, y_test), time.perf_counter() - start


def save_figures(params: Params, losses: list[float], out_dir: Path) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no figures; `pip install -e '.[demo]'` adds it)")
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    fig = plt.figure(figsize=(5, 3.5))
    plt.plot(range(1, len(losses) + 1), losses, marker="o")
    plt.xlabel("epoch")
    plt.ylabel("mean training loss")
    plt.yscale("log")
    plt.title("CNN on 8x8 digits")
    plt.tight_layout()
    curve = out_dir / "loss_curve.png"
    fig.savefig(curve, dpi=80)
    plt.close(fig)
    w = np.asarray(params.conv1)[:, :, 0, :]  # (3, 3, 16)
    fig, axes = plt.subplots(2, 8, figsize=(8, 2.4))
    for i, ax in enumerate(axes.ravel()):
        ax.imshow(w[:, :, i], cmap="RdBu_r", vmin=-np.abs(w).max(), vmax=np.abs(w).max())
        ax.set_axis_off()
    fig.suptitle("learned first-layer filters (3x3)")
    filters = out_dir / "filters.png"
    fig.savefig(filters, dpi=80)
    plt.close(fig)
    return [curve, filters]


def main(figures: bool = True, out_dir: Path = OUT_DIR) -> None:
    print("== a CNN on scikit-learn's 8x8 digits: conv-pool-conv-pool-dense, jit(value_and_grad), Adam")
    result = train()
    if result is None:
        print("scikit-learn is not installed: skipped. Install the demo extra: pip install -e '.[demo]'")
        return
    params, losses, acc, seconds = result
    print(f"held-out accuracy: {acc:.2%}  ({seconds:.1f} s of training, compilation included)")
    if figures:
        saved = save_figures(params, losses, out_dir)
        if saved:
            print(f"saved {', '.join(p.name for p in saved)} to {out_dir.resolve()}/")


if __name__ == "__main__":
    main()
