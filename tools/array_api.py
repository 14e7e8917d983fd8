"""Run the array API conformance suite (data-apis/array-api-tests) against
``typedax.numpy`` and ``jax.numpy``, one test module at a time, and print a
per-module pass/fail table (``make array-api``; docs/array-api.md).

    python tools/array_api.py SUITE_DIR [--namespace typedax.numpy jax.numpy] [--out DIR] [--reuse]

Both namespaces run under the same settings: 20 examples a test,
derandomized, no deadline, complex dtypes skipped (typedax has none yet),
the ``fft`` extension disabled (it needs complex dtypes), and 64-bit types
on (typedax's default; ``JAX_ENABLE_X64=1`` for JAX). The failing test ids
of each namespace are written to ``OUT/failed-<namespace>.txt``, and the
tests that fail for typedax but pass for JAX to ``OUT/typedax-only.txt``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

FLAGS = ["--max-examples", "20", "--derandomize", "--disable-deadline", "--disable-extension", "fft",
         "-p", "no:cacheprovider", "-q", "--no-header", "-rN"]
ENV = {"ARRAY_API_TESTS_SKIP_DTYPES": "complex64,complex128", "JAX_ENABLE_X64": "1"}


#: The suite (at 55fcc60) cannot import without complex dtypes: it takes the
#: widest complex dtype with ``max`` of an empty list, and test_signatures
#: looks its name up. These two edits give None and skip the lookup.
_PATCHES = {
    "dtype_helpers.py": ("key=lambda x: x[1]\n)[0]\n\n\n# float64",
                         "key=lambda x: x[1], default=(None, 0)\n)[0]\n\n\n# float64"),
    "test_signatures.py": ("cmplx_name = dh.dtype_to_name[dh.widest_complex_dtype]\n",
                           "cmplx_name = (dh.dtype_to_name[dh.widest_complex_dtype]\n"
                           "                      if dh.widest_complex_dtype is not None else 'complex128')\n"),
}


def patch_suite(suite: Path) -> None:
    """Let the suite import with complex dtypes skipped (idempotent)."""
    for name, (old, new) in _PATCHES.items():
        path = suite / "array_api_tests" / name
        text = path.read_text()
        if old in text:
            path.write_text(text.replace(old, new, 1))


def run_module(suite: Path, module: Path, namespace: str, out: Path, reuse: bool) -> dict[str, list[str]]:
    """The test ids of ``module`` by outcome (passed, failed, skipped, ...);
    with ``reuse``, read from an earlier run's report where there is one."""
    report = out / f"{namespace}-{module.stem}.json"
    env = {**os.environ, **ENV, "ARRAY_API_TESTS_MODULE": namespace}
    if not (reuse and report.exists()):
        subprocess.run([sys.executable, "-m", "pytest", str(module.relative_to(suite)), *FLAGS,
                        "--json-report", f"--json-report-file={report}"], cwd=suite, env=env,
                       stdout=subprocess.DEVNULL, check=False)
    by: dict[str, list[str]] = {}
    data = json.loads(report.read_text()) if report.exists() else {"tests": []}
    for t in data.get("tests", []):
        by.setdefault(t["outcome"], []).append(t["nodeid"])
    for c in data.get("collectors", []):
        if c.get("outcome") == "failed":
            by.setdefault("error", []).append(c["nodeid"])
    return by


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("suite", type=Path)
    ap.add_argument("--namespace", nargs="+", default=["typedax.numpy", "jax.numpy"])
    ap.add_argument("--out", type=Path, default=Path("array-api-results"))
    ap.add_argument("--reuse", action="store_true", help="read the reports an earlier run left in --out")
    args = ap.parse_args()
    suite, out = args.suite.resolve(), args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    patch_suite(suite)
    modules = sorted((suite / "array_api_tests").glob("test_*.py"))
    results: dict[str, dict[str, dict[str, list[str]]]] = {}
    for ns in args.namespace:
        results[ns] = {}
        for m in modules:
            results[ns][m.stem] = run_module(suite, m, ns, out, args.reuse)
            r = results[ns][m.stem]
            print(f"{ns} {m.stem}: {len(r.get('passed', []))} passed, {len(r.get('failed', []))} failed",
                  file=sys.stderr, flush=True)
        failed = sorted(t for r in results[ns].values() for k in ("failed", "error") for t in r.get(k, []))
        (out / f"failed-{ns}.txt").write_text("".join(f"{t}\n" for t in failed))
    head = "| module | " + " | ".join(f"{ns} passed / failed" for ns in args.namespace) + " |"
    print(head)
    print("|---" * (1 + len(args.namespace)) + "|")
    totals = {ns: [0, 0] for ns in args.namespace}
    for m in modules:
        cells = []
        for ns in args.namespace:
            r = results[ns][m.stem]
            p, f = len(r.get("passed", [])), len(r.get("failed", [])) + len(r.get("error", []))
            totals[ns][0] += p
            totals[ns][1] += f
            cells.append(f"{p} / {f}")
        print(f"| {m.stem} | " + " | ".join(cells) + " |")
    print("| **total** | " + " | ".join(f"**{p} / {f}**" for p, f in totals.values()) + " |")
    if len(args.namespace) == 2:
        mine = set((out / f"failed-{args.namespace[0]}.txt").read_text().split())
        theirs = set((out / f"failed-{args.namespace[1]}.txt").read_text().split())
        only = sorted(mine - theirs)
        (out / "typedax-only.txt").write_text("".join(f"{t}\n" for t in only))
        print(f"\n{len(only)} tests fail for {args.namespace[0]} alone (listed in {out / 'typedax-only.txt'})")


if __name__ == "__main__":
    main()
