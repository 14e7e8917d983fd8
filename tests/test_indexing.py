"""NumPy indexing (``x[idx]``) and indexed updates (``x.at[idx]``) against
JAX itself, over generated index expressions: eager, under ``jit`` (integer
arrays traced), ``vmap`` (against a loop) and ``grad`` (against the
written-out scatter-add of the cotangent)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import IndexingError

from _examples import ci_examples

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

Arr = np.ndarray[Any, np.dtype[Any]]
#: One index element: an int, a slice, None, Ellipsis, or a NumPy array.
Index = tuple[object, ...]


@st.composite
def shapes(draw: st.DrawFn) -> tuple[int, ...]:
    return tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))


@st.composite
def indices(draw: st.DrawFn, shape: tuple[int, ...], *, in_bounds: bool = True) -> Index:
    """An index expression for ``shape``: integers, slices with steps, None,
    one Ellipsis, integer arrays (broadcasting), a boolean mask."""
    out: list[object] = []
    axis = 0
    ellipsis = False
    adv_shape = draw(st.sampled_from([(), (2,), (3,), (2, 1), (1, 3)]))
    while axis < len(shape):
        n = shape[axis]
        kind = draw(st.sampled_from(["int", "slice", "slice", "array", "none", "ellipsis", "mask", "stop"]))
        lo, hi = (-n, n - 1) if in_bounds else (-n - 3, n + 3)
        if kind == "int":
            out.append(draw(st.integers(lo, hi)))
            axis += 1
        elif kind == "slice":
            bound = st.none() | st.integers(-n - 2, n + 2)
            step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            out.append(slice(draw(bound), draw(bound), step))
            axis += 1
        elif kind == "array":
            vals = draw(st.lists(st.integers(lo, hi), min_size=int(np.prod(adv_shape)),
                                 max_size=int(np.prod(adv_shape))))
            out.append(np.asarray(vals, dtype=draw(st.sampled_from([np.int32, np.int64]))).reshape(adv_shape))
            axis += 1
        elif kind == "none":
            out.append(None)
        elif kind == "ellipsis" and not ellipsis:
            ellipsis = True
            out.append(Ellipsis)
            skip = draw(st.integers(0, len(shape) - axis))
            axis += skip
        elif kind == "mask":
            out.append(np.asarray(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
            axis += 1
        elif kind == "stop" and not ellipsis:
            # (after an ellipsis every axis must be named, or the ellipsis
            # would stand for more axes than drawn and shift the rest)
            break
    return tuple(out)


def _split(idx: Index) -> tuple[list[Arr], Callable[[Sequence[object]], Index]]:
    """The integer arrays of ``idx`` (to pass traced) and how to put them back."""
    arrays = [i for i in idx if isinstance(i, np.ndarray) and i.dtype != np.bool_]

    def rebuild(vals: Sequence[object]) -> Index:
        it = iter(vals)
        return tuple(next(it) if isinstance(i, np.ndarray) and i.dtype != np.bool_ else i for i in idx)

    return arrays, rebuild


@st.composite
def cases(draw: st.DrawFn, *, in_bounds: bool = True) -> tuple[Arr, Index]:
    shape = draw(shapes())
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) + 0.5
    return x, draw(indices(shape, in_bounds=in_bounds))


def _structure(idx: Index) -> Hashable:
    """``idx`` with its integer arrays reduced to their shapes and dtypes:
    two indices of one structure differ only in the integer arrays' values."""
    def part(i: object) -> Hashable:
        if isinstance(i, np.ndarray):
            return ("mask", i.shape, i.tobytes()) if i.dtype == np.bool_ else ("array", i.shape, i.dtype.str)
        if isinstance(i, slice):
            return ("slice", i.start, i.stop, i.step)
        return i  # an int, None or Ellipsis

    return tuple(part(i) for i in idx)


_JAX_JITTED: dict[Hashable, Callable[..., Any]] = {}


