"""Stax, JAX's small neural-network library from scratch
(``jax.example_libraries.stax``): the same layers, combinators, signatures
and numbers.

A layer is an ``(init_fun, apply_fun)`` pair (a plain tuple, as JAX's):

- ``init_fun(rng, input_shape) -> (output_shape, params)`` draws the
  parameters with ``typedax.random`` (so for the same key they are JAX's,
  bit for bit) and computes the output shape (``-1`` stands for a dimension
  not known yet, as the batch);
- ``apply_fun(params, inputs, *, rng=None, **kwargs) -> outputs`` applies it
  (``rng`` is a key, for ``Dropout``).

Constructors are CamelCase (``Dense(512)``, ``Conv(32, (3, 3))``); layers
without arguments are values (``Relu``, ``Flatten``, ``FanInSum``), and
``serial``, ``parallel`` and ``shape_dependent`` combine layers into a layer.

Types. JAX leaves these functions untyped. Here: a shape is
``tuple[int, ...]`` and the shapes of several inputs a sequence of them
(``ShapeTree``); parameters are nested tuples and lists of arrays
(``Params``); inputs an array or a sequence of inputs (``Inputs``). A layer
is ``Layer[O]``, ``O`` the type its ``apply_fun`` returns: ``Array`` for
every layer of one output, ``list`` for ``FanOut`` and ``parallel``;
``serial`` returns the layer of the join of its layers' ``O`` (``Array``
when each gives an array, else ``object``). A layer that takes one input
checks at run time that it was given one (a ``TypeError`` if not), and one
that takes several, that it was given a sequence.

Differences from JAX's, each where JAX's would fail or mislead: a
``parallel`` layer's ``init_fun`` returns the pair ``(output_shapes,
params)`` where JAX's returns ``zip(*pairs)``, which unpacks to the same
two tuples; ``serial()`` and ``parallel()`` of no layers raise a
``ValueError`` at once (JAX's, when unpacking); ``Dropout`` in test mode
returns its input as an ``Array`` (JAX's returns the object it was given,
NumPy or not); ``Conv`` and its kin are functions, not ``functools.partial``
objects.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol, TypeAlias, TypeVar, cast

import numpy as np

from .. import lax
from .. import numpy as jnp
from .. import random
from ..core.array import Array, ArrayLike
from ..nn import elu as elu
from ..nn import gelu as gelu
from ..nn import leaky_relu as leaky_relu
from ..nn import log_softmax as log_softmax
from ..nn import relu as relu
from ..nn import selu as selu
from ..nn import sigmoid as sigmoid
from ..nn import softmax as softmax
from ..nn import softplus as softplus
from ..nn import standardize as standardize
from ..nn.initializers import Initializer
from ..nn.initializers import glorot_normal as glorot_normal
from ..nn.initializers import normal as normal
from ..nn.initializers import ones as ones
from ..nn.initializers import zeros as zeros
from ..random import KeyLike

__all__ = [
    "ApplyFun", "AvgPool", "BatchNorm", "Conv", "Conv1DTranspose", "ConvTranspose", "Dense", "Dropout", "Elu",
    "Exp", "FanInConcat", "FanInSum", "FanOut", "Flatten", "Gelu", "GeneralConv", "GeneralConvTranspose",
    "Identity", "InitFun", "Inputs", "Layer", "LeakyRelu", "LogSoftmax", "MaxPool", "Params", "Relu", "Selu",
    "Shape", "ShapeTree", "Sigmoid", "Softmax", "Softplus", "SumPool", "Tanh", "elementwise", "parallel",
    "serial", "shape_dependent",
]

# aliases for backwards compatibility, as JAX's
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax

Shape: TypeAlias = tuple[int, ...]
ShapeTree: TypeAlias = "Shape | Sequence[ShapeTree]"
"""The shape of a layer's input or output: one shape, or a sequence of them."""

Params: TypeAlias = "ArrayLike | tuple[Params, ...] | list[Params]"
"""A layer's parameters: arrays, nested in tuples and lists (``()`` for none)."""

Inputs: TypeAlias = "ArrayLike | Sequence[Inputs]"
"""A layer's input: an array, or a sequence of inputs (after ``FanOut``)."""

O = TypeVar("O")
O_co = TypeVar("O_co", covariant=True)


