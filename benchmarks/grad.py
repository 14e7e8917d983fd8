"""``grad`` of a small MLP loss, typedax beside JAX in one run.

The loss: 4 layers of 64 (``h = tanh(h @ W + b)``), squared error, mean;
float32, batch 32; the gradient is taken with respect to all eight
parameters (a list of ``(W, b)`` pairs).

1. ``make_jaxpr(grad(loss))``: trace, linearize and transpose into a jaxpr.
   Every timed trace builds a *fresh* loss function object for both
   libraries (JAX caches by function identity). Time is the process's CPU
   time (tracing is single-threaded; CPU time is disturbed less by other
   load on a shared machine).
2. eager ``grad(loss)(params, x, y)`` per call, not jitted: typedax on NumPy
   arrays (evaluated with NumPy), JAX op by op on ``jax.Array`` inputs
   (waiting for the result). Wall time, since JAX's op-by-op dispatch may use
   other threads. The two gradients are checked to agree (rtol 1e-4).

The two libraries alternate round by round, so both see the same machine
load; the table gives median and best of each and the ratio JAX / typedax
(above 1: typedax is faster). JAX runs with x64 enabled, as in
``benchmarks/jit.py`` (typedax is always x64); the inputs are float32.

Targets: make_jaxpr(grad) >= 3x, eager grad >= 2x.
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable, Sequence

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402  - after choosing the platform
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import typedax as tdx  # noqa: E402
import typedax.numpy as tnp  # noqa: E402
from typedax import Value  # noqa: E402

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax leaves it unannotated; typedax is always x64

LAYERS, WIDTH, BATCH = 4, 64, 32
TRACE_ROUNDS, TRACE_PER_ROUND = 15, 5
EAGER_ROUNDS, EAGER_PER_ROUND = 15, 20
TARGETS: dict[str, float] = {"make_jaxpr(grad)": 3.0, "eager grad": 2.0}

TdxParams = Sequence[tuple[Value, Value]]
JaxParams = Sequence[tuple[jax.Array, jax.Array]]


# -- the loss, a fresh function object per call ---------------------------------------
def tdx_loss() -> Callable[[TdxParams, Value, Value], Value]:
    def loss(params: TdxParams, x: Value, y: Value) -> Value:
        h = x
        for w, b in params:
            h = tnp.tanh(tnp.add(tnp.matmul(h, w), b))
        d = tnp.subtract(h, y)
        return tnp.mean(tnp.multiply(d, d))

    return loss


def jax_loss() -> Callable[[JaxParams, jax.Array, jax.Array], jax.Array]:
    def loss(params: JaxParams, x: jax.Array, y: jax.Array) -> jax.Array:
        h = x
        for w, b in params:
            h = jnp.tanh(h @ w + b)
        d = h - y
        return jnp.mean(d * d)

    return loss


def mlp_data() -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    params = [
        ((rng.normal(size=(WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32),
         (0.1 * rng.normal(size=WIDTH)).astype(np.float32))
        for _ in range(LAYERS)
    ]
    x = rng.normal(size=(BATCH, WIDTH)).astype(np.float32)
    y = rng.normal(size=(BATCH, WIDTH)).astype(np.float32)
    return params, x, y


# -- timing ----------------------------------------------------------------------------
def interleaved(
    tdx_run: Callable[[], object], jax_run: Callable[[], object], rounds: int, per_round: int,
    clock: Callable[[], float],
) -> tuple[list[float], list[float]]:
    """Seconds per call of each, one sample per round, alternating the libraries."""
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for i, run in enumerate((tdx_run, jax_run)):
            gc.collect()
            t0 = clock()
            for _ in range(per_round):
                run()
            samples[i].append((clock() - t0) / per_round)
    return samples


def bench_make_jaxpr() -> tuple[list[float], list[float], int, int]:
    params, x, y = mlp_data()

    def run_tdx() -> int:
        return len(tdx.make_jaxpr(tdx.grad(tdx_loss()))(params, x, y).jaxpr.eqns)

    def run_jax() -> int:
        return len(jax.make_jaxpr(jax.grad(jax_loss()))(params, x, y).jaxpr.eqns)

    n_tdx, n_jax = run_tdx(), run_jax()  # warm up (imports, rule caches)
    t, j = interleaved(run_tdx, run_jax, TRACE_ROUNDS, TRACE_PER_ROUND, time.process_time)
    return t, j, n_tdx, n_jax


def bench_eager() -> tuple[list[float], list[float], float]:
    params, x, y = mlp_data()
    jparams = [(jnp.asarray(w), jnp.asarray(b)) for w, b in params]
    jx, jy = jnp.asarray(x), jnp.asarray(y)
    g_tdx = tdx.grad(tdx_loss())
    g_jax = jax.grad(jax_loss())

    got = g_tdx(params, x, y)
    want = g_jax(jparams, jx, jy)
    got_leaves = [np.asarray(a) for a in jax.tree_util.tree_leaves(got)]
    want_leaves = [np.asarray(a) for a in jax.tree_util.tree_leaves(want)]
    assert len(got_leaves) == len(want_leaves) == 2 * LAYERS
    worst = 0.0
    for a, b in zip(got_leaves, want_leaves):
        assert a.dtype == b.dtype == np.float32, (a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-7)
        worst = max(worst, float(np.max(np.abs(a - b)) / (np.max(np.abs(b)) + 1e-30)))

    def run_jax() -> None:
        for leaf in jax.tree_util.tree_leaves(g_jax(jparams, jx, jy)):
            leaf.block_until_ready()

    def run_tdx() -> None:
        g_tdx(params, x, y)

    for _ in range(5):  # warm up JAX's per-primitive executables
        run_tdx()
        run_jax()
    t, j = interleaved(run_tdx, run_jax, EAGER_ROUNDS, EAGER_PER_ROUND, time.perf_counter)
    return t, j, worst


def main() -> None:
    tr_t, tr_j, n_tdx, n_jax = bench_make_jaxpr()
    ea_t, ea_j, err = bench_eager()
    print(f"grad of an MLP loss: {LAYERS} layers of {WIDTH}, tanh, float32, batch {BATCH}; "
          f"jaxpr eqns typedax {n_tdx} / jax {n_jax}; eager grads agree to {err:.1e} (relative)")
    print("rounds alternate between typedax and JAX; ratio = JAX / typedax (above 1: typedax faster)")
    print(f"{'':18}{'typedax med':>12}{'best':>9}{'jax med':>11}{'best':>9}"
          f"{'ratio med':>11}{'best':>7}{'target':>9}")
    for name, t, j, unit, scale in (
        ("make_jaxpr(grad)", tr_t, tr_j, "ms", 1e3),
        ("eager grad", ea_t, ea_j, "ms", 1e3),
    ):
        mt, mj = statistics.median(t), statistics.median(j)
        ratio = mj / mt
        target = TARGETS[name]
        mark = "ok" if ratio >= target else "MISSED"
        print(f"{name:18}{mt * scale:9.2f} {unit}{min(t) * scale:6.2f} {unit}"
              f"{mj * scale:8.2f} {unit}{min(j) * scale:6.2f} {unit}"
              f"{ratio:10.2f}x{min(j) / min(t):6.2f}x{target:7.1f}x  {mark}")


if __name__ == "__main__":
    main()
