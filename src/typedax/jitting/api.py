"""``jit``: stage a function out to XLA, compile it once per input structure,
and run it on the device.

``jit`` binds the higher-order primitive ``jit_p`` (``primitive.py``, with
every rule), which treats the nested jaxpr as a unit, so ``jvp``, ``vmap``,
``linearize`` and ``grad`` of a jitted function stay compiled.

Dispatch has two speeds. A call whose arguments are arrays (typedax or
NumPy) and Python or NumPy scalars, with static arguments as before, and
that this ``Jitted`` has seen with those types before goes straight to the
executable (no tracing; NumPy and scalar arguments are copied to the
device; ``Jitted.__call__`` writes the common calls out). Other calls flatten
their pytrees, look the traced jaxpr up by (input structure, input types,
static arguments), and bind ``jit_p``; the executable itself is cached by
the jaxpr's structure (``typedax.lowering.compile_cache``). A sharded call
(``sharded.py``) has a fast path of its own, keyed on its leaves' types and
committed shardings and their pytree structure (calls without static
arguments).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, ParamSpec, Protocol, TypeVar, cast, overload

import inspect
import logging  # compile logging
import time  # compile logging
from types import FrameType  # compile logging
import weakref  # clear_caches (issue 29 item 7)
import numpy as np

from .. import tree
from ..core.array import ArrayImpl, aval_key, host_aval
from ..core.config import (  # TRACE_SETTING_HOOKS: check_static_indices
    JIT_CHECKS, JIT_SETTINGS, PRECISION_POSSIBLE, TRACE_SETTING_HOOKS, X32_POSSIBLE, jit_disabled, matmul_precision, x64_enabled,
)
from ..core.config import explain_cache_misses_enabled, log_compiles_enabled  # compile logging
from ..core.dtypes import SUPPORTED, TO_32
from ..core.avals import ShapedArray
from ..core.errors import ArgumentTypeError, CompiledCallError, PrimitiveTypeError, StaticArgumentError, TypedaxError
from ..core.ir import ClosedJaxpr
from ..core.names import check_callable, fun_name
from ..core.explicit import current_mesh  # explicit sharding
from ..core.sharded import ShardedArrayImpl  # the sharded fast path
from ..core.sharding import EXPLICIT_SEEN  # explicit sharding
from ..core.trace import EVAL_TRACE, Tracer, Value, aval_of, bind, current_trace
from ..core.float0s import Float0Slots, float0_boundary, merge_float0, split_float0
from ..interpreters.staging import trace_to_jaxpr_flat
from ..lowering import LoweredModule, compile_cache, lower_jaxpr
from ..primitives.slicing import slice_
from ..primitives.structural import reshape
from ..lowering import jaxlib_api as jx
from ..lowering.runtime import (
    Executable, HostPut, buffer_of, compile_module, host_put_args, host_putter, scalar_putter, to_buffer,
)
from ..core.sharding import Sharding
from ..lowering.sharding import ShardingPlan, lower_sharded
from . import sharded
from .primitive import JitParams, jit_p
from .sharded import ShardingTree

__all__ = ["Compiled", "Jitted", "Lowered", "Traced", "jit"]

P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
T0 = TypeVar("T0")


# -- tracing a function ----------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class _Staged:
    """A function traced at some input types: its closed jaxpr, the pytree
    structures of its inputs and outputs."""

    closed: ClosedJaxpr
    in_tree: tree.TreeDef
    out_tree: tree.TreeDef
    name: str
    #: float0 leaves (``core/float0s.py``) of the inputs and outputs: not in
    #: the jaxpr; the function gets NumPy float0 zeros, the caller too
    in_float0: Float0Slots = ()
    out_float0: Float0Slots = ()

    def outputs(self, outs: Sequence[object]) -> object:
        """The function's result from the jaxpr's outputs."""
        return tree.unflatten(self.out_tree, merge_float0(outs, self.out_float0))

    @property
    def has_tracer_consts(self) -> bool:
        return any(isinstance(c, Tracer) for c in self.closed.consts)


# Static arguments key by position or name, type and value: 1, 1.0 and True
# are equal and hash alike, but a function may tell them apart.
_StaticKey = tuple[tuple[int | str, type, Hashable], ...]


def _normalize_argnums(argnums: int | Sequence[int], what: str = "static") -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if type(n) is not int:
            raise StaticArgumentError(f"{what}_argnums must be ints, got {n!r}")
    return nums


def _resolve_statics(
    name: str, sig: inspect.Signature | None, nums: tuple[int, ...], names: tuple[str, ...],
    what: str = "static",
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Check ``static_argnums``/``static_argnames`` (or the ``donate_``
    ones, by ``what``) against the signature and complete each from the
    other (as JAX does): a static (donated) parameter is static (donated)
    whether it is passed by position or by keyword."""
    if sig is None:
        if what == "donate" and names:
            raise StaticArgumentError(
                f"jit of '{name}': the function's signature cannot be read; "
                "pass donate_argnums instead of donate_argnames"
            )
        return nums, names
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    var_pos = any(p.kind is p.VAR_POSITIONAL for p in params)
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    n = len(positional)
    if not var_pos:
        bad = [i for i in nums if not -n <= i < n]
        if bad:
            raise StaticArgumentError(
                f"jit of '{name}': {what}_argnums={nums}, but the function takes only "
                f"{n} positional argument(s)"
            )
        nums = tuple(sorted({i % n for i in nums})) if n else nums
    by_name = {p.name: i for i, p in enumerate(positional) if p.kind is p.POSITIONAL_OR_KEYWORD}
    keyword = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    if not var_kw:
        unknown = sorted(set(names) - keyword)
        if unknown:
            raise StaticArgumentError(
                f"jit of '{name}': {what}_argnames {unknown} are not parameters of the "
                f"function (it takes {', '.join(p.name for p in params) or 'none'})"
            )
    more_nums = {by_name[k] for k in names if k in by_name}
    more_names = {positional[i].name for i in nums if 0 <= i < n and positional[i].name in by_name}
    return tuple(sorted(set(nums) | more_nums)), tuple(sorted(set(names) | more_names))


def _normalize_argnames(argnames: str | Sequence[str], what: str = "static") -> tuple[str, ...]:
    names = (argnames,) if isinstance(argnames, str) else tuple(argnames)
    for n in names:
        if not isinstance(n, str):
            raise StaticArgumentError(f"{what}_argnames must be strings, got {n!r}")
    return names


def _check_disjoint(
    statics: tuple[tuple[int, ...], tuple[str, ...]], donated: tuple[tuple[int, ...], tuple[str, ...]]
) -> None:
    """A static argument cannot be donated (JAX's errors)."""
    both = set(statics[1]) & set(donated[1])
    if both:
        raise StaticArgumentError(
            "static_argnames and donate_argnames cannot intersect. Argument names "
            f"{both} appear in both static_argnames and donate_argnames"
        )
    if set(statics[0]) & set(donated[0]):
        raise StaticArgumentError(
            f"`static_argnums` {sorted(set(statics[0]))} and `donate_argnums` "
            f"{sorted(set(donated[0]))} cannot intersect."
        )


#: The key of an argument the fast path does not take (a tracer, a pytree,
#: a NumPy scalar ...): no entry is ever stored under a key holding it.
_NOT_FAST = -1

#: An argument's key says its type (``aval_key``) and its kind: a device
#: array's is the type key itself, a NumPy array's the type key plus
#: ``_HOST``, a Python or NumPy scalar's plus ``_SCALAR``. Each mix of kinds
#: has its own entry (no check of the kinds on a call), made from the
#: device arrays' entry of the same types on its first call
#: (``_sibling_entry``; ``_kindless`` takes the kinds off a key).
_KIND = 1 << 40
_HOST = _KIND
_SCALAR = 2 * _KIND

# Python ints and floats are weakly typed: their keys are not those of
# 0-d arrays of their dtype (which promote differently)
_SCALAR_KEYS: dict[type, int] = {
    t: _SCALAR + aval_key(ShapedArray((), np.dtype(d), weak_type=t is not bool))
    for t, d in ((bool, np.bool_), (int, np.int64), (float, np.float64), (complex, np.complex128))
}
_HOST_KEYS: dict[tuple[tuple[int, ...], np.dtype[np.generic]], int] = {}


def _arg_key(x: object) -> int:
    """The dispatch key of one fast-path argument: its type's ``aval_key``
    and its kind (``_KIND``)."""
    t = type(x)
    if t is ArrayImpl:
        return x._tdx_key  # type: ignore[attr-defined, no-any-return]  # t is ArrayImpl
    if t is np.ndarray:
        k = _HOST_KEYS.get((x.shape, x.dtype))  # type: ignore[attr-defined]  # t is np.ndarray
        return _host_key(x, _HOST_KEYS, False) if k is None else k  # type: ignore[arg-type]  # as above
    k = _SCALAR_KEYS.get(t)
    return _numpy_scalar_key(t, _NUMPY_SCALAR_KEYS, False) if k is None else k


# x64 off: Python scalars and 64-bit NumPy arrays enter as 32-bit types
_SCALAR_KEYS_32: dict[type, int] = {
    t: _SCALAR + aval_key(ShapedArray((), np.dtype(d), weak_type=t is not bool))
    for t, d in ((bool, np.bool_), (int, np.int32), (float, np.float32), (complex, np.complex64))
}
_HOST_KEYS_32: dict[tuple[tuple[int, ...], np.dtype[np.generic]], int] = {}
_NDARRAY = np.ndarray  # (a global read is cheaper than an attribute of np)
# (bound once: the tables are cleared, never replaced)
_HOST_KEY = _HOST_KEYS.get
_HOST_KEY_32 = _HOST_KEYS_32.get