class InitFun(Protocol):
    """``init_fun(rng, input_shape) -> (output_shape, params)``."""

    def __call__(self, rng: KeyLike, input_shape: ShapeTree, /) -> tuple[ShapeTree, Params]: ...


class ApplyFun(Protocol[O_co]):
    """``apply_fun(params, inputs, **kwargs) -> outputs``: the keyword
    ``rng=`` is a key or None (``Dropout`` needs one; the combinators split
    it among their layers). It is not a parameter of its own here, so that
    any function ``(params, inputs, **kwargs: object)`` is an ``ApplyFun``.
    The first two are named as JAX's layers name them: a keyword the
    protocol's ``**kwargs`` accepts must not be taken by another parameter
    of the function, so their names are part of the type."""

    def __call__(self, params: Params, inputs: Inputs, **kwargs: object) -> O_co: ...


Layer: TypeAlias = tuple[InitFun, ApplyFun[O]]
"""An ``(init_fun, apply_fun)`` pair whose ``apply_fun`` returns an ``O``."""


# --- checks of what a layer is given ------------------------------------------------------------


def _shape(input_shape: ShapeTree, layer: str) -> Shape:
    """``input_shape`` as one shape, or a ``TypeError`` naming the layer."""
    if isinstance(input_shape, (tuple, list)) and all(isinstance(d, (int, np.integer)) for d in input_shape):
        return tuple(int(cast(int, d)) for d in input_shape)
    raise TypeError(f"{layer} takes the shape of one input (a tuple of ints), got {input_shape!r}")


def _shapes(input_shape: ShapeTree, layer: str) -> list[ShapeTree]:
    """``input_shape`` as the shapes of several inputs."""
    if isinstance(input_shape, (tuple, list)) and all(not isinstance(d, (int, np.integer)) for d in input_shape):
        return list(cast(Sequence[ShapeTree], input_shape))
    raise TypeError(f"{layer} takes the shapes of several inputs (a sequence of shapes), got {input_shape!r}")


def _array(inputs: Inputs, layer: str) -> ArrayLike:
    """``inputs`` as one array, or a ``TypeError`` naming the layer."""
    if isinstance(inputs, Sequence):
        raise TypeError(f"{layer} takes one array, got a {type(inputs).__name__} of {len(inputs)} inputs")
    return inputs


def _arrays(inputs: Inputs, layer: str) -> list[Inputs]:
    """``inputs`` as several inputs."""
    if isinstance(inputs, Sequence):
        return list(inputs)
    raise TypeError(f"{layer} takes a sequence of inputs, got one of type {type(inputs).__name__}")


def _parts(params: Params, n: int, layer: str) -> tuple[Params, ...]:
    """``params`` as its ``n`` parts (``(W, b)``, ...)."""
    if isinstance(params, (tuple, list)) and len(params) == n:
        return tuple(params)
    raise TypeError(f"{layer} expects its params as {n} parts, as its init_fun makes them, got {params!r}")


def _rng(kwargs: dict[str, object], layer: str) -> KeyLike | None:
    """The keyword ``rng=`` of an ``apply_fun`` (None when not given)."""
    rng = kwargs.get("rng")
    if rng is None or isinstance(rng, (Array, np.ndarray)):
        return rng
    raise TypeError(f"{layer}: rng must be a PRNG key (from typedax.random.key or PRNGKey), got {type(rng).__name__}")


def _leaf(params: Params, layer: str) -> ArrayLike:
    if isinstance(params, (tuple, list)):
        raise TypeError(f"{layer} expects an array among its params, got a {type(params).__name__}")
    return params


# --- layers -------------------------------------------------------------------------------------


def Dense(  # noqa: N802 - JAX's name
    out_dim: int, W_init: Initializer = glorot_normal(), b_init: Initializer = normal(),  # noqa: N803
) -> Layer[Array]:
    """A dense (fully-connected) layer: ``inputs @ W + b``."""

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        shape = _shape(input_shape, "Dense")
        output_shape = shape[:-1] + (out_dim,)
        k1, k2 = random.split(rng)
        W, b = W_init(k1, (shape[-1], out_dim)), b_init(k2, (out_dim,))  # noqa: N806 - JAX's name
        return output_shape, (W, b)

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        W, b = _parts(params, 2, "Dense")  # noqa: N806 - JAX's name
        return jnp.dot(_array(inputs, "Dense"), _leaf(W, "Dense")) + _leaf(b, "Dense")

    return init_fun, apply_fun


