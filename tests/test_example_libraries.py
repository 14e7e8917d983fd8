"""typedax.example_libraries (optimizers and stax) against
jax.example_libraries as the oracle: each optimizer's trajectory (its whole
state) over a few steps on a pytree of parameters, with constant steps and
with each schedule; the schedules, ``l2_norm`` and ``clip_grads``; the
state as a pytree, ``pack``/``unpack``, ``jit``; each stax layer's output
shape, parameters (the same key gives JAX's bits) and outputs, the
combinators, ``Dropout`` with a key and in test mode; a training step of a
stax network with an optimizer under ``jit``; and the errors.

Cheap by construction: JAX's side of each group is computed in one
``jax.jit`` (one compilation, not one per operation), typedax's eagerly.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar, cast

import jax
import numpy as np
import pytest
from jax.example_libraries import optimizers as jopt
from jax.example_libraries import stax as jstax

import typedax
import typedax.numpy as tnp
import typedax.random as trandom
from typedax.example_libraries import optimizers as opt
from typedax.example_libraries import stax
from typedax.example_libraries.optimizers import OptimizerState

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

NDArray = np.ndarray[Any, np.dtype[Any]]
T = TypeVar("T")
JOPT: Any = jopt  # (JAX's l2_norm and clip_grads are untyped)

#: XLA options for JAX's side: its compilations (each threefry hash unrolled) are most of
#: these tests' time, and without the backend's optimizations they take a third of it; the
#: numbers stay JAX's (the same bits for random draws; at most an ulp apart elsewhere).
FAST_XLA: dict[str, str | bool] = {"xla_backend_optimization_level": "0"}


def _jax_run(f: Callable[..., Any], *args: Any) -> Any:
    """``jax.jit(f)(*args)``, compiled with ``FAST_XLA``."""
    return jax.jit(f).lower(*args).compile(compiler_options=FAST_XLA)(*args)


def _leaves(lib: ModuleType, tree: object) -> list[NDArray]:
    return [np.asarray(x) for x in lib.tree_util.tree_leaves(tree)]


def _close(ours: list[NDArray], jaxs: list[NDArray], rtol: float, atol: float = 0.0) -> None:
    assert len(ours) == len(jaxs)
    for a, b in zip(ours, jaxs):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


# --- optimizers ------------------------------------------------------------------------------

F32 = np.float32
PARAMS: dict[str, object] = {
    "w": np.array([[0.3, -1.2, 2.0], [0.7, 0.0, -0.4]], F32),
    "b": (np.array([1.5, -0.25, 0.8], F32), np.array(-0.6, F32)),
}
STEPS = 3

#: name -> the optimizer, made with the given optimizers module (ours or JAX's).
OPTIMIZERS: dict[str, Callable[[Any], Any]] = {
    "sgd": lambda o: o.sgd(0.1),
    "momentum": lambda o: o.momentum(0.1, 0.9),
    "nesterov": lambda o: o.nesterov(0.1, mass=0.8),
    "adagrad": lambda o: o.adagrad(0.1),
    "rmsprop": lambda o: o.rmsprop(0.1),
    "rmsprop_momentum": lambda o: o.rmsprop_momentum(0.1, gamma=0.8, momentum=0.7),
    "adam": lambda o: o.adam(0.1),
    "adamax": lambda o: o.adamax(0.1, b1=0.8),
    "sm3": lambda o: o.sm3(0.1),
    "sgd/piecewise_constant": lambda o: o.sgd(o.piecewise_constant([0, 1], [0.3, 0.1, 0.05])),
    "adam/exponential_decay": lambda o: o.adam(o.exponential_decay(0.1, 2, 0.5)),
    "momentum/inverse_time_decay": lambda o: o.momentum(o.inverse_time_decay(0.1, 2, 0.5, staircase=True), 0.9),
    "rmsprop/polynomial_decay": lambda o: o.rmsprop(o.polynomial_decay(0.1, 2, 0.01, power=2.0)),
    "adagrad/inverse_time_decay": lambda o: o.adagrad(o.inverse_time_decay(0.1, 2, 0.5), momentum=0.5),
}


def _grads(lib: ModuleType, params: T, k: int) -> T:
    """The gradient of sum((x - 0.5)**2), with a drift that changes each step."""
    return cast(T, lib.tree_util.tree_map(lambda x: 2 * (x - 0.5) + 0.1 * k, params))


def _trajectory(lib: ModuleType, o: Any, make: Callable[[Any], Any]) -> Any:
    init, update, get_params = make(o)
    state = init(PARAMS)
    for k in range(STEPS):
        state = update(k, _grads(lib, get_params(state), k), state)
    return state


SCHEDULE_STEPS = range(6)
SCHEDULES: dict[str, Callable[[Any], Any]] = {
    "constant": lambda o: o.constant(0.3),
    "exponential_decay": lambda o: o.exponential_decay(0.1, 3, 0.5),
    "inverse_time_decay": lambda o: o.inverse_time_decay(0.1, 2, 0.5),
    "inverse_time_decay/staircase": lambda o: o.inverse_time_decay(0.1, 2, 0.5, staircase=True),
    "polynomial_decay": lambda o: o.polynomial_decay(0.1, 4, 0.01, power=0.5),
    "piecewise_constant": lambda o: o.piecewise_constant([1, 3], [0.1, 0.01, 0.001]),
}


@pytest.fixture(scope="module")
def jax_optimizers() -> dict[str, Any]:
    """JAX's states, schedule values and norms, all in one compilation."""

    def run(params: Any) -> dict[str, Any]:
        out: dict[str, Any] = {name: _trajectory(jax, jopt, make) for name, make in OPTIMIZERS.items()}
        out.update({f"schedule {n}": [jax.numpy.asarray(s(jopt)(i)) for i in SCHEDULE_STEPS]
                    for n, s in SCHEDULES.items()})
        out["l2_norm"] = JOPT.l2_norm(params)
        out["clip 1"] = JOPT.clip_grads(params, 1.0)
        out["clip 100"] = JOPT.clip_grads(params, 100.0)
        return out

    return _jax_run(run, PARAMS)  # type: ignore[no-any-return]  # a dict, typed loosely by JAX


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_trajectory_matches_jax(name: str, jax_optimizers: dict[str, Any]) -> None:
    ours = _trajectory(typedax, opt, OPTIMIZERS[name])
    assert isinstance(ours, OptimizerState)
    # the whole state (parameters, moments, accumulators), leaf by leaf in JAX's order
    _close(_leaves(typedax, ours), _leaves(jax, jax_optimizers[name]), rtol=1e-6, atol=1e-7)
    params = OPTIMIZERS[name](opt).params_fn(ours)  # any triple of the kind reads the state
    assert typedax.tree_util.tree_structure(params) == typedax.tree_util.tree_structure(PARAMS)


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_schedules_match_jax(name: str, jax_optimizers: dict[str, Any]) -> None:
    ours = SCHEDULES[name](opt)
    for i, expected in zip(SCHEDULE_STEPS, jax_optimizers[f"schedule {name}"]):
        np.testing.assert_allclose(np.asarray(ours(i)), np.asarray(expected), rtol=1e-12)
        # a traced step (under jit) gives the same step size
        np.testing.assert_allclose(np.asarray(ours(tnp.asarray(i))), np.asarray(expected), rtol=1e-12)


