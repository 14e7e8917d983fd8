"""Small pieces of JAX's surface (issue 29): ``typedax.ops``'s segment
reductions, ``typedax.jacobian``, ``typedax.typeof``,
``typedax.test_util.check_grads`` and ``config.update`` of the JAX options
typedax does not act on; each against JAX 0.10 as the oracle."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import ops as jops
from jax import test_util as jtu

import typedax as tdx
import typedax.numpy as tnp
from typedax import ops
from typedax.core.errors import ConcretizationError
from typedax.test_util import check_grads

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

Arr = np.ndarray[Any, np.dtype[Any]]
NAMES = ("segment_sum", "segment_prod", "segment_max", "segment_min")


def _same(value: tdx.ArrayLike, want: Any) -> None:  # noqa: ANN401 - JAX's array
    got = tnp.asarray(value)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    assert got.aval.weak_type == want.aval.weak_type
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


# -- segments ------------------------------------------------------------------
CASES: list[tuple[Arr, Arr, dict[str, Any]]] = [
    (np.array([1.5, -2.0, 3.0, 4.0, 0.5]), np.array([0, 0, 2, 1, 2]), {}),
    (np.array([1.5, -2.0, 3.0, 4.0, 0.5]), np.array([0, 0, 2, 1, 2]), {"num_segments": 4}),
    (np.arange(12.0).reshape(4, 3) - 5, np.array([1, 0, 1, 1]), {"num_segments": 3}),
    (np.array([1.0, 2.0, 3.0]), np.array([-1, 1, 5]), {"num_segments": 3}),  # out of bounds: dropped
    (np.array([1.0, 2.0, 3.0]), np.array([-1, 1, 5]), {"num_segments": 3, "mode": "clip"}),
    (np.array([1.0, 2.0, 3.0, 5.0, 7.0]), np.array([0, 1, 0, 1, 1]), {"bucket_size": 2}),
    (np.array([1.0, 2.0, 3.0]), np.array([[0, 1, 0], [1, 1, 1]]), {"num_segments": 2}),
    (np.array([3, -7, 2, 9], np.int32), np.array([0, 2, 0, 2]), {}),
    (np.array([True, False, True]), np.array([0, 2, 2]), {}),
    (np.array(2.5), np.array([0, 2, 2]), {}),
    (np.array([1.0, 2.0, 3.0]), np.array([0, 0, 1]), {"indices_are_sorted": True, "num_segments": 2}),
    (np.array([1.0, 2.0, 3.0]), np.array([2, 0, 1]), {"unique_indices": True, "num_segments": 3}),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_segments_match_jax(name: str, case: int) -> None:
    data, ids, kw = CASES[case]
    mine: Callable[..., tdx.Array] = getattr(ops, name)
    theirs: Callable[..., Any] = getattr(jops, name)
    if data.dtype == bool and name in ("segment_sum", "segment_prod"):
        with pytest.raises(TypeError):
            mine(data, ids, **kw)  # scatter-add / scatter-mul take no bools, as JAX's
        return
    _same(mine(data, ids, **kw), theirs(data, ids, **kw))


@pytest.mark.parametrize("name", NAMES)
def test_segments_jit_grad_vmap(name: str) -> None:
    mine: Callable[..., tdx.Array] = getattr(ops, name)
    theirs: Callable[..., Any] = getattr(jops, name)
    data = np.array([[1.5, -2.0], [3.0, 0.25], [4.0, 4.0], [0.5, 2.0], [-1.0, 3.0]])
    ids = np.array([0, 2, 1, 2, 3])
    _same(tdx.jit(mine, static_argnums=2)(data, ids, 4), jax.jit(theirs, static_argnums=2)(data, ids, 4))

    def f(d: tdx.ArrayLike) -> tdx.Array:
        return tnp.sum(tnp.sin(mine(d, ids, num_segments=4) * 1.0 + tnp.asarray(d)[0]) * np.arange(8.0).reshape(4, 2))

    def g(d: Any) -> Any:  # noqa: ANN401 - JAX's array
        return jnp.sum(jnp.sin(theirs(d, ids, num_segments=4) * 1.0 + d[0]) * np.arange(8.0).reshape(4, 2))

    if name == "segment_prod":  # scatter-mul's JVP in the updates needs unique indices, in JAX too
        with pytest.raises(NotImplementedError):
            jax.grad(g)(data)
        with pytest.raises(NotImplementedError):
            tdx.grad(f)(data)
    else:
        _same(tdx.grad(f)(data), jax.grad(g)(data))
        _same(tdx.jit(tdx.grad(f))(data), jax.grad(g)(data))
    batch = np.stack([data, -data, 2 * data])
    _same(tdx.vmap(lambda d: mine(d, ids, num_segments=4))(batch),
          jax.vmap(lambda d: theirs(d, ids, num_segments=4))(batch))
    many_ids = np.array([ids, ids[::-1], np.zeros_like(ids)])
    _same(tdx.vmap(lambda i: mine(data, i, num_segments=4))(many_ids),
          jax.vmap(lambda i: theirs(data, i, num_segments=4))(many_ids))


def test_segment_sum_check_grads() -> None:
    ids = np.array([0, 1, 0, 2])
    check_grads(lambda d: ops.segment_sum(d, ids, num_segments=3), (np.array([1.0, 2.0, -3.0, 0.5]),), 2)
    unique = np.array([2, 0, 3, 1])
    check_grads(lambda d: ops.segment_prod(d, unique, num_segments=4, unique_indices=True),
                (np.array([1.0, 2.0, -3.0, 0.5]),), 2)
    check_grads(lambda d: ops.segment_max(d, ids, num_segments=3), (np.array([1.0, 2.0, -3.0, 0.5]),), 1)


def test_segment_errors() -> None:
    data = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match="ndarray or scalar"):
        ops.segment_sum([1.0, 2.0], np.array([0, 1]))  # type: ignore[arg-type]  # the refused input
    with pytest.raises(TypeError):
        ops.segment_sum(data, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="non-negative"):
        ops.segment_sum(data, np.array([0, 1]), num_segments=-1)
    with pytest.raises(TypeError):
        ops.segment_sum(data, np.array([0, 1]), num_segments=2.0)  # type: ignore[arg-type]  # the refused input
    with pytest.raises(ValueError, match="broadcast"):
        ops.segment_sum(np.ones(3), np.array([0, 1]), num_segments=2)
    with pytest.raises(ValueError, match="bucket_size"):
        ops.segment_sum(data, np.array([0, 1]), bucket_size=0)
    with pytest.raises(ValueError, match="mode"):
        ops.segment_sum(data, np.array([0, 1]), mode="bogus")
    with pytest.raises(ConcretizationError, match="num_segments"):
        tdx.jit(ops.segment_sum)(data, np.array([0, 1]))


# -- jacobian, typeof ----------------------------------------------------------
def test_jacobian_is_jacrev() -> None:
    assert tdx.jacobian is tdx.jacrev
    x = np.array([0.5, 1.5, -2.0])
    np.testing.assert_allclose(np.asarray(tdx.jacobian(lambda v: tnp.sin(v) * v[0])(x)),
                               np.asarray(jax.jacobian(lambda v: jnp.sin(v) * v[0])(x)), rtol=1e-12)


@pytest.mark.parametrize("value", [
    np.ones(3, np.float32), np.ones((2,), np.int8), 1.0, 2, True, 1j, np.float32(1.0), np.arange(4.0),
])
def test_typeof_matches_jax(value: Any) -> None:  # noqa: ANN401 - any value JAX's typeof takes
    mine, theirs = tdx.typeof(tnp.asarray(value) if isinstance(value, np.ndarray) else value), jax.typeof(value)
    assert isinstance(mine, tdx.ShapedArray)
    assert (mine.shape, mine.dtype, mine.weak_type) == (theirs.shape, theirs.dtype, theirs.weak_type)


def test_typeof_of_tracers_and_errors() -> None:
    seen: list[tdx.ShapedArray] = []

    def f(x: tdx.ArrayLike) -> tdx.ArrayLike:
        seen.append(tdx.typeof(x))
        return x

    tdx.jit(f)(np.ones((2, 3), np.float32))
    tdx.vmap(f)(np.ones((4, 3), np.int32))
    assert [(a.shape, a.dtype.name) for a in seen] == [((2, 3), "float32"), ((3,), "int32")]
    for bad in ([1, 2], "a", None):
        with pytest.raises(TypeError):
            tdx.typeof(bad)


# -- check_grads -----------------------------------------------------------------
def test_check_grads_passes_where_jax_passes() -> None:
    x = np.array([0.3, 1.2, -0.7])
    for order, modes in ((1, ("fwd", "rev")), (2, ("fwd", "rev", "lin"))):
        check_grads(lambda v: tnp.tanh(v) * v[0], (x,), order, modes=modes)
        jtu.check_grads(lambda v: jnp.tanh(v) * v[0], (x,), order, modes=modes)  # type: ignore[no-untyped-call]  # jax.test_util is untyped
    check_grads(lambda a, b: {"p": a * b, "q": tnp.exp(b)}, (1.5, np.array([0.5, 2.0])), 2)


def _bad_sin() -> tuple[Callable[..., Any], Callable[..., Any]]:
    mine = tdx.custom_jvp(tnp.sin)
    mine.defjvp(lambda p, t: (tnp.sin(p[0]), 2.0 * tnp.cos(p[0]) * t[0]))
    theirs = jax.custom_jvp(jnp.sin)
    theirs.defjvp(lambda p, t: (jnp.sin(p[0]), 2.0 * jnp.cos(p[0]) * t[0]))
    return mine, theirs


@pytest.mark.parametrize("modes", [("fwd",), ("rev",)])
def test_check_grads_catches_a_wrong_rule_as_jax(modes: tuple[str, ...]) -> None:
    mine, theirs = _bad_sin()
    x = (np.array([0.3, 1.2]),)
    with pytest.raises(AssertionError, match="JVP" if modes == ("fwd",) else "VJP"):
        jtu.check_grads(theirs, x, 1, modes=modes)  # type: ignore[no-untyped-call]  # jax.test_util is untyped
    with pytest.raises(AssertionError, match="JVP" if modes == ("fwd",) else "VJP"):
        check_grads(mine, x, 1, modes=modes)
    check_grads(mine, x, 1, modes=modes, atol=10.0, rtol=10.0)  # loose enough to pass, as JAX's
    jtu.check_grads(theirs, x, 1, modes=modes, atol=10.0, rtol=10.0)  # type: ignore[no-untyped-call]  # jax.test_util is untyped


# -- config.update of JAX's other options ------------------------------------------
@pytest.mark.parametrize("name", ["jax_traceback_filtering", "jax_logging_level", "jax_compilation_cache_dir"])
def test_config_update_of_an_option_typedax_ignores_warns(name: str) -> None:
    with pytest.warns(UserWarning, match=name):
        tdx.config.update(name, "off")


def test_config_update_still_refuses_unknown_names() -> None:
    with pytest.raises(AttributeError, match="jax_log_compile"):
        tdx.config.update("jax_log_compile", True)
    with pytest.raises(AttributeError):
        jax.config.update("jax_log_compile", True)  # type: ignore[no-untyped-call]  # jax's config is untyped
