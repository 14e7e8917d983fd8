"""Loops: ``while_loop``, ``scan`` and ``fori_loop``.

``while`` takes the constants of ``cond_jaxpr``, the constants of
``body_jaxpr`` and the carry; ``cond_jaxpr`` maps (constants, carry) to a
``bool[]`` and ``body_jaxpr`` maps (constants, carry) to a carry of the same
types.

``scan`` takes ``num_consts`` constants, ``num_carry`` carry values and the
stacked inputs ``xs`` (each with leading axis ``length``); its ``jaxpr`` maps
(constants, carry, one slice of xs) to (carry, one slice of ys), and the
primitive returns the final carry and the stacked ``ys``, visiting indices
``length-1 ... 0`` when ``reverse`` is true.

``fori_loop`` is written with ``scan`` when its bounds are static Python
integers (so it can be differentiated in reverse mode) and with
``while_loop`` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
from pyrsistent import pmap

from .. import tree
from ..core.avals import ShapedArray
from ..core.dtypes import is_int
from ..core.errors import PrimitiveTypeError
from ..core.ir import NO_PARAMS, Jaxpr, NDArray, Params, Primitive
from ..core.rules import PRIMITIVES
from ..core.trace import Tracer, Value, aval_of, bind, bind1
from ..primitives import add_p, less_p
from ..primitives._params import get_bool, get_int, get_jaxpr
from .common import as_value, check_jaxpr_in_types, eval_np, split, trace_callable, types_str
from .cond import PRED_TYPE

__all__ = ["fori_loop", "scan", "scan_p", "while_loop", "while_p"]

C = TypeVar("C")
X = TypeVar("X")
Y = TypeVar("Y")


# -- while ----------------------------------------------------------------------


def _while_parts(
    params: Params,
) -> tuple[Jaxpr, Jaxpr, int, int]:
    return (
        get_jaxpr("while", params, "cond_jaxpr"),
        get_jaxpr("while", params, "body_jaxpr"),
        get_int("while", params, "cond_nconsts"),
        get_int("while", params, "body_nconsts"),
    )


def _while_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    cj, bj, cn, bn = _while_parts(params)
    cc, bc, carry = split(args, cn, bn)
    while bool(eval_np(cj, [*cc, *carry])[0]):
        carry = eval_np(bj, [*bc, *carry])
    return carry


def _while_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    cj, bj, cn, bn = _while_parts(params)
    cc, bc, carry = split(avals, cn, bn)
    c_out = check_jaxpr_in_types("while", "cond_jaxpr", cj, [*cc, *carry])
    if c_out != (PRED_TYPE,):
        raise PrimitiveTypeError(
            f"while: cond_jaxpr must return one bool[], but returns {types_str(c_out)}"
        )
    b_out = check_jaxpr_in_types("while", "body_jaxpr", bj, [*bc, *carry])
    if b_out != tuple(carry):
        raise PrimitiveTypeError(
            f"while: body_jaxpr must return the carry's types {types_str(carry)}, "
            f"but returns {types_str(b_out)}"
        )
    return list(carry)


while_p = PRIMITIVES.add(Primitive("while", _while_impl, _while_abstract))


def while_params(cond_jaxpr: Jaxpr, body_jaxpr: Jaxpr, cond_nconsts: int, body_nconsts: int) -> Params:
    return pmap({
        "cond_jaxpr": cond_jaxpr,
        "body_jaxpr": body_jaxpr,
        "cond_nconsts": cond_nconsts,
        "body_nconsts": body_nconsts,
    })


def _carry_mismatch(prim: str, fun: str, init: tree.TreeDef, init_t: Sequence[ShapedArray],
                    out: tree.TreeDef, out_t: Sequence[ShapedArray]) -> PrimitiveTypeError:
    return PrimitiveTypeError(
        f"{prim}: {fun} must return a carry of the same structure and types as its "
        f"input: the carry is {init} of types {types_str(init_t)}, but {fun} returns "
        f"{out} of types {types_str(out_t)}. Cast inside {fun} (for example with "
        "x.astype) to keep the carry's dtype, and keep its shape fixed."
    )


def while_loop(
    cond_fun: Callable[[C], object],
    body_fun: Callable[[C], C],
    init_val: object,
) -> C:
    """Apply ``body_fun`` to the carry while ``cond_fun(carry)`` is true."""
    leaves, carry_tree = tree.flatten(init_val)
    vals = [as_value(x, "while_loop's init_val") for x in leaves]
    avals = [aval_of(x) for x in vals]
    args_tree = tree.structure((init_val,))
    c_closed, c_tree = trace_callable(cond_fun, args_tree, avals, "while_loop's cond_fun")
    if c_tree.num_leaves != 1 or c_closed.out_avals != (PRED_TYPE,):
        raise PrimitiveTypeError(
            f"while_loop: cond_fun must return a boolean scalar (bool[]), but returns "
            f"{c_tree} of types {types_str(c_closed.out_avals)}"
        )
    b_closed, b_tree = trace_callable(body_fun, args_tree, avals, "while_loop's body_fun")
    if b_tree != carry_tree or b_closed.out_avals != tuple(avals):
        raise _carry_mismatch("while_loop", "body_fun", carry_tree, avals, b_tree, b_closed.out_avals)
    c_consts = [as_value(c, "constants") for c in c_closed.consts]
    b_consts = [as_value(c, "constants") for c in b_closed.consts]
    params = while_params(c_closed.jaxpr, b_closed.jaxpr, len(c_consts), len(b_consts))
    outs = bind(while_p, [*c_consts, *b_consts, *vals], params)
    return tree.unflatten(carry_tree, outs)  # type: ignore[return-value]  # the carry's structure


# -- scan -----------------------------------------------------------------------


def _scan_parts(params: Params) -> tuple[Jaxpr, int, int, int, bool]:
    return (
        get_jaxpr("scan", params, "jaxpr"),
        get_int("scan", params, "num_consts"),
        get_int("scan", params, "num_carry"),
        get_int("scan", params, "length"),
        get_bool("scan", params, "reverse"),
    )


def _scan_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    jaxpr, nconsts, ncarry, length, reverse = _scan_parts(params)
    consts, carry, xs = split(args, nconsts, ncarry)
    y_avals = jaxpr.out_avals[ncarry:]
    ys: list[list[NDArray]] = [[] for _ in y_avals]
    for i in (reversed(range(length)) if reverse else range(length)):
        outs = eval_np(jaxpr, [*consts, *carry, *[x[i] for x in xs]])
        carry = outs[:ncarry]
        for acc, y in zip(ys, outs[ncarry:]):
            acc.append(y)
    stacked: list[NDArray] = []
    for acc, a in zip(ys, y_avals):
        if reverse:
            acc.reverse()
        stacked.append(np.stack(acc) if acc else np.zeros((0, *a.shape), a.dtype))
    return [*carry, *stacked]


def _scan_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    jaxpr, nconsts, ncarry, length, _ = _scan_parts(params)
    consts, carry, xs = split(avals, nconsts, ncarry)
    if length < 0:
        raise PrimitiveTypeError(f"scan: length must be >= 0, got {length}")
    for x in xs:
        if not x.shape or x.shape[0] != length:
            raise PrimitiveTypeError(
                f"scan: every scanned-over input needs leading axis {length}, got {x.str_short()}"
            )
    x_avals = [ShapedArray(x.shape[1:], x.dtype) for x in xs]
    outs = check_jaxpr_in_types("scan", "jaxpr", jaxpr, [*consts, *carry, *x_avals])
    if len(outs) < ncarry or outs[:ncarry] != tuple(carry):
        raise PrimitiveTypeError(
            f"scan: jaxpr must return the carry's types {types_str(carry)} first, but "
            f"returns {types_str(outs)}"
        )
    return [*carry, *[ShapedArray((length, *y.shape), y.dtype) for y in outs[ncarry:]]]


scan_p = PRIMITIVES.add(Primitive("scan", _scan_impl, _scan_abstract))


def scan_params(jaxpr: Jaxpr, num_consts: int, num_carry: int, length: int, reverse: bool) -> Params:
    return pmap({
        "jaxpr": jaxpr,
        "num_consts": num_consts,
        "num_carry": num_carry,
        "length": length,
        "reverse": reverse,
    })


def _scan_length(xs_avals: Sequence[ShapedArray], length: int | None) -> int:
    lengths = set()
    for a in xs_avals:
        if not a.shape:
            raise PrimitiveTypeError(
                f"scan: every leaf of xs needs a leading axis to scan over, got {a.str_short()}"
            )
        lengths.add(a.shape[0])
    if length is not None:
        if type(length) is not int or length < 0:
            raise PrimitiveTypeError(f"scan: length must be a Python int >= 0, got {length!r}")
        lengths.add(length)
    if len(lengths) > 1:
        raise PrimitiveTypeError(
            f"scan: the leading axes of xs (and length) disagree: {sorted(lengths)}"
        )
    if not lengths:
        raise PrimitiveTypeError("scan: give length when xs is None (or has no leaves)")
    return lengths.pop()


def scan(
    f: Callable[[C, X], tuple[C, Y]],
    init: object,
    xs: X,
    length: int | None = None,
    reverse: bool = False,
) -> tuple[C, Y]:
    """``jax.lax.scan``: ``f(carry, x) -> (carry, y)`` over the leading axis of
    ``xs``; returns the final carry and the stacked ``y``s."""
    init_leaves, init_tree = tree.flatten(init)
    init_vals = [as_value(x, "scan's init") for x in init_leaves]
    carry_avals = [aval_of(x) for x in init_vals]
    xs_leaves, xs_tree = tree.flatten(xs)
    xs_vals = [as_value(x, "scan's xs") for x in xs_leaves]
    xs_avals = [aval_of(x) for x in xs_vals]
    n = _scan_length(xs_avals, length)
    x_avals = [ShapedArray(a.shape[1:], a.dtype) for a in xs_avals]
    args_tree = tree.structure((init, xs))
    out_parts: list[tuple[tree.TreeDef, tree.TreeDef]] = []

    def body(carry: C, x: X) -> object:
        out: object = f(carry, x)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise PrimitiveTypeError(
                f"scan: f must return a pair (carry, y), got a {type(out).__name__}"
            )
        out_parts.append((tree.structure(out[0]), tree.structure(out[1])))
        return (out[0], out[1])

    closed, _ = trace_callable(body, args_tree, [*carry_avals, *x_avals], "scan's f")
    c_tree, y_tree = out_parts[0]
    ncarry = len(carry_avals)
    if c_tree != init_tree or closed.out_avals[:ncarry] != tuple(carry_avals):
        raise _carry_mismatch("scan", "f", init_tree, carry_avals, c_tree,
                              closed.out_avals[: c_tree.num_leaves])
    consts = [as_value(c, "constants") for c in closed.consts]
    params = scan_params(closed.jaxpr, len(consts), ncarry, n, bool(reverse))
    outs = bind(scan_p, [*consts, *init_vals, *xs_vals], params)
    carry_out: C = tree.unflatten(init_tree, outs[:ncarry])  # type: ignore[assignment]  # init's structure
    ys: Y = tree.unflatten(y_tree, outs[ncarry:])  # type: ignore[assignment]  # f's y structure, stacked
    return carry_out, ys


# -- fori_loop ------------------------------------------------------------------


def _static_int(x: object) -> int | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, np.integer)):
        return int(x)
    return None


def fori_loop(
    lower: Value,
    upper: Value,
    body_fun: Callable[[Value, C], C],
    init_val: object,
) -> C:
    """``for i in range(lower, upper): val = body_fun(i, val)``.

    With static (Python int) bounds it is a ``scan`` and can be differentiated
    in reverse mode; with traced bounds it is a ``while_loop``.
    """
    lo, hi = _static_int(lower), _static_int(upper)
    if lo is not None and hi is not None:
        i0 = np.asarray(lower if isinstance(lower, np.integer) else lo)

        def step(carry: tuple[Value, C], _: None) -> tuple[tuple[Value, C], None]:
            i, val = carry
            return (_incr(i), body_fun(i, val)), None

        (_, out), _ = scan(step, (i0, init_val), None, length=max(hi - lo, 0))
        return out
    lo_a, hi_a = aval_of(lower), aval_of(upper)
    for name, a in (("lower", lo_a), ("upper", hi_a)):
        if a.shape != () or not is_int(a.dtype):
            raise PrimitiveTypeError(
                f"fori_loop: {name} must be an integer scalar, got {a.str_short()}"
            )
    lo_v, hi_v = _same_int_dtype(lower, upper)

    def w_cond(carry: tuple[Value, Value, C]) -> Value:
        return bind1(less_p, carry[:2], NO_PARAMS)

    def w_body(carry: tuple[Value, Value, C]) -> tuple[Value, Value, C]:
        i, n, val = carry
        return (_incr(i), n, body_fun(i, val))

    return while_loop(w_cond, w_body, (lo_v, hi_v, init_val))[2]


def _incr(i: Value) -> Value:
    return bind1(add_p, [i, np.asarray(1, aval_of(i).dtype)], NO_PARAMS)


def _same_int_dtype(lower: Value, upper: Value) -> tuple[Value, Value]:
    """Bounds in one integer dtype: a Python int takes the other's dtype."""
    lo_a, hi_a = aval_of(lower), aval_of(upper)
    if lo_a.dtype == hi_a.dtype:
        return lower, upper
    if _static_int(lower) is not None and not isinstance(lower, Tracer):
        return np.asarray(lower, hi_a.dtype), upper
    if _static_int(upper) is not None and not isinstance(upper, Tracer):
        return lower, np.asarray(upper, lo_a.dtype)
    raise PrimitiveTypeError(
        f"fori_loop: lower and upper must have one dtype, got {lo_a.str_short()} and "
        f"{hi_a.str_short()}"
    )

