"""Every exception the library raises, in one place.

Each carries a message a user can act on: which primitive, which types, which
equation, which line and column of jaxpr text.
"""

from __future__ import annotations


class TypedaxError(Exception):
    """Base class of every error typedax raises on purpose."""


class JaxprSyntaxError(TypedaxError):
    """Jaxpr text that does not follow the grammar (``docs/jaxpr-grammar.md``)."""

    def __init__(self, message: str, text: str, line: int, column: int) -> None:
        self.message = message
        self.line = line
        self.column = column
        lines = text.splitlines() or [""]
        src = lines[line - 1] if 0 < line <= len(lines) else ""
        caret = " " * max(column - 1, 0) + "^"
        super().__init__(f"line {line}, column {column}: {message}\n  {src}\n  {caret}")


class JaxprTypeError(TypedaxError, TypeError):
    """A jaxpr that is not well typed: unbound or rebound variables, operand
    types a primitive rejects, out-binders that disagree with abstract
    evaluation, wrong output arity."""


class PrimitiveTypeError(TypedaxError, TypeError):
    """A primitive applied to operand types (or params) it does not accept."""


class ConcretizationError(TypedaxError, TypeError):
    """A traced value was used where Python needs a concrete one."""


class TracerArrayConversionError(ConcretizationError):
    """A traced value was converted to a NumPy array (``np.asarray``, or a
    NumPy function applied to it): the result would be a constant, silently
    dropping the derivative, the batch or the staging. Use ``typedax.numpy``
    or ``typedax.lax`` on traced values."""


class TracerBoolConversionError(ConcretizationError):
    """``bool()`` of a traced value whose value is not known while tracing
    (an ``if`` or ``while`` on it): JAX's ``jax.errors.TracerBoolConversionError``
    (issue 29 item 7)."""


class TracerIntegerConversionError(ConcretizationError):
    """A traced value used as a Python index (``__index__``: ``lst[x]``,
    ``range(x)``) whose value is not known while tracing: JAX's
    ``jax.errors.TracerIntegerConversionError`` (issue 29 item 7: int doc).
    ``int()`` of one is a plain ``ConcretizationError``, as JAX's."""


class EscapedTracerError(TypedaxError, TypeError):
    """A tracer was used after the transformation that made it had finished
    (JAX's ``UnexpectedTracerError``, a ``TypeError`` too: issue 29 item 7)."""


class MissingRuleError(TypedaxError, NotImplementedError):
    """A primitive has no rule for some interpretation (jvp, batching, ...)."""

    def __init__(self, primitive: str, interpretation: str) -> None:
        self.primitive = primitive
        self.interpretation = interpretation
        super().__init__(
            f"primitive '{primitive}' has no {interpretation} rule; give it one in "
            f"the Rules of its definition (docs/architecture.md)"
        )


class JaxprTextTypeError(JaxprTypeError):
    """Jaxpr text that parses but is not well typed (an unbound or rebound
    name, operand types a primitive rejects, an out-binder whose type
    disagrees), located at a line and column of the text."""

    def __init__(self, message: str, text: str, line: int, column: int) -> None:
        self.message = message
        self.line = line
        self.column = column
        lines = text.splitlines() or [""]
        src = lines[line - 1] if 0 < line <= len(lines) else ""
        caret = " " * max(column - 1, 0) + "^"
        super().__init__(f"line {line}, column {column}: {message}\n  {src}\n  {caret}")


class NonLinearError(TypedaxError, TypeError):
    """A transpose rule was asked to transpose a use that is not linear in the
    undefined (linear) operands -- e.g. ``mul`` of two linear values, or
    ``div`` by a linear value."""

    def __init__(self, primitive: str, detail: str) -> None:
        self.primitive = primitive
        super().__init__(
            f"cannot transpose '{primitive}': {detail}. Only functions linear in "
            "the transposed inputs can be transposed."
        )


class BatchingError(TypedaxError, ValueError):
    """``vmap`` arguments that do not fit its axes: inconsistent batch sizes,
    an ``in_axes``/``out_axes`` tree that does not match the value tree, an
    axis out of range, or a batched output where ``out_axes`` says None."""


