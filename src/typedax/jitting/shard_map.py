"""``shard_map``: per-device code over a mesh (JAX's ``shard_map_p``), the
higher-order primitive and its user function.

The equation holds the **per-device** jaxpr (``jaxpr``), the mesh by value
(``mesh_devices``, ``mesh_shape``, ``mesh_axes``, as ``sharding_constraint``
names it), for each operand and result its spec (``in_specs``/``out_specs``:
per dimension, the mesh axes splitting it) and ``check_rep``. Its operands
and results are the **global** arrays: dimension ``d`` of a value is its
per-device dimension times the sizes of the axes in ``spec[d]``.

Rules (each runs with the mesh's axes bound, ``core/axes.py``, since the
body's collectives look their axes up):

* evaluation: the one-equation program compiled over the mesh's devices
  (inputs laid out by ``in_specs``, outputs by ``out_specs``) and run, as
  JAX runs ``shard_map`` eagerly (jitted);
* abstract evaluation: the per-device types the specs give must be the
  body's; the results are the body's outputs made global;
* JVP: the JVP of the body, tangents with their primals' specs;
* batching: the body batched along a new leading axis that no mesh axis
  splits;
* transposition: the transposed body, as JAX's without replication
  checking (``check_vma=False``): a cotangent of an output replicated over
  axes its spec does not mention is divided by their size, and an input's
  cotangent summed (``psum``) over the axes its spec does not mention --
  with ``psum``'s transpose being ``psum``, this gives the derivative of
  the global function;
* partial evaluation: the known outputs are a ``shard_map`` of the known
  part of the body; the unknown ones *recompute* from the known inputs (no
  residuals leave the per-device code, where JAX saves them split over all
  mesh axes);
* lowering: JAX's manual-sharding region (GSPMD): each operand passes
  through the ``@Sharding`` custom call (its spec's sharding, on the full
  shape) and ``@SPMDFullToShardShape`` (``{manual}``, to the per-device
  shape); the body lowers on per-device shapes with the mesh's axes in
  ``LoweringContext.mesh_axes`` (which the collectives' replica groups come
  from); each result passes through ``@Sharding`` (``{manual}``) and
  ``@SPMDShardToFullShape`` (its spec's sharding, to the full shape).

``check_rep`` is kept and printed; typedax does not infer replication (JAX's
``check_vma``), so an ``out_specs`` that claims replication the body does not
compute is not caught.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple, TypeVar, cast, overload

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from pyrsistent import pmap

from .. import tree
from ..control_flow.common import batch_jaxpr, dims0, forward_deps, jvp_jaxpr_nz, nonzero, tangents_out, to_front, trace_callable
from ..core.avals import ShapedArray
from ..core.axes import binding
from ..core.errors import AxisNameError, PrimitiveTypeError, ShardingError
from ..core.eval import eval_jaxpr
from ..core.ir import Eqn, Jaxpr, NDArray, Param, Params, Primitive, Var
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.sharding import Mesh, NamedSharding, PartitionSpec
from ..core.trace import Value, aval_of, bind, bind1
from ..core.typecheck import typecheck_jaxpr
from ..hlo import HloValue, LoweringContext, lower_jaxpr_body, tensor_type
from ..interpreters.dce import dce_jaxpr
from ..interpreters.staging import trace_to_jaxpr_flat
from ..interpreters.transpose import transpose_jaxpr
from ..lowering import compile_cache
from ..lowering.runtime import backend
from ..lowering.sharding import ShardingPlan
from ..primitives._params import _get, get_bool, get_ints, get_jaxpr
from ..primitives.collectives import FAMILY as COLLECTIVES
from ..primitives.collectives import psum
from ..primitives.elementwise import div_p
from ..primitives.sharding_constraint import hlo_sharding_text
from .sharded import run

__all__ = ["ShardMapParams", "jax_shard_map", "shard_map", "shard_map_p"]

NAME = "shard_map"
#: Per array dimension, the mesh axes splitting it (outermost first).
Spec = tuple[tuple[str, ...], ...]
F = TypeVar("F", bound=Callable[..., object])


class ShardMapParams(NamedTuple):
    """``shard_map``'s params, typed (``ShardMapParams.of(eqn.params)``)."""

    jaxpr: Jaxpr
    mesh_devices: tuple[int, ...]
    mesh_shape: tuple[int, ...]
    mesh_axes: tuple[str, ...]
    in_specs: tuple[Spec, ...]
    out_specs: tuple[Spec, ...]
    check_rep: bool

    @staticmethod
    def of(params: Params) -> ShardMapParams:
        axes = _get(NAME, params, "mesh_axes")
        if not isinstance(axes, tuple) or not all(isinstance(a, str) for a in axes):
            raise PrimitiveTypeError(f"{NAME}: param 'mesh_axes' must be a tuple of names, got {axes!r}")
        p = ShardMapParams(
            get_jaxpr(NAME, params, "jaxpr"), get_ints(NAME, params, "mesh_devices"),
            get_ints(NAME, params, "mesh_shape"), tuple(a for a in axes if isinstance(a, str)),
            _specs(params, "in_specs"), _specs(params, "out_specs"), get_bool(NAME, params, "check_rep"),
        )
        if len(p.mesh_shape) != len(p.mesh_axes) or int(np.prod(p.mesh_shape, dtype=np.int64)) != len(p.mesh_devices):
            raise PrimitiveTypeError(f"{NAME}: a mesh of shape {p.mesh_shape}, axes {p.mesh_axes}, has {len(p.mesh_devices)} devices")
        for spec in (*p.in_specs, *p.out_specs):
            for part in spec:
                for a in part:
                    if a not in p.mesh_axes:
                        raise PrimitiveTypeError(f"{NAME}: axis {a!r} of a spec is not in the mesh {p.mesh_axes}")
        return p

    def to_params(self) -> Params:
        items: dict[str, Param] = dict(self._asdict())
        return pmap(items)

    @property
    def sizes(self) -> dict[str, int]:
        return dict(zip(self.mesh_axes, self.mesh_shape))

    @contextmanager
    def axes_bound(self) -> Iterator[None]:
        with binding(tuple(zip(self.mesh_axes, self.mesh_shape))):
            yield

    def unmentioned(self, spec: Spec) -> tuple[str, ...]:
        used = {a for part in spec for a in part}
        return tuple(a for a in self.mesh_axes if a not in used)