DimensionNumbers: TypeAlias = tuple[str, str, str]
Padding: TypeAlias = "str | Sequence[tuple[int, int]]"


def _kernel_shape(dimension_numbers: DimensionNumbers, out_chan: int, filter_shape: Sequence[int],
                  shape: Shape) -> list[int]:
    lhs_spec, rhs_spec, _ = dimension_numbers
    filter_shape_iter = iter(filter_shape)
    return [out_chan if c == "O" else shape[lhs_spec.index("C")] if c == "I" else next(filter_shape_iter)
            for c in rhs_spec]


def GeneralConv(  # noqa: N802 - JAX's name
    dimension_numbers: DimensionNumbers, out_chan: int, filter_shape: Sequence[int],
    strides: Sequence[int] | None = None, padding: Padding = "VALID", W_init: Initializer | None = None,  # noqa: N803
    b_init: Initializer = normal(1e-6),
) -> Layer[Array]:
    """A general convolution layer: ``dimension_numbers`` are the
    ``(lhs, rhs, out)`` layout strings, as ``('NHWC', 'HWIO', 'NHWC')``."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    window_strides = tuple(strides or one)
    w_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        shape = _shape(input_shape, "GeneralConv")
        kernel_shape = _kernel_shape(dimension_numbers, out_chan, filter_shape, shape)
        output_shape = lax.conv_general_shape_tuple(shape, kernel_shape, window_strides, padding, dimension_numbers)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        W, b = w_init(k1, kernel_shape), b_init(k2, bias_shape)  # noqa: N806 - JAX's name
        return output_shape, (W, b)

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        W, b = _parts(params, 2, "GeneralConv")  # noqa: N806 - JAX's name
        out = lax.conv_general_dilated(_array(inputs, "GeneralConv"), _leaf(W, "GeneralConv"), window_strides,
                                       padding, one, one, dimension_numbers=dimension_numbers)
        return out + _leaf(b, "GeneralConv")

    return init_fun, apply_fun


def Conv(  # noqa: N802 - JAX's name
    out_chan: int, filter_shape: Sequence[int], strides: Sequence[int] | None = None, padding: Padding = "VALID",
    W_init: Initializer | None = None, b_init: Initializer = normal(1e-6),  # noqa: N803
) -> Layer[Array]:
    """A 2-D convolution layer on ``NHWC`` inputs with an ``HWIO`` kernel
    (``GeneralConv(('NHWC', 'HWIO', 'NHWC'), ...)``)."""
    return GeneralConv(("NHWC", "HWIO", "NHWC"), out_chan, filter_shape, strides, padding, W_init, b_init)


def GeneralConvTranspose(  # noqa: N802 - JAX's name
    dimension_numbers: DimensionNumbers, out_chan: int, filter_shape: Sequence[int],
    strides: Sequence[int] | None = None, padding: Padding = "VALID", W_init: Initializer | None = None,  # noqa: N803
    b_init: Initializer = normal(1e-6),
) -> Layer[Array]:
    """A general transposed-convolution layer (``lax.conv_transpose``)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    window_strides = tuple(strides or one)
    w_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        shape = _shape(input_shape, "GeneralConvTranspose")
        kernel_shape = _kernel_shape(dimension_numbers, out_chan, filter_shape, shape)
        output_shape = lax.conv_transpose_shape_tuple(shape, kernel_shape, window_strides, padding, dimension_numbers)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        W, b = w_init(k1, kernel_shape), b_init(k2, bias_shape)  # noqa: N806 - JAX's name
        return output_shape, (W, b)

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        W, b = _parts(params, 2, "GeneralConvTranspose")  # noqa: N806 - JAX's name
        out = lax.conv_transpose(_array(inputs, "GeneralConvTranspose"), _leaf(W, "GeneralConvTranspose"),
                                 window_strides, padding, dimension_numbers=dimension_numbers)
        return out + _leaf(b, "GeneralConvTranspose")

    return init_fun, apply_fun