def _jax_jitted(idx: Index, what: Hashable, make: Callable[[Callable[[Sequence[object]], Index]], Callable[..., Any]]
                ) -> Callable[..., Any]:
    """JAX's oracle ``jax.jit(make(rebuild))`` for ``idx``, whose integer
    arrays are passed traced (``rebuild`` puts them back into the index;
    the boolean masks stay concrete, as JAX needs): one compilation per index
    structure and shapes, shared by the examples and calls that repeat them,
    instead of JAX's eager dispatch compiling each of its operations."""
    key = (what, _structure(idx))
    f = _JAX_JITTED.get(key)
    if f is None:
        _, rebuild = _split(idx)
        f = _JAX_JITTED[key] = jax.jit(make(rebuild))
    return f


def _jax_take(x: Arr, idx: Index) -> Arr:
    """JAX's ``x[idx]`` (raising JAX's error when JAX refuses it)."""
    arrays, _ = _split(idx)
    return np.asarray(_jax_jitted(idx, "get", lambda rebuild: lambda v, *a: v[rebuild(a)])(x, *arrays))


def _jax_get(x: Arr, idx: Index) -> Arr | None:
    """JAX's ``x[idx]``, or None when JAX refuses it."""
    try:
        return _jax_take(x, idx)
    except (IndexError, TypeError, ValueError):
        return None


# ci: 25 examples (each example compiles with XLA or runs JAX); make test-long runs 100
@ci_examples(25, otherwise=100, deadline=None)
@given(cases())
def test_get_matches_jax_eager_and_jit(case: tuple[Arr, Index]) -> None:
    x, idx = case
    want = _jax_get(x, idx)
    if want is None:
        with pytest.raises((IndexError, TypeError)):
            tnp.asarray(x)[idx]
        return
    np.testing.assert_array_equal(np.asarray(tnp.asarray(x)[idx]), want)
    arrays, rebuild = _split(idx)
    got = tdx.jit(lambda x, *a: x[rebuild(a)])(x, *arrays)
    np.testing.assert_array_equal(np.asarray(got), want)


# ci: 25 examples (each example compiles with XLA or runs JAX); make test-long runs 100
@ci_examples(25, otherwise=100, deadline=None)
@given(cases(in_bounds=False))
def test_out_of_bounds_arrays_clamp_as_jax(case: tuple[Arr, Index]) -> None:
    """Integer arrays and static integers out of range clamp (JAX's default
    gather mode; JAX's check_static_indices is off by default)."""
    x, idx = case
    want = _jax_get(x, idx)
    if want is None:
        with pytest.raises((IndexError, TypeError)):
            tnp.asarray(x)[idx]
        return
    np.testing.assert_array_equal(np.asarray(tnp.asarray(x)[idx]), want)
    arrays, rebuild = _split(idx)
    got = tdx.jit(lambda x, *a: x[rebuild(a)])(x, *arrays)
    np.testing.assert_array_equal(np.asarray(got), want)


@settings(deadline=None, max_examples=60)
@given(cases())
def test_get_under_vmap_matches_a_loop(case: tuple[Arr, Index]) -> None:
    x, idx = case
    if _jax_get(x, idx) is None:
        return
    xs = np.stack([x, 2 * x, -x])
    got = tdx.vmap(lambda v: v[idx])(xs)
    want = np.stack([_jax_take(v, idx) for v in xs])
    np.testing.assert_array_equal(np.asarray(got), want)
    # the index arrays batched instead
    arrays, rebuild = _split(idx)
    if arrays:
        batched = [np.stack([a, a[::-1] if a.ndim else a]) for a in arrays]
        got2 = tdx.vmap(lambda *a: tnp.asarray(x)[rebuild(a)])(*batched)
        want2 = np.stack([_jax_take(x, rebuild([b[k] for b in batched])) for k in range(2)])
        np.testing.assert_array_equal(np.asarray(got2), want2)


# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs 60
@ci_examples(15, otherwise=60, deadline=None)
@given(cases())
def test_grad_of_a_get_is_a_scatter_add(case: tuple[Arr, Index]) -> None:
    x, idx = case
    want_y = _jax_get(x, idx)
    if want_y is None:
        return
    w = np.cos(np.arange(want_y.size, dtype=np.float64)).reshape(want_y.shape)
    g = tdx.grad(lambda v: tnp.sum(v[idx] * w))(x)
    jax_grad = _jax_jitted(idx, "grad of get", lambda rebuild: jax.grad(lambda v, w, *a: jnp.sum(v[rebuild(a)] * w)))
    want = np.asarray(jax_grad(x, w, *_split(idx)[0]))
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-12, atol=1e-12)


# -- updates ---------------------------------------------------------------------------
_OPS = ["set", "add", "multiply", "min", "max", "subtract", "divide"]


# ci: 20 examples (each example compiles with XLA or runs JAX); make test-long runs 100
@ci_examples(20, otherwise=100, deadline=None)
@given(cases(in_bounds=False), st.sampled_from(_OPS), st.sampled_from([None, "clip", "drop"]), st.data())
def test_updates_match_jax(case: tuple[Arr, Index], op: str, mode: str | None, data: st.DataObject) -> None:
    x, idx = case
    target = _jax_get(x, idx)
    if target is None:
        return
    # updates that broadcast: the full indexed shape or its last dimension
    shape = target.shape if data.draw(st.booleans()) else target.shape[-1:]
    v = (np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) - 1.5) * 0.75
    if op == "set" and _has_duplicates(x, idx):
        return  # which of the repeated values lands is unspecified
    arrays, rebuild = _split(idx)
    jax_update = _jax_jitted(idx, ("update", op, mode),
                             lambda rb: lambda x, v, *a: getattr(x.at[rb(a)], op)(v, mode=mode))
    want = np.asarray(jax_update(x, v, *arrays))
    got = getattr(tnp.asarray(x).at[idx], op)(v, mode=mode)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-14)
    jitted = tdx.jit(lambda x, v, *a: getattr(x.at[rebuild(a)], op)(v, mode=mode))(x, v, *arrays)
    np.testing.assert_allclose(np.asarray(jitted), want, rtol=1e-14)


def _has_duplicates(x: Arr, idx: Index) -> bool:
    """Whether ``x[idx]`` names some element twice (after clamping/dropping)."""
    ids = np.arange(x.size).reshape(x.shape)
    sel = _jax_get(ids.astype(np.float64), idx)
    return sel is not None and len(np.unique(sel)) != sel.size


# ci: 15 examples (each example compiles with XLA or runs JAX); make test-long runs 60
@ci_examples(15, otherwise=60, deadline=None)
@given(cases(), st.sampled_from(["set", "add", "multiply"]))
def test_grad_of_an_update(case: tuple[Arr, Index], op: str) -> None:
    x, idx = case
    target = _jax_get(x, idx)
    if target is None or (op != "add" and _has_duplicates(x, idx)):
        return
    v = np.linspace(-1.0, 2.0, target.size).reshape(target.shape)
    w = np.sin(np.arange(x.size, dtype=np.float64)).reshape(x.shape)

    def f(x: tdx.Array, v: tdx.Array) -> tdx.Array:
        out: tdx.Array = getattr(x.at[idx], op)(v)
        return tnp.sum(out * w)

    def jf(rebuild: Callable[[Sequence[object]], Index]) -> Callable[..., Any]:
        return lambda x, v, w, *a: jnp.sum(getattr(x.at[rebuild(a)], op)(v) * w)

    arrays, _ = _split(idx)
    if op == "multiply":  # w.r.t. the values only with unique_indices (JAX raises too)
        gx = tdx.grad(f)(tnp.asarray(x), tnp.asarray(v))
        wx = _jax_jitted(idx, ("grad of update", op), lambda rb: jax.grad(jf(rb)))(x, v, w, *arrays)
        np.testing.assert_allclose(np.asarray(gx), np.asarray(wx), rtol=1e-12, atol=1e-12)
        return
    gx, gv = tdx.grad(f, argnums=(0, 1))(tnp.asarray(x), tnp.asarray(v))
    wx, wv = _jax_jitted(idx, ("grad of update", op), lambda rb: jax.grad(jf(rb), argnums=(0, 1)))(x, v, w, *arrays)
    np.testing.assert_allclose(np.asarray(gx), np.asarray(wx), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(gv), np.asarray(wv), rtol=1e-12, atol=1e-12)


