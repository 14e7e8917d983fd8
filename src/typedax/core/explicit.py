"""Explicit sharding ("sharding in types", JAX 0.10's explicit mode).

On a mesh whose axes are ``AxisType.Explicit``, how a value is split over
those axes is part of its type: ``ShapedArray.sharding`` (printed
``float32[8@x,4]``). A concrete array gets it from its layout
(``type_sharding``); while tracing, every primitive applied to typed
operands gets its result's type from a *sharding rule* here, by the
primitive's name, as JAX's ``call_sharding_rule`` does: the result is split
as its operands are, and a rule raises ``ShardingTypeError`` where the
result's split would be ambiguous or illegal (two operands split one
dimension over different axes, a mesh axis used twice, a ``dot_general``
contracting dimensions split over mesh axes). A primitive without a rule
raises the same error, pointing at ``auto_axes``, as JAX's do.

The current mesh (``set_mesh``) is an immutable value in a ``ContextVar``.
Types say how values are split; the compiler still partitions the program:
``jit`` gives XLA the typed inputs' and outputs' shardings
(``jitting/sharded.py``), ``reshard`` becomes a ``sharding_constraint``,
and XLA propagates the rest -- the same layouts the types describe, for the
operations these rules cover.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NoReturn

from .avals import ShapedArray
from .errors import ShardingError, ShardingTypeError
from .ir import Jaxpr, Params
from .sharding import AbstractMesh, AxisEntry, Mesh, NamedSharding, PartitionSpec, Sharding

#: The mesh set by ``set_mesh`` (``None``: none), and whether a dot that
#: contracts dimensions split the same way is resolved (as transposition
#: needs, JAX's transpose rules passing the primal's sharding) rather than
#: refused.
_MESH: ContextVar[Mesh | None] = ContextVar("typedax_mesh", default=None)
_RESOLVE_CONTRACTIONS: ContextVar[bool] = ContextVar("typedax_resolve_contractions", default=False)
#: The result type an ``out_sharding=`` argument gives the named primitive
#: bound next (``given_type``), in place of its rule's.
_GIVEN: ContextVar[tuple[str, PartitionSpec] | None] = ContextVar("typedax_given_type", default=None)
#: The abstract mesh ``use_abstract_mesh`` set (``None``: the current mesh's).
_ABSTRACT: ContextVar[AbstractMesh | None] = ContextVar("typedax_abstract_mesh", default=None)

Spec = tuple[AxisEntry, ...]


def current_mesh() -> Mesh | None:
    return _MESH.get()


@contextmanager
def using_mesh(mesh: Mesh | None) -> Iterator[None]:
    """``mesh`` current while the block runs."""
    token = _MESH.set(mesh)
    try:
        yield
    finally:
        _MESH.reset(token)


def set_current_mesh(mesh: Mesh | None) -> None:
    """``mesh`` current from now on (in this context: thread or task)."""
    _MESH.set(mesh)


@contextmanager
def resolving_contractions() -> Iterator[None]:
    """While transposing: a ``dot_general`` contracting dimensions split
    over the same mesh axes gives a result replicated over them (XLA sums
    the partial products), as JAX's transposes get by passing the primal's
    sharding as ``out_sharding``."""
    token = _RESOLVE_CONTRACTIONS.set(True)
    try:
        yield
    finally:
        _RESOLVE_CONTRACTIONS.reset(token)


@contextmanager
def given_type(name: str, spec: PartitionSpec) -> Iterator[None]:
    """While the block runs, the primitive ``name`` (a ``dot_general``, a
    ``reshape``) gives a result split as ``spec`` says on the Explicit axes,
    whatever its rule would say: JAX's ``out_sharding=`` argument."""
    token = _GIVEN.set((name, spec))
    try:
        yield
    finally:
        _GIVEN.reset(token)


def abstract_mesh() -> AbstractMesh:
    """``jax.sharding.get_abstract_mesh()``: the current mesh's names,
    sizes and axis types (empty when no mesh is set)."""
    given = _ABSTRACT.get()
    if given is not None:
        return given
    mesh = _MESH.get()
    return AbstractMesh((), (), ()) if mesh is None else mesh.abstract_mesh


@contextmanager
def using_abstract_mesh(abstract: AbstractMesh, mesh: Mesh) -> Iterator[None]:
    """``abstract`` current (what ``get_abstract_mesh`` says), and ``mesh``,
    the current mesh's devices arranged as it says."""
    token = _ABSTRACT.set(abstract)
    try:
        with using_mesh(mesh):
            yield
    finally:
        _ABSTRACT.reset(token)


def _names(p: AxisEntry) -> tuple[str, ...]:
    return () if p is None else (p,) if isinstance(p, str) else p


def _entry(names: Sequence[str]) -> AxisEntry:
    return None if not names else names[0] if len(names) == 1 else tuple(names)


def type_sharding(s: Sharding | None, ndim: int) -> NamedSharding | None:
    """The type-level sharding of an array of rank ``ndim`` laid out by
    ``s``: its spec over the mesh's Explicit axes only, one entry per
    dimension; ``None`` off a mesh with Explicit axes."""
    if not isinstance(s, NamedSharding):
        return None
    explicit = s.mesh.explicit_axes
    if not explicit:
        return None
    parts = s.spec.partitions
    spec = tuple(_entry([n for n in _names(parts[i] if i < len(parts) else None) if n in explicit])
                 for i in range(ndim))
    return NamedSharding(s.mesh, PartitionSpec(*spec), type_level=True)


