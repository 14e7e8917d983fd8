"""The forward-mode and batching transformations on pytrees: ``jvp``,
``vmap`` and ``jacfwd``."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, ParamSpec, TypeAlias, TypeVar, TypeVarTuple, Unpack, cast, overload

import numpy as np

from . import lax, tree
from .api import argnum_positions, flat_fun
from .core.avals import ShapedArray
from .core.dtypes import float0, is_complex, is_float, is_inexact  # float0 names
from .core.errors import BatchingError, BatchingTypeError, GradOutputError, TangentTypeError
from .core.names import check_callable
from .core.float0s import (
    Float0Slots, float0_boundary, float0_ok, float0_zeros, is_float0, merge_float0, split_float0,
)
from .core.trace import Tracer, Value, as_value, aval_of, exact
from .interpreters.batching import BatchDim, vmap_flat
from .interpreters.jvp import Tangent, Zero, instantiate_zeros, jvp_flat

__all__ = ["AxisSpec", "jacfwd", "jvp", "vmap"]

P = ParamSpec("P")
T = TypeVar("T")
Aux = TypeVar("Aux")  # jacfwd(has_aux=True)
Ts = TypeVarTuple("Ts")

AxisSpec: TypeAlias = (
    int | None | tuple["AxisSpec", ...] | list["AxisSpec"] | Mapping[str, "AxisSpec"]
)
"""An ``in_axes``/``out_axes`` value: an axis (negative counts from the
end), None (not batched), or a container of them that is a prefix of the
value's pytree."""


def _values(leaves: Sequence[object]) -> list[Value]:
    return [as_value(x, "arguments and results") for x in leaves]


# -- jvp ----------------------------------------------------------------------------
@overload
def jvp(
    f: Callable[[Unpack[Ts]], T], primals: tuple[Unpack[Ts]], tangents: Sequence[object]
) -> tuple[T, T]: ...
@overload
def jvp(f: Callable[..., T], primals: list[Any], tangents: Sequence[object]) -> tuple[T, T]: ...
def jvp(
    f: Callable[..., T], primals: Sequence[object], tangents: Sequence[object]
) -> tuple[T, T]:
    """``f``'s value at ``primals`` and its directional derivative along
    ``tangents`` (tuples of pytrees, one per argument, as ``jax.jvp``). Each
    tangent has its primal's shape and dtype (a Python scalar takes it)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TangentTypeError(
            "jvp: primals and tangents must be tuples or lists of arguments, got "
            f"{type(primals).__name__} and {type(tangents).__name__}"
        )
    if (
        len(primals) == len(tangents)
        and all(type(x) in _LEAF_TYPES for x in primals)
        and all(type(x) in _LEAF_TYPES for x in tangents)
    ):  # the common case: array arguments, no containers to flatten
        box: list[object] = []

        def run_leaves(xs: list[Value]) -> list[Value]:
            out = f(*xs)
            if type(out) in _LEAF_TYPES or isinstance(out, Tracer):
                box.append(None)
                return [out]  # type: ignore[list-item]  # a leaf type, checked just above
            flat, out_tree = tree.flatten(out)
            box.append(out_tree)
            return _values(flat)

        p_out, t_out = jvp_flat(run_leaves, list(primals), list(tangents))
        if box[0] is None:
            return cast(T, p_out[0]), cast(T, _tangent_out(p_out[0], t_out[0]))
        out_tree = box[0]
        assert isinstance(out_tree, tree.TreeDef)
    else:
        p_leaves, p_tree = tree.flatten((tuple(primals), {}))
        t_leaves, t_tree = tree.flatten((tuple(tangents), {}))
        if p_tree != t_tree:
            raise TangentTypeError(
                f"jvp: primals have tree structure {p_tree.children[0]} but tangents have "
                f"{t_tree.children[0]}; they must match"
            )
        run, out_trees = flat_fun(f, p_tree)
        t_values: list[Tangent] = [  # a float0 tangent stays as it is: jvp_flat reads it as a zero
            t if type(t) is np.ndarray and t.dtype == float0 else as_value(t, "arguments and results")
            for t in t_leaves
        ]
        p_out, t_out = jvp_flat(run, _values(p_leaves), t_values)
        out_tree = out_trees[0]
    primal_out = tree.unflatten(out_tree, p_out)
    tangent_out = tree.unflatten(out_tree, [_tangent_out(p, t) for p, t in zip(p_out, t_out)])
    return cast(T, primal_out), cast(T, tangent_out)


def _tangent_out(primal: Value, tangent: Tangent) -> object:
    """An output tangent as ``jvp`` returns it: zeros of JAX's ``float0``
    for an integer or bool output, which has no derivative (float0 names)."""
    pa = aval_of(primal)
    if not is_inexact(pa.dtype):
        return int_zero_tangent(pa)
    return instantiate_zeros(tangent)


def int_zero_tangent(a: ShapedArray) -> np.ndarray[tuple[int, ...], np.dtype[np.generic]]:
    """The derivative of an integer or bool value of type ``a``, as ``jvp``,
    ``vjp`` and ``grad(allow_int=True)`` return it: zeros of JAX's
    ``float0`` at the top level and directly under ``jit`` or ``vmap``,
    which carry float0 results out (``core/float0s.py``). Inside other
    traces (a loop body, an outer derivative, ``make_jaxpr``), which cannot
    carry float0 values, zeros of ``a``'s own dtype (the same numbers)."""
    if float0_ok():
        return float0_zeros(a.shape)
    return np.zeros(a.shape, a.dtype)