def test_get_modes_fill_and_clip() -> None:
    x = np.arange(5.0)
    i = np.asarray([0, 7, -9, 4])
    jx = jnp.asarray(x)
    for mode in ("fill", "clip", "promise_in_bounds"):
        want = np.asarray(jx.at[jnp.asarray(i)].get(mode=mode))
        got = tnp.asarray(x).at[i].get(mode=mode)
        np.testing.assert_array_equal(np.asarray(got), want)
        jit_got = tdx.jit(lambda x, i: x.at[i].get(mode=mode))(x, i)
        np.testing.assert_array_equal(np.asarray(jit_got), want)
    got = tnp.asarray(x).at[i].get(mode="fill", fill_value=-1.0)
    np.testing.assert_array_equal(np.asarray(got), [0.0, -1.0, -1.0, 4.0])
    # a static integer out of range: clamped with 'clip', filled with 'fill'
    assert float(tnp.asarray(x).at[9].get(mode="clip")) == 4.0
    assert np.isnan(float(tnp.asarray(x).at[9].get(mode="fill")))


def test_static_basic_indices_do_not_gather() -> None:
    """x[1:3], x[0], x[::-1, None] stage slice/rev/squeeze, never a gather;
    a traced scalar index stages dynamic_slice."""
    x = np.zeros((4, 5))
    text = str(tdx.make_jaxpr(lambda x: x[1:3, 0] + x[3:1:-1, 2])(x))
    assert "gather" not in text and "slice" in text and "rev" in text
    text = str(tdx.make_jaxpr(lambda x, i: x[i, 1:4])(x, np.int32(2)))
    assert "gather" not in text and "dynamic_slice" in text
    text = str(tdx.make_jaxpr(lambda x, i: x[i])(x, np.asarray([0, 2])))
    assert "gather" in text


def test_traced_scalar_index_wraps_negative_and_clamps() -> None:
    x = np.arange(10.0).reshape(5, 2)
    f = tdx.jit(lambda x, i: x[i])
    for i in (-1, -5, 3, 9, -9):
        want = np.asarray(jnp.asarray(x)[jnp.int32(i)])
        np.testing.assert_array_equal(np.asarray(f(x, np.int32(i))), want)


def test_at_apply_and_power() -> None:
    x = np.arange(1.0, 7.0)
    got = tnp.asarray(x).at[np.asarray([1, 3])].apply(lambda v: v * 10)
    np.testing.assert_array_equal(np.asarray(got), [1, 20, 3, 40, 5, 6])
    got = tnp.asarray(x).at[2:4].power(2.0)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(jnp.asarray(x).at[2:4].power(2.0)))


def test_the_array_is_unchanged_by_an_update() -> None:
    x = tnp.asarray(np.arange(4.0))
    y = x.at[0].set(9.0)
    assert float(y[0]) == 9.0 and float(x[0]) == 0.0


def test_integer_and_bool_arrays() -> None:
    xi = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = tnp.asarray(xi).at[1, np.asarray([0, 0, 2])].add(5)
    want = np.asarray(jnp.asarray(xi).at[1, jnp.asarray([0, 0, 2])].add(5))
    np.testing.assert_array_equal(np.asarray(got), want)
    assert got.dtype == np.int32
    xb = np.zeros(4, dtype=np.bool_)
    got_b = tnp.asarray(xb).at[np.asarray([1, 3])].set(True)
    np.testing.assert_array_equal(np.asarray(got_b), [False, True, False, True])


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "expr, message",
    [
        (lambda x: x[1.0], "integer or boolean"),
        (lambda x: x[np.asarray([0.5])], "integer or boolean"),
        (lambda x: x[[0, 1]], "non-tuple sequence"),
        (lambda x: x[0, 0, 0], "too many indices"),
        (lambda x: x[..., 0, ...], "only one ellipsis"),
        (lambda x: x[np.ones(4, bool)], "boolean mask of shape (4,) does not match"),
        (lambda x: x[::0], "step cannot be zero"),
        (lambda x: x[np.asarray([0, 1]), np.asarray([0, 1, 2])], "do not broadcast"),
        (lambda x: x["a"], "a str is not an index"),
        (lambda x: x.at[0].set(np.ones(5)), "does not broadcast to the indexed shape"),
        (lambda x: x.at[0].get(mode="wrap"), "unknown indexing mode"),
    ],
)
def test_bad_indices_are_clear_errors(expr: Callable[[Any], object], message: str) -> None:
    x = tnp.asarray(np.zeros((3, 4)))
    with pytest.raises((IndexingError, ValueError)) as info:
        expr(x)
    assert message in str(info.value)
    assert "x[" in str(info.value) or "mode" in str(info.value)


