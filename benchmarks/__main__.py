"""Run every benchmark module: ``python -m benchmarks [name ...]``.

Each module named in ``BENCHMARKS`` has a ``main() -> None`` that prints its
own table. Add a benchmark by adding its module name here.
"""

from __future__ import annotations

import importlib
import platform
import sys
from collections.abc import Callable
from typing import cast

BENCHMARKS: tuple[str, ...] = (
    "trace",
    "scan",
    "jit",
    "dispatch",
    "grad",
    "nesting",
    "indexing",
    "convolution",
    "numpy_block",
    "random",
    "gpu",
    "checkpoint",
    "sharding",
    "linalg_lu",
)


def run(names: tuple[str, ...]) -> None:
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{_cpu_count()} cores")
    for name in names:
        if name not in BENCHMARKS:
            raise SystemExit(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
        module = importlib.import_module(f"benchmarks.{name}")
        main = cast(Callable[[], None], getattr(module, "main"))
        print(f"\n== {name} ==")
        main()


def _cpu_count() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    run(tuple(sys.argv[1:]) or BENCHMARKS)
