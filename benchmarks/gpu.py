"""typedax beside JAX on the platform ``TYPEDAX_PLATFORM`` names (issue 26:
run it on a GPU machine with ``TYPEDAX_PLATFORM=cuda python -m benchmarks
gpu``; JAX then runs on its default platform, the same GPU):

1. steady step of ``jit(grad(loss))`` for a 3-layer tanh MLP, batch 128,
   float32, at widths 256 to 4096 (default matmul precision in both: TF32
   on a GPU), 10-50 calls then a block on every output (no host copy);
2. first call of that step (trace, lower, compile, run; caches emptied and
   a fresh function each time) at width 256 and 2048;
3. dispatch: a cached jitted ``sin(x + y)`` on float32[8] device arrays,
   and on NumPy arguments (5,000 calls per round, one block at the end).

Each row is the best of several rounds, typedax and JAX alternating; the
ratio is typedax / JAX, so below 1 means typedax is faster. On the CPU (no
``TYPEDAX_PLATFORM``) it runs the same rows there, as a smoke test.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

if os.environ.get("TYPEDAX_PLATFORM", "cpu").strip().lower() in ("", "cpu"):
    os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402  - after choosing the platform
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import typedax as tdx  # noqa: E402
import typedax.numpy as tnp  # noqa: E402
from typedax.lowering import clear_cache  # noqa: E402

#: the widths on a GPU; the CPU smoke run takes the first two
WIDTHS = (256, 1024, 2048, 4096)
BATCH, LAYERS = 128, 3


def _widths() -> tuple[int, ...]:
    return WIDTHS if tdx.default_backend() != "cpu" else (64, 256)


def _loss(np_: Any) -> Callable[[Sequence[Any], Any], Any]:
    """The loss in terms of ``np_`` (typedax.numpy or jax.numpy): arrays of
    either library, hence ``Any``."""

    def loss(ws: Sequence[Any], x: Any) -> Any:
        h = x
        for w in ws:
            h = np_.tanh(h @ w)
        return np_.sum(h * h)

    return loss


def _params(width: int) -> tuple[list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32) for _ in range(LAYERS)]
    return ws, rng.standard_normal((BATCH, width)).astype(np.float32)


def _best(run: Callable[[], object], rounds: int, calls: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = None
        for _ in range(calls):
            out = run()
        _block(out)
        times.append((time.perf_counter() - t0) / calls)
    return min(times)


def _block(out: object) -> None:
    """Wait for every array of a result of either library, without copying
    it to the host: each leaf's ``block_until_ready`` (``jax.block_until_ready``
    calls it on typedax's arrays too). A NumPy copy here would time the
    transfer instead of the step: at width 4096 the copy of one gradient
    (64 MiB) takes longer than the step itself."""
    jax.block_until_ready(out)  # type: ignore[no-untyped-call]  # jax leaves it unannotated


def _row(name: str, t_tdx: float, t_jax: float, unit: float = 1e3, label: str = "ms") -> None:
    print(f"{name:<34} typedax {t_tdx * unit:9.3f} {label}   jax {t_jax * unit:9.3f} {label}   "
          f"ratio {t_tdx / t_jax:5.2f}")


def steady_steps() -> None:
    for width in _widths():
        ws, x = _params(width)
        wt, xt = [tdx.device_put(w) for w in ws], tdx.device_put(x)
        wj, xj = [jax.device_put(w) for w in ws], jax.device_put(x)
        ft, fj = tdx.jit(tdx.grad(_loss(tnp))), jax.jit(jax.grad(_loss(jnp)))
        _block(ft(wt, xt))
        _block(fj(wj, xj))
        calls = 50 if width <= 1024 else 10
        tt = min(_best(lambda: ft(wt, xt), 1, calls) for _ in range(3))
        tj = min(_best(lambda: fj(wj, xj), 1, calls) for _ in range(3))
        _row(f"steady step, width {width}", tt, tj)


def first_calls() -> None:
    for width in _widths()[::2][:2] if tdx.default_backend() == "cpu" else (256, 2048):
        ws, x = _params(width)
        t_tdx, t_jax = [], []
        for _ in range(3):
            clear_cache()
            t0 = time.perf_counter()
            _block(tdx.jit(tdx.grad(_loss(tnp)))(ws, x))
            t_tdx.append(time.perf_counter() - t0)
            jax.clear_caches()  # type: ignore[no-untyped-call]  # jax leaves it unannotated
            t0 = time.perf_counter()
            _block(jax.jit(jax.grad(_loss(jnp)))(ws, x))
            t_jax.append(time.perf_counter() - t0)
        _row(f"first call, width {width}", statistics.median(t_tdx), statistics.median(t_jax))


def dispatch() -> None:
    x, y = np.linspace(0, 1, 8, dtype=np.float32), np.linspace(1, 2, 8, dtype=np.float32)
    ft = tdx.jit(lambda a, b: tnp.sin(a + b))
    fj = jax.jit(lambda a, b: jnp.sin(a + b))
    xt, yt, xj, yj = tdx.device_put(x), tdx.device_put(y), jax.device_put(x), jax.device_put(y)
    cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        ("dispatch, device arrays", lambda: ft(xt, yt), lambda: fj(xj, yj)),
        ("dispatch, NumPy arguments", lambda: ft(x, y), lambda: fj(x, y)),
    ]
    for name, run_t, run_j in cases:
        run_t()
        run_j()
        tt = min(_best(run_t, 1, 5000) for _ in range(5))
        tj = min(_best(run_j, 1, 5000) for _ in range(5))
        _row(name, tt, tj, 1e6, "us")


def main() -> None:
    print(f"typedax on {tdx.default_backend()} ({tdx.devices()[0]}), jax on {jax.default_backend()} "
          f"({jax.devices()[0]})")
    steady_steps()
    first_calls()
    dispatch()


if __name__ == "__main__":
    main()