def test_traced_errors_name_the_expression() -> None:
    x = np.zeros((3, 4))
    with pytest.raises(IndexingError, match="boolean mask must be concrete"):
        tdx.jit(lambda x, m: x[m])(x, np.ones(3, bool))
    with pytest.raises(IndexingError, match="slice bounds must be static"):
        tdx.jit(lambda x, i: x[i:])(x, np.int32(1))
    # under vmap the tracer's own errors are the same, not a missing method
    with pytest.raises(IndexingError, match="integer or boolean"):
        tdx.vmap(lambda v: v[0.5])(x)


# -- static integers out of bounds (JAX's sharp bits) -----------------------------------
_STATIC_OOB: list[tuple[str, Callable[[Any], Any]]] = [
    ("x[11]", lambda x: x[11]),
    ("x[-11]", lambda x: x[-11]),
    ("x[-13, 1:3]", lambda x: x[-13, 1:3]),
    ("x[..., 9]", lambda x: x[..., 9]),
    ("x[11, None]", lambda x: x[11, None]),
    ("x[np.int32(11), ::-1]", lambda x: x[np.int32(11), ::-1]),
    ("x[11, [0, 2]]", lambda x: x[11, np.asarray([0, 2])]),
    ("get promise_in_bounds", lambda x: x.at[11, 2].get(mode="promise_in_bounds")),
    ("get clip", lambda x: x.at[-13].get(mode="clip")),
    ("get fill", lambda x: x.at[11].get(mode="fill")),
    ("get drop -11", lambda x: x.at[-11, 1].get(mode="drop")),
    ("get fill_value", lambda x: x.at[1, 7].get(mode="fill", fill_value=-1.0)),
    ("set", lambda x: x.at[11].set(5.0)),
    ("set -11", lambda x: x.at[-11, 0].set(5.0)),
    ("set clip", lambda x: x.at[11, -9].set(5.0, mode="clip")),
    ("add clip -11", lambda x: x.at[-11].add(5.0, mode="clip")),
    ("add promise_in_bounds", lambda x: x.at[10].add(5.0, mode="promise_in_bounds")),
    ("mul drop", lambda x: x.at[2, 4].multiply(5.0, mode="drop")),
    ("max", lambda x: x.at[1, 4].max(100.0)),
]


@pytest.mark.parametrize("name,f", _STATIC_OOB, ids=[n for n, _ in _STATIC_OOB])
def test_static_integers_out_of_bounds_as_jax(name: str, f: Callable[[Any], Any]) -> None:
    """A static integer out of range clamps in a get (fills with 'fill'/'drop')
    and drops in an update (clamps with 'clip'), negatives wrapped once, as
    JAX's: eager, under jit and under vmap (the indexed array a batch row)."""
    x = np.arange(40.0).reshape(10, 4) + 0.5
    want = np.asarray(f(jnp.asarray(x)))
    np.testing.assert_array_equal(np.asarray(f(tnp.asarray(x))), want)
    np.testing.assert_array_equal(np.asarray(tdx.jit(f)(x)), want)
    batch = np.stack([x, -x])
    got = tdx.vmap(f)(batch)
    np.testing.assert_array_equal(np.asarray(got)[0], want)
    np.testing.assert_array_equal(np.asarray(got)[1], np.asarray(f(jnp.asarray(-x))))


