"""Optimizers as ``jax.example_libraries.optimizers`` defines them: the same
names, signatures and numbers (each update is JAX's expression, evaluated
with ``typedax.numpy``).

An optimizer is an ``(init_fn, update_fn, params_fn)`` triple (the named
tuple ``Optimizer``)::

    opt_init, opt_update, get_params = optimizers.adam(1e-3)
    opt_state = opt_init(params)                 # an OptimizerState
    opt_state = opt_update(i, grads, opt_state)  # step i, grads shaped as params
    params = get_params(opt_state)

``params`` is any pytree of arrays; the state is an ``OptimizerState``,
itself a pytree, so it passes through ``jit``, ``scan`` and the rest.

Types. JAX types these functions with ``Any``. Here the state carries the
type of the parameters it was made from as a type parameter only (a
phantom: nothing at run time depends on it), so ``OptimizerState[P]``
remembers ``P``: ``init_fn`` maps ``P`` to ``OptimizerState[P]``,
``update_fn`` takes gradients of type ``P`` (what ``typedax.grad`` gives
for parameters of type ``P``) and ``params_fn`` gives a ``P`` back; their
types are the protocols ``InitFn``, ``UpdateFn`` and ``ParamsFn``, whose
``__call__`` is generic, so one optimizer serves parameters of every type.
A step is ``int`` or, under ``jit``, a traced ``Array`` (``Step``); a
schedule maps a step to a step size (``Schedule``). The per-array
functions that the ``optimizer`` decorator lifts to pytrees take and give
``Array`` leaves; their state ``S`` is a type variable.

Differences from JAX's: ``pack_optimizer_state`` of a pytree with a leaf
that is not a ``JoinPoint`` raises a ``TypeError`` (JAX's fails an
``assert``); the functions of an ``Optimizer`` keep their own names
(JAX's copy those of the per-array functions with ``functools.wraps``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, NamedTuple, ParamSpec, Protocol, TypeAlias, TypeVar, cast

from .. import numpy as jnp
from .. import tree_util
from ..core.array import Array, ArrayLike

__all__ = [
    "ArrayOptimizer", "InitFn", "JoinPoint", "Optimizer", "OptimizerState", "ParamsFn", "Schedule", "Step", "UpdateFn",
    "adagrad", "adam", "adamax", "clip_grads", "constant", "exponential_decay", "inverse_time_decay",
    "l2_norm", "make_schedule", "momentum", "nesterov", "optimizer", "pack_optimizer_state",
    "piecewise_constant", "polynomial_decay", "rmsprop", "rmsprop_momentum", "sgd", "sm3",
    "unpack_optimizer_state",
]

P = TypeVar("P")
P_co = TypeVar("P_co", covariant=True)
S = TypeVar("S")
Args = ParamSpec("Args")

Step: TypeAlias = int | Array
"""A step index: a Python ``int``, or a traced integer under ``jit``."""

Schedule: TypeAlias = Callable[[Step], ArrayLike]
"""A step-size schedule: the step size of step ``i``."""

PyTreeDef: TypeAlias = tree_util.PyTreeDef


# --- the optimizer state ------------------------------------------------------------------
# The parameters are an "outer" pytree; the state of each of its leaves an
# "inner" one. The state keeps them flattened, a list of inner leaves per
# outer leaf, with the outer and the inner structures as its static data.


class OptimizerState(NamedTuple, Generic[P_co]):
    """The state of an optimizer for parameters of type ``P_co``, as JAX's:
    ``packed_state`` (the leaves of each parameter's state, one list per
    parameter), ``tree_def`` (the structure of the parameters) and
    ``subtree_defs`` (the structure of each parameter's state). A pytree
    whose only child is ``packed_state``."""

    packed_state: tuple[list[object], ...]
    tree_def: PyTreeDef
    subtree_defs: tuple[PyTreeDef, ...]


_Aux: TypeAlias = tuple[PyTreeDef, tuple[PyTreeDef, ...]]


def _state_flatten(xs: OptimizerState[object]) -> tuple[tuple[tuple[list[object], ...]], _Aux]:
    return (xs.packed_state,), (xs.tree_def, xs.subtree_defs)


def _state_unflatten(data: _Aux, xs: tuple[tuple[list[object], ...]]) -> OptimizerState[object]:
    return OptimizerState(xs[0], data[0], data[1])


tree_util.register_pytree_node(OptimizerState, _state_flatten, _state_unflatten)


class InitFn(Protocol):
    """``init_fn(params) -> OptimizerState``."""

    def __call__(self, params: P, /) -> OptimizerState[P]: ...


class UpdateFn(Protocol):
    """``update_fn(step, grads, opt_state) -> OptimizerState``: ``grads`` has
    the structure of the parameters."""

    def __call__(self, step: Step, grads: P, opt_state: OptimizerState[P], /) -> OptimizerState[P]: ...


class ParamsFn(Protocol):
    """``params_fn(opt_state) -> params``."""

    def __call__(self, opt_state: OptimizerState[P], /) -> P: ...


class Optimizer(NamedTuple):
    """An ``(init_fn, update_fn, params_fn)`` triple, as JAX's."""

    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


#: What an ``opt_maker`` returns: the functions of one array, with the state ``S`` of one array.
ArrayOptimizer: TypeAlias = tuple[Callable[[Array], S], Callable[[Step, Array, S], S], Callable[[S], Array]]


def _flatten_all(trees: Sequence[object]) -> tuple[tuple[list[object], ...], tuple[PyTreeDef, ...]]:
    pairs = [tree_util.tree_flatten(t) for t in trees]
    return tuple(leaves for leaves, _ in pairs), tuple(td for _, td in pairs)


def optimizer(opt_maker: Callable[Args, ArrayOptimizer[S]]) -> Callable[Args, Optimizer]:
    """Lift an optimizer written for single arrays to pytrees of them
    (``jax.example_libraries.optimizers.optimizer``): ``opt_maker`` returns
    ``(init, update, get_params)`` on one array (``init(x0) -> state``,
    ``update(i, g, state) -> state``, ``get_params(state) -> x``, the state
    any pytree); the decorated function returns the ``Optimizer`` that
    applies them to every leaf of the parameters."""

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args: Args.args, **kwargs: Args.kwargs) -> Optimizer:
        init, update, get_params = opt_maker(*args, **kwargs)

        def tree_init(x0_tree: P) -> OptimizerState[P]:
            x0_flat, tree = tree_util.tree_flatten(x0_tree)
            states_flat, subtrees = _flatten_all([init(cast(Array, x0)) for x0 in x0_flat])
            return OptimizerState(states_flat, tree, subtrees)

        def tree_update(i: Step, grad_tree: P, opt_state: OptimizerState[P]) -> OptimizerState[P]:
            states_flat, tree, subtrees = opt_state
            grad_flat, tree2 = tree_util.tree_flatten(grad_tree)
            if tree2 != tree:
                raise TypeError(
                    "optimizer update function was passed a gradient tree that did not match the parameter "
                    f"tree structure with which it was initialized: parameter tree {tree} and grad tree {tree2}."
                )
            states = [cast(S, tree_util.tree_unflatten(td, leaves)) for td, leaves in zip(subtrees, states_flat)]
            new_states = [update(i, cast(Array, g), state) for g, state in zip(grad_flat, states, strict=True)]
            new_states_flat, subtrees2 = _flatten_all(new_states)
            for subtree, subtree2 in zip(subtrees, subtrees2):
                if subtree2 != subtree:
                    raise TypeError(
                        "optimizer update function produced an output structure that did not match its input "
                        f"structure: input {subtree} and output {subtree2}."
                    )
            return OptimizerState(new_states_flat, tree, subtrees)

        def tree_get_params(opt_state: OptimizerState[P]) -> P:
            states_flat, tree, subtrees = opt_state
            states = [cast(S, tree_util.tree_unflatten(td, leaves)) for td, leaves in zip(subtrees, states_flat)]
            return cast(P, tree_util.tree_unflatten(tree, [get_params(s) for s in states]))

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