def _arg_key_32(x: object) -> int:
    """``_arg_key`` with x64 off: the key of the type the argument enters as."""
    t = type(x)
    if t is ArrayImpl:
        return x._tdx_key  # type: ignore[attr-defined, no-any-return]  # t is ArrayImpl
    if t is np.ndarray:
        k = _HOST_KEYS_32.get((x.shape, x.dtype))  # type: ignore[attr-defined]  # t is np.ndarray
        return _host_key(x, _HOST_KEYS_32, True) if k is None else k  # type: ignore[arg-type]  # as above
    k = _SCALAR_KEYS_32.get(t)
    return _numpy_scalar_key(t, _NUMPY_SCALAR_KEYS_32, True) if k is None else k


def _host_key(x: np.ndarray[tuple[int, ...], np.dtype[np.generic]], table: dict[
    tuple[tuple[int, ...], np.dtype[np.generic]], int], x32: bool) -> int:
    """The key of NumPy array ``x`` (narrowed with x64 off), remembered in
    ``table`` by shape and dtype."""
    shape, dtype = x.shape, x.dtype
    narrow = TO_32.get(dtype) if x32 else None
    k = _HOST + (host_aval(x)[1] if narrow is None else aval_key(ShapedArray(shape, narrow)))
    if len(table) >= 4096:
        table.clear()
    table[(shape, dtype)] = k
    return k


#: The keys of NumPy scalar types (``np.float32(2.0)``: strongly typed, a
#: 0-d array of their dtype), x64 on and off, filled on first sight. A
#: training loop passes them every step (a learning rate, a step count):
#: before, they took the general path, ~50x slower than the fast one.
_NUMPY_SCALAR_KEYS: dict[type, int] = {}
_NUMPY_SCALAR_KEYS_32: dict[type, int] = {}


def _numpy_scalar_key(t: type, table: dict[type, int], x32: bool) -> int:
    """The key of NumPy scalar type ``t`` (``_NOT_FAST`` for any other type
    and for NumPy types typedax has no array type for)."""
    k = table.get(t)
    if k is None:
        k = _NOT_FAST
        if issubclass(t, np.generic):
            dtype = np.dtype(t)
            if dtype in SUPPORTED:
                narrow = TO_32.get(dtype) if x32 else None
                k = _SCALAR + aval_key(ShapedArray((), dtype if narrow is None else narrow))
        table[t] = k
    return k


def _x32() -> bool:
    """Whether x64 is off here (read cheaply: no ``ContextVar`` while nothing
    has turned it off)."""
    return X32_POSSIBLE[0] and not x64_enabled()


_FastEntry = Callable[[Sequence[object]], object]

#: A sharded call's fast-path key within its tree structure: each leaf's
#: type key, and each leaf's committed sharding (``None``: not a sharded array).
_ShardedKey = tuple[tuple[int, ...], tuple[Sharding | None, ...]]


def _sharded_key(leaves: Sequence[object], key_of: Callable[[object], int]) -> _ShardedKey:
    """The fast-path key of a sharded call's leaves (``_ShardedKey``)."""
    return (
        tuple([x._tdx_key if type(x) is ShardedArrayImpl else key_of(x) for x in leaves]),
        tuple([x._sharding if type(x) is ShardedArrayImpl else None for x in leaves]),
    )


def _sharded_setting() -> Hashable:
    """What a sharded call's trace depends on besides its leaves and their
    structure (``_stage``'s key): x64, the default matmul precision, and
    under explicit sharding the current mesh."""
    explicit = EXPLICIT_SEEN[0]
    return (_x32(), matmul_precision() if PRECISION_POSSIBLE[0] else None, explicit,
            current_mesh() if explicit else None)


#: every ``Jitted`` alive, for ``clear_caches`` (issue 29 item 7)
_LIVE_JITTED: weakref.WeakSet[Jitted[..., object]] = weakref.WeakSet()


def clear_jit_caches() -> None:
    """Every live ``Jitted``'s traces and fast paths, dropped
    (``typedax.clear_caches``, issue 29 item 7)."""
    for j in list(_LIVE_JITTED):
        j._clear_caches()


TRACE_SETTING_HOOKS.append(clear_jit_caches)  # a trace-time setting changed (check_static_indices)


