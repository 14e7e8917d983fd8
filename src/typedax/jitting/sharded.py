"""``jit`` over many devices: the sharding plan of a call and its run.

A call is sharded when its ``Jitted`` has ``in_shardings``/``out_shardings``,
when an argument is a sharded array (its sharding is committed, as JAX's
``device_put`` with a sharding commits), or when the traced function holds a
``with_sharding_constraint``. Its plan (``lowering/sharding.py:
ShardingPlan``: each input's and output's sharding, the devices) is part of
the compile cache's key. Unsharded calls never come here, and sharded ones
never use ``jit``'s fast path (a sharded array is not an ``ArrayImpl`` by
type, so no fast-path key is made for it).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import tree
from ..core.errors import ShardingError
from ..core.ir import Jaxpr
from ..core.sharded import ShardedArrayImpl
from ..core.sharding import Mesh, NamedSharding, Sharding, SingleDeviceSharding
from ..core.trace import Value
from ..lowering import compile_cache
from ..lowering.runtime import Executable, backend
from ..lowering.sharding import ShardingPlan, sharded_buffer
from ..primitives.sharding_constraint import constraint_devices, constraint_mesh

#: What ``in_shardings``/``out_shardings`` take: a sharding, ``None``
#: (unspecified), or a pytree prefix of the arguments (results) of them.
ShardingTree = Sharding | None | Sequence["ShardingTree"] | dict[str, "ShardingTree"]


def prefix_leaves(spec: ShardingTree, value: object, what: str) -> list[Sharding | None]:
    """One sharding per leaf of ``value``: ``spec`` is a pytree prefix of it
    (a sharding or ``None`` stands for every leaf below it)."""
    if spec is None or isinstance(spec, (NamedSharding, SingleDeviceSharding)):
        return [spec] * len(tree.leaves(value))
    if isinstance(spec, (tuple, list)) and isinstance(value, (tuple, list)) and len(spec) == len(value):
        return [s for sp, v in zip(spec, value) for s in prefix_leaves(sp, v, what)]
    if isinstance(spec, dict) and isinstance(value, dict) and sorted(spec) == sorted(value):
        return [s for k in sorted(value) for s in prefix_leaves(spec[k], value[k], what)]
    raise ShardingError(
        f"{what} must be a sharding, None, or a pytree prefix of the values it describes; "
        f"got {spec!r} for a {type(value).__name__}"
    )


def make_plan(
    name: str, jaxpr: Jaxpr, n_consts: int, leaves: Sequence[object],
    in_specs: Sequence[Sharding | None], out_specs: Sequence[Sharding | None],
) -> ShardingPlan | None:
    """The plan of a call, or ``None`` for an unsharded one. An argument's
    sharding is its ``in_shardings`` entry, else its own if it is a sharded
    array; every sharding must be on the same devices, in the same order."""
    args: list[Sharding | None] = [
        s if s is not None else (x.sharding if type(x) is ShardedArrayImpl else None)
        for x, s in zip(leaves, in_specs)
    ]
    constraints = list(constraint_devices(jaxpr))
    given = [s for s in (*args, *out_specs) if s is not None]
    if not given and not constraints:
        return None
    by_id = {d.id: d for d in backend().all_devices}
    assignments = [s.device_assignment for s in given] + [tuple(by_id[i] for i in c) for c in constraints]
    devices = assignments[0]
    for a in assignments[1:]:
        if a != devices:
            raise ShardingError(
                f"Received incompatible devices for jitted computation '{name}': "
                f"device ids {[d.id for d in devices]} and {[d.id for d in a]}; put every argument "
                "and sharding on one mesh's devices (in one order)"
            )
    mesh: Mesh | None = next((s.mesh for s in given if isinstance(s, NamedSharding)), None)
    if mesh is None and constraints:
        mesh = constraint_mesh(jaxpr, by_id)
    for i, (x, s) in enumerate(zip(leaves, args)):
        if s is not None:
            s.check(tuple(getattr(x, "shape", ())), f"jit of '{name}', argument {i}")
    return ShardingPlan((None,) * n_consts + tuple(args), tuple(out_specs), devices, mesh)


def executable(jaxpr: Jaxpr, name: str, plan: ShardingPlan) -> Executable:
    return compile_cache.get(jaxpr, name, shardings=plan)


def run(exe: Executable, values: Sequence[Value]) -> list[Value]:
    """Run a sharded program: each value laid out as its input sharding says."""
    bufs = [sharded_buffer(x, a, s) for x, a, s in zip(values, exe.in_avals, exe.in_shardings)]
    return list(exe.run(bufs))
