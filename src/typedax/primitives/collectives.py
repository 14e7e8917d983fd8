"""Collectives over named mesh axes, for the per-device code of ``shard_map``
(JAX's ``jax/_src/lax/parallel.py``): ``psum``, ``pmax``, ``pmin``,
``all_gather``, ``reduce_scatter`` (``psum_scatter``), ``all_to_all``,
``ppermute`` and ``axis_index``, with their ``lax`` functions (``pmean``
and ``axis_size`` too).

Each takes the axis names it works over as a param. Abstract evaluation
looks them up among the axes in scope (``core/axes.py``: a ``shard_map``
binds its mesh's), so a wrong name is an ``AxisNameError``. There is no
NumPy evaluation: a collective only means something inside a ``shard_map``,
which runs compiled. The lowering reads the mesh of the enclosing
``shard_map`` from ``LoweringContext.mesh_axes`` and writes JAX's ops:
replica groups are the mesh positions that share every other axis
(``pxla.axis_groups``), with channel handle 1 (``COLLECTIVE_CHANNEL_ID``)
and global device ids, as JAX writes them in an SPMD program.

Derivatives are JAX's: each is linear except ``pmax``/``pmin`` (no JVP in
JAX either) and ``axis_index`` (no operands); ``psum`` transposes to
``psum`` (JAX treats it as psum + pbroadcast), ``all_gather`` to
``reduce_scatter`` and back, ``all_to_all`` to the one with split and
concat axes swapped, ``ppermute`` to the inverse permutation. Batching (a
``vmap`` without an axis name, e.g. of a ``shard_map``) works on the
per-example dimensions, shifted past the batch axis.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, cast

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from pyrsistent import pmap

from ..core.avals import ShapedArray
from ..core.axes import axes_size, checked_size, current_vmap_frame
from ..core.dtypes import bool_, int32, uint32
from ..core.errors import AxisNameError, MissingRuleError, PrimitiveTypeError
from ..core.ir import NO_PARAMS, Eqn, ImplRule, NDArray, Param, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, Zero
from ..core.array import Array
from ..core.trace import EVAL_TRACE, Tracer, Value, aval_of, as_value, bind1, using_trace
from .. import tree
from ..hlo import HloValue, LoweringContext, element_type, full, tensor_type
from ._params import _get, get_bool, get_int
from .elementwise import convert, div_p, mul_p
from ._params import params_of
from .reductions import reduce_max_p, reduce_min_p
from .shaping import concatenate, expand_dims, iota, squeeze
from .slicing import slice as slice_
from .structural import broadcast_to, check_arity, linear_jvp, move_batch_axis, reduce_sum, reshape


def names_of(prim: str, params: Params, key: str) -> tuple[str, ...]:
    v = _get(prim, params, key)
    if not isinstance(v, tuple) or not all(isinstance(x, str) for x in v):
        raise PrimitiveTypeError(f"{prim}: param '{key}' must be a tuple of axis names, got {v!r}")
    return tuple(x for x in v if isinstance(x, str))


def _no_impl(name: str) -> ImplRule:
    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        raise AxisNameError(f"{name}: a collective runs only inside shard_map (its axis names are unbound here)")
    return impl


def _one_array(name: str, avals: Sequence[ShapedArray]) -> ShapedArray:
    check_arity(name, avals, 1)
    return avals[0]


# -- replica groups and the ops ------------------------------------------------------
def replica_groups(ctx: LoweringContext, names: Sequence[str], op: str) -> np.ndarray[tuple[int, int], np.dtype[np.int64]]:
    """The groups of mesh positions a collective over ``names`` combines
    (JAX's ``pxla.axis_groups``): one row per group, in mesh order."""
    axes = ctx.mesh_axes
    if axes is None:
        raise AxisNameError(f"{op}: unbound axis names {tuple(names)}: collectives lower only inside shard_map")
    mesh_names = [n for n, _ in axes]
    sizes = [s for _, s in axes]
    for n in names:
        if n not in mesh_names:
            raise AxisNameError(f"{op}: unbound axis name: {n!r}; the mesh's axes are {mesh_names}")
    idx = [mesh_names.index(n) for n in names]
    iota = np.arange(int(np.prod(sizes, dtype=np.int64))).reshape(sizes)
    group = int(np.prod([sizes[i] for i in idx], dtype=np.int64))
    moved = np.moveaxis(iota, idx, list(range(len(idx)))).reshape(group, -1)
    return np.ascontiguousarray(moved.T.astype(np.int64))


def _groups_attr(groups: np.ndarray[tuple[int, int], np.dtype[np.int64]]) -> ir.Attribute:
    attr: ir.DenseIntElementsAttr = ir.DenseIntElementsAttr.get(groups)  # type: ignore[call-overload]  # a NumPy array is a Buffer at run time
    return attr


def _channel() -> ir.Attribute:
    return hlo.ChannelHandle.get(1, 1)  # JAX's COLLECTIVE_CHANNEL_ID, DEVICE_TO_DEVICE_TYPE


def _reducer_block(op: ir.OpView, dtype: np.dtype[np.generic], kind: str) -> None:
    st = ir.RankedTensorType.get([], element_type(dtype))
    block = op.regions[0].blocks.append(st, st)
    with ir.InsertionPoint(block):
        a, b = block.arguments[0], block.arguments[1]
        if kind == "add":
            r = hlo.or_(a, b) if dtype == bool_ else hlo.add(a, b)
        elif kind == "max":
            r = hlo.maximum(a, b)
        else:
            r = hlo.minimum(a, b)
        hlo.return_([r])


# -- psum, pmax, pmin -----------------------------------------------------------------
def _allreduce(name: str, kind: str) -> Primitive:
    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        x = _one_array(name, avals)
        checked_size(names_of(name, params, "axes"), name)
        return [ShapedArray(x.shape, x.dtype)]

    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
        groups = replica_groups(ctx, names_of(name, eqn.params, "axes"), name)
        op = hlo.AllReduceOp(
            [args[0].type], [args[0]], _groups_attr(groups),
            channel_handle=_channel(), use_global_device_ids=True,
        )
        _reducer_block(op, eqn.inputs[0].aval.dtype, kind)
        return [op.results[0]]

    def batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
        names = names_of(name, params, "axes")
        frame, rest = _frame_split(names)
        x, d = vals[0], dims[0]
        if frame is None:
            return [bind1(prim, (x,), params)], [d]
        # over vmap's named axis: every example gets the reduction of all
        if d is None:
            y = bind1(mul_p, (x, np.asarray(size, aval_of(x).dtype)), NO_PARAMS) if kind == "add" else x
        elif kind == "add":
            y = reduce_sum(x, (d,))
        else:
            y = bind1(reduce_max_p if kind == "max" else reduce_min_p, (x,), params_of(("axis", (d,))))
        return [bind1(prim, (y,), params_for_axes(rest)) if rest else y], [None]

    def no_jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
        # JAX defines no derivative of pmax/pmin ("Differentiation rule for
        # 'pmax' not implemented", a NotImplementedError): the same here
        raise MissingRuleError(name, "JVP")

    def rules(p: Primitive) -> Rules:
        if kind != "add":
            return Rules(jvp=no_jvp, batch=batch, lower=lower)
        return Rules(jvp=linear_jvp(p), transpose=_psum_transpose, batch=batch, lower=lower)

    prim = Primitive(name, _no_impl(name), abstract, rules_for=rules)
    return prim


def _frame_split(names: tuple[str, ...]) -> tuple[str | None, tuple[str, ...]]:
    """The named ``vmap`` axis among ``names`` whose batching rule runs now
    (``None`` if it is not one of them), and the other names."""
    frame = current_vmap_frame()
    if frame is None or frame not in names:
        return None, names
    return frame, tuple(n for n in names if n != frame)


def _only_frame(op: str, names: tuple[str, ...]) -> bool:
    frame, rest = _frame_split(names)
    if frame is not None and rest:
        raise NotImplementedError(f"{op} over a vmap axis name together with other axes {rest}")
    return frame is not None


def _psum_transpose(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    return [bind1(psum_p, (cts[0],), params)]


psum_p = _allreduce("psum", "add")
pmax_p = _allreduce("pmax", "max")
pmin_p = _allreduce("pmin", "min")


# -- all_gather and reduce_scatter -----------------------------------------------------
def _gather_params(prim: str, params: Params, dim_key: str) -> tuple[int, tuple[str, ...], int, bool]:
    return (get_int(prim, params, dim_key), names_of(prim, params, "axis_name"),
            get_int(prim, params, "axis_size"), get_bool(prim, params, "tiled"))


def _check_size(prim: str, names: tuple[str, ...], size: int) -> None:
    bound = checked_size(names, prim)
    if bound is not None and bound != size:
        raise PrimitiveTypeError(f"{prim}: param axis_size={size} but the axes {names} have size {bound}")


def _all_gather_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    x = _one_array("all_gather", avals)
    dim, names, size, tiled = _gather_params("all_gather", params, "all_gather_dimension")
    _check_size("all_gather", names, size)
    shape = list(x.shape)
    if not 0 <= dim <= len(shape) - (1 if tiled else 0):
        raise PrimitiveTypeError(f"all_gather: dimension {dim} out of range for {x.str_short()}")
    if tiled:
        shape[dim] *= size
    else:
        shape.insert(dim, size)
    return [ShapedArray(tuple(shape), x.dtype)]


def _all_gather_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    dim, names, size, tiled = _gather_params("all_gather", eqn.params, "all_gather_dimension")
    x, x_aval = args[0], eqn.inputs[0].aval
    if not tiled:  # a new dimension of 1 to gather along, as JAX's lowering
        shape = list(x_aval.shape)
        shape.insert(dim, 1)
        x = hlo.broadcast_in_dim(
            tensor_type(ShapedArray(tuple(shape), x_aval.dtype)), x,
            [i for i in range(len(shape)) if i != dim],
        )
    groups = replica_groups(ctx, names, "all_gather")
    op = hlo.AllGatherOp(
        [tensor_type(eqn.out_binders[0].aval)], [x], dim, _groups_attr(groups),
        channel_handle=_channel(), use_global_device_ids=True,
    )
    return [op.results[0]]


def _all_gather_transpose(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    dim, names, size, tiled = _gather_params("all_gather", params, "all_gather_dimension")
    return [bind1(reduce_scatter_p, (cts[0],), _scatter_params(dim, names, size, tiled))]


def _all_gather_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    dim, names, _, tiled = _gather_params("all_gather", params, "all_gather_dimension")
    if _only_frame("all_gather", names):  # every example gets the whole batch, stacked at dim
        y = move_batch_axis(size, dims[0], dim, vals[0])
        if tiled:
            shape = aval_of(y).shape
            y = reshape(y, (*shape[:dim], shape[dim] * shape[dim + 1], *shape[dim + 2:]))
        return [y], [None]
    x = move_batch_axis(size, dims[0], 0, vals[0])
    return [bind1(all_gather_p, (x,), params.set("all_gather_dimension", dim + 1))], [0]


def _gather_params_map(dim: int, names: tuple[str, ...], size: int, tiled: bool) -> Params:
    items: dict[str, Param] = {"all_gather_dimension": dim, "axis_name": names, "axis_size": size, "tiled": tiled}
    return pmap(items)


def _scatter_params(dim: int, names: tuple[str, ...], size: int, tiled: bool) -> Params:
    items: dict[str, Param] = {"scatter_dimension": dim, "axis_name": names, "axis_size": size, "tiled": tiled}
    return pmap(items)


all_gather_p = Primitive(
    "all_gather", _no_impl("all_gather"), _all_gather_abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_all_gather_transpose, batch=_all_gather_batch, lower=_all_gather_lower),
)


def _reduce_scatter_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    x = _one_array("reduce_scatter", avals)
    dim, names, size, tiled = _gather_params("reduce_scatter", params, "scatter_dimension")
    _check_size("reduce_scatter", names, size)
    shape = list(x.shape)
    if not 0 <= dim < len(shape):
        raise PrimitiveTypeError(f"reduce_scatter: dimension {dim} out of range for {x.str_short()}")
    if tiled:
        if shape[dim] % size:
            raise PrimitiveTypeError(
                f"psum_scatter: dimension {dim} of {x.str_short()} must be divisible by the axis size {size}")
        shape[dim] //= size
    else:
        if shape[dim] != size:
            raise PrimitiveTypeError(
                f"psum_scatter: dimension {dim} of {x.str_short()} must equal the axis size {size} (tiled=False)")
        del shape[dim]
    return [ShapedArray(tuple(shape), x.dtype)]


def _reduce_scatter_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    dim, names, size, tiled = _gather_params("reduce_scatter", eqn.params, "scatter_dimension")
    x_aval = eqn.inputs[0].aval
    shape = list(x_aval.shape)
    shape[dim] //= size
    groups = replica_groups(ctx, names, "psum_scatter")
    op = hlo.ReduceScatterOp(
        tensor_type(ShapedArray(tuple(shape), x_aval.dtype)), args[0], dim, _groups_attr(groups),
        channel_handle=_channel(), use_global_device_ids=True,
    )
    _reducer_block(op, x_aval.dtype, "add")
    out: HloValue = op.result
    if not tiled:
        out = hlo.reshape(tensor_type(eqn.out_binders[0].aval), out)
    return [out]


def _reduce_scatter_transpose(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    dim, names, size, tiled = _gather_params("reduce_scatter", params, "scatter_dimension")
    return [bind1(all_gather_p, (cts[0],), _gather_params_map(dim, names, size, tiled))]


def _reduce_scatter_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    dim, names, _, tiled = _gather_params("reduce_scatter", params, "scatter_dimension")
    x = move_batch_axis(size, dims[0], 0, vals[0])
    if _only_frame("psum_scatter", names):  # the sum of the batch; example b keeps piece b of dim
        total = reduce_sum(x, (0,))
        if tiled:
            shape = aval_of(total).shape
            total = reshape(total, (*shape[:dim], size, shape[dim] // size, *shape[dim + 1:]))
        return [total], [dim]
    return [bind1(reduce_scatter_p, (x,), params.set("scatter_dimension", dim + 1))], [0]


reduce_scatter_p = Primitive(
    "reduce_scatter", _no_impl("reduce_scatter"), _reduce_scatter_abstract,
    rules_for=lambda p: Rules(
        jvp=linear_jvp(p), transpose=_reduce_scatter_transpose, batch=_reduce_scatter_batch, lower=_reduce_scatter_lower),
)


# -- all_to_all -------------------------------------------------------------------------
def _a2a_params(params: Params) -> tuple[int, int, tuple[str, ...]]:
    return (get_int("all_to_all", params, "split_axis"), get_int("all_to_all", params, "concat_axis"),
            names_of("all_to_all", params, "axis_name"))


def _a2a_size(params: Params) -> int:
    """``all_to_all``'s ``axis_size`` param (JAX's primitive has none: it asks
    the axis env, which a parsed body does not have yet; see ``checked_size``)."""
    names, size = names_of("all_to_all", params, "axis_name"), get_int("all_to_all", params, "axis_size")
    _check_size("all_to_all", names, size)
    return size


def _all_to_all_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    """The primitive's meaning is JAX's: ``split_axis`` is cut into the axis
    size's chunks, sent one to each member, and the received ones are
    concatenated along ``concat_axis`` (``tiled`` only records how the user
    function reshaped around it)."""
    x = _one_array("all_to_all", avals)
    split, concat, names = _a2a_params(params)
    size = _a2a_size(params)
    shape = list(x.shape)
    if not (0 <= split < len(shape) and 0 <= concat < len(shape)):
        raise PrimitiveTypeError(f"all_to_all: split_axis {split} or concat_axis {concat} out of range for {x.str_short()}")
    if shape[split] % size:
        raise PrimitiveTypeError(
            f"all_to_all: the split axis ({shape[split]}) of {x.str_short()} must be divisible by the axis size ({size})")
    shape[split] //= size
    shape[concat] *= size
    return [ShapedArray(tuple(shape), x.dtype)]


def _all_to_all_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    split, concat, names = _a2a_params(eqn.params)
    groups = replica_groups(ctx, names, "all_to_all")
    if groups.shape[1] == 1:
        return [args[0]]
    op = hlo.AllToAllOp(
        [args[0]], split, concat, int(groups.shape[1]), _groups_attr(groups), channel_handle=_channel(),
    )
    return [op.results[0]]


def _all_to_all_transpose(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    split, concat, _ = _a2a_params(params)
    return [bind1(all_to_all_p, (cts[0],), params.set("split_axis", concat).set("concat_axis", split))]


def _all_to_all_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    if _frame_split(names_of("all_to_all", params, "axis_name"))[0] is not None:
        raise NotImplementedError("all_to_all over a vmap axis name is not supported by typedax yet")
    x = move_batch_axis(size, dims[0], 0, vals[0])
    split, concat, _ = _a2a_params(params)
    return [bind1(all_to_all_p, (x,), params.set("split_axis", split + 1).set("concat_axis", concat + 1))], [0]


all_to_all_p = Primitive(
    "all_to_all", _no_impl("all_to_all"), _all_to_all_abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_all_to_all_transpose, batch=_all_to_all_batch, lower=_all_to_all_lower),
)


# -- ppermute ---------------------------------------------------------------------------
def perm_of(params: Params) -> tuple[tuple[int, int], ...]:
    v = _get("ppermute", params, "perm")
    if not isinstance(v, tuple) or not all(
        isinstance(p, tuple) and len(p) == 2 and all(type(i) is int for i in p) for p in v
    ):
        raise PrimitiveTypeError(f"ppermute: param 'perm' must be a tuple of (source, destination) pairs, got {v!r}")
    return tuple((int(p[0]), int(p[1])) for p in v if isinstance(p, tuple) and type(p[0]) is int and type(p[1]) is int)


def _ppermute_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    x = _one_array("ppermute", avals)
    size = checked_size(names_of("ppermute", params, "axis_name"), "ppermute")
    perm = perm_of(params)
    srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise PrimitiveTypeError(f"ppermute sources and destinations must be unique, got {perm}")
    if size is not None and any(not 0 <= i < size for i in srcs + dsts):
        raise PrimitiveTypeError(f"ppermute: every index of perm={perm} must be in [0, {size}) (the axis size)")
    return [ShapedArray(x.shape, x.dtype)]


def _ppermute_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    groups = replica_groups(ctx, names_of("ppermute", eqn.params, "axis_name"), "ppermute")
    perm = perm_of(eqn.params)
    pairs = np.array([[sorted(g)[s], sorted(g)[d]] for g in groups.tolist() for s, d in perm], dtype=np.int64)
    attr: ir.DenseIntElementsAttr = ir.DenseIntElementsAttr.get(np.ascontiguousarray(pairs.reshape(-1, 2)))  # type: ignore[call-overload]  # a NumPy array is a Buffer at run time
    return [hlo.CollectivePermuteOp(args[0], attr, channel_handle=_channel()).result]


def _ppermute_transpose(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    inverse: tuple[Param, ...] = tuple((d, s) for s, d in perm_of(params))
    return [bind1(ppermute_p, (cts[0],), params.set("perm", inverse))]


def _ppermute_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    if not _only_frame("ppermute", names_of("ppermute", params, "axis_name")):
        return [bind1(ppermute_p, (vals[0],), params)], [dims[0]]
    if dims[0] is None:
        return [vals[0]], [None]  # as JAX: the same value everywhere
    # example dst gets example src's value (zeros where no pair sends to it)
    x = move_batch_axis(size, dims[0], 0, vals[0])
    shape = aval_of(x).shape
    source = {d: s for s, d in perm_of(params)}
    zero = broadcast_to(np.zeros((), aval_of(x).dtype), (1, *shape[1:]), tuple(range(len(shape))))
    pieces = [
        slice_(x, (source[b], *([0] * (len(shape) - 1))), (source[b] + 1, *shape[1:])) if b in source else zero
        for b in range(size)
    ]
    return [concatenate(pieces, 0)], [0]


ppermute_p = Primitive(
    "ppermute", _no_impl("ppermute"), _ppermute_abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_ppermute_transpose, batch=_ppermute_batch, lower=_ppermute_lower),
)


# -- axis_index -------------------------------------------------------------------------
def _axis_index_name(params: Params) -> str:
    v = _get("axis_index", params, "axis_name")
    if not isinstance(v, str):
        raise PrimitiveTypeError(f"axis_index: param 'axis_name' must be a string, got {v!r}")
    return v


def _axis_index_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("axis_index", avals, 0)
    checked_size((_axis_index_name(params),), "axis_index")
    return [ShapedArray((), int32)]


def _axis_index_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    """JAX's: (partition id // the product of the later axes) % this axis's size."""
    name = _axis_index_name(eqn.params)
    replica_groups(ctx, (name,), "axis_index")  # checks the name
    assert ctx.mesh_axes is not None
    names = [n for n, _ in ctx.mesh_axes]
    sizes = [s for _, s in ctx.mesh_axes]
    pos = names.index(name)
    scalar = ShapedArray((), uint32)
    div = full(int(np.prod(sizes[pos + 1:], dtype=np.int64)), scalar)
    mod = full(sizes[pos], scalar)
    pid = hlo.PartitionIdOp().result
    index = hlo.remainder(hlo.divide(pid, div), mod)
    return [hlo.convert(tensor_type(ShapedArray((), int32)), index)]


def _axis_index_jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    return [bind1(axis_index_p, (), params)], [Zero(ShapedArray((), int32))]


def _axis_index_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    if _frame_split((_axis_index_name(params),))[0] is not None:
        return [iota(int32, size)], [0]  # vmap's named axis: each example its index
    return [bind1(axis_index_p, (), params)], [None]


axis_index_p = Primitive(
    "axis_index", _no_impl("axis_index"), _axis_index_abstract,
    Rules(jvp=_axis_index_jvp, batch=_axis_index_batch, lower=_axis_index_lower),
)


FAMILY = Family("collectives", (psum_p, pmax_p, pmin_p, all_gather_p, reduce_scatter_p, all_to_all_p, ppermute_p, axis_index_p))


# -- the lax functions ---------------------------------------------------------------------
AxisName = str | tuple[str, ...] | list[str]
T = TypeVar("T")


def _names(axis_name: AxisName, op: str) -> tuple[str, ...]:
    names = (axis_name,) if isinstance(axis_name, str) else tuple(axis_name)
    if not names or not all(isinstance(n, str) for n in names):
        raise AxisNameError(f"{op}: axis_name must be a mesh axis name or a tuple of them, got {axis_name!r}")
    return names


def _no_groups(op: str, axis_index_groups: object) -> None:
    if axis_index_groups is not None:
        raise NotImplementedError(f"{op}: axis_index_groups is not supported by typedax")


def _tree_map(f: Callable[[Value], Value], x: T) -> T:
    leaves, treedef = tree.flatten(x)
    return cast(T, tree.unflatten(treedef, [f(as_value(leaf, "collective operands")) for leaf in leaves]))


def _allreduce_fn(prim: Primitive, x: T, names: tuple[str, ...]) -> T:
    def one(leaf: Value) -> Value:
        if aval_of(leaf).dtype == bool_:
            leaf = convert(leaf, int32)  # as JAX: booleans are counted
        if not isinstance(leaf, Tracer):
            # JAX's constant case (``psum(1, 'i')`` is the axis size): no
            # collective, the value times the group's size for a sum
            if prim is not psum_p:
                axes_size(names, prim.name)
                return leaf
            with using_trace(EVAL_TRACE):
                return bind1(mul_p, (leaf, np.asarray(axes_size(names, "psum"), aval_of(leaf).dtype)), NO_PARAMS)
        return bind1(prim, (leaf,), params_for_axes(names))
    axes_size(names, prim.name)  # the names must be bound where the function is called
    return _tree_map(one, x)


def params_for_axes(names: tuple[str, ...]) -> Params:
    items: dict[str, Param] = {"axes": names}
    return pmap(items)


def psum(x: T, axis_name: AxisName, *, axis_index_groups: None = None) -> T:
    """``jax.lax.psum``: the sum of ``x`` over the devices of the named mesh
    axes (a pytree of arrays); ``psum(1, name)`` is the axis size."""
    _no_groups("psum", axis_index_groups)
    return _allreduce_fn(psum_p, x, _names(axis_name, "psum"))


def pmax(x: T, axis_name: AxisName, *, axis_index_groups: None = None) -> T:
    """``jax.lax.pmax``: the elementwise maximum over the named axes."""
    _no_groups("pmax", axis_index_groups)
    return _allreduce_fn(pmax_p, x, _names(axis_name, "pmax"))


def pmin(x: T, axis_name: AxisName, *, axis_index_groups: None = None) -> T:
    """``jax.lax.pmin``: the elementwise minimum over the named axes."""
    _no_groups("pmin", axis_index_groups)
    return _allreduce_fn(pmin_p, x, _names(axis_name, "pmin"))


def pmean(x: T, axis_name: AxisName, *, axis_index_groups: None = None) -> T:
    """``jax.lax.pmean``: ``psum(x) / axis size``."""
    _no_groups("pmean", axis_index_groups)
    names = _names(axis_name, "pmean")
    n = axes_size(names, "pmean")
    summed = psum(x, names)
    return _tree_map(lambda s: bind1(div_p, (s, np.asarray(n, aval_of(s).dtype)), NO_PARAMS), summed)


def axis_size(axis_name: AxisName) -> int:
    """``jax.lax.axis_size``: the product of the named axes' sizes."""
    return axes_size(_names(axis_name, "axis_size"), "axis_size")


def axis_index(axis_name: str) -> Array:
    """``jax.lax.axis_index``: this device's position along the mesh axis, int32."""
    if not isinstance(axis_name, str):
        raise AxisNameError(f"axis_index: takes one axis name, got {axis_name!r}")
    axes_size((axis_name,), "axis_index")
    items: dict[str, Param] = {"axis_name": axis_name}
    out = bind1(axis_index_p, (), pmap(items))
    assert isinstance(out, Array)
    return out


def _dim(d: int, ndim: int, op: str) -> int:
    if not -ndim <= d < ndim:
        raise PrimitiveTypeError(f"{op}: axis {d} out of range for rank {ndim}")
    return d % ndim


def all_gather(x: T, axis_name: AxisName, *, axis_index_groups: None = None, axis: int = 0, tiled: bool = False) -> T:
    """``jax.lax.all_gather``: every device's ``x`` stacked along a new
    ``axis`` (or concatenated along it, ``tiled``)."""
    _no_groups("all_gather", axis_index_groups)
    names = _names(axis_name, "all_gather")
    size = axes_size(names, "all_gather")

    def one(leaf: Value) -> Value:
        ndim = len(aval_of(leaf).shape)
        dim = _dim(axis, ndim if tiled else ndim + 1, "all_gather")
        return bind1(all_gather_p, (leaf,), _gather_params_map(dim, names, size, tiled))
    return _tree_map(one, x)


def psum_scatter(
    x: T, axis_name: AxisName, *, scatter_dimension: int = 0, axis_index_groups: None = None, tiled: bool = False
) -> T:
    """``jax.lax.psum_scatter``: the sum over the named axes, each device
    keeping its piece of ``scatter_dimension`` (whose size must be the axis
    size, or a multiple of it when ``tiled``)."""
    _no_groups("psum_scatter", axis_index_groups)
    names = _names(axis_name, "psum_scatter")
    size = axes_size(names, "psum_scatter")

    def one(leaf: Value) -> Value:
        dim = _dim(scatter_dimension, len(aval_of(leaf).shape), "psum_scatter")
        return bind1(reduce_scatter_p, (leaf,), _scatter_params(dim, names, size, tiled))
    return _tree_map(one, x)


def all_to_all(
    x: T, axis_name: AxisName, split_axis: int, concat_axis: int, *, axis_index_groups: None = None, tiled: bool = False
) -> T:
    """``jax.lax.all_to_all``: ``split_axis`` cut into one piece per device,
    piece ``i`` sent to device ``i``, and the received pieces stacked along
    ``concat_axis`` (concatenated, ``tiled``); untiled, ``split_axis`` must
    equal the axis size and is removed, as JAX's."""
    _no_groups("all_to_all", axis_index_groups)
    names = _names(axis_name, "all_to_all")
    size = axes_size(names, "all_to_all")

    def one(leaf: Value) -> Value:
        shape = aval_of(leaf).shape
        split = _dim(split_axis, len(shape), "all_to_all")
        concat = _dim(concat_axis, len(shape), "all_to_all")
        if not tiled:
            if shape[split] != size:
                raise PrimitiveTypeError(
                    f"all_to_all: the size of split_axis ({shape[split]}) must equal the axis size ({size}) "
                    "when tiled=False")
            # as JAX: a new axis for the received pieces (none when the split
            # axis is also the concat axis: it keeps its size)
            if split != concat:
                if split < concat:
                    concat += 1
                else:
                    split += 1
                leaf = expand_dims(leaf, (concat,))
        params: dict[str, Param] = {
            "split_axis": split, "concat_axis": concat, "axis_name": names, "axis_size": size, "tiled": tiled,
        }
        out = bind1(all_to_all_p, (leaf,), pmap(params))
        if not tiled and split != concat:
            out = squeeze(out, (split,))
        return out
    return _tree_map(one, x)


def ppermute(x: T, axis_name: AxisName, perm: Sequence[tuple[int, int]]) -> T:
    """``jax.lax.ppermute``: device ``src`` sends ``x`` to device ``dst`` for
    each pair of ``perm`` (positions along the named axes); a device no pair
    sends to gets zeros."""
    names = _names(axis_name, "ppermute")
    axes_size(names, "ppermute")
    pairs: tuple[Param, ...] = tuple((int(s), int(d)) for s, d in perm)
    items: dict[str, Param] = {"axis_name": names, "perm": pairs}
    return _tree_map(lambda leaf: bind1(ppermute_p, (leaf,), pmap(items)), x)