class Jitted(Generic[P, R]):
    """A jitted function: call it like the original; ``trace``/``lower`` for
    the ahead-of-time stages. Its type has the original's signature."""

    def __init__(
        self,
        fun: Callable[P, R],
        static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (),
        donate_argnums: int | Sequence[int] = (),
        donate_argnames: str | Sequence[str] = (),
        in_shardings: ShardingTree = None,
        out_shardings: ShardingTree = None,
    ) -> None:
        check_callable("jit", fun)  # JAX's TypeError, at once
        self.fun = fun
        # many devices (jitting/sharded.py): None leaves are unspecified
        self.in_shardings, self.out_shardings = in_shardings, out_shardings
        self.name = fun_name(fun)
        try:
            self._signature: inspect.Signature | None = inspect.signature(fun)
        except (TypeError, ValueError):
            self._signature = None
        self.static_argnums, self.static_argnames = _resolve_statics(
            self.name, self._signature,
            _normalize_argnums(static_argnums), _normalize_argnames(static_argnames),
        )
        self.donate_argnums, self.donate_argnames = _resolve_statics(
            self.name, self._signature,
            _normalize_argnums(donate_argnums, "donate"),
            _normalize_argnames(donate_argnames, "donate"), "donate",
        )
        _check_disjoint(
            (self.static_argnums, self.static_argnames), (self.donate_argnums, self.donate_argnames)
        )
        self._donating = bool(self.donate_argnums or self.donate_argnames)
        self._has_statics = bool(self.static_argnums)  # read on every call
        # traces by (input structure, input types, their weak flags, static
        # arguments, x64 on, default matmul precision), and with explicit
        # sharding by that, the inputs' sharding types and the current mesh
        self._staged: dict[Hashable, _Staged] = {}
        self._static_by_count: dict[int, frozenset[int]] = {}
        self._static_patterns: dict[int, tuple[bool, ...]] = {}  # per count: which are static
        self._pattern3: tuple[bool, ...] | None = None  # that of three arguments, once known
        # fast paths: flat positional arguments by their types (and static
        # values); pytrees by (jaxlib tree structure, leaf types)
        self._fast: dict[tuple[Hashable, ...], _Entry] = {}
        self._fast_trees: dict[jx.PyTreeDef, dict[tuple[Hashable, ...], _Entry]] = {}
        # the same with x64 off (typedax.config): arguments enter as other types
        self._fast_32: dict[tuple[Hashable, ...], _Entry] = {}
        self._fast_trees_32: dict[jx.PyTreeDef, dict[tuple[Hashable, ...], _Entry]] = {}
        # once a default matmul precision has been set anywhere (typedax.config):
        # one pair of tables per (x64 off, precision), as a trace depends on both
        self._fast_by_setting: dict[
            tuple[bool, str | None],
            tuple[dict[tuple[Hashable, ...], _Entry], dict[jx.PyTreeDef, dict[tuple[Hashable, ...], _Entry]]],
        ] = {}
        # sharded calls' fast paths (jitting/sharded.py): by (the settings a
        # trace depends on, jaxlib tree structure), then by (leaf types,
        # leaves' committed shardings)
        self._fast_sharded: dict[tuple[Hashable, jx.PyTreeDef], dict[_ShardedKey, _FastEntry]] = {}
        # the compile cache's generation they were made in: clearing the cache
        # (typedax.lowering.clear_cache) drops them, as the general path then
        # compiles again (sharded.executable)
        self._fast_sharded_generation = compile_cache.generation
        # not fun.__dict__: when fun wraps another Jitted, its copied caches and
        # ``fun`` would overwrite this one's own state
        functools.update_wrapper(self, fun, updated=())
        _LIVE_JITTED.add(cast("Jitted[..., object]", self))  # for clear_caches (issue 29 item 7)

    def _clear_caches(self) -> None:
        """Forget every trace and fast path: the next call traces again
        (``typedax.clear_caches``, issue 29 item 7)."""
        for table in (self._staged, self._static_by_count, self._static_patterns, self._fast, self._fast_trees,
                      self._fast_32, self._fast_trees_32, self._fast_by_setting, self._fast_sharded):
            table.clear()
        self._pattern3 = None

    def __repr__(self) -> str:
        return f"jit({self.name})"

    # -- calling -------------------------------------------------------------
    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        # The fast path of the common call, written out for speed (issue 30:
        # each Python step here costs ~1-2% of a dispatch): positional
        # arguments only, no setting in force (JIT_SETTINGS; with x64 off the
        # _32 tables); the key is each argument's type-and-kind key
        # (_arg_key), taken inline for up to three arguments (three with
        # static ones by _pattern3, others by _call_static), and device
        # arrays go straight to the executable (_Entry.run). Keywords,
        # settings and pytrees are _dispatch's and _dispatch_trees'.
        fast, key_of, host_key = self._fast, _arg_key, _HOST_KEY
        if kwargs or JIT_SETTINGS[0]:  # one read while no setting is in force
            if kwargs or JIT_CHECKS[0] or PRECISION_POSSIBLE[0]:
                return self._dispatch(args, kwargs)
            if X32_POSSIBLE[0] and not x64_enabled():
                fast, key_of, host_key = self._fast_32, _arg_key_32, _HOST_KEY_32
        if self._has_statics:
            if len(args) != 3 or self._pattern3 is None:
                return self._call_static(args, fast, key_of)
            # written out for three arguments, as _call_static
            a, b, c = args
            s0, s1, s2 = self._pattern3
            try:
                entry = fast.get((
                    (type(a), a) if s0 else a._tdx_key if type(a) is ArrayImpl else key_of(a),
                    (type(b), b) if s1 else b._tdx_key if type(b) is ArrayImpl else key_of(b),
                    (type(c), c) if s2 else c._tdx_key if type(c) is ArrayImpl else key_of(c),
                ))
            except (PrimitiveTypeError, TypeError):
                return self._call(args, kwargs)  # the slow path explains an unhashable static or a bad dtype
            if entry is not None and current_trace() is EVAL_TRACE:
                run = entry.run
                if run is not None:  # two dynamic device arrays (_Entry.dyn): the ones not static
                    try:
                        res = run(
                            [a._dev, b._dev] if s2 else [a._dev, c._dev] if s1 else [b._dev, c._dev]  # type: ignore[attr-defined]  # ArrayImpls (the key's kinds)
                        )
                    except TypeError:  # a None: an eager array not on the device yet, or a deleted one
                        return entry.call(args)  # type: ignore[return-value]  # made from a call returning R
                    return ArrayImpl(  # type: ignore[return-value]  # as above
                        entry.aval0, None, res.consume_with_handlers(entry.handlers)[0], entry.key0
                    )
                return entry.call(args)  # type: ignore[return-value]  # as above
            return self._call_static(args, fast, key_of)
        if not fast:
            return self._dispatch_trees(args, kwargs, self._trees_for(key_of), key_of)
        n = len(args)
        key: tuple[Hashable, ...]
        try:
            if n == 3:
                a, b, c = args
                if type(a) is ArrayImpl and type(b) is ArrayImpl and type(c) is ArrayImpl:
                    entry = fast.get((a._tdx_key, b._tdx_key, c._tdx_key))
                    if entry is not None and entry.run is not None and current_trace() is EVAL_TRACE:
                        try:
                            res = entry.run([a._dev, b._dev, c._dev])  # type: ignore[list-item]  # a None raises TypeError
                        except TypeError:  # a None: an eager array not on the device yet, or a deleted one
                            return entry.call(args)  # type: ignore[return-value]  # made from a call returning R
                        return ArrayImpl(  # type: ignore[return-value]  # as above
                            entry.aval0, None, res.consume_with_handlers(entry.handlers)[0], entry.key0
                        )
                key = (
                    a._tdx_key if type(a) is ArrayImpl
                    else (host_key((a.shape, a.dtype)) or key_of(a)) if type(a) is _NDARRAY
                    else key_of(a),
                    b._tdx_key if type(b) is ArrayImpl
                    else (host_key((b.shape, b.dtype)) or key_of(b)) if type(b) is _NDARRAY
                    else key_of(b),
                    c._tdx_key if type(c) is ArrayImpl
                    else (host_key((c.shape, c.dtype)) or key_of(c)) if type(c) is _NDARRAY
                    else key_of(c),
                )
            elif n == 2:
                a, b = args
                if type(a) is ArrayImpl and type(b) is ArrayImpl:
                    entry = fast.get((a._tdx_key, b._tdx_key))
                    if entry is not None and entry.run is not None and current_trace() is EVAL_TRACE:
                        try:
                            res = entry.run([a._dev, b._dev])  # type: ignore[list-item]  # as above
                        except TypeError:  # as above
                            return entry.call(args)  # type: ignore[return-value]  # as above
                        return ArrayImpl(  # type: ignore[return-value]  # as above
                            entry.aval0, None, res.consume_with_handlers(entry.handlers)[0], entry.key0
                        )
                key = (
                    a._tdx_key if type(a) is ArrayImpl
                    else (host_key((a.shape, a.dtype)) or key_of(a)) if type(a) is _NDARRAY
                    else key_of(a),
                    b._tdx_key if type(b) is ArrayImpl
                    else (host_key((b.shape, b.dtype)) or key_of(b)) if type(b) is _NDARRAY
                    else key_of(b),
                )
            elif n == 1:
                a = args[0]
                key = (a._tdx_key if type(a) is ArrayImpl else key_of(a),)
            else:
                key = tuple([x._tdx_key if type(x) is ArrayImpl else key_of(x) for x in args])
            entry = fast.get(key)
        except (PrimitiveTypeError, TypeError):
            return self._call(args, kwargs)  # the slow path explains a bad dtype
        if entry is None:  # a new mix of kinds?
            entry = _sibling_entry(fast, key, _kindless(key), args)
        if entry is not None and current_trace() is EVAL_TRACE:
            return entry.call(args)  # type: ignore[return-value]  # as above
        return self._dispatch_trees(args, kwargs, self._trees_for(key_of), key_of)

    def _call_static(
        self, args: tuple[object, ...], fast: dict[tuple[Hashable, ...], _Entry], key_of: Callable[[object], int]
    ) -> R:
        """``__call__`` of a function with static arguments, all positional:
        the key is each static argument's ``(type, value)`` and each dynamic
        one's type key (``_flat_key``), by a pattern of static positions
        kept per number of arguments."""
        pattern = self._static_patterns.get(len(args))
        if pattern is None:
            statics = self._static_positions(len(args))
            pattern = self._static_patterns[len(args)] = tuple([i in statics for i in range(len(args))])
            if len(args) == 3:
                self._pattern3 = pattern  # __call__'s written-out static path
        key: tuple[Hashable, ...]
        try:
            if len(pattern) == 3:  # written out, as in __call__
                a, b, c = args
                s0, s1, s2 = pattern
                key = (
                    (type(a), a) if s0 else a._tdx_key if type(a) is ArrayImpl else key_of(a),
                    (type(b), b) if s1 else b._tdx_key if type(b) is ArrayImpl else key_of(b),
                    (type(c), c) if s2 else c._tdx_key if type(c) is ArrayImpl else key_of(c),
                )
            elif len(pattern) == 2:
                a, b = args
                s0, s1 = pattern
                key = (
                    (type(a), a) if s0 else a._tdx_key if type(a) is ArrayImpl else key_of(a),
                    (type(b), b) if s1 else b._tdx_key if type(b) is ArrayImpl else key_of(b),
                )
            else:
                key = tuple([
                    (type(x), x) if s else x._tdx_key if type(x) is ArrayImpl else key_of(x)
                    for x, s in zip(args, pattern)
                ])
            entry = fast.get(key)
        except (PrimitiveTypeError, TypeError):
            return self._call(args, {})  # the slow path explains an unhashable static or a bad dtype
        if entry is None:  # a new mix of kinds?
            entry = _sibling_entry(fast, key, _kindless(key), args)
        if entry is not None and current_trace() is EVAL_TRACE:
            return entry.call(args)  # type: ignore[return-value]  # as above
        return self._call(args, {})

    def _trees_for(self, key_of: Callable[[object], int]) -> dict[jx.PyTreeDef, dict[tuple[Hashable, ...], _Entry]]:
        """The pytree table beside the flat one ``__call__`` chose (by its key function)."""
        return self._fast_trees_32 if key_of is _arg_key_32 else self._fast_trees

    def _dispatch(self, args: tuple[object, ...], kwargs: dict[str, object]) -> R:
        """A call that ``__call__``'s written-out path does not take: the
        tables of the settings in force, static arguments, pytrees and
        keyword arguments; ``_call`` (the general path) when no fast-path
        entry fits."""
        if JIT_CHECKS[0]:  # disable_jit, or debug_nans/infs (their check is jit_p's): no fast path
            return self.fun(*args, **kwargs) if jit_disabled() else self._call(args, kwargs)  # type: ignore[arg-type]  # P's own args and kwargs
        if PRECISION_POSSIBLE[0]:
            fast, fast_trees, key_of = self._setting_tables()
        elif X32_POSSIBLE[0] and not x64_enabled():
            fast, fast_trees, key_of = self._fast_32, self._fast_trees_32, _arg_key_32
        else:
            fast, fast_trees, key_of = self._fast, self._fast_trees, _arg_key
        if fast and not kwargs:
            try:
                key = self._flat_key(args, key_of) if self._has_statics else tuple(map(key_of, args))
                entry = fast.get(key)
            except (PrimitiveTypeError, TypeError):
                pass  # the slow path explains an unhashable static or a bad dtype
            else:
                if entry is None:  # a new mix of kinds?
                    entry = _sibling_entry(fast, key, _kindless(key), args)
                if entry is not None and current_trace() is EVAL_TRACE:
                    return entry.call(args)  # type: ignore[return-value]  # the entry was made from a call returning R
        return self._dispatch_trees(args, kwargs, fast_trees, key_of)

    def _dispatch_trees(
        self, args: tuple[object, ...], kwargs: dict[str, object],
        fast_trees: dict[jx.PyTreeDef, dict[tuple[Hashable, ...], _Entry]], key_of: Callable[[object], int],
    ) -> R:
        """The fast path of calls with pytree or keyword arguments (no static
        ones): by jaxlib's tree structure, then the leaves' type keys (then,
        for sharded calls, their committed shardings: ``_install_sharded``);
        ``_call`` when no entry fits."""
        if (fast_trees or self._fast_sharded) and not self.static_argnums and not self.static_argnames:
            try:
                leaves, treedef = _FLATTEN((args, kwargs))
                keys = tuple(map(key_of, leaves))
            except (PrimitiveTypeError, RecursionError, SystemError):
                # a cyclic or too deep tree: jaxlib's flatten raises a
                # RecursionError wrapped in a SystemError; typedax.tree's
                # TreeError (in _call) says which
                pass
            else:
                by_type = fast_trees.get(treedef)
                if by_type is not None:
                    entry = by_type.get(keys)
                    if entry is None:
                        entry = _sibling_entry(by_type, keys, _kindless(keys), leaves)
                    if entry is not None and current_trace() is EVAL_TRACE:
                        return entry.call(leaves)  # type: ignore[return-value]  # as above
                if self._fast_sharded:  # sharded arrays among them, or in_shardings
                    by_key = self._fast_sharded.get((_sharded_setting(), treedef))
                    if by_key is not None and self._fast_sharded_generation == compile_cache.generation:
                        try:
                            sharded_entry = by_key.get(_sharded_key(leaves, key_of))
                        except PrimitiveTypeError:
                            sharded_entry = None
                        if sharded_entry is not None and current_trace() is EVAL_TRACE:
                            return sharded_entry(leaves)  # type: ignore[return-value]  # as above
        return self._call(args, kwargs)

    def _setting_tables(
        self,
    ) -> tuple[
        dict[tuple[Hashable, ...], _Entry], dict[jx.PyTreeDef, dict[tuple[Hashable, ...], _Entry]],
        Callable[[object], int],
    ]:
        """The fast-path tables for the settings in force here (x64 and the
        default matmul precision), once a precision may be set."""
        x32 = _x32()
        fast, trees = self._fast_by_setting.setdefault((x32, matmul_precision()), ({}, {}))
        return fast, trees, (_arg_key_32 if x32 else _arg_key)

    def _flat_key(
        self, args: tuple[object, ...], key_of: Callable[[object], int] = _arg_key
    ) -> tuple[Hashable, ...]:
        """The fast-path key of flat positional arguments: each dynamic
        argument's type key, each static one's (type, value)."""
        if not self.static_argnums:
            return tuple(map(key_of, args))
        statics = self._static_by_count.get(len(args))
        if statics is None:
            statics = self._static_positions(len(args))
        return tuple([(type(a), a) if i in statics else key_of(a) for i, a in enumerate(args)])

    def _static_positions(self, n: int) -> frozenset[int]:
        """The positions of the static arguments in a call with ``n``
        positional arguments (a negative ``static_argnums`` counts from the
        end); remembered per ``n``, since the fast path asks on every call."""
        positions = self._static_by_count.get(n)
        if positions is None:
            positions = frozenset(i + n if i < 0 else i for i in self.static_argnums)
            self._static_by_count[n] = positions
        return positions

    def __get__(self, obj: object, objtype: type | None = None) -> Callable[..., R]:
        """``jit`` on a method: the bound method passes ``obj`` as ``self``
        (an argument like any other, so an array-valued object must be a pytree)."""
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)  # type: ignore[arg-type]  # obj is the first of P.args

    def _call(self, args: tuple[object, ...], kwargs: dict[str, object]) -> R:
        staged, leaves = self._stage(args, kwargs)
        closed = staged.closed
        consts = cast(list[Value], list(closed.consts))
        evaluating = current_trace() is EVAL_TRACE and not staged.has_tracer_consts
        donated: tuple[bool, ...] = ()
        if self._donating and evaluating:
            # Donation applies to a call on concrete values; under a
            # transformation or an outer jit the call is staged as usual.
            donated = (False,) * len(consts) + _drop(self._donated_leaves(args, kwargs), staged.in_float0)
        plan = self._plan(staged, args, kwargs, [*consts, *leaves]) if evaluating else None
        if plan is not None:  # many devices: a fast-path entry of its own (_install_sharded)
            exe = sharded.executable(closed.jaxpr, staged.name, plan)
            result = cast(R, staged.outputs(sharded.run(exe, [*consts, *leaves])))
            self._install_sharded(staged, exe, args, kwargs)
            return result
        if any(donated):
            exe = compile_cache.get(closed.jaxpr, staged.name, donated=donated)
            values = [*consts, *leaves]
            bufs = [
                to_buffer(x, a, f"jit of '{staged.name}', operand {i}")
                for i, (x, a) in enumerate(zip(values, exe.in_avals))
            ]
            outs: Sequence[Value] = exe.run(bufs)
            _delete_donated(values, exe.donated)
        else:
            outs = bind(jit_p, [*consts, *leaves], JitParams(closed.jaxpr, staged.name).to_params())
        if evaluating:
            # the executable lives while the function does, not only this
            # wrapper's trace: jit(f) written again for one f compiles once
            compile_cache.keep_with(self.fun, closed.jaxpr, donated)
            self._install_fast_path(staged, args, kwargs, donated)
        return cast(R, staged.outputs(outs))

    def _plan(
        self, staged: _Staged, args: tuple[object, ...], kwargs: dict[str, object], values: Sequence[object]
    ) -> ShardingPlan | None:
        """The sharding plan of this call (``None``: one device), from
        ``in_shardings`` (a prefix of the positional arguments; static ones
        skipped, keyword arguments unspecified), ``out_shardings`` (a prefix
        of the result), committed sharded arguments and the constraints in
        the traced function."""
        n_consts = len(staged.closed.consts)
        in_specs: list[Sharding | None] = [None] * (len(values) - n_consts)
        if self.in_shardings is not None:
            statics = self._static_positions(len(args))
            dyn = [a for i, a in enumerate(args) if i not in statics]
            spec = self.in_shardings
            if isinstance(spec, (tuple, list)) and len(args) != len(dyn) and len(spec) == len(args):
                spec = [s for i, s in enumerate(spec) if i not in statics]
            per_leaf = sharded.prefix_leaves(
                spec if not isinstance(spec, list) else tuple(spec), tuple(dyn), f"jit of '{self.name}': in_shardings"
            )
            per_leaf = list(_drop(tuple(per_leaf), staged.in_float0))
            in_specs[: len(per_leaf)] = per_leaf
        out_specs: list[Sharding | None] = [None] * len(staged.closed.jaxpr.outs)
        if self.out_shardings is not None:
            skeleton = staged.outputs([0] * len(out_specs))
            out_specs = sharded.prefix_leaves(self.out_shardings, skeleton, f"jit of '{self.name}': out_shardings")
        return sharded.make_plan(staged.name, staged.closed.jaxpr, n_consts, values[n_consts:], in_specs, out_specs)

    def _donated_leaves(
        self, args: tuple[object, ...], kwargs: dict[str, object], abstract: bool = False
    ) -> tuple[bool, ...]:
        """Which dynamic leaves (in ``_stage``'s flat order) are donated."""
        is_leaf = _is_aval if abstract else None
        statics = self._static_positions(len(args))
        n = len(args)
        donate = {i + n if i < 0 else i for i in self.donate_argnums}
        flags: list[bool] = []
        for i, a in enumerate(args):
            if i not in statics:
                flags += [i in donate] * len(tree.flatten(a, is_leaf=is_leaf)[0])
        for k in sorted(kwargs):  # dicts flatten in key order
            if k not in self.static_argnames:
                flags += [k in self.donate_argnames] * len(tree.flatten(kwargs[k], is_leaf=is_leaf)[0])
        return tuple(flags)

    def _split_statics(
        self, args: tuple[object, ...], kwargs: dict[str, object]
    ) -> tuple[tuple[object, ...], dict[str, object], _StaticKey]:
        statics: list[tuple[int | str, type, Hashable]] = []
        dyn_args: list[object] = []
        nums = self._static_positions(len(args))
        for i, a in enumerate(args):
            if i in nums:
                statics.append((i, type(a), self._hashable(a, f"static argument {i}")))
            else:
                dyn_args.append(a)
        dyn_kwargs: dict[str, object] = {}
        for k, v in kwargs.items():
            if k in self.static_argnames:
                statics.append((k, type(v), self._hashable(v, f"static argument '{k}'")))
            else:
                dyn_kwargs[k] = v
        return tuple(dyn_args), dyn_kwargs, tuple(statics)

    def _hashable(self, value: object, what: str) -> Hashable:
        try:
            hash(value)
        except TypeError as e:
            raise StaticArgumentError(
                f"{what} of jitted function '{self.name}' must be hashable, but "
                f"{type(value).__name__} is not ({e}). Pass a tuple instead of a "
                "list, or make the argument non-static."
            ) from None
        return value

    def _stage(
        self, args: tuple[object, ...], kwargs: dict[str, object], abstract: bool = False
    ) -> tuple[_Staged, list[Value]]:
        """Trace (or find) the staged function for these arguments. With
        ``abstract`` (ahead-of-time ``trace``), ``ShapedArray`` leaves stand
        for arrays of that type, as ``jax.ShapeDtypeStruct`` does."""
        dyn_args, dyn_kwargs, statics = self._split_statics(args, kwargs)
        if abstract:
            raw_leaves, in_tree = tree.flatten((dyn_args, dyn_kwargs), is_leaf=_is_aval)
            raw_leaves, f0_in = split_float0(raw_leaves)
            avals = tuple(
                x if isinstance(x, ShapedArray) else aval_of(_as_value(x, self.name)) for x in raw_leaves
            )
            leaves = []  # nothing runs: trace needs only the types
        else:
            raw_leaves, in_tree = tree.flatten((dyn_args, dyn_kwargs))
            raw_leaves, f0_in = split_float0(raw_leaves)  # float0 leaves: known from their shapes
            leaves = [_as_value(x, self.name) for x in raw_leaves]
            avals = tuple(aval_of(x) for x in leaves)
        # avals compare without their weak flags, which change promotion
        key: Hashable = (in_tree, avals, tuple([a.weak_type for a in avals]), statics, not _x32(), matmul_precision())
        if f0_in:
            key = (key, f0_in)
        if EXPLICIT_SEEN[0]:  # explicit sharding: a trace is for its operands' sharding types (and mesh)
            key = (key, tuple([a.sharding for a in avals]), current_mesh())
        staged = self._staged.get(key)
        if staged is None:
            if explain_cache_misses_enabled():  # compile logging
                _explain_miss(self.fun, self.name, list(self._staged), in_tree, avals, statics)
            t0 = time.perf_counter()
            staged = self._trace(in_tree, avals, statics, len(args), f0_in)
            if log_compiles_enabled():  # compile logging
                _LOGGER.warning("Finished tracing %s for jit in %.9f sec", getattr(self.fun, "__name__", self.name),
                                time.perf_counter() - t0)
            if not staged.has_tracer_consts:
                _bounded_put(self._staged, key, staged)
        return staged, leaves

    def _trace(
        self, in_tree: tree.TreeDef, avals: tuple[ShapedArray, ...], statics: _StaticKey, n_args: int,
        f0_in: Float0Slots = (),
    ) -> _Staged:
        out_trees: list[tree.TreeDef] = []
        f0_out: list[Float0Slots] = []
        static_pos = {k: v for k, _, v in statics if isinstance(k, int)}
        static_kw = {k: v for k, _, v in statics if isinstance(k, str)}
        fun = self.fun

        def run(flat: list[Value]) -> list[Value]:
            dyn = tree.unflatten(in_tree, merge_float0(flat, f0_in))
            assert isinstance(dyn, tuple)
            dyn_args, dyn_kwargs = dyn
            it = iter(dyn_args)
            all_args = [static_pos[i] if i in static_pos else next(it) for i in range(n_args)]
            with float0_boundary():  # float0 results made directly in fun come out
                out = fun(*all_args, **dyn_kwargs, **static_kw)  # type: ignore[arg-type]  # rebuilt P.args/P.kwargs
            out_leaves, out_tree = tree.flatten(out)
            out_trees.append(out_tree)
            out_leaves, slots = split_float0(out_leaves)
            f0_out.append(slots)
            return [_as_value(x, self.name, output=True) for x in out_leaves]

        closed = trace_to_jaxpr_flat(run, avals, self.name)
        return _Staged(closed, in_tree, out_trees[0], self.name, f0_in, f0_out[0])

    def _install_fast_path(
        self, staged: _Staged, args: tuple[object, ...], kwargs: dict[str, object],
        donated: tuple[bool, ...] = (),
    ) -> None:
        """Remember the executable for calls with these argument types (and
        static values), so the next such call skips flattening, tracing and
        the cache lookups. ``donated`` flags the executable's inputs given
        up (``donate_argnums``): the entry deletes those arrays after a call."""
        exe = compile_cache.peek(staged.closed.jaxpr, donated)
        if exe is None or staged.in_float0:  # float0 arguments: the slow path (their keys raise)
            return
        if PRECISION_POSSIBLE[0]:
            fast_flat, fast_trees, key_of = self._setting_tables()
        elif _x32():
            fast_flat, fast_trees, key_of = self._fast_32, self._fast_trees_32, _arg_key_32
        else:
            fast_flat, fast_trees, key_of = self._fast, self._fast_trees, _arg_key
        has_statics = bool(self.static_argnums or self.static_argnames)
        flat = False
        if not kwargs:
            try:
                key = self._flat_key(args, key_of)
            except (PrimitiveTypeError, TypeError):
                pass
            else:
                flat = _NOT_FAST not in key
        if not flat:
            if has_statics:
                return
            j_leaves, j_treedef = _FLATTEN((args, kwargs))
            try:
                keys = tuple(map(key_of, j_leaves))
            except PrimitiveTypeError:
                return
            if _NOT_FAST in keys:
                return
            # jaxlib's flattening must see the same leaves in typedax's order
            t_leaves = tree.leaves((args, kwargs))
            if len(t_leaves) != len(j_leaves) or not all(a is b for a, b in zip(t_leaves, j_leaves)):
                return
        n_consts = len(staged.closed.consts)
        const_bufs = [
            to_buffer(cast(Value, c), a, f"constant {i} of '{self.name}'")
            for i, (c, a) in enumerate(zip(staged.closed.consts, exe.in_avals))
        ]
        statics = self._static_positions(len(args)) if flat and has_statics else frozenset()
        # (None: every argument is dynamic; __call__'s own paths rely on it)
        dynamic = tuple(i for i in range(len(args)) if i not in statics) if statics else None
        make = _fast_entry(staged, exe, const_bufs, dynamic, key_of is _arg_key_32)
        if flat:
            table: dict[tuple[Hashable, ...], _Entry] = fast_flat
        else:
            key = keys
            table = fast_trees.setdefault(j_treedef, {})
            while len(fast_trees) > MAX_TRACES_PER_FUNCTION:
                del fast_trees[next(iter(fast_trees))]
        kindless = _kindless(key)
        if kindless != key:  # the device arrays' entry, which the other kinds' are made from
            _bounded_put(table, kindless, make(None))
        _bounded_put(table, key, make(args if flat else j_leaves))

    def _install_sharded(
        self, staged: _Staged, exe: Executable, args: tuple[object, ...], kwargs: dict[str, object]
    ) -> None:
        """Remember ``exe`` for sharded calls with these leaf types, committed
        shardings and pytree structure under these settings (``__call__``
        finds it before tracing): the trace, the sharding plan and the
        executable depend on nothing else (``_stage``'s key; ``_plan``: the
        ``in_shardings``/``out_shardings`` prefixes resolve by the structure,
        ``sharded.make_plan``'s key). Calls with static arguments, or whose
        leaves the fast path cannot key (tracers, NumPy scalars of types
        typedax lacks), stay on this slow path."""
        if self.static_argnums or self.static_argnames or staged.has_tracer_consts:
            return
        if staged.in_float0 or staged.out_float0:  # float0 leaves: the slow path (as one device's)
            return
        key_of = _arg_key_32 if _x32() else _arg_key
        j_leaves, j_treedef = _FLATTEN((args, kwargs))
        try:
            key = _sharded_key(j_leaves, key_of)
        except PrimitiveTypeError:
            return
        if _NOT_FAST in key[0]:
            return
        # jaxlib's flattening must see the same leaves in typedax's order
        t_leaves = tree.leaves((args, kwargs))
        if len(t_leaves) != len(j_leaves) or not all(a is b for a, b in zip(t_leaves, j_leaves)):
            return
        entry = sharded.fast_entry(exe, cast(list[Value], list(staged.closed.consts)), key[1],
                                   _fast_unflatten(staged.out_tree))
        tables = self._fast_sharded
        if self._fast_sharded_generation != compile_cache.generation:  # made before the cache was cleared
            tables.clear()
            self._fast_sharded_generation = compile_cache.generation
        _bounded_put(tables.setdefault((_sharded_setting(), j_treedef), {}), key, entry)
        while len(tables) > MAX_TRACES_PER_FUNCTION:
            del tables[next(iter(tables))]

    # -- ahead of time ---------------------------------------------------------
    def trace(self, *args: P.args, **kwargs: P.kwargs) -> Traced[R]:
        """Stage the function at these arguments' types: a ``Traced``."""
        staged, _ = self._stage(args, kwargs, abstract=True)
        if staged.has_tracer_consts:
            raise TypedaxError(
                f"jit({self.name}).trace: the function closes over traced values; "
                "ahead-of-time stages need a closed function"
            )
        donated: tuple[bool, ...] = ()
        if self._donating:
            donated = (False,) * len(staged.closed.consts) + _drop(
                self._donated_leaves(args, kwargs, abstract=True), staged.in_float0
            )
        avals = [*staged.closed.in_avals]
        plan = self._plan(staged, args, kwargs, avals)
        return Traced(staged, self._signature, self.static_argnums, self.static_argnames, donated, plan)

    def lower(self, *args: P.args, **kwargs: P.kwargs) -> Lowered[R]:
        """``self.trace(*args, **kwargs).lower()``."""
        return self.trace(*args, **kwargs).lower()