def Conv1DTranspose(  # noqa: N802 - JAX's name
    out_chan: int, filter_shape: Sequence[int], strides: Sequence[int] | None = None, padding: Padding = "VALID",
    W_init: Initializer | None = None, b_init: Initializer = normal(1e-6),  # noqa: N803
) -> Layer[Array]:
    """A 1-D transposed convolution on ``NHC`` inputs with an ``HIO`` kernel."""
    return GeneralConvTranspose(("NHC", "HIO", "NHC"), out_chan, filter_shape, strides, padding, W_init, b_init)


def ConvTranspose(  # noqa: N802 - JAX's name
    out_chan: int, filter_shape: Sequence[int], strides: Sequence[int] | None = None, padding: Padding = "VALID",
    W_init: Initializer | None = None, b_init: Initializer = normal(1e-6),  # noqa: N803
) -> Layer[Array]:
    """A 2-D transposed convolution on ``NHWC`` inputs with an ``HWIO`` kernel."""
    return GeneralConvTranspose(("NHWC", "HWIO", "NHWC"), out_chan, filter_shape, strides, padding, W_init, b_init)


def BatchNorm(  # noqa: N802 - JAX's name
    axis: int | Sequence[int] = (0, 1, 2), epsilon: float = 1e-5, center: bool = True, scale: bool = True,
    beta_init: Initializer = zeros, gamma_init: Initializer = ones,
) -> Layer[Array]:
    """Batch normalization: standardize over ``axis`` (the batch statistics,
    every call), then scale by ``gamma`` and shift by ``beta`` (each
    ``()`` when ``scale`` / ``center`` is off)."""
    axes: tuple[int, ...] = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        in_shape = _shape(input_shape, "BatchNorm")
        shape = tuple(d for i, d in enumerate(in_shape) if i not in axes)
        k1, k2 = random.split(rng)
        beta: Params = beta_init(k1, shape) if center else ()
        gamma: Params = gamma_init(k2, shape) if scale else ()
        return in_shape, (beta, gamma)

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        beta, gamma = _parts(params, 2, "BatchNorm")
        a = _array(inputs, "BatchNorm")
        ed = tuple(None if i in axes else slice(None) for i in range(jnp.ndim(a)))
        z = standardize(a, axes, epsilon=epsilon)
        if center and scale:
            return jnp.asarray(_leaf(gamma, "BatchNorm"))[ed] * z + jnp.asarray(_leaf(beta, "BatchNorm"))[ed]
        if center:
            return z + jnp.asarray(_leaf(beta, "BatchNorm"))[ed]
        if scale:
            return jnp.asarray(_leaf(gamma, "BatchNorm"))[ed] * z
        return z

    return init_fun, apply_fun


def elementwise(fun: Callable[..., Array], **fun_kwargs: object) -> Layer[Array]:
    """The layer applying ``fun(inputs, **fun_kwargs)``, without parameters."""

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        return input_shape, ()

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        return fun(_array(inputs, "elementwise"), **fun_kwargs)

    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


# --- pooling ------------------------------------------------------------------------------------

_Rescale: TypeAlias = Callable[[Array, ArrayLike, "str | None"], Array]


def _reduce_window_shape(shape: Shape, window: Shape, strides: Shape, pads: Sequence[tuple[int, int]]) -> Shape:
    """``jax.lax.reduce_window_shape_tuple`` without dilation (a dimension
    shorter than its window, as a -1 batch, is 0, as in JAX)."""
    return tuple(max((d + lo + hi - w) // s + 1, 0)
                 for d, w, s, (lo, hi) in zip(shape, window, strides, pads, strict=True))


def _normalize_by_window_size(dims: Shape, strides: Shape, padding: str) -> _Rescale:
    def rescale(outputs: Array, inputs: ArrayLike, spec: str | None) -> Array:
        ndim = jnp.ndim(inputs)
        non_spatial_axes = (0, ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))
        spatial_shape = tuple(d for i, d in enumerate(jnp.shape(inputs)) if i not in non_spatial_axes)
        one = jnp.ones(spatial_shape, dtype=jnp.result_type(inputs))
        window_sizes = lax.reduce_window(one, 0.0, lax.add, dims, strides, padding)
        for i in sorted(non_spatial_axes):
            window_sizes = jnp.expand_dims(window_sizes, i)
        return outputs / window_sizes

    return rescale


