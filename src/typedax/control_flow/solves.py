"""Differentiable solves: JAX's ``linear_solve`` primitive with every rule,
``lax.custom_linear_solve`` on it, and ``lax.custom_root`` (JAX's
``jax/_src/lax/control_flow/solves.py``).

``linear_solve`` takes ``(matvec consts, vecmat consts, solve consts,
transpose_solve consts, b)`` and returns ``x = solve(b)``. Its params are
the four functions as jaxprs, each ``(its consts, vector) -> vector``
(``vecmat_jaxpr`` and ``transpose_solve_jaxpr`` are ``None`` when no
``transpose_solve`` was given), and ``const_lengths``, the four groups'
sizes. Evaluation, ``jit`` and lowering run ``solve_jaxpr``; the rules are
JAX's implicit differentiation:

* JVP: ``x_dot = solve(b_dot - matvec_dot(x))``, another ``linear_solve``
  (``matvec_dot`` the tangent of ``matvec`` in its consts), linear in its
  right-hand side -- so ``grad`` transposes it with the next rule;
* transpose (in ``b``): ``linear_solve`` with ``matvec``/``vecmat`` and
  ``solve``/``transpose_solve`` swapped, so reverse mode runs the user's
  ``transpose_solve`` (without one it is JAX's ``TypeError``);
* batching batches the four jaxprs, every vector batched along axis 0.

``custom_root(f, initial_guess, solve, tangent_solve)`` binds
``custom_jvp_call`` with the solution's rule: where ``f(m, u*(m)) = 0``,
``u*' = -(d_u f)^-1 d_m f``: the tangent of ``f``'s closed-over values at the
solution, through ``tangent_solve(linearized f, -)``, so ``grad`` of a
solution differentiates through ``tangent_solve`` only, never ``solve``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple, TypeVar, cast, overload

from pyrsistent import pmap

from .. import tree
from ..core.avals import ShapedArray
from ..core.errors import PrimitiveTypeError
from ..core.eval import eval_jaxpr
from ..core.ir import Eqn, Jaxpr, LazyJaxpr, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, as_value, aval_of, bind
from ..hlo import HloValue, LoweringContext, lower_jaxpr_body
from ..interpreters.jvp import has_tangent_dtype, jvp_flat
from ..interpreters.staging import trace_to_jaxpr_flat
from ..interpreters.transpose import transpose_jaxpr
from ..primitives._params import _get, get_ints, get_jaxpr
from ..primitives.elementwise import add_tangents, neg
from ..primitives.structural import instantiate_zeros, zeros_like_aval
from .common import batch_as, batch_jaxpr, check_jaxpr_in_types, eval_np, split, to_front, trace_callable, types_str
from .custom_calls import CustomJvpParams, custom_jvp_call_p

__all__ = ["FAMILY", "LinearSolveParams", "custom_linear_solve", "custom_root", "linear_solve_p"]

T = TypeVar("T")
A = TypeVar("A")

_NO_TRANSPOSE_SOLVE = "transpose_solve required for backwards mode automatic differentiation of custom_linear_solve"


class LinearSolveParams(NamedTuple):
    """``linear_solve``'s params, typed (``LinearSolveParams.of(eqn.params)``)."""

    matvec_jaxpr: Jaxpr
    vecmat_jaxpr: Jaxpr | None
    solve_jaxpr: Jaxpr
    transpose_solve_jaxpr: Jaxpr | None
    const_lengths: tuple[int, ...]

    @staticmethod
    def of(params: Params) -> LinearSolveParams:
        p = "linear_solve"

        def optional(key: str) -> Jaxpr | None:
            return None if _get(p, params, key) is None else get_jaxpr(p, params, key)

        lengths = get_ints(p, params, "const_lengths")
        if len(lengths) != 4 or any(n < 0 for n in lengths):
            raise PrimitiveTypeError(f"linear_solve: param 'const_lengths' must be 4 sizes, got {lengths}")
        return LinearSolveParams(
            get_jaxpr(p, params, "matvec_jaxpr"), optional("vecmat_jaxpr"), get_jaxpr(p, params, "solve_jaxpr"),
            optional("transpose_solve_jaxpr"), lengths,
        )

    def to_params(self) -> Params:
        return pmap(self._asdict())

    def transposed(self) -> LinearSolveParams:
        if self.vecmat_jaxpr is None or self.transpose_solve_jaxpr is None:
            raise TypeError(_NO_TRANSPOSE_SOLVE)
        mv, vm, s, ts = self.const_lengths
        return LinearSolveParams(self.vecmat_jaxpr, self.matvec_jaxpr, self.transpose_solve_jaxpr, self.solve_jaxpr, (vm, mv, ts, s))


