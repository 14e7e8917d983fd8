"""The compile cache, keyed by structure, held by the jaxprs that use it.

The key is the jaxpr itself: jaxprs compare and hash up to renaming of
variables, and a jaxpr's input types are part of it, so the same function
body traced twice (two separately written lambdas, say) finds the executable
compiled the first time, and a changed shape or dtype compiles anew. A
call that donates inputs (``jit``'s ``donate_argnums``) compiles a program
of its own, keyed by (jaxpr, the donation flags).

**Lifetime.** An executable lives while a jaxpr *object* that looked it up
lives (its *owners*: the trace a ``Jitted`` keeps, a transformed jaxpr, a
jaxpr in a user's ``ClosedJaxpr``) or the function a ``jit`` wraps lives
(``keep_with``: ``jit(f)`` written again for one ``f`` compiles once, as
in JAX), and a little after: when its last owner
is garbage, the entry joins the ``max_released`` most recently released
ones, and the oldest of those is dropped. So a process that creates, calls
and drops many jitted functions (each with its own closed-over constants)
does not keep their executables -- about 200 KB each -- as JAX's caches,
tied to the function, do not; while the common pattern of writing
``jit(lambda ...)`` again inside a loop still finds the executable its
previous iteration compiled. Weak owners rather than a small LRU bound:
a bound small enough to cap memory would recompile the live functions of
a program that uses more of them than the bound; a live function never
loses its executable here (except to ``max_size``, a last resort).
"""

from __future__ import annotations

import logging  # compile logging
import threading
import time  # compile logging
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from ..core.config import log_compiles_enabled  # compile logging
from ..core.ir import Jaxpr
from ..core.typecheck import typecheck_jaxpr
from .lower import LoweredModule, lower_jaxpr
from .runtime import Executable, compile_module
from .sharding import ShardingPlan, compile_sharded, lower_sharded

_LOGGER = logging.getLogger("typedax")  # compile logging


@dataclass(frozen=True, slots=True)
class CacheStats:
    """Lookups that found an executable (``hits``), that did not (``misses``),
    compilations done (``compiles``) and executables held (``size``)."""

    hits: int
    misses: int
    compiles: int
    size: int


@dataclass(slots=True)
class _Entry:
    exe: Executable
    #: ids of the live jaxpr objects that looked this executable up
    owners: set[int] = field(default_factory=set)