def with_type(aval: ShapedArray, s: Sharding | None) -> ShapedArray:
    """``aval`` typed as laid out by ``s`` (unchanged off an explicit mesh)."""
    t = type_sharding(s, aval.ndim)
    if t is None and aval.sharding is None:
        return aval
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type, t)


def row_type(aval: ShapedArray) -> NamedSharding | None:
    """The sharding type of one row (``x[i]``) of a value of type ``aval``:
    what ``scan``'s body sees."""
    if aval.sharding is None or not aval.ndim:
        return None
    return NamedSharding(aval.sharding.mesh, PartitionSpec(*_spec(aval)[1:]), type_level=True)


def _spec(a: ShapedArray) -> Spec:
    if a.sharding is None:
        return (None,) * a.ndim
    parts = a.sharding.spec.partitions
    if len(parts) == a.ndim:  # (types are made so)
        return parts
    return tuple(parts[i] if i < len(parts) else None for i in range(a.ndim))


#: The type-level shardings made, by (mesh, spec): a rule's result is
#: mostly one seen before, and a ``NamedSharding`` validates when made.
_NAMED: dict[tuple[int, Spec], NamedSharding] = {}


def _named(mesh: Mesh, spec: Spec) -> NamedSharding:
    key = (id(mesh), spec)
    s = _NAMED.get(key)
    if s is None or s.mesh is not mesh:  # (an id is only a mesh's while it lives)
        if len(_NAMED) >= 4096:
            _NAMED.clear()
        s = _NAMED[key] = NamedSharding(mesh, PartitionSpec(*spec), type_level=True)
    return s


# -- the rules: (operand types, params, result types) -> a spec per result --

Rule = Callable[[str, Sequence[ShapedArray], Params, Sequence[ShapedArray]], list[Spec]]


