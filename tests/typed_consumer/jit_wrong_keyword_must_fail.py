"""Must be rejected by ``mypy --strict``: a jitted function keeps its
signature, so a misspelled keyword is a type error (tests/test_jit_typing.py).
Excluded from the repository-wide mypy run (mypy.ini)."""

from __future__ import annotations

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import Value


@tdx.jit
def scale(x: Value, factor: float = 2.0) -> Value:
    return tnp.multiply(x, factor)


result = scale(np.ones(3), factr=3.0)