class TangentTypeError(TypedaxError, TypeError):
    """A tangent whose shape or dtype differs from its primal's, primal and
    tangent trees that differ, or differentiation with respect to a
    non-float input."""


class GradOutputError(TypedaxError, TypeError):
    """``grad``/``value_and_grad`` of a function whose output is not a single
    floating-point scalar (use ``vjp`` or ``jacrev`` for other outputs)."""


class ReverseModeError(TypedaxError, ValueError):
    """Reverse-mode differentiation through a primitive that does not support
    it: ``while_loop`` (and ``fori_loop`` with traced bounds) has a trip count
    only known at run time, so its iterations cannot be stored for the
    backward pass."""


class StaticArgumentError(TypedaxError, TypeError, ValueError):
    """A static argument that cannot serve as a cache key, or a bad
    ``static_argnums`` / ``static_argnames``."""


class UnrollError(PrimitiveTypeError, ValueError):
    """A loop's ``unroll`` that is not a bool or a non-negative int, or
    ``fori_loop``'s ``unroll`` with traced bounds (JAX raises ``ValueError``
    or ``TypeError`` for these)."""


class CompiledCallError(TypedaxError, TypeError):
    """A compiled executable called with arguments of the wrong types."""


class DeletedArrayError(TypedaxError, RuntimeError):
    """An ``Array`` used after ``delete()``, or after a ``jit`` with
    ``donate_argnums``/``donate_argnames`` consumed its buffer (JAX raises a
    ``RuntimeError``: "Array has been deleted")."""


class TreeError(TypedaxError, ValueError):
    """Trees whose structures do not match, leaves of the wrong number, or a
    node that cannot be flattened; ``path`` says where (``[0]['a'].x``)."""

    def __init__(self, message: str, path: str = "") -> None:
        self.message = message
        self.path = path
        super().__init__(f"at tree{path}: {message}" if path else message)


class TreeTransposeError(TreeError, TypeError):
    """A tree that ``tree.transpose`` cannot transpose: a ``TypeError``, as in
    JAX, and a ``TreeError`` (a ``ValueError``) naming where."""


class PlatformError(TypedaxError, RuntimeError):
    """The requested device platform is unknown or not available."""


class AxisError(TypedaxError, ValueError, IndexError):
    """An axis outside an array's dimensions, or repeated (NumPy's ``AxisError``)."""


class IndexingError(TypedaxError, IndexError, TypeError):
    """A bad index in ``x[idx]`` or ``x.at[idx]``: of a float type, a mask of
    the wrong shape or a traced one, a static integer into an axis of size 0
    (or out of bounds in a get with ``jax_check_static_indices`` on: by
    default it clamps, as JAX's). Both an ``IndexError`` and a
    ``TypeError``, as JAX raises one or the other by case."""


class NonConcreteBooleanIndexError(IndexingError):
    """``x[mask]`` with a traced boolean mask, whose number of True entries
    (the result's shape) is not known while tracing: JAX's
    ``jax.errors.NonConcreteBooleanIndexError`` (issue 29 item 7: errors)."""


class ArgnumsError(TypedaxError, ValueError):
    """``argnums`` that name no argument, or one argument twice."""


class RandomKeyError(TypedaxError, TypeError, ValueError):
    """A bad argument to ``typedax.random``: a seed that is not an integer or
    does not fit in 64 bits, a key that is not ``uint32[2]`` (or a typed
    key), a key array where one key is expected, or a shape, dtype or
    parameter the sampler does not accept. Both a ``TypeError`` and a
    ``ValueError``, as JAX raises one or the other by case."""


class RandomRangeError(RandomKeyError, OverflowError):
    """A Python integer out of the range a ``typedax.random`` function takes:
    ``fold_in`` data outside ``[0, 2**32)``, a seed outside the int64 range.
    An ``OverflowError``, as JAX's (whose conversion to uint32 / int64 raises
    it), and a ``RandomKeyError``. NumPy integers and arrays wrap instead,
    as in JAX."""