#: JAX's logger for what ``jit`` does on its slow path (compile logging):
#: tracing, lowering and compiling under ``log_compiles``, and why a trace
#: missed the cache under ``explain_cache_misses``, at WARNING level.
_LOGGER = logging.getLogger("typedax")


def _explain_miss(
    fun: Callable[..., object], name: str, seen: list[Hashable], in_tree: tree.TreeDef,
    avals: tuple[ShapedArray, ...], statics: _StaticKey,
) -> None:
    """Log why this call of ``fun`` traces again, in JAX's words: never seen
    (its first trace), or how its arguments differ from the closest trace
    seen before (pytree, types, static arguments, or the settings)."""
    msg = [f"TRACING CACHE MISS at {_user_callsite()}:"]
    name = getattr(fun, "__name__", name)  # JAX's messages name a function by its __name__
    code = getattr(fun, "__code__", None)
    where = f" defined at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    if not seen:
        msg.append(f"  never seen function:\n    {name} id={id(fun)}{where}")
        _LOGGER.warning("\n".join(msg))
        return
    msg.append(f"  for {name}{where}")
    msg.append("  all previously seen cache keys differ. For the closest previous key:")
    best: tuple[int, str] | None = None
    for old in seen:
        while isinstance(old, tuple) and len(old) == 3 and isinstance(old[0], tuple) and len(old[0]) == 6:
            old = old[0]  # explicit sharding: (key, shardings, mesh)
        if not (isinstance(old, tuple) and len(old) == 6):
            continue
        o_tree, o_avals, o_weak, o_statics, o_x64, o_prec = old
        if o_tree != in_tree:
            cand = (1, f"  different input pytree:\n  * now {in_tree} and before {o_tree}")
        elif o_avals != avals or o_weak != tuple(a.weak_type for a in avals):
            diffs = []
            names = _leaf_names(fun, in_tree, statics, len(avals))
            for i, (a, b) in enumerate(zip(avals, o_avals)):
                if a != b or a.weak_type != b.weak_type:
                    now, before = a.str_short(short_dtypes=True), b.str_short(short_dtypes=True)
                    if a.weak_type != b.weak_type:
                        now += f"{{weak_type={a.weak_type}}}"
                        before += f"{{weak_type={b.weak_type}}}"
                    diffs.append(f"  * at {names[i]}, now {now} and before {before}")
            cand = (3, "  different input types:\n" + "\n".join(diffs))
        elif o_statics != statics:
            cand = (2, f"  different static arguments: now {statics} and before {o_statics}")
        else:
            cand = (0, "  Tracing context doesn't match, e.g. due to config or context manager "
                       f"(x64 now {not _x32()}, before {o_x64}; matmul precision now {matmul_precision()}, "
                       f"before {o_prec}).")
        if best is None or cand[0] < best[0]:
            best = cand
    msg.append(best[1] if best is not None else "  cache miss explanation unavailable")
    _LOGGER.warning("\n".join(msg))


