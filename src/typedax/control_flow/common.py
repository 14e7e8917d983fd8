"""What the control-flow primitives share: tracing a user function to a
jaxpr, checking operand types, splitting and permuting binders, the
fixpoint of loop carries, and the pieces their rules build from (the JVP of
a body with symbolic zeros, batching a body, unzipping residuals, lowering a
body into a region)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from pyrsistent import pmap

from .. import tree
from ..core.avals import ShapedArray
from ..core.dtypes import int32, is_inexact
from ..core.errors import PrimitiveTypeError
from ..core.eval import eval_jaxpr
from ..core.ir import Atom, ClosedJaxpr, Eqn, Jaxpr, Lit, NDArray, NO_PARAMS, Params, Var
from ..core.names import fun_name
from ..core.promotion import dtype_of_node, join, node_of_dtype, weak_node
from ..core.rules import BatchDim, Tangent, Zero, batched_aval
from ..core.trace import as_value as as_value
from ..core.trace import EVAL_TRACE, Value, aval_of, bind, bind1, using_trace
from ..core.typecheck import typecheck_jaxpr
from ..hlo import HloValue, LoweringContext, lower_jaxpr_body
from ..interpreters.batching import vmap_flat
from ..interpreters.jvp import jvp_flat
from ..interpreters.staging import trace_to_jaxpr_flat
from ..primitives import broadcast_p, select_n_p
from ..primitives.elementwise import convert
from ..primitives.structural import instantiate_zeros, move_batch_axis, zeros_like_aval as zeros


T = TypeVar("T")


def types_str(avals: Sequence[ShapedArray]) -> str:
    return "(" + ", ".join(a.str_short() for a in avals) + ")"


def trace_callable(
    f: Callable[..., object],
    args_tree: tree.TreeDef,
    avals: Sequence[ShapedArray],
    what: str,
) -> tuple[ClosedJaxpr, tree.TreeDef]:
    """Stage ``f(*args)`` where the args tuple has structure ``args_tree`` and
    leaves of types ``avals``; returns the jaxpr and the output structure."""
    out_trees: list[tree.TreeDef] = []

    def run(leaves: list[Value]) -> list[Value]:
        args = tree.unflatten(args_tree, leaves)
        assert isinstance(args, tuple)
        out = f(*args)
        flat, out_tree = tree.flatten(out)
        out_trees.append(out_tree)
        return [as_value(x, f"the outputs of {what}") for x in flat]

    closed = trace_to_jaxpr_flat(run, avals, fun_name(f))
    return closed, out_trees[0]


def fresh_vars(avals: Sequence[ShapedArray]) -> tuple[Var, ...]:
    return tuple(Var(a) for a in avals)


def join_consts(jaxprs: Sequence[Jaxpr], nconsts: Sequence[int]) -> list[Jaxpr]:
    """Give every jaxpr the constant binders of all of them, in order.

    Jaxpr ``i`` takes ``nconsts[i]`` leading constants; afterwards each takes
    the constants of jaxpr 0, then of jaxpr 1, ..., then its own other inputs
    (the constants of the others are unused binders).
    """
    out: list[Jaxpr] = []
    for i, j in enumerate(jaxprs):
        binders: list[Var] = []
        for k, other in enumerate(jaxprs):
            if k == i:
                binders.extend(j.in_binders[: nconsts[i]])
            else:
                binders.extend(fresh_vars(other.in_avals[: nconsts[k]]))
        out.append(Jaxpr(tuple(binders) + j.in_binders[nconsts[i] :], j.eqns, j.outs))
    return out


def eval_np(jaxpr: Jaxpr, args: Sequence[NDArray]) -> list[NDArray]:
    """Evaluate a param jaxpr with NumPy (the impl rules use this); literals
    keep their dtypes (a ``2.0:float32`` literal stays float32)."""
    env: dict[Var, Value] = dict(zip(jaxpr.in_binders, args))

    def read(a: Atom) -> Value:
        return np.asarray(a.val, a.aval.dtype) if isinstance(a, Lit) else env[a]

    with using_trace(EVAL_TRACE):
        for eqn in jaxpr.eqns:
            outs = bind(eqn.primitive, [read(a) for a in eqn.inputs], eqn.params)
            env.update(zip(eqn.out_binders, outs))
    return [np.asarray(read(o), dtype=o.aval.dtype) for o in jaxpr.outs]


def check_jaxpr_in_types(
    prim: str, name: str, jaxpr: Jaxpr, in_types: Sequence[ShapedArray]
) -> tuple[ShapedArray, ...]:
    """Typecheck a param jaxpr against its operand types; its output types."""
    t = typecheck_jaxpr(jaxpr)
    if t.in_types != tuple(in_types):
        raise PrimitiveTypeError(
            f"{prim}: {name} takes {types_str(t.in_types)} but is applied to "
            f"{types_str(in_types)}"
        )
    return t.out_types


def split(xs: Sequence[T], *sizes: int) -> list[list[T]]:
    """Split ``xs`` into consecutive pieces of ``sizes`` and the rest."""
    out: list[list[T]] = []
    i = 0
    for n in sizes:
        out.append(list(xs[i : i + n]))
        i += n
    out.append(list(xs[i:]))
    return out


def forward_deps(jaxpr: Jaxpr, in_flags: Sequence[bool]) -> list[bool]:
    """Which outputs depend on an input whose flag is set. A first-order
    equation's outputs depend on all of its inputs; a higher-order one's are
    read from its partial-evaluation rule (a loop whose primal carry values
    are known while their tangents are not stays known where it should --
    with every output marked, grad through a while_loop nesting another
    loop failed as if a primal depended on a tangent)."""
    marked: set[Var] = {v for v, f in zip(jaxpr.in_binders, in_flags) if f}
    for eqn in jaxpr.eqns:
        flags = [isinstance(a, Var) and a in marked for a in eqn.inputs]
        if not any(flags):
            continue
        rule = eqn.primitive.rules.partial_eval
        if rule is None:
            marked.update(eqn.out_binders)
        else:
            outs = rule(flags, eqn)[2]
            marked.update(v for v, u in zip(eqn.out_binders, outs) if u)
    return [isinstance(a, Var) and a in marked for a in jaxpr.outs]


def carry_fixpoint(
    step: Callable[[list[bool]], list[bool]], init: Sequence[bool]
) -> list[bool]:
    """The least ``flags >= init`` with ``step(flags) <= flags`` (elementwise):
    which loop-carried values become nonzero / batched / unknown."""
    flags = list(init)
    while True:
        out = step(flags)
        new = [a or b for a, b in zip(flags, out)]
        if new == flags:
            return flags
        flags = new


def permute_binders(jaxpr: Jaxpr, order: Sequence[int]) -> Jaxpr:
    """The same jaxpr taking its inputs in a new order: input ``k`` of the
    result is input ``order[k]`` of ``jaxpr``."""
    return Jaxpr(tuple(jaxpr.in_binders[i] for i in order), jaxpr.eqns, jaxpr.outs)


def consts_first(order: Sequence[int], n_consts: int) -> list[int]:
    """``order`` (a ``permute_binders`` order of a jaxpr's inputs after its
    ``n_consts`` leading constants) with the constants kept first."""
    return [*range(n_consts), *(n_consts + i for i in order)]


def permute_outs(jaxpr: Jaxpr, order: Sequence[int]) -> Jaxpr:
    return Jaxpr(jaxpr.in_binders, jaxpr.eqns, tuple(jaxpr.outs[i] for i in order))


def add_unused_binders(jaxpr: Jaxpr, at: int, avals: Sequence[ShapedArray]) -> Jaxpr:
    """``jaxpr`` with binders of ``avals`` it ignores inserted at position ``at``."""
    b = jaxpr.in_binders
    return Jaxpr(b[:at] + fresh_vars(avals) + b[at:], jaxpr.eqns, jaxpr.outs)


def jvp_jaxpr_nz(
    jaxpr: Jaxpr, nonzeros: Sequence[bool], instantiate: Sequence[bool]
) -> tuple[Jaxpr, list[bool], list[Value]]:
    """The JVP of ``jaxpr`` where only inputs flagged in ``nonzeros`` carry
    tangents. The result takes the constants its rules staged (third
    result: arrays a JVP rule builds, such as a triangular mask, or a
    custom rule's captured values; as JAX's ``jvp_jaxpr`` gives a closed
    jaxpr), then all primals, then the tangents of the flagged inputs; it
    returns all primal outputs, then the tangents of the outputs whose
    tangent is nonzero or flagged in ``instantiate`` (second result). The
    caller passes the constants as operands."""
    n = len(jaxpr.in_binders)
    nz = [f and is_inexact(a.dtype) for f, a in zip(nonzeros, jaxpr.in_avals)]
    inst = [f and is_inexact(a.dtype) for f, a in zip(instantiate, jaxpr.out_avals)]
    out_nz: list[bool] = []

    def run(args: list[Value]) -> list[Value]:
        it = iter(args[n:])
        tangents: list[Tangent] = [
            next(it) if f else Zero(a) for f, a in zip(nz, jaxpr.in_avals)
        ]
        p_out, t_out = jvp_flat(lambda xs: eval_jaxpr(jaxpr, xs), args[:n], tangents)
        out_nz.clear()
        dots: list[Value] = []
        for t, i in zip(t_out, inst):
            keep = i or not isinstance(t, Zero)
            out_nz.append(keep)
            if keep:
                dots.append(instantiate_zeros(t))
        return [*p_out, *dots]

    dot_avals = [a for f, a in zip(nz, jaxpr.in_avals) if f]
    closed = trace_to_jaxpr_flat(run, [*jaxpr.in_avals, *dot_avals], "jvp")
    return closed.jaxpr, out_nz, [as_value(c, "constants") for c in closed.consts]


def nonzero(t: Tangent) -> bool:
    return not isinstance(t, Zero)


def tangents_out(
    outs: Sequence[Value], n: int, out_nz: Sequence[bool], avals: Sequence[ShapedArray]
) -> tuple[list[Value], list[Tangent]]:
    it = iter(outs[n:])
    return list(outs[:n]), [next(it) if z else Zero(a) for z, a in zip(out_nz, avals)]


def loop_jvp_jaxpr(
    body: Jaxpr, pre_nz: Sequence[bool], carry_nz0: Sequence[bool], post_nz: Sequence[bool],
    n_extra_outs: int,
) -> tuple[Jaxpr, list[bool], list[bool], list[Value]]:
    """JVP of a loop body taking (pre, carry, post) and returning (carry,
    extra), at the fixpoint of the carry's nonzero tangents. Returns the
    jaxpr, the carry's flags, the flags of the extra outputs and the
    constants the jaxpr takes first (``jvp_jaxpr_nz``)."""
    cache: dict[tuple[bool, ...], tuple[Jaxpr, list[bool], list[Value]]] = {}
    nc = len(carry_nz0)

    def jvp_at(flags: list[bool]) -> tuple[Jaxpr, list[bool], list[Value]]:
        key = tuple(flags)
        if key not in cache:
            cache[key] = jvp_jaxpr_nz(
                body, [*pre_nz, *flags, *post_nz], [*flags, *[False] * n_extra_outs]
            )
        return cache[key]

    carry_nz = carry_fixpoint(lambda f: jvp_at(f)[1][:nc], carry_nz0)
    jaxpr, out_nz, consts = jvp_at(carry_nz)
    return jaxpr, carry_nz, out_nz[nc:], consts


def regroup(sizes: Sequence[int], dot_sizes: Sequence[int]) -> list[int]:
    """Binder order taking groups (a, b, c, a_dot, b_dot, c_dot) to
    (a, a_dot, b, b_dot, c, c_dot)."""
    starts, i = [], 0
    for s in (*sizes, *dot_sizes):
        starts.append(i)
        i += s
    k = len(sizes)
    order: list[int] = []
    for g in range(k):
        order.extend(range(starts[g], starts[g] + sizes[g]))
        order.extend(range(starts[k + g], starts[k + g] + dot_sizes[g]))
    return order


def batch_jaxpr(
    jaxpr: Jaxpr, size: int, in_dims: Sequence[BatchDim], out_batched: Sequence[bool]
) -> Jaxpr:
    """``jaxpr`` batched: input ``i`` batched along ``in_dims[i]`` (None:
    not batched); output ``j`` batched along axis 0 where ``out_batched[j]``,
    else unbatched (it must not depend on a batched input)."""
    avals = [batched_aval(a, size, d) for a, d in zip(jaxpr.in_avals, in_dims)]
    out_dims: list[BatchDim] = [0 if b else None for b in out_batched]
    closed = trace_to_jaxpr_flat(
        lambda xs: vmap_flat(lambda ys: eval_jaxpr(jaxpr, ys), size, in_dims, xs, out_dims),
        avals,
        "vmap",
    )
    if closed.consts:
        raise AssertionError("batching a control-flow body staged array constants")
    return closed.jaxpr


def to_front(size: int, xs: Sequence[Value], dims: Sequence[BatchDim]) -> list[Value]:
    return [x if d is None else move_batch_axis(size, d, 0, x) for x, d in zip(xs, dims)]


def batch_as(size: int, xs: Sequence[Value], dims: Sequence[BatchDim],
              want: Sequence[bool]) -> list[Value]:
    """Batched along axis 0 where ``want`` (broadcast if needed), else as is."""
    return [move_batch_axis(size, d, 0, x) if w else x for x, d, w in zip(xs, dims, want)]


def dims0(flags: Sequence[bool]) -> list[BatchDim]:
    return [0 if f else None for f in flags]


def select_batched(pred: Value, on_false: Value, on_true: Value) -> Value:
    """Per example (axis 0 of ``pred``): ``on_true`` where ``pred`` else ``on_false``."""
    shape = aval_of(on_true).shape
    if len(shape) > 1:
        params: Params = pmap({"shape": shape, "axes": tuple(range(1, len(shape)))})
        pred = bind1(broadcast_p, (pred,), params)
    return bind1(select_n_p, (pred, on_false, on_true), NO_PARAMS)


PeResult = tuple["Eqn | None", "Eqn | None", list[bool], list[Var]]


def known_vars(atoms: Sequence[Atom], unknown: Sequence[bool]) -> list[Var]:
    out: dict[Var, None] = {}
    for a, u in zip(atoms, unknown):
        if not u and isinstance(a, Var):
            out[a] = None
    return list(out)


def stage_all(unks_in: Sequence[bool], eqn: Eqn) -> PeResult:
    """The whole equation is unknown; its known operands are residuals."""
    return None, eqn, [True] * len(eqn.out_binders), known_vars(eqn.inputs, unks_in)


def zeros_eqns(avals: Sequence[ShapedArray]) -> tuple[list[Eqn], list[Atom]]:
    """Equations making zeros of each type (scalars are literals)."""
    eqns: list[Eqn] = []
    atoms: list[Atom] = []
    for a in avals:
        z = Lit.of(0, a.dtype)
        if not a.shape:
            atoms.append(z)
            continue
        v = Var(a)
        params: Params = pmap({"shape": a.shape, "axes": tuple(range(a.ndim))})
        eqns.append(Eqn(broadcast_p, (z,), params, (v,)))
        atoms.append(v)
    return eqns, atoms


def with_outs(jaxpr: Jaxpr, n_keep: int, before: Sequence[ShapedArray],
               after: Sequence[ShapedArray]) -> Jaxpr:
    """``jaxpr``'s first ``n_keep`` outputs, zeros of ``before``, its other
    outputs, zeros of ``after``."""
    e1, z1 = zeros_eqns(before)
    e2, z2 = zeros_eqns(after)
    outs = (*jaxpr.outs[:n_keep], *z1, *jaxpr.outs[n_keep:], *z2)
    return Jaxpr(jaxpr.in_binders, (*jaxpr.eqns, *e1, *e2), outs)


I32 = ShapedArray((), int32)


def region_body(
    ctx: LoweringContext, region: ir.Region, jaxpr: Jaxpr, args: Sequence[HloValue]
) -> None:
    """Fill ``region`` (no block arguments) with ``jaxpr`` applied to ``args``."""
    block = region.blocks.append()
    with ir.InsertionPoint(block):
        hlo.return_(lower_jaxpr_body(ctx, jaxpr, args))


def loop(
    state: Sequence[HloValue],
    types: Sequence[ir.Type],
) -> tuple[hlo.WhileOp, ir.Block, ir.Block]:
    op = hlo.WhileOp(list(types), list(state))
    cond_block = op.cond.blocks.append(*types)
    body_block = op.body.blocks.append(*types)
    return op, cond_block, body_block


def promote_weak_carry(vals: list[Value], avals: list[ShapedArray], out_avals: Sequence[ShapedArray]) -> bool:
    """JAX's rule for a loop whose initial carry holds a weakly typed value
    (``0.0``) that the body turns into a strong one of another dtype (``c +
    x_f32``): that initial value takes the dtype promotion gives the two
    (float32 there), and the caller traces the body again. Changes ``vals``
    and ``avals`` in place; whether it changed any."""
    changed = False
    if len(out_avals) != len(avals):
        return False  # a structure mismatch: the caller's error says so
    for i, (a, o) in enumerate(zip(avals, out_avals)):
        if a.weak_type and a.shape == o.shape and a.dtype != o.dtype:
            new = dtype_of_node(join(weak_node(a), weak_node(o) if o.weak_type else node_of_dtype(o.dtype)))
            if new != a.dtype:
                vals[i] = convert(vals[i], new)  # strong, as JAX's
                avals[i] = aval_of(vals[i])
                changed = True
    return changed


def carry_mismatch(prim: str, fun: str, init: tree.TreeDef, init_t: Sequence[ShapedArray],
                    out: tree.TreeDef, out_t: Sequence[ShapedArray]) -> PrimitiveTypeError:
    return PrimitiveTypeError(
        f"{prim}: {fun} must return a carry of the same structure and types as its "
        f"input: the carry is {init} of types {types_str(init_t)}, but {fun} returns "
        f"{out} of types {types_str(out_t)}. Cast inside {fun} (for example with "
        "x.astype) to keep the carry's dtype, and keep its shape fixed."
    )