class CustomDerivativeError(TypedaxError, TypeError, ValueError):
    """A ``custom_jvp`` / ``custom_vjp`` function used in a way its rules do
    not allow: a rule whose output has the wrong structure, shape or dtype,
    bad ``nondiff_argnums``, a tracer among the non-differentiable arguments
    of a ``custom_vjp``, differentiation with respect to a value the function
    closes over, or forward-mode differentiation (``jvp``) of a
    ``custom_vjp`` function. Both a ``TypeError`` and a ``ValueError``, as
    JAX raises one or the other by case; each message names the function."""


class MissingCustomRuleError(CustomDerivativeError, AttributeError):
    """A ``custom_jvp`` function called before ``defjvp`` / ``defjvps``, or a
    ``custom_vjp`` function before ``defvjp`` (JAX raises ``AttributeError``)."""


class EmptyReductionError(TypedaxError, ValueError):
    """``typedax.numpy.max`` / ``min`` (and ``amax`` / ``amin``) over an
    empty axis without ``initial=``: the reduction has no identity to give
    (JAX's ``ValueError``). ``lax.reduce_max`` gives its identity instead."""


class ArgumentValueError(PrimitiveTypeError, ValueError):
    """An argument of the right type whose value the operation cannot take:
    an axis of size other than one to ``squeeze``, contracted axes of
    different sizes (``vecdot``), a zero ``arange`` step. A ``ValueError``
    as JAX's and the array API standard's (and a ``PrimitiveTypeError``, as
    typedax raised before)."""


class DeviceError(TypedaxError, ValueError):
    """A ``device=`` that is not one of typedax's devices (``tdx.devices()``),
    or a ``to_device``/DLPack request for a device typedax does not run on."""


class ShardingError(TypedaxError, ValueError):
    """A sharding that does not fit: a mesh axis name the mesh lacks, a
    dimension not divisible by its mesh axes, a spec longer than the
    array's rank, shardings of one program on different devices (JAX
    raises ``ValueError`` for each)."""


class ShardingTypeError(TypedaxError):
    """Explicit sharding (``core/explicit.py``): an operation whose
    result's sharding type is ambiguous or illegal (operands split one
    dimension differently, a mesh axis used twice, a ``dot_general``
    contracting split dimensions), or that has no sharding rule (JAX's
    ``ShardingTypeError``)."""


class CheckpointError(TypedaxError, TypeError, ValueError):
    """``checkpoint``/``remat`` misused: an unknown policy, bad ``static_argnums``
    or ``prevent_cse`` (a ``TypeError`` or ``ValueError`` as JAX's)."""


class AxisNameError(TypedaxError, NameError):
    """A collective (``psum``, ``all_gather``, ``axis_index``, ...) names an
    axis no enclosing ``shard_map`` (or ``vmap(axis_name=...)``) binds (JAX's
    ``NameError: unbound axis name``)."""


class CallbackError(TypedaxError, ValueError):
    """A host callback (``pure_callback``, ``io_callback``, ``debug.callback``,
    ``debug.print``) misused: no JVP, ``vmap`` of an ordered ``io_callback``,
    a bad ``vmap_method`` or ``result_shape_dtypes`` (JAX's ``ValueError``s)."""


class CallbackResultError(CallbackError, RuntimeError):
    """A host callback returned results of other shapes or dtypes (or another
    number of them) than its ``result_shape_dtypes`` declare (JAX's
    ``RuntimeError``)."""


class CallbackVmapError(CallbackError, NotImplementedError):
    """``vmap`` of a ``pure_callback`` without a ``vmap_method`` (JAX's
    ``NotImplementedError``)."""


class DebugNanError(TypedaxError, FloatingPointError):
    """With ``debug_nans`` / ``debug_infs`` on (``typedax.config``), a primitive
    made a NaN / an infinity: JAX's ``FloatingPointError`` ("invalid value
    (nan) encountered in mul")."""


class DLPackError(TypedaxError, BufferError):
    """A DLPack exchange typedax cannot make: ``from_dlpack(x, copy=False)``
    of data typedax would have to copy (its arrays own immutable values), or
    a ``stream=`` (the export is host memory). A ``BufferError`` as the
    array API standard asks."""


