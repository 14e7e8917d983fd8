"""Issue 23 (second audit), pytrees, pickling, Python protocols and the PRNG
input range: each case gives JAX 0.10.2's answer, or raises where JAX does,
eagerly and under jit / vmap / grad where they apply."""

from __future__ import annotations

import collections
import contextlib
import copy
import functools
import os
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import random, tree, tree_util
from typedax.core.errors import ConcretizationError, RandomKeyError, RandomRangeError, TreeError

from _examples import ci_cover

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax.config.update has no annotations


def _same(ours: object, theirs: object) -> None:
    """Equal values, dtypes and weak flags (arrays), or equal Python values."""
    if isinstance(theirs, jax.Array):
        assert isinstance(ours, tdx.Array)
        assert ours.dtype == theirs.dtype
        assert ours.weak_type == theirs.weak_type
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    else:
        assert ours == theirs


# -- 1. pickling and copying keep the weak type ------------------------------------------
@pytest.mark.parametrize("value", [2.0, 3, True, np.float32(1.5), np.arange(3.0)])
@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_pickle_and_copy_keep_weak_type_dtype_and_value(value: Any, how: str) -> None:
    def round_trip(x: Any) -> Any:
        if how == "pickle":
            return pickle.loads(pickle.dumps(x))
        return copy.copy(x) if how == "copy" else copy.deepcopy(x)

    ours, theirs = round_trip(tnp.asarray(value)), round_trip(jnp.asarray(value))
    _same(ours, theirs)
    # the weak flag decides the type of arithmetic with a narrower array
    _same(tnp.ones((), tnp.float32) * ours, jnp.ones((), jnp.float32) * theirs)
    _same(tdx.jit(lambda a, b: a * b)(tnp.ones((), tnp.float32), ours),
          jax.jit(lambda a, b: a * b)(jnp.ones((), jnp.float32), theirs))


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_typed_and_raw_keys_pickle_and_copy_as_jax(how: str) -> None:
    def round_trip(x: Any) -> Any:
        if how == "pickle":
            return pickle.loads(pickle.dumps(x))
        return copy.copy(x) if how == "copy" else copy.deepcopy(x)

    ours, theirs = round_trip(random.split(random.key(7), 3)), round_trip(jax.random.split(jax.random.key(7), 3))
    assert ours.shape == theirs.shape == (3,)
    np.testing.assert_array_equal(np.asarray(random.key_data(ours)), np.asarray(jax.random.key_data(theirs)))
    assert bool(tnp.all(ours == random.split(random.key(7), 3)))
    # the loaded keys are keys: they draw JAX's numbers
    np.testing.assert_array_equal(np.asarray(random.uniform(ours[1], (4,))),
                                  np.asarray(jax.random.uniform(theirs[1], (4,))))
    raw = round_trip(random.PRNGKey(3))
    assert raw.dtype == np.uint32
    np.testing.assert_array_equal(np.asarray(raw), np.asarray(jax.random.PRNGKey(3)))


# -- 2. a tracer does not pickle ---------------------------------------------------------
@pytest.mark.parametrize("transform", ["jit", "grad", "vmap"])
def test_pickling_a_tracer_raises_as_jax(transform: str) -> None:
    seen: list[str] = []

    def f(x: Any) -> Any:
        with pytest.raises(ConcretizationError, match=r"pickling a traced value of type float64"):
            pickle.dumps(x)
        with pytest.raises(ConcretizationError):
            pickle.dumps({"params": [x, 1.0]})  # inside a pytree too
        # copies are the tracer itself (JAX's too), usable as before
        assert copy.copy(x) is x and copy.deepcopy(x) is x
        seen.append(transform)
        return x * 2.0

    def g(x: Any) -> Any:
        with pytest.raises(jax.errors.ConcretizationTypeError):
            pickle.dumps(x)
        copy.copy(x), copy.deepcopy(x)  # JAX's copies are a copy equation, not an error
        return x * 2.0

    if transform == "jit":
        _same(tdx.jit(f)(1.5), jax.jit(g)(1.5))
    elif transform == "grad":
        _same(tdx.grad(f)(1.5), jax.grad(g)(1.5))
    else:
        _same(tdx.vmap(f)(tnp.arange(3.0)), jax.vmap(g)(jnp.arange(3.0)))
    assert seen == [transform]


