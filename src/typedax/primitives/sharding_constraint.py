"""``sharding_constraint``: the identity, telling XLA's SPMD partitioner how
its result is to be laid out over a mesh (JAX's ``sharding_constraint_p``,
under ``lax.with_sharding_constraint``).

Its params name a ``NamedSharding`` by value, so the equation prints,
parses and compares like any other: ``mesh_devices`` (device ids, the mesh
in C order), ``mesh_shape``, ``mesh_axes`` (names) and ``spec`` (per array
dimension, the tuple of mesh axes splitting it). Every rule is the
identity: evaluation, JVP (the tangent is constrained alike), transpose,
and batching (the batch axis moves to the front, unsplit); the lowering is
JAX's ``@Sharding`` custom call with the ``mhlo.sharding`` attribute.
``jit`` reads the mesh's devices from these equations
(``constraint_devices``) to choose the devices a program runs on.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.avals import ShapedArray
from ..core.errors import PrimitiveTypeError
from ..core.ir import Eqn, Jaxpr, NDArray, Param, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, UndefPrimal
from ..core.sharding import Mesh, NamedSharding
from ..core.trace import Value, aval_of, bind1
from ..hlo import HloValue, LoweringContext
from ._params import get_ints
from .structural import check_arity, linear_jvp, move_batch_axis

if TYPE_CHECKING:
    from ..lowering.jaxlib_api import Device

NAME = "sharding_constraint"


def constraint_params(s: NamedSharding, ndim: int) -> Params:
    """The params naming ``s`` for an array of rank ``ndim``."""
    from pyrsistent import pmap

    items: dict[str, Param] = {
        "mesh_devices": tuple(d.id for d in s.mesh.flat_devices),
        "mesh_shape": s.mesh.axis_sizes,
        "mesh_axes": s.mesh.axis_names,
        "spec": tuple(s._splits(ndim)),
    }
    return pmap(items)


def _strs(params: Params, key: str) -> tuple[str, ...]:
    v = params.get(key)
    if not isinstance(v, tuple) or not all(isinstance(x, str) for x in v):
        raise PrimitiveTypeError(f"{NAME}: param '{key}' must be a tuple of strings, got {v!r}")
    return tuple(x for x in v if isinstance(x, str))


def _spec(params: Params) -> tuple[tuple[str, ...], ...]:
    v = params.get("spec")
    if not isinstance(v, tuple) or not all(isinstance(p, tuple) and all(isinstance(a, str) for a in p) for p in v):
        raise PrimitiveTypeError(f"{NAME}: param 'spec' must be a tuple of tuples of axis names, got {v!r}")
    return tuple(tuple(a for a in p if isinstance(a, str)) for p in v if isinstance(p, tuple))


def tiling(params: Params) -> tuple[list[int], list[int], list[int], bool] | None:
    """XLA's tiling for the constrained value (``NamedSharding.tile_assignment``,
    on the mesh's sizes: no devices needed)."""
    sizes = dict(zip(_strs(params, "mesh_axes"), get_ints(NAME, params, "mesh_shape")))
    names = [n for n, s in sizes.items() if s != 1]
    splits = [tuple(a for a in p if a in names) for p in _spec(params)]
    used = [a for p in splits for a in p]
    if not used:
        return None
    dims = [1] * len(splits)
    for d, p in enumerate(splits):
        for a in p:
            dims[d] *= sizes[a]
    perm = [names.index(a) for a in used]
    rest = [i for i, n in enumerate(names) if n not in used]
    if rest:
        n_rest = 1
        for i in rest:
            n_rest *= sizes[names[i]]
        dims.append(n_rest)
        perm.extend(rest)
    return dims, [sizes[n] for n in names], perm, bool(rest)


def hlo_sharding_text(params: Params) -> str:
    """The ``mhlo.sharding`` text, as ``str(HloSharding)`` prints XLA's iota
    form (``{devices=[4,1,2]<=[8] last_tile_dim_replicate}``): mesh axes
    taken in a row (consecutive in the permutation) merge into one, as
    XLA's ``CanonicalizeIotaDims`` merges them, and no transpose is left
    when the order is the mesh's. (This layer cannot reach jaxlib's
    ``HloSharding``; tests/test_sharding.py compares the two.)"""
    t = tiling(params)
    if t is None:
        return "{replicated}"
    dims, sizes, perm, last = t
    runs: list[list[int]] = []
    for axis in perm:
        if runs and runs[-1][-1] + 1 == axis:
            runs[-1].append(axis)
        else:
            runs.append([axis])
    order = sorted(range(len(runs)), key=lambda r: runs[r][0])  # merged dims in mesh order
    merged = [_prod([sizes[a] for a in runs[r]]) for r in order]
    new_perm = [order.index(r) for r in range(len(runs))]
    if new_perm == sorted(new_perm):
        iota = f"<=[{_prod(sizes)}]"
    else:
        iota = f"<=[{','.join(map(str, merged))}]T({','.join(map(str, new_perm))})"
    tail = " last_tile_dim_replicate" if last else ""
    return f"{{devices=[{','.join(map(str, dims))}]{iota}{tail}}}"