# jax.errors and jax.dtypes classes typedax never raises (issue 29 item 7):
# they exist so that ported ``except`` clauses name a class.
class KeyReuseError(TypedaxError, TypeError):
    """JAX's ``jax.errors.KeyReuseError``, raised by JAX's optional key-reuse
    checker (``jax_debug_key_reuse``). typedax has no such checker, so it
    never raises this; it exists so that ported ``except`` clauses work."""


class TypePromotionError(TypedaxError, ValueError):
    """JAX's ``jax.dtypes.TypePromotionError``: two dtypes with no implicit
    promotion path (the 8- and 4-bit floats, issue 29, item 7, with any other
    type, as JAX's). typedax promotes as JAX's ``standard`` mode only (JAX's
    ``strict`` mode raises it more often)."""


class InconclusiveDimensionOperation(TypedaxError):
    """JAX's ``jax.errors.InconclusiveDimensionOperation`` (shape
    polymorphism, which typedax does not have): never raised; it exists so
    that ported ``except`` clauses work."""


# -- built-in classes as JAX's (issue 29, item 5): an ``except ValueError:`` or
# ``except TypeError:`` written for JAX catches typedax's error in the same
# situation (tests/test_error_classes.py holds the survey against JAX)


class ShapeError(ArgumentValueError):
    """Shapes that do not fit: operands that do not broadcast together (or
    to a requested shape), a reshape to another size, stacked arrays of
    different shapes, an uneven split, a matrix that is not square, an update
    that does not broadcast to its indexed shape, scanned values of different
    lengths. JAX raises ``ValueError`` for most of these and ``TypeError`` for
    the rest (its ``lax`` shape rules); this is both (a
    ``PrimitiveTypeError``, as typedax raised before)."""


class PrimitiveAxisError(PrimitiveTypeError, AxisError):
    """An axis outside an operand's dimensions, or axes that are not a
    permutation of them, in an operation that raised ``PrimitiveTypeError``
    before (``lax.sort``, ``lax.cumsum``, ``lax.expand_dims``,
    ``lax.associative_scan``, reduction dimensions, ``transpose``). JAX
    raises ``ValueError``, ``IndexError`` or ``TypeError`` by case: this is
    all three."""


class TangentValueError(TangentTypeError, ValueError):
    """A tangent (``jvp``) of another shape than its primal, or a cotangent
    (the function ``vjp`` returns) or tangent (``linearize``'s) of another
    type than its primal's: JAX's ``ValueError`` (and a
    ``TangentTypeError``, as before)."""


class ArgumentTypeError(TypedaxError, TypeError):
    """A value of no array type where ``jit`` needs an array, a scalar or a
    pytree of them (an argument not marked static, or a result): JAX's
    ``TypeError``."""


class BatchingTypeError(BatchingError, TypeError):
    """A ``vmap`` ``in_axes``/``out_axes`` entry that is not an int or None
    (JAX's ``TypeError``; a ``BatchingError``, as before)."""


class ZeroStepError(ArgumentValueError, ZeroDivisionError):
    """``arange`` with a zero step, ``split``/``array_split`` into zero
    sections: JAX's ``ZeroDivisionError`` (and an ``ArgumentValueError``,
    as before)."""


class RandomAxisError(RandomKeyError, AxisError):
    """An ``axis`` outside the array of a ``typedax.random`` function
    (``categorical``, ``permutation``, ``choice``): a ``RandomKeyError`` as
    before, and an ``AxisError`` (JAX raises ``IndexError`` or
    ``ValueError`` by function)."""


class ArgnumsRangeError(TangentTypeError, ArgnumsError):
    """``argnums`` naming a position past the arguments: JAX's ``grad``
    raises ``TypeError``, its ``jacfwd``/``jacrev`` ``ValueError``; this is
    both (a ``TangentTypeError``, as before, and an ``ArgnumsError``)."""


class NotCallableError(TypedaxError, TypeError):
    """``jit``, ``grad``, ``vmap`` (and the other transformations) applied to
    something that is not callable: JAX's ``TypeError``, raised when the
    transformation is applied."""
