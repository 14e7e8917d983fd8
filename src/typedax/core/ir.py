"""The jaxpr IR: typed, first-order, in A-normal form, and immutable.

Variables are distinct by identity; literals, avals, params and primitives
compare by value; jaxprs compare and hash up to renaming of variables
(alpha-equivalence), which is what the compile cache keys on.
"""

from __future__ import annotations

import math
import threading
from itertools import chain
from operator import attrgetter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import InitVar, dataclass, field
from typing import TypeAlias, Union

import numpy as np
import numpy.typing as npt
from pyrsistent import PMap, pmap

from .avals import ShapedArray
from .dtypes import EXTENDED, KEY_NATIVE, KEY_STRUCTURAL, KEYS_SEEN, DType
from .errors import CustomDerivativeError, JaxprTypeError, PrimitiveTypeError
from .rules import NO_RULES, Rules

NDArray: TypeAlias = "npt.NDArray[np.generic]"

Param: TypeAlias = Union[
    bool, int, float, str, "np.dtype[np.generic]", None, tuple["Param", ...], "Jaxpr", "LazyJaxpr"
]
Params: TypeAlias = "PMap[str, Param]"
NO_PARAMS: Params = pmap()

ImplRule: TypeAlias = Callable[[Sequence[NDArray], Params], list[NDArray]]
AbstractEvalRule: TypeAlias = Callable[[Sequence[ShapedArray], Params], list[ShapedArray]]


Types: TypeAlias = tuple[ShapedArray, ...]


class LastTypes:
    """A primitive's last remembered result types, for one operand (``one``:
    ``(params, operand type, result types)``) and for two (``two``: ``(params,
    type, type, result types)``): a chain of equations of one type asks the
    same question again and again, and comparing three identities answers it
    faster than a dictionary (``core/result_types.py``). Each is replaced
    whole (one store), so a reader never sees half of an entry."""

    __slots__ = ("one", "two")

    def __init__(self) -> None:
        self.one: tuple[Params, ShapedArray, Types] | None = None
        self.two: tuple[Params, ShapedArray, ShapedArray, Types] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Primitive:
    """A primitive operation and every rule for it.

    ``impl`` evaluates it on NumPy arrays; ``abstract_eval`` gives its output
    types (and raises ``PrimitiveTypeError`` for operands it rejects);
    ``rules`` holds the other interpretations' rules (``core.rules.Rules``).
    Give ``rules``, or ``rules_for``: a function of the primitive itself, for
    rules that bind the primitive they belong to (``Primitive("neg", impl,
    abstract, rules_for=lambda p: Rules(batch=elementwise_batch(p)))``).
    Primitives compare by name.
    """

    name: str
    impl: ImplRule = field(repr=False)
    abstract_eval: AbstractEvalRule = field(repr=False)
    rules: Rules = field(default=NO_RULES, repr=False)
    rules_for: InitVar[Callable[[Primitive], Rules] | None] = None
    #: an application has a side effect (a host callback that prints or does
    #: I/O): dead-code elimination keeps it even when no output is used
    #: (JAX's effects); ``has_effects`` also sees one nested in a body
    effectful: bool = field(default=False, repr=False)
    #: ``abstract_eval`` is a pure function of the operands' types (their
    #: weak flags included) and the params -- it reads no context (a mesh, a
    #: named axis, the x64 flag) -- so the interpreters that record
    #: equations may remember its results (``core/result_types.py``). A rule
    #: made with ``memo_abstract`` declares this already and sets it.
    pure_types: bool = field(default=False, repr=False)
    #: the last result types remembered for this primitive, read first
    #: (``core/result_types.py``)
    last_types: LastTypes = field(default_factory=lambda: LastTypes(), init=False, repr=False)

    def __post_init__(self, rules_for: Callable[[Primitive], Rules] | None) -> None:
        if getattr(self.abstract_eval, "pure_types", False):  # memo_abstract's mark
            object.__setattr__(self, "pure_types", True)
        if self.name not in KEY_NATIVE and self.name not in KEY_STRUCTURAL:
            object.__setattr__(self, "abstract_eval", _refusing_keys(self.name, self.abstract_eval))
        if rules_for is not None:
            if self.rules is not NO_RULES:
                raise TypeError(f"primitive '{self.name}': give rules or rules_for, not both")
            object.__setattr__(self, "rules", rules_for(self))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Primitive) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return self.name