def _groups(args: Sequence[T], lengths: Sequence[int]) -> tuple[list[T], list[T], list[T], list[T], list[T]]:
    mv, vm, s, ts, b = split(args, *lengths)
    return mv, vm, s, ts, b


def _abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    p = LinearSolveParams.of(params)
    if sum(p.const_lengths) > len(avals):
        raise PrimitiveTypeError(f"linear_solve: const_lengths={p.const_lengths} for {len(avals)} operands")
    mv, vm, s, ts, b = _groups(avals, p.const_lengths)
    vec = [a.weakened(False) for a in b]
    for name, jaxpr, consts in (("matvec_jaxpr", p.matvec_jaxpr, mv), ("vecmat_jaxpr", p.vecmat_jaxpr, vm),
                                ("solve_jaxpr", p.solve_jaxpr, s), ("transpose_solve_jaxpr", p.transpose_solve_jaxpr, ts)):
        if jaxpr is None:
            if consts:
                raise PrimitiveTypeError(f"linear_solve: {len(consts)} constants for the absent {name}")
            continue
        outs = check_jaxpr_in_types("linear_solve", name, jaxpr, [*consts, *jaxpr.in_avals[len(consts):]])
        if [o.weakened(False) for o in outs] != vec or [a.weakened(False) for a in jaxpr.in_avals[len(consts):]] != vec:
            raise PrimitiveTypeError(
                f"linear_solve: {name} maps {types_str(jaxpr.in_avals[len(consts):])} to {types_str(outs)}, "
                f"but b has types {types_str(b)}")
    return list(b)


def _impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    p = LinearSolveParams.of(params)
    _, _, s, _, b = _groups(args, p.const_lengths)
    return eval_np(p.solve_jaxpr, [*s, *b])


def _values(args: Sequence[Value], params: Params) -> list[Value]:
    p = LinearSolveParams.of(params)
    _, _, s, _, b = _groups(args, p.const_lengths)
    return eval_jaxpr(p.solve_jaxpr, [*s, *b])


def _jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    # A x = b, so A' x + A x' = b', and x' = A^-1 (b' - A' x)
    p = LinearSolveParams.of(params)
    x: list[Value] = list(bind(linear_solve_p, primals, params))
    mv, _, _, _, _ = _groups(primals, p.const_lengths)
    mv_dot, _, _, _, b_dot = _groups(tangents, p.const_lengths)
    rhs: list[Tangent] = list(b_dot)
    if any(not isinstance(t, Zero) for t in mv_dot):
        _, mv_t = jvp_flat(lambda cs: eval_jaxpr(p.matvec_jaxpr, [*cs, *x]), mv, mv_dot)
        rhs = [add_tangents(r, t if isinstance(t, Zero) else neg(t)) for r, t in zip(rhs, mv_t)]
    if all(isinstance(r, Zero) for r in rhs):
        return x, [Zero(aval_of(v).weakened(False)) for v in x]
    consts = primals[: sum(p.const_lengths)]
    x_dot = bind(linear_solve_p, [*consts, *(instantiate_zeros(r) for r in rhs)], params)
    return x, list(x_dot)