def test_make_schedule() -> None:
    s = opt.make_schedule(0.25)
    assert s(0) == 0.25 and s(7) == 0.25
    f = opt.exponential_decay(1.0, 1, 0.5)
    assert opt.make_schedule(f) is f
    with pytest.raises(TypeError):
        opt.make_schedule(np.ones(2))


def test_l2_norm_and_clip_grads_match_jax(jax_optimizers: dict[str, Any]) -> None:
    _close([np.asarray(opt.l2_norm(PARAMS))], [np.asarray(jax_optimizers["l2_norm"])], rtol=1e-6)
    _close(_leaves(typedax, opt.clip_grads(PARAMS, 1.0)), _leaves(jax, jax_optimizers["clip 1"]), rtol=1e-6)
    _close(_leaves(typedax, opt.clip_grads(PARAMS, 100.0)), _leaves(jax, jax_optimizers["clip 100"]), rtol=0)


def test_state_is_a_pytree() -> None:
    init, update, get_params = opt.adam(0.1)
    state = init(PARAMS)
    leaves, treedef = typedax.tree_util.tree_flatten(state)
    # one child, packed_state: the (x, m, v) leaves of each parameter, parameter by parameter
    assert len(leaves) == 3 * 3
    assert leaves == [leaf for per_param in state.packed_state for leaf in per_param]
    rebuilt = typedax.tree_util.tree_unflatten(treedef, leaves)
    assert isinstance(rebuilt, OptimizerState)
    assert rebuilt.tree_def == state.tree_def and rebuilt.subtree_defs == state.subtree_defs
    doubled = typedax.tree_util.tree_map(lambda x: 2 * x, state)
    assert isinstance(doubled, OptimizerState)
    w = PARAMS["w"]
    assert isinstance(w, np.ndarray)
    np.testing.assert_array_equal(np.asarray(get_params(doubled)["w"]), 2 * w)
    # the structure JAX's state has: the same leaves in the same order
    jleaves = jax.tree_util.tree_leaves(jopt.adam(0.1).init_fn(PARAMS))
    assert len(jleaves) == len(leaves)
    assert all(np.asarray(a).shape == np.asarray(b).shape for a, b in zip(jleaves, leaves))