# -- 4. round() and divmod() ---------------------------------------------------------------
_ROUND_AND_DIVMOD: list[tuple[str, Callable[[Any], Any]]] = [
    ("round(x)", lambda x: round(x)),
    ("round(x, 1)", lambda x: round(x, 1)),
    ("round(x, 0)", lambda x: round(x, 0)),
    ("divmod(x, 2)", lambda x: divmod(x, 2)),
    ("divmod(x, 0.75)", lambda x: divmod(x, 0.75)),
    ("divmod(7, x)", lambda x: divmod(7, x)),
    ("divmod(x, x)", lambda x: divmod(x, x + 3.0)),
]


_VALUES = [np.array([-2.56, -0.5, 0.5, 1.5, 2.44, 7.0]), np.float32(2.567), 3.25, np.arange(-4, 5)]


# ci: each function on one of the values, each value under some functions (rotating); make
# test-long runs every pair
@pytest.mark.parametrize("value, name_f", ci_cover(_VALUES, _ROUND_AND_DIVMOD, ids=[
    ["value0", "value1", "3.25", "value3"], [n for n, _ in _ROUND_AND_DIVMOD]]))  # pytest's own ids
def test_round_and_divmod_as_jax(value: Any, name_f: tuple[str, Callable[[Any], Any]]) -> None:
    name, f = name_f
    if isinstance(value, np.ndarray) and value.dtype.kind == "i" and "x + 3.0" in name:
        value = value + 10  # no division by zero
    x, jx = tnp.asarray(value), jnp.asarray(value)
    for ours, theirs in [(f(x), f(jx)), (tdx.jit(f)(x), jax.jit(f)(jx))]:
        jax.tree.map(_same, ours, theirs)
    if x.ndim:
        jax.tree.map(_same, tdx.vmap(f)(x), jax.vmap(f)(jx))


@pytest.mark.parametrize("name, f", [
    ("round(x, 1)", lambda x: round(x, 1)),
    ("divmod(x, 0.75)[1]", lambda x: divmod(x, 0.75)[1]),
    ("divmod(7.0, x)[1]", lambda x: divmod(7.0, x)[1]),
    ("divmod(x, 0.75)[0]", lambda x: divmod(x, 0.75)[0] * x),
])
def test_round_and_divmod_grad_as_jax(name: str, f: Callable[[Any], Any]) -> None:
    for v in (2.56, -1.3):
        _same(tdx.grad(f)(v), jax.grad(f)(v))


def test_round_and_divmod_refuse_what_jax_refuses() -> None:
    with pytest.raises(TypeError, match="divmod"):
        divmod(tnp.arange(3.0), [1, 2, 3])  # type: ignore[operator]  # the refusal under test
    with pytest.raises(TypeError):
        divmod(jnp.arange(3.0), [1, 2, 3])  # type: ignore[operator]  # as above


# -- 3. OrderedDict and defaultdict are nodes ----------------------------------------------
def _containers() -> list[object]:
    od = collections.OrderedDict(b=1.0, a=2.0, c=[3.0, None])
    dd: collections.defaultdict[str, object] = collections.defaultdict(float, b=1.0, a=(2.0, 3.0))
    return [od, dd, {"x": od, "y": [dd, collections.OrderedDict()]}, collections.defaultdict(list)]