def _transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    p = LinearSolveParams.of(params)
    t = p.transposed()
    nc = sum(p.const_lengths)
    known: list[Value] = []
    for c in primals[:nc]:
        if isinstance(c, UndefPrimal):
            raise PrimitiveTypeError("linear_solve: transposed with respect to a constant of its functions")
        known.append(c)
    mv, vm, s, ts, _ = _groups(known, p.const_lengths)
    ct_b = bind(linear_solve_p, [*vm, *mv, *ts, *s, *cts], t.to_params())
    out: list[Value | None] = [None] * nc
    return out + [ct if isinstance(x, UndefPrimal) else None for ct, x in zip(ct_b, primals[nc:])]


def _batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    p = LinearSolveParams.of(params)
    nc = sum(p.const_lengths)
    consts = to_front(size, vals[:nc], dims[:nc])
    nb = len(vals) - nc
    b = batch_as(size, vals[nc:], dims[nc:], [True] * nb)
    c_b = [d is not None for d in dims[:nc]]
    groups = _groups(c_b, p.const_lengths)

    def batched(jaxpr: Jaxpr | None, flags: list[bool]) -> Jaxpr | None:
        if jaxpr is None:
            return None
        return batch_jaxpr(jaxpr, size, [0 if f else None for f in [*flags, *[True] * nb]], [True] * nb)

    q = LinearSolveParams(
        cast(Jaxpr, batched(p.matvec_jaxpr, groups[0])), batched(p.vecmat_jaxpr, groups[1]),
        cast(Jaxpr, batched(p.solve_jaxpr, groups[2])), batched(p.transpose_solve_jaxpr, groups[3]), p.const_lengths,
    )
    return list(bind(linear_solve_p, [*consts, *b], q.to_params())), [0] * nb


def _lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
    p = LinearSolveParams.of(eqn.params)
    _, _, s, _, b = _groups(args, p.const_lengths)
    return lower_jaxpr_body(ctx, p.solve_jaxpr, [*s, *b])


linear_solve_p = Primitive(
    "linear_solve", _impl, _abstract,
    Rules(jvp=_jvp, transpose=_transpose, batch=_batch, lower=_lower, eval_values=_values),
)

FAMILY = Family("solves", (linear_solve_p,))


# -- the lax functions ----------------------------------------------------------------
def _fn_of(jaxpr: Jaxpr, consts: Sequence[Value], treedef: tree.TreeDef) -> Callable[[object], object]:
    """A staged linear map as a Python function on pytrees of ``treedef``."""

    def fn(v: object) -> object:
        leaves, t = tree.flatten(v)
        if t != treedef:
            raise TypeError(f"expected a pytree of structure {treedef}, got {t}")
        return tree.unflatten(treedef, eval_jaxpr(jaxpr, [*consts, *(as_value(x) for x in leaves)]))

    return fn


def _check_tree(what: str, expected: str, got: tree.TreeDef, want: tree.TreeDef,
                got_avals: Sequence[ShapedArray], want_avals: Sequence[ShapedArray]) -> None:
    if got != want:
        raise TypeError(f"{what} output pytree structure must match {expected}, got {got} and {want}.")
    if [a.weakened(False) for a in got_avals] != [a.weakened(False) for a in want_avals]:
        raise TypeError(
            f"{what} output shapes and dtypes must match {expected}, got {types_str(got_avals)} and {types_str(want_avals)}.")


