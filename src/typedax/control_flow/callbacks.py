"""Host callbacks: Python functions called from inside a computation, with
concrete values, eagerly and under ``jit``, ``vmap``, ``grad`` and control
flow. Three primitives, each with every rule (JAX's ``callback.py`` and
``debugging.py``):

* ``pure_callback``: a pure function with declared results
  (``result_shapes``/``result_dtypes``); no JVP (as JAX's, use
  ``custom_jvp``); ``vmap`` by its ``vmap_method``; dropped when its results
  are unused.
* ``io_callback``: an impure function with declared results, ``ordered`` or
  not; effectful (never dropped); ``vmap`` loops over the batch (not when
  ordered); no JVP.
* ``debug_callback``: a function returning nothing (``debug.print``,
  ``debug.callback``); effectful; its JVP calls back with the primal values,
  ``vmap`` calls back once per batch element, as JAX's.

Params hold the function as a string, ``callback='name#id'``: its name (for
the reader of a printed jaxpr) and its id in this process's table of
callbacks (``register_callback``), so params stay printable, parseable and
comparable by value. Equal callables (the same function with the same
argument structure) share an id, so a function traced again compiles once;
the table keeps each function alive for the life of the process, as a jaxpr
naming it may live that long.

Evaluation calls the function on typedax ``Array``s; the lowering emits
jaxlib's host-callback ``custom_call`` (``ctx.callback_target``, with the
function appended to ``ctx.host_callbacks``: the runtime gives them to XLA
with the module); ordered callbacks chain through a token. Results are
checked against the declared types on both paths (``CallbackResultError``,
naming the callback and both types).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import cast, overload

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from pyrsistent import pmap

from .. import tree
from ..core.array import Array, from_numpy
from ..core.avals import ShapedArray
from ..core.dtypes import canonicalize_dtype
from ..core.errors import CallbackError, CallbackResultError, CallbackVmapError
from ..core.ir import Eqn, NDArray, Param, Params, Primitive
from ..core.rules import BatchDim, Family, LoweringRule, Rules, Tangent
from ..core.trace import Value, aval_of, bind
from ..hlo import HloValue, LoweringContext, tensor_type
from ..primitives._params import _get, get_bool
from ..primitives.shaping import expand_dims
from ..primitives.dynamic_slicing import index_in_dim
from .common import batch_as, to_front
from .scans import scan

__all__ = [
    "VMAP_METHODS", "debug_callback", "debug_callback_p", "io_callback", "io_callback_p",
    "pure_callback", "pure_callback_p", "register_callback",
]

#: JAX's ``vmap_method`` values (``None``: ``vmap`` raises)
VMAP_METHODS: tuple[str | None, ...] = (
    "sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized", None,
)


# -- the table of callbacks ---------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FlatCallback:
    """A Python function called with flat arguments, returning its results'
    leaves: ``fn`` with its ``(args, kwargs)`` structure, and the arguments
    that are not arrays (``static``: position -> value) put back in place.
    Equal for the same function and structure (JAX's ``_FlatCallback``)."""

    fn: Callable[..., object]
    in_tree: tree.TreeDef
    static: tuple[tuple[int, Hashable], ...] = ()
    #: what a printed jaxpr calls it (default: the function's name)
    label: str = ""

    @property
    def name(self) -> str:
        n = self.label or getattr(self.fn, "__name__", None)
        return str(n) if n else type(self.fn).__name__

    def __call__(self, *flat: object) -> list[object]:
        leaves: list[object] = []
        it, static = iter(flat), dict(self.static)
        for i in range(len(flat) + len(static)):
            leaves.append(static[i] if i in static else next(it))
        pair = cast("tuple[tuple[object, ...], dict[str, object]]", tree.unflatten(self.in_tree, leaves))
        args, kwargs = pair  # in_tree is an (args, kwargs) pair's
        return tree.leaves(self.fn(*args, **kwargs))


_LOCK = threading.Lock()
_BY_ID: dict[int, FlatCallback] = {}
_IDS: dict[FlatCallback | int, int] = {}


def register_callback(cb: FlatCallback) -> str:
    """``cb``'s ``callback`` param: ``'name#id'``, an id for equal callbacks."""
    try:
        key: FlatCallback | int = cb
        hash(key)
    except TypeError:  # an unhashable callable (or static argument): by identity
        key = id(cb.fn)
    with _LOCK:
        i = _IDS.get(key)
        if i is None:
            i = _IDS[key] = len(_BY_ID)
            _BY_ID[i] = cb
    return f"{cb.name}#{i}"


def callback_of(prim: str, params: Params) -> FlatCallback:
    """The function an equation's ``callback`` param names."""
    p = _get(prim, params, "callback")
    if isinstance(p, str):
        _, _, i = p.rpartition("#")
        if i.isdigit() and int(i) in _BY_ID:
            return _BY_ID[int(i)]
    raise CallbackError(
        f"{prim}: callback={p!r} names no function registered in this process "
        "(a jaxpr with a callback can be parsed, but runs only where the callback was made)"
    )


def _result_avals(prim: str, params: Params) -> list[ShapedArray]:
    shapes, dtypes = _get(prim, params, "result_shapes"), _get(prim, params, "result_dtypes")
    if not (isinstance(shapes, tuple) and isinstance(dtypes, tuple) and len(shapes) == len(dtypes)):
        raise CallbackError(f"{prim}: result_shapes and result_dtypes must be tuples of one length")
    out = []
    for s, d in zip(shapes, dtypes):
        if not (isinstance(s, tuple) and all(isinstance(n, int) for n in s) and isinstance(d, np.dtype)):
            raise CallbackError(f"{prim}: a result shape {s!r} or dtype {d!r} is malformed")
        out.append(ShapedArray(tuple(n for n in s if isinstance(n, int)), d))
    return out


def _result_params(avals: Sequence[ShapedArray]) -> tuple[tuple[str, Param], tuple[str, Param]]:
    return ("result_shapes", tuple(a.shape for a in avals)), ("result_dtypes", tuple(a.dtype for a in avals))


# -- calling back --------------------------------------------------------------------
def _call(prim: str, params: Params, args: Sequence[NDArray], avals: Sequence[ShapedArray]) -> list[NDArray]:
    """Run the callback on ``args`` (as ``Array``s); its results, checked."""
    cb = callback_of(prim, params)
    outs = cb(*[from_numpy(np.array(a)) for a in args])
    if prim == "debug_callback":
        return []  # whatever it returns is ignored, as JAX's
    if len(outs) != len(avals):
        raise CallbackResultError(
            f"{prim}: callback '{cb.name}' returned {len(outs)} results where its "
            f"result_shape_dtypes declare {len(avals)}"
        )
    checked = []
    for i, (o, want) in enumerate(zip(outs, avals)):
        a = np.asarray(o)
        a = a.astype(canonicalize_dtype(a.dtype), copy=False)
        if a.shape != want.shape or a.dtype != want.dtype:
            got = ShapedArray(a.shape, a.dtype)
            raise CallbackResultError(
                f"{prim}: callback '{cb.name}' returned {got.str_short()} for result {i}, "
                f"but its result_shape_dtypes declare {want.str_short()}"
            )
        checked.append(a)
    return checked


def _impl_for(prim: str) -> Callable[[Sequence[NDArray], Params], list[NDArray]]:
    def impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
        avals = _result_avals(prim, params) if prim != "debug_callback" else []
        return _call(prim, params, args, avals)
    return impl


def _abstract_for(prim: str) -> Callable[[Sequence[ShapedArray], Params], list[ShapedArray]]:
    def abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        _get(prim, params, "callback")  # (parsed text may name one not in this process: it fails when run)
        return _result_avals(prim, params) if prim != "debug_callback" else []
    return abstract


def _row_major_layouts(ranks: Sequence[int]) -> ir.ArrayAttr:
    """A custom call's ``operand_layouts``/``result_layouts``: minor-to-major
    dimension orders, the last dimension minor (row-major), one per value."""
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(  # type: ignore[call-overload]  # a NumPy array is a Buffer at run time
            np.arange(r - 1, -1, -1, dtype=np.int64), type=ir.IndexType.get())
        for r in ranks
    ])