_LEAF_TYPES: frozenset[type] = frozenset(
    {np.ndarray, float, int, bool, np.float32, np.float64, np.int32, np.int64, np.bool_}
)


# -- in_axes / out_axes as prefix trees -----------------------------------------------
def _path_names(td: tree.TreeDef, prefix: str) -> list[str]:
    """A readable path for each leaf of ``td``: ``x[0]['a'].b``."""
    if td == tree.LEAF:
        return [prefix]
    out: list[str] = []
    nt = td.node_type
    keys = td.aux if isinstance(td.aux, tuple) else ()
    for i, c in enumerate(td.children):
        if nt is dict:
            step = f"[{keys[i]!r}]"
        elif nt is not None and dataclasses.is_dataclass(nt):
            step = f".{keys[i]}"
        else:
            step = f"[{i}]"
        out.extend(_path_names(c, prefix + step))
    return out


def _is_axis_leaf(x: object) -> bool:
    return x is None


def _broadcast_prefix(
    spec: object, full: tree.TreeDef, what: str, value_desc: str
) -> list[BatchDim]:
    """One axis per leaf of ``full``, from ``spec``, a prefix tree of it."""
    spec_leaves, spec_tree = tree.flatten(spec, is_leaf=_is_axis_leaf)
    axes: list[BatchDim] = []
    for s in spec_leaves:
        if s is not None and type(s) is not int:
            raise BatchingTypeError(f"vmap: {what} must hold ints or None, got {s!r}")
        axes.append(s)
    out: list[BatchDim] = []
    it = iter(axes)

    def walk(st: tree.TreeDef, ft: tree.TreeDef) -> None:
        if st == tree.LEAF:
            out.extend([next(it)] * ft.num_leaves)
            return
        if (
            st.kind != ft.kind
            or st.node_type is not ft.node_type
            or st.aux != ft.aux
            or len(st.children) != len(ft.children)
        ):
            raise BatchingError(
                f"vmap: {what} must be a tree prefix of {value_desc}: got {what} "
                f"with structure {spec_tree} for a value with structure {full}"
            )
        for sc, fc in zip(st.children, ft.children):
            walk(sc, fc)

    walk(spec_tree, full)
    return out


def _arg_names(f: Callable[..., object], n: int) -> list[str]:
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        params = []
    names: list[str] = []
    for i in range(n):
        if i < len(params) and params[i].kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
        ):
            names.append(f"argument '{params[i].name}'")
        else:
            names.append(f"argument {i}")
    return names