def _broadcasting(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """Elementwise: per dimension the operands' common split (rank-0
    operands aside); two different splits of one dimension are an error."""
    specs = [_spec(a) for a in ins if a.shape]
    if not specs:
        return [()] * len(outs)
    first = specs[0]
    if all(s == first for s in specs):  # the common case
        return [first] * len(outs)
    result: list[AxisEntry] = []
    for d in range(len(first)):
        entry: AxisEntry = None
        for spec in specs:
            p = spec[d] if d < len(spec) else None
            if p is None:
                continue
            if entry is not None and entry != p:
                shown = ", ".join(map(str, specs))
                raise ShardingTypeError(f"{name} got incompatible shardings for broadcasting: {shown}.")
            entry = p
        result.append(entry)
    return [tuple(result)] * len(outs)


def _broadcast(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """``broadcast``: an operand dimension keeps its split where it is not
    expanded from 1 (``axes``: the new dimensions)."""
    (x,), (out,) = ins, outs
    new = set(_ints(params["axes"]))
    spec = iter(zip(_spec(x), x.shape))
    result: list[AxisEntry] = []
    for d, size in enumerate(out.shape):
        if d in new:
            result.append(None)
            continue
        p, n = next(spec)
        result.append(p if n == size else None)
    return [tuple(result)]


def _transpose(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    spec = _spec(ins[0])
    return [tuple(spec[i] for i in _ints(params["perm"]))]


def _reduce(key: str) -> Rule:
    def rule(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
        """A reduction: the reduced dimensions' splits go (XLA combines the
        pieces); the others keep theirs."""
        gone = set(_ints(params[key]))
        return [tuple(p for d, p in enumerate(_spec(ins[0])) if d not in gone)] * len(outs)
    return rule


def _squeeze(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    gone = {d % max(ins[0].ndim, 1) for d in _ints(params["dimensions"])}
    return [tuple(p for d, p in enumerate(_spec(ins[0])) if d not in gone)]


def _reshape(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's reshape rule: an unsplit operand stays unsplit; when only
    size-1 dimensions come or go, the others keep their splits; a split of
    one dimension into several gives its mesh axes, major first, to the
    new dimensions they divide; a merge of several gives the merged one
    their axes in order (an unsplit part before a split one is an error);
    anything else with a split dimension is an error (reshard first, or use
    ``auto_axes``)."""
    (x,), (out,) = ins, outs
    spec = _spec(x)
    if all(p is None for p in spec):
        return [(None,) * out.ndim]
    old, new = x.shape, out.shape
    if [d for d in old if d != 1] == [d for d in new if d != 1]:  # only size-1 dimensions differ
        kept = iter(p for d, p in zip(old, spec) if d != 1)
        return [tuple(None if d == 1 else next(kept) for d in new)]
    assert x.sharding is not None
    sizes = x.sharding.mesh.shape
    split = _one_axis(old, new, x, out)
    if split is not None:  # one operand dimension split into several
        result: list[AxisEntry] = []
        for part, p in zip(split, spec):
            if isinstance(part, list):
                result.extend([None] * len(part) if p is None else _partition(sizes, _names(p), part, x, out))
            else:
                result.append(p)
        return [tuple(result)]
    merge = _one_axis(new, old, x, out)
    if merge is not None:  # several operand dimensions merged into one
        it = iter(spec)
        result = []
        for n, part in zip(new, merge):
            if not isinstance(part, list):
                result.append(next(it))
                continue
            group = [next(it) for _ in part]
            if all(p is None for p in group):
                result.append(None)
                continue
            flat: list[str | None] = [n2 for p in group for n2 in (_names(p) or (None,))]
            while flat[-1] is None:
                flat.pop()
            if None in flat:
                _reshape_error(x, out)
            result.extend(_partition(sizes, tuple(n2 for n2 in flat if n2 is not None), [n], x, out))
        return [tuple(result)]
    _reshape_error(x, out)


def _one_axis(
    shape: tuple[int, ...], sizes: tuple[int, ...], x: ShapedArray, out: ShapedArray,
) -> list[int | list[int]] | None:
    """JAX's ``_split_on_one_axis``: per dimension of ``shape``, itself or
    (for the one dimension split) the sizes it becomes in ``sizes``;
    ``None`` when ``sizes`` does not split one dimension of ``shape``."""
    if len(sizes) <= len(shape):
        return None
    rank = len(shape)
    ones = 0
    while shape and sizes and shape[-1] == 1 and sizes[-1] == 1:
        ones += 1
        shape, sizes = shape[:-1], sizes[:-1]
    i = j = count = 0
    parts: list[int | list[int]] = []
    while j < len(sizes):
        if i >= len(shape):  # (JAX's fails here too: an IndexError)
            _reshape_error(x, out)
        if shape[i] == sizes[j]:
            parts.append(shape[i])
        else:
            count += 1
            if count > 1:
                _reshape_error(x, out)
            group = [sizes[j]]
            nj, ni = j + 1, i + 1
            while _prod(group) != shape[i] or (nj < len(sizes) and sizes[nj] == 1):
                if _prod(group) > shape[i]:
                    return None
                if _prod(group) == shape[i] and ni < len(shape) and nj < len(sizes) and sizes[nj] == shape[ni]:
                    break
                j += 1
                if j >= len(sizes):
                    return None
                group.append(sizes[j])
                nj += 1
            parts.append(group)
        i += 1
        j += 1
    if len(parts) + ones != rank:  # (JAX's fails here too: an assertion)
        _reshape_error(x, out)
    return parts + [1] * ones


def _partition(
    mesh: dict[str, int], names: tuple[str, ...], dims: list[int], x: ShapedArray, out: ShapedArray,
) -> list[AxisEntry]:
    """JAX's ``split_partitions``: the mesh axes ``names``, major first,
    handed to the dimensions ``dims`` each divides (all of them used)."""
    it = iter(names)
    result: list[AxisEntry] = []
    for d in dims:
        got: list[str] = []
        while d > 1:
            n = next(it, None)
            if n is None:
                break
            d, rest = divmod(d, mesh[n])
            if rest:
                _reshape_error(x, out)
            got.append(n)
        result.append(_entry(got))
    if next(it, None) is not None:
        _reshape_error(x, out)
    return result


def _prod(xs: Sequence[int]) -> int:
    out = 1
    for v in xs:
        out *= v
    return out


def _reshape_error(x: ShapedArray, out: ShapedArray) -> NoReturn:
    raise ShardingTypeError(
        "This reshape is not supported. Please specify the sharding of the output via the "
        "`out_sharding` argument of jax.lax.reshape. Got "
        f"operand type: {x.str_short()}, new sizes: {out.shape} (typedax's reshape has no "
        "`out_sharding`: reshard the operand first, or use typedax.sharding.auto_axes)"
    )


def _dot_general(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's ``dot_general`` rule: batch dimensions and contracting
    dimensions split alike on both sides; no contracting dimension split at
    all (ambiguous: ``ShardingTypeError``, asking for ``out_sharding``);
    the result batch, then ``lhs``'s free dimensions, then ``rhs``'s."""
    lhs, rhs = ins
    (lc, rc), (lb, rb) = _pairs(params["dimension_numbers"])
    ls, rs = _spec(lhs), _spec(rhs)
    lbs, rbs = tuple(ls[i] for i in _ints(lb)), tuple(rs[i] for i in _ints(rb))
    if not _match(lbs, rbs):
        raise ShardingTypeError(
            "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
            f"consistent sharding, got {lbs} and {rbs}."
        )
    lcs, rcs = tuple(ls[i] for i in _ints(lc)), tuple(rs[i] for i in _ints(rc))
    if not _match(lcs, rcs):
        raise ShardingTypeError(
            f"dot_general requires contracting dimensions to have consistent sharding, got {lcs} and {rcs}."
        )
    if any(a is not None and b is not None for a, b in zip(lcs, rcs)) and not _RESOLVE_CONTRACTIONS.get():
        raise ShardingTypeError(
            "Contracting dimensions are sharded and it is ambiguous how the output should be sharded. "
            "Please specify the output sharding via the `out_sharding` parameter. "
            f"Got lhs_contracting_spec={lcs} and rhs_contracting_spec={rcs}"
        )
    lfree = tuple(p for d, p in enumerate(ls) if d not in set(_ints(lc)) | set(_ints(lb)))
    rfree = tuple(p for d, p in enumerate(rs) if d not in set(_ints(rc)) | set(_ints(rb)))
    batch = tuple(a if a is not None else b for a, b in zip(lbs, rbs))
    return [batch + lfree + rfree]


def _pairs(p: object) -> tuple[tuple[object, object], tuple[object, object]]:
    """``dot_general``'s ``dimension_numbers``: ((lhs, rhs) contracting, (lhs, rhs) batch)."""
    assert isinstance(p, tuple) and len(p) == 2 and all(isinstance(q, tuple) and len(q) == 2 for q in p)
    (a, b), (c, d) = p
    return (a, b), (c, d)


def _match(a: Spec, b: Spec) -> bool:
    """JAX's ``_check_specs_match``: per pair equal, or one of them unsplit."""
    return all(x is None or y is None or x == y for x, y in zip(a, b))


def _constraint(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """``sharding_constraint`` (``reshard``, ``with_sharding_constraint``):
    the constraint's split, over the Explicit axes of its mesh."""
    raw = params["spec"]  # per dimension, the tuple of mesh axes splitting it
    assert isinstance(raw, tuple) and all(isinstance(p, tuple) for p in raw)
    explicit = _constraint_explicit(ins)
    spec = tuple(_entry([n for n in p if isinstance(n, str) and n in explicit]) for p in raw if isinstance(p, tuple))
    return [spec + (None,) * (outs[0].ndim - len(spec))]


def _constraint_explicit(ins: Sequence[ShapedArray]) -> tuple[str, ...]:
    mesh = _MESH.get()
    if mesh is not None:
        return mesh.explicit_axes
    s = ins[0].sharding
    return () if s is None else s.mesh.explicit_axes


def _same(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """The operand's split, unchanged (``rev``: the pieces move, the split stays)."""
    return [_spec(ins[0])] * len(outs)


def _slice(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's: the operand's split, where a split dimension's new size still
    divides among its devices (uneven pieces are not implemented)."""
    (x,), (out,) = ins, outs
    sizes = x.sharding.mesh.shape if x.sharding is not None else {}
    for n, m, p in zip(x.shape, out.shape, _spec(x)):
        devices = 1
        for a in _names(p):
            devices *= sizes[a]
        if n != m and p is not None and m % devices:
            shown = p if isinstance(p, str) else ", ".join(p)
            raise ShardingTypeError(
                f"slicing on sharded dims where out dim ({m}) is not divisible by mesh axes ({devices}) with "
                f"spec ({shown}) is not implemented. Got input type={x.str_short(short_dtypes=True)} "
                f"and output shape={out.shape}"
            )
    return [_spec(x)]


def _concatenate(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's: every typed operand split alike; the result split so."""
    typed = [a for a in ins if a.sharding is not None]
    if any(_spec(a) != _spec(typed[0]) for a in typed):
        shown = ", ".join(_type_repr(a) for a in ins)
        raise ShardingTypeError(f"All operands should have the same sharding. Got shardings {shown}")
    return [_spec(typed[0])]


def _type_repr(a: ShapedArray) -> str:
    """A type's sharding as JAX prints it: over the abstract mesh."""
    if a.sharding is None:
        return "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P())"
    return f"NamedSharding(mesh={a.sharding.mesh.abstract_mesh!r}, spec={PartitionSpec(*_spec(a))!r})"


def _body_outs(p: object) -> list[ShapedArray]:
    assert isinstance(p, Jaxpr)
    return [a.aval for a in p.outs]


def _cond(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """The branches' results' types, which must agree (as JAX's)."""
    true, false = _body_outs(params["true_jaxpr"]), _body_outs(params["false_jaxpr"])
    for t, f in zip(true, false):
        if _spec(t) != _spec(f):
            raise ShardingTypeError(
                "cond branches must have equal output types, including their shardings; got "
                f"{t.str_short(short_dtypes=True)} and {f.str_short(short_dtypes=True)}"
            )
    return [_spec(t) for t in true]


def _while(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """The carry keeps its type (the body must return it, as JAX checks)."""
    skip = sum(_ints((params["cond_nconsts"], params["body_nconsts"])))
    carry = ins[skip:]
    for c, b in zip(carry, _body_outs(params["body_jaxpr"])):
        if b.sharding is not None and _spec(b) != _spec(c):
            raise ShardingTypeError(
                f"while_loop body must return the carry's type {c.str_short(short_dtypes=True)}, "
                f"got {b.str_short(short_dtypes=True)}"
            )
    return [_spec(c) for c in carry]


def _scan(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's: the scanned-over axis of every ``xs`` unsplit; the carry keeps
    its type, each ``ys`` is its body result's type stacked (unsplit)."""
    nconsts, ncarry = _ints((params["num_consts"], params["num_carry"]))
    carry, xs = ins[nconsts:nconsts + ncarry], ins[nconsts + ncarry:]
    for x in xs:
        if _spec(x)[:1] != (None,):
            raise ShardingError(f"0th dimension of all xs should be replicated. Got {PartitionSpec(*_spec(x))!r}")
    body = _body_outs(params["jaxpr"])
    for c, b in zip(carry, body):
        if _spec(b) != _spec(c):
            raise ShardingTypeError(
                "scan body function carry input and carry output must have equal types, but they differ:\n"
                f"the input carry has type {c.str_short()} but the corresponding output carry component "
                f"has type {b.str_short()}, so the sharding types differ"
            )
    ys = body[ncarry:]
    return [_spec(c) for c in carry] + [(None, *_spec(y)) for y in ys]


def _shard_map(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """``shard_map``: a typed operand's split must be what its ``in_specs``
    say on the Explicit axes (JAX's ``ValueError``); the results are typed
    as ``out_specs`` say there."""
    typed = next(a.sharding for a in ins if a.sharding is not None)
    explicit = typed.mesh.explicit_axes

    def spec(dims: object, ndim: int) -> Spec:
        assert isinstance(dims, tuple)
        entries = [_entry([n for n in d if isinstance(n, str) and n in explicit]) if isinstance(d, tuple) else None
                   for d in dims]
        return tuple(entries) + (None,) * (ndim - len(entries))

    in_specs, out_specs = params["in_specs"], params["out_specs"]
    assert isinstance(in_specs, tuple) and isinstance(out_specs, tuple)
    for a, dims in zip(ins, in_specs):
        want = spec(dims, a.ndim)
        if a.sharding is not None and _spec(a) != want:
            raise ShardingError(
                f"in_specs passed to shard_map: {PartitionSpec(*want)!r} does not match the specs of the "
                f"input: {PartitionSpec(*_spec(a))!r} for arg: {a.str_short()}. `in_specs` must match the "
                "operands' sharding types on Explicit axes (reshard the operand to match)"
            )
    return [spec(dims, o.ndim) for o, dims in zip(outs, out_specs)]


def _ints(p: object) -> tuple[int, ...]:
    assert isinstance(p, tuple)
    return tuple(int(i) for i in p)


# -- JAX 0.10's rules for the other primitives (lax.py, slicing.py, convolution.py,
#    windowed_reductions.py, control_flow/loops.py, linalg.py, random/prng.py) --


def _split_size(a: ShapedArray, p: AxisEntry) -> int:
    sizes = a.sharding.mesh.shape if a.sharding is not None else {}
    out = 1
    for n in _names(p):
        out *= sizes[n]
    return out


def _varying(what: str, x: ShapedArray, shape: tuple[int, ...]) -> Spec:
    """JAX's ``_get_sharding_for_varying_out_shape``: ``x``'s split, where a
    split dimension whose size changes still divides among its devices
    (uneven pieces are not implemented, as in JAX)."""
    spec = _spec(x)
    for n, m, p in zip(x.shape, shape, spec):
        if n != m and p is not None and m % _split_size(x, p):
            raise ShardingTypeError(
                f"{what} on sharded dims where out dim ({m}) is not divisible by mesh axes "
                f"({_split_size(x, p)}) with spec ({_shown(p)}) is not implemented. Got input "
                f"type={x.str_short(short_dtypes=True)} and output shape={shape}"
            )
    return spec


def _shown(p: AxisEntry) -> str:
    return ", ".join(_names(p))


def _varying_rule(what: str) -> Rule:
    def rule(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
        """The first operand's split (``pad``, ``dynamic_slice``, the
        windowed reductions): JAX's rule for a result whose size may differ."""
        return [_varying(what, ins[0], o.shape) for o in outs]
    return rule


def _bitcast(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """A wider dtype loses the last dimension, a narrower gains one (unsplit)."""
    (x,), (out,) = ins, outs
    old, new = x.dtype.itemsize, out.dtype.itemsize
    spec = _spec(x)
    return [spec if old == new else (*spec, None) if old > new else spec[:-1]]


def _select(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's: the typed cases split alike, ``which`` a scalar or split as they are."""
    which, cases = ins[0], ins[1:]
    typed = [c for c in cases if c.sharding is not None]
    if not typed:  # (constants, which JAX would type as their context: as ``which``)
        return [_spec(which) if which.shape else (None,) * outs[0].ndim]
    first = _spec(typed[0])
    if any(_spec(c) != first for c in typed[1:]):
        shown = ", ".join(_type_repr(c) for c in cases)
        raise ShardingTypeError(f"select cases must have the same shardings, got [{shown}].")
    if which.shape and which.sharding is not None and _spec(which) != first:
        raise ShardingTypeError(
            "select `which` must be scalar or have the same sharding as cases, got `which` sharding "
            f"{_type_repr(which)} but case sharding {_type_repr(typed[0])}."
        )
    return [first]


def _clamp(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's: the operand's split (``min``/``max`` as they come)."""
    return [_spec(ins[1])]


def _cumulative(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """``cumsum`` and the like: the scanned axis unsplit."""
    (x,) = ins
    axis = _int(params["axis"])
    if _spec(x)[axis] is not None:
        raise ShardingTypeError(
            f"Input should be unsharded over the axis being reduced. Got input type={x.str_short()} and axis={axis}"
        )
    return [_spec(x)]


def _sort(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's (in ``sort``'s abstract evaluation): every typed operand
    unsplit on the sorted dimension and split alike; every result split so.
    (JAX keeps an untyped operand's result untyped, but its operands made
    from constants -- ``argsort``'s iota -- are typed by ``out_sharding``,
    which typedax's creation functions lack: their results take the typed
    operands' split, as JAX's ``argsort`` gives.)"""
    dim = _int(params["dimension"])
    typed = [a for a in ins if a.sharding is not None]
    for a in typed:
        if _spec(a)[dim] is not None:
            raise ShardingTypeError(
                "Arguments to sort must be unsharded over the sorting dimension. "
                f"Got arg sharding={_type_repr(a)} and sorting dimension={dim}"
            )
        if _spec(a) != _spec(typed[0]):
            shown = " ".join(_type_repr(b) for b in typed)
            raise ShardingTypeError(f"Arguments to sort must have equal shardings, got: {shown}")
    return [_spec(typed[0])] * len(outs)


def _top_k(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    (x,) = ins
    axis = _int(params["axis"])
    if _spec(x)[axis] is not None:
        raise ShardingTypeError(
            "The input should be unsharded over the axis along which to compute the top_k values. "
            f"Got input type={x.str_short()} and axis={axis}"
        )
    return [_spec(x)] * 2


def _dynamic_update_slice(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    operand, update = ins[0], ins[1]
    if _spec(operand) != _spec(update):
        raise ShardingTypeError(
            "dynamic_update_slice operand sharding must be equal to update sharding, got operand sharding "
            f"{operand.str_short()} and update sharding {update.str_short()}."
        )
    return [_spec(operand)]


def _gather(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's ``_gather_spec_computation`` (typedax's gathers have no batching
    dimensions): a dimension sliced into must be taken whole or be unsplit,
    the indices unsplit but for their batch of queries, whose splits the
    result takes; the offset dimensions keep the operand's. Otherwise
    ambiguous: JAX's ``ShardingTypeError``."""
    operand, indices = ins
    ospec, ispec = _spec(operand), _spec(indices)
    if all(p is None for p in ospec) and all(p is None for p in ispec):
        return [(None,) * outs[0].ndim]
    offset, collapsed = set(_ints(params["offset_dims"])), set(_ints(params["collapsed_slice_dims"]))
    sizes = _ints(params["slice_sizes"])
    whole = all(sizes[i] == operand.shape[i] or ospec[i] is None for i in _ints(params["start_index_map"]))
    if not whole or any(p is not None for p in ispec[:-1]) or ispec[-1] is not None:
        raise ShardingTypeError(
            "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather indexing as out "
            "sharding could not be resolved unambiguously (or would require collectives on inputs). Got "
            f"operand={operand.str_short()}, indices={indices.str_short()}"
        )
    kept = iter(ospec[i] for i in range(operand.ndim) if i not in collapsed)
    queries = iter(ispec[:-1])
    return [tuple(next(kept) if d in offset else next(queries) for d in range(outs[0].ndim))]


def _scatter(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's ``_scatter_spec_computation`` (no batching dimensions): the
    operand's window dimensions split as the updates' (or both unsplit),
    the inserted ones unsplit, the indices and the updates' query dimensions
    unsplit; the result takes the operand's split, else the updates'."""
    operand, indices, updates = ins
    ospec, ispec, uspec = _spec(operand), _spec(indices), _spec(updates)
    if all(p is None for p in (*ospec, *ispec, *uspec)):
        return [(None,) * operand.ndim]
    window, inserted = _ints(params["update_window_dims"]), set(_ints(params["inserted_window_dims"]))
    owindow = [i for i in range(operand.ndim) if i not in inserted]
    if updates.sharding is None:  # made from constants (``x.at[i].add(1.0)``): JAX types them as the operand's windows
        split = {u: ospec[o] for u, o in zip(window, owindow) if updates.shape[u] == operand.shape[o]}
        uspec = tuple(split.get(d) for d in range(updates.ndim))
    ok = (
        all((updates.shape[u] == operand.shape[o] and uspec[u] == ospec[o]) or (uspec[u] is None and ospec[o] is None)
            for u, o in zip(window, owindow))
        and all(ospec[i] is None for i in inserted)
        and all(p is None for i, p in enumerate(uspec) if i not in window)
        and all(p is None for p in ispec)
    )
    if not ok:
        raise ShardingTypeError(
            "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for the scatter update "
            "as out sharding could not be resolved unambiguously (or would require collectives on inputs). Got "
            f"operand={operand.str_short()}, indices={indices.str_short()}, updates={updates.str_short()}"
        )
    out = list(ospec)
    for u, o in zip(window, owindow):
        if out[o] is None:
            out[o] = uspec[u]
    return [tuple(out)]


def _select_and_gather_add(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    tangents, operand = ins
    if _spec(tangents) != _spec(operand):
        raise ShardingTypeError(
            "select_and_gather_add tangents and operand shardings must match, got "
            f"{_type_repr(tangents)} and {_type_repr(operand)}."
        )
    return [_varying("reduce_window", operand, outs[0].shape)]


def _second(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """``select_and_scatter_add`` (cotangents, operand): the operand's split."""
    return [_spec(ins[1])]


def _conv(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's: only with the kernel unsplit and the input's feature dimension
    unsplit; the result then split as the input, position by position (as
    JAX's rule returns the input's sharding)."""
    lhs, rhs = ins
    dn = params["dimension_numbers"]
    assert isinstance(dn, tuple) and isinstance(dn[0], tuple)
    feature = _ints(dn[0])[1]  # (lhs_spec: batch, feature, spatial...)
    if all(p is None for p in _spec(rhs)) and _spec(lhs)[feature] is None:
        return [_varying("conv_general_dilated", lhs, outs[0].shape)]
    raise ShardingTypeError("Please specify the output sharding via `out_sharding` parameter of `conv_general_dilated`")


def _linalg(rank: int) -> Rule:
    def rule(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
        """JAX's ``linalg_sharding_rule``: the matrix dimensions unsplit,
        every operand's batch dimensions split alike; each result split so
        on its batch dimensions."""
        batches = []
        for i, a in enumerate(ins):
            spec = _spec(a)
            if any(p is not None for p in spec[len(spec) - rank:]):
                raise ShardingTypeError(
                    f"Input {i} to {name} must be unsharded on non-batch dimensions, but got {PartitionSpec(*spec)!r}."
                )
            batches.append(spec[:len(spec) - rank])
        if any(b != batches[0] for b in batches[1:]):
            raise ShardingTypeError(f"All inputs to {name} must have the same batch sharding, but got {batches}.")
        batch = batches[0]
        return [batch + (None,) * (o.ndim - len(batch)) for o in outs]
    return rule


def _triangular_solve(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's ``_tri_solve_sharding``: the batches split alike, the
    contracted dimensions unsplit."""
    a, b = (_spec(v) for v in ins)
    left, trans = bool(params["left_side"]), bool(params["transpose_a"])
    if a[:-2] != b[:-2]:
        raise ShardingTypeError(
            f"All inputs to triangular_solve must have the same batch sharding, but got {a[:-2]} and {b[:-2]}."
        )
    (a0, a1), (b0, b1) = a[-2:], b[-2:]
    if (a0, a1)[left ^ trans] is not None:
        raise ShardingTypeError(
            "triangular solve input `a` must be unsharded on the contracting axis, but got "
            f"{PartitionSpec(*a)!r} with left_side={left} and transpose_a={trans}."
        )
    if (b0, b1)[not left] is not None:
        raise ShardingTypeError(
            "triangular solve input `b` must be unsharded on the contracting axis, but got "
            f"{PartitionSpec(*b)!r} with left_side={left} and transpose_a={trans}."
        )
    return [(*a[:-2], (a0, a1)[trans], b1) if left else (*a[:-2], b0, (a0, a1)[not trans])]


def _padded(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """The first operand's split, then unsplit new trailing dimensions
    (``random_split``, ``random_bits``, ``random_unwrap``); or its leading
    part where the result has fewer (``random_wrap``: the key words' last
    dimension goes)."""
    spec = _spec(ins[0])
    return [(*spec, *(None,) * (o.ndim - len(spec)))[:o.ndim] for o in outs]


def _each(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """Each result its operand's type (``optimization_barrier``)."""
    return [_spec(a) for a in ins]


def _last(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """The results typed as the last operands (``linear_solve``: as ``b``)."""
    return [_spec(a) for a in ins[len(ins) - len(outs):]]


def _unsplit(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """Results replicated over the mesh: a host callback's (JAX: typed by
    the current mesh, unsplit)."""
    return [(None,) * o.ndim for o in outs]


def _rng_bit_generator(name: str, ins: Sequence[ShapedArray], params: Params, outs: Sequence[ShapedArray]) -> list[Spec]:
    """JAX's: the new key as the key, the bits unsplit (no ``out_sharding``)."""
    return [_spec(ins[0]), (None,) * outs[1].ndim]


def _int(p: object) -> int:
    assert isinstance(p, int)
    return int(p)


_ELEMENTWISE = (
    "abs acos acosh add and asin asinh atan atan2 atanh ceil clz complex conj convert_element_type "
    "cos cosh digamma div eq erf erf_inv erfc exp exp2 expm1 floor ge greater imag integer_pow is_finite le "
    "less lgamma log log1p logistic max min mul ne neg nextafter not or population_count pow real "
    "reduce_precision rem round shift_left shift_right_arithmetic shift_right_logical sign "
    "sin sinc_maclaurin sinh sqrt stop_gradient sub tan tanh xor threefry2x32 random_fold_in random_seed"
).split()

#: Higher-order primitives: their abstract evaluation types the results
#: from the traced body, which was traced on typed operands.
_FROM_BODY = ("jit", "custom_jvp_call", "custom_vjp_call", "checkpoint", "name", "custom_lin")

RULES: dict[str, Rule] = {
    **{n: _broadcasting for n in _ELEMENTWISE},
    "broadcast": _broadcast,
    "transpose": _transpose,
    "reshape": _reshape,
    "squeeze": _squeeze,
    "rev": _same,
    "slice": _slice,
    "concatenate": _concatenate,
    "cond": _cond,
    "while": _while,
    "scan": _scan,
    "shard_map": _shard_map,
    "dot_general": _dot_general,
    "sharding_constraint": _constraint,
    **{n: _reduce("axis") for n in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_and", "reduce_or")},
    **{n: _reduce("axes") for n in ("argmax", "argmin")},
    "select_n": _select,
    "clamp": _clamp,
    "bitcast_convert_type": _bitcast,
    "pad": _varying_rule("padding"),
    "dynamic_slice": _varying_rule("dynamic_slice"),
    "dynamic_update_slice": _dynamic_update_slice,
    "gather": _gather,
    **{n: _scatter for n in ("scatter", "scatter-add", "scatter-mul", "scatter-min", "scatter-max")},
    **{n: _cumulative for n in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp")},
    "sort": _sort,
    "top_k": _top_k,
    **{n: _varying_rule("reduce_window")
       for n in ("reduce_window", "reduce_window_sum", "reduce_window_max", "reduce_window_min")},
    "select_and_gather_add": _select_and_gather_add,
    "select_and_scatter_add": _second,
    "conv_general_dilated": _conv,
    "fft": _same,
    **{n: _linalg(2) for n in ("cholesky", "eig", "eigh", "qr", "svd")},
    "triangular_solve": _triangular_solve,
    **{n: _padded for n in ("random_split", "random_bits", "random_wrap", "random_unwrap")},
    "rng_bit_generator": _rng_bit_generator,
    "optimization_barrier": _each,
    "linear_solve": _last,
    **{n: _unsplit for n in ("pure_callback", "io_callback", "debug_callback")},
}


def propagate(name: str, ins: Sequence[ShapedArray], params: Params, outs: list[ShapedArray]) -> list[ShapedArray]:
    """The results' types with their shardings, from the operands' (``outs``
    as they are when no operand is typed)."""
    mesh: Mesh | None = None
    for a in ins:
        if a.sharding is not None:
            m = a.sharding.mesh
            if mesh is not None and m is not mesh and m.flat_devices != mesh.flat_devices:
                raise ShardingTypeError(
                    f"Mesh for all inputs should be equal. Got one mesh: {mesh} and another mesh: {m}"
                )
            mesh = m
    if name == "sharding_constraint" and _MESH.get() is not None:  # (an untyped operand too)
        mesh = _MESH.get()
    if mesh is None or name in _FROM_BODY:
        return outs
    given = _GIVEN.get()
    if given is not None and given[0] == name:  # out_sharding= (JAX: the rule returns it)
        explicit = mesh.explicit_axes
        parts = given[1].partitions
        return [_typed(o, _named(mesh, tuple(
            _entry([n for n in _names(parts[d] if d < len(parts) else None) if n in explicit])
            for d in range(o.ndim))) if o.ndim and explicit else None) for o in outs]
    rule = RULES.get(name)
    if rule is None:
        raise ShardingTypeError(
            f"sharding rule for {name} is not implemented. You can work around this error by dropping "
            "that operation into full auto sharding mode via: "
            "`typedax.sharding.auto_axes(fun, out_sharding=...)`"
        )
    specs = rule(name, ins, params, outs)
    typed: list[ShapedArray] = []
    for o, spec in zip(outs, specs):
        if spec not in _LEGAL and not _legal(spec) and _RESOLVE_CONTRACTIONS.get():
            spec = _first_uses(spec)  # transposing: the cotangent is then constrained to its primal's type
        if spec not in _LEGAL and not _legal(spec):
            bad = ShapedArray(o.shape, o.dtype, o.weak_type, _unchecked(mesh, spec))
            operands = ", ".join(a.str_short(short_dtypes=True) for a in ins)
            raise ShardingTypeError(
                f"{name} operation with inputs: {operands} produces an illegally sharded result: "
                f"{bad.str_short(short_dtypes=True)}"
            )
        s = _named(mesh, spec) if o.ndim and mesh.explicit_axes else None
        typed.append(_typed(o, s))
    return typed


def _first_uses(spec: Spec) -> Spec:
    """``spec`` with each mesh axis kept where it is first named only."""
    seen: set[str] = set()
    out: list[AxisEntry] = []
    for p in spec:
        names = [n for n in _names(p) if n not in seen]
        seen.update(names)
        out.append(_entry(names))
    return tuple(out)


#: Specs seen to name each mesh axis at most once.
_LEGAL: set[Spec] = set()


def _legal(spec: Spec) -> bool:
    used = [n for p in spec if p is not None for n in _names(p)]
    if len(set(used)) != len(used):
        return False
    if len(_LEGAL) >= 4096:
        _LEGAL.clear()
    _LEGAL.add(spec)
    return True


#: Typed avals made, by (aval, weak flag, the sharding's id): a new one
#: validates its shape and dtype again, which costs more than the rule.
_TYPED: dict[tuple[ShapedArray, bool, int], ShapedArray] = {}


def _typed(o: ShapedArray, s: NamedSharding | None) -> ShapedArray:
    if s is None:
        return o if o.sharding is None else ShapedArray(o.shape, o.dtype, o.weak_type)
    key = (o, o.weak_type, id(s))
    t = _TYPED.get(key)
    if t is None or t.sharding is not s:  # (an id is only that sharding's while it lives)
        if len(_TYPED) >= 4096:
            _TYPED.clear()
        t = _TYPED[key] = ShapedArray(o.shape, o.dtype, o.weak_type, s)
    return t


def _unchecked(mesh: Mesh, spec: Spec) -> NamedSharding:
    """A sharding that names an axis twice, only to print it in the error."""
    s = object.__new__(NamedSharding)
    object.__setattr__(s, "mesh", mesh)
    object.__setattr__(s, "spec", PartitionSpec(*spec))
    return s