@pytest.mark.parametrize("t", _containers(), ids=["OrderedDict", "defaultdict", "nested", "empty"])
def test_ordered_and_default_dicts_flatten_as_jax(t: object) -> None:
    leaves, td = tree.flatten(t)
    j_leaves, j_td = jax.tree.flatten(t)
    assert leaves == j_leaves
    assert repr(td) == repr(j_td)
    assert (td.num_leaves, td.num_nodes) == (j_td.num_leaves, j_td.num_nodes)  # type: ignore[attr-defined]  # PyTreeDef has no stubs
    new = [10.0 + i for i in range(len(leaves))]
    ours, theirs = tree.unflatten(td, new), jax.tree.unflatten(j_td, new)
    assert ours == theirs
    assert repr(ours) == repr(theirs)  # the same types, in the same order
    assert tree.map(lambda x: x * 2, t) == jax.tree.map(lambda x: x * 2, t)
    paths = [(tree_util.keystr(p), x) for p, x in tree.leaves_with_path(t)]
    j_paths = [(jax.tree_util.keystr(p), x) for p, x in jax.tree_util.tree_leaves_with_path(t)]
    assert paths == j_paths
    assert [p for p, _ in tree_util.tree_flatten_with_path(t)[0]] == [
        tuple(tree_util.DictKey(k.key) if isinstance(k, jax.tree_util.DictKey) else tree_util.SequenceKey(k.idx)
              for k in p)
        for p, _ in jax.tree_util.tree_flatten_with_path(t)[0]
    ]


def test_default_dict_keeps_its_factory_and_ordered_dict_its_order() -> None:
    before: collections.defaultdict[str, object] = collections.defaultdict(list, b=1.0, a=2.0)
    dd = tree.map(lambda x: x + 1, before)
    assert type(dd) is collections.defaultdict and dd.default_factory is list
    assert list(dd) == ["a", "b"]  # keys sorted, as a dict's (and JAX's)
    od = tree.map(lambda x: x + 1, collections.OrderedDict(b=1.0, a=2.0))
    assert type(od) is collections.OrderedDict and list(od) == ["b", "a"]
    # structures differ with the order (OrderedDict) or the factory (defaultdict), as JAX's
    assert tree.structure(collections.OrderedDict(a=1, b=2)) != tree.structure(collections.OrderedDict(b=1, a=2))
    assert tree.structure(collections.OrderedDict(a=1, b=2)) != tree.structure({"a": 1, "b": 2})
    assert tree.structure(collections.defaultdict(int, a=1)) != tree.structure(collections.defaultdict(float, a=1.0))


def test_ordered_and_default_dict_errors() -> None:
    with pytest.raises(TreeError, match="node data"):
        tree.map(lambda a, b: a + b, collections.OrderedDict(a=1.0, b=2.0), collections.OrderedDict(b=1.0, a=2.0))
    with pytest.raises(ValueError):
        jax.tree.map(lambda a, b: a + b, collections.OrderedDict(a=1.0, b=2.0), collections.OrderedDict(b=1.0, a=2.0))
    with pytest.raises(TreeError, match="defaultdict whose keys cannot be sorted"):
        tree.leaves(collections.defaultdict(float, {1: 1.0, "a": 2.0}))
    with pytest.raises(TypeError):
        jax.tree.leaves(collections.defaultdict(float, {1: 1.0, "a": 2.0}))
    with pytest.raises(TreeError, match="already a pytree node"):
        tree_util.register_pytree_node(collections.OrderedDict, lambda x: ((), None), lambda a, c: collections.OrderedDict())


def test_subclasses_of_ordered_dict_stay_leaves_as_in_jax() -> None:
    class Sub(collections.OrderedDict[str, float]):
        pass

    s = Sub(a=1.0)
    assert tree.leaves(s) == jax.tree.leaves(s) == [s]


def _loss(p: Any) -> Any:
    return p["b"] * 2.0 + p["a"] ** 2 + p["c"][0] * p["a"]


