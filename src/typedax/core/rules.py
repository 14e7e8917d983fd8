"""Every rule of a primitive, as one value.

A ``Primitive`` carries its NumPy evaluation and abstract evaluation, and a
``Rules`` value with the rule of every other interpretation: JVP, transpose,
batching, partial evaluation and dead-code elimination where special, and
StableHLO lowering. A family module (``typedax/primitives/*.py``,
``typedax/control_flow/*.py``, ``typedax/jitting/``) defines each primitive with
all its rules in one place; nothing is registered anywhere by importing a
module. Interpreters read ``eqn.primitive.rules``; a rule that is missing
raises ``MissingRuleError`` naming the primitive and the interpretation.

``Registry`` is the name-to-primitive table the parser and the registry test
read. The library's own is built in ``typedax/registry.py`` from a literal
list of families; a test or a user with primitives of their own builds
another (``REGISTRY.extended(...)``) and passes it to ``parse_jaxpr``.

The rule types, and the values they trade in (``Zero`` tangents,
``UndefPrimal`` operands of a transpose, ``BatchDim``), live here so that
every family can import them without importing an interpreter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from .avals import ShapedArray
from .dtypes import COMPLEX, is_inexact
from .errors import MissingRuleError

if TYPE_CHECKING:
    from ..hlo import HloValue, LoweringContext
    from .ir import Eqn, NDArray, Params, Primitive, Var
    from .trace import Value


@dataclass(frozen=True, slots=True)
class Zero:
    """The symbolic zero tangent of type ``aval``: never materialised unless
    someone needs its value (``instantiate_zeros``)."""

    aval: ShapedArray


@dataclass(frozen=True, slots=True)
class UndefPrimal:
    """A linear input to transpose with respect to: only its type is known."""

    aval: ShapedArray


Tangent: TypeAlias = "Value | Zero"
Primal: TypeAlias = "Value | UndefPrimal"
BatchDim: TypeAlias = int | None

def unbatched_aval(aval: ShapedArray, batch_dim: BatchDim) -> ShapedArray:
    """The per-example type of a value batched along ``batch_dim``."""
    if batch_dim is None:
        return aval
    return ShapedArray(aval.shape[:batch_dim] + aval.shape[batch_dim + 1 :], aval.dtype, aval.weak_type)


def batched_aval(aval: ShapedArray, axis_size: int, batch_dim: BatchDim) -> ShapedArray:
    """The type of ``axis_size`` examples of ``aval`` stacked along ``batch_dim``."""
    if batch_dim is None:
        return aval
    shape = aval.shape[:batch_dim] + (axis_size,) + aval.shape[batch_dim:]
    return ShapedArray(shape, aval.dtype, aval.weak_type)


JvpRule: TypeAlias = "Callable[[Sequence[Value], Sequence[Tangent], Params], tuple[list[Value], list[Tangent]]]"
"""``rule(primals, tangents, params) -> (primal_outs, tangent_outs)``; runs
under the JVP trace's parent; tangents in and out may be ``Zero``."""

TransposeRule: TypeAlias = "Callable[[Sequence[Value], Sequence[Primal], Params], list[Value | None]]"
"""``rule(cts, primals, params) -> cts_in``.

``cts`` holds one cotangent per output of the equation (zeros materialised
when only some outputs got one); ``primals`` holds each operand's value, or
an ``UndefPrimal`` for the operands the equation is linear in. The result
has one entry per operand: its cotangent contribution, or ``None`` (no
contribution, or an operand that is not undefined). A rule asked to
transpose a non-linear use raises ``NonLinearError``."""

BatchRule: TypeAlias = "Callable[[int, Sequence[Value], Sequence[BatchDim], Params], tuple[list[Value], list[BatchDim]]]"
"""``rule(axis_size, vals, batch_dims, params) -> (vals_out, batch_dims_out)``;
runs under the batching trace's parent. At least one input is batched."""

PartialEvalRule: TypeAlias = "Callable[[Sequence[bool], Eqn], tuple[Eqn | None, Eqn | None, list[bool], list[Var]]]"
"""``rule(unknowns_in, eqn) -> (eqn_known, eqn_unknown, unknowns_out, residuals)``.

``eqn_known`` reads only known inputs and binds the known outputs plus the
``residuals`` (fresh vars); ``eqn_unknown`` reads residuals and unknown
inputs and binds the unknown outputs. Either may be ``None`` when empty. Out
binders of ``eqn`` keep their identity in whichever side binds them.
Without one, an equation with an unknown input is unknown as a whole."""

DceRule: TypeAlias = "Callable[[Sequence[bool], Eqn], Eqn | None]"
"""``rule(used_outputs, eqn) -> new_eqn``: the equation to keep in its place
(its out binders a subset of ``eqn``'s, every input it reads counted as used),
or ``None`` to drop it. Called only when some output is used. Without one,
an equation is kept whole when any output is used."""

