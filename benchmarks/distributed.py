"""Processes computing as one (issue 25 item 5), typedax beside JAX: the
same data-parallel program on 4 host CPU devices, once as one process with
4 devices and once as 2 processes on loopback with 2 devices each
(``distributed.initialize``; Gloo carries the collectives between them).

Measured per configuration and library, in process 0 (but ``initialize``):

- ``initialize``: the call, which returns once every process has joined;
  the shortest of the processes' (the last to join: the handshake itself,
  not the wait for a slower process to start);
- ``psum``: ``shard_map`` of ``lax.psum`` of a (4, 2) float32 array over
  the 4 devices: the first call (tracing, compiling, running) and the
  best per-call time of ``ROUNDS`` rounds of ``CALLS`` calls, each waited for;
- the data-parallel MLP step of ``benchmarks/sharding.py`` (width 64,
  batch 256, batch sharded on ``'data'``, parameters replicated, XLA's
  all-reduce of the gradients): first call, and the best per-step time of
  ``ROUNDS`` rounds of ``STEPS`` steps; the parameters after the first round
  are compared across configurations and libraries (rtol 1e-5).

``python -m benchmarks.distributed`` starts the processes itself (ports
chosen at run time) and prints a table; docs/scale-out.md has the numbers.
"""

from __future__ import annotations

import importlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.sharding import _data, _step

DEVICES = 4
WIDTH, BATCH = 64, 256
CALLS = 50
STEPS = 50
ROUNDS = 5
TIMEOUT_S = 300
ROOT = Path(__file__).resolve().parent.parent


def _best(run: Any, block: Any, calls: int) -> float:
    """The best per-call time of ``ROUNDS`` rounds of ``calls`` calls."""
    best = float("inf")
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(calls):
            block(run())
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def worker(lib: str, process_id: int, num_processes: int, port: int) -> dict[str, Any]:
    """One process's measurements (``lib``: ``typedax`` or ``jax``)."""
    import numpy as np

    # the two libraries share the API: either one's modules, hence Any
    m: Any = importlib.import_module(lib)
    np_: Any = importlib.import_module(f"{lib}.numpy")
    sharding: Any = importlib.import_module(f"{lib}.sharding")
    NamedSharding, P = sharding.NamedSharding, sharding.PartitionSpec
    m.config.update("jax_num_cpu_devices", DEVICES // num_processes)
    report: dict[str, Any] = {"initialize_s": 0.0}
    if num_processes > 1:
        t0 = time.perf_counter()
        m.distributed.initialize(f"127.0.0.1:{port}", num_processes, process_id)
        report["initialize_s"] = time.perf_counter() - t0
    assert m.device_count() == DEVICES and m.local_device_count() == DEVICES // num_processes
    mesh = m.make_mesh((DEVICES,), ("data",))
    rep, data = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))

    x = m.device_put(np.arange(2.0 * DEVICES, dtype=np.float32).reshape(DEVICES, 2), data)
    psum = m.jit(m.shard_map(lambda a: m.lax.psum(a, "data"), mesh=mesh, in_specs=P("data"), out_specs=P()))
    t0 = time.perf_counter()
    m.block_until_ready(psum(x))
    report["psum_first_s"] = time.perf_counter() - t0
    report["psum_s"] = _best(lambda: psum(x), m.block_until_ready, CALLS)
    report["psum"] = np.asarray(psum(x)).tolist()

    params, xs, ys = _data(WIDTH, BATCH)
    p = [(m.device_put(w, rep), m.device_put(b, rep)) for w, b in params]
    xb, yb = m.device_put(xs, data), m.device_put(ys, data)
    step = m.jit(_step(np_, m.grad), in_shardings=(rep, data, data), out_shardings=rep)
    t0 = time.perf_counter()
    m.block_until_ready(step(p, xb, yb))
    report["step_first_s"] = time.perf_counter() - t0
    after = p
    for _ in range(STEPS):
        after = m.block_until_ready(step(after, xb, yb))  # waited for: benchmarks/sharding.py says why
    report["params"] = [float(np.abs(np.asarray(a)).sum()) for layer in after for a in layer]
    report["step_s"] = _best(lambda: step(p, xb, yb), m.block_until_ready, STEPS)
    if num_processes > 1:
        m.distributed.shutdown()
    return report


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def run(lib: str, num_processes: int) -> list[dict[str, Any]]:
    """Start ``num_processes`` workers for ``lib``; their reports."""
    port = _free_port()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", JAX_PLATFORMS="cpu")
    procs = [
        subprocess.Popen([sys.executable, "-m", "benchmarks.distributed", lib, str(i), str(num_processes), str(port)],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(num_processes)
    ]
    outs = [p.communicate(timeout=TIMEOUT_S) for p in procs]
    for p, (out, err) in zip(procs, outs):
        if p.returncode != 0:
            raise SystemExit(f"benchmarks.distributed: a {lib} worker failed ({p.returncode}):\n{err[-3000:]}")
    return [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]


def main() -> None:
    import numpy as np

    print(f"{DEVICES} host CPU devices; psum of (4, 2) float32; MLP step width {WIDTH}, batch {BATCH}; "
          f"best of {ROUNDS} rounds")
    print(f"{'configuration':<26} {'initialize':>10} {'psum 1st':>9} {'psum':>9} {'step 1st':>9} {'step':>9}")
    reference: list[float] | None = None
    for processes in (1, 2):
        for lib in ("typedax", "jax"):
            reports = run(lib, processes)
            for r in reports:
                np.testing.assert_array_equal(r["psum"], [[12.0, 16.0]])
                reference = reference or r["params"]
                np.testing.assert_allclose(r["params"], reference, rtol=1e-5)
            r = dict(reports[0], initialize_s=min(x["initialize_s"] for x in reports))
            label = f"{lib}, {processes} x {DEVICES // processes} devices"
            print(f"{label:<26} {r['initialize_s'] * 1e3:8.1f}ms {r['psum_first_s'] * 1e3:7.1f}ms "
                  f"{r['psum_s'] * 1e6:7.1f}us {r['step_first_s'] * 1e3:7.1f}ms {r['step_s'] * 1e6:7.1f}us")


if __name__ == "__main__":
    if len(sys.argv) == 5:
        print(json.dumps(worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))), flush=True)
    else:
        main()
