"""Tracing in many threads at once: each trace is its own (no global stack)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.trace import EVAL_TRACE, Value, current_trace

N_THREADS = 16


def program(i: int, meet: Callable[[], None]) -> Callable[[Value], Value]:
    """Thread ``i``'s function: ``i + 2`` steps, each a different primitive
    mix, meeting the other threads halfway (while its trace is live)."""

    def f(x: Value) -> Value:
        y = x
        for step in range(i + 2):
            if step == (i + 2) // 2:
                meet()
            k = (i + step) % 4
            if k == 0:
                y = lax.sin(y)
            elif k == 1:
                y = tnp.multiply(y, float(i + 1))
            elif k == 2:
                y = tnp.add(y, x)
            else:
                y = lax.reduce_sum(tnp.multiply(y, y), ()) if i % 2 else lax.cos(y)
        return y

    f.__qualname__ = f"program_{i}"
    return f


def test_sixteen_threads_trace_different_functions_at_once() -> None:
    barrier = threading.Barrier(N_THREADS, timeout=30)
    results: dict[int, tdx.ClosedJaxpr] = {}
    errors: list[BaseException] = []
    inside: list[int] = []

    def meet() -> None:
        inside.append(1)
        barrier.wait()  # every thread is now mid-trace

    def work(i: int) -> None:
        try:
            x = np.ones((i % 3 + 1,), np.float32)
            results[i] = tdx.make_jaxpr(program(i, meet))(x)
            assert current_trace() is EVAL_TRACE
        except BaseException as e:  # reported below, with the thread's index
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(inside) == N_THREADS

    def alone() -> None:
        pass

    for i in range(N_THREADS):
        x = np.ones((i % 3 + 1,), np.float32)
        want = tdx.make_jaxpr(program(i, alone))(x)
        got = results[i]
        assert got == want and str(got) == str(want)
        assert len(got.jaxpr.eqns) == len(want.jaxpr.eqns) >= i + 2
        (out,) = tdx.eval_jaxpr(got.jaxpr, [*got.consts, x])  # type: ignore[list-item]  # consts are arrays
        np.testing.assert_allclose(np.asarray(out), np.asarray(program(i, alone)(x)), rtol=1e-6)


def test_nested_traces_in_threads_see_only_their_own_enclosing_trace() -> None:
    barrier = threading.Barrier(4, timeout=30)
    texts: dict[int, str] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        def outer(x: Value) -> Value:
            def inner(y: Value) -> Value:
                barrier.wait()
                return tnp.multiply(y, x)  # x: a tracer of this thread's enclosing trace

            cj = tdx.make_jaxpr(inner)(np.float64(i))
            assert len(cj.consts) == 1
            texts[i] = str(cj)
            return x

        try:
            tdx.make_jaxpr(outer)(np.float64(i))
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert set(texts.values()) == {
        "{ lambda a:float64[] b:float64[] .\n  let c:float64[] = mul b a\n  in ( c ) }"
    }