def _prod(xs: Sequence[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def _check(aval: ShapedArray, params: Params) -> None:
    mesh_axes = _strs(params, "mesh_axes")
    shape = get_ints(NAME, params, "mesh_shape")
    devices = get_ints(NAME, params, "mesh_devices")
    if len(shape) != len(mesh_axes) or _prod(shape) != len(devices):
        raise PrimitiveTypeError(f"{NAME}: a mesh of shape {shape}, axes {mesh_axes}, has {len(devices)} devices")
    spec = _spec(params)
    if len(spec) != len(aval.shape):
        raise PrimitiveTypeError(f"{NAME}: a spec of {len(spec)} dimensions for {aval.str_short()}")
    sizes = dict(zip(mesh_axes, shape))
    for d, p in enumerate(spec):
        n = 1
        for a in p:
            if a not in sizes:
                raise PrimitiveTypeError(f"{NAME}: axis {a!r} is not in the mesh {mesh_axes}")
            n *= sizes[a]
        if aval.shape[d] % n:
            raise PrimitiveTypeError(
                f"{NAME}: dimension {d} of {aval.str_short()} is not divisible by its mesh axes {p} ({n})"
            )


def _impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [args[0]]


def _abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity(NAME, avals, 1)
    _check(avals[0], params)
    return [avals[0]]


def _transpose(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    p = ps[0]
    typed = p.aval.sharding if isinstance(p, UndefPrimal) else None
    if typed is not None:  # explicit sharding: the cotangent is laid out (and typed) as the operand, as JAX's reshard
        params = constraint_params(typed, len(typed.spec))
    return [bind1(sharding_constraint_p, (cts[0],), params)]


def as_typed(x: Value, aval: ShapedArray) -> Value:
    """``x`` constrained to ``aval``'s sharding type when it has another
    (explicit sharding: a cotangent takes its primal's type, as JAX's
    transposes give it)."""
    typed = aval.sharding
    if typed is None or x is None:
        return x
    have = aval_of(x).sharding
    if have is not None and have.spec == typed.spec:
        return x
    return bind1(sharding_constraint_p, (x,), constraint_params(typed, len(typed.spec)))


def _batch(
    axis_size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    x = move_batch_axis(axis_size, dims[0], 0, vals[0])
    batched = params.set("spec", ((), *_spec(params)))
    return [bind1(sharding_constraint_p, (x,), batched)], [0]


def _lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    attributes: dict[str, ir.Attribute] = {
        "call_target_name": ir.StringAttr.get("Sharding"),
        "backend_config": ir.StringAttr.get(""),
    }
    op = hlo.CustomCallOp.build_generic(results=[args[0].type], operands=[args[0]], attributes=attributes)
    op.operation.attributes["mhlo.sharding"] = ir.StringAttr.get(hlo_sharding_text(eqn.params))
    return list(op.results)


sharding_constraint_p = Primitive(
    NAME, _impl, _abstract,
    rules_for=lambda p: Rules(jvp=linear_jvp(p), transpose=_transpose, batch=_batch, lower=_lower),
)


def constraint_devices(jaxpr: Jaxpr) -> Iterator[tuple[int, ...]]:
    """The device ids of each ``sharding_constraint`` and ``shard_map`` in
    ``jaxpr`` (an equation naming a mesh by value: a ``mesh_devices``
    param), nested jaxprs included."""
    for eqn in _all_eqns(jaxpr):
        if "mesh_devices" in eqn.params:  # a constraint or a shard_map
            yield get_ints(NAME, eqn.params, "mesh_devices")


FAMILY = Family("sharding", (sharding_constraint_p,))


def constraint_mesh(jaxpr: Jaxpr, devices: dict[int, Device]) -> Mesh | None:
    """The mesh of the first ``sharding_constraint`` or ``shard_map`` in ``jaxpr`` (its
    devices looked up by id in ``devices``)."""
    for eqn in _all_eqns(jaxpr):
        if "mesh_devices" in eqn.params:  # a constraint or a shard_map
            grid = np.empty(len(get_ints(NAME, eqn.params, "mesh_devices")), dtype=object)
            grid[:] = [devices[i] for i in get_ints(NAME, eqn.params, "mesh_devices")]
            return Mesh(grid.reshape(get_ints(NAME, eqn.params, "mesh_shape")), _strs(eqn.params, "mesh_axes"))
    return None


def _all_eqns(jaxpr: Jaxpr) -> Iterator[Eqn]:
    for eqn in jaxpr.eqns:
        yield eqn
        for v in eqn.params.values():
            for j in _jaxprs(v):
                yield from _all_eqns(j)


def _jaxprs(p: Param) -> Iterator[Jaxpr]:
    if isinstance(p, Jaxpr):
        yield p
    elif isinstance(p, tuple):
        for x in p:
            yield from _jaxprs(x)