def _leaf_names(fun: Callable[..., object], in_tree: tree.TreeDef, statics: _StaticKey, n: int) -> list[str]:
    """A name per flat argument leaf for ``_explain_miss``: the parameter's
    name (``x``), with the leaf's index for a pytree argument (``ws[1]``);
    ``args[i]`` where the signature says nothing."""
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    static_pos = {k[0] for k in statics if isinstance(k[0], int)}
    dyn_names = [p for i, p in enumerate(params) if i not in static_pos]
    names: list[str] = []
    args_tree = in_tree.children[0] if in_tree.children else in_tree
    for i, child in enumerate(args_tree.children):
        base = dyn_names[i] if i < len(dyn_names) else f"args[{i}]"
        k = child.num_leaves
        names.extend([base] if k == 1 else [f"{base}[{j}]" for j in range(k)])
    names.extend(f"args[{j}]" for j in range(len(names), n))  # keyword arguments
    return names


def _user_callsite() -> str:
    """``file:line (function)`` of the innermost frame outside typedax."""
    import sys  # noqa: PLC0415  - only when explaining a miss

    package = __name__.split(".")[0]
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__", "").split(".")[0] != package:
            return f"{frame.f_code.co_filename}:{frame.f_lineno} ({frame.f_code.co_name})"
        frame = frame.f_back
    return "unknown"