def refuse_keys(name: str, avals: Sequence[ShapedArray]) -> None:
    """Raise the error of an operation ``name`` that has no meaning on typed
    PRNG keys when one of ``avals`` is a key type."""
    for a in avals:
        if a.dtype in EXTENDED:
            raise PrimitiveTypeError(
                f"{name} does not accept typed PRNG keys (key<fry>), got "
                f"({', '.join(x.str_short() for x in avals)}); "
                "use typedax.random.key_data(keys) for their uint32 words"
            )


def _refusing_keys(name: str, rule: AbstractEvalRule) -> AbstractEvalRule:
    """``rule``, refusing typed-key operands first (once a key exists at all):
    a primitive outside ``KEY_NATIVE``/``KEY_STRUCTURAL`` has no meaning on
    keys, and without this check NumPy would evaluate some of them on the
    keys' structured values."""

    def abstract_eval(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
        if KEYS_SEEN[0]:
            refuse_keys(name, avals)
            for v in params.values():  # a conversion to keys (new_dtype=key<fry>)
                if isinstance(v, np.dtype) and v in EXTENDED:
                    raise PrimitiveTypeError(f"{name} cannot make typed PRNG keys (key<fry>)")
        return rule(avals, params)

    abstract_eval.__wrapped__ = rule  # type: ignore[attr-defined]  # inspect.unwrap reaches the rule
    return abstract_eval


@dataclass(frozen=True, slots=True, eq=False)
class Var:
    """A variable: distinct by identity, typed by its aval."""

    aval: ShapedArray

    def __repr__(self) -> str:
        return f"Var({self.aval.str_short()}@{id(self) & 0xFFFF:x})"


LitValue: TypeAlias = bool | int | float | complex

# One ShapedArray per scalar dtype, shared by literals (avals are values).
_SCALAR_AVALS: dict[DType, ShapedArray] = {}


@dataclass(frozen=True, slots=True, eq=False)
class Lit:
    """A scalar literal, compared by value and dtype (NaN equals NaN)."""

    val: LitValue
    aval: ShapedArray

    @staticmethod
    def of(value: LitValue | np.generic | NDArray, dtype: DType | None = None, weak: bool = False) -> Lit:
        """A literal for a scalar, in ``dtype`` or the value's own dtype;
        weakly typed with ``weak`` (a Python int or float in a trace)."""
        arr = np.asarray(value, dtype=dtype)
        if arr.shape != ():
            raise JaxprTypeError(f"a literal must be a scalar, not shape {arr.shape}")
        aval = _SCALAR_AVALS.get(arr.dtype)
        if aval is None:
            if arr.dtype.names is not None:  # typed keys (core/dtypes.py: KEY) are never literals
                raise JaxprTypeError(f"a literal must be a number or a bool, not dtype {arr.dtype}")
            aval = ShapedArray((), arr.dtype)
            _SCALAR_AVALS[arr.dtype] = aval
        val: LitValue = arr.item()
        return Lit(val, aval.weakened() if weak else aval)

    def _key(self) -> tuple[str, object]:
        v = self.val
        if isinstance(v, float):  # NaN equals NaN; -0.0 differs from 0.0 (1/x tells them apart)
            return (self.aval.dtype.name, _float_key(v))
        if isinstance(v, complex):
            return (self.aval.dtype.name, (_float_key(v.real), _float_key(v.imag)))
        return (self.aval.dtype.name, v)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lit) and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Lit({self.val!r}:{self.aval.dtype.name})"


def _float_key(v: float) -> object:
    return "nan" if math.isnan(v) else (v, math.copysign(1.0, v))


Atom: TypeAlias = Var | Lit


@dataclass(frozen=True, slots=True)
class Eqn:
    """``out_binders = primitive[params] inputs``."""

    primitive: Primitive
    inputs: tuple[Atom, ...]
    params: Params
    out_binders: tuple[Var, ...]


# Fast constructors for the staging hot path. A frozen dataclass's ``__init__``
# assigns through ``object.__setattr__``; these build the very same objects
# faster (no validation is skipped: ``Var`` and ``Eqn`` have none).
_new = object.__new__
_set_var_aval: Callable[[Var, ShapedArray], None] = Var.__dict__["aval"].__set__


