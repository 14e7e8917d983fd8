"""A strictly typed consumer of ``tdx.jit``: checked by ``mypy --strict``
with the rest of the tree (and by tests/test_jit_typing.py)."""

from __future__ import annotations

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import Value


@tdx.jit
def scale(x: Value, factor: float = 2.0) -> Value:
    return tnp.multiply(x, factor)


def predict(w: Value, b: Value, *, x: Value) -> tuple[Value, Value]:
    y = tnp.add(tnp.matmul(x, w), b)
    return y, tnp.sum(y)


predict_jit = tdx.jit(predict)
with_static = tdx.jit(lambda x, n: tnp.multiply(x, float(n)), static_argnums=1)


@tdx.jit(static_argnames="n")
def power(x: Value, n: int) -> Value:
    out = x
    for _ in range(n - 1):
        out = tnp.multiply(out, x)
    return out


def use() -> float:
    a: Value = scale(np.ones(3), factor=3.0)
    y, total = predict_jit(np.ones((2, 2)), np.zeros(2), x=np.ones((1, 2)))
    p: Value = power(np.ones(2), n=3)
    lowered = tdx.jit(predict).lower(np.ones((2, 2)), np.zeros(2), x=np.ones((1, 2)))
    text: str = lowered.as_text()
    compiled = lowered.compile()
    y2, _ = compiled(np.ones((2, 2)), np.zeros(2), x=np.ones((1, 2)))
    del a, y, p, text, y2
    return float(np.asarray(total))
