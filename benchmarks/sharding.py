"""The data-parallel training step on 8 host CPU devices, typedax beside JAX
(issue 25): the same program and sharding in both libraries.

The step: one step of gradient descent on a 3-layer tanh MLP (mean squared
error, float32), ``jit`` with ``in_shardings=(replicated, batch, batch)``
and ``out_shardings=replicated`` over a mesh ``(8,)`` named ``'data'``: the
batch is split in 8, the parameters are replicated, and XLA's SPMD
partitioner inserts the all-reduce of the gradients. Each call's new
parameters are the next call's input (they stay on the devices), and each
call is waited for (``block_until_ready``) before the next, as a training
loop that reads its loss every step does. (Without the wait, JAX on this
2-core machine deadlocks in XLA's CPU all-reduce rendezvous after some
tens of steps in flight: "Expected 8 threads to join the rendezvous, but
only 4 of them arrived on time".)

Sizes: width 64, batch 256 (32 rows a device: the call's own cost
weighs most) and width 256, batch 1024 (128 rows a device: XLA's compute
dominates). Rounds alternate typedax and JAX; a row
is the best round of each; the ratio is typedax / JAX (below 1: typedax
faster). Target: the step within 1.05x of JAX's time.

JAX partitions with Shardy (its default) in the main rows, and with GSPMD
(``jax_use_shardy_partitioner=False``) in the rows marked so; typedax emits
GSPMD's ``mhlo.sharding`` annotations.

``XLA_FLAGS`` must give 8 devices before either library starts its CPU
client, so ``main`` runs the measurement in a child process with
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` unless this process
was started with it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

DEVICES = 8
FLAG = f"--xla_force_host_platform_device_count={DEVICES}"
#: (width, batch, calls per round): many short rounds, since the best round
#: is the one that matters on a shared machine (8 devices' threads on 2
#: cores, other jobs running): 10 rounds of 200 calls found no quiet window
#: under load 10-15 and scattered the ratio by 0.3 from run to run
SIZES = ((64, 256, 50), (256, 1024, 10))
ROUNDS = 40
LEARNING_RATE = 0.01
TARGET = 1.05

Params = list[tuple[Any, Any]]


def _step(np_: Any, grad: Any) -> Callable[[Params, Any, Any], Params]:
    """The step in terms of ``np_`` and ``grad`` (typedax's or JAX's): arrays
    of either library, hence ``Any``."""

    def loss(params: Params, x: Any, y: Any) -> Any:
        h = x
        for w, b in params:
            h = np_.tanh(h @ w + b)
        return np_.mean((h - y) ** 2)

    def step(params: Params, x: Any, y: Any) -> Params:
        grads = grad(loss)(params, x, y)
        return [(w - LEARNING_RATE * gw, b - LEARNING_RATE * gb) for (w, b), (gw, gb) in zip(params, grads)]

    return step


def _data(width: int, batch: int) -> tuple[list[tuple[Any, Any]], Any, Any]:
    import numpy as np

    rng = np.random.default_rng(0)
    params = [((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32),
               np.zeros(width, np.float32)) for _ in range(3)]
    x = rng.standard_normal((batch, width)).astype(np.float32)
    y = rng.standard_normal((batch, width)).astype(np.float32)
    return params, x, y


def _round(step: Callable[[Params, Any, Any], Params], block: Callable[[Params], object], params: Params,
           x: Any, y: Any, calls: int) -> float:
    t0 = time.perf_counter()
    p = params
    for _ in range(calls):
        p = step(p, x, y)
        block(p)
    return (time.perf_counter() - t0) / calls


def measure() -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import NamedSharding as JNamed
    from jax.sharding import PartitionSpec as JP

    import typedax as tdx
    import typedax.numpy as tnp
    from typedax.sharding import NamedSharding, P

    assert tdx.device_count() == jax.device_count() == DEVICES, "needs XLA_FLAGS=" + FLAG
    mesh = tdx.make_mesh((DEVICES,), ("data",))  # Explicit axes in both (their default)
    jmesh = jax.make_mesh((DEVICES,), ("data",))
    rep, data = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    jrep, jdata = JNamed(jmesh, JP()), JNamed(jmesh, JP("data"))  # type: ignore[no-untyped-call]  # jax's PartitionSpec is untyped
    step_t = tdx.jit(_step(tnp, tdx.grad), in_shardings=(rep, data, data), out_shardings=rep)
    print(f"mesh (8,) 'data': batch sharded, parameters replicated; {ROUNDS} rounds, best of each; "
          f"ratio typedax / JAX (target <= {TARGET})")
    for width, batch, calls in SIZES:
        params, x, y = _data(width, batch)
        pt = [(tdx.device_put(w, rep), tdx.device_put(b, rep)) for w, b in params]
        xt, yt = tdx.device_put(x, data), tdx.device_put(y, data)
        pj = [(jax.device_put(w, jrep), jax.device_put(b, jrep)) for w, b in params]
        xj, yj = jax.device_put(x, jdata), jax.device_put(y, jdata)
        for gspmd in (False, True):
            jax.config.update("jax_use_shardy_partitioner", not gspmd)  # type: ignore[no-untyped-call]  # untyped in jax
            step_j = jax.jit(_step(jnp, jax.grad), in_shardings=(jrep, jdata, jdata), out_shardings=jrep)
            got, want = step_t(pt, xt, yt), step_j(pj, xj, yj)  # compiles both; same result
            for (a, b), (c, d) in zip(got, want):
                np.testing.assert_allclose(np.asarray(a), np.asarray(c), rtol=1e-5, atol=1e-6)
                np.testing.assert_allclose(np.asarray(b), np.asarray(d), rtol=1e-5, atol=1e-6)
            if not gspmd:
                assert "all-reduce" in step_t.lower(pt, xt, yt).compile().as_text()
            t_tdx: list[float] = []
            t_jax: list[float] = []
            for _ in range(ROUNDS):
                t_tdx.append(_round(step_t, tdx.block_until_ready, pt, xt, yt, calls))
                t_jax.append(_round(step_j, jax.block_until_ready, pj, xj, yj, calls))
            tt, tj = min(t_tdx), min(t_jax)
            label = f"step, width {width}, batch {batch}" + (" (JAX GSPMD)" if gspmd else "")
            print(f"{label:<42} typedax {tt * 1e6:9.1f} us   jax {tj * 1e6:9.1f} us   ratio {tt / tj:5.3f}")
    jax.config.update("jax_use_shardy_partitioner", True)  # type: ignore[no-untyped-call]  # untyped in jax


def main() -> None:
    if FLAG in os.environ.get("XLA_FLAGS", "").split():
        measure()
        return
    sys.stdout.flush()
    env = dict(os.environ, XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} {FLAG}".strip(), TF_CPP_MIN_LOG_LEVEL="2",
               TYPEDAX_PLATFORM="cpu", JAX_PLATFORMS="cpu")  # host devices, for both libraries
    done = subprocess.run([sys.executable, "-m", "benchmarks.sharding"], cwd=Path(__file__).resolve().parent.parent,
                          env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmarks.sharding: the {DEVICES}-device process failed ({done.returncode})")


if __name__ == "__main__":
    main()
