"""Typed PRNG keys (``key<fry>``, JAX's extended dtype): arrays whose elements
are whole keys. Against JAX (the oracle): the jaxprs they stage, the bits
and keys they give (eager, ``jit``, ``vmap`` over key arrays, ``scan``,
``cond``, ``grad``), structural operations on key arrays, and the errors of
what keys refuse. ``primitives/keys.py`` has the primitives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
import typedax.random as tr
from typedax import lax
from typedax.core.errors import IndexingError, PrimitiveTypeError, RandomKeyError
from typedax.core.parse import parse_jaxpr
from typedax.core.typecheck import typecheck_jaxpr
from typedax.primitives import keys as K

from _examples import ci_examples, ci_some

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

SEEDS = [0, 1, 42, 2**31 - 1, 2**40 + 12345, -7]
#: the streams' seeds (each runs JAX's sampler eagerly): small, past 32 bits, negative
STREAM_SEEDS = [0, 2**40 + 12345, -7]


def words(x: object) -> np.ndarray:
    """The uint32 words of typed keys (either library's), or a plain value."""
    if isinstance(x, tdx.Array) and x.dtype == tr.key_dtype():
        return np.asarray(tr.key_data(x))
    if isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        return np.asarray(jax.random.key_data(x))
    return np.asarray(x)


def same(ours: object, theirs: object) -> None:
    a, b = words(ours), words(theirs)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    np.testing.assert_array_equal(a, b)


def prims(jaxpr_eqns: Any) -> list[str]:
    return [e.primitive.name for e in jaxpr_eqns]


# -- the jaxprs ----------------------------------------------------------------------------
STAGED: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("split", lambda r, k: r.split(k)),
    ("split 4, index", lambda r, k: r.split(k, 4)[1]),
    ("fold_in", lambda r, k: r.fold_in(k, 3)),
    ("bits", lambda r, k: r.bits(k, (3,), np.uint32)),
    ("key_data and wrap", lambda r, k: (r.key_data(k), r.wrap_key_data(r.key_data(k)))),
]


@pytest.mark.parametrize("name,f", STAGED, ids=[n for n, _ in STAGED])
def test_jaxprs_stage_jaxs_key_primitives(name: str, f: Callable[[Any, Any], Any]) -> None:
    ours = tdx.make_jaxpr(lambda k: f(tr, k))(tr.key(0))
    theirs = jax.make_jaxpr(lambda k: f(jax.random, k))(jax.random.key(0))
    assert prims(ours.jaxpr.eqns) == prims(theirs.jaxpr.eqns)
    assert [str(v.aval) for v in ours.jaxpr.in_binders] == ["key<fry>[]"]
    theirs_out = [str(v.aval).replace("u32", "uint32") for v in theirs.jaxpr.outvars]
    assert [str(v.aval) for v in ours.jaxpr.outs] == theirs_out


def test_traced_seed_stages_random_seed() -> None:
    ours = tdx.make_jaxpr(tr.key)(3)
    assert prims(ours.jaxpr.eqns) == prims(jax.make_jaxpr(jax.random.key)(3).jaxpr.eqns) == ["random_seed"]
    assert 'random_seed [ impl="fry" ]' in str(ours) and "key<fry>[]" in str(ours)
    # a raw key of a traced seed: the typed key's words, as JAX stages it
    raw = tdx.make_jaxpr(tr.PRNGKey)(np.int64(3))
    assert prims(raw.jaxpr.eqns) == prims(jax.make_jaxpr(jax.random.PRNGKey)(3).jaxpr.eqns) == [
        "random_seed", "random_unwrap"
    ]


def test_printed_key_jaxpr_parses_back() -> None:
    def f(k: tdx.Array) -> tuple[tdx.Array, tdx.Array]:
        ks = tr.split(k, 3)
        return ks[::-1], tr.bits(tr.fold_in(ks[0], 5), (2,), np.uint32)

    closed = tdx.make_jaxpr(f)(tr.key(0))
    text = str(closed.jaxpr)
    again = parse_jaxpr(text)
    typecheck_jaxpr(again)
    assert str(again) == text
    assert "key<fry>[3]" in text and "random_fold_in" in text