def _leaf_names(f: Callable[..., object], args: tuple[object, ...], kw_tree: tree.TreeDef) -> list[str]:
    names = _arg_names(f, len(args))
    out: list[str] = []
    for name, a in zip(names, args):
        out.extend(_path_names(tree.structure(a), name))
    out.extend(_path_names(kw_tree, "keyword arguments"))
    return out


def _axis_size(
    f: Callable[..., object],
    args: tuple[object, ...],
    kw_tree: tree.TreeDef,
    leaves: Sequence[Value],
    dims: Sequence[BatchDim],
    axis_size: int | None,
) -> int:
    sizes: list[tuple[int, int, ShapedArray]] = []  # (leaf index, axis, type)
    for i, (x, d) in enumerate(zip(leaves, dims)):
        if d is None:
            continue
        a = aval_of(x)
        if not -a.ndim <= d < a.ndim:
            name = _leaf_names(f, args, kw_tree)[i]
            raise BatchingError(
                f"vmap: in_axes={d} is out of range for {name} of type {a.str_short()} "
                f"(it has {a.ndim} axes)"
            )
        sizes.append((i, d % a.ndim, a))
    found = {a.shape[d] for _, d, a in sizes}
    if axis_size is not None:
        found.add(axis_size)
    if len(found) == 1:
        return found.pop()
    if not found:
        raise BatchingError(
            "vmap: in_axes maps no argument (every leaf is None), so the batch size "
            "is unknown; map at least one argument or pass axis_size"
        )
    names = _leaf_names(f, args, kw_tree)
    lines = [
        f"  * {names[i]} of type {a.str_short()} has size {a.shape[d]} along axis {d}"
        for i, d, a in sizes
    ]
    if axis_size is not None:
        lines.append(f"  * axis_size is {axis_size}")
    raise BatchingError(
        "vmap got inconsistent sizes for the array axes to be mapped:\n" + "\n".join(lines)
    )


# -- vmap -----------------------------------------------------------------------------
def vmap(
    f: Callable[P, T],
    in_axes: AxisSpec = 0,
    out_axes: AxisSpec = 0,
    axis_size: int | None = None,
    axis_name: str | None = None,
) -> Callable[P, T]:
    """Vectorise ``f`` over a batch axis of its arguments (``jax.vmap``).

    ``in_axes`` is an int, None, or a tuple with one entry per positional
    argument, each a prefix tree of that argument; keyword arguments are
    mapped along axis 0. ``out_axes`` is a prefix tree of the output.
    Outputs that do not depend on the batch are broadcast along it. With
    ``axis_name``, collectives in ``f`` naming it (``lax.psum``,
    ``all_gather``, ``axis_index``, ...) act over the batch."""
    check_callable("vmap", f)  # JAX's TypeError, at once
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)  # as JAX: a top-level list means a tuple

    @functools.wraps(f, updated=())  # name and docs only, not f's state
    def batched(*args: P.args, **kwargs: P.kwargs) -> T:
        leaves, in_tree = tree.flatten((args, kwargs))
        args_tree, kw_tree = in_tree.children
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise BatchingError(
                f"vmap: in_axes must be an int, None, or a tuple with one entry per "
                f"positional argument, but got len(in_axes)={len(in_axes)} for "
                f"{len(args)} positional arguments"
            )
        dims = _broadcast_prefix(in_axes, args_tree, "in_axes", "the positional arguments")
        dims += [0] * kw_tree.num_leaves
        rest, f0_in = split_float0(leaves)  # float0 arguments (core/float0s.py)
        if f0_in:  # their shapes count toward the batch size (through a bool stand-in)
            it = iter([np.broadcast_to(False, s) for _, s in f0_in])
            vals = _values([next(it) if is_float0(x) else x for x in leaves])
        else:
            vals = _values(leaves)
        size = _axis_size(f, args, kw_tree, vals, dims, axis_size)
        f0_at = {i for i, _ in f0_in}
        inner = tuple((i, _unbatched_shape(s, dims[i])) for i, s in f0_in)  # one example's zeros
        out_trees: list[tree.TreeDef] = []
        f0_out: list[Float0Slots] = []

        def run(xs: list[Value]) -> list[Value]:
            args_kwargs = tree.unflatten(in_tree, merge_float0(xs, inner))
            assert isinstance(args_kwargs, tuple)
            with float0_boundary():  # float0 results made directly in f come out
                out = f(*args_kwargs[0], **args_kwargs[1])
            flat, out_tree = tree.flatten(out)
            out_trees.append(out_tree)
            flat, slots = split_float0(flat)
            f0_out.append(slots)
            return [as_value(x, "the outputs of the function") for x in flat]

        def all_out_dims() -> list[BatchDim]:
            return _broadcast_prefix(out_axes, out_trees[0], "out_axes", "the output")

        def out_dims() -> list[BatchDim]:
            at = {j for j, _ in f0_out[-1]}
            return [d for j, d in enumerate(all_out_dims()) if j not in at]

        outs = vmap_flat(
            run, size, [d for i, d in enumerate(dims) if i not in f0_at],
            vals if not f0_in else _values(rest), out_dims, axis_name,
        )
        if not f0_out[-1]:
            return cast(T, tree.unflatten(out_trees[0], outs))
        full_dims = all_out_dims()  # a float0 result: zeros with the batch axis where out_axes puts it
        slots = tuple((j, _batched_shape(s, size, full_dims[j], j)) for j, s in f0_out[-1])
        return cast(T, tree.unflatten(out_trees[0], merge_float0(outs, slots)))

    return batched


