"""Transforming deeply nested control flow, typedax beside JAX in one run.

``f`` nests ``cond`` (or ``scan`` of length 1, or ``while_loop`` run once)
``depth`` levels deep around ``x * 2``. Each cell is the wall time of the
first call of ``jit(f)`` or ``jit(grad(f))`` on a fresh function (trace,
transform, lower, compile, run), best of 3. Before typedax remembered its
passes per body (issue 8), the time doubled with every level (``jit`` of a
16-deep cond took 1.5 s, ``grad`` of a 14-deep one 4.8 s); it should now grow
about linearly, as JAX's does.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402  - after choosing the platform

import typedax as tdx  # noqa: E402
from typedax import lax  # noqa: E402
from typedax.lowering import clear_cache  # noqa: E402

DEPTHS = (8, 16, 32, 64)


def nested(lx: Any, kind: str, depth: int) -> Callable[[Any], Any]:
    f: Callable[[Any], Any] = lambda x: x * 2.0
    for _ in range(depth):
        inner = f
        if kind == "cond":
            f = (lambda g: lambda x: lx.cond(x > 0, g, lambda y: y - 1.0, x))(inner)
        elif kind == "scan":
            f = (lambda g: lambda x: lx.scan(lambda c, _: (g(c), None), x, None, length=1)[0])(inner)
        else:
            f = (lambda g: lambda x: lx.while_loop(lambda c: c < 2.0, g, x))(inner)
    return f


def best_first_call(make: Callable[[], Callable[[float], object]], clear: Callable[[], None]) -> float:
    best = float("inf")
    for _ in range(3):
        clear()
        fn = make()
        t = time.perf_counter()
        out = fn(1.0)
        if hasattr(out, "block_until_ready"):
            out.block_until_ready()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    print("first call of jit(f) / jit(grad(f)), f nested `depth` levels deep; ms, best of 3")
    print(f"{'':16}{'depth':>6}{'typedax ms':>12}{'jax ms':>10}{'tdx/jax':>9}")
    for kind in ("cond", "scan", "while"):
        for what in ("jit", "jit(grad)") if kind != "while" else ("jit",):
            for depth in DEPTHS:
                def make_t() -> Callable[[float], object]:
                    f = nested(lax, kind, depth)
                    return tdx.jit(tdx.grad(f) if what == "jit(grad)" else f)

                def make_j() -> Callable[[float], object]:
                    f = nested(jax.lax, kind, depth)
                    return jax.jit(jax.grad(f) if what == "jit(grad)" else f)

                t = guarded(lambda: best_first_call(make_t, clear_cache))
                j = guarded(lambda: best_first_call(make_j, jax.clear_caches))
                ratio = f"{t / j:>8.2f}x" if isinstance(t, float) and isinstance(j, float) else f"{'-':>9}"
                print(f"{kind + ' ' + what:16}{depth:>6}{cell(t):>12}{cell(j):>10}{ratio}")


def guarded(run: Callable[[], float]) -> float | str:
    """The time, or the name of the exception that stopped the run (JAX's
    own tracing hits Python's recursion limit on some deep nests)."""
    try:
        return run()
    except Exception as e:  # noqa: BLE001 - reported in the table
        return type(e).__name__


def cell(v: float | str) -> str:
    return f"{v * 1e3:.1f}" if isinstance(v, float) else v[:9]
