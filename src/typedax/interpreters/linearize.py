"""Linearization: JVP under partial evaluation. The primal computation runs
now, in Python (so control flow on primal values works); the tangent
computation, which is linear in the input tangents, is staged into a jaxpr.
Transposing that jaxpr gives reverse mode (``vjp_flat``).

Also the pure face, ``linearize_jaxpr``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.avals import ShapedArray
from ..core.errors import JaxprTypeError, TypedaxError
from ..core.eval import eval_jaxpr
from ..core.ir import Jaxpr
from ..core.trace import Value, aval_of
from .jvp import Tangent, Zero, has_tangent_dtype, jvp_flat, jvp_jaxpr, zeros_like_aval
from .partial_eval import PartialVal, partial_eval_flat, partial_eval_jaxpr
from .transpose import UndefPrimal, backward_pass


@dataclass(frozen=True, slots=True)
class LinearFn:
    """The linear part of a function at a point, as a jaxpr.

    ``jaxpr`` takes ``consts`` then the tangents of the inputs marked in
    ``in_mask`` (the floating-point ones) and returns the output tangents
    that depend on them; ``out_tangents`` lists every output tangent: ``None``
    where the jaxpr computes it (in order), else its value (a ``Zero`` or a
    known value that does not depend on the inputs).
    """

    jaxpr: Jaxpr
    consts: tuple[Value, ...]
    in_avals: tuple[ShapedArray, ...]
    in_mask: tuple[bool, ...]
    out_tangents: tuple[Tangent | None, ...]

    def __call__(self, tangents: Sequence[Value]) -> list[Value]:
        """Output tangents for input tangents (all of them, in order)."""
        if len(tangents) != len(self.in_avals):
            raise TypedaxError(
                f"the linearized function takes {len(self.in_avals)} tangents, got {len(tangents)}"
            )
        for i, (t, a) in enumerate(zip(tangents, self.in_avals)):
            ta = aval_of(t)
            if ta.shape != a.shape or (type(t) not in (float, int, bool) and ta.dtype != a.dtype):
                raise TypedaxError(
                    f"tangent {i} has type {ta.str_short()}, expected {a.str_short()}"
                )
        ins = [
            np.asarray(t, a.dtype) if type(t) in (float, int, bool) else t
            for t, a, m in zip(tangents, self.in_avals, self.in_mask)
            if m
        ]
        outs = iter(eval_jaxpr(self.jaxpr, [*self.consts, *ins]))
        return [
            next(outs) if o is None else zeros_like_aval(o.aval) if isinstance(o, Zero) else o
            for o in self.out_tangents
        ]

    def transpose(self, cts: Sequence[Value | None]) -> list[Value]:
        """Input cotangents (zeros for the non-float inputs) for output
        cotangents (``None`` meaning zero)."""
        if len(cts) != len(self.out_tangents):
            raise TypedaxError(
                f"expected {len(self.out_tangents)} output cotangents, got {len(cts)}"
            )
        lin_cts = [ct for ct, o in zip(cts, self.out_tangents) if o is None]
        args = [*self.consts, *(UndefPrimal(a) for a, m in zip(self.in_avals, self.in_mask) if m)]
        res = iter(backward_pass(self.jaxpr, args, lin_cts))
        out: list[Value] = []
        for a, m in zip(self.in_avals, self.in_mask):
            r = next(res) if m else None
            out.append(zeros_like_aval(a) if r is None else r)
        return out


def linearize_flat(
    fun: Callable[[list[Value]], Sequence[Value]], primals: Sequence[Value]
) -> tuple[list[Value], LinearFn]:
    """``fun``'s outputs at ``primals`` and its linear part there."""
    n = len(primals)
    in_avals = tuple(aval_of(p) for p in primals)
    in_mask = tuple(has_tangent_dtype(a) for a in in_avals)
    pvals = [PartialVal.known(p) for p in primals] + [
        PartialVal.unknown(a) for a, m in zip(in_avals, in_mask) if m
    ]
    kinds: list[Tangent | None] = []  # per output tangent: Zero, or None if returned

    def f_jvp(args: list[Value]) -> list[Value]:
        it = iter(args[n:])
        tangents: list[Tangent] = [next(it) if m else Zero(a) for a, m in zip(in_avals, in_mask)]
        p_out, t_out = jvp_flat(fun, args[:n], tangents)
        returned: list[Value] = []
        for t in t_out:
            if isinstance(t, Zero):
                kinds.append(t)
            else:
                kinds.append(None)
                returned.append(t)
        return [*p_out, *returned]

    jaxpr, pvals_out, consts = partial_eval_flat(f_jvp, pvals)
    n_out = len(kinds)
    primals_out: list[Value] = []
    for pv in pvals_out[:n_out]:
        if pv.const is None:
            raise JaxprTypeError("linearize: a primal output depends on the tangents")
        primals_out.append(pv.const)
    it = iter(pvals_out[n_out:])
    out_tangents: list[Tangent | None] = []
    for k in kinds:
        if k is not None:
            out_tangents.append(k)
            continue
        pv = next(it)
        out_tangents.append(pv.const)  # None when unknown (computed by the jaxpr)
    lin = LinearFn(jaxpr, tuple(consts), in_avals, in_mask, tuple(out_tangents))
    return primals_out, lin


def vjp_flat(
    fun: Callable[[list[Value]], Sequence[Value]], primals: Sequence[Value]
) -> tuple[list[Value], Callable[[Sequence[Value | None]], list[Value]]]:
    """``fun``'s outputs at ``primals`` and its transposed linear part: a
    function from output cotangents to input cotangents."""
    out, lin = linearize_flat(fun, primals)
    return out, lin.transpose


def linearize_jaxpr(jaxpr: Jaxpr) -> tuple[Jaxpr, Jaxpr, int]:
    """Split ``jaxpr : (x...) -> (y...)`` into its primal and linear parts.

    Returns ``(jaxpr_primal, jaxpr_linear, num_residuals)``:

    * ``jaxpr_primal : (x...) -> (y..., r...)`` computes the outputs and
      ``num_residuals`` residuals;
    * ``jaxpr_linear : (r..., dx...) -> (dy...)`` maps one tangent per input
      (all inputs; tangents of integer inputs are ignored) to one tangent per
      output, and is linear in the ``dx``.

    Evaluating the linear jaxpr on the primal jaxpr's residuals gives the
    JVP: ``jvp_jaxpr(jaxpr)`` unzipped by ``partial_eval_jaxpr``.
    """
    n, n_out = len(jaxpr.in_binders), len(jaxpr.outs)
    jvp = jvp_jaxpr(jaxpr)
    j1, j2, out_unknowns, num_res = partial_eval_jaxpr(
        jvp, [False] * n + [True] * n, instantiate=[False] * n_out + [True] * n_out
    )
    if any(out_unknowns[:n_out]):
        raise JaxprTypeError("linearize_jaxpr: a primal output depends on the tangents")
    return j1, j2, num_res


__all__ = ["LinearFn", "linearize_flat", "linearize_jaxpr", "vjp_flat"]