# -- the streams ---------------------------------------------------------------------------
SAMPLERS: list[tuple[str, Callable[[Any, Any], Any], bool]] = [
    ("split", lambda r, k: r.split(k, 3), True),
    ("fold_in", lambda r, k: r.fold_in(k, 2**31 + 5), True),
    ("bits32", lambda r, k: r.bits(k, (5,), np.uint32), True),
    ("bits8", lambda r, k: r.bits(k, (2, 3), np.uint8), True),
    ("bits64", lambda r, k: r.bits(k, (4,)), True),
    ("uniform", lambda r, k: r.uniform(k, (6,)), True),
    ("randint", lambda r, k: r.randint(k, (6,), -3, 100), True),
    ("permutation", lambda r, k: r.permutation(k, 7), True),
    ("normal", lambda r, k: r.normal(k, (6,)), False),
    ("gamma", lambda r, k: r.gamma(k, 2.5, (4,)), False),
]


def close(ours: object, theirs: object, exact: bool) -> None:
    if exact:
        same(ours, theirs)
    else:
        np.testing.assert_allclose(words(ours), words(theirs), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name,f,exact", SAMPLERS, ids=[n for n, _, _ in SAMPLERS])
def test_streams_match_jax_eager_jit_and_vmap(name: str, f: Callable[[Any, Any], Any], exact: bool) -> None:
    # ci: eager, and two of the four other ways (each compiles), rotating over the samplers;
    # make test-long runs all four for every sampler
    ways = set(ci_some(["jit", "raw", "vmap", "jit_vmap"], 2 * [n for n, _, _ in SAMPLERS].index(name) + 2, 2))
    for seed in STREAM_SEEDS:
        k, jk = tr.key(seed), jax.random.key(seed)
        want = f(jax.random, jk)
        close(f(tr, k), want, exact)
        if "jit" in ways:
            close(tdx.jit(lambda kk: f(tr, kk))(k), want, exact)
        if "raw" in ways:  # the typed key gives what the raw key with the same words gives
            close(f(tr, tr.PRNGKey(seed)), words(want), exact)
    if ways & {"vmap", "jit_vmap"}:
        ks, jks = tr.split(tr.key(3), 4), jax.random.split(jax.random.key(3), 4)
        want = jax.vmap(lambda kk: f(jax.random, kk))(jks)
        if "vmap" in ways:
            close(tdx.vmap(lambda kk: f(tr, kk))(ks), want, exact)
        if "jit_vmap" in ways:
            close(tdx.jit(tdx.vmap(lambda kk: f(tr, kk)))(ks), want, exact)


# ci: 6 examples (each runs JAX's eager split and bits, ~0.1 s); make test-long runs 25
@ci_examples(6, otherwise=25)
@given(st.integers(-(2**63), 2**63 - 1), st.lists(st.integers(0, 4), min_size=0, max_size=3))
def test_split_and_bits_of_any_seed_and_shape(seed: int, shape: list[int]) -> None:
    s = tuple(shape)
    same(tr.split(tr.key(seed), s), jax.random.split(jax.random.key(seed), s))
    same(tr.bits(tr.key(seed), s, np.uint32), jax.random.bits(jax.random.key(seed), s, np.uint32))


def test_key_arrays_of_any_shape_in_the_primitives() -> None:
    # random_bits / split / fold_in on a (2, 3) key array: each key on its own
    ks = tr.split(tr.key(9), (2, 3))
    bits = K.random_bits(ks, 32, (4,))
    assert bits.shape == (2, 3, 4)
    for i in range(2):
        for j in range(3):
            same(bits[i, j], tr.bits(ks[i, j], (4,), np.uint32))
    got = tdx.jit(lambda k: (K.random_split(k, (2,)), K.random_fold_in(k, np.full((2, 3), 7, np.uint32))))(ks)
    same(got[0][1, 2], tr.split(ks[1, 2], 2))
    same(got[1][0, 1], tr.fold_in(ks[0, 1], 7))
    same(tdx.jit(lambda k: K.random_bits(k, 32, (4,)))(ks), bits)


# -- key arrays as arrays ----------------------------------------------------------------
STRUCTURAL: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("index", lambda m, ks: ks[2]),
    ("negative index", lambda m, ks: ks[-1]),
    ("slice with step", lambda m, ks: ks[3:0:-2]),
    ("integer array", lambda m, ks: ks[np.array([4, 0, 4])]),
    ("reshape and transpose", lambda m, ks: ks[:4].reshape(2, 2).T),
    ("stack", lambda m, ks: m.stack([ks[1], ks[0]])),
    ("concatenate", lambda m, ks: m.concatenate([ks, ks[:2]])),
    ("where", lambda m, ks: m.where(np.array([True, False, True, False, True]), ks, ks[::-1])),
    ("at set", lambda m, ks: ks.at[1].set(ks[3])),
    ("take out of bounds", lambda m, ks: m.take(ks, np.array([3, 9]))),
    ("broadcast_to", lambda m, ks: m.broadcast_to(ks[1], (2, 3))),
    ("expand_dims", lambda m, ks: ks[None, :, None]),
    ("flip", lambda m, ks: m.flip(ks)),
]