def _lowering_for(prim: str, effectful: bool) -> LoweringRule:
    def lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> Sequence[HloValue]:
        params = eqn.params
        avals = [v.aval for v in eqn.out_binders]
        ordered = prim != "pure_callback" and get_bool(prim, params, "ordered")

        def host(*flat: NDArray) -> tuple[object, ...]:
            # XLA passes NumPy views of its buffers (and the token, as None, first
            # when ordered); ``_call`` copies them, as JAX moves them to a device
            token, vals = (flat[:1], flat[1:]) if ordered else ((), flat)
            return (*token, *_call(prim, params, vals, avals))

        index = ctx.add_host_callback(host)
        operands = cast("list[ir.Value[ir.Type]]", list(args))  # tensors, and a token
        types: list[ir.Type] = [tensor_type(a) for a in avals]
        if ordered:
            token = ctx.token()
            if token is None:
                token = hlo.AfterAllOp([]).result
            operands, types = [token, *operands], [hlo.TokenType.get(), *types]
        in_ranks = [a.aval.ndim for a in eqn.inputs]
        out_ranks = [a.ndim for a in avals]
        if ordered:  # the token has no dimensions
            in_ranks, out_ranks = [0, *in_ranks], [0, *out_ranks]
        attributes = {
            # row-major buffers, as the host function reads them (JAX's default
            # layouts): without them a GPU compiler may hand the callback a
            # transposed buffer (jit(vmap(..., in_axes=1)) of a pure_callback)
            "operand_layouts": _row_major_layouts(in_ranks),
            "result_layouts": _row_major_layouts(out_ranks),
            "call_target_name": ir.StringAttr.get(ctx.callback_target),
            "has_side_effect": ir.BoolAttr.get(effectful),
            "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
            "backend_config": ir.DictAttr.get(
                {"index": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), index)}
            ),
        }
        op = hlo.CustomCallOp.build_generic(results=types, operands=operands, attributes=attributes)
        results = list(op.results)
        if ordered:
            ctx.set_token(results[0])
            results = results[1:]
        return results
    return lower