@pytest.mark.parametrize("kind", ["OrderedDict", "defaultdict"])
def test_ordered_and_default_dicts_through_jit_grad_vmap(kind: str) -> None:
    def make(a: Any, b: Any, c: Any) -> Any:
        if kind == "OrderedDict":
            return collections.OrderedDict(b=b, a=a, c=[c])
        return collections.defaultdict(float, b=b, a=a, c=[c])

    p = make(tnp.asarray(1.5), tnp.asarray(-2.0), tnp.asarray(0.5))
    jp = make(jnp.asarray(1.5), jnp.asarray(-2.0), jnp.asarray(0.5))

    def check(ours: Any, theirs: Any) -> None:
        assert type(ours) is type(theirs) and list(ours) == list(theirs)
        assert tree.structure(ours) == tree.structure(make(0.0, 0.0, 0.0))
        jax.tree.map(_same, ours, theirs)

    check(tdx.grad(_loss)(p), jax.grad(_loss)(jp))
    for _ in range(4):  # the jit fast paths too
        check(tdx.jit(lambda q: tree.map(lambda x: x * 3.0, q))(p), jax.jit(lambda q: jax.tree.map(lambda x: x * 3.0, q))(jp))
    check(tdx.jit(tdx.grad(_loss))(p), jax.jit(jax.grad(_loss))(jp))
    batched = make(tnp.arange(3.0), tnp.ones(3), tnp.arange(3.0) * 2)
    j_batched = make(jnp.arange(3.0), jnp.ones(3), jnp.arange(3.0) * 2)
    check(tdx.vmap(tdx.grad(_loss))(batched), jax.vmap(jax.grad(_loss))(j_batched))
    _same(tdx.vmap(_loss)(batched), jax.vmap(_loss)(j_batched))
    # in_axes as an OrderedDict / defaultdict prefix
    axes, j_axes = make(0, None, 0), make(0, None, 0)
    out = tdx.vmap(_loss, in_axes=(axes,))(make(tnp.arange(3.0), tnp.asarray(1.0), tnp.arange(3.0)))
    j_out = jax.vmap(_loss, in_axes=(j_axes,))(make(jnp.arange(3.0), jnp.asarray(1.0), jnp.arange(3.0)))
    _same(out, j_out)


# -- 5. cyclic and too deep trees ----------------------------------------------------------
def _cyclic_list() -> object:
    a: list[object] = [1.0]
    a.append(a)
    return a


def _cyclic_dict() -> object:
    d: dict[str, object] = {"w": 1.0}
    d["k"] = [2.0, d]
    return d


def _cyclic_inner() -> object:
    inner: list[object] = []
    t = [1.0, (2.0, inner)]
    inner.append(t[1])
    return t


def _cyclic_ordered_dict() -> object:
    od: collections.OrderedDict[str, object] = collections.OrderedDict(x=1.0)
    od["self"] = od
    return od


def _deep(n: int) -> object:
    t: object = [1.0]
    for _ in range(n):
        t = [t]
    return t


_BAD_TREES: list[tuple[str, Callable[[], object], str]] = [
    ("list", _cyclic_list, r"cyclic tree: the list at the root contains itself \(it is again at \[1\]\)"),
    ("dict", _cyclic_dict, r"cyclic tree: the dict at the root contains itself \(it is again at \['k'\]\[1\]\)"),
    ("inner tuple", _cyclic_inner, r"cyclic tree: the tuple at \[1\] contains itself"),
    ("OrderedDict", _cyclic_ordered_dict, r"cyclic tree: the OrderedDict at the root contains itself"),
    ("5000 deep", lambda: _deep(5000), r"nested more than \d+ containers deep \(a list at that depth\), beyond Python's recursion limit"),
]


