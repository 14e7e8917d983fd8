"""``checkpoint`` (rematerialization), typedax beside JAX in one run.

The function: a chain of 50 layers ``x = sin(tanh(sin(x @ W_i)))``
(float32, ``W_i`` 512x512, ``x`` 128x512), summed; the gradient is taken
with respect to every weight and ``x``.

1. Memory: ``memory_analysis().temp_size_in_bytes`` of ``jit(grad(f))``
   compiled, without ``checkpoint`` and with
   ``checkpoint(policy=nothing_saveable)`` on each layer, for both libraries
   (XLA's buffer assignment: deterministic, no timing). Target: typedax's
   figure with checkpoint at most 0.6x its figure without.
2. Tracing speed: ``make_jaxpr(grad(f))`` of the checkpointed chain, a fresh
   function object per trace for both libraries (JAX caches by function
   identity); the process's CPU time, the libraries alternating round by
   round. Target: JAX / typedax >= 3x.

JAX runs with x64 enabled, as in ``benchmarks/grad.py`` (typedax is x64 by
default); memory is measured for float32 and float64 inputs (the issue's
figures, 49.5 / 25.0 MiB, are float64's), tracing on float32.
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402  - after choosing the platform
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import typedax as tdx  # noqa: E402
import typedax.numpy as tnp  # noqa: E402

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax leaves it unannotated

LAYERS, WIDTH, BATCH = 50, 512, 128
TRACE_ROUNDS = 7
MiB = float(1 << 20)


def _inputs() -> tuple[list[np.ndarray[tuple[int, ...], np.dtype[np.float32]]], np.ndarray[tuple[int, ...], np.dtype[np.float32]]]:
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32) for _ in range(LAYERS)]
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    return ws, x


def tdx_chain(remat: bool) -> Callable[[list[tdx.Array], tdx.Array], tdx.Array]:
    def layer(w: tdx.Array, x: tdx.Array) -> tdx.Array:
        return tnp.sin(tnp.tanh(tnp.sin(x @ w)))

    lay = tdx.checkpoint(layer, policy=tdx.checkpoint_policies.nothing_saveable) if remat else layer

    def f(ws: list[tdx.Array], x: tdx.Array) -> tdx.Array:
        for w in ws:
            x = lay(w, x)
        return tnp.sum(x)

    return f


def jax_chain(remat: bool) -> Callable[[list[jax.Array], jax.Array], jax.Array]:
    def layer(w: jax.Array, x: jax.Array) -> jax.Array:
        return jnp.sin(jnp.tanh(jnp.sin(x @ w)))

    lay = jax.checkpoint(layer, policy=jax.checkpoint_policies.nothing_saveable) if remat else layer

    def f(ws: list[jax.Array], x: jax.Array) -> jax.Array:
        for w in ws:
            x = lay(w, x)
        return jnp.sum(x)

    return f


def memory(dtype: type[np.floating[Any]]) -> dict[str, float]:
    ws32, x32 = _inputs()
    ws, x = [w.astype(dtype) for w in ws32], x32.astype(dtype)
    tws, tx = [tnp.asarray(w) for w in ws], tnp.asarray(x)
    out: dict[str, float] = {}
    for remat in (False, True):
        key = "with checkpoint" if remat else "without"
        ours = tdx.jit(tdx.grad(tdx_chain(remat), argnums=(0, 1))).trace(tws, tx).lower().compile().memory_analysis()
        theirs = jax.jit(jax.grad(jax_chain(remat), argnums=(0, 1))).lower(ws, x).compile().memory_analysis()
        assert ours is not None and theirs is not None
        out[f"typedax {key}"] = ours.temp_size_in_bytes / MiB
        out[f"JAX {key}"] = theirs.temp_size_in_bytes / MiB
    return out


def tracing() -> tuple[float, float]:
    """Median CPU seconds of one make_jaxpr(grad(f)) of the checkpointed chain."""
    ws, x = _inputs()
    tws, tx = [tnp.asarray(w) for w in ws], tnp.asarray(x)
    jws, jx = [jnp.asarray(w) for w in ws], jnp.asarray(x)
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(TRACE_ROUNDS):
        gc.collect()
        t0 = time.process_time()
        tdx.make_jaxpr(tdx.grad(tdx_chain(True), argnums=(0, 1)))(tws, tx)
        ours.append(time.process_time() - t0)
        gc.collect()
        t0 = time.process_time()
        jax.make_jaxpr(jax.grad(jax_chain(True), argnums=(0, 1)))(jws, jx)
        theirs.append(time.process_time() - t0)
    return statistics.median(ours), statistics.median(theirs)


def main() -> None:
    for dtype in (np.float32, np.float64):
        mem = memory(dtype)
        print(f"jit(grad) temp_size_in_bytes, {LAYERS} layers of sin(tanh(sin(x @ W))), "
              f"W {WIDTH}x{WIDTH}, x {BATCH}x{WIDTH}, {np.dtype(dtype).name}:")
        for lib in ("typedax", "JAX"):
            without, with_ = mem[f"{lib} without"], mem[f"{lib} with checkpoint"]
            print(f"  {lib:8s} without {without:6.1f} MiB   with checkpoint {with_:6.1f} MiB   ratio {with_ / without:.2f}")
        ratio = mem["typedax with checkpoint"] / mem["typedax without"]
        print(f"  target: typedax with / without <= 0.6: {'met' if ratio <= 0.6 else 'MISSED'} ({ratio:.2f})")
    ours, theirs = tracing()
    print(f"make_jaxpr(grad(f)) with checkpoint: typedax {ours * 1e3:.1f} ms, JAX {theirs * 1e3:.1f} ms, "
          f"JAX / typedax {theirs / ours:.2f}x (target >= 3x)")


if __name__ == "__main__":
    main()
