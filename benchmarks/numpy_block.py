"""A transformer block written with ``typedax.numpy`` beside the same block
written with ``jax.numpy``, in one process (issue 12):

1. tracing: ``make_jaxpr`` of the block's loss (layer norms, four-head
   self-attention through ``einsum``-free ``matmul``/``transpose``/``reshape``,
   softmax, a GELU MLP, residuals) and of its gradient -- JAX / typedax (a
   speed-up; target at least 5x);
2. eager: small ``tnp`` calls (``tnp.tanh``, ``x @ w``, ``tnp.mean(axis,
   keepdims)``, ``nn.softmax``) on arrays each library already holds, result
   made ready -- typedax / JAX (target at most 0.2: 5x faster);
3. ``jit(grad)`` of the block's loss at batch 8, sequence 64, width 128,
   steady state -- typedax / JAX (target at most 1.05).

Times are the best of several rounds, the libraries alternating.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any, NamedTuple

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402  - after choosing the platform
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import typedax as tdx  # noqa: E402
import typedax.numpy as tnp  # noqa: E402
from typedax import nn  # noqa: E402

from .jit import per_call_pair  # noqa: E402

TARGET_TRACE = 5.0
TARGET_EAGER = 0.2
TARGET_JIT = 1.05
B, T, D, H = 8, 64, 128, 4


class Block(NamedTuple):
    ln1: Any
    wqkv: Any
    wo: Any
    ln2: Any
    w1: Any
    w2: Any


def _block(np_: Any, softmax: Callable[..., Any], gelu: Callable[..., Any]) -> Callable[[Block, Any], Any]:
    """The loss of one block, written once against a NumPy-like module."""

    def layer_norm(x: Any, g: Any) -> Any:
        mu = np_.mean(x, axis=-1, keepdims=True)
        var = np_.mean((x - mu) ** 2, axis=-1, keepdims=True)
        return (x - mu) / np_.sqrt(var + 1e-5) * g

    def loss(p: Block, x: Any) -> Any:
        h = layer_norm(x, p.ln1)
        qkv = np_.reshape(h @ p.wqkv, (B, T, 3, H, D // H))
        q, k, v = (np_.transpose(qkv[:, :, i], (0, 2, 1, 3)) for i in range(3))
        # a Python float: tnp.sqrt(32.0) is a (strong) float64 array in typedax, and
        # float32 / float64 promotes (JAX keeps jnp.sqrt(32.0) weakly typed)
        att = softmax(q @ np_.transpose(k, (0, 1, 3, 2)) / math.sqrt(D // H), axis=-1)
        y = np_.reshape(np_.transpose(att @ v, (0, 2, 1, 3)), (B, T, D))
        x = x + y @ p.wo
        x = x + gelu(layer_norm(x, p.ln2) @ p.w1) @ p.w2
        return np_.mean(x ** 2)

    return loss


def _params(rng: np.random.Generator) -> Block:
    def w(*shape: int) -> np.ndarray[Any, Any]:
        return np.asarray(rng.normal(size=shape) / np.sqrt(shape[0]), np.float32)

    return Block(np.ones(D, np.float32), w(D, 3 * D), w(D, D), np.ones(D, np.float32), w(D, 4 * D), w(4 * D, D))


LOSS_T = _block(tnp, nn.softmax, nn.gelu)
LOSS_J = _block(jnp, jax.nn.softmax, jax.nn.gelu)






def tracing() -> list[tuple[str, float, float]]:
    p = _params(np.random.default_rng(0))
    x = np.random.default_rng(1).normal(size=(B, T, D)).astype(np.float32)
    rows = []
    for name, ft, fj in (("make_jaxpr(loss)", LOSS_T, LOSS_J),
                         ("make_jaxpr(grad(loss))", tdx.grad(LOSS_T), jax.grad(LOSS_J))):
        # a fresh function each time: JAX caches traces by function identity

        def trace_t(ft: Callable[..., Any] = ft) -> None:
            tdx.make_jaxpr(lambda a, b: ft(a, b))(p, x)

        def trace_j(fj: Callable[..., Any] = fj) -> None:
            jax.make_jaxpr(lambda a, b: fj(a, b))(p, x)

        rows.append((name, *per_call_pair(trace_t, trace_j, 5)))
    return rows


def eager() -> list[tuple[str, float, float]]:
    rng = np.random.default_rng(2)
    a, w = rng.normal(size=(16, 32)).astype(np.float32), rng.normal(size=(32, 32)).astype(np.float32)
    ta, tw, ja, jw = tnp.asarray(a), tnp.asarray(w), jnp.asarray(a), jnp.asarray(w)
    cases: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
        ("tnp.tanh(x)", lambda: tnp.tanh(ta), lambda: jnp.tanh(ja)),
        ("x @ w", lambda: ta @ tw, lambda: ja @ jw),
        ("tnp.mean(x, -1, keepdims)", lambda: tnp.mean(ta, axis=-1, keepdims=True),
         lambda: jnp.mean(ja, axis=-1, keepdims=True)),
        ("nn.softmax(x)", lambda: nn.softmax(ta), lambda: jax.nn.softmax(ja)),
        ("x * 2.0 + 1.0", lambda: ta * 2.0 + 1.0, lambda: ja * 2.0 + 1.0),
    ]
    return [(name, *per_call_pair(lambda: t().block_until_ready(), lambda: j().block_until_ready(), 200))
            for name, t, j in cases]


def eager_numerics() -> list[tuple[str, float, float]]:
    """Eager reductions and a float power on float32[1000] and [100, 100]
    (issue 23: the ones whose eager value is XLA's, through a one-equation
    program, so that it equals ``jit``'s bit for bit)."""
    rng = np.random.default_rng(3)
    rows: list[tuple[str, float, float]] = []
    for shape in ((1000,), (100, 100)):
        a = np.abs(rng.normal(size=shape)).astype(np.float32)
        ta, ja = tnp.asarray(a), jnp.asarray(a)
        label = f"[{','.join(map(str, shape))}]"
        cases: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
            ("x.sum()", lambda: ta.sum(), lambda: ja.sum()),
            ("x.mean()", lambda: ta.mean(), lambda: ja.mean()),
            ("x.sum(axis=0)", lambda: ta.sum(axis=0), lambda: ja.sum(axis=0)),
            ("nn.softmax(x)", lambda: nn.softmax(ta), lambda: jax.nn.softmax(ja)),
            ("x ** 1.5", lambda: ta ** 1.5, lambda: ja ** 1.5),
        ]
        rows += [(f"{name} {label}", *per_call_pair(lambda: t().block_until_ready(),
                                                     lambda: j().block_until_ready(), 200))
                 for name, t, j in cases]
    return rows


