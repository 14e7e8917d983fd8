"""Indexing and indexed updates under every transformation: ``x[...]`` with
NumPy's rules, ``x.at[idx].set/add/...`` (arrays never change in place), the
primitives each becomes, and an embedding lookup trained by gradient."""

from __future__ import annotations

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import Array


def gets() -> None:
    print("== x[...]: NumPy's indexing, JAX's out-of-bounds rules")
    x = tnp.asarray(np.arange(12.0).reshape(3, 4))
    print("x[1]          =", x[1])
    print("x[:, ::-2]    =", x[:, ::-2].tolist())
    print("x[None, 1, 2] =", x[None, 1, 2])
    print("x[x > 6]      =", x[np.asarray(x) > 6])
    ids = np.asarray([2, 0, -1])
    print("x[ids, 1]     =", x[ids, 1], "(negative entries wrap)")
    print("x[[7], 0] clamps as JAX does:", x[np.asarray([7]), 0])
    print("x.at[7, 0].get(mode='fill') =", x.at[7, 0].get(mode="fill"))
    # what each index becomes when staged: static slices never gather
    print("\nstaged x[1:3, 0]:", tdx.make_jaxpr(lambda x: x[1:3, 0])(x))
    print("staged x[i] (traced i):", tdx.make_jaxpr(lambda x, i: x[i])(x, np.int32(1)))
    print("staged x[ids]:", tdx.make_jaxpr(lambda x, i: x[i])(x, ids))


def updates() -> None:
    print("\n== x.at[idx]: a new array; x is unchanged")
    x = tnp.zeros(5)
    y = x.at[1:3].set(7.0)
    print("x.at[1:3].set(7.0)      =", y.tolist(), " x =", x.tolist())
    print("x.at[[0, 0, 4]].add(1.0) =", x.at[np.asarray([0, 0, 4])].add(1.0).tolist(), "(repeats add up)")
    print("x.at[9].set(1.0)        =", x.at[9].set(1.0).tolist(), "(out of bounds: dropped)")
    z = tdx.jit(lambda v, i: v.at[i].multiply(3.0))(tnp.ones(4), np.int32(2))
    print("jit: ones.at[2].multiply(3) =", z.tolist())
    rows = tdx.vmap(lambda v, i: v.at[i].set(-1.0))(np.zeros((3, 4)), np.asarray([0, 1, 3]))
    print("vmap over rows and indices:\n", np.asarray(rows))


def embedding() -> None:
    """Fit an embedding table so that ``table[ids]`` matches targets: the
    gradient of a gather is a scatter-add into the table."""
    print("\n== an embedding trained with jit(grad): gather forward, scatter-add back")
    rng = np.random.default_rng(0)
    vocab, dim = 10, 3
    ids_np = rng.integers(0, vocab, 32).astype(np.int32)
    want = rng.normal(size=(vocab, dim))
    ids, targets = tnp.asarray(ids_np), tnp.asarray(want[ids_np])

    def loss(table: Array, ids: Array, targets: Array) -> Array:
        d = table[ids] - targets
        return tnp.mean(d * d)

    step = tdx.jit(tdx.value_and_grad(loss))
    table = tnp.zeros((vocab, dim))
    for _ in range(200):
        value, g = step(table, ids, targets)
        table = table - 5.0 * g
    seen = np.unique(ids_np)
    err = float(np.max(np.abs(np.asarray(table)[seen] - want[seen])))
    print(f"loss {float(value):.2e}; max error on the ids seen: {err:.1e}")
    assert err < 1e-3, err
    unseen = np.setdiff1d(np.arange(vocab), seen)
    assert np.all(np.asarray(table)[unseen] == 0.0), "rows never looked up get no gradient"


def main() -> None:
    gets()
    updates()
    embedding()


if __name__ == "__main__":
    main()