def test_the_sharp_bits_example() -> None:
    """JAX's sharp-bits page: indexing clamps, and ``.at[].set`` drops."""
    x = tnp.arange(10)
    assert int(x[11]) == 9
    assert int(tdx.jit(lambda v: v[11])(x)) == 9
    np.testing.assert_array_equal(np.asarray(x.at[11].set(23)), np.arange(10))


def test_a_static_index_into_an_empty_axis_is_an_index_error() -> None:
    z = np.zeros((0, 3))
    fs: list[Callable[[Any], Any]] = [
        lambda v: v[0], lambda v: v[-1, 1], lambda v: v.at[0].get(mode="fill"),
        lambda v: v.at[0].get(mode="clip"), lambda v: v.at[0].set(1.0),
    ]
    for f in fs:
        with pytest.raises(IndexError):
            f(jnp.asarray(z))
        for g in (f, tdx.jit(f)):
            with pytest.raises(IndexingError, match="index -?[01] is out of bounds for axis 0 with size 0"):
                g(tnp.asarray(z))
    assert tnp.asarray(z)[:, 5].shape == (0,)


def test_check_static_indices_makes_the_clamp_an_error() -> None:
    """``jax_check_static_indices`` (JAX's option, off by default): a static
    get out of range with mode None/'promise_in_bounds' raises, as JAX's;
    'clip'/'fill' gets, updates and integer arrays do not check."""
    x = tnp.arange(10.0)
    tdx.config.update("jax_check_static_indices", True)
    try:
        assert tdx.config.read("check_static_indices") is True
        gets: list[Callable[[Any], Any]] = [
            lambda v: v[11], lambda v: v[-11], lambda v: v.at[10].get(mode="promise_in_bounds"),
        ]
        for f in gets:
            with pytest.raises(IndexError, match="out of bounds for axis 0 with size 10"):
                f(x)
            with pytest.raises(IndexingError, match="out of bounds for axis 0 with size 10"):
                tdx.jit(f)(np.arange(10.0))
        assert float(x.at[11].get(mode="clip")) == 9.0
        assert np.isnan(float(x.at[11].get(mode="fill")))
        np.testing.assert_array_equal(np.asarray(x.at[11].set(1.0)), np.arange(10.0))
        assert float(x[np.asarray(11)]) == 9.0
        assert float(x[-10]) == 0.0
    finally:
        tdx.config.update("jax_check_static_indices", False)
    assert tdx.config.jax_check_static_indices is False
    assert float(x[11]) == 9.0


def test_check_static_indices_is_part_of_what_jit_traced() -> None:
    """A jit traced with the option off clamps; turned on, the same jit
    raises (its traces dropped, as JAX keys its cache on the option); off
    again, it clamps."""
    f = tdx.jit(lambda v: v[11])
    x = np.arange(10.0)
    assert float(f(x)) == 9.0
    tdx.config.update("jax_check_static_indices", True)
    try:
        with pytest.raises(IndexError, match="index 11 is out of bounds"):
            f(x)
    finally:
        tdx.config.update("jax_check_static_indices", False)
    assert float(f(x)) == 9.0


def test_static_integers_out_of_bounds_beside_a_traced_index() -> None:
    """``x[5, i]`` with ``i`` traced: the static integer clamps (wrapped once),
    the traced one wraps and clamps, as JAX's dynamic_slice/gather."""
    y = np.arange(12.0).reshape(3, 4)
    fs: list[Callable[[Any, Any], Any]] = [
        lambda v, i: v[5, i], lambda v, i: v[-5, i], lambda v, i: v[i, 7, None],
        lambda v, i: v.at[5, i].get(mode="fill"), lambda v, i: v.at[-4, i].set(9.0),
    ]
    for f in fs:
        jf, tf = jax.jit(f), tdx.jit(f)
        for i in (np.int32(1), np.int32(-1), np.int32(9)):
            want = np.asarray(jf(y, i))
            np.testing.assert_array_equal(np.asarray(tf(y, i)), want)
            np.testing.assert_array_equal(np.asarray(f(tnp.asarray(y), i)), want)
