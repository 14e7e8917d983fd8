"""``jit`` beside JAX's, in one process:

1. dispatch: a cached jitted call ``sin(x + y)`` on two float32[8] arrays
   already on the device (results discarded; one block at the end);
2. first call of ``jit(grad(loss))`` for a 4-layer MLP: trace, lower,
   compile, run -- every cache emptied first (typedax's compile cache and
   transform caches; ``jax.clear_caches()``), a fresh function each time;
3. steady state of that step: batch 32, 4 layers of 64 (tanh, squared
   error), float32, the gradient computed and the call repeated.

4. dispatch by argument kind (issue 10): cached jitted ``x * y + 1.0`` and
   ``x * y + z`` on float64[8] values called with NumPy arrays, Python
   scalars, device arrays (``tdx.device_put`` / ``jax.device_put``) and
   eager arrays (``tnp.asarray`` / ``jnp.asarray``), Python scalars of a new
   value on every call ("new scalars": typedax keeps a device buffer per
   scalar value, which the "Python scalars" row, one value repeated, hits),
   and ``x * n + 1.0`` with ``n`` a static argument; 5,000 calls per round,
   one block at the end.

Times are the best of 15 rounds, typedax and JAX alternating round by round
(medians of 5 for the first call); the ratio is typedax / JAX, so below 1
means typedax is faster.
"""

from __future__ import annotations

import gc
import itertools
import os
import statistics
import time
from collections.abc import Callable, Sequence

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402  - after choosing the platform
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import typedax as tdx  # noqa: E402
import typedax.numpy as tnp  # noqa: E402
from typedax import Value  # noqa: E402
from typedax.lowering import compile_cache  # noqa: E402

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax leaves it unannotated; typedax is always x64

# issue 10 lowered the dispatch target from 1.5 to 1.0 (and set 1.0 for
# every argument kind below)
TARGETS: dict[str, float] = {"dispatch": 1.0, "first call": 1.0, "steady step": 1.05}
TARGET_DISPATCH_KINDS = 1.0
LAYERS, WIDTH, BATCH = 4, 64, 32


# -- the programs -------------------------------------------------------------------
def tdx_loss(params: Sequence[tuple[Value, Value]], x: Value, y: Value) -> Value:
    h = x
    for w, b in params:
        h = tnp.tanh(tnp.add(tnp.matmul(h, w), b))
    d = tnp.subtract(h, y)
    return tnp.mean(tnp.multiply(d, d))


def jax_loss(params: list[tuple[jax.Array, jax.Array]], x: jax.Array, y: jax.Array) -> jax.Array:
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    d = h - y
    return jnp.mean(d * d)


