"""First-call (trace, lower, compile, run) time of ``jit(solve)`` and
``jit(expm)`` for n x n float64 matrices, typedax beside JAX in one run.

``typedax.numpy.linalg.solve`` (and ``scipy.linalg.expm``, which solves
with it) factor through the ``lu`` primitive, LAPACK's ``getrf``, as JAX's;
before, typedax unrolled Gaussian elimination over ``n`` in Python, so the
program and its compile time grew with ``n``. Each first call uses a fresh
function object and empty compile caches (typedax's ``clear_cache``, JAX's
``clear_caches``); the libraries alternate, and the best of ``REPEATS`` is
printed with the ratio.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402  - after choosing the platform
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402
import numpy as np  # noqa: E402

import typedax as tdx  # noqa: E402
import typedax.numpy as tnp  # noqa: E402
import typedax.scipy.linalg as tsl  # noqa: E402
from typedax.lowering import clear_cache  # noqa: E402

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

SIZES: tuple[int, ...] = (8, 32, 128)
REPEATS = 3


def _first_call(make: Callable[[], Callable[..., Any]], args: tuple[np.ndarray, ...], clear: Callable[[], None]) -> float:
    clear()
    f = make()
    t0 = time.perf_counter()
    out = f(*args)
    np.asarray(out)
    return time.perf_counter() - t0


def _cases(n: int) -> list[tuple[str, Callable[[], Callable[..., Any]], Callable[[], Callable[..., Any]],
                                 tuple[np.ndarray, ...]]]:
    rng = np.random.default_rng(0)
    a = rng.normal(size=(n, n)) / n + np.eye(n)
    b = rng.normal(size=(n,))
    return [
        ("jit(solve)", lambda: tdx.jit(lambda x, y: tnp.linalg.solve(x, y)),
         lambda: jax.jit(lambda x, y: jnp.linalg.solve(x, y)), (a, b)),
        ("jit(expm)", lambda: tdx.jit(lambda x: tsl.expm(x)), lambda: jax.jit(lambda x: jsl.expm(x)), (a,)),
    ]


def main() -> None:
    sizes = tuple(int(s) for s in sys.argv[1:]) or SIZES
    print(f"{'case':<12}{'n':>5}{'typedax s':>12}{'JAX s':>10}{'ratio':>8}")
    for n in sizes:
        for name, ours, theirs, args in _cases(n):
            t_ours, t_theirs = [], []
            for _ in range(REPEATS):
                t_ours.append(_first_call(ours, args, clear_cache))
                t_theirs.append(_first_call(theirs, args, jax.clear_caches))
            o, t = min(t_ours), min(t_theirs)
            print(f"{name:<12}{n:>5}{o:>12.3f}{t:>10.3f}{o / t:>8.2f}")


if __name__ == "__main__":
    main()