# --- optimizers -------------------------------------------------------------------------------


@optimizer
def sgd(step_size: ArrayLike | Schedule) -> ArrayOptimizer[Array]:
    """Stochastic gradient descent: ``x - step_size(i) * g``. ``step_size`` is
    a positive scalar or a schedule (a function of the step index)."""
    schedule = make_schedule(step_size)

    def init(x0: Array) -> Array:
        return x0

    def update(i: Step, g: Array, x: Array) -> Array:
        return x - jnp.multiply(schedule(i), g)

    def get_params(x: Array) -> Array:
        return x

    return init, update, get_params


_Pair: TypeAlias = tuple[Array, Array]
_Triple: TypeAlias = tuple[Array, Array, Array]


@optimizer
def momentum(step_size: ArrayLike | Schedule, mass: float) -> ArrayOptimizer[_Pair]:
    """SGD with momentum ``mass``."""
    schedule = make_schedule(step_size)

    def init(x0: Array) -> _Pair:
        return x0, jnp.zeros_like(x0)

    def update(i: Step, g: Array, state: _Pair) -> _Pair:
        x, velocity = state
        velocity = mass * velocity + g
        x = x - jnp.multiply(schedule(i), velocity)
        return x, velocity

    def get_params(state: _Pair) -> Array:
        return state[0]

    return init, update, get_params


