"""JAX's ``examples/mnist_classifier_fromscratch.py``, ported by changing its
imports (``jax`` -> ``typedax``) and adding the type annotations
``mypy --strict`` asks for; the program itself is JAX's: NumPy's RNG for the
parameters, ``tanh`` layers, ``logsumexp`` normalization, ``argmax``
accuracy, and a ``jit``-compiled SGD ``update`` of a list of ``(w, b)`` pairs
through ``grad``.

Its data: the 8x8 handwritten digits scikit-learn bundles (``make demo``
installs them with the ``demo`` extra; no download) in place of MNIST's
28x28, one-hot encoded as ``datasets.mnist()`` gives them; without
scikit-learn, ten noisy synthetic prototypes stand in.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import numpy.random as npr

import typedax.numpy as jnp
from typedax import Array, grad, jit
from typedax.scipy.special import logsumexp

Params = list[tuple[Array, Array]]
Batch = tuple[Array, Array]
HostArray = np.ndarray[tuple[int, ...], np.dtype[np.float32]]


def init_random_params(scale: float, layer_sizes: list[int], rng: npr.RandomState = npr.RandomState(0)) -> Params:
    return [(jnp.asarray(scale * rng.randn(m, n)), jnp.asarray(scale * rng.randn(n)))
            for m, n, in zip(layer_sizes[:-1], layer_sizes[1:])]


def predict(params: Params, inputs: Array) -> Array:
    activations = inputs
    for w, b in params[:-1]:
        outputs = jnp.dot(activations, w) + b
        activations = jnp.tanh(outputs)

    final_w, final_b = params[-1]
    logits = jnp.dot(activations, final_w) + final_b
    return logits - logsumexp(logits, axis=1, keepdims=True)


def loss(params: Params, batch: Batch) -> Array:
    inputs, targets = batch
    preds = predict(params, inputs)
    return -jnp.mean(preds * targets)


def accuracy(params: Params, batch: Batch) -> Array:
    inputs, targets = batch
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == target_class)


def digits() -> tuple[HostArray, HostArray, HostArray, HostArray, str]:
    """Train and test images (flattened, in [0, 1]) and one-hot labels."""
    rng = np.random.RandomState(1)
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        protos = rng.rand(10, 64)
        labels = rng.randint(0, 10, 1800)
        images = np.clip(protos[labels] + 0.3 * rng.randn(1800, 64), 0.0, 1.0)
        source = "synthetic digits (pip install -e '.[demo]' for scikit-learn's)"
    else:
        data = load_digits()
        images, labels = data.images.reshape(-1, 64) / 16.0, data.target
        source = "scikit-learn's 8x8 digits"
    one_hot = np.eye(10)[labels]
    order = rng.permutation(len(labels))
    test, train = order[:360], order[360:]
    f = np.float32
    return images[train].astype(f), one_hot[train].astype(f), images[test].astype(f), one_hot[test].astype(f), source


def main() -> None:
    print("== JAX's mnist_classifier_fromscratch, with typedax imports ==")
    layer_sizes = [64, 256, 256, 10]
    param_scale = 0.1
    step_size = 1.0
    num_epochs = 20
    batch_size = 128

    train_images, train_labels, test_images, test_labels, source = digits()
    print(f"data: {source}, {train_images.shape[0]} train / {test_images.shape[0]} test images")
    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)

    def data_stream() -> Iterator[Batch]:
        rng = npr.RandomState(0)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                batch_idx = perm[i * batch_size:(i + 1) * batch_size]
                yield jnp.asarray(train_images[batch_idx]), jnp.asarray(train_labels[batch_idx])

    batches = data_stream()

    @jit
    def update(params: Params, batch: Batch) -> Params:
        grads = grad(loss)(params, batch)
        return [(w - step_size * dw, b - step_size * db) for (w, b), (dw, db) in zip(params, grads)]

    params = init_random_params(param_scale, layer_sizes)
    train = (jnp.asarray(train_images), jnp.asarray(train_labels))
    test = (jnp.asarray(test_images), jnp.asarray(test_labels))
    for epoch in range(num_epochs):
        start_time = time.time()
        for _ in range(num_batches):
            params = update(params, next(batches))
        epoch_time = time.time() - start_time

        train_acc = accuracy(params, train)
        test_acc = accuracy(params, test)
        print("Epoch {} in {:0.2f} sec".format(epoch, epoch_time))
        print("Training set accuracy {:.4f}".format(float(train_acc)))
        print("Test set accuracy {:.4f}".format(float(test_acc)))


if __name__ == "__main__":
    main()