_FLATTEN = jx.pytree_flatten().flatten


# -- the fast path's entries -------------------------------------------------------
#: A call pattern (which arguments are host values, of which Python types)
#: with two or more host arguments, seen this many times by one entry, gets
#: a program that takes those arguments packed into one byte buffer: one
#: transfer per call instead of one per argument (a transfer costs ~2.5 us,
#: packing the bytes ~0.2 us an argument). The first calls copy them one by
#: one, so a function called with NumPy arguments once or twice compiles no
#: second program.
PACK_AFTER = 3

_Wrap = Callable[[list[jx.Array]], object]


class _Results(Protocol):
    """What an executable's ``execute_sharded`` returns (jaxlib's ``ExecuteResults``)."""

    def consume_with_handlers(self, out_handlers: Sequence[jx.ResultHandler], /) -> list[jx.Array]: ...


class _Entry:
    """A fast-path entry: ``call`` takes the arguments (or pytree leaves) of
    one call pattern -- their type keys and kinds (``_arg_key``) -- and
    returns the result. Where the program has one output, no constants and
    donates nothing, and every argument is a device array, ``run`` (its
    ``execute_sharded``), ``handlers``, ``aval0`` and ``key0`` let
    ``Jitted.__call__`` run it on the arguments' buffers itself (``run`` is
    ``None`` otherwise): all of them, or with static arguments the two
    dynamic ones at positions ``dyn`` (with other counts ``run`` is
    ``None``). ``sibling`` makes the entry of the same types in
    other kinds (a NumPy array where this one has a device array ...) from
    those arguments, sharing the executable."""

    __slots__ = ("call", "run", "handlers", "aval0", "key0", "sibling", "dyn")

    def __init__(
        self, call: _FastEntry, run: Callable[[list[jx.Array]], _Results] | None,
        handlers: tuple[jx.ResultHandler, ...], aval0: ShapedArray, key0: int,
        sibling: Callable[[Sequence[object] | None], _Entry], dyn: tuple[int, ...] = (),
    ) -> None:
        self.call = call
        self.run = run
        self.handlers = handlers
        self.aval0 = aval0
        self.key0 = key0
        self.sibling = sibling
        self.dyn = dyn


def _kindless(key: tuple[Hashable, ...]) -> tuple[Hashable, ...]:
    """``key`` with every argument a device array: the type keys without
    their kinds (static arguments' ``(type, value)`` pairs kept)."""
    return tuple([k % _KIND if type(k) is int and k >= 0 else k for k in key])


def _sibling_entry(table: dict[K, _Entry], key: K, kindless: K, values: Sequence[object]) -> _Entry | None:
    """The entry for ``key`` (arguments ``values``), made from the entry of
    the same types as device arrays (under ``kindless``) and remembered;
    ``None`` if there is none."""
    base = table.get(kindless)
    if base is None:
        return None
    entry = base.sibling(values)
    _bounded_put(table, key, entry)
    return entry


def _fast_entry(
    staged: _Staged, exe: Executable, const_bufs: list[jx.Array], dynamic: tuple[int, ...] | None,
    narrow: bool,
) -> Callable[[Sequence[object] | None], _Entry]:
    """The maker of fast-path entries for calls of one type signature, by
    the arguments of a call: dynamic arguments (or pytree leaves) in, this
    jaxpr's results out. ``narrow``: x64 is off (host values convert).

    Arguments of one type may come as device arrays, eager arrays, NumPy
    arrays or (weakly typed) Python or NumPy scalars; the entry of each mix
    of kinds is made on its first call. Device arrays only pass their
    buffers straight to the executable; any other mix copies its host
    values (``_host_entry``)."""
    n_consts = len(const_bufs)
    run = exe.loaded.execute_sharded
    handlers = exe.out_handlers
    out_tree = staged.out_tree
    single = out_tree == tree.LEAF and not staged.out_float0
    unflatten = _fast_unflatten(out_tree) if not staged.out_float0 else staged.outputs
    # this jaxpr's output types: the executable's may differ in weak flags
    # (it can be shared with a jaxpr that differs only in them)
    out_avals = staged.closed.jaxpr.out_avals
    out_keys = tuple([aval_key(a) for a in out_avals])
    # (read only where there is one output)
    out_aval0, out_key0 = (out_avals[0], out_keys[0]) if single else (ShapedArray((), np.dtype(np.bool_)), 0)
    consumed = tuple(i - n_consts for i in exe.donated)

    def wrap(res: list[jx.Array]) -> object:
        if single:
            return ArrayImpl(out_aval0, None, res[0], out_key0)
        return unflatten([ArrayImpl(v, None, o, k) for o, v, k in zip(res, out_avals, out_keys)])

    def on_device(args: Sequence[object]) -> object:
        if dynamic is not None:
            args = [args[i] for i in dynamic]
        bufs = [x._dev for x in args]  # type: ignore[attr-defined]  # every x is an ArrayImpl (the key's kinds)
        if n_consts:
            bufs = const_bufs + bufs
        try:
            results = run(bufs)
        except TypeError:  # a None: an eager array not on the device yet, or a deleted one
            results = run([*const_bufs, *[buffer_of(x) for x in args]])  # type: ignore[arg-type]  # as above
        res = results.consume_with_handlers(handlers)
        if consumed:
            _delete_donated(args, consumed)
        return wrap(res)

    if single and not n_consts and not consumed and dynamic is not None:
        # static arguments (a common use): written out, for one or two
        # dynamic arguments without a list
        dyn = dynamic
        if len(dyn) == 2:
            i, j = dyn

            def on_device(args: Sequence[object]) -> object:  # noqa: F811  - the specialised form
                try:
                    results = run([args[i]._dev, args[j]._dev])  # type: ignore[attr-defined]  # ArrayImpls (the key's kinds)
                except TypeError:  # as above
                    results = run([buffer_of(args[k]) for k in dyn])  # type: ignore[arg-type]  # as above
                return ArrayImpl(out_aval0, None, results.consume_with_handlers(handlers)[0], out_key0)
        elif len(dyn) == 1:
            i = dyn[0]

            def on_device(args: Sequence[object]) -> object:  # noqa: F811  - the specialised form
                try:
                    results = run([args[i]._dev])  # type: ignore[attr-defined]  # as above
                except TypeError:  # as above
                    results = run([buffer_of(args[i])])  # type: ignore[arg-type]  # as above
                return ArrayImpl(out_aval0, None, results.consume_with_handlers(handlers)[0], out_key0)
        else:

            def on_device(args: Sequence[object]) -> object:  # noqa: F811  - the specialised form
                try:
                    results = run([args[k]._dev for k in dyn])  # type: ignore[attr-defined]  # as above
                except TypeError:  # as above
                    results = run([buffer_of(args[k]) for k in dyn])  # type: ignore[arg-type]  # as above
                return ArrayImpl(out_aval0, None, results.consume_with_handlers(handlers)[0], out_key0)

    direct = single and not n_consts and not consumed and (dynamic is None or len(dynamic) == 2)

    def make(values: Sequence[object] | None) -> _Entry:
        """The entry for calls of the kinds of ``values`` (``None``: device arrays)."""
        if values is None:
            types: tuple[type, ...] = ()
        else:
            types = tuple([type(values[i]) for i in dynamic]) if dynamic is not None else tuple(map(type, values))
        if all(t is ArrayImpl for t in types):
            return _Entry(on_device, run if direct else None, handlers, out_aval0, out_key0, make, dynamic or ())
        entry = _Entry(on_device, None, handlers, out_aval0, out_key0, make)
        entry.call = _host_entry(
            staged, exe, const_bufs, types, dynamic, narrow, wrap, entry, (out_aval0, out_key0) if single else None
        )
        return entry

    return make