@optimizer
def nesterov(step_size: ArrayLike | Schedule, mass: float) -> ArrayOptimizer[_Pair]:
    """SGD with Nesterov momentum ``mass``."""
    schedule = make_schedule(step_size)

    def init(x0: Array) -> _Pair:
        return x0, jnp.zeros_like(x0)

    def update(i: Step, g: Array, state: _Pair) -> _Pair:
        x, velocity = state
        velocity = mass * velocity + g
        x = x - jnp.multiply(schedule(i), mass * velocity + g)
        return x, velocity

    def get_params(state: _Pair) -> Array:
        return state[0]

    return init, update, get_params


@optimizer
def adagrad(step_size: ArrayLike | Schedule, momentum: float = 0.9) -> ArrayOptimizer[_Triple]:
    """Adagrad (Duchi et al., 2011), with momentum."""
    schedule = make_schedule(step_size)

    def init(x0: Array) -> _Triple:
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i: Step, g: Array, state: _Triple) -> _Triple:
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1.0 / jnp.sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        x = x - jnp.multiply(schedule(i), m)
        return x, g_sq, m

    def get_params(state: _Triple) -> Array:
        return state[0]

    return init, update, get_params


@optimizer
def rmsprop(step_size: ArrayLike | Schedule, gamma: float = 0.9, eps: float = 1e-8) -> ArrayOptimizer[_Pair]:
    """RMSProp with decay ``gamma``."""
    schedule = make_schedule(step_size)

    def init(x0: Array) -> _Pair:
        return x0, jnp.zeros_like(x0)

    def update(i: Step, g: Array, state: _Pair) -> _Pair:
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        x = x - jnp.multiply(schedule(i), g) / jnp.sqrt(avg_sq_grad + eps)
        return x, avg_sq_grad

    def get_params(state: _Pair) -> Array:
        return state[0]

    return init, update, get_params


@optimizer
def rmsprop_momentum(
    step_size: ArrayLike | Schedule, gamma: float = 0.9, eps: float = 1e-8, momentum: float = 0.9
) -> ArrayOptimizer[_Triple]:
    """RMSProp with momentum."""
    schedule = make_schedule(step_size)

    def init(x0: Array) -> _Triple:
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i: Step, g: Array, state: _Triple) -> _Triple:
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + jnp.multiply(schedule(i), g) / jnp.sqrt(avg_sq_grad + eps)
        x = x - mom
        return x, avg_sq_grad, mom

    def get_params(state: _Triple) -> Array:
        return state[0]

    return init, update, get_params