def test_update_under_jit() -> None:
    init, update, get_params = opt.adam(opt.exponential_decay(0.1, 2, 0.5))

    @typedax.jit
    def step(i: int, state: OptimizerState[dict[str, object]]) -> OptimizerState[dict[str, object]]:
        return update(i, _grads(typedax, get_params(state), 0), state)

    eager = jitted = init(PARAMS)
    for i in range(STEPS):
        eager = update(i, _grads(typedax, get_params(eager), 0), eager)
        jitted = step(i, jitted)  # the step is traced: schedules and bias correction on a tracer
    assert isinstance(jitted, OptimizerState)
    # (float32, not to the ulp: XLA takes b2 ** (i + 1) of a traced i through pow, eager typedax
    # multiplies, and 1 - 0.999 ** 1 magnifies that ulp a thousandfold in the bias correction;
    # JAX's jit and eager runs differ as much: 5e-7 here)
    _close(_leaves(typedax, jitted), _leaves(typedax, eager), rtol=1e-5, atol=1e-5)


def test_pack_unpack_round_trip() -> None:
    init, update, _ = opt.momentum(0.1, 0.9)
    state = update(0, _grads(typedax, PARAMS, 0), init(PARAMS))
    marked = opt.unpack_optimizer_state(state)
    assert isinstance(marked, dict) and set(marked) == {"w", "b"}
    point = marked["w"]
    assert isinstance(point, opt.JoinPoint) and isinstance(point.subtree, tuple) and len(point.subtree) == 2
    assert list(point) == [point.subtree]  # iterable, as JAX's
    packed = opt.pack_optimizer_state(marked)
    assert packed.tree_def == state.tree_def and packed.subtree_defs == state.subtree_defs
    assert all(a is b for a, b in zip(typedax.tree_util.tree_leaves(packed), typedax.tree_util.tree_leaves(state)))
    with pytest.raises(TypeError, match="JoinPoint"):
        opt.pack_optimizer_state({"w": 1.0})


