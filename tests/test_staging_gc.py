"""Staging leaves the process's garbage collector alone: it is process-wide
state that other threads rely on."""

from __future__ import annotations

import gc
import threading

import numpy as np

import typedax as tdx
from typedax import lax


def test_tracing_does_not_switch_the_collector_off() -> None:
    seen: list[bool] = []

    def f(x: tdx.Value) -> tdx.Value:
        seen.append(gc.isenabled())
        return lax.sin(x)

    assert gc.isenabled()
    tdx.make_jaxpr(f)(np.float64(1.0))
    assert seen == [True] and gc.isenabled()


def test_another_threads_gc_disable_during_a_trace_is_kept() -> None:
    inside, done = threading.Event(), threading.Event()

    def f(x: tdx.Value) -> tdx.Value:
        inside.set()
        assert done.wait(10)
        return lax.sin(x)

    t = threading.Thread(target=lambda: tdx.make_jaxpr(f)(np.float64(1.0)))
    t.start()
    try:
        assert inside.wait(10)
        gc.disable()  # another thread's choice, made while the trace runs
        done.set()
        t.join(10)
        assert not gc.isenabled(), "the trace switched the collector back on"
    finally:
        gc.enable()