@optimizer
def adam(
    step_size: ArrayLike | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8
) -> ArrayOptimizer[_Triple]:
    """Adam (Kingma and Ba, 2015): first moment decay ``b1``, second ``b2``."""
    schedule = make_schedule(step_size)

    def init(x0: Array) -> _Triple:
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i: Step, g: Array, state: _Triple) -> _Triple:
        x, m, v = state
        m = (1 - b1) * g + b1 * m  # first moment estimate
        v = (1 - b2) * jnp.square(g) + b2 * v  # second moment estimate
        mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))  # bias correction
        vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        x = x - jnp.multiply(schedule(i), mhat) / (jnp.sqrt(vhat) + eps)
        return x, m, v

    def get_params(state: _Triple) -> Array:
        return state[0]

    return init, update, get_params


@optimizer
def adamax(
    step_size: ArrayLike | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8
) -> ArrayOptimizer[_Triple]:
    """AdaMax, Adam's variant on the infinity norm."""
    schedule = make_schedule(step_size)

    def init(x0: Array) -> _Triple:
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i: Step, g: Array, state: _Triple) -> _Triple:
        x, m, u = state
        m = (1 - b1) * g + b1 * m  # first moment estimate
        u = jnp.maximum(b2 * u, jnp.abs(g))  # exponentially weighted infinity norm
        x = x - jnp.divide(schedule(i), 1 - jnp.asarray(b1, m.dtype) ** (i + 1)) * m / (u + eps)
        return x, m, u

    def get_params(state: _Triple) -> Array:
        return state[0]

    return init, update, get_params


_SM3State: TypeAlias = tuple[Array, Array, list[Array], tuple[int, ...]]


