"""Value ranges the generator tracks for every variable.

Each generated variable carries an ``Interval`` that contains every value it
can take when the jaxpr's inputs lie in ``INPUT_RANGES``. The generator only
applies an operation when its operands' intervals are inside the operation's
domain (``log`` of values >= 0.05, ``div`` by values away from zero, ``exp``
of values <= 3, ...) and the result stays within ``LIMIT`` in magnitude, so
evaluating a generated jaxpr on such inputs never produces ``inf``, ``nan``,
integer overflow or division by zero.

Results of inexact (transcendental) operations are widened by a relative
``SLACK`` so that the interval still contains what float32 rounding gives.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

LIMIT: Final[float] = 1e3
SLACK: Final[float] = 1e-5


@dataclass(frozen=True, slots=True)
class Interval:
    lo: float
    hi: float

    @staticmethod
    def point(v: float) -> Interval:
        return Interval(v, v)

    @staticmethod
    def hull(values: Iterable[float]) -> Interval:
        vs = list(values)
        return Interval(min(vs), max(vs))

    @property
    def mag(self) -> float:
        return max(abs(self.lo), abs(self.hi))

    def bounded(self) -> bool:
        return self.mag <= LIMIT

    def widened(self) -> Interval:
        """Outward by ``SLACK`` (for results of inexact operations)."""
        return Interval(
            self.lo - abs(self.lo) * SLACK - 1e-12, self.hi + abs(self.hi) * SLACK + 1e-12
        )

    def away_from_zero(self, margin: float) -> bool:
        return self.lo >= margin or self.hi <= -margin

    def union(self, other: Interval) -> Interval:
        return Interval(min(self.lo, other.lo), max(self.hi, other.hi))


BOOL_RANGE: Final[Interval] = Interval(0.0, 1.0)


def safe_exp(x: float) -> float:
    return math.inf if x > 700 else math.exp(x)


def logistic(x: float) -> float:
    return 0.0 if x < -700 else 1.0 / (1.0 + math.exp(-x))


def safe_pow(x: float, y: float) -> float:
    """``x ** y`` for ``x > 0``, ``inf`` instead of overflow."""
    return safe_exp(y * math.log(x))


def mul(a: Interval, b: Interval, same: bool) -> Interval:
    if same:  # x * x is never negative
        lo = 0.0 if a.lo <= 0.0 <= a.hi else min(a.lo * a.lo, a.hi * a.hi)
        return Interval(lo, a.mag * a.mag)
    return Interval.hull([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi])


def div(a: Interval, b: Interval, integer: bool) -> Interval:
    corners = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]
    if integer:  # rounding toward zero stays between 0 and the quotient
        return Interval.hull(corners + [0.0])
    return Interval.hull(corners).widened()


def integer_pow(a: Interval, y: int) -> Interval:
    if y == 0:
        return Interval.point(1.0)
    if y > 0 and y % 2 == 0:
        lo = 0.0 if a.lo <= 0.0 <= a.hi else min(abs(a.lo), abs(a.hi)) ** y
        return Interval(lo, a.mag**y)
    if y > 0:
        return Interval(a.lo**y, a.hi**y)
    # y < 0: the operand's interval excludes zero, so x ** y is monotone on it
    return Interval.hull([a.lo**y, a.hi**y]).widened()


def power(a: Interval, b: Interval) -> Interval:
    """``x ** y`` for ``x`` in ``a`` (positive) and ``y`` in ``b``: extremes at corners."""
    return Interval.hull(
        [safe_pow(a.lo, b.lo), safe_pow(a.lo, b.hi), safe_pow(a.hi, b.lo), safe_pow(a.hi, b.hi)]
    ).widened()