def _unbatched_shape(shape: tuple[int, ...], d: BatchDim) -> tuple[int, ...]:
    """The shape of one example of a float0 argument of ``shape`` mapped along ``d``."""
    if d is None:
        return shape
    d %= len(shape)
    return shape[:d] + shape[d + 1 :]


def _batched_shape(shape: tuple[int, ...], size: int, d: BatchDim, j: int) -> tuple[int, ...]:
    """The shape of a float0 result of one example's ``shape`` once batched along ``d``."""
    if d is None:
        return shape
    nd = len(shape) + 1
    if not -nd <= d < nd:
        raise BatchingError(
            f"vmap: out_axes={d} is out of range for output {j}, which has {nd} axes once batched"
        )
    d %= nd
    return shape[:d] + (size,) + shape[d:]


# -- jacfwd ---------------------------------------------------------------------------
@overload
def jacfwd(
    f: Callable[P, T], argnums: int = 0, has_aux: Literal[False] = False, holomorphic: bool = False
) -> Callable[P, T]: ...


@overload
def jacfwd(
    f: Callable[P, T], argnums: tuple[int, ...], has_aux: Literal[False] = False, holomorphic: bool = False
) -> Callable[P, object]: ...


@overload
def jacfwd(
    f: Callable[P, tuple[T, Aux]], argnums: int | tuple[int, ...] = 0, *, has_aux: Literal[True],
    holomorphic: bool = False,
) -> Callable[P, tuple[object, Aux]]: ...