def _host_entry(
    staged: _Staged, exe: Executable, const_bufs: list[jx.Array], types: tuple[type, ...],
    dynamic: tuple[int, ...] | None, narrow: bool, wrap: _Wrap, entry: _Entry,
    single: tuple[ShapedArray, int] | None,
) -> _FastEntry:
    """How a call whose dynamic arguments have these Python types reaches
    the executable: device arrays by their buffers, host values (NumPy
    arrays, Python and NumPy scalars) copied one by one; after
    ``PACK_AFTER`` calls, where two or more NumPy arrays share a dtype,
    ``entry.call`` becomes the packed one (``_packed_entry``)."""
    n_consts = len(const_bufs)
    arg_avals = exe.in_avals[n_consts:]
    run, handlers = exe.loaded.execute_sharded, exe.out_handlers
    puts = [_putter(t, a, bool(exe.donated)) for t, a in zip(types, arg_avals)]
    consumed = tuple(i - n_consts for i in exe.donated)

    def one_by_one(args: Sequence[object]) -> object:
        if dynamic is not None:
            args = [args[i] for i in dynamic]
        bufs = [
            buffer_of(x) if put is None else put(x)  # type: ignore[arg-type]  # put None: an ArrayImpl
            for x, put in zip(args, puts)
        ]
        res = run([*const_bufs, *bufs]).consume_with_handlers(handlers)
        if consumed:
            _delete_donated(args, consumed)
        return wrap(res)

    groups = _pack_groups(staged.closed.jaxpr.in_avals[n_consts:], types)
    if not groups or exe.donated:
        return one_by_one
    calls = [0]

    def counting(args: Sequence[object]) -> object:
        calls[0] += 1
        if calls[0] == PACK_AFTER:  # once: a racing thread at most builds it twice
            entry.call = _packed_entry(staged, const_bufs, types, groups, dynamic, narrow, wrap, single)
        return one_by_one(args)

    return counting


_PYTHON_SCALARS = frozenset({bool, int, float})


def _putter(t: type, aval: ShapedArray, donating: bool) -> HostPut | None:
    """How an argument of Python type ``t`` and type ``aval`` reaches the
    device: ``None`` for an ``ArrayImpl`` (its buffer), a transfer for a host
    value; Python and NumPy scalars by ``scalar_putter`` unless the program
    consumes inputs (its buffers are shared)."""
    if t is ArrayImpl:
        return None
    if (t in _PYTHON_SCALARS or issubclass(t, np.generic)) and not donating:  # NumPy scalars: immutable too
        return scalar_putter(aval)
    return host_putter(aval)


def _pack_groups(
    arg_avals: Sequence[ShapedArray], types: tuple[type, ...]
) -> tuple[tuple[int, ...], ...]:
    """The host arguments worth packing: per dtype (of the ordinary ones),
    the positions of two or more NumPy arrays of it, not all of size 0
    (Python scalars go by ``scalar_putter``, which usually copies nothing)."""
    by_dtype: dict[np.dtype[np.generic], list[int]] = {}
    for i, (t, a) in enumerate(zip(types, arg_avals)):
        if t is np.ndarray and a.dtype in SUPPORTED:
            by_dtype.setdefault(a.dtype, []).append(i)
    return tuple(
        tuple(ps) for ps in by_dtype.values() if len(ps) > 1 and any(arg_avals[i].size for i in ps)
    )


def _packed_entry(
    staged: _Staged, const_bufs: list[jx.Array], types: tuple[type, ...],
    groups: tuple[tuple[int, ...], ...], dynamic: tuple[int, ...] | None, narrow: bool, wrap: _Wrap,
    single: tuple[ShapedArray, int] | None,
) -> _FastEntry:
    """The entry for calls whose host values at the positions of each group
    (of one dtype) travel together: their elements (C order, converted to
    the dtype as a one-by-one copy converts them) are joined into one flat
    array and copied in one transfer, and a program made for this pattern
    slices each value back out before the function's own computation,
    which it calls as a nested ``jit``. Other arguments are passed as
    ``one_by_one`` passes them. ``narrow``: x64 is off, so a NumPy array
    may have a wider dtype than its group's (with x64 on, the key makes
    them equal, and its bytes are the converted ones)."""
    n_consts = len(const_bufs)
    arg_avals = staged.closed.jaxpr.in_avals[n_consts:]
    exe = _packed_executable(staged, groups)
    run, handlers = exe.loaded.execute_sharded, exe.out_handlers
    packed_set = {i for g in groups for i in g}
    # the other arguments, in order: a device buffer, or a transfer of its own
    rest = [(i, _putter(t, arg_avals[i], False)) for i, t in enumerate(types) if i not in packed_set]
    packs = [
        (g, arg_avals[g[0]].dtype,
         host_putter(ShapedArray((sum(arg_avals[i].size for i in g),), arg_avals[g[0]].dtype)))
        for g in groups
    ]
    asarray, frombuffer, join = np.asarray, np.frombuffer, b"".join
    out_aval0, out_key0 = single if single is not None else (None, 0)

    if narrow or rest or n_consts or len(packs) > 1:

        def packed(args: Sequence[object]) -> object:
            if dynamic is not None:
                args = [args[i] for i in dynamic]
            bufs = [*const_bufs, *[
                buffer_of(args[i]) if put is None else put(args[i])  # type: ignore[arg-type]  # put None: an ArrayImpl
                for i, put in rest
            ]]
            for g, dtype, put_group in packs:
                data = join([asarray(args[i], dtype).tobytes() for i in g])
                bufs.append(put_group(frombuffer(data, dtype)))
            return wrap(run(bufs).consume_with_handlers(handlers))

        return packed

    # the common case (every dynamic argument a NumPy array of one dtype,
    # x64 on): one join of their bytes, one transfer
    ((_, dtype, _),) = packs
    put, put_args = host_put_args(ShapedArray((sum(a.size for a in arg_avals),), dtype))
    put_type, sharding, devices, semantics = put_args
    tobytes = np.ndarray.tobytes
    if dynamic is None and out_aval0 is not None:
        # written out: this is the NumPy-argument dispatch of issue 30
        def packed_one(args: Sequence[object]) -> object:
            data = frombuffer(join(map(tobytes, args)), dtype)  # type: ignore[arg-type]  # NumPy arrays (the key's kinds)
            buf = put(put_type, sharding, [data], devices, True, False, semantics, True)
            return ArrayImpl(out_aval0, None, run([buf]).consume_with_handlers(handlers)[0], out_key0)

        return packed_one

    def packed_dyn(args: Sequence[object]) -> object:
        if dynamic is not None:
            args = [args[i] for i in dynamic]
        data = frombuffer(join(map(tobytes, args)), dtype)  # type: ignore[arg-type]  # as above
        buf = put(put_type, sharding, [data], devices, True, False, semantics, True)
        return wrap(run([buf]).consume_with_handlers(handlers))

    return packed_dyn


def _packed_executable(staged: _Staged, groups: tuple[tuple[int, ...], ...]) -> Executable:
    """The program ``_packed_entry`` runs: inputs the constants, the other
    arguments in order, then one flat array per group holding its
    arguments' elements one after another; outputs the function's."""
    closed = staged.closed
    n_consts = len(closed.consts)
    in_avals = closed.jaxpr.in_avals
    arg_avals = in_avals[n_consts:]
    where: dict[int, tuple[int, int]] = {}  # argument -> (group, offset)
    group_avals: list[ShapedArray] = []
    for n, g in enumerate(groups):
        offset = 0
        for i in g:
            where[i] = (n, offset)
            offset += arg_avals[i].size
        group_avals.append(ShapedArray((offset,), arg_avals[g[0]].dtype))
    avals = [
        *in_avals[:n_consts], *[a for i, a in enumerate(arg_avals) if i not in where], *group_avals
    ]
    params = JitParams(closed.jaxpr, staged.name).to_params()

    def body(flat: list[Value]) -> Sequence[Value]:
        packed = flat[len(flat) - len(groups):]
        others = iter(flat[n_consts:len(flat) - len(groups)])
        operands = list(flat[:n_consts])
        for i, a in enumerate(arg_avals):
            if i in where:
                n, offset = where[i]
                piece = slice_(packed[n], (offset,), (offset + a.size,), None)
                operands.append(reshape(piece, a.shape))
            else:
                operands.append(next(others))
        return bind(jit_p, operands, params)

    wrapper = trace_to_jaxpr_flat(body, avals, staged.name)
    module = lower_jaxpr(wrapper.jaxpr, staged.name)
    return compile_module(module, wrapper.jaxpr.in_avals, wrapper.jaxpr.out_avals)


def _fast_unflatten(out_tree: tree.TreeDef) -> Callable[[list[ArrayImpl]], object]:
    """``tree.unflatten(out_tree, -)``, by jaxlib's faster pytrees when they
    build the same structure (builtin containers), else by ``typedax.tree``."""
    n = out_tree.num_leaves
    example = tree.unflatten(out_tree, [_Marker(i) for i in range(n)])
    j_leaves, j_treedef = _FLATTEN(example)
    if [m.i if isinstance(m, _Marker) else -1 for m in j_leaves] == list(range(n)):
        return j_treedef.unflatten
    return functools.partial(tree.unflatten, out_tree)


class _Marker:
    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i


#: Traces (and fast-path entries) a jitted function keeps, oldest dropped
#: first: calling one function at many shapes does not grow memory without
#: bound. They live on the ``Jitted`` and go with it.
MAX_TRACES_PER_FUNCTION = 1024

K = TypeVar("K")
V = TypeVar("V")


def _bounded_put(d: dict[K, V], key: K, value: V) -> None:
    d[key] = value
    while len(d) > MAX_TRACES_PER_FUNCTION:
        del d[next(iter(d))]  # dicts keep insertion order: the oldest first


def _delete_donated(values: Sequence[object], consumed: Sequence[int]) -> None:
    """Delete the arrays whose buffers an executable consumed (a NumPy or
    Python value was copied to the device: nothing of the caller's to delete)."""
    for i in consumed:
        x = values[i]
        if type(x) is ArrayImpl:
            x.delete()


def _is_aval(x: object) -> bool:
    return isinstance(x, ShapedArray)  # a dataclass: pytrees would open it


def _drop(flags: tuple[T0, ...], slots: Float0Slots) -> tuple[T0, ...]:
    """Per-leaf ``flags`` without the float0 leaves' (they are not in the jaxpr)."""
    if not slots:
        return flags
    at = {i for i, _ in slots}
    return tuple(f for i, f in enumerate(flags) if i not in at)