def _specs(params: Params, key: str) -> tuple[Spec, ...]:
    v = _get(NAME, params, key)
    ok = isinstance(v, tuple) and all(
        isinstance(s, tuple) and all(isinstance(p, tuple) and all(isinstance(a, str) for a in p) for p in s) for s in v
    )
    if not ok or not isinstance(v, tuple):
        raise PrimitiveTypeError(f"{NAME}: param '{key}' must be a tuple of specs (tuples of tuples of axis names), got {v!r}")
    return tuple(
        tuple(tuple(a for a in p if isinstance(a, str)) for p in s if isinstance(p, tuple))
        for s in v if isinstance(s, tuple)
    )


def _factor(sizes: dict[str, int], part: tuple[str, ...]) -> int:
    n = 1
    for a in part:
        n *= sizes[a]
    return n


def shard_aval(aval: ShapedArray, spec: Spec, sizes: dict[str, int], what: str) -> ShapedArray:
    """The per-device type of a global value laid out by ``spec``."""
    if len(spec) != len(aval.shape):
        raise ShardingError(f"{what}: a spec of {len(spec)} dimensions for {aval.str_short()}")
    shape = []
    for d, (n, part) in enumerate(zip(aval.shape, spec)):
        f = _factor(sizes, part)
        if n % f:
            raise ShardingError(
                f"{what}: dimension {d} of {aval.str_short()} ({n}) is not divisible by the size of its "
                f"mesh axes {part} ({f})"
            )
        shape.append(n // f)
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


def unshard_aval(aval: ShapedArray, spec: Spec, sizes: dict[str, int]) -> ShapedArray:
    """The global type of per-device values of type ``aval`` laid out by ``spec``."""
    shape = tuple(n * _factor(sizes, part) for n, part in zip(aval.shape, spec))
    return ShapedArray(shape, aval.dtype, aval.weak_type)


# -- evaluation and abstract evaluation ------------------------------------------------------
def _abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    p = ShardMapParams.of(params)
    if len(avals) != len(p.in_specs) or len(p.out_specs) != len(p.jaxpr.outs):
        raise PrimitiveTypeError(
            f"{NAME}: {len(p.in_specs)} in_specs and {len(p.out_specs)} out_specs for {len(avals)} operands "
            f"and a body of {len(p.jaxpr.outs)} results"
        )
    per_device = [shard_aval(a, s, p.sizes, NAME) for a, s in zip(avals, p.in_specs)]
    _check_axis_names(p.jaxpr, p.mesh_axes)
    with p.axes_bound():
        t = typecheck_jaxpr(p.jaxpr)
    if t.in_types != tuple(per_device):
        raise PrimitiveTypeError(
            f"{NAME}: the body takes ({', '.join(a.str_short() for a in t.in_types)}) per device, but the "
            f"operands give ({', '.join(a.str_short() for a in per_device)})"
        )
    outs = []
    for a, s in zip(t.out_types, p.out_specs):
        if len(s) != len(a.shape):
            raise PrimitiveTypeError(f"{NAME}: an out spec of {len(s)} dimensions for {a.str_short()}")
        outs.append(unshard_aval(a, s, p.sizes))
    return outs


def _check_axis_names(jaxpr: Jaxpr, mesh_axes: tuple[str, ...]) -> None:
    """Every collective of the body names axes of the mesh. (Its own
    abstract evaluation checks this too, but a body parsed from text was
    checked before the mesh was known, and ``typecheck_jaxpr`` remembers
    that result.)"""
    for eqn in jaxpr.eqns:
        if eqn.primitive in COLLECTIVES.primitives:
            for key in ("axes", "axis_name"):
                v = eqn.params.get(key)
                for name in (v,) if isinstance(v, str) else v if isinstance(v, tuple) else ():
                    if name not in mesh_axes:
                        raise AxisNameError(
                            f"{eqn.primitive.name}: unbound axis name: {name!r}; the shard_map's mesh has axes {mesh_axes}")
        for v in eqn.params.values():
            if isinstance(v, Jaxpr):
                _check_axis_names(v, mesh_axes)


def _mesh(p: ShardMapParams) -> Mesh:
    by_id = {d.id: d for d in backend().all_devices}
    missing = [i for i in p.mesh_devices if i not in by_id]
    if missing:
        raise ShardingError(f"{NAME}: the mesh names devices typedax does not have: {missing}")
    grid = np.empty(len(p.mesh_devices), dtype=object)
    grid[:] = [by_id[i] for i in p.mesh_devices]
    return Mesh(grid.reshape(p.mesh_shape), p.mesh_axes)


def spec_to_pspec(spec: Spec) -> PartitionSpec:
    return PartitionSpec(*[None if not part else part[0] if len(part) == 1 else part for part in spec])


@functools.lru_cache(maxsize=256)
def _program(params: Params, in_avals: tuple[ShapedArray, ...]) -> tuple[Jaxpr, ShardingPlan]:
    """The one-equation program that runs a ``shard_map`` eagerly, and its
    plan (remembered: the compile cache holds its executable while it lives)."""
    p = ShardMapParams.of(params)
    ins = tuple(Var(a) for a in in_avals)
    outs = tuple(Var(a) for a in _abstract(in_avals, params))
    jaxpr = Jaxpr(ins, (Eqn(shard_map_p, ins, params, outs),), outs)
    mesh = _mesh(p)
    plan = ShardingPlan(
        tuple(NamedSharding(mesh, spec_to_pspec(s)) for s in p.in_specs),
        tuple(NamedSharding(mesh, spec_to_pspec(s)) for s in p.out_specs),
        tuple(mesh.flat_devices), mesh,
    )
    return jaxpr, plan


def _eval_values(args: Sequence[Value], params: Params) -> list[Value]:
    jaxpr, plan = _program(params, tuple(aval_of(x) for x in args))
    return run(compile_cache.get(jaxpr, NAME, shardings=plan), args)


def _impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [np.asarray(o) for o in _eval_values(args, params)]


# -- transformations ------------------------------------------------------------------------
def _jvp(primals: Sequence[Value], tangents: Sequence[Tangent], params: Params) -> tuple[list[Value], list[Tangent]]:
    p = ShardMapParams.of(params)
    nz = [nonzero(t) for t in tangents]
    with p.axes_bound():
        body, out_nz, consts = jvp_jaxpr_nz(p.jaxpr, nz, [False] * len(p.jaxpr.outs))
    # the constants the JVP staged (arrays a rule builds) are operands, replicated
    k_specs = tuple(((),) * len(aval_of(c).shape) for c in consts)
    in_specs = (*k_specs, *p.in_specs, *(s for s, z in zip(p.in_specs, nz) if z))
    out_specs = (*p.out_specs, *(s for s, z in zip(p.out_specs, out_nz) if z))
    new = p._replace(jaxpr=body, in_specs=in_specs, out_specs=out_specs)
    dots = [t for t in tangents if not isinstance(t, Zero)]
    outs = bind(shard_map_p, [*consts, *primals, *dots], new.to_params())
    out_avals = _abstract([aval_of(x) for x in primals], params)
    return tangents_out(outs, len(p.jaxpr.outs), out_nz, out_avals)


def _batch(size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params) -> tuple[list[Value], list[BatchDim]]:
    p = ShardMapParams.of(params)
    in_b = [d is not None for d in dims]
    with p.axes_bound():
        out_b = forward_deps(p.jaxpr, in_b)
        body = batch_jaxpr(p.jaxpr, size, dims0(in_b), out_b)
    new = p._replace(
        jaxpr=body,
        in_specs=tuple(((), *s) if b else s for s, b in zip(p.in_specs, in_b)),
        out_specs=tuple(((), *s) if b else s for s, b in zip(p.out_specs, out_b)),
    )
    return list(bind(shard_map_p, to_front(size, vals, dims), new.to_params())), dims0(out_b)


def _transpose(cts: Sequence[Value], primals: Sequence[Primal], params: Params) -> list[Value | None]:
    p = ShardMapParams.of(params)
    lin = [isinstance(x, UndefPrimal) for x in primals]
    res = [x for x in primals if not isinstance(x, UndefPrimal)]
    res_specs = [s for s, li in zip(p.in_specs, lin) if not li]
    lin_specs = [s for s, li in zip(p.in_specs, lin) if li]
    with p.axes_bound():
        body_t = transpose_jaxpr(p.jaxpr, lin)
        n_res = len(res)

        def scaled(args: list[Value]) -> list[Value]:
            ins = list(args[:n_res])
            for ct, spec in zip(args[n_res:], p.out_specs):
                n = _factor(p.sizes, p.unmentioned(spec))
                ins.append(ct if n == 1 else bind1(div_p, (ct, np.asarray(n, aval_of(ct).dtype)), pmap()))
            outs = eval_jaxpr(body_t, ins)
            return [psum(o, p.unmentioned(s)) if p.unmentioned(s) else o for o, s in zip(outs, lin_specs)]

        closed = trace_to_jaxpr_flat(scaled, list(body_t.in_avals), "transpose(shard_map)")
    body = Jaxpr(closed.jaxpr.in_binders[len(closed.consts):], closed.jaxpr.eqns, closed.jaxpr.outs) if not closed.consts else None
    if body is None:
        raise AssertionError("shard_map's transpose staged array constants")
    new = p._replace(jaxpr=body, in_specs=(*res_specs, *p.out_specs), out_specs=tuple(lin_specs))
    outs = iter(bind(shard_map_p, [*res, *cts], new.to_params()))
    return [next(outs) if li else None for li in lin]


def _partial_eval(unks_in: Sequence[bool], eqn: Eqn) -> tuple[Eqn | None, Eqn | None, list[bool], list[Var]]:
    p = ShardMapParams.of(eqn.params)
    with p.axes_bound():
        out_uk = forward_deps(p.jaxpr, unks_in)
    known = _restrict(eqn, p, [not u for u in out_uk])
    unknown = _restrict(eqn, p, out_uk)
    residuals: list[Var] = []
    if unknown is not None:
        residuals = list(dict.fromkeys(
            a for a in unknown.inputs
            if isinstance(a, Var) and any(a is b and not u for b, u in zip(eqn.inputs, unks_in))
        ))
    return known, unknown, list(out_uk), residuals


def _restrict(eqn: Eqn, p: ShardMapParams, used: Sequence[bool]) -> Eqn | None:
    """``eqn`` computing only its ``used`` outputs, reading only what they need."""
    if not any(used):
        return None
    with p.axes_bound():
        body, used_in = dce_jaxpr(p.jaxpr, used)
    new = p._replace(
        jaxpr=body,
        in_specs=tuple(s for s, u in zip(p.in_specs, used_in) if u),
        out_specs=tuple(s for s, u in zip(p.out_specs, used) if u),
    )
    return Eqn(
        shard_map_p, tuple(a for a, u in zip(eqn.inputs, used_in) if u), new.to_params(),
        tuple(v for v, u in zip(eqn.out_binders, used) if u),
    )


def _dce(used: Sequence[bool], eqn: Eqn) -> Eqn | None:
    return _restrict(eqn, ShardMapParams.of(eqn.params), used)


# -- lowering ---------------------------------------------------------------------------------
def _custom_call(target: str, x: HloValue, out: ShapedArray, sharding: str) -> HloValue:
    attributes: dict[str, ir.Attribute] = {
        "call_target_name": ir.StringAttr.get(target),
        "backend_config": ir.StringAttr.get(""),
    }
    op = hlo.CustomCallOp.build_generic(results=[tensor_type(out)], operands=[x], attributes=attributes)
    op.operation.attributes["mhlo.sharding"] = ir.StringAttr.get(sharding)
    result: HloValue = op.results[0]
    return result


def _lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    p = ShardMapParams.of(eqn.params)
    manual = int(np.prod(p.mesh_shape, dtype=np.int64)) != 1  # a one-device mesh needs no region

    def spec_text(spec: Spec) -> str:
        return hlo_sharding_text(pmap({"mesh_axes": p.mesh_axes, "mesh_shape": p.mesh_shape, "spec": spec}))

    ins = []
    for x, a, spec, b in zip(args, (x.aval for x in eqn.inputs), p.in_specs, p.jaxpr.in_binders):
        if manual:
            x = _custom_call("Sharding", x, a, spec_text(spec))
            x = _custom_call("SPMDFullToShardShape", x, b.aval, "{manual}")
        ins.append(x)
    saved = ctx.mesh_axes
    ctx.mesh_axes = tuple(zip(p.mesh_axes, p.mesh_shape))
    try:
        outs = lower_jaxpr_body(ctx, p.jaxpr, ins)
    finally:
        ctx.mesh_axes = saved
    results = []
    for y, a, spec, v in zip(outs, (o.aval for o in p.jaxpr.outs), p.out_specs, eqn.out_binders):
        if manual:
            y = _custom_call("Sharding", y, a, "{manual}")
            y = _custom_call("SPMDShardToFullShape", y, v.aval, spec_text(spec))
        results.append(y)
    return results


shard_map_p = Primitive(
    NAME, _impl, _abstract,
    Rules(
        jvp=_jvp, transpose=_transpose, batch=_batch, lower=_lower,
        partial_eval=_partial_eval, dce=_dce, eval_values=_eval_values,
    ),
)

FAMILY = Family("shard_map", (shard_map_p,))


# -- the user function --------------------------------------------------------------------------
def _spec_leaves(specs: object, value: object, what: str) -> list[PartitionSpec]:
    """One ``PartitionSpec`` per leaf of ``value``: ``specs`` is a pytree
    prefix of it (a spec, or ``None`` for ``P()``, stands for every leaf below)."""
    if specs is None or isinstance(specs, PartitionSpec):
        return [specs or PartitionSpec()] * len(tree.leaves(value))
    if isinstance(specs, (tuple, list)) and isinstance(value, (tuple, list)) and len(specs) == len(value):
        return [s for sp, v in zip(specs, value) for s in _spec_leaves(sp, v, what)]
    if isinstance(specs, dict) and isinstance(value, dict) and sorted(specs) == sorted(value):
        return [s for k in sorted(value) for s in _spec_leaves(specs[k], value[k], what)]
    raise ShardingError(
        f"shard_map {what} must be a PartitionSpec or a pytree prefix of the values it describes; "
        f"got {specs!r} for a {type(value).__name__}"
    )


def _spec_of(ps: PartitionSpec, ndim: int, mesh: Mesh, what: str) -> Spec:
    if len(ps) > ndim:
        raise ShardingError(f"shard_map {what}: {ps!r} has {len(ps)} entries for an array of rank {ndim}")
    out: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for part in (*ps, *([None] * (ndim - len(ps)))):
        names = () if part is None else (part,) if isinstance(part, str) else tuple(part)
        for a in names:
            if a not in mesh.axis_names:
                raise ShardingError(f"shard_map {what}: {ps!r} names axis {a!r}, which the mesh {mesh.axis_names} lacks")
            if a in seen:
                raise ShardingError(f"shard_map {what}: {ps!r} uses mesh axis {a!r} more than once")
            seen.add(a)
        out.append(names)
    return tuple(out)


def shard_map(
    f: F, mesh: Mesh, in_specs: object, out_specs: object, *, check_rep: bool = True,
) -> F:
    """``jax.experimental.shard_map.shard_map``: ``f`` applied to each
    device's pieces of its arguments (split as ``in_specs`` say, a pytree
    prefix of the arguments tuple), its per-device results assembled into
    global arrays as ``out_specs`` say. Inside, ``lax.psum``,
    ``all_gather``, ``ppermute``, ``axis_index`` ... work over the mesh's
    axis names."""
    if not isinstance(mesh, Mesh):
        raise ShardingError(f"shard_map: mesh must be a typedax.sharding.Mesh, got {type(mesh).__name__}")
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))

    def wrapped(*args: object) -> object:
        leaves, args_tree = tree.flatten(args)
        values = [aval_of(x) for x in leaves]
        specs = [
            _spec_of(ps, len(a.shape), mesh, f"in_specs (argument leaf {i})")
            for i, (ps, a) in enumerate(zip(_spec_leaves(in_specs, args, "in_specs"), values))
        ]
        per_device = [shard_aval(a, s, sizes, f"shard_map in_specs (argument leaf {i})") for i, (a, s) in enumerate(zip(values, specs))]
        with binding(tuple(sizes.items())):
            closed, out_tree = trace_callable(f, args_tree, per_device, "shard_map's function")
        n = len(closed.consts)
        body = closed.jaxpr
        out_example = tree.unflatten(out_tree, list(range(len(body.outs))))
        o_specs = [
            _spec_of(ps, len(a.shape), mesh, f"out_specs (result leaf {i})")
            for i, (ps, a) in enumerate(zip(_spec_leaves(out_specs, out_example, "out_specs"), body.out_avals))
        ]
        consts = [cast(Value, c) for c in closed.consts]
        const_specs = [tuple(() for _ in aval_of(c).shape) for c in consts]
        params = ShardMapParams(
            body, tuple(d.id for d in mesh.flat_devices), mesh.axis_sizes, mesh.axis_names,
            (*const_specs, *specs), tuple(o_specs), check_rep,
        ).to_params()
        del n
        outs = bind(shard_map_p, [*consts, *(cast(Value, x) for x in leaves)], params)
        return tree.unflatten(out_tree, list(outs))

    return cast(F, wrapped)


