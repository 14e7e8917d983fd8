"""``IdentityMemo``: remember a pure jaxpr transformation's results by the
identity of the jaxpr (and the flags it was called with).

Nested control flow makes the passes over a jaxpr call themselves on each
body more than once -- DCE asks a ``cond`` branch which inputs it uses, then
prunes it; every level doubles the work below it, so 25 levels took hours.
Remembering each (body, flags) result makes every pass linear in program
size. Keys are identities, not structural equality: a result built from one
jaxpr's variables is never handed to an alpha-equivalent other. The memo
holds its jaxprs weakly: an entry goes when its jaxpr does, so remembering
never keeps a program alive (and an ``id`` is never reused while its entry
exists).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from .ir import Jaxpr

T = TypeVar("T")


class IdentityMemo(Generic[T]):
    """A memo from ``(jaxpr, key)`` to a result, for as long as the jaxpr lives."""

    __slots__ = ("_entries", "_refs", "_lock", "__weakref__")

    def __init__(self) -> None:
        self._entries: dict[int, dict[Hashable, T]] = {}
        self._refs: dict[int, weakref.ref[Jaxpr]] = {}
        # reentrant: a jaxpr may die (and its callback run) inside a locked section
        self._lock = threading.RLock()

    def get(self, jaxpr: Jaxpr, key: Hashable) -> T | None:
        i = id(jaxpr)
        ref = self._refs.get(i)
        if ref is None or ref() is not jaxpr:
            return None
        by_key = self._entries.get(i)
        return None if by_key is None else by_key.get(key)

    def put(self, jaxpr: Jaxpr, key: Hashable, value: T) -> None:
        i = id(jaxpr)
        with self._lock:
            ref = self._refs.get(i)
            if ref is None or ref() is not jaxpr:
                self._refs[i] = weakref.ref(jaxpr, _forgetter(weakref.ref(self), i))
                self._entries[i] = {}
            self._entries[i][key] = value

    def forget(self, i: int, ref: weakref.ref[Jaxpr]) -> None:
        with self._lock:
            if self._refs.get(i) is ref:
                del self._refs[i]
                self._entries.pop(i, None)

    def __len__(self) -> int:
        return sum(len(d) for d in self._entries.values())

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._refs.clear()


def _forgetter(
    memo: weakref.ref[IdentityMemo[T]], i: int
) -> Callable[[weakref.ref[Jaxpr]], None]:
    def forget(ref: weakref.ref[Jaxpr]) -> None:
        m = memo()
        if m is not None:
            m.forget(i, ref)

    return forget