def _as_value(x: object, name: str, output: bool = False) -> Value:
    if isinstance(x, (ArrayImpl, Tracer, np.ndarray, np.generic, bool, int, float, complex)):
        aval_of(x)  # raises for unsupported dtypes
        return x
    where = "returned" if output else "passed"
    raise ArgumentTypeError(
        f"jitted function '{name}': a {type(x).__name__} was {where} where an array "
        "was expected; jit works on arrays, scalars and pytrees of them "
        "(mark other arguments static with static_argnums/static_argnames)"
    )


# -- ahead-of-time stages ----------------------------------------------------------
class Traced(Generic[R_co]):
    """A function staged at fixed input types: ``.jaxpr`` and ``.lower()``."""

    __slots__ = ("_staged", "_signature", "_static_argnums", "_static_argnames", "_donated", "_plan")

    def __init__(
        self,
        staged: _Staged,
        signature: inspect.Signature | None,
        static_argnums: tuple[int, ...],
        static_argnames: tuple[str, ...],
        donated: tuple[bool, ...] = (),
        plan: ShardingPlan | None = None,
    ) -> None:
        self._plan = plan  # many devices: the shardings given to jit
        self._staged = staged
        self._signature = signature
        self._static_argnums = static_argnums
        self._static_argnames = static_argnames
        self._donated = donated  # per input of the jaxpr (constants first)

    @property
    def jaxpr(self) -> ClosedJaxpr:
        return self._staged.closed

    @property
    def name(self) -> str:
        return self._staged.name

    @property
    def in_avals(self) -> tuple[ShapedArray, ...]:
        return self._staged.closed.in_avals

    @property
    def out_avals(self) -> tuple[ShapedArray, ...]:
        return self._staged.closed.out_avals

    def lower(self) -> Lowered[R_co]:
        if self._plan is not None:
            module = lower_sharded(self._staged.closed.jaxpr, self._staged.name, self._plan)
        else:
            module = lower_jaxpr(self._staged.closed.jaxpr, self._staged.name, self._donated)
        return Lowered(self, module)


class Lowered(Generic[R_co]):
    """A staged function lowered to StableHLO: ``.as_text()`` and ``.compile()``."""

    __slots__ = ("traced", "module")

    def __init__(self, traced: Traced[R_co], module: LoweredModule) -> None:
        self.traced = traced
        self.module = module

    def as_text(self) -> str:
        """The StableHLO module, as text."""
        return self.module.as_text()

    def compile(self) -> Compiled[R_co]:
        staged = self.traced._staged
        plan = self.traced._plan
        if plan is not None:
            exe = sharded.typed_outputs(staged.closed.jaxpr, staged.name, plan, compile_cache.get(
                staged.closed.jaxpr, staged.name, self.module, shardings=plan))
        else:
            exe = compile_cache.get(staged.closed.jaxpr, staged.name, self.module, self.traced._donated)
        return Compiled(self.traced, exe)


class Compiled(Generic[R_co]):
    """An executable for fixed input types. Call it with the dynamic
    arguments of the traced call (static ones were fixed when tracing)."""

    __slots__ = ("traced", "executable", "_const_bufs")

    def __init__(self, traced: Traced[R_co], executable: Executable) -> None:
        self.traced = traced
        self.executable = executable
        staged = traced._staged
        self._const_bufs = [
            to_buffer(cast(Value, c), a, f"constant {i} of '{staged.name}'")
            for i, (c, a) in enumerate(zip(staged.closed.consts, executable.in_avals))
        ] if not executable.in_shardings else []

    def as_text(self) -> str:
        """The optimized HLO XLA compiled."""
        return self.executable.loaded.get_hlo_text()

    def memory_analysis(self) -> jx.CompiledMemoryStats | None:
        """XLA's memory figures for this program (JAX's field names:
        ``temp_size_in_bytes``, ``argument_size_in_bytes``, ...), or ``None``
        where the backend gives none."""
        return jx.memory_stats(self.executable.loaded)

    def cost_analysis(self) -> dict[str, jx.CostValue] | None:
        """XLA's cost estimates (``flops``, ``transcendentals``, ``bytes
        accessed``, ...) as JAX's, or ``None`` where the backend gives none."""
        return jx.cost_analysis(self.executable.loaded)

    def __call__(self, *args: object, **kwargs: object) -> R_co:
        staged = self.traced._staged
        raw_leaves, in_tree = tree.flatten((args, kwargs))
        raw_leaves, f0_in = split_float0(raw_leaves)
        if in_tree == staged.in_tree and f0_in != staged.in_float0:
            raise CompiledCallError(
                f"compiled '{staged.name}' was traced for float0 arguments (leaf, shape) "
                f"{list(staged.in_float0)}, got {list(f0_in)}"
            )
        if in_tree != staged.in_tree:
            raise CompiledCallError(
                f"compiled '{staged.name}' was traced for arguments structured as "
                f"{staged.in_tree}, got {in_tree}"
            )
        n_consts = len(staged.closed.consts)
        expected = staged.closed.jaxpr.in_avals[n_consts:]
        bufs = list(self._const_bufs)
        for i, (x, want) in enumerate(zip(raw_leaves, expected)):
            try:
                got = aval_of(x)
            except TypeError:
                got = None
            if got != want:
                raise CompiledCallError(
                    f"compiled '{staged.name}': {self._describe(args, kwargs, i)} should be "
                    f"{want.str_short()}, got {got.str_short() if got else type(x).__name__}"
                )
            bufs.append(to_buffer(cast(Value, x), want, f"compiled '{staged.name}'"))
        if self.executable.in_shardings:  # many devices: each value laid out by its sharding
            values = cast(list[Value], [*staged.closed.consts, *raw_leaves])
            return cast(R_co, staged.outputs(sharded.run(self.executable, values)))
        outs = self.executable.run(bufs)
        if self.executable.donated:
            _delete_donated([*staged.closed.consts, *raw_leaves], self.executable.donated)
        return cast(R_co, staged.outputs(outs))

    def _describe(self, args: tuple[object, ...], kwargs: dict[str, object], leaf: int) -> str:
        """Name the argument that holds flat leaf number ``leaf``."""
        dyn_names = self._dynamic_param_names(len(args))
        count = 0
        for i, a in enumerate(args):
            n = len(tree.leaves(a))
            if leaf < count + n:
                label = f"argument '{dyn_names[i]}'" if i < len(dyn_names) else f"argument {i}"
                return label if n == 1 else f"{label} (leaf {leaf - count} of its pytree)"
            count += n
        for k in sorted(kwargs):
            n = len(tree.leaves(kwargs[k]))
            if leaf < count + n:
                return f"argument '{k}'" if n == 1 else f"argument '{k}' (leaf {leaf - count})"
            count += n
        return f"input {leaf}"

    def _dynamic_param_names(self, n: int) -> list[str]:
        sig = self.traced._signature
        if sig is None:
            return []
        names = [
            p.name for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        statics = set(self.traced._static_argnums)
        return [nm for i, nm in enumerate(names) if i not in statics]


# -- the public entry point ------------------------------------------------------
@overload
def jit(
    fun: Callable[P, R],
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    donate_argnums: int | Sequence[int] = (),
    donate_argnames: str | Sequence[str] = (),
    in_shardings: ShardingTree = None,
    out_shardings: ShardingTree = None,
) -> Jitted[P, R]: ...


@overload
def jit(
    fun: None = None,
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    donate_argnums: int | Sequence[int] = (),
    donate_argnames: str | Sequence[str] = (),
    in_shardings: ShardingTree = None,
    out_shardings: ShardingTree = None,
) -> Callable[[Callable[P, R]], Jitted[P, R]]: ...


def jit(
    fun: Callable[P, R] | None = None,
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    donate_argnums: int | Sequence[int] = (),
    donate_argnames: str | Sequence[str] = (),
    in_shardings: ShardingTree = None,
    out_shardings: ShardingTree = None,
) -> Jitted[P, R] | Callable[[Callable[P, R]], Jitted[P, R]]:
    """Compile ``fun`` with XLA: ``jit(f)`` (or ``@jit``, or
    ``@jit(static_argnums=...)``) has ``f``'s signature and returns its
    results as device ``Array``s.

    Arguments are pytrees of arrays and scalars; those named by
    ``static_argnums`` / ``static_argnames`` are passed to ``fun`` as Python
    values (they must be hashable) and retrace when they change.

    Arguments named by ``donate_argnums`` / ``donate_argnames`` are given up
    to the computation: XLA may write outputs into their buffers (an output
    of the same shape and dtype reuses the argument's memory), and a donated
    ``Array`` is deleted by the call (using it afterwards raises
    ``DeletedArrayError``). A NumPy array or Python scalar is copied, so
    nothing of the caller's is deleted. A donation no output can use warns.
    Donation applies to calls on concrete values; under a transformation or
    inside another ``jit`` the call is staged without it (as JAX's nested
    jits ignore theirs).

    ``in_shardings`` / ``out_shardings`` (``typedax.sharding``; a sharding
    for all, or a pytree prefix of the positional arguments / the result,
    ``None`` unspecified) compile one program partitioned over a mesh's
    devices by XLA's SPMD partitioner; an unspecified input is replicated
    (or keeps its own sharding if it is a sharded array), an unspecified
    output takes the layout XLA propagates. They apply to calls on concrete
    values (as donation does); a sharded call ignores ``donate_argnums``.
    """
    if fun is None:

        def decorate(f: Callable[P, R]) -> Jitted[P, R]:
            return Jitted(f, static_argnums, static_argnames, donate_argnums, donate_argnames,
                          in_shardings, out_shardings)

        return decorate
    return Jitted(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                  in_shardings, out_shardings)

