"""``IdentityMemo``: remember a pure jaxpr transformation's results by the
identity of the jaxpr (and the flags it was called with).

Nested control flow makes the passes over a jaxpr call themselves on each
body more than once -- DCE asks a ``cond`` branch which inputs it uses, then
prunes it; every level doubles the work below it, so 25 levels took hours.
Remembering each (body, flags) result makes every pass linear in program
size. Keys are identities, not structural equality: a result built from one
jaxpr's variables is never handed to an alpha-equivalent other. An entry
holds its jaxpr, so an ``id`` is never reused while it is remembered.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

from .ir import Jaxpr

T = TypeVar("T")


class IdentityMemo(Generic[T]):
    """A bounded (least recently used) memo from ``(jaxpr, key)`` to a result."""

    __slots__ = ("_entries", "_size", "_lock")

    def __init__(self, size: int = 4096) -> None:
        self._entries: OrderedDict[tuple[int, Hashable], tuple[Jaxpr, T]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, jaxpr: Jaxpr, key: Hashable) -> T | None:
        with self._lock:
            entry = self._entries.get((id(jaxpr), key))
            if entry is None or entry[0] is not jaxpr:
                return None
            self._entries.move_to_end((id(jaxpr), key))
            return entry[1]

    def put(self, jaxpr: Jaxpr, key: Hashable, value: T) -> None:
        with self._lock:
            self._entries[(id(jaxpr), key)] = (jaxpr, value)
            self._entries.move_to_end((id(jaxpr), key))
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
