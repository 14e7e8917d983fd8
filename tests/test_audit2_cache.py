"""Issue 23 (second audit): the compile cache lets go of a function's
executables once the function is gone, and still shares one executable
between live functions with one body (and between a ``jit(lambda ...)``
written again in a loop and its previous iteration's)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp

from typedax.lowering import cache_stats
from typedax.lowering.cache import CompileCache

X = np.ones(3)


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def _jitted(c: float) -> Callable[[np.ndarray], object]:
    # c is a literal of the body: every c its own program (about 100 KB compiled)
    return tdx.jit(lambda x: x * c + 1.0)


def _create_call_delete(n: int, offset: float) -> None:
    for i in range(n):
        f = _jitted(offset + i)
        f(X)
        del f


_RELEASE_CHECK = """
import gc, sys
sys.path.insert(0, sys.argv[1])
import test_audit2_cache as t
from typedax.lowering import cache_stats
t._create_call_delete(100, -1000.0)  # warm the allocator and the library's own caches
gc.collect()
size0, rss0, compiles0 = cache_stats().size, t._rss_mb(), cache_stats().compiles
t._create_call_delete(150, 0.0)
gc.collect()
after = cache_stats()
print(after.compiles - compiles0, after.size - size0, t._rss_mb() - rss0)
"""


@pytest.mark.first
def test_deleted_functions_release_their_executables() -> None:
    """In a process of its own: the resident size a worker reaches after
    thousands of tests makes the allocator's own growth (~16 MB in some full
    runs, none alone) look like a leak of 150 executables (~100 KB each).
    JAX frees them too: its caches are tied to the function."""
    # one malloc arena: XLA's threads each take one of their own otherwise, and
    # under load (more of them busy) the arenas' pages count as growth
    env = dict(os.environ, MALLOC_ARENA_MAX="1")
    done = subprocess.run([sys.executable, "-c", _RELEASE_CHECK, str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    compiles, size, rss = done.stdout.split()
    assert int(compiles) == 150  # each had a distinct body
    assert int(size) <= 8  # the recently released ones at most
    assert float(rss) < 5.0


def test_live_functions_keep_their_executables_and_share_one_body() -> None:
    fs = [_jitted(float(i)) for i in range(20)]
    for f in fs:
        f(X)
    twins = [_jitted(float(i)) for i in range(20)]  # the same bodies, written again
    before = cache_stats()
    for f, g in zip(fs, twins):
        np.testing.assert_array_equal(np.asarray(f(X)), np.asarray(g(X)))
    after = cache_stats()
    assert after.compiles == before.compiles  # 20 > 8 released: they are held, not recalled
    assert after.size >= 20


def test_jit_written_again_in_a_loop_compiles_once() -> None:
    before = cache_stats()
    for _ in range(5):
        np.testing.assert_allclose(
            np.asarray(tdx.jit(lambda v: tnp.cos(v) * 3.25)(X)), np.cos(X) * 3.25
        )
        gc.collect()  # the previous iteration's function is gone before this one compiles
    assert cache_stats().compiles - before.compiles == 1


def test_an_executable_lives_while_a_jaxpr_that_used_it_lives() -> None:
    cache = CompileCache(max_released=0)
    jaxpr = tdx.make_jaxpr(lambda x: x * 7.5)(1.0).jaxpr
    twin = tdx.make_jaxpr(lambda y: y * 7.5)(2.0).jaxpr  # equal up to renaming
    exe = cache.get(jaxpr, "f")
    assert cache.get(twin, "g") is exe and cache.stats().compiles == 1
    del jaxpr
    gc.collect()
    assert cache.stats().size == 1  # the twin still uses it
    del twin
    gc.collect()
    assert cache.stats().size == 0


def test_released_entries_are_kept_most_recent_first() -> None:
    cache = CompileCache(max_released=2)
    jaxprs = [tdx.make_jaxpr(lambda x, k=k: x * float(k))(1.0).jaxpr for k in range(4)]
    keep = tdx.make_jaxpr(lambda x: x * 99.0)(1.0).jaxpr
    for j in [keep, *jaxprs]:
        cache.get(j, "f")
    del j
    structures = [tdx.make_jaxpr(lambda x, k=k: x * float(k))(1.0).jaxpr for k in range(4)]
    jaxprs.clear()
    gc.collect()
    assert cache.stats().size == 3  # the live one and the last two released
    assert cache.peek(keep) is not None
    assert cache.peek(structures[0]) is None and cache.peek(structures[1]) is None
    assert cache.peek(structures[2]) is not None and cache.peek(structures[3]) is not None


def test_clear_then_a_dead_owner_is_harmless() -> None:
    cache = CompileCache()
    jaxpr = tdx.make_jaxpr(lambda x: x * 5.5)(1.0).jaxpr
    cache.get(jaxpr, "f")
    cache.clear()
    del jaxpr
    gc.collect()
    assert cache.stats().size == 0
    again = tdx.make_jaxpr(lambda x: x * 5.5)(1.0).jaxpr
    cache.get(again, "f")
    assert cache.stats().compiles == 1 and cache.stats().size == 1


def test_jit_of_one_function_written_again_compiles_once() -> None:
    def f(v: np.ndarray) -> object:
        return tnp.tanh(v) * 1.625

    before = cache_stats()
    for i in range(3):
        np.testing.assert_allclose(np.asarray(tdx.jit(f)(X)), np.tanh(X) * 1.625)
        _create_call_delete(12, 5000.0 + 100 * i)  # more released executables than are kept
        gc.collect()
    assert cache_stats().compiles - before.compiles == 1 + 3 * 12  # f's once, while f lives
    del f
    _create_call_delete(12, 9000.0)  # f is gone: its executable is released and then dropped
    gc.collect()
    compiles = cache_stats().compiles
    tdx.jit(lambda v: tnp.tanh(v) * 1.625)(X)  # f's body again: compiled anew
    assert cache_stats().compiles == compiles + 1