@pytest.mark.parametrize("name,f", STRUCTURAL, ids=[n for n, _ in STRUCTURAL])
def test_structural_operations_on_key_arrays(name: str, f: Callable[[Any, Any], Any]) -> None:
    ks, jks = tr.split(tr.key(5), 5), jax.random.split(jax.random.key(5), 5)
    want = f(jnp, jks)
    same(f(tnp, ks), want)
    same(tdx.jit(lambda k: f(tnp, k))(ks), want)


def test_dynamic_slices_and_iteration() -> None:
    ks, jks = tr.split(tr.key(1), 5), jax.random.split(jax.random.key(1), 5)
    i = np.int32(2)
    cases: list[Callable[[Any, Any, Any], Any]] = [
        lambda m, k, i: m.dynamic_slice(k, (i,), (2,)),
        lambda m, k, i: m.dynamic_update_slice(k, k[:1], (i,)),
        lambda m, k, i: m.dynamic_index_in_dim(k, i, keepdims=False),
    ]
    for g in cases:
        want = g(jax.lax, jks, i)
        same(g(lax, ks, i), want)
        same(tdx.jit(lambda k, j: g(lax, k, j))(ks, i), want)
    for a, b in zip(ks, jks):
        same(a, b)
    assert len(ks) == 5 and ks.shape == (5,) and ks.ndim == 1 and ks[0].shape == ()


def test_equality_is_per_key() -> None:
    k = tr.key(0)
    assert bool(k == tr.key(0)) and bool(k != tr.key(1)) and not bool(k == tr.key(1))
    np.testing.assert_array_equal(np.asarray(tr.split(k, 3) == tr.split(k, 3)), [True] * 3)
    got = tdx.jit(lambda a, b: a == b)(tr.split(k, 3), tr.split(k, 3)[::-1])
    np.testing.assert_array_equal(np.asarray(got), [False, True, False])


def test_keys_through_scan_cond_while_and_grad() -> None:
    def step(r: Any, np_: Any, lax_: Any) -> Callable[[Any], Any]:
        def body(carry: Any, k: Any) -> Any:
            key, total = carry
            key, sub = r.split(key)
            return (key, total + r.normal(sub) + r.uniform(k)), r.fold_in(k, 1)

        def run(key: Any) -> Any:
            (key, total), ys = lax_.scan(body, (key, 0.0), r.split(key, 4))
            picked = lax_.cond(total > 0, lambda: ys[0], lambda: ys[1])
            n, last = lax_.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, r.split(c[1])[0]), (0, key))
            return total, ys, picked, last

        return run

    want = step(jax.random, jnp, jax.lax)(jax.random.key(11))
    for got in (step(tr, tnp, lax)(tr.key(11)), tdx.jit(step(tr, tnp, lax))(tr.key(11))):
        np.testing.assert_allclose(np.asarray(got[0]), np.asarray(want[0]), rtol=1e-13)
        for a, b in zip(got[1:], want[1:]):
            same(a, b)

    def loss(w: Any, key: Any, r: Any) -> Any:
        noise = r.normal(key, (3,))
        return (w * noise).sum() ** 2

    g = tdx.grad(loss)(tnp.asarray([1.0, 2.0, 3.0]), tr.key(4), tr)
    jg = jax.grad(loss)(jnp.asarray([1.0, 2.0, 3.0]), jax.random.key(4), jax.random)
    np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-12)
    jit_g = tdx.jit(tdx.grad(lambda w, k: loss(w, k, tr)))(tnp.asarray([1.0, 2.0, 3.0]), tr.key(4))
    np.testing.assert_allclose(np.asarray(jit_g), np.asarray(jg), rtol=1e-12)