class EqnSlots:
    """``Eqn``'s slots on a plain class, to build an ``Eqn`` fast: fill one
    with plain attribute stores, then make it an ``Eqn`` (``e.__class__ =
    Eqn``; CPython allows it between classes of the same slots, and checks
    that they are). The result is an ``Eqn`` like any other, frozen from
    then on. About 0.1 us less per equation than setting the frozen class's
    slots through their descriptors (a call each), which is 40% of making an
    ``Eqn``; ``new_eqn`` and the staging trace build every equation so.
    ``tests/test_tracing_fast.py`` checks the layouts agree."""

    __slots__ = ("primitive", "inputs", "params", "out_binders")
    primitive: Primitive
    inputs: tuple[Atom, ...]
    params: Params
    out_binders: tuple[Var, ...]


if EqnSlots.__slots__ != Eqn.__slots__:  # pragma: no cover - a field of Eqn added without it
    raise AssertionError(f"EqnSlots must have Eqn's slots, {Eqn.__slots__}")


def new_var(aval: ShapedArray) -> Var:
    """``Var(aval)``, faster."""
    v: Var = _new(Var)
    _set_var_aval(v, aval)
    return v


def new_eqn(
    primitive: Primitive, inputs: tuple[Atom, ...], params: Params, out_binders: tuple[Var, ...]
) -> Eqn:
    """``Eqn(primitive, inputs, params, out_binders)``, faster (``EqnSlots``)."""
    e = EqnSlots()
    e.primitive = primitive
    e.inputs = inputs
    e.params = params
    e.out_binders = out_binders
    e.__class__ = Eqn  # type: ignore[assignment]  # the same slots: it becomes an Eqn (EqnSlots)
    return e  # type: ignore[return-value]  # an Eqn now (the line above)


_chain = chain.from_iterable
_OUT_BINDERS = attrgetter("out_binders")


@dataclass(frozen=True, slots=True)
class JaxprType:
    in_types: tuple[ShapedArray, ...]
    out_types: tuple[ShapedArray, ...]

    def __str__(self) -> str:
        ins = ", ".join(t.str_short() for t in self.in_types)
        outs = ", ".join(t.str_short() for t in self.out_types)
        return f"({ins}) -> ({outs})"


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Jaxpr:
    """A closed, first-order program: binders, equations, outputs.

    Built once and never edited. Refuses, on construction, a variable bound
    twice; ``typecheck_jaxpr`` checks the rest. Equality and hashing are up to
    renaming of variables.
    """

    in_binders: tuple[Var, ...]
    eqns: tuple[Eqn, ...]
    outs: tuple[Atom, ...]
    # Memo of ``alpha_key()``. Not an init field, so ``dataclasses.replace``
    # (how users edit a frozen IR) never carries one program's key to another.
    _alpha: list[object] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        seen: set[Var] = set(self.in_binders)
        n = len(self.in_binders)
        if len(seen) != n:
            raise JaxprTypeError("a variable is bound twice among the jaxpr's input binders")
        # fast check first; the loop below finds the equation to blame
        outs = list(_chain(map(_OUT_BINDERS, self.eqns)))  # (in C: a third of the comprehension's time)
        seen.update(outs)
        if len(seen) == n + len(outs):
            return
        seen = set(self.in_binders)
        for eqn in self.eqns:
            for v in eqn.out_binders:
                seen.add(v)
            n += len(eqn.out_binders)
            if len(seen) != n:
                raise JaxprTypeError(
                    f"variable bound twice, in equation: {eqn.primitive.name} "
                    f"(out binders {', '.join(b.aval.str_short() for b in eqn.out_binders)})"
                )

    @property
    def in_avals(self) -> tuple[ShapedArray, ...]:
        return tuple(v.aval for v in self.in_binders)

    @property
    def out_avals(self) -> tuple[ShapedArray, ...]:
        return tuple(a.aval for a in self.outs)

    @property
    def type(self) -> JaxprType:
        return JaxprType(self.in_avals, self.out_avals)

    def alpha_key(self) -> object:
        """A value equal for exactly the jaxprs equal to this one up to renaming."""
        if not self._alpha:
            self._alpha.append(_alpha_key(self))
        return self._alpha[0]

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Jaxpr):
            return NotImplemented  # (a traced LazyJaxpr compares with its jaxpr)
        return self.alpha_key() == other.alpha_key()

    def __hash__(self) -> int:
        return hash(self.alpha_key())

    def __str__(self) -> str:
        return _JAXPR_PRINTER[0](self)