def test_optimizer_errors() -> None:
    init, update, _ = opt.sgd(0.1)
    state = init(PARAMS)
    with pytest.raises(TypeError, match="did not match the parameter tree"):
        update(0, {"w": PARAMS["w"]}, state)
    with pytest.raises(ValueError, match="one shorter"):
        opt.piecewise_constant([1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="sequences"):
        opt.piecewise_constant(1, [0.1, 0.2])


def test_optimizer_decorator_lifts_array_functions() -> None:
    @opt.optimizer
    def halving(factor: float) -> opt.ArrayOptimizer[tuple[typedax.Array, int]]:
        def init(x: typedax.Array) -> tuple[typedax.Array, int]:
            return tnp.asarray(x), 0

        def update(i: opt.Step, g: typedax.Array, state: tuple[typedax.Array, int]) -> tuple[typedax.Array, int]:
            return state[0] - factor * g, state[1]

        def get_params(state: tuple[typedax.Array, int]) -> typedax.Array:
            return state[0]

        return init, update, get_params

    o = halving(0.5)
    assert type(o) is opt.Optimizer
    assert o._fields == ("init_fn", "update_fn", "params_fn")
    state = o.update_fn(0, [tnp.ones(2)], o.init_fn([tnp.full(2, 3.0)]))
    np.testing.assert_array_equal(np.asarray(o.params_fn(state)[0]), [2.5, 2.5])
    assert halving.__name__ == "halving"


# --- stax --------------------------------------------------------------------------------------

_rng = np.random.RandomState(0)
X2 = _rng.randn(4, 5)
X3 = _rng.randn(2, 7, 3)
X4 = _rng.randn(2, 6, 6, 3)

#: name -> (the layer made with a stax module and a uniform initializer, the input shape, the
#: input, apply with a key?). Most layers draw their parameters with ``uniform``: the default
#: initializers (truncated normals, ``Dense`` and ``Conv`` check them) cost a compilation of
#: JAX's and of typedax's per shape, and how a layer splits its keys shows as well with any.
LAYERS: dict[str, tuple[Callable[[Any, Any], Any], tuple[int, ...], NDArray, bool]] = {
    "Dense": (lambda s, u: s.Dense(3), (-1, 5), X2, False),
    "Conv": (lambda s, u: s.Conv(4, (3, 3), (1, 2), "SAME"), (-1, 6, 6, 3), X4, False),
    "ConvTranspose": (lambda s, u: s.ConvTranspose(2, (2, 2), (2, 2), "SAME", W_init=u, b_init=u),
                      (-1, 6, 6, 3), X4, False),
    "Conv1DTranspose": (lambda s, u: s.Conv1DTranspose(4, (3,), (2,), W_init=u, b_init=u), (-1, 7, 3), X3, False),
    "BatchNorm": (lambda s, u: s.BatchNorm(beta_init=u, gamma_init=u), (2, 6, 6, 3), X4, False),
    "BatchNorm/defaults": (lambda s, u: s.BatchNorm(), (2, 6, 6, 3), X4, False),
    "BatchNorm/axis 0, no center": (lambda s, u: s.BatchNorm(axis=0, center=False, gamma_init=u), (4, 5), X2, False),
    "MaxPool": (lambda s, u: s.MaxPool((2, 2), (2, 1)), (-1, 6, 6, 3), X4, False),
    "AvgPool/SAME": (lambda s, u: s.AvgPool((2, 3), (2, 2), "SAME"), (-1, 6, 6, 3), X4, False),
    "SumPool/SAME": (lambda s, u: s.SumPool((3, 2), None, "SAME"), (-1, 6, 6, 3), X4, False),
    "AvgPool/spec": (lambda s, u: s.AvgPool((2,), None, "SAME", spec="NCH"), (2, 7, 3), X3, False),
    "Flatten": (lambda s, u: s.Flatten, (-1, 6, 6, 3), X4, False),
    "Identity": (lambda s, u: s.Identity, (-1, 5), X2, False),
    "elementwise": (lambda s, u: s.serial(s.Tanh, s.Relu, s.Exp, s.Softplus, s.Sigmoid, s.Elu, s.LeakyRelu, s.Selu,
                                          s.Gelu, s.Softmax, s.LogSoftmax), (-1, 5), X2, False),
    "serial": (lambda s, u: s.serial(s.Dense(6, u, u), s.Relu, s.Dense(3, u, u), s.LogSoftmax), (-1, 5), X2, False),
    "FanOut/parallel/FanInSum": (lambda s, u: s.serial(s.FanOut(2), s.parallel(s.Dense(5, u, u), s.Identity),
                                                       s.FanInSum), (-1, 5), X2, False),
    "FanInConcat": (lambda s, u: s.serial(s.FanOut(3), s.parallel(s.Dense(2, u, u), s.Tanh, s.Dense(2, u, u)),
                                          s.FanInConcat()), (-1, 5), X2, False),
    "parallel/Dropout": (lambda s, u: s.serial(s.FanOut(2), s.parallel(s.Dropout(0.5), s.Dropout(0.8)), s.FanInSum),
                         (-1, 5), X2, True),
    "serial/Dropout": (lambda s, u: s.serial(s.Dense(6, u, u), s.Dropout(0.7), s.Dense(2, u, u)), (-1, 5), X2, True),
    "Dropout/test mode": (lambda s, u: s.Dropout(0.7, mode="test"), (-1, 5), X2, True),
    "shape_dependent": (lambda s, u: s.shape_dependent(lambda shape: s.Dense(shape[-1] + 1, u, u)), (4, 5), X2,
                        False),
}


def _run_layer(lib: ModuleType, s: Any, name: str, typed_key: bool) -> tuple[object, object, object]:
    make, shape, x, with_rng = LAYERS[name]
    init_fun, apply_fun = make(s, lib.nn.initializers.uniform(1.0))
    key = lib.random.key(0) if typed_key else lib.random.PRNGKey(0)
    out_shape, params = init_fun(key, shape)
    kwargs = {"rng": lib.random.PRNGKey(1)} if with_rng else {}
    return out_shape, params, apply_fun(params, x, **kwargs)


TYPED_KEY = {"Dense", "serial/Dropout"}  # these draw from typed keys, the others from raw ones


@pytest.fixture(scope="module")
def jax_layers() -> dict[str, tuple[object, object, object]]:
    """JAX's output shapes, parameters and outputs, in one compilation (the
    shapes are static: kept from the trace)."""
    shapes: dict[str, object] = {}

    def run() -> dict[str, tuple[object, object]]:
        out = {}
        for name in LAYERS:
            shapes[name], params, y = _run_layer(jax, jstax, name, name in TYPED_KEY)
            out[name] = (params, y)
        return out

    values = _jax_run(run)
    return {name: (shapes[name], *values[name]) for name in LAYERS}


def _as_tuples(shape: object) -> object:
    if isinstance(shape, (tuple, list)) and shape and not isinstance(shape[0], (int, np.integer)):
        return tuple(_as_tuples(s) for s in shape)
    return tuple(int(d) for d in shape)  # type: ignore[attr-defined]  # a shape


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_jax(name: str, jax_layers: dict[str, tuple[object, object, object]]) -> None:
    shape, params, y = _run_layer(typedax, stax, name, name in TYPED_KEY)
    jshape, jparams, jy = jax_layers[name]
    assert _as_tuples(shape) == _as_tuples(jshape)
    # the parameters: the same key draws JAX's numbers (the bits of uniform draws; normal ones
    # to the last bits of erf_inv, where JAX's own jit and eager runs differ too)
    assert typedax.tree_util.tree_structure(params).num_leaves == len(jax.tree_util.tree_leaves(jparams))
    _close(_leaves(typedax, params), _leaves(jax, jparams), rtol=1e-14)
    _close(_leaves(typedax, y), _leaves(jax, jy), rtol=1e-12, atol=1e-15)


def test_dropout() -> None:
    init_fun, apply_fun = stax.Dropout(0.5)
    x = tnp.ones((40, 50))
    y = np.asarray(apply_fun((), x, rng=trandom.key(3)))
    assert set(np.unique(y)) == {0.0, 2.0}  # kept inputs are scaled by 1 / rate
    assert 0.4 < np.mean(y == 2.0) < 0.6
    with pytest.raises(ValueError, match="PRNG key"):
        apply_fun((), x)
    # in test mode the inputs pass unchanged, but a key is still required (as JAX's)
    _, test_apply = stax.Dropout(0.5, mode="test")
    assert test_apply((), x, rng=trandom.key(3)) is x
    with pytest.raises(ValueError, match="PRNG key"):
        test_apply((), x)


def test_train_step_under_jit_matches_jax() -> None:
    """A stax network and an optimizer, as JAX's examples use them: grad of
    the loss, the update, under jit, with the step traced."""
    x = np.random.RandomState(1).rand(8, 5)
    y = np.eye(3)[np.arange(8) % 3]

    def train(lib: ModuleType, s: Any, o: Any) -> list[NDArray]:
        u = lib.nn.initializers.uniform(1.0)
        init_fun, predict = s.serial(s.Dense(4, u, u), s.Relu, s.Dense(3, u, u), s.LogSoftmax)
        opt_init, opt_update, get_params = o.momentum(0.5, mass=0.9)

        def loss(params: Any) -> Any:
            return -lib.numpy.mean(lib.numpy.sum(predict(params, x) * y, axis=1))

        def update(i: Any, state: Any) -> Any:
            return opt_update(i, lib.grad(loss)(get_params(state)), state)

        state = opt_init(init_fun(lib.random.PRNGKey(0), (-1, 5))[1])
        step = (lib.jit(update) if lib is typedax
                else jax.jit(update).lower(0, state).compile(compiler_options=FAST_XLA))
        for i in range(3):
            state = step(i, state)
        return _leaves(lib, get_params(state)) + [np.asarray(loss(get_params(state)))]

    _close(train(typedax, stax, opt), train(jax, jstax, jopt), rtol=1e-12)


def test_stax_errors() -> None:
    init_fun, apply_fun = stax.Dense(3)
    _, params = init_fun(trandom.PRNGKey(0), (-1, 5))
    with pytest.raises(TypeError, match="Dense takes one array"):
        apply_fun(params, [X2, X2])
    with pytest.raises(TypeError, match="Dense takes the shape of one input"):
        init_fun(trandom.PRNGKey(0), [(-1, 5), (-1, 5)])
    with pytest.raises(TypeError, match="FanInSum takes a sequence"):
        stax.FanInSum[1]((), X2)
    with pytest.raises(TypeError, match="params as 2 parts"):
        apply_fun((params,), X2)
    with pytest.raises(TypeError, match="rng must be a PRNG key"):
        stax.Dropout(0.5)[1]((), X2, rng=3)
    with pytest.raises(ValueError):
        stax.serial()
    with pytest.raises(ValueError):
        stax.parallel()


def test_layer_types() -> None:
    # layers are plain (init_fun, apply_fun) tuples, as JAX's
    for layer in (stax.Dense(2), stax.Relu, stax.Flatten, stax.FanInSum, stax.serial(stax.Tanh)):
        assert type(layer) is tuple
        assert len(layer) == 2
        assert all(callable(f) for f in layer)
    assert stax.glorot is stax.glorot_normal and stax.randn is stax.normal and stax.logsoftmax is stax.log_softmax


def test_mnist_classifier_example_learns(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/mnist_classifier.py (JAX's program on stax and optimizers) runs
    and learns in one epoch (``make demo`` runs its twelve: 98.3% held out
    on scikit-learn's digits)."""
    from examples import mnist_classifier

    assert mnist_classifier.main(num_epochs=1) > 0.8
    assert "Test set accuracy" in capsys.readouterr().out
