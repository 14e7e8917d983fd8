"""The interpreter under ``ensure_compile_time_eval`` (issue 29 item 7):
a primitive whose operands are all concrete is evaluated now, even while a
``jit`` (or another transformation) is tracing; one with a traced operand
goes to the interpreter that was current, as it would have without it.

JAX's ``ensure_compile_time_eval`` does the same: under ``jit``,
``jnp.sin(jnp.arange(3.0))`` inside it gives a concrete array, which may be
used in Python control flow, while ``x + 1`` of the traced ``x`` is staged.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..core.ir import Params, Primitive
from ..core.trace import EVAL_TRACE, Trace, Tracer, Value, current_trace, using_trace


class CompileTimeEvalTrace(Trace):
    """Evaluates primitives on concrete operands; passes the others to
    ``parent`` (the interpreter current when the context was entered)."""

    __slots__ = ()

    def process_primitive(
        self, prim: Primitive, args: Sequence[Value], params: Params
    ) -> list[Value]:
        parent = self.parent
        if parent is not None and any(isinstance(a, Tracer) for a in args):
            with using_trace(parent):
                return parent.process_primitive(prim, args, params)
        return EVAL_TRACE.process_primitive(prim, args, params)

    def describe(self) -> str:
        return "ensure_compile_time_eval"


@contextmanager
def compile_time_eval() -> Iterator[None]:
    """Run the body with concrete operations evaluated now (``CompileTimeEvalTrace``)."""
    outer = current_trace()
    if outer is EVAL_TRACE:  # eager already
        yield
        return
    trace = CompileTimeEvalTrace(outer)
    try:
        with using_trace(trace):
            yield
    finally:
        trace.alive = False