def _printer_missing(jaxpr: Jaxpr) -> str:
    raise RuntimeError("typedax.core.pretty is not imported: jaxprs have no text yet")


#: How ``str(jaxpr)`` prints: ``core.pretty`` (which builds on this module,
#: so this one cannot import it) installs ``pp_jaxpr`` here when it is
#: imported, and ``typedax.core`` imports it with the package.
_JAXPR_PRINTER: list[Callable[[Jaxpr], str]] = [_printer_missing]


def install_jaxpr_printer(printer: Callable[[Jaxpr], str]) -> None:
    """Make ``printer`` what ``str(jaxpr)`` calls (``core.pretty`` on import)."""
    _JAXPR_PRINTER[0] = printer


@dataclass(frozen=True, slots=True, eq=False)
class ClosedJaxpr:
    """A jaxpr together with the values of its leading constant binders.

    ``jaxpr.in_binders`` begins with one binder per constant.
    """

    jaxpr: Jaxpr
    consts: tuple[object, ...]

    def __post_init__(self) -> None:
        if len(self.consts) > len(self.jaxpr.in_binders):
            raise JaxprTypeError(
                f"{len(self.consts)} constants for a jaxpr with "
                f"{len(self.jaxpr.in_binders)} input binders"
            )

    @property
    def in_avals(self) -> tuple[ShapedArray, ...]:
        """The avals of the non-constant inputs."""
        return self.jaxpr.in_avals[len(self.consts) :]

    @property
    def out_avals(self) -> tuple[ShapedArray, ...]:
        return self.jaxpr.out_avals

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClosedJaxpr) or self.jaxpr != other.jaxpr:
            return False
        return len(self.consts) == len(other.consts) and all(
            a is b or (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                       and a.dtype == b.dtype and np.array_equal(a, b))
            for a, b in zip(self.consts, other.consts)
        )

    def __hash__(self) -> int:
        return hash(self.jaxpr)

    def __str__(self) -> str:
        return str(self.jaxpr)