# -- transformations ---------------------------------------------------------------
def _no_jvp(message: str) -> Callable[[Sequence[Value], Sequence[Tangent], Params], tuple[list[Value], list[Tangent]]]:
    def jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
        raise CallbackError(message)
    return jvp


def _debug_jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    bind(debug_callback_p, primals, params)  # the primal values, as JAX's
    return [], []


def _debug_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    """Once per batch element, in order (JAX unrolls it the same way)."""
    for i in range(size):
        bind(debug_callback_p, [v if d is None else index_in_dim(v, i, d, keepdims=False)
                                for v, d in zip(vals, dims)], params)
    return [], []


def _sequential(prim: Primitive, size: int, vals: Sequence[Value], dims: Sequence[BatchDim],
                params: Params, unroll: bool = False) -> list[Value]:
    """``prim`` once per batch element, in a ``scan`` (JAX's ``lax.map``)."""
    front = to_front(size, vals, dims)
    batched = [v for v, d in zip(front, dims) if d is not None]

    def body(carry: tuple[()], xs: list[Value]) -> tuple[tuple[()], list[Array]]:
        it = iter(xs)
        return (), bind(prim, [next(it) if d is not None else v for v, d in zip(front, dims)], params)

    _, ys = scan(body, (), batched, unroll=unroll)
    return list(ys)