def main_numerics() -> None:
    """Only the ``eager_numerics`` rows:
    ``python -c 'from benchmarks.numpy_block import main_numerics; main_numerics()'``."""
    print(f"{'eager numerics, float32':28} {'typedax':>10} {'jax':>10} {'tdx/jax':>8}")
    for name, t, j in eager_numerics():
        print(f"{name:28} {t * 1e6:8.2f}us {j * 1e6:8.2f}us {t / j:8.3f}")


def jit_grad() -> tuple[float, float]:
    p = _params(np.random.default_rng(0))
    x = np.random.default_rng(1).normal(size=(B, T, D)).astype(np.float32)
    gt, gj = tdx.jit(tdx.grad(LOSS_T)), jax.jit(jax.grad(LOSS_J))
    pt, xt = tdx.tree.map(tdx.device_put, p), tdx.device_put(x)
    pj, xj = jax.device_put(p), jax.device_put(x)
    # the numbers agree before they are timed
    for a, b in zip(gt(pt, xt), gj(pj, xj)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-3, atol=2e-5)
    return per_call_pair(lambda: gt(pt, xt).w2.block_until_ready(), lambda: gj(pj, xj).w2.block_until_ready(), 20)


def main() -> None:
    print(f"{'tracing':28} {'typedax':>10} {'jax':>10} {'jax/tdx':>8}  target")
    for name, t, j in tracing():
        print(f"{name:28} {t * 1e3:8.2f}ms {j * 1e3:8.2f}ms {j / t:8.2f}  >= {TARGET_TRACE}")
    print(f"{'eager':28} {'typedax':>10} {'jax':>10} {'tdx/jax':>8}  target")
    for name, t, j in eager():
        print(f"{name:28} {t * 1e6:8.2f}us {j * 1e6:8.2f}us {t / j:8.3f}  <= {TARGET_EAGER}")
    for name, t, j in eager_numerics():
        print(f"{name:28} {t * 1e6:8.2f}us {j * 1e6:8.2f}us {t / j:8.3f}")
    t, j = jit_grad()
    print(f"{'jit(grad(block)) step':28} {t * 1e3:8.2f}ms {j * 1e3:8.2f}ms {t / j:8.3f}  <= {TARGET_JIT}")


if __name__ == "__main__":
    main()