class LazyJaxpr:
    """A jaxpr param traced on first need: a custom derivative rule.

    JAX keeps a staged custom call's rules as Python thunks
    (``custom_jvp_call``'s ``jvp_jaxpr_fun``, ``custom_vjp_call``'s
    ``fwd_jaxpr_thunk`` and ``bwd``) and traces one only when a
    transformation needs it, so staging a function (``jit``,
    ``make_jaxpr``, ``vmap`` under ``jit``) never runs its rules, and a rule
    that calls its own function stages that call without tracing its rule
    again. This is that thunk as an IR value: ``force()`` traces it the
    first time and remembers the ``ClosedJaxpr`` (the rule's jaxpr with the
    values it closed over); a transformation of the equation (batching,
    DCE) makes a new lazy jaxpr whose thunk transforms the forced one.

    Equality (what jaxprs compare and hash by): the same object; or equal
    ``origin`` keys (the same user function traced at the same types: a
    function staged twice compares equal without tracing its rule, so the
    compile cache still hits); or both traced to equal closed jaxprs (so a
    jaxpr printed and parsed back equals itself); a traced one without
    constants equals its plain ``Jaxpr``. ``UNTRACED`` (what the text holds
    for a rule nested in a printed rule, or one that closed over arrays)
    equals every lazy jaxpr, and forcing it raises: text holds one level of
    rules. The hash is one constant, since equal lazy jaxprs may not be
    traced yet.
    """

    __slots__ = ("_thunk", "_memo", "origin", "_lock", "_forcing", "__weakref__")

    def __init__(self, thunk: Callable[[], ClosedJaxpr], origin: Hashable = None) -> None:
        self._thunk: Callable[[], ClosedJaxpr] | None = thunk
        self._memo: list[ClosedJaxpr] = []
        #: what the rule is, when known without tracing it (None: unknown)
        self.origin = origin
        self._lock = threading.RLock()
        self._forcing = False

    @staticmethod
    def of(jaxpr: Jaxpr | ClosedJaxpr) -> LazyJaxpr:
        """A lazy jaxpr already traced (built by hand, or parsed)."""
        closed = jaxpr if isinstance(jaxpr, ClosedJaxpr) else ClosedJaxpr(jaxpr, ())
        lazy = LazyJaxpr(_no_thunk)
        lazy._memo.append(closed)
        lazy._thunk = None
        return lazy

    @property
    def traced(self) -> bool:
        return bool(self._memo)

    def force(self) -> ClosedJaxpr:
        """The rule's closed jaxpr, traced the first time (once, even with
        threads)."""
        if self._memo:
            return self._memo[0]
        with self._lock:
            if self._memo:
                return self._memo[0]
            thunk = self._thunk
            if thunk is None or self._forcing:
                raise CustomDerivativeError(
                    "a custom derivative rule is needed that was never traced"
                    + (" (it needs itself)" if self._forcing else
                       ": the jaxpr was parsed from text, where a rule nested in another rule, "
                       "or one that closed over arrays, prints as 'untraced'; differentiate the "
                       "Python function instead")
                )
            self._forcing = True
            try:
                closed = thunk()
            finally:
                self._forcing = False
            self._memo.append(closed)
            self._thunk = None  # what it closed over goes with it
            return closed

    def __eq__(self, other: object) -> bool:
        if self is other or self is UNTRACED or other is UNTRACED:
            return True
        if isinstance(other, Jaxpr):
            return bool(self._memo) and not self._memo[0].consts and self._memo[0].jaxpr == other
        if not isinstance(other, LazyJaxpr):
            return NotImplemented
        if self.origin is not None and self.origin == other.origin:
            return True
        return bool(self._memo) and bool(other._memo) and self._memo[0] == other._memo[0]

    def __hash__(self) -> int:
        return 0x1A2F  # equal lazy jaxprs may be untraced: one bucket

    def __repr__(self) -> str:
        return "LazyJaxpr(untraced)" if self is UNTRACED else f"LazyJaxpr(traced={self.traced})"


def _no_thunk() -> ClosedJaxpr:
    raise AssertionError("LazyJaxpr.of has no thunk")


#: The rule a jaxpr's text did not hold (``LazyJaxpr``): forcing it raises.
UNTRACED = LazyJaxpr(_no_thunk)
UNTRACED._thunk = None


def _param_key(p: Param) -> object:
    if isinstance(p, bool):
        return ("bool", p)
    if isinstance(p, float):
        return ("float", "nan" if math.isnan(p) else (p, math.copysign(1.0, p)))
    if isinstance(p, tuple):
        return ("tuple",) + tuple(_param_key(x) for x in p)
    return p


def _first(kv: tuple[str, object]) -> str:
    return kv[0]


def _params_key(params: Params) -> object:
    return tuple(sorted(((k, _param_key(v)) for k, v in params.items()), key=_first))


def _alpha_key(jaxpr: Jaxpr) -> object:
    index: dict[Var, int] = {v: i for i, v in enumerate(jaxpr.in_binders)}

    def atom(a: Atom) -> object:
        if isinstance(a, Lit):
            return a
        i = index.get(a)
        return ("free", id(a)) if i is None else i

    # params maps are shared between equations (``lax`` caches them): key each once
    params_keys: dict[int, object] = {id(NO_PARAMS): ()}
    eqns: list[object] = []
    for e in jaxpr.eqns:
        ins = tuple([
            index[a] if type(a) is Var and a in index else atom(a) for a in e.inputs
        ])
        p = e.params
        pk = params_keys.get(id(p))
        if pk is None:
            pk = params_keys[id(p)] = _params_key(p)
        outs = e.out_binders
        if len(outs) == 1:
            index[outs[0]] = len(index)
            avals: tuple[ShapedArray, ...] = (outs[0].aval,)
        else:
            for v in outs:
                index[v] = len(index)
            avals = tuple([v.aval for v in outs])
        eqns.append((e.primitive.name, ins, pk, avals))
    return (jaxpr.in_avals, tuple(eqns), tuple(atom(a) for a in jaxpr.outs))