@optimizer
def sm3(step_size: ArrayLike | Schedule, momentum: float = 0.9) -> ArrayOptimizer[_SM3State]:
    """SM3 (Anil et al., 2019), memory-efficient adaptive optimization: one
    accumulator per index of each axis of a parameter."""
    schedule = make_schedule(step_size)

    def splice(seq: Sequence[object], i: int, x: Sequence[object]) -> list[object]:
        lst = list(seq)
        lst[i:i + 1] = x
        return lst

    def broadcast_into(ndim: int, x: Array, axis: int) -> Array:
        return x[tuple(splice([None] * ndim, axis, [slice(None)]))]

    def init(x0: Array) -> _SM3State:
        x_shape = tuple(jnp.shape(x0))
        x1 = jnp.atleast_1d(x0)
        vs = [jnp.zeros(sz, dtype=x1.dtype) for sz in x1.shape]
        return x1, jnp.zeros_like(x1), vs, x_shape

    def update(i: Step, g: Array, state: _SM3State) -> _SM3State:
        x, m, vs, x_shape = state
        vs = [broadcast_into(g.ndim, v, j) for j, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
        accum_inv_sqrt = jnp.where(accum > 0, 1.0 / jnp.sqrt(accum), 0)
        m = (1.0 - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - jnp.multiply(schedule(i), m)
        vs = [accum.max(tuple(k for k in range(x.ndim) if k != j)) for j in range(x.ndim)]
        return x, m, vs, x_shape

    def get_params(state: _SM3State) -> Array:
        x, _, _, x_shape = state
        return x.reshape(x_shape)

    return init, update, get_params


# --- step-size schedules --------------------------------------------------------------------


def constant(step_size: ArrayLike) -> Schedule:
    """The schedule that is ``step_size`` at every step."""

    def schedule(i: Step) -> ArrayLike:
        return step_size

    return schedule


def exponential_decay(step_size: float, decay_steps: float, decay_rate: float) -> Schedule:
    """``step_size * decay_rate ** (i / decay_steps)``."""

    def schedule(i: Step) -> ArrayLike:
        if isinstance(i, Array):
            return step_size * jnp.power(decay_rate, i / decay_steps)
        return step_size * float(decay_rate ** (i / decay_steps))

    return schedule


def inverse_time_decay(step_size: float, decay_steps: float, decay_rate: float, staircase: bool = False) -> Schedule:
    """``step_size / (1 + decay_rate * i / decay_steps)``, with the quotient
    ``i / decay_steps`` rounded down if ``staircase``."""
    if staircase:

        def schedule(i: Step) -> ArrayLike:
            return step_size / (1 + decay_rate * jnp.floor(i / decay_steps))

    else:

        def schedule(i: Step) -> ArrayLike:
            return step_size / (1 + decay_rate * i / decay_steps)

    return schedule


def polynomial_decay(step_size: float, decay_steps: float, final_step_size: float, power: float = 1.0) -> Schedule:
    """From ``step_size`` to ``final_step_size`` in ``decay_steps`` steps, as
    ``(1 - i / decay_steps) ** power``; ``final_step_size`` after."""

    def schedule(step_num: Step) -> ArrayLike:
        n = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - n / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size

    return schedule


def piecewise_constant(boundaries: ArrayLike | Sequence[float], values: ArrayLike | Sequence[float]) -> Schedule:
    """``values[k]`` for the steps ``i`` above ``k`` of the ``boundaries``
    (``len(values) == len(boundaries) + 1``)."""
    b = jnp.array(boundaries)
    v = jnp.array(values)
    if not b.ndim == v.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not b.shape[0] == v.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")

    def schedule(i: Step) -> ArrayLike:
        return v[jnp.sum(b < i)]

    return schedule


def make_schedule(scalar_or_schedule: ArrayLike | Schedule) -> Schedule:
    """``scalar_or_schedule`` if it is a schedule (callable), else the
    ``constant`` schedule of a scalar; anything else is a ``TypeError``."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# --- utilities --------------------------------------------------------------------------------


def l2_norm(tree: object) -> Array:
    """The l2 norm of a pytree of arrays (all its leaves as one vector)."""
    leaves = tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.vdot(cast(ArrayLike, x), cast(ArrayLike, x)) for x in leaves))


def clip_grads(grad_tree: P, max_norm: ArrayLike) -> P:
    """Scale the pytree of gradients ``grad_tree`` down to l2 norm
    ``max_norm`` if its norm is larger."""
    norm = l2_norm(grad_tree)

    def normalize(g: object) -> object:
        ga = cast(ArrayLike, g)
        return jnp.where(norm < max_norm, ga, jnp.multiply(ga, jnp.divide(max_norm, norm)))

    return tree_util.tree_map(normalize, grad_tree)


# --- serialization ----------------------------------------------------------------------------


class JoinPoint:
    """Marks the boundary between two joined (nested) pytrees: a leaf of the
    parameters' structure that holds the state of that parameter."""

    def __init__(self, subtree: object) -> None:
        self.subtree = subtree

    def __iter__(self) -> Iterator[object]:
        # pytrees are containers of arrays: look iterable, as JAX's does
        yield self.subtree

    def __repr__(self) -> str:
        return f"JoinPoint({self.subtree!r})"


def unpack_optimizer_state(opt_state: OptimizerState[object]) -> object:
    """The state as one pytree, for serialization: the parameters' structure
    with a ``JoinPoint`` holding each parameter's state in place of the
    parameter."""
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = [tree_util.tree_unflatten(td, leaves) for td, leaves in zip(subtree_defs, states_flat, strict=True)]
    return tree_util.tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree: object) -> OptimizerState[object]:
    """The inverse of ``unpack_optimizer_state``: the ``OptimizerState`` of a
    pytree whose leaves are ``JoinPoint``\\ s. (Its parameter type is
    ``object``: a program that knows its parameters' type may ``cast``.)"""
    sentinels, tree_def = tree_util.tree_flatten(marked_pytree)
    points: list[JoinPoint] = []
    for s in sentinels:
        if not isinstance(s, JoinPoint):
            raise TypeError(
                f"pack_optimizer_state expects a pytree whose leaves are JoinPoints (as unpack_optimizer_state "
                f"makes them), got a leaf of type {type(s).__name__}"
            )
        points.append(s)
    states_flat, subtree_defs = _flatten_all([p.subtree for p in points])
    return OptimizerState(states_flat, tree_def, subtree_defs)
