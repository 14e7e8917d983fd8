"""Data parallelism over 8 host CPU devices: the spirals MLP of
``examples/mlp.py`` trained by plain gradient descent, its batch sharded on
the mesh axis ``'data'`` and its parameters replicated. XLA's SPMD
partitioner splits the step and inserts the all-reduce that sums the
gradients of the 8 shards; after 20 steps the parameters equal those of the
same step run on one device.

XLA_FLAGS must name the device count before the CPU client starts, and
``python -m examples`` has started it (with one device) by the time this
example runs, so ``main`` runs the 8-device part in a child process with
``XLA_FLAGS=--xla_force_host_platform_device_count=8``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import typedax as tdx
from typedax import Array
from typedax.sharding import NamedSharding, P

from .mlp import Layer, Params, init_params, loss, spirals

DEVICES, STEPS, LEARNING_RATE = 8, 20, 0.5
FLAG = f"--xla_force_host_platform_device_count={DEVICES}"


def step(params: Params, x: Array, y: Array) -> tuple[Params, Array]:
    """One step of gradient descent; the loss before it."""
    value, grads = tdx.value_and_grad(loss)(params, x, y)
    new = [Layer(p.w - LEARNING_RATE * g.w, p.b - LEARNING_RATE * g.b) for p, g in zip(params, grads)]
    return new, value


def train_and_compare() -> None:
    mesh = tdx.make_mesh((DEVICES,), ("data",))
    replicated, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    rng = np.random.default_rng(0)
    x_np, y_np = spirals(512, rng)  # 1024 points: 128 a device
    params = init_params([2, 64, 64, 1], rng)

    x, y = tdx.device_put(x_np, batch), tdx.device_put(y_np, batch)
    shapes = {tuple(s.data.shape) for s in x.addressable_shards}
    print(f"mesh {dict(mesh.shape)}; the batch {x.shape} is {len(x.addressable_shards)} shards of {shapes.pop()}, "
          f"one a device; the parameters are replicated")

    sharded = tdx.jit(step, in_shardings=(replicated, batch, batch), out_shardings=(replicated, replicated))
    single = tdx.jit(step)
    compiled = sharded.lower(params, x, y).compile().as_text()
    reduces = [ln.strip() for ln in compiled.splitlines() if " all-reduce(" in ln]
    print(f"the compiled step sums the shards' gradients by all-reduce ({len(reduces)} in it; XLA combines them):\n"
          f"  {reduces[0][:100]}..." if reduces else "the compiled step has NO all-reduce")

    start = time.perf_counter()
    p_many: Params = params
    p_one: Params = params
    x_one, y_one = tdx.device_put(x_np), tdx.device_put(y_np)
    for i in range(1, STEPS + 1):
        p_many, value = sharded(p_many, x, y)
        p_one, _ = single(p_one, x_one, y_one)
        if i in (1, STEPS // 2, STEPS):
            print(f"step {i:3d}  loss {float(value):.4f}")
    elapsed = time.perf_counter() - start

    many = [np.asarray(a) for layer in p_many for a in layer]
    one = [np.asarray(a) for layer in p_one for a in layer]
    on = {d.id for layer in p_many for a in layer for d in a.sharding.device_set}
    worst = max(float(np.max(np.abs(a - b))) for a, b in zip(many, one))
    same = all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(many, one))
    print(f"after {STEPS} steps ({elapsed:.2f} s, both runs) the parameters live on devices {sorted(on)}; "
          f"they match the single-device run (rtol 1e-5, atol 1e-6): {same} (largest difference {worst:.1e})")
    if not (same and reduces):
        raise SystemExit("data_parallel: the sharded run does not match the single-device run")


def main() -> None:
    print(f"== data parallelism: the MLP step over {DEVICES} host devices, batch sharded on 'data'")
    if FLAG in os.environ.get("XLA_FLAGS", "").split():
        train_and_compare()
        return
    sys.stdout.flush()
    # host devices even where typedax runs on a GPU; TF_CPP_MIN_LOG_LEVEL=2: no
    # warning that XLA will deprecate GSPMD (whose annotations typedax emits)
    env = dict(os.environ, XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} {FLAG}".strip(), TF_CPP_MIN_LOG_LEVEL="2",
               TYPEDAX_PLATFORM="cpu")
    done = subprocess.run(
        [sys.executable, "-c", "from examples.data_parallel import train_and_compare; train_and_compare()"],
        cwd=Path(__file__).resolve().parent.parent, env=env, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"data_parallel: the {DEVICES}-device process failed ({done.returncode})")


if __name__ == "__main__":
    main()