def test_vmap_over_words_and_seeds() -> None:
    data = np.asarray(tr.key_data(tr.split(tr.key(2), 4)))  # (4, 2)
    # the batch axis on the words' axis of the data: wrap_key_data moves it first
    got = tdx.vmap(tr.wrap_key_data, in_axes=1)(data.T.copy())
    same(got, tr.wrap_key_data(data))
    seeds = np.array([0, 5, -1, 2**40], np.int64)
    same(tdx.vmap(tr.key)(seeds), jax.vmap(jax.random.key)(seeds))
    same(tdx.jit(tdx.vmap(tr.key))(seeds), jax.vmap(jax.random.key)(seeds))


def test_repr_and_pytrees() -> None:
    k = tr.key(42)
    assert repr(k) == str(k)
    assert repr(k).startswith("Array((), dtype=key<fry>) overlaying:")
    assert repr(k).split(":", 1)[1].split() == repr(jax.random.key(42)).split(":", 1)[1].split()
    leaves = tdx.tree.leaves({"k": k, "w": 1.0})
    assert any(leaf is k for leaf in leaves)  # a key array is a leaf, as every array


# -- what keys refuse -----------------------------------------------------------------------
REFUSED: list[tuple[str, Callable[[Any], Any], str]] = [
    ("add", lambda ks: ks + 1, "do not combine with other types"),
    ("sum", lambda ks: tnp.sum(ks), "reduce_sum does not accept typed PRNG keys"),
    ("mean", lambda ks: tnp.mean(ks), "typed PRNG keys"),
    ("astype", lambda ks: ks.astype(np.float32), "convert_element_type does not accept typed PRNG keys"),
    ("sort", lambda ks: lax.sort(ks), "sort does not accept typed PRNG keys"),
    ("at add", lambda ks: ks.at[1].add(ks[0]), "scatter-add does not accept typed PRNG keys"),
    ("pad", lambda ks: tnp.pad(ks, 1), "pad does not accept typed PRNG keys"),
    ("compare with an int", lambda ks: ks == 1, "compares typed PRNG keys only with keys"),
    ("round", lambda ks: tnp.round(ks), "round does not accept typed PRNG keys"),  # JAX refuses too
    ("unique", lambda ks: tnp.unique(ks, size=4), "unique does not accept typed PRNG keys"),
]


@pytest.mark.parametrize("name,f,match", REFUSED, ids=[n for n, _, _ in REFUSED])
def test_keys_refuse_arithmetic_and_conversions(name: str, f: Callable[[Any], Any], match: str) -> None:
    ks = tr.split(tr.key(0), 4)
    with pytest.raises(PrimitiveTypeError, match=match):
        f(ks)
    with pytest.raises(PrimitiveTypeError, match=match):
        tdx.jit(f)(ks)


