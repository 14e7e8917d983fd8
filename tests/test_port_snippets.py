"""JAX-docs style snippets run twice, with ``import jax, jax.numpy as jnp`` and
with ``import typedax as jax, typedax.numpy as jnp``: every value, shape and
dtype they print must agree (the "change of imports" promise, on the idioms
of JAX 101: parameter dicts updated with ``tree_util.tree_map`` and a Python
learning rate, per-example gradients, an RNN ``scan``, scalar types, random
keys, ``jax.devices()``)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import jax as real_jax
import jax.numpy as real_jnp
import numpy as np

import typedax
import typedax.numpy as tnp

real_jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def program(jax: Any, jnp: Any) -> list[tuple[str, Any]]:
    lax, random = jax.lax, jax.random
    out: list[tuple[str, Any]] = []
    key = random.PRNGKey(0)
    key, sub = random.split(key)
    w = random.normal(sub, (3, 4), dtype=jnp.float32)
    params = {"W": w, "b": jnp.zeros((4,), dtype=jnp.float32)}
    x = random.normal(key, (8, 3), dtype=jnp.float32)
    y = jnp.ones((8, 4), jnp.float32)

    def loss(p: Any, x: Any, y: Any) -> Any:
        return jnp.mean((jnp.tanh(x @ p["W"] + p["b"]) - y) ** 2)

    grads = jax.grad(loss)(params, x, y)
    lr = 0.1
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    out.append(("update", params["W"]))
    step = jax.jit(lambda p, x, y, lr: jax.tree_util.tree_map(lambda a, g: a - lr * g, p, jax.grad(loss)(p, x, y)))
    out.append(("jit step", step(params, x, y, 0.05)["W"]))
    out.append(("per-example", jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x[:, None], y[:, None])["W"]))

    def rnn(h: Any, x: Any) -> Any:
        h = jnp.tanh(h @ jnp.eye(4, dtype=jnp.float32) + x)
        return h, h.sum()

    h, ys = lax.scan(rnn, jnp.zeros(4, jnp.float32), jnp.ones((5, 4), jnp.float32))
    out += [("scan h", h), ("scan ys", ys)]
    out.append(("one_hot", jax.nn.one_hot(jnp.array([0, 2]), 3)))
    out.append(("scalar types", jnp.float32(1.5) * 2))
    out.append(("int scalar", jnp.int32(3) // 2))
    c = jnp.arange(10.0).reshape(2, 5)
    out += [("sum", c.sum(axis=0)), ("std", c.std()), ("mask", c[c > 3]), ("step", c[:, ::2])]
    out.append(("where", jnp.where(c > 3, c, 0.0)))
    out.append(("scale", x / jnp.sqrt(x.shape[-1])))
    out.append(("uniform", random.uniform(key, (2,), minval=-1.0, maxval=1.0)))
    out.append(("fori", lax.fori_loop(0, 5, lambda i, acc: acc + i, 0)))
    out.append(("fori float", lax.fori_loop(0, 3, lambda i, acc: acc + x[i, 0], 0.0)))
    out.append(("switch", lax.switch(1, [lambda: 0.0, lambda: 1.0])))
    out.append(("value_and_grad", jax.value_and_grad(loss)(params, x, y)[0]))
    out.append(("at", c.at[:, 1].set(0.0)))
    out.append(("softmax", jax.nn.softmax(jnp.array([1.0, 2.0], dtype=jnp.float32))))
    out.append(("devices", np.asarray(len(jax.devices()))))
    return out


def test_snippets_agree_with_jax() -> None:
    theirs = program(real_jax, real_jnp)
    ours = program(typedax, tnp)
    assert [k for k, _ in ours] == [k for k, _ in theirs]
    for (k, a), (_, b) in zip(ours, theirs):
        a_, b_ = np.asarray(a), np.asarray(b)
        assert (a_.dtype, a_.shape) == (b_.dtype, b_.shape), k
        # float32: NumPy's tanh and XLA's differ in the last bits, and gradients amplify that
        tol = 1e-4 if a_.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(a_, b_, rtol=tol, atol=tol * 1e-2, err_msg=k)
        assert getattr(a, "weak_type", False) == getattr(b, "weak_type", False), k


def test_the_package_exposes_jax_s_submodules() -> None:
    for name in ("lax", "numpy", "random", "nn", "scipy", "tree_util"):
        assert isinstance(getattr(typedax, name), ModuleType), name
    assert typedax.default_backend() in ("cpu", "gpu") and typedax.local_devices() == typedax.devices()


def test_eval_shape_block_until_ready_and_device_get_as_jax() -> None:
    def f(x: Any, y: Any) -> Any:
        return {"s": x @ y, "n": (x * 2.0).sum()}

    x, y = np.ones((2, 3), np.float32), typedax.ShapeDtypeStruct((3, 4), np.dtype(np.float32))
    ours = typedax.eval_shape(f, x, y)
    theirs = real_jax.eval_shape(f, x, real_jax.ShapeDtypeStruct((3, 4), np.float32))  # type: ignore[no-untyped-call]  # jax untyped here
    assert isinstance(ours, dict) and isinstance(theirs, dict)
    for k in theirs:
        assert (ours[k].shape, ours[k].dtype, ours[k].weak_type) == (theirs[k].shape, theirs[k].dtype, theirs[k].weak_type)
    assert typedax.eval_shape(lambda s: s * 2, 1.0).weak_type  # type: ignore[attr-defined]  # eval_shape returns object
    tree = {"a": tnp.ones(3), "b": [tnp.zeros(2), 1.0]}
    assert typedax.block_until_ready(tree) is tree
    got = typedax.device_get(tree)
    assert isinstance(got, dict) and type(got["a"]) is np.ndarray and got["b"][1] == 1.0
    np.testing.assert_array_equal(got["a"], np.ones(3))