LoweringRule: TypeAlias = "Callable[[LoweringContext, Eqn, Sequence[HloValue]], Sequence[HloValue]]"
"""``rule(ctx, eqn, operands) -> results``: emit StableHLO ops at the
current insertion point. Nested jaxprs lower through ``ctx``."""

ValueImpl: TypeAlias = "Callable[[Sequence[Value], Params], list[Value]]"
"""Evaluation on values as they are (device ``Array``s stay on the device),
for higher-order primitives such as ``jit``; others evaluate ``impl`` on
NumPy arrays."""


EvalOnDevice: TypeAlias = "Callable[[Sequence[NDArray], Sequence[ShapedArray], Params], tuple[int, ...] | None]"
"""``rule(values, avals, params)``: whether eager evaluation runs this
application through XLA on the current device (a one-equation program,
``typedax.lowering.eager``) instead of ``impl``: ``None`` for ``impl``, or
the positions of the operands the program takes as constants (their value
is uniform, and XLA specializes on it under ``jit`` too); the others are
its arguments. For primitives whose value depends on XLA's evaluation order
or its C library (float sums and products, running sums, ``pow``): so eager
equals ``jit`` on every platform by construction."""


def floats_on_device(
    values: Sequence[NDArray], avals: Sequence[ShapedArray], params: Params
) -> tuple[int, ...] | None:
    """The ``eval_on_device`` rule of a float reduction: float and complex
    operands run through XLA (the order of the sum is XLA's), others with
    ``impl`` (integer and bool results do not depend on the order)."""
    return () if is_inexact(avals[0].dtype) else None


def complex_on_device(
    values: Sequence[NDArray], avals: Sequence[ShapedArray], params: Params
) -> tuple[int, ...] | None:
    """The ``eval_on_device`` rule of an element-wise primitive: complex
    operands run through XLA, whose complex algorithms (division, ``abs``,
    ``exp``, the inverse trigonometric functions on their branch cuts,
    infinities and NaNs) are not NumPy's; real ones with ``impl``. (The
    operands of these primitives share one dtype: the first tells.)"""
    return () if avals[0].dtype in COMPLEX else None


@dataclass(frozen=True, slots=True)
class Rules:
    """The rules of one primitive beyond evaluation and abstract evaluation.

    ``None`` means the primitive has no such rule: for ``jvp``, ``batch``,
    ``lower`` that is an error when the interpretation meets it; ``transpose``
    exists for primitives that can be linear in an operand; ``partial_eval``,
    ``dce`` and ``eval_values`` only where a primitive needs special handling
    (the interpreters have a general behaviour for the others);
    ``eval_on_device`` where eager evaluation must be XLA's own;
    ``host_on_accelerator`` where it must stay the host's even on an
    accelerator, where eager evaluation is otherwise XLA's for every
    primitive (``core/trace.py``: ``_device_evaluable``): a primitive
    typedax lowers for the CPU alone (``eig``).
    """

    jvp: JvpRule | None = None
    transpose: TransposeRule | None = None
    batch: BatchRule | None = None
    lower: LoweringRule | None = None
    partial_eval: PartialEvalRule | None = None
    dce: DceRule | None = None
    eval_values: ValueImpl | None = None
    eval_on_device: EvalOnDevice | None = None
    host_on_accelerator: bool = False


NO_RULES = Rules()

R = TypeVar("R")


def require(prim: Primitive, rule: R | None, interpretation: str) -> R:
    """``rule``, or ``MissingRuleError`` naming the primitive and interpretation."""
    if rule is None:
        raise MissingRuleError(prim.name, interpretation)
    return rule


@dataclass(frozen=True, slots=True)
class Family:
    """A primitive family's module exports one: its name and primitives."""

    name: str
    primitives: tuple[Primitive, ...]


class Registry(Mapping[str, "Primitive"]):
    """Primitives by name: what the parser reads. Immutable once built."""

    __slots__ = ("_by_name", "families")

    def __init__(self, families: Iterable[Family]) -> None:
        self.families: tuple[Family, ...] = tuple(families)
        by_name: dict[str, Primitive] = {}
        for fam in self.families:
            for prim in fam.primitives:
                other = by_name.get(prim.name)
                if other is not None and other is not prim:
                    raise ValueError(f"primitive '{prim.name}' defined twice (family '{fam.name}')")
                by_name[prim.name] = prim
        self._by_name = by_name

    def extended(self, *families: Family) -> Registry:
        """This registry plus ``families`` (a new value; this one is unchanged)."""
        return Registry(self.families + families)

    def __getitem__(self, name: str) -> Primitive:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def primitives(self) -> list[Primitive]:
        return list(self._by_name.values())