def test_numbers_never_become_keys() -> None:
    ks = tr.split(tr.key(1), 3)
    cases: list[tuple[Callable[[], Any], type[Exception], str]] = [
        (lambda: ks.at[0].set(7), IndexingError, "must be keys"),
        (lambda: ks.at[0:2].set(tnp.asarray(np.array([5, 6], np.uint32))), IndexingError, "must be keys"),
        (lambda: tnp.zeros(3).at[0].set(ks[0]), IndexingError, "keys update only keys"),
        (lambda: lax.convert_element_type(tnp.arange(3, dtype=np.uint32), tr.key_dtype()),
         PrimitiveTypeError, "cannot be converted to typed PRNG keys"),
        (lambda: tnp.arange(3, dtype=np.uint32).astype(tr.key_dtype()), PrimitiveTypeError, "typed PRNG keys"),
        (lambda: lax.bitcast_convert_type(tnp.arange(2, dtype=np.uint64), tr.key_dtype()),
         PrimitiveTypeError, "typed PRNG keys"),
        (lambda: tnp.asarray([1, 2], dtype=tr.key_dtype()), PrimitiveTypeError, "typed PRNG keys"),
        (lambda: ks.at[np.array([0, 7])].get(mode="fill", fill_value=5), PrimitiveTypeError, "fill_value"),
    ]
    for f, err, match in cases:
        with pytest.raises(err, match=match):
            f()
        with pytest.raises(err, match=match):
            tdx.jit(f)()
    for convert in (bool, int, float, complex):
        with pytest.raises(TypeError, match="typed PRNG key array"):
            convert(ks[0])
    with pytest.raises(TypeError, match="key_data"):
        ks.tolist()
    with pytest.raises(TypeError, match="key_data"):
        ks[0].item()
    assert f"{ks[0]}" == repr(ks[0])


def test_equality_broadcasts_and_numpy_keys_are_keys() -> None:
    k = tr.key(0)
    ks, jks = tr.split(k, (2, 3)), jax.random.split(jax.random.key(0), (2, 3))
    row, jrow = tr.split(k, 3), jax.random.split(jax.random.key(0), 3)
    for a, b, ja, jb in ((ks, row, jks, jrow), (row, row[1], jrow, jrow[1])):
        np.testing.assert_array_equal(np.asarray(a == b), np.asarray(ja == jb))
        np.testing.assert_array_equal(np.asarray(tdx.jit(lambda x, y: x != y)(a, b)), np.asarray(ja != jb))
    with pytest.raises(PrimitiveTypeError, match="do not broadcast"):
        tr.split(k, 3) == tr.split(k, 2)
    # the NumPy value of keys (a structured array) is taken as keys, eagerly as under jit
    host = np.asarray(row)
    same(tr.split(host[1]), jax.random.split(jrow[1]))
    same(tr.key_data(host), jax.random.key_data(jrow))


def test_select_n_on_keys_with_an_integer_selector() -> None:
    a, b, c = (tr.split(tr.key(s), 3) for s in (1, 2, 3))
    ja, jb, jc = (jax.random.split(jax.random.key(s), 3) for s in (1, 2, 3))
    which = np.array([0, 2, 1], np.int32)
    want = jax.lax.select_n(which, ja, jb, jc)
    same(lax.select_n(which, a, b, c), want)
    same(tdx.jit(lax.select_n)(which, a, b, c), want)


def test_key_errors() -> None:
    k = tr.key(0)
    # NumPy sees a structured element per key (JAX refuses the conversion)
    np.testing.assert_array_equal(np.asarray(tr.split(k, 2))["fry"], np.asarray(tr.key_data(tr.split(k, 2))))
    with pytest.raises(RandomKeyError, match="expected key data"):
        tr.wrap_key_data(k)
    with pytest.raises(RandomKeyError, match="uint32 array with last dimension 2"):
        tr.wrap_key_data(np.zeros((3,), np.uint32))
    with pytest.raises(RandomKeyError, match="single key.*shape \\(2,\\)"):
        tr.normal(tr.split(k, 2), (3,))
    with pytest.raises(PrimitiveTypeError, match="bit_width"):
        K.random_bits(k, 12, (2,))
    with pytest.raises(PrimitiveTypeError, match="random_bits takes an array of typed PRNG keys"):
        K.random_bits(np.zeros(2, np.uint32), 32, (2,))
    with pytest.raises(PrimitiveTypeError, match="random_fold_in takes keys and uint32 data"):
        K.random_fold_in(k, np.int32(3))
    with pytest.raises(PrimitiveTypeError, match="random_seed takes integer seeds"):
        K.random_seed(np.float32(1.0))
    with pytest.raises(TypeError):
        hash(k)
