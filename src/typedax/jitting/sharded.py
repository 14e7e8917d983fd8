"""``jit`` over many devices: the sharding plan of a call and its run.

A call is sharded when its ``Jitted`` has ``in_shardings``/``out_shardings``,
when an argument is a sharded array (its sharding is committed, as JAX's
``device_put`` with a sharding commits), or when the traced function holds a
``with_sharding_constraint``. Its plan (``lowering/sharding.py:
ShardingPlan``: each input's and output's sharding, the devices) is part of
the compile cache's key. Unsharded calls never come here. Sharded calls have
a fast path of their own (``fast_entry``; ``api.py`` keys it on the leaves'
types and committed shardings, their structure and the settings): a
repeated call skips the trace, plan and executable lookups, and its results
are built with their types known (issue 25: the data-parallel step on 8
host devices went from 1.08-1.18x JAX's time to about JAX's).
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Hashable, Sequence

import numpy as np

from .. import tree
from ..core.array import ArrayImpl
from ..core.avals import ShapedArray
from ..core.errors import ShardingError
from ..core.ir import Jaxpr, Lit
from ..core.sharded import ShardedArrayImpl
from ..core.explicit import type_sharding
from ..core.sharding import (
    EXPLICIT_SEEN, AxisType, Mesh, NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding,
)
from ..core.trace import Value
from ..lowering import compile_cache
from ..lowering import jaxlib_api as jx
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


#: Per jaxpr (by identity, while it lives): its plans by the call's
#: shardings, and its executables by plan. A call's plan and executable
#: depend on nothing else (the jaxpr fixes the arguments' shapes), and
#: finding them here costs a few microseconds, where walking the jaxpr for
#: constraints and hashing it for the compile cache cost some hundreds a
#: call (the jaxpr's structural hash is not cached).
_MEMO: dict[int, tuple[weakref.ref[Jaxpr], dict[Hashable, object]]] = {}


def _memo(jaxpr: Jaxpr) -> dict[Hashable, object]:
    i = id(jaxpr)
    record = _MEMO.get(i)
    if record is not None and record[0]() is jaxpr:
        return record[1]

    def drop(ref: weakref.ref[Jaxpr]) -> None:
        current = _MEMO.get(i)
        if current is not None and current[0] is ref:
            del _MEMO[i]

    table: dict[Hashable, object] = {}
    _MEMO[i] = (weakref.ref(jaxpr, drop), table)
    return table


def make_plan(
    name: str, jaxpr: Jaxpr, n_consts: int, leaves: Sequence[object],
    in_specs: Sequence[Sharding | None], out_specs: Sequence[Sharding | None],
) -> ShardingPlan | None:
    """The plan of a call, or ``None`` for an unsharded one. An argument's
    sharding is its ``in_shardings`` entry, else its own if it is a sharded
    array; every sharding must be on the same devices, in the same order."""
    if EXPLICIT_SEEN[0]:  # explicit sharding: an abstract argument (trace/lower) laid out as its type says
        in_specs = [NamedSharding(x.sharding.mesh, x.sharding.spec)
                    if s is None and isinstance(x, ShapedArray) and x.sharding is not None else s
                    for x, s in zip(leaves, in_specs)] + list(in_specs[len(leaves):])
    key = (n_consts, tuple(in_specs), tuple(out_specs),
           tuple([x.sharding if type(x) is ShardedArrayImpl else None for x in leaves]))
    table = _memo(jaxpr)
    if key in table:
        return table[key]  # type: ignore[return-value]  # the table holds what _make_plan returned for key
    plan = _make_plan(name, jaxpr, n_consts, leaves, in_specs, out_specs)
    table[key] = plan
    return plan


def _make_plan(
    name: str, jaxpr: Jaxpr, n_consts: int, leaves: Sequence[object],
    in_specs: Sequence[Sharding | None], out_specs: Sequence[Sharding | None],
) -> ShardingPlan | None:
    for i, (x, s) in enumerate(zip(leaves, in_specs)):
        if s is not None and type(x) is ShardedArrayImpl and x.sharding != s:
            _check_committed(name, i, x, s)
    typed: list[Sharding] = []  # outputs' types left open: their meshes' devices are the call's too
    if EXPLICIT_SEEN[0]:  # explicit sharding: an output's type says how it is laid out, unless out_shardings does
        out_specs = list(out_specs)
        for i, (s, o) in enumerate(zip(out_specs, jaxpr.outs)):
            if s is None and not isinstance(o, Lit) and o.aval.sharding is not None:
                t = NamedSharding(o.aval.sharding.mesh, o.aval.sharding.spec)
                if _open(t):
                    typed.append(t)
                else:
                    out_specs[i] = t
    args: list[Sharding | None] = [
        s if s is not None else (x.sharding if type(x) is ShardedArrayImpl else None)
        for x, s in zip(leaves, in_specs)
    ]
    constraints = list(constraint_devices(jaxpr))
    given = [s for s in (*args, *out_specs, *typed) if s is not None]
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


def _open(t: NamedSharding) -> bool:
    """Whether an output of type-level sharding ``t`` is left to XLA's
    propagation: on a mesh with Auto axes, as JAX leaves those to XLA (its
    lowering constrains the result to the Explicit axes and leaves every
    dimension open to more, ``{"x", ?}``); the layout XLA picks must then
    agree with the type (``typed_outputs``)."""
    return any(a is AxisType.Auto for a in t.mesh.axis_types)


def typed_outputs(jaxpr: Jaxpr, name: str, plan: ShardingPlan, exe: Executable) -> Executable:
    """``exe`` for outputs whose type left their layout to XLA (``_open``),
    each named with one spec entry per dimension, as JAX names them
    (``P(None, None)``, not ``P()``); unless one came out laid out otherwise
    than its type says on the Explicit axes: then the program compiled with
    those outputs laid out as their types say (their Auto axes replicated).
    A result's type is the traced function's, never what XLA happened to
    choose."""
    if not EXPLICIT_SEEN[0]:
        return exe
    fixed = list(plan.out_shardings)
    named = list(exe.out_shardings)
    for i, (s, o, got) in enumerate(zip(plan.out_shardings, jaxpr.outs, exe.out_shardings)):
        if s is None and not isinstance(o, Lit) and o.aval.sharding is not None:
            nd = o.aval.ndim
            if type_sharding(got, nd) != type_sharding(o.aval.sharding, nd):
                fixed[i] = NamedSharding(o.aval.sharding.mesh, o.aval.sharding.spec)
            elif isinstance(got, NamedSharding) and len(got.spec) < nd:
                named[i] = NamedSharding(got.mesh, PartitionSpec(*got.spec.partitions, *(None,) * (nd - len(got.spec))))
    if fixed != list(plan.out_shardings):
        return compile_cache.get(jaxpr, name, shardings=ShardingPlan(plan.in_shardings, tuple(fixed), plan.devices,
                                                                       plan.mesh))
    if named != list(exe.out_shardings):  # the same layouts: the same result handlers
        return dataclasses.replace(exe, out_shardings=tuple(named))
    return exe


def _check_committed(name: str, i: int, x: ShardedArrayImpl, s: Sharding) -> None:
    """A committed argument must already be laid out as its ``in_shardings``
    entry says (the same devices in the same order, each holding the same
    piece), as JAX requires: jit does not move it."""
    shape = tuple(x.shape)
    s.check(shape, f"jit of '{name}', argument {i}")
    have = x.sharding
    if have.device_assignment != s.device_assignment or have.devices_indices_map(shape) != s.devices_indices_map(shape):
        raise ShardingError(
            f"Sharding passed to jit does not match the sharding on the respective arg. Got jit sharding: {s!r},\n"
            f"arg sharding: {have!r} for arg type: {x.aval.str_short()} (argument {i} of '{name}'; "
            "device_put it to the jit sharding first)"
        )


def executable(jaxpr: Jaxpr, name: str, plan: ShardingPlan) -> Executable:
    """The compile cache's executable for ``jaxpr`` and ``plan``, remembered
    for this jaxpr until the cache is cleared."""
    table = _memo(jaxpr)
    key = ("executable", plan)
    found = table.get(key)
    if isinstance(found, tuple) and found[0] == compile_cache.generation:
        return found[1]  # type: ignore[no-any-return]  # the table holds (generation, the cache's executable)
    exe = typed_outputs(jaxpr, name, plan, compile_cache.get(jaxpr, name, shardings=plan))
    table[key] = (compile_cache.generation, exe)
    return exe


def run(exe: Executable, values: Sequence[Value]) -> list[Value]:
    """Run a sharded program: each value laid out as its input sharding says."""
    bufs = [sharded_buffer(x, a, s) for x, a, s in zip(values, exe.in_avals, exe.in_shardings)]
    return list(exe.run(bufs))


# -- the fast path of sharded calls ------------------------------------------------
#: What a sharded fast-path entry is: the call's flat leaves in, its result out.
FastEntry = Callable[[Sequence[object]], object]


def fast_entry(
    exe: Executable, consts: Sequence[Value], committed: Sequence[Sharding | None],
    unflatten: Callable[[list[ArrayImpl]], object],
) -> FastEntry:
    """``jit``'s fast path for the sharded calls of one key (``api.py``:
    the leaves' types and committed shardings, their pytree structure and
    the settings a trace depends on): what ``run`` and the results'
    ``unflatten`` do for it, with everything that the key fixes done once.

    The constants are laid out once (they are immutable); an argument
    committed to its input sharding (``committed[i]``: the sharding every
    array of this key has) passes its own buffer, any other (an unsharded
    or NumPy array, a Python scalar, a deleted array) goes through
    ``sharded_buffer`` as on the slow path; the results are built from the
    executable's output types and shardings as ``Executable.run`` builds
    them, with their type keys computed once."""
    n = len(consts)
    const_bufs = [sharded_buffer(c, a, s) for c, a, s in zip(consts, exe.in_avals, exe.in_shardings)]
    avals, shardings = exe.in_avals[n:], exe.in_shardings[n:]
    own = all(c is not None and c == s for c, s in zip(committed, shardings))
    run, handlers = exe.loaded.execute_sharded, exe.out_handlers
    outs = list(zip(exe.out_avals, exe.out_shardings))
    template = [ShardedArrayImpl(a, _NO_VALUE, None, s) for a, s in outs]  # the type each result takes
    results = [(t.aval, t._tdx_key, s) for t, (_, s) in zip(template, outs)]
    new = object.__new__

    def slow_bufs(args: Sequence[object]) -> list[jx.Array]:
        return [*const_bufs, *[sharded_buffer(x, a, s)  # type: ignore[arg-type]  # a leaf the key took: a value
                               for x, a, s in zip(args, avals, shardings)]]

    def fast(args: Sequence[object]) -> object:
        if own:  # every argument committed to its input sharding: its buffers as they are
            try:
                got = run([*const_bufs, *[x._dev for x in args]])  # type: ignore[attr-defined]  # all sharded
            except TypeError:  # a None: a deleted array, or one whose value is on the host only
                got = run(slow_bufs(args))
        else:
            got = run(slow_bufs(args))
        values: list[ArrayImpl] = []
        for o, (aval, key, s) in zip(got.consume_with_handlers(handlers), results):
            r = new(ShardedArrayImpl)  # ShardedArrayImpl(aval, None, o, s), its type and key known
            r.aval, r._host, r._dev, r._tdx_key, r._sharding = aval, None, o, key, s
            values.append(r)
        return unflatten(values)

    return fast


#: A stand-in value, for building the template results above.
_NO_VALUE = np.empty(0)
