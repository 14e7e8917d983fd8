"""Convolutions beside JAX's, in one process (issue 13):

1. eager ``lax.conv_general_dilated`` on arrays already made by each
   library, float32, stride 1, ``'SAME'``: the seed doc's image
   (1, 200, 198, 3) NHWC with a (3, 3, 3, 3) HWIO kernel; the same image and
   kernel as NCHW / OIHW; and a wider one, (8, 16, 32, 32) NCHW with a
   (32, 16, 3, 3) OIHW kernel -- the time of one call, its result made ready
   (best of 7 rounds of 20, typedax and JAX alternating);
2. ``jit`` of one CNN training step: a batch of 128 28x28x1 images (NHWC),
   conv 3x3 stride 2 to 32 channels, relu, conv 3x3 stride 2 to 64
   channels, relu, a dense layer to 10 logits, softmax cross-entropy;
   ``value_and_grad`` and an SGD update of the six parameters. Steady state
   (the step repeated; best per call over rounds, alternating) and the first
   call of a fresh function with every cache emptied (trace, transform,
   lower, compile, run; median of 5).

The ratio is typedax / JAX (below 1: typedax is faster).
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402  - after choosing the platform
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import typedax as tdx  # noqa: E402
import typedax.numpy as tnp  # noqa: E402
from typedax import lax  # noqa: E402

from .jit import clear_tdx_caches, jax_block, per_call_pair, tdx_block  # noqa: E402

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

#: issue 13: eager conv at least as fast as JAX's; the jitted step within
#: 1.05x of JAX's steady state and its first call within 1.0x
TARGET_EAGER = 1.0
TARGET_STEP = 1.05
TARGET_FIRST = 1.0

BATCH, SIDE, CLASSES = 128, 28, 10
Params = list[tdx.Array]
JParams = list[jax.Array]


# -- 1. eager --------------------------------------------------------------------------
EAGER_CASES: list[tuple[str, tuple[int, ...], tuple[int, ...], tuple[str, str, str]]] = [
    ("(1,200,198,3) NHWC * HWIO", (1, 200, 198, 3), (3, 3, 3, 3), ("NHWC", "HWIO", "NHWC")),
    ("(1,3,200,198) NCHW * OIHW", (1, 3, 200, 198), (3, 3, 3, 3), ("NCHW", "OIHW", "NCHW")),
    ("(8,16,32,32) NCHW * OIHW", (8, 16, 32, 32), (32, 16, 3, 3), ("NCHW", "OIHW", "NCHW")),
]




def eager() -> list[tuple[str, float, float]]:
    rng = np.random.default_rng(0)
    rows = []
    for name, xs, ws, dn in EAGER_CASES:
        x = rng.normal(size=xs).astype(np.float32)
        w = rng.normal(size=ws).astype(np.float32)
        tx, tw = tnp.asarray(x), tnp.asarray(w)
        jx, jw = jnp.asarray(x), jnp.asarray(w)

        def t() -> object:
            return lax.conv_general_dilated(tx, tw, (1, 1), "SAME", dimension_numbers=dn).block_until_ready()

        def j() -> object:
            return jax.lax.conv_general_dilated(jx, jw, (1, 1), "SAME", dimension_numbers=dn).block_until_ready()

        np.testing.assert_allclose(np.asarray(t()), np.asarray(j()), rtol=1e-4, atol=1e-4)
        rows.append((name, *per_call_pair(t, j, 20, rounds=7)))
    return rows


# -- 2. a CNN training step ----------------------------------------------------------------
def cnn_data() -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)

    def init(*shape: int) -> np.ndarray:
        fan_in = int(np.prod(shape[:-1]))
        return np.asarray(rng.normal(size=shape) / np.sqrt(fan_in), dtype=np.float32)

    params = [
        init(3, 3, 1, 32), np.zeros(32, np.float32),
        init(3, 3, 32, 64), np.zeros(64, np.float32),
        init(7 * 7 * 64, CLASSES), np.zeros(CLASSES, np.float32),
    ]
    x = rng.normal(size=(BATCH, SIDE, SIDE, 1)).astype(np.float32)
    labels = rng.integers(0, CLASSES, BATCH)
    y = np.eye(CLASSES, dtype=np.float32)[labels]
    return params, x, y


DN = ("NHWC", "HWIO", "NHWC")


def tdx_loss(p: Params, x: tdx.Array, y: tdx.Array) -> tdx.Array:
    h = tnp.maximum(lax.conv_general_dilated(x, p[0], (2, 2), "SAME", dimension_numbers=DN) + p[1], 0.0)
    h = tnp.maximum(lax.conv_general_dilated(h, p[2], (2, 2), "SAME", dimension_numbers=DN) + p[3], 0.0)
    logits = tnp.matmul(tnp.reshape(h, (BATCH, 7 * 7 * 64)), p[4]) + p[5]
    m = tnp.max(logits, axis=1, keepdims=True)
    lse = tnp.log(tnp.sum(tnp.exp(logits - m), axis=1)) + m[:, 0]
    return tnp.mean(lse - tnp.sum(logits * y, axis=1))


def jax_loss(p: JParams, x: jax.Array, y: jax.Array) -> jax.Array:
    h = jnp.maximum(jax.lax.conv_general_dilated(x, p[0], (2, 2), "SAME", dimension_numbers=DN) + p[1], 0.0)
    h = jnp.maximum(jax.lax.conv_general_dilated(h, p[2], (2, 2), "SAME", dimension_numbers=DN) + p[3], 0.0)
    logits = jnp.reshape(h, (BATCH, 7 * 7 * 64)) @ p[4] + p[5]
    m = jnp.max(logits, axis=1, keepdims=True)
    lse = jnp.log(jnp.sum(jnp.exp(logits - m), axis=1)) + m[:, 0]
    return jnp.mean(lse - jnp.sum(logits * y, axis=1))


def tdx_step(p: Params, x: tdx.Array, y: tdx.Array) -> tuple[tdx.Array, Params]:
    loss, g = tdx.value_and_grad(tdx_loss)(p, x, y)
    return loss, [w - 0.01 * gw for w, gw in zip(p, g)]


def jax_step(p: JParams, x: jax.Array, y: jax.Array) -> tuple[jax.Array, JParams]:
    loss, g = jax.value_and_grad(jax_loss)(p, x, y)
    return loss, [w - 0.01 * gw for w, gw in zip(p, g)]


def steady_step() -> tuple[float, float]:
    params, x, y = cnn_data()
    tp: Params = [tdx.device_put(a) for a in params]
    tx, ty = tdx.device_put(x), tdx.device_put(y)
    jp = [jax.device_put(a) for a in params]
    jx, jy = jax.device_put(x), jax.device_put(y)
    step_t, step_j = tdx.jit(tdx_step), jax.jit(jax_step)
    # the numbers agree before they are timed
    (lt, nt), (lj, nj) = step_t(tp, tx, ty), step_j(jp, jx, jy)
    np.testing.assert_allclose(float(lt), float(lj), rtol=1e-4)
    for a, b in zip(nt, nj):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-3, atol=1e-5)
    return per_call_pair(lambda: step_t(tp, tx, ty), lambda: step_j(jp, jx, jy), 20, rounds=7)


def first_call(repeats: int = 5) -> tuple[float, float]:
    params, x, y = cnn_data()
    jp = [jnp.asarray(a) for a in params]
    jx, jy = jnp.asarray(x), jnp.asarray(y)
    tdx_times: list[float] = []
    jax_times: list[float] = []
    for _ in range(repeats):
        clear_tdx_caches()
        gc.collect()
        fresh = lambda p, a, b: tdx_step(p, a, b)  # noqa: E731 - a new function each round
        t0 = time.perf_counter()
        tdx_block(tdx.jit(fresh)(params, x, y))
        tdx_times.append(time.perf_counter() - t0)

        jax.clear_caches()  # type: ignore[no-untyped-call]  # jax leaves it unannotated
        gc.collect()
        jfresh = lambda p, a, b: jax_step(p, a, b)  # noqa: E731
        t0 = time.perf_counter()
        jax_block(jax.jit(jfresh)(jp, jx, jy))
        jax_times.append(time.perf_counter() - t0)
    return statistics.median(tdx_times), statistics.median(jax_times)


def main() -> None:
    print(f"{'eager conv_general_dilated':30} {'typedax':>10} {'jax':>10} {'ratio':>7}  target")
    for name, t, j in eager():
        print(f"{name:30} {t * 1e3:8.3f}ms {j * 1e3:8.3f}ms {t / j:7.3f}  <= {TARGET_EAGER}")
    t, j = steady_step()
    print(f"{'jit CNN step (steady)':30} {t * 1e3:8.2f}ms {j * 1e3:8.2f}ms {t / j:7.3f}  <= {TARGET_STEP}")
    t, j = first_call()
    print(f"{'jit CNN step (first call)':30} {t * 1e3:8.1f}ms {j * 1e3:8.1f}ms {t / j:7.3f}  <= {TARGET_FIRST}")


if __name__ == "__main__":
    main()