def mlp_data() -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    params = [
        ((rng.normal(size=(WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32),
         np.zeros(WIDTH, np.float32))
        for _ in range(LAYERS)
    ]
    x = rng.normal(size=(BATCH, WIDTH)).astype(np.float32)
    y = rng.normal(size=(BATCH, WIDTH)).astype(np.float32)
    return params, x, y


# -- timing helpers -----------------------------------------------------------------
def per_call_pair(
    tdx_f: Callable[[], object], jax_f: Callable[[], object], n: int, rounds: int = 15
) -> tuple[float, float]:
    """Best per-call seconds of each over ``rounds`` loops of ``n`` calls,
    typedax and JAX alternating round by round (so both see the same load)."""
    pairs = ((tdx_f, tdx_block), (jax_f, jax_block))
    for f, _ in pairs:
        for _ in range(max(n // 10, 10)):
            f()
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, (f, block) in enumerate(pairs):
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(n - 1):
                f()
            block(f())
            best[i] = min(best[i], (time.perf_counter() - t0) / n)
    return best[0], best[1]


def tdx_block(x: object) -> object:
    for leaf in tdx.tree.leaves(x):
        if isinstance(leaf, tdx.Array):
            leaf.block_until_ready()
    return x


def jax_block(x: object) -> object:
    for leaf in jax.tree_util.tree_leaves(x):
        if isinstance(leaf, jax.Array):
            leaf.block_until_ready()
    return x


def clear_tdx_caches() -> None:
    from typedax.jitting import primitive

    compile_cache.clear()
    for fn in (primitive._jvp_jaxpr_nonzero, primitive._vmap_jaxpr_cached,
               primitive._partial_eval_cached, primitive._transpose_cached):
        fn.cache_clear()


# -- the three measurements ---------------------------------------------------------
def bench_dispatch() -> tuple[float, float]:
    x = tdx.device_put(np.arange(8, dtype=np.float32))
    f = tdx.jit(lambda a, b: tnp.sin(tnp.add(a, b)))
    jx = jnp.arange(8, dtype=jnp.float32)
    jf = jax.jit(lambda a, b: jnp.sin(a + b))
    f(x, x)
    jf(jx, jx)
    return per_call_pair(lambda: f(x, x), lambda: jf(jx, jx), 5_000)


def bench_first_call(repeats: int = 5) -> tuple[float, float]:
    params, x, y = mlp_data()
    jparams = [(jnp.asarray(w), jnp.asarray(b)) for w, b in params]
    jx, jy = jnp.asarray(x), jnp.asarray(y)
    tdx_times: list[float] = []
    jax_times: list[float] = []
    for _ in range(repeats):
        clear_tdx_caches()
        gc.collect()
        fresh = lambda p, a, b: tdx_loss(p, a, b)  # noqa: E731 - a new function each round
        t0 = time.perf_counter()
        tdx_block(tdx.jit(tdx.grad(fresh))(params, x, y))
        tdx_times.append(time.perf_counter() - t0)

        jax.clear_caches()  # type: ignore[no-untyped-call]  # jax leaves it unannotated
        gc.collect()
        jfresh = lambda p, a, b: jax_loss(p, a, b)  # noqa: E731
        t0 = time.perf_counter()
        jax_block(jax.jit(jax.grad(jfresh))(jparams, jx, jy))
        jax_times.append(time.perf_counter() - t0)
    return statistics.median(tdx_times), statistics.median(jax_times)


def bench_steady_step() -> tuple[float, float]:
    params, x, y = mlp_data()
    dparams = [(tdx.device_put(w), tdx.device_put(b)) for w, b in params]
    dx, dy = tdx.device_put(x), tdx.device_put(y)
    step = tdx.jit(tdx.grad(tdx_loss))
    jparams = [(jnp.asarray(w), jnp.asarray(b)) for w, b in params]
    jx, jy = jnp.asarray(x), jnp.asarray(y)
    jstep = jax.jit(jax.grad(jax_loss))
    got, want = step(dparams, dx, dy), jstep(jparams, jx, jy)
    for (gw, gb), (ww, wb) in zip(got, want):  # grad has the type of the list of pairs
        np.testing.assert_allclose(np.asarray(gw), np.asarray(ww), rtol=1e-3, atol=1e-5)
        np.testing.assert_allclose(np.asarray(gb), np.asarray(wb), rtol=1e-3, atol=1e-5)
    return per_call_pair(lambda: step(dparams, dx, dy), lambda: jstep(jparams, jx, jy), 500)


# -- dispatch by argument kind (issue 10) -------------------------------------------
def mul_add(x: tdx.Array, y: tdx.Array) -> tdx.Array:
    return x * y + 1.0


def mul_add3(x: tdx.Array, y: tdx.Array, z: tdx.Array) -> tdx.Array:
    return x * y + z


def scale_add(x: tdx.Array, n: int) -> tdx.Array:
    return x * n + 1.0


def jax_mul_add(x: jax.Array, y: jax.Array) -> jax.Array:
    return x * y + 1.0


def jax_mul_add3(x: jax.Array, y: jax.Array, z: jax.Array) -> jax.Array:
    return x * y + z


def jax_scale_add(x: jax.Array, n: int) -> jax.Array:
    return x * n + 1.0


def _same(a: np.ndarray) -> object:
    return a


def _scalar(a: np.ndarray) -> object:
    return float(a[0])


def _numpy_scalar(a: np.ndarray) -> object:
    return a[0]  # np.float64: strongly typed, a training loop's learning rate or step


# label, typedax argument from a NumPy value, JAX argument from it
ARG_KINDS: tuple[tuple[str, Callable[[np.ndarray], object], Callable[[np.ndarray], object]], ...] = (
    ("NumPy arrays", _same, _same),
    ("Python scalars", _scalar, _scalar),
    ("NumPy scalars", _numpy_scalar, _numpy_scalar),
    ("device arrays", tdx.device_put, jax.device_put),
    ("eager arrays", tnp.asarray, jnp.asarray),
)


def _check_same(got: object, want: object) -> None:
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
    assert np.asarray(got).dtype == np.asarray(want).dtype, (got, want)


def bench_dispatch_kinds(n: int = 5_000) -> list[tuple[str, int, float, float]]:
    """(argument kind, number of arguments, typedax s/call, JAX s/call)."""
    values = (np.linspace(0.0, 1.0, 8), np.full(8, 0.5), np.full(8, 0.25))
    # typed as plain callables: the benchmark passes every kind of argument
    tdx_fs: dict[int, Callable[..., object]] = {2: tdx.jit(mul_add), 3: tdx.jit(mul_add3)}
    jax_fs: dict[int, Callable[..., object]] = {2: jax.jit(jax_mul_add), 3: jax.jit(jax_mul_add3)}
    rows: list[tuple[str, int, float, float]] = []
    for label, to_tdx, to_jax in ARG_KINDS:
        for nargs in (2, 3):
            targs = tuple(to_tdx(v) for v in values[:nargs])
            jargs = tuple(to_jax(v) for v in values[:nargs])
            f, jf = tdx_fs[nargs], jax_fs[nargs]
            _check_same(f(*targs), jf(*jargs))
            t, j = per_call_pair(lambda: f(*targs), lambda: jf(*jargs), n)
            rows.append((label, nargs, t, j))
    # Python scalars of new values on every call: typedax remembers the
    # device buffer of a scalar value (scalar_putter), so the row above
    # measures a repeated value; here each call copies its scalars afresh
    fresh = [float(v) for v in np.random.default_rng(0).normal(size=4096)]
    for nargs in (2, 3):
        f, jf = tdx_fs[nargs], jax_fs[nargs]
        t_it, j_it = itertools.cycle(fresh), itertools.cycle(fresh)
        _check_same(f(*fresh[:nargs]), jf(*fresh[:nargs]))
        t, j = per_call_pair(
            lambda: f(*[next(t_it) for _ in range(nargs)]),
            lambda: jf(*[next(j_it) for _ in range(nargs)]), n,
        )
        rows.append(("new scalars", nargs, t, j))
    fs: Callable[..., object] = tdx.jit(scale_add, static_argnums=1)
    jfs: Callable[..., object] = jax.jit(jax_scale_add, static_argnums=1)
    x, jx = tdx.device_put(values[0]), jax.device_put(values[0])
    _check_same(fs(x, 3), jfs(jx, 3))
    t, j = per_call_pair(lambda: fs(x, 3), lambda: jfs(jx, 3), n)
    rows.append(("static argument", 2, t, j))
    return rows


def print_dispatch_kinds(rows: list[tuple[str, int, float, float]]) -> None:
    print("\ndispatch by argument kind: x * y + 1.0 (2 args), x * y + z (3 args), float64[8];")
    print("static argument: x * n + 1.0, x a device array, n = 3 static")
    print(f"{'':18s}{'args':>5s}{'typedax':>12s}{'JAX':>12s}{'ratio':>8s}{'target':>9s}")
    for label, nargs, t, j in rows:
        ratio = t / j
        ok = "ok" if ratio <= TARGET_DISPATCH_KINDS else "MISSED"
        print(f"{label:18s}{nargs:5d}{t * 1e6:9.2f} µs{j * 1e6:9.2f} µs{ratio:8.2f}"
              f"   ≤{TARGET_DISPATCH_KINDS:.2f} {ok}")


def main() -> None:
    rows = [
        ("dispatch", "µs", 1e6, bench_dispatch()),
        ("first call", "ms", 1e3, bench_first_call()),
        ("steady step", "µs", 1e6, bench_steady_step()),
    ]
    print(f"{'':14s}{'typedax':>12s}{'JAX':>12s}{'ratio':>8s}{'target':>9s}")
    for name, unit, scale, (t, j) in rows:
        ratio = t / j
        ok = "ok" if ratio <= TARGETS[name] else "MISSED"
        print(f"{name:14s}{t * scale:9.1f} {unit}{j * scale:9.1f} {unit}{ratio:8.2f}"
              f"   ≤{TARGETS[name]:.2f} {ok}")
    print_dispatch_kinds(bench_dispatch_kinds())


if __name__ == "__main__":
    main()