class CompileCache:
    """Executables by jaxpr (up to alpha-equivalence), each held while a
    jaxpr that uses it lives (see the module's docstring), the
    ``max_released`` most recently released ones beyond them, and at most
    ``max_size`` in all (4096, as JAX's), least recently used dropped first.
    Entries are shared between functions (two lambdas with one body compile
    once), so they belong to the cache, not to a ``Jitted``."""

    __slots__ = (
        "_entries", "_released", "_owned", "_dead", "_lock",
        "_hits", "_misses", "_compiles", "max_size", "max_released", "generation",
    )

    def __init__(self, max_size: int = 4096, max_released: int = 8) -> None:
        self.max_size = max_size
        self.max_released = max_released
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        # keys whose owners are all gone, oldest first
        self._released: OrderedDict[Hashable, None] = OrderedDict()
        # id of a live owner -> (a weak reference to it, the keys it owns)
        self._owned: dict[int, tuple[weakref.ref[object], list[Hashable]]] = {}
        # ids of owners that died, not yet released: a weak reference's
        # callback runs wherever the collector runs, so it only appends
        # here, and the release happens under the lock
        self._dead: list[int] = []
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0
        self._compiles = 0
        #: how many times ``clear`` ran: a memo of executables taken from
        #: here (``jitting/sharded.py``) is stale once it changes
        self.generation = 0

    def peek(
        self, jaxpr: Jaxpr, donated: Sequence[bool] = (), shardings: ShardingPlan | None = None
    ) -> Executable | None:
        """The cached executable for ``jaxpr``, without counting a lookup."""
        entry = self._entries.get(_key(jaxpr, donated, shardings))
        return None if entry is None else entry.exe

    def get(
        self, jaxpr: Jaxpr, name: str, lowered: LoweredModule | None = None,
        donated: Sequence[bool] = (), shardings: ShardingPlan | None = None,
    ) -> Executable:
        """The executable for ``jaxpr`` (whose inputs marked in ``donated``
        are given up to it; partitioned over devices by ``shardings``):
        cached, or lowered and compiled now."""
        key = _key(jaxpr, donated, shardings)
        entry = self._entries.get(key)
        if entry is not None:
            with self._lock:
                self._hits += 1
                if key in self._entries:
                    self._entries.move_to_end(key)
                if self._dead:
                    self._release_dead()  # a dead owner's id may be ``jaxpr``'s now
                if id(jaxpr) not in entry.owners:
                    self._own(jaxpr, key, entry)
            return entry.exe
        with self._lock:
            self._misses += 1
        # a hand-built jaxpr that is not well typed gets the type checker's
        # error naming the equation, not an MLIR verifier's (once per compile)
        typecheck_jaxpr(jaxpr)
        logging_on = log_compiles_enabled()  # compile logging, as JAX's (WARNING, the typedax logger)
        short = name.rsplit(".", 1)[-1]  # JAX names the function by its __name__
        t0 = time.perf_counter()
        if shardings is None:
            module = lowered if lowered is not None else lower_jaxpr(jaxpr, name, donated)
        else:
            module = lowered if lowered is not None else lower_sharded(jaxpr, name, shardings, donated)
        if logging_on:
            _LOGGER.warning("Finished jaxpr to MLIR module conversion jit(%s) in %.9f sec", short, time.perf_counter() - t0)
            _LOGGER.warning("Compiling jit(%s) with global shapes and types %r.", short, tuple(jaxpr.in_avals))
        t0 = time.perf_counter()
        if shardings is None:
            exe = compile_module(module, jaxpr.in_avals, jaxpr.out_avals)
        else:
            exe = compile_sharded(module, jaxpr.in_avals, jaxpr.out_avals, shardings)
        if logging_on:
            _LOGGER.warning("Finished XLA compilation of jit(%s) in %.9f sec", short, time.perf_counter() - t0)
        with self._lock:
            self._compiles += 1
            entry = self._entries.setdefault(key, _Entry(exe))
            self._own(jaxpr, key, entry)
            while len(self._entries) > self.max_size:
                old, _ = self._entries.popitem(last=False)
                self._released.pop(old, None)
            return entry.exe

    def keep_with(self, owner: object, jaxpr: Jaxpr, donated: Sequence[bool] = ()) -> None:
        """Keep ``jaxpr``'s executable (if cached) while ``owner`` lives, too:
        ``jit`` passes the function it wraps, so ``jit(f)`` written again for
        the same ``f`` (``jit(lax.add)(x, y)`` in a loop) finds it, as JAX's
        caches keyed by the function do. An owner that takes no weak
        reference is skipped (the jaxpr still owns the executable)."""
        key = _key(jaxpr, donated)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or id(owner) in entry.owners:
                return
            try:
                self._own(owner, key, entry)
            except TypeError:
                pass  # not weakly referenceable

    def _own(self, owner: object, key: Hashable, entry: _Entry) -> None:
        """Record ``owner`` (a jaxpr, or ``keep_with``'s owner) as an owner
        of ``entry`` (under the lock)."""
        self._release_dead()  # first: a dead owner's id may be ``owner``'s now
        if key not in self._entries:
            return  # released by that, or evicted: the caller's executable is its own
        i = id(owner)
        record = self._owned.get(i)
        if record is None:
            dead = self._dead
            record = self._owned[i] = (weakref.ref(owner, lambda _: dead.append(i)), [])
        record[1].append(key)
        entry.owners.add(i)
        self._released.pop(key, None)

    def _release_dead(self) -> None:
        """Release what the owners that died held (under the lock)."""
        while self._dead:
            i = self._dead.pop()
            record = self._owned.pop(i, None)  # None: dropped by clear()
            for key in () if record is None else record[1]:
                entry = self._entries.get(key)
                if entry is None or i not in entry.owners:
                    continue  # evicted (and perhaps compiled again since)
                entry.owners.discard(i)
                if not entry.owners:
                    self._released[key] = None
        while len(self._released) > self.max_released:
            old, _ = self._released.popitem(last=False)
            self._entries.pop(old, None)

    def stats(self) -> CacheStats:
        with self._lock:
            self._release_dead()
            return CacheStats(self._hits, self._misses, self._compiles, len(self._entries))

    def clear(self) -> None:
        """Forget every executable and reset the statistics."""
        with self._lock:
            self._entries.clear()
            self._released.clear()
            self._owned.clear()
            self._dead.clear()
            self._hits = self._misses = self._compiles = 0
            self.generation += 1


def _key(jaxpr: Jaxpr, donated: Sequence[bool], shardings: ShardingPlan | None = None) -> Hashable:
    """The jaxpr's structure (``alpha_key``: what its equality compares),
    not the jaxpr object, which the key would keep alive; with the donation
    flags and the sharding plan when there are any (one jaxpr compiled for
    other shardings is another program)."""
    key = jaxpr.alpha_key()
    if shardings is not None:
        return (key, tuple(map(bool, donated)), shardings)
    return (key, tuple(map(bool, donated))) if any(donated) else key


compile_cache = CompileCache()


def cache_stats() -> CacheStats:
    """Statistics of the process-wide compile cache."""
    return compile_cache.stats()


def clear_cache() -> None:
    compile_cache.clear()