def _pooling_layer(
    name: str, reducer: Callable[[Array, Array], Array], init_val: float,
    rescaler: Callable[[Shape, Shape, str], _Rescale] | None, window_shape: Sequence[int],
    strides: Sequence[int] | None, padding: str, spec: str | None,
) -> Layer[Array]:
    window = tuple(window_shape)
    window_strides = tuple(strides or (1,) * len(window))
    rescale = rescaler(window, window_strides, padding) if rescaler else None
    non_spatial_axes = (0, len(window) + 1) if spec is None else (spec.index("N"), spec.index("C"))
    for i in sorted(non_spatial_axes):
        window = window[:i] + (1,) + window[i:]
        window_strides = window_strides[:i] + (1,) + window_strides[i:]

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        shape = _shape(input_shape, name)
        pads = lax.padtype_to_pads(shape, window, window_strides, padding)
        return _reduce_window_shape(shape, window, window_strides, pads), ()

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        x = _array(inputs, name)
        out = lax.reduce_window(x, init_val, reducer, window, window_strides, padding)
        return rescale(out, x, spec) if rescale else out

    return init_fun, apply_fun


def MaxPool(  # noqa: N802 - JAX's name
    window_shape: Sequence[int], strides: Sequence[int] | None = None, padding: str = "VALID",
    spec: str | None = None,
) -> Layer[Array]:
    """Max pooling over ``window_shape`` (the spatial dimensions: all but the
    first and the last, or but ``N`` and ``C`` of ``spec``)."""
    return _pooling_layer("MaxPool", lax.max, -np.inf, None, window_shape, strides, padding, spec)


def SumPool(  # noqa: N802 - JAX's name
    window_shape: Sequence[int], strides: Sequence[int] | None = None, padding: str = "VALID",
    spec: str | None = None,
) -> Layer[Array]:
    """Sum pooling over ``window_shape``."""
    return _pooling_layer("SumPool", lax.add, 0.0, None, window_shape, strides, padding, spec)


def AvgPool(  # noqa: N802 - JAX's name
    window_shape: Sequence[int], strides: Sequence[int] | None = None, padding: str = "VALID",
    spec: str | None = None,
) -> Layer[Array]:
    """Average pooling over ``window_shape`` (with ``'SAME'`` padding, each
    window's sum over the elements inside the input)."""
    return _pooling_layer("AvgPool", lax.add, 0.0, _normalize_by_window_size, window_shape, strides, padding, spec)


# --- structure ----------------------------------------------------------------------------------


def _flatten() -> Layer[Array]:
    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        shape = _shape(input_shape, "Flatten")
        return (shape[0], math.prod(shape[1:])), ()

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        x = _array(inputs, "Flatten")
        return jnp.reshape(x, (jnp.shape(x)[0], -1))

    return init_fun, apply_fun


Flatten = _flatten()
"""Flattens all but the leading dimension (a layer, not a constructor, as JAX's)."""


def _identity() -> Layer[Inputs]:
    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        return input_shape, ()

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Inputs:
        return inputs

    return init_fun, apply_fun


Identity = _identity()
"""The identity layer (a layer, not a constructor, as JAX's)."""


def FanOut(num: int) -> Layer[list[Inputs]]:  # noqa: N802 - JAX's name
    """``num`` copies of the input (a list), for ``parallel``."""

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        return [input_shape] * num, ()

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> list[Inputs]:
        return [inputs] * num

    return init_fun, apply_fun


def _fan_in_sum() -> Layer[Array]:
    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        return _shapes(input_shape, "FanInSum")[0], ()

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        xs = [jnp.asarray(_array(x, "FanInSum")) for x in _arrays(inputs, "FanInSum")]
        return jnp.asarray(sum(xs))

    return init_fun, apply_fun


FanInSum = _fan_in_sum()
"""The sum of a sequence of inputs (a layer, not a constructor, as JAX's)."""


def FanInConcat(axis: int = -1) -> Layer[Array]:  # noqa: N802 - JAX's name
    """The concatenation of a sequence of inputs along ``axis``."""

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        shapes = [_shape(s, "FanInConcat") for s in _shapes(input_shape, "FanInConcat")]
        ax = axis % len(shapes[0])
        concat_size = sum(shape[ax] for shape in shapes)
        return shapes[0][:ax] + (concat_size,) + shapes[0][ax + 1:], ()

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        return jnp.concatenate([_array(x, "FanInConcat") for x in _arrays(inputs, "FanInConcat")], axis)

    return init_fun, apply_fun