def custom_linear_solve(
    matvec: Callable[[T], T], b: T, solve: Callable[[Callable[[T], T], T], T],
    transpose_solve: Callable[[Callable[[T], T], T], T] | None = None,
    symmetric: bool = False, has_aux: bool = False,
) -> T:
    """``x = solve(matvec, b)`` with implicit derivatives (``jax.lax.custom_linear_solve``):
    differentiating ``x`` never differentiates through ``solve``; forward mode
    solves again with ``solve``, reverse mode with ``transpose_solve`` (and
    the transpose of ``matvec``; ``symmetric=True`` uses ``matvec`` itself).
    ``b`` is a pytree of arrays, ``matvec`` a linear function of pytrees
    like ``b``."""
    if has_aux:
        raise NotImplementedError("custom_linear_solve: has_aux=True is not supported by typedax yet")
    if transpose_solve is None and symmetric:
        transpose_solve = solve  # JAX's default: a symmetric map's transpose solves the same system
    leaves, b_tree = tree.flatten(b)
    bs = [as_value(x, "custom_linear_solve's b") for x in leaves]
    avals = [aval_of(x) for x in bs]
    args_tree = tree.flatten((b,))[1]
    mv, mv_tree = trace_callable(matvec, args_tree, avals, "matvec")
    _check_tree("matvec()", "b", mv_tree, b_tree, mv.jaxpr.out_avals, avals)
    mv_consts = [as_value(c) for c in mv.consts]

    def user_solve(fn: Callable[[Callable[[T], T], T], T], lin: Callable[[T], T]) -> Callable[[T], T]:
        return lambda v: fn(lin, v)

    s, s_tree = trace_callable(user_solve(solve, matvec), args_tree, avals, "solve")
    _check_tree("solve()", "b", s_tree, b_tree, s.jaxpr.out_avals, avals)
    vm_jaxpr: Jaxpr | None = None
    ts_jaxpr: Jaxpr | None = None
    vm_consts: list[Value] = []
    ts_consts: list[Value] = []
    if transpose_solve is not None:
        if symmetric:
            vm_jaxpr, vm_consts = mv.jaxpr, mv_consts
        else:
            nc = len(mv_consts)
            vm_jaxpr = transpose_jaxpr(mv.jaxpr, [False] * nc + [True] * len(bs))
            vm_consts = mv_consts
        vecmat = cast(Callable[[T], T], _fn_of(vm_jaxpr, vm_consts, b_tree))
        ts, ts_tree = trace_callable(user_solve(transpose_solve, vecmat), args_tree, avals, "transpose_solve")
        _check_tree("transpose_solve()", "b", ts_tree, b_tree, ts.jaxpr.out_avals, avals)
        ts_jaxpr, ts_consts = ts.jaxpr, [as_value(c) for c in ts.consts]
    s_consts = [as_value(c) for c in s.consts]
    lengths = (len(mv_consts), len(vm_consts), len(s_consts), len(ts_consts))
    params = LinearSolveParams(mv.jaxpr, vm_jaxpr, s.jaxpr, ts_jaxpr, lengths).to_params()
    out = bind(linear_solve_p, [*mv_consts, *vm_consts, *s_consts, *ts_consts, *bs], params)
    return cast(T, tree.unflatten(b_tree, out))


@overload
def custom_root(
    f: Callable[[T], T], initial_guess: T, solve: Callable[[Callable[[T], T], T], T],
    tangent_solve: Callable[[Callable[[T], T], T], T], has_aux: Literal[False] = False,
) -> T: ...


@overload
def custom_root(
    f: Callable[[T], T], initial_guess: T, solve: Callable[[Callable[[T], T], T], tuple[T, A]],
    tangent_solve: Callable[[Callable[[T], T], T], T], has_aux: Literal[True],
) -> tuple[T, A]: ...


