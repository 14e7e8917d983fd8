"""The compile cache, keyed by structure.

The key is the jaxpr itself: jaxprs compare and hash up to renaming of
variables, and a jaxpr's input types are part of it, so the same function
body traced twice (two separately written lambdas, say) finds the executable
compiled the first time, and a changed shape or dtype compiles anew. A
call that donates inputs (``jit``'s ``donate_argnums``) compiles a program
of its own, keyed by (jaxpr, the donation flags).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from ..core.ir import Jaxpr
from ..core.typecheck import typecheck_jaxpr
from .lower import LoweredModule, lower_jaxpr
from .runtime import Executable, compile_module


@dataclass(frozen=True, slots=True)
class CacheStats:
    """Lookups that found an executable (``hits``), that did not (``misses``),
    compilations done (``compiles``) and executables held (``size``)."""

    hits: int
    misses: int
    compiles: int
    size: int


class CompileCache:
    """Executables by jaxpr (up to alpha-equivalence), the ``max_size`` most
    recently used (4096 by default, as JAX's): a long-running process that
    jits many shapes or functions does not grow without bound. Entries are
    shared between functions (two lambdas with one body compile once), so
    they belong to the cache, not to a ``Jitted``."""

    __slots__ = ("_entries", "_lock", "_hits", "_misses", "_compiles", "max_size")

    def __init__(self, max_size: int = 4096) -> None:
        self.max_size = max_size
        self._entries: OrderedDict[Hashable, Executable] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0
        self._compiles = 0

    def peek(self, jaxpr: Jaxpr, donated: Sequence[bool] = ()) -> Executable | None:
        """The cached executable for ``jaxpr``, without counting a lookup."""
        return self._entries.get(_key(jaxpr, donated))

    def get(
        self, jaxpr: Jaxpr, name: str, lowered: LoweredModule | None = None,
        donated: Sequence[bool] = (),
    ) -> Executable:
        """The executable for ``jaxpr`` (whose inputs marked in ``donated``
        are given up to it): cached, or lowered and compiled now."""
        key = _key(jaxpr, donated)
        exe = self._entries.get(key)
        if exe is not None:
            with self._lock:
                self._hits += 1
                if key in self._entries:
                    self._entries.move_to_end(key)
            return exe
        with self._lock:
            self._misses += 1
        # a hand-built jaxpr that is not well typed gets the type checker's
        # error naming the equation, not an MLIR verifier's (once per compile)
        typecheck_jaxpr(jaxpr)
        module = lowered if lowered is not None else lower_jaxpr(jaxpr, name, donated)
        exe = compile_module(module, jaxpr.in_avals, jaxpr.out_avals)
        with self._lock:
            self._compiles += 1
            exe = self._entries.setdefault(key, exe)
            while len(self._entries) > self.max_size:
                self._entries.popitem(last=False)
            return exe

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self._hits, self._misses, self._compiles, len(self._entries))

    def clear(self) -> None:
        """Forget every executable and reset the statistics."""
        with self._lock:
            self._entries.clear()
            self._hits = self._misses = self._compiles = 0


def _key(jaxpr: Jaxpr, donated: Sequence[bool]) -> Hashable:
    return (jaxpr, tuple(map(bool, donated))) if any(donated) else jaxpr


compile_cache = CompileCache()


def cache_stats() -> CacheStats:
    """Statistics of the process-wide compile cache."""
    return compile_cache.stats()


def clear_cache() -> None:
    compile_cache.clear()