@functools.cache
def _jax_refusals() -> dict[str, str]:
    """What JAX raises flattening each bad tree, asked in a child process: its
    C++ flatten can leave the interpreter's recursion count broken (after a
    cyclic OrderedDict, any later call may raise RecursionError, even
    json.dumps), so the child prints one plain line per tree and exits hard."""
    script = textwrap.dedent(f"""
        import os, sys
        import jax
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_audit2_pytrees import _BAD_TREES
        for name, make, _ in _BAD_TREES:
            try:
                jax.tree.leaves(make())
                print(name + "=no error", flush=True)
            except BaseException as e:
                print(name + "=" + type(e).__name__, flush=True)
        os._exit(0)  # JAX's exit handlers fail in the broken interpreter
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    said = dict(line.split("=", 1) for line in run.stdout.splitlines() if "=" in line)
    # a tree the child said nothing about killed it (Python 3.12: JAX's C++
    # flatten of a cyclic tree overflows the C stack): JAX refuses it too
    return {name: said.get(name, f"crashed (exit {run.returncode})") for name, _, _ in _BAD_TREES}


@pytest.mark.parametrize("name, make, message", _BAD_TREES, ids=[n for n, _, _ in _BAD_TREES])
def test_cyclic_and_too_deep_trees_are_tree_errors(name: str, make: Callable[[], object], message: str) -> None:
    assert _jax_refusals()[name].startswith(("RecursionError", "SystemError", "crashed"))  # JAX's C++ flatten
    t = make()
    calls: list[Callable[[], object]] = [
        lambda: tree.leaves(t), lambda: tree.structure(t), lambda: tree.flatten(t, is_leaf=lambda x: False),
        lambda: tree.leaves_with_path(t), lambda: tree.map(lambda x: x, t),
        lambda: tree_util.tree_flatten_with_path(t), lambda: tree_util.tree_leaves(t),
    ]
    for call in calls:
        with pytest.raises(TreeError, match=message):
            call()
    # through the transformations, whose trees put the arguments in a tuple
    for transform in (tdx.jit, tdx.vmap, tdx.grad):
        with pytest.raises(TreeError, match="cyclic tree|containers deep"):
            transform(lambda x: 1.0)(t)
    # jit's fast path flattens with jaxlib first once it has seen a pytree
    # argument. Not for a cyclic dict or OrderedDict: jaxlib's C++ flatten
    # leaves the interpreter with a pending exception there (a later,
    # unrelated call raises RecursionError), which no caller can repair.
    if name in ("list", "inner tuple", "5000 deep"):
        f = tdx.jit(lambda x: x[0])
        for _ in range(3):
            f([tnp.ones(2)])
        with pytest.raises(TreeError, match="cyclic tree|containers deep"):
            f(t)
        _same(f([tnp.ones(2)]), jnp.ones(2))


def test_nesting_within_the_limit_flattens_as_jax() -> None:
    t = _deep(400)
    assert tree.leaves(t) == jax.tree.leaves(t) == [1.0]
    assert tree.structure(t).num_nodes == jax.tree.structure(t).num_nodes  # type: ignore[attr-defined]  # no stubs
    assert len(tree.leaves_with_path(t)[0][0]) == 401
    _same(tdx.jit(lambda x: cast(tdx.Array, tree.leaves(x)[0]) * 2.0)(t), jax.jit(lambda x: jax.tree.leaves(x)[0] * 2.0)(t))


def test_a_recursion_of_is_leaf_itself_is_not_called_a_cyclic_tree() -> None:
    def is_leaf(x: object) -> bool:
        return is_leaf(x)

    with pytest.raises(RecursionError):
        tree.flatten([1.0, [2.0]], is_leaf=is_leaf)


# -- 6. the PRNG's integer range -----------------------------------------------------------
@contextlib.contextmanager
def _x64(on: bool) -> Iterator[None]:
    """Both libraries with x64 ``on`` for the body, restored after."""
    jax.config.update("jax_enable_x64", on)  # type: ignore[no-untyped-call]  # jax's config is untyped
    try:
        with tdx.config.context(enable_x64=on):
            yield
    finally:
        jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # as above


@pytest.mark.parametrize("x64", [True, False])
def test_fold_in_refuses_python_ints_out_of_uint32_range_as_jax(x64: bool) -> None:
    with _x64(x64):
        for k, jk in [(random.PRNGKey(0), jax.random.PRNGKey(0)), (random.key(3), jax.random.key(3))]:
            for bad in (2**32, 2**32 + 1, -1, 2**64, -(2**40)):
                with pytest.raises(OverflowError):
                    jax.random.fold_in(jk, bad)
                calls: list[Callable[[], object]] = [
                    lambda: random.fold_in(k, bad), lambda: tdx.jit(lambda k: random.fold_in(k, bad))(k),
                    lambda: tdx.vmap(lambda k: random.fold_in(k, bad))(random.split(k, 2)),
                ]
                for call in calls:
                    with pytest.raises(RandomRangeError, match=rf"fold_in: Python integer {bad} out of bounds for uint32"):
                        call()
            # in range, NumPy integers (which wrap, as JAX's), arrays and bools: JAX's keys
            for good in (0, 2**31, 2**32 - 1, True, np.bool_(False), np.int64(2**33 + 5), np.int64(-1),
                         np.int8(-3), np.uint32(7), np.asarray(-1, np.int32)):
                ours = random.key_data(random.fold_in(k, good))
                theirs = jax.random.key_data(jax.random.fold_in(jk, good))
                np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
                ours_jit = random.key_data(tdx.jit(lambda k: random.fold_in(k, good))(k))
                np.testing.assert_array_equal(np.asarray(ours_jit), np.asarray(theirs))
            # a traced int64 out of uint32 range wraps, as JAX's
            def f(k: Any, d: Any) -> Any:
                return random.key_data(random.fold_in(k, d))

            def jf(k: Any, d: Any) -> Any:
                return jax.random.key_data(jax.random.fold_in(k, d))

            d = np.asarray([2**33 + 5, -1, 7], np.int64).astype(np.int64 if x64 else np.int32)
            np.testing.assert_array_equal(np.asarray(tdx.vmap(f, in_axes=(None, 0))(k, d)),
                                          np.asarray(jax.vmap(jf, in_axes=(None, 0))(jk, d)))


def test_fold_in_float_data_as_jax() -> None:
    """JAX converts float data to uint32 as ``jnp.asarray(data, 'uint32')``
    does: a Python float by ``int()`` (truncated; out of range an
    OverflowError, NaN a ValueError), a NumPy float by NumPy's cast, an
    array (or a traced value) by XLA's conversion."""
    k, jk = random.PRNGKey(0), jax.random.PRNGKey(0)
    for good in (2.7, 0.0, np.float32(2.7), np.float32(-1.5), np.float64(-3.0), np.float16(7.9),
                 tnp.asarray(-1.5), tnp.asarray(5e9)):
        jgood = jnp.asarray(np.asarray(good)) if isinstance(good, tdx.Array) else good
        theirs = np.asarray(jax.random.fold_in(jk, jgood))
        np.testing.assert_array_equal(np.asarray(random.fold_in(k, good)), theirs)
    for traced in (2.7, -1.5, 5e9):
        np.testing.assert_array_equal(
            np.asarray(tdx.jit(random.fold_in)(k, traced)), np.asarray(jax.jit(jax.random.fold_in)(jk, traced))
        )
    for bad, cls in ((-1.5, OverflowError), (5e9, OverflowError), (float("nan"), ValueError)):
        with pytest.raises(cls):
            jax.random.fold_in(jk, bad)
        with pytest.raises(cls):
            random.fold_in(k, bad)


@pytest.mark.parametrize("x64", [True, False])
def test_seeds_out_of_range_as_jax(x64: bool) -> None:
    with _x64(x64):
        makers: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = [
            (random.PRNGKey, jax.random.PRNGKey),
            (lambda s: random.key_data(random.key(s)), lambda s: jax.random.key_data(jax.random.key(s))),
        ]
        for make, jmake in makers:
            for bad in (2**63, 2**64, -(2**63) - 1):
                with pytest.raises(OverflowError):
                    jmake(bad)
                with pytest.raises(RandomRangeError, match="does not fit in 64 bits"):
                    make(bad)
            for good in (2**31, 2**32 + 1, -(2**31) - 1, 2**63 - 1, -(2**63), np.uint64(2**64 - 1), np.int64(2**40), -1):
                np.testing.assert_array_equal(np.asarray(make(good)), np.asarray(jmake(good)))


def test_split_with_a_negative_or_huge_num_is_an_error() -> None:
    k = random.PRNGKey(0)
    with pytest.raises(RandomKeyError, match="non-negative"):
        random.split(k, -1)
    with pytest.raises(NotImplementedError, match="more than 2\\*\\*32 - 1"):
        random.split(k, 2**40)  # JAX's is an array it cannot allocate
    assert random.split(k, 0).shape == jax.random.split(jax.random.PRNGKey(0), 0).shape == (0, 2)