def custom_root(
    f: Callable[[T], T], initial_guess: T, solve: Callable[[Callable[[T], T], T], object],
    tangent_solve: Callable[[Callable[[T], T], T], T], has_aux: bool = False,
) -> object:
    """A root of ``f`` found by ``solve(f, initial_guess)``, differentiated
    implicitly (``jax.lax.custom_root``): the derivative of the solution with
    respect to the values ``f`` closes over comes from ``tangent_solve(g, y)``,
    which solves ``g(x) = y`` for the linear ``g`` (``f`` linearized at the
    solution); ``solve`` itself is never differentiated. With ``has_aux``,
    ``solve`` returns ``(solution, aux)`` and so does ``custom_root`` (``aux``
    has zero derivatives)."""
    leaves, in_tree = tree.flatten(initial_guess)
    guess = [as_value(x, "custom_root's initial_guess") for x in leaves]
    avals = [aval_of(x) for x in guess]
    args_tree = tree.flatten((initial_guess,))[1]
    f_c, f_tree = trace_callable(f, args_tree, avals, "f")
    _check_tree("f", "initial_guess", f_tree, in_tree, f_c.jaxpr.out_avals, avals)
    sol_trees: list[tree.TreeDef] = []

    def run_solve(x: T) -> object:
        out = solve(f, x)
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(f"solve with has_aux=True must return a pair (solution, aux), got {type(out).__name__}")
            sol_trees.append(tree.flatten(out[0])[1])
        else:
            sol_trees.append(tree.flatten(out)[1])
        return out

    s_c, s_tree = trace_callable(run_solve, args_tree, avals, "solve")
    n_sol = len(avals)
    _check_tree("solve", "initial_guess", sol_trees[0], in_tree, s_c.jaxpr.out_avals[:n_sol], avals)

    def linearize_and_solve(x: T, rhs: T) -> T:
        x_leaves = [as_value(v) for v in tree.flatten(x)[0]]

        def f_jvp(t: T) -> T:
            t_leaves, t_tree = tree.flatten(t)
            if t_tree != in_tree:
                raise TypeError(f"tangent_solve: the linearized f takes a pytree of structure {in_tree}, got {t_tree}")
            def f_flat(xs: list[Value]) -> list[Value]:
                return [as_value(o) for o in tree.flatten(f(cast(T, tree.unflatten(in_tree, xs))))[0]]

            _, out = jvp_flat(f_flat, x_leaves, [as_value(v) for v in t_leaves])
            return cast(T, tree.unflatten(in_tree, [instantiate_zeros(o) for o in out]))

        return tangent_solve(f_jvp, rhs)

    ls_c, ls_tree = trace_callable(linearize_and_solve, tree.flatten((initial_guess, initial_guess))[1],
                                   avals * 2, "tangent_solve")
    _check_tree("tangent_solve", "x", ls_tree, in_tree, ls_c.jaxpr.out_avals, avals)
    groups = [[as_value(c) for c in cl.consts] for cl in (f_c, s_c, ls_c)]
    nf, ns, nl = (len(g) for g in groups)
    operands = [*groups[0], *groups[1], *groups[2], *guess]
    op_avals = [aval_of(v) for v in operands]
    n = len(operands)

    def call(xs: list[Value]) -> list[Value]:
        _, sc, _, g = split(xs, nf, ns, nl)
        return eval_jaxpr(s_c.jaxpr, [*sc, *g])

    def rule(xs: list[Value]) -> list[Value]:
        args, dots = xs[:n], xs[n:]
        fc, _, lc, _ = split(args, nf, ns, nl)
        outs = call(args)
        sol, aux = outs[:n_sol], outs[n_sol:]
        fc_dot: list[Tangent] = [d if has_tangent_dtype(aval_of(c)) else Zero(aval_of(c)) for c, d in zip(fc, dots[:nf])]
        # f(m, u*(m)) = 0, so d_m f + d_u f u*' = 0: u*' = -(d_u f)^-1 d_m f
        _, rhs = jvp_flat(lambda cs: eval_jaxpr(f_c.jaxpr, [*cs, *sol]), fc, fc_dot)
        sol_dot = eval_jaxpr(ls_c.jaxpr, [*lc, *sol, *(instantiate_zeros(r) for r in rhs)])
        return [*sol, *aux, *(neg(d) for d in sol_dot), *(zeros_like_aval(aval_of(a)) for a in aux)]

    call_jaxpr = trace_to_jaxpr_flat(call, op_avals, "custom_root").jaxpr
    # the rule is traced when the call is differentiated (a LazyJaxpr, as custom_jvp's)
    jvp_jaxpr = LazyJaxpr(lambda: trace_to_jaxpr_flat(rule, op_avals * 2, "custom_root_jvp"))
    params = CustomJvpParams(call_jaxpr, jvp_jaxpr, 0, "custom_root").to_params()
    out = bind(custom_jvp_call_p, operands, params)
    return tree.unflatten(s_tree, out)
