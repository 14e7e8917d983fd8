"""Example counts of the expensive hypothesis properties, per profile
(the profiles are tests/conftest.py's).

Some properties cost an XLA compilation (typedax's or JAX's), or a run of
JAX's eager dispatch, in every example: ``make test`` (the ``ci`` profile)
must finish within 10 minutes on 2 cores, so these run fewer examples there,
and keep their count everywhere else::

    @ci_examples(20)                   # ci: 20; any other profile: its own count
    @ci_examples(30, otherwise=100)    # ci: 30; any other profile: 100

``otherwise`` keeps a count the property fixed for every profile before
(``@settings(max_examples=100)``): ``make test-long`` (the ``long`` profile)
and the default ``dev`` profile run exactly what they ran before. Other
settings pass through (``@ci_examples(20, otherwise=40, deadline=None)``).
The ``ci`` examples stay derandomized: a property runs the same examples on
every machine.

Big parametrized grids (op x dtype x shape ...) and loops over cases inside a
test run a deterministic part under ``ci`` that still covers every value of
every axis, and all of it under any other profile::

    @pytest.mark.parametrize("op,dtype", ci_cover(OPS, DTYPES))   # ci: a covering subset
    for seed in ci_some(SEEDS, i):                                 # ci: SEEDS[i % len]
    for case in ci_every(CASES, 3, i):                             # ci: every third, from i

``make test-long`` (and ``dev``) run the whole grid; the pytest ids are the
same in every profile (built from the values), so a failure reproduces.

JAX's derivatives as the oracle cost a compilation per operation in its eager
dispatch (seconds for a special function's gradient): under ``ci``,
``ci_jit(jax.grad(f))`` computes them under ``jax.jit`` (one compilation; the
same values to an ulp or so), and eagerly under any other profile. It pays
where the function runs once or is cached (a property's new lambda in every
example compiles every time: cache one per function, as
tests/test_scipy_special_more.py's ``_jax_grad``); a small eager gradient
(the checkpoint policies') costs less than its compilation: time both.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import settings

T = TypeVar("T")

#: The profile tests/conftest.py loads (the same variable, the same default).
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")


def ci_examples(ci: int, *, otherwise: int | None = None, **kwargs: Any) -> settings:
    """Settings with ``ci`` examples under the ``ci`` profile; under any other,
    ``otherwise`` examples, or the profile's own count when it is None."""
    if PROFILE == "ci":
        return settings(max_examples=ci, **kwargs)
    if otherwise is None:
        return settings(**kwargs)
    return settings(max_examples=otherwise, **kwargs)


def _id(value: object) -> str:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return str(value)
    name = getattr(value, "__name__", None)
    return name if isinstance(name, str) else str(value)


def ci_cover(*axes: Sequence[Any], ids: Sequence[Sequence[str] | None] | None = None) -> list[Any]:
    """The product of ``axes`` as ``pytest.param``s (ids built from the values,
    or taken from ``ids``, a list of names per axis: the same in every
    profile); under ``ci``, a covering subset of it: row ``r`` takes value
    ``r + j * (1 + r // len(axis))`` (mod its length) of axis ``j``, for
    ``max(len)`` rows, so each value of each axis runs at least once, in pairs
    that are not all on one diagonal (two axes of one list of dtypes: not all
    ``(a, a)``) and that rotate as the shorter axes wrap around."""
    names: list[list[str]] = []
    for j, axis in enumerate(axes):
        given = None if ids is None else ids[j]
        names.append([_id(v) for v in axis] if given is None else list(given))
    rows: list[tuple[int, ...]]
    if PROFILE == "ci":
        n = max(len(axis) for axis in axes)
        rows = [tuple((r + j * (1 + r // len(axis))) % len(axis) for j, axis in enumerate(axes)) for r in range(n)]
    else:
        rows = list(itertools.product(*(range(len(axis)) for axis in axes)))
    return [pytest.param(*(axis[i] for axis, i in zip(axes, row)), id="-".join(names[j][i] for j, i in enumerate(row)))
            for row in rows]


def ci_some(items: Sequence[T], i: int, k: int = 1) -> list[T]:
    """All of ``items``; under ``ci``, ``k`` of them from ``i`` on (mod their
    length). A parametrized test passes its own ``i`` (its index in the
    parametrization) so that the parametrizations together run every item."""
    if PROFILE != "ci" or k >= len(items):
        return list(items)
    return [items[(i + j) % len(items)] for j in range(k)]


def ci_every(items: Sequence[T], n: int, start: int = 0) -> list[T]:
    """All of ``items``; under ``ci``, every ``n``-th of them from ``start``
    (mod ``n``). Parametrizations that pass different starts run different
    thirds (say), and together every item."""
    if PROFILE != "ci":
        return list(items)
    return [item for i, item in enumerate(items) if (i - start) % n == 0]


def ci_jit(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` (a function of JAX's, often a derivative) under ``jax.jit`` in the
    ``ci`` profile, falling back to ``f`` itself where it needs concrete
    values; ``f`` unchanged under any other profile."""
    if PROFILE != "ci":
        return f
    import jax

    jitted = jax.jit(f)
    concrete_only = (jax.errors.ConcretizationTypeError, jax.errors.TracerIntegerConversionError,
                     jax.errors.TracerBoolConversionError)

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return jitted(*args, **kwargs)
        except concrete_only:
            return f(*args, **kwargs)

    return run