@overload
def jax_shard_map(
    f: F, /, *, out_specs: object, in_specs: object, mesh: Mesh | None = None,
    axis_names: frozenset[str] | set[str] = frozenset(), check_vma: bool = True,
) -> F: ...
@overload
def jax_shard_map(
    f: None = None, /, *, out_specs: object, in_specs: object, mesh: Mesh | None = None,
    axis_names: frozenset[str] | set[str] = frozenset(), check_vma: bool = True,
) -> Callable[[F], F]: ...
def jax_shard_map(
    f: F | None = None, /, *, out_specs: object, in_specs: object, mesh: Mesh | None = None,
    axis_names: frozenset[str] | set[str] = frozenset(), check_vma: bool = True,
) -> F | Callable[[F], F]:
    """``jax.shard_map`` (JAX 0.10's signature; ``f`` may be left out to use
    it as a decorator). typedax needs ``mesh`` and ``in_specs`` given (no
    ambient mesh, no inferred specs) and maps over every mesh axis."""
    if mesh is None:
        raise ShardingError("shard_map: typedax needs mesh= (it has no ambient mesh, jax.sharding.use_mesh)")
    if axis_names and set(axis_names) != set(mesh.axis_names):
        raise ShardingError(
            f"shard_map: axis_names={set(axis_names)} would leave some mesh axes automatic; typedax maps over "
            f"all of them ({mesh.axis_names})"
        )
    m = mesh

    def make(g: F) -> F:
        return shard_map(g, m, in_specs, out_specs, check_rep=check_vma)

    return make if f is None else make(f)
