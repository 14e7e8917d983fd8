"""The state of one jaxpr being generated: the variables in scope with their
value ranges, and how operands (variables or scalar literals) are drawn."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

import hypothesis.strategies as st

from ..core.avals import ShapedArray
from ..core.dtypes import FLOATING, INTEGER, DType, bool_, float32, float64, int32, int64
from ..core.ir import Atom, Lit, LitValue, Var
from ._interval import BOOL_RANGE, Interval


def real_val(lit: Lit) -> float:
    """A generated literal's value as a float (the generators draw no complex types)."""
    v = lit.val
    if isinstance(v, complex):
        raise TypeError(f"the jaxpr generators have no intervals of complex literals, got {lit}")
    return float(v)

#: The ranges arguments are drawn from; every generated jaxpr evaluates to
#: finite values for inputs in these ranges.
INPUT_RANGES: Final[dict[DType, Interval]] = {
    bool_: BOOL_RANGE,
    int32: Interval(-3.0, 3.0),
    int64: Interval(-3.0, 3.0),
    float32: Interval(-2.0, 2.0),
    float64: Interval(-2.0, 2.0),
}

OperandOk = Callable[[ShapedArray, Interval], bool]


@dataclass(frozen=True, slots=True)
class Config:
    """What to generate (fixed for one strategy)."""

    dtypes: tuple[DType, ...]
    prims: tuple[str, ...]
    max_eqns: int
    min_inputs: int
    max_inputs: int
    max_outputs: int
    max_rank: int
    max_dim: int
    smooth: bool  # keep operands away from every singularity (for derivatives)
    float_only: bool  # no bool/int variables, and no operation producing them


@dataclass(slots=True)
class Env:
    """Mutable only while one jaxpr is being drawn."""

    draw: st.DrawFn
    cfg: Config
    vars: list[Var] = field(default_factory=list)
    ranges: dict[Var, Interval] = field(default_factory=dict)

    def range_of(self, a: Atom) -> Interval:
        if isinstance(a, Lit):
            return Interval.point(real_val(a))
        return self.ranges[a]

    def add(self, v: Var, r: Interval) -> None:
        self.vars.append(v)
        self.ranges[v] = r

    def literal(self, dtype: DType) -> Lit:
        return Lit.of(self.draw(literal_values(dtype)), dtype)

    def pick(self, ok: OperandOk, lit_dtypes: Sequence[DType]) -> Atom | None:
        """A variable in scope whose type and range satisfy ``ok``, or a fresh
        scalar literal of one of ``lit_dtypes`` (when its value satisfies ``ok``)."""
        cands = [v for v in self.vars if ok(v.aval, self.ranges[v])]
        # literals now and then (1 in 8), and as a fallback (1 in 3): not so
        # often that scalar equations on literals crowd out the rest
        use_lit = bool(lit_dtypes) and self.draw(st.integers(0, 7 if cands else 2)) == 0
        if not use_lit:
            return self.draw(st.sampled_from(cands)) if cands else None
        dtype = self.draw(st.sampled_from(list(lit_dtypes)))
        lit = self.literal(dtype)
        for cand in (lit, _nudged(lit)):
            if ok(cand.aval, Interval.point(real_val(cand))):
                return cand
        return None

    def pick_like(self, aval: ShapedArray, ok: Callable[[Interval], bool]) -> Atom | None:
        """An operand of exactly type ``aval`` (a literal only for scalars)."""
        lits = [aval.dtype] if aval.shape == () else []
        return self.pick(lambda a, r: a == aval and ok(r), lits)

    def pick_partner(self, aval: ShapedArray, ok: Callable[[Interval], bool]) -> Atom | None:
        """The second operand of a binary elementwise primitive whose first
        has type ``aval``: of its type, or (1 in 2) a rank-0 operand of its
        dtype beside an array (a scalar variable or literal: ``mul a
        2.0:f32[]``), or an array beside a rank-0 ``aval`` (the scalar on the
        left); of its type where there is no such operand."""
        dtype, shape = aval.dtype, aval.shape
        if self.draw(st.booleans()):
            if shape:  # a scalar variable (half the time, if any) or literal
                scalars = [v for v in self.vars if v.aval.dtype == dtype and not v.aval.shape and ok(self.ranges[v])]
                take_var = self.draw(st.booleans())
                if scalars and take_var:
                    return self.draw(st.sampled_from(scalars))
                lit = self.literal(dtype)
                for cand in (lit, _nudged(lit)):
                    if ok(Interval.point(real_val(cand))):
                        return cand
            else:
                arrays = [v for v in self.vars if v.aval.dtype == dtype and v.aval.shape and ok(self.ranges[v])]
                if arrays:
                    return self.draw(st.sampled_from(arrays))
        return self.pick_like(aval, ok)


def _nudged(lit: Lit) -> Lit:
    """A second chance for a literal outside some operation's domain: |v| + 0.5."""
    v = lit.val
    if isinstance(v, bool):
        return Lit.of(not v)
    return Lit.of(abs(v) + (1 if isinstance(v, int) else 0.5), lit.aval.dtype)


def literal_values(dtype: DType) -> st.SearchStrategy[LitValue]:
    """Scalar literal values of ``dtype`` (small, and never subnormal)."""
    if dtype == bool_:
        return st.booleans()
    if dtype in INTEGER:
        return st.integers(0 if dtype.kind == "u" else -3, 3)  # uint32: threefry2x32's results
    if dtype == float32:
        return st.floats(-2.0, 2.0, width=32, allow_subnormal=False)
    return st.floats(-2.0, 2.0, allow_subnormal=False)


def is_float(d: DType) -> bool:
    return d in FLOATING


def always(r: Interval) -> bool:
    return True
