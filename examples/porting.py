"""Porting JAX code by changing its imports: weak types keep a float32 model
float32 next to Python scalars, ``tnp.float32(x)`` makes an array,
``custom_jvp`` gives a function its own derivative, ``lax.switch`` picks a
branch, ``tnp.linalg`` decomposes, ``random.poisson`` draws JAX's counts,
and typed keys (``random.key``) are arrays whose jaxprs read as JAX's."""

from __future__ import annotations

import math

import numpy as np

import typedax as jax
import typedax.numpy as jnp
from typedax import lax, random


@jax.custom_jvp
def log1pexp(x: jax.ArrayLike) -> jax.Array:
    return jnp.log1p(jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals: tuple[jax.Array], tangents: tuple[jax.Array]) -> tuple[jax.Array, jax.Array]:
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


def main() -> None:
    print("== weak types: Python scalars take the array's dtype, as in JAX")
    w = random.normal(random.PRNGKey(0), (4, 4), dtype=jnp.float32)
    scale = 1.0 / jnp.sqrt(w.shape[-1])  # a weakly typed float64 scalar
    print("tnp.sqrt(4):", repr(jnp.sqrt(w.shape[-1])))
    print("w * scale:", (w * scale).dtype, "| w / math.sqrt(4):", (w / math.sqrt(4)).dtype)
    step = jax.jit(lambda p, lr: p - lr * jax.grad(lambda q: jnp.sum(q**2))(p))
    print("jit(step)(w_f32, 0.1):", step(w, 0.1).dtype, "(a Python learning rate keeps float32)")
    print("grad(tanh)(2.0):", repr(jax.grad(jnp.tanh)(2.0)))
    print("scalar types:", repr(jnp.float32(0.5)), repr(jnp.int8([1, 2])))

    print("\n== custom_jvp: log1pexp with a stable derivative at 100 (1.0, not nan)")
    print("grad(log1pexp)(100.):", jax.grad(log1pexp)(100.0), "| jit:", jax.jit(jax.grad(log1pexp))(100.0))

    print("\n== lax.switch under vmap: each example takes its branch")
    branches = [lambda x: x * 2.0, lambda x: -x, jnp.sin]
    print(jax.vmap(lambda i, x: lax.switch(i, branches, x))(jnp.array([0, 1, 2]), jnp.array([1.0, 2.0, 0.5])))

    print("\n== tnp.linalg: Cholesky and eigh, eager and under jit")
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    print("cholesky:", jnp.linalg.cholesky(a).tolist())
    print("eigvalsh (jit):", jax.jit(jnp.linalg.eigvalsh)(a).tolist(), "numpy:", np.linalg.eigvalsh(a).tolist())

    print("\n== random.poisson: JAX's counts for the same key")
    print(random.poisson(random.PRNGKey(42), 3.0, (8,)))

    print("\n== typed keys: arrays of dtype key<fry>, split under vmap, in a jaxpr as JAX prints them")
    keys = random.split(random.key(0), 3)
    print(repr(keys[0]))
    print("one normal per key:", jax.vmap(lambda k: random.normal(k))(keys))
    print(jax.make_jaxpr(lambda k: random.bits(random.fold_in(random.split(k)[1], 7), (2,), jnp.uint32))(keys[0]))


if __name__ == "__main__":
    main()