def jacfwd(
    f: Callable[P, object], argnums: int | tuple[int, ...] = 0, has_aux: bool = False, holomorphic: bool = False
) -> Callable[P, object]:
    """The Jacobian of ``f`` by forward mode (``jax.jacfwd``, its argument
    order): each output leaf of shape ``S`` is replaced by the derivatives
    with respect to the arguments ``argnums`` -- for an input leaf of shape
    ``I``, an array of shape ``S + I``. With a tuple of ``argnums``, a tuple
    per output leaf. With ``has_aux``, ``f`` returns ``(output, aux)`` and
    the result is ``(jacobian, aux)``, ``aux`` not differentiated. Real
    float inputs; with ``holomorphic``, complex inputs and outputs and the
    complex derivatives (as JAX's)."""
    check_callable("jacfwd", f)  # JAX's TypeError, at once

    @functools.wraps(f, updated=())  # name and docs only, not f's state
    def jac(*args: P.args, **kwargs: P.kwargs) -> object:
        idx = argnum_positions("jacfwd", argnums, len(args))
        dyn_leaves_obj, dyn_tree = tree.flatten(tuple(args[k] for k in idx))
        dyn = _values(dyn_leaves_obj)
        avals = [aval_of(x) for x in dyn]
        for a in avals:
            if holomorphic and not is_complex(a.dtype):
                raise TangentTypeError(
                    "jacfwd with holomorphic=True requires inputs with complex dtype, "
                    f"but an input has type {a.str_short()}"
                )
            if not holomorphic and is_complex(a.dtype):
                raise TangentTypeError(
                    "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), "
                    f"but got {a.dtype.name}. For holomorphic differentiation, pass holomorphic=True. "
                    "For differentiation of non-holomorphic functions involving complex inputs or "
                    "integer inputs, use typedax.jvp directly."
                )
            if not holomorphic and not is_float(a.dtype):
                raise TangentTypeError(
                    f"jacfwd requires float inputs, but an input has type {a.str_short()}"
                )
        out_trees: list[tree.TreeDef] = []
        aux_trees: list[tree.TreeDef] = []  # has_aux: aux is f's output too, undifferentiated

        def f_flat(leaves: list[Value]) -> list[Value]:
            dyn_args = tree.unflatten(dyn_tree, leaves)
            assert isinstance(dyn_args, tuple)
            full = list(args)
            for k, a in zip(idx, dyn_args):
                full[k] = a
            out = f(*full, **kwargs)  # type: ignore[arg-type]  # args with some replaced by tracers
            if has_aux:
                if not isinstance(out, tuple) or len(out) != 2:
                    raise GradOutputError(
                        "jacfwd with has_aux=True requires the function to return a pair (output, aux), "
                        f"got {type(out).__name__}"
                    )
                aux_leaves, aux_tree = tree.flatten(out[1])
                aux_trees.append(aux_tree)
                out = out[0]
            else:
                aux_leaves = []
            flat, t = tree.flatten(out)
            out_trees.append(t)
            return [*_values(flat), *_values(aux_leaves)]

        # one vmap of the pushforward per input leaf, over its standard basis
        jacs: list[list[Value]] = []  # [input leaf][output leaf]
        aux_values: list[Value] = []
        for k, a in enumerate(avals):
            basis = exact(np.eye(a.size, dtype=a.dtype).reshape((a.size,) + a.shape))

            def pushfwd(vs: list[Value], k: int = k) -> list[Value]:
                ts: list[Tangent] = [Zero(b) for b in avals]
                ts[k] = vs[0]
                p_out, t_out = jvp_flat(f_flat, dyn, ts)
                n = out_trees[-1].num_leaves
                return [*(instantiate_zeros(t) for t in t_out[:n]), *p_out[n:]]  # aux: its primal values

            def out_dims() -> list[int | None]:
                n_aux = aux_trees[-1].num_leaves if has_aux else 0
                return [-1] * out_trees[-1].num_leaves + [None] * n_aux

            cols = vmap_flat(pushfwd, a.size, [0], [basis], out_dims)
            n_main = out_trees[-1].num_leaves
            aux_values = cols[n_main:]
            jacs.append(
                [lax.reshape(c, aval_of(c).shape[:-1] + a.shape) for c in cols[:n_main]]
            )
        out_tree = out_trees[-1]
        if holomorphic:
            for c in jacs[0] if jacs else []:
                if not is_complex(aval_of(c).dtype):
                    raise TangentTypeError(
                        "jacfwd with holomorphic=True requires outputs with complex dtype, "
                        f"but got {aval_of(c).dtype.name}"
                    )
        per_out = []
        for j in range(out_tree.num_leaves):
            sub = tree.unflatten(dyn_tree, [jacs[k][j] for k in range(len(avals))])
            assert isinstance(sub, tuple)
            per_out.append(sub[0] if isinstance(argnums, int) else sub)
        jacobian = tree.unflatten(out_tree, per_out)
        return (jacobian, tree.unflatten(aux_trees[-1], aux_values)) if has_aux else jacobian

    return jac
