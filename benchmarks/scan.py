"""``jit(grad(f))`` where ``f`` runs a 1,000-step ``scan`` of a small MLP cell,
typedax beside JAX in one run.

The cell: ``z = tanh(W1 h + U x + b1)``, ``h' = tanh(W2 z + b2)``, ``y = sum(h'^2)``
(hidden size 32, input size 8, float32); the loss is ``sum(ys) + sum(h_final)``
and the gradient is taken with respect to all five parameters.

* first call: a fresh function object (JAX caches by function identity) and
  empty compile caches, so each first call traces, differentiates, lowers,
  compiles and runs;
* steady state: repeated calls of the compiled function on device-resident
  inputs, waiting for the results.

The two libraries are measured alternately, so both see the same machine
load; the ratio of the medians is compared with the target, and the ratio of
the best times is printed beside it.

Targets: first call <= 1.0x JAX, steady state <= 1.05x JAX.
"""

from __future__ import annotations

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
from typedax.core.trace import Value  # noqa: E402
from typedax.lowering import clear_cache  # noqa: E402

STEPS = 1_000
HIDDEN = 32
INPUT = 8
FIRST_REPEATS = 5
STEADY_REPEATS = 200
TARGET_FIRST = 1.0
TARGET_STEADY = 1.05

Params = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def make_inputs() -> tuple[Params, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    f32 = np.float32
    w1 = (rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(f32)
    u = (rng.standard_normal((HIDDEN, INPUT)) / np.sqrt(INPUT)).astype(f32)
    w2 = (rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(f32)
    b1 = np.zeros(HIDDEN, f32)
    b2 = np.full(HIDDEN, 0.1, f32)
    h0 = np.zeros(HIDDEN, f32)
    xs = rng.standard_normal((STEPS, INPUT)).astype(f32)
    return (w1, u, w2, b1, b2), h0, xs


# -- the two implementations (a fresh function object per call) ---------------

def tdx_loss() -> Callable[[tuple[Value, ...], Value, Value], Value]:
    def loss(params: tuple[Value, ...], h0: Value, xs: Value) -> Value:
        w1, u, w2, b1, b2 = params

        def cell(h: Value, x: Value) -> tuple[Value, Value]:
            z = tnp.tanh(tnp.add(tnp.add(tnp.matmul(w1, h), tnp.matmul(u, x)), b1))
            h2 = tnp.tanh(tnp.add(tnp.matmul(w2, z), b2))
            return h2, tnp.sum(tnp.multiply(h2, h2))

        h, ys = lax.scan(cell, h0, xs)
        return tnp.add(tnp.sum(ys), tnp.sum(h))

    return loss


def jax_loss() -> Callable[[tuple[jax.Array, ...], jax.Array, jax.Array], jax.Array]:
    def loss(params: tuple[jax.Array, ...], h0: jax.Array, xs: jax.Array) -> jax.Array:
        w1, u, w2, b1, b2 = params

        def cell(h: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
            z = jnp.tanh(w1 @ h + u @ x + b1)
            h2 = jnp.tanh(w2 @ z + b2)
            return h2, jnp.sum(h2 * h2)

        h, ys = jax.lax.scan(cell, h0, xs)
        return jnp.sum(ys) + jnp.sum(h)

    return loss


def _block(tree: object) -> None:
    for leaf in jax.tree_util.tree_leaves(tree):
        leaf.block_until_ready()


def first_call_tdx(args: tuple[tuple[Value, ...], Value, Value]) -> float:
    clear_cache()
    f = tdx.jit(tdx.grad(tdx_loss()))
    t0 = time.perf_counter()
    _block(f(*args))
    return time.perf_counter() - t0


def first_call_jax(args: tuple[tuple[jax.Array, ...], jax.Array, jax.Array]) -> float:
    jax.clear_caches()  # type: ignore[no-untyped-call]  # jax leaves it unannotated
    f = jax.jit(jax.grad(jax_loss()))
    t0 = time.perf_counter()
    _block(f(*args))
    return time.perf_counter() - t0


def interleaved(a: Callable[[], float], b: Callable[[], float], rounds: int) -> tuple[list[float], list[float]]:
    """Alternate the two measurements, so both see the same machine load."""
    ta: list[float] = []
    tb: list[float] = []
    for _ in range(rounds):
        ta.append(a())
        tb.append(b())
    return ta, tb


def timed(f: Callable[[], object]) -> Callable[[], float]:
    def once() -> float:
        t0 = time.perf_counter()
        _block(f())
        return time.perf_counter() - t0

    return once


def check_agree(tdx_grads: object, jax_grads: object) -> float:
    a = [np.asarray(x) for x in jax.tree_util.tree_leaves(tdx_grads)]
    b = [np.asarray(x) for x in jax.tree_util.tree_leaves(jax_grads)]
    return max(float(np.max(np.abs(x - y)) / (np.max(np.abs(y)) + 1e-30)) for x, y in zip(a, b))


def main() -> None:
    params, h0, xs = make_inputs()
    t_args: tuple[tuple[Value, ...], Value, Value] = (
        tuple(tdx.device_put(p) for p in params), tdx.device_put(h0), tdx.device_put(xs)
    )
    j_args: tuple[tuple[jax.Array, ...], jax.Array, jax.Array] = (
        tuple(jnp.asarray(p) for p in params), jnp.asarray(h0), jnp.asarray(xs)
    )

    first_t, first_j = interleaved(
        lambda: first_call_tdx(t_args), lambda: first_call_jax(j_args), FIRST_REPEATS
    )
    f_t = tdx.jit(tdx.grad(tdx_loss()))
    f_j = jax.jit(jax.grad(jax_loss()))
    err = check_agree(f_t(*t_args), f_j(*j_args))
    call_t = timed(lambda: f_t(*t_args))
    call_j = timed(lambda: f_j(*j_args))
    interleaved(call_t, call_j, 10)  # warm up
    steady_t, steady_j = interleaved(call_t, call_j, STEADY_REPEATS)

    print(f"jit(grad(f)), f = {STEPS}-step scan of an MLP cell "
          f"(hidden {HIDDEN}, input {INPUT}, float32); grads agree to {err:.1e} (relative)")
    print("measurements alternate between typedax and JAX; ratio of medians (best in brackets)")
    print(f"{'':14}{'typedax':>12}{'jax':>12}{'ratio':>9}{'best':>8}{'target':>9}")
    for name, t, j, target in (
        ("first call", first_t, first_j, TARGET_FIRST),
        ("steady state", steady_t, steady_j, TARGET_STEADY),
    ):
        mt, mj = statistics.median(t), statistics.median(j)
        ratio = mt / mj
        mark = "ok" if ratio <= target else "MISSED"
        print(f"{name:14}{mt * 1e3:10.2f}ms{mj * 1e3:10.2f}ms{ratio:8.2f}x"
              f"{min(t) / min(j):7.2f}x{target:8.2f}x  {mark}")


if __name__ == "__main__":
    main()