def _pure_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    method = _get("pure_callback", params, "vmap_method")
    avals = _result_avals("pure_callback", params)
    if method in ("sequential", "sequential_unrolled"):
        outs = _sequential(pure_callback_p, size, vals, dims, params, unroll=method == "sequential_unrolled")
        return outs, [0] * len(outs)
    batched = pmap({**params, **dict(_result_params([
        ShapedArray((size, *a.shape), a.dtype) for a in avals]))})
    if method == "legacy_vectorized":
        args = to_front(size, vals, dims)
    elif method == "expand_dims":
        args = [expand_dims(v, (0,)) if d is None else v for v, d in zip(to_front(size, vals, dims), dims)]
    elif method == "broadcast_all":
        args = batch_as(size, vals, dims, [True] * len(vals))
    else:
        raise CallbackVmapError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got vmap_method={method!r}."
        )
    results: list[Value] = list(bind(pure_callback_p, args, batched))
    return results, [0] * len(results)


def _io_batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    if get_bool("io_callback", params, "ordered"):
        raise CallbackError("Cannot `vmap` ordered IO callback.")
    outs = _sequential(io_callback_p, size, vals, dims, params)
    return outs, [0] * len(outs)


pure_callback_p = Primitive(
    "pure_callback", _impl_for("pure_callback"), _abstract_for("pure_callback"),
    Rules(
        jvp=_no_jvp("Pure callbacks do not support JVP. Please use `typedax.custom_jvp` "
                    "to use callbacks while taking gradients."),
        batch=_pure_batch, lower=_lowering_for("pure_callback", effectful=False),
    ),
)
io_callback_p = Primitive(
    "io_callback", _impl_for("io_callback"), _abstract_for("io_callback"),
    Rules(jvp=_no_jvp("IO callbacks do not support JVP."), batch=_io_batch,
          lower=_lowering_for("io_callback", effectful=True)),
    effectful=True,
)
debug_callback_p = Primitive(
    "debug_callback", _impl_for("debug_callback"), _abstract_for("debug_callback"),
    Rules(jvp=_debug_jvp, batch=_debug_batch, lower=_lowering_for("debug_callback", effectful=True)),
    effectful=True,
)

FAMILY = Family("callbacks", (pure_callback_p, io_callback_p, debug_callback_p))


# -- the user functions ------------------------------------------------------------
def _is_array(x: object) -> bool:
    return isinstance(x, (Array, np.ndarray, np.generic, bool, int, float, complex))


def _flat(fn: Callable[..., object], args: tuple[object, ...], kwargs: dict[str, object],
          split_static: bool = False, label: str = "") -> tuple[FlatCallback, list[Value]]:
    leaves, in_tree = tree.flatten((args, kwargs))
    # (hashed, or the callback is keyed by identity: register_callback)
    static = tuple((i, x) for i, x in enumerate(leaves) if split_static and not _is_array(x))
    dyn: list[Value] = []
    for x in leaves:
        if split_static and not _is_array(x):
            continue
        aval_of(x)  # an argument that is not an array is a clear error here
        dyn.append(cast(Value, x))  # aval_of accepted it
    return FlatCallback(fn, in_tree, static, label), dyn


def _is_shape_dtype(x: object) -> bool:
    return isinstance(x, (ShapedArray, Array, np.ndarray, np.generic))


def _declared(what: str, result_shape_dtypes: object) -> tuple[list[ShapedArray], tree.TreeDef]:
    # a ShapeDtypeStruct (a dataclass, so a pytree node) or any value with
    # a shape and a dtype (a NumPy or typedax array) is one leaf
    leaves, out_tree = tree.flatten(result_shape_dtypes, is_leaf=_is_shape_dtype)
    avals = []
    for x in leaves:
        shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
        if shape is None or dtype is None:
            raise CallbackError(
                f"{what}: each leaf of result_shape_dtypes needs a shape and a dtype "
                f"(e.g. typedax.ShapeDtypeStruct), got {type(x).__name__}"
            )
        dt = np.dtype(dtype)
        if canonicalize_dtype(dt) != dt:
            raise CallbackError(
                f"{what}: result_shape_dtypes cannot specify 64-bit types ({dt}) when x64 is disabled"
            )
        avals.append(ShapedArray(tuple(int(n) for n in shape), dt))
    return avals, out_tree