_DROPOUT_NEEDS_RNG = (
    "Dropout layer requires apply_fun to be called with a PRNG key argument. That is, instead of "
    "`apply_fun(params, inputs)`, call it like `apply_fun(params, inputs, rng=key)` where `key` is a "
    "PRNG key (e.g. from `typedax.random.key`)."
)


def Dropout(rate: float, mode: str = "train") -> Layer[Array]:  # noqa: N802 - JAX's name
    """Dropout, as JAX's: in ``mode='train'`` each input is kept with
    probability ``rate`` (``rate`` is the keep rate, as in JAX) and scaled by
    ``1 / rate``; in any other mode the inputs pass unchanged. Either way
    ``apply_fun`` needs ``rng=`` (a ``ValueError`` without it, as JAX's)."""

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        return input_shape, ()

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> Array:
        rng = _rng(kwargs, "Dropout")
        if rng is None:
            raise ValueError(_DROPOUT_NEEDS_RNG)
        x = _array(inputs, "Dropout")
        if mode == "train":
            keep = random.bernoulli(rng, rate, jnp.shape(x))
            return jnp.where(keep, jnp.divide(x, rate), 0)
        return jnp.asarray(x)  # the inputs themselves (an Array), as JAX's

    return init_fun, apply_fun


# --- combinators --------------------------------------------------------------------------------


def serial(*layers: Layer[O]) -> Layer[O]:
    """The layers composed in sequence: each one's output is the next one's
    input; the parameters are a list, one entry per layer. ``init_fun``
    splits its key once per layer, ``apply_fun`` its ``rng`` (if given) into
    one key per layer, as JAX's."""
    nlayers = len(layers)
    if not nlayers:
        raise ValueError("serial needs at least one layer")
    init_funs = [init for init, _ in layers]
    apply_funs = [apply for _, apply in layers]

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        params: list[Params] = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> O:
        layer_params = _parts(params, nlayers, "serial")
        rng = _rng(kwargs, "serial")
        kwargs.pop("rng", None)
        rngs: Sequence[KeyLike | None] = list(random.split(rng, nlayers)) if rng is not None else [None] * nlayers
        for fun, param, r in zip(apply_funs[:-1], layer_params, rngs):
            # each layer's output is the next layer's input
            inputs = cast(Inputs, fun(param, inputs, rng=r, **kwargs))
        return apply_funs[-1](layer_params[-1], inputs, rng=rngs[-1], **kwargs)

    return init_fun, apply_fun


def parallel(*layers: Layer[O]) -> Layer[list[O]]:
    """The layers side by side: a sequence of inputs, one per layer, gives the
    list of their outputs (often between ``FanOut`` and ``FanInSum``)."""
    nlayers = len(layers)
    if not nlayers:
        raise ValueError("parallel needs at least one layer")
    init_funs = [init for init, _ in layers]
    apply_funs = [apply for _, apply in layers]

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        # JAX returns zip(*pairs), which unpacks to these two tuples
        rngs = random.split(rng, nlayers)
        shapes = _shapes(input_shape, "parallel")
        pairs = [init(r, shape) for init, r, shape in zip(init_funs, rngs, shapes)]
        return tuple(s for s, _ in pairs), tuple(p for _, p in pairs)

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> list[O]:
        layer_params = _parts(params, nlayers, "parallel")
        rng = _rng(kwargs, "parallel")
        kwargs.pop("rng", None)
        rngs: Sequence[KeyLike | None] = list(random.split(rng, nlayers)) if rng is not None else [None] * nlayers
        xs = _arrays(inputs, "parallel")
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, layer_params, xs, rngs)]

    return init_fun, apply_fun


def shape_dependent(make_layer: Callable[[ShapeTree], Layer[O]]) -> Layer[O]:
    """The layer ``make_layer(input_shape)``, made once the input shape is
    known (at ``init_fun``, and again at each ``apply_fun`` from the inputs)."""

    def init_fun(rng: KeyLike, input_shape: ShapeTree) -> tuple[ShapeTree, Params]:
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params: Params, inputs: Inputs, **kwargs: object) -> O:
        shape = tuple(jnp.shape(_array(inputs, "shape_dependent")))
        return make_layer(shape)[1](params, inputs, **kwargs)

    return init_fun, apply_fun