@overload
def pure_callback(
    callback: Callable[..., object], result_shape_dtypes: ShapedArray, *args: object,
    vmap_method: str | None = None, **kwargs: object,
) -> Array: ...
@overload
def pure_callback(
    callback: Callable[..., object], result_shape_dtypes: object, *args: object,
    vmap_method: str | None = None, **kwargs: object,
) -> object: ...
def pure_callback(
    callback: Callable[..., object], result_shape_dtypes: object, *args: object,
    vmap_method: str | None = None, **kwargs: object,
) -> object:
    """``jax.pure_callback``: call the pure host function ``callback(*args,
    **kwargs)``, whose results have the shapes and dtypes of
    ``result_shape_dtypes`` (a pytree of ``ShapeDtypeStruct``s). ``vmap_method``
    says how ``vmap`` calls it: ``'sequential'`` (``'sequential_unrolled'``)
    once per element, ``'expand_dims'`` with a leading axis of 1 on unbatched
    arguments, ``'broadcast_all'`` with every argument batched,
    ``'legacy_vectorized'`` with only the batched ones; ``None``: ``vmap``
    raises."""
    if vmap_method not in VMAP_METHODS:
        raise CallbackError(
            f"vmap_method must be on of the allowed methods {list(VMAP_METHODS)}, but got: {vmap_method}"
        )
    avals, out_tree = _declared("pure_callback", result_shape_dtypes)
    cb, dyn = _flat(callback, args, kwargs)
    params = pmap(dict([("callback", register_callback(cb)), *_result_params(avals),
                        ("vmap_method", vmap_method)]))
    return tree.unflatten(out_tree, bind(pure_callback_p, dyn, params))


@overload
def io_callback(
    callback: Callable[..., object], result_shape_dtypes: ShapedArray, *args: object,
    ordered: bool = False, **kwargs: object,
) -> Array: ...
@overload
def io_callback(
    callback: Callable[..., object], result_shape_dtypes: object, *args: object,
    ordered: bool = False, **kwargs: object,
) -> object: ...
def io_callback(
    callback: Callable[..., object], result_shape_dtypes: object, *args: object,
    ordered: bool = False, **kwargs: object,
) -> object:
    """``jax.experimental.io_callback``: call the impure host function
    ``callback(*args, **kwargs)``; never dropped, and with ``ordered=True``
    run in program order with the other ordered callbacks (then not
    ``vmap``-able, as JAX's)."""
    avals, out_tree = _declared("io_callback", result_shape_dtypes)
    cb, dyn = _flat(callback, args, kwargs)
    params = pmap(dict([("callback", register_callback(cb)), *_result_params(avals),
                        ("ordered", bool(ordered))]))
    return tree.unflatten(out_tree, bind(io_callback_p, dyn, params))


def debug_callback(callback: Callable[..., object], *args: object, ordered: bool = False,
                   _label: str = "", **kwargs: object) -> None:
    """``jax.debug.callback``: call ``callback(*args, **kwargs)`` with concrete
    values wherever the computation runs (arguments that are not arrays are
    passed as they are); its result is ignored."""
    if not callable(callback):
        raise CallbackError(
            "first argument to typedax.debug.callback must be callable, "
            f"but got an object of type {type(callback)}"
        )
    cb, dyn = _flat(callback, args, kwargs, split_static=True, label=_label)
    bind(debug_callback_p, dyn, pmap({"callback": register_callback(cb), "ordered": bool(ordered)}))
