"""``jit(f, donate_argnums=..., donate_argnames=...)``: donated arguments'
buffers are aliased to outputs (XLA input-output aliasing, as JAX's
``mlir.py`` marks them), the donated ``Array``s are deleted by the call and
raise ``DeletedArrayError`` afterwards, other arguments are kept, on the
first (slow) call and on the fast dispatch path alike. JAX is the oracle for
the alias assignment, the warnings and the errors."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jax._src import core as jax_core
from jax._src.interpreters import mlir as jax_mlir

import typedax as tdx
import typedax.numpy as tnp
from test_jit_dispatch import count_slow_calls
from typedax.core.array import ArrayImpl
from typedax.core.avals import ShapedArray
from typedax.core.errors import DeletedArrayError, StaticArgumentError
from typedax.jitting import Jitted
from typedax.lowering.lower import set_up_aliases

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped




def pointer(x: tdx.Array) -> int:
    assert isinstance(x, ArrayImpl) and x._dev is not None
    p: int = x._dev.unsafe_buffer_pointer()  # type: ignore[attr-defined]  # a jaxlib array
    return p


def add_mul(x: tdx.Array, y: tdx.Array) -> tuple[tdx.Array, tdx.Array]:
    return x + y, x * 2.0


# -- outputs, deletion, aliasing -------------------------------------------------
@pytest.mark.parametrize("form", ["device", "eager"])
def test_donated_argument_is_deleted_and_outputs_are_right(form: str) -> None:
    jf = tdx.jit(add_mul, donate_argnums=0)
    slow = count_slow_calls(jf)
    make = tdx.device_put if form == "device" else tnp.asarray
    for step in range(3):  # the first call traces; the others take the fast path
        xv, yv = np.arange(3.0) + step, np.full(3, 0.5)
        x, y = make(xv), make(yv)
        s, m = jf(x, y)
        np.testing.assert_array_equal(np.asarray(s), xv + yv)
        np.testing.assert_array_equal(np.asarray(m), xv * 2.0)
        assert x.is_deleted() and not y.is_deleted()
        np.testing.assert_array_equal(np.asarray(y), yv)
        assert x.shape == (3,) and x.dtype == np.float64  # the type stays readable
    assert len(slow) == 1


def test_donated_buffer_is_reused_by_the_output() -> None:
    """XLA writes the aliased output into the donated buffer (JAX's
    ``tf.aliasing_output``): same device memory, before and after."""
    jf = tdx.jit(lambda x, y: x * y + 1.0, donate_argnums=0)
    for _ in range(2):  # slow path, then fast path
        x, y = tdx.device_put(np.arange(4.0)), tdx.device_put(np.ones(4))
        before = pointer(x)
        out = jf(x, y)
        assert pointer(out) == before
        np.testing.assert_array_equal(np.asarray(out), np.arange(4.0) + 1.0)


def test_module_marks_donations_as_jax_does() -> None:
    """The StableHLO of ``lower`` carries JAX's attributes on the same
    arguments: ``tf.aliasing_output`` for a same-type output, ``jax.buffer_donor``
    for a same-size one (here: donated f64[2,3], outputs f64[6] and f64[3])."""

    def f(a: Any, b: Any, c: Any) -> Any:
        return a.reshape(6) * 2.0, c + b

    args = (np.ones((2, 3)), np.ones(3), np.ones(3))
    ours = tdx.jit(f, donate_argnums=(0, 2)).lower(*args).as_text()
    theirs = jax.jit(f, donate_argnums=(0, 2)).lower(*args).as_text()
    for text in (ours, theirs):
        assert "%arg0: tensor<2x3xf64> {jax.buffer_donor = true}" in text, text
        assert "%arg1: tensor<3xf64>," in text, text
        assert "%arg2: tensor<3xf64> {tf.aliasing_output = 1 : i32}" in text, text


@given(
    ins=st.lists(st.tuples(st.sampled_from([(), (2,), (3,), (2, 3), (6,)]),
                           st.sampled_from(["float32", "float64", "int32"]), st.booleans()),
                 min_size=1, max_size=5),
    outs=st.lists(st.tuples(st.sampled_from([(), (2,), (3,), (2, 3), (6,)]),
                            st.sampled_from(["float32", "float64", "int32"])),
                  max_size=5),
)
def test_alias_assignment_matches_jax(
    ins: list[tuple[tuple[int, ...], str, bool]], outs: list[tuple[tuple[int, ...], str]]
) -> None:
    """``set_up_aliases`` against JAX's ``_set_up_aliases`` (one device, no
    memory kinds or layouts): the same aliases, donors and unused donations."""
    in_avals = [ShapedArray(s, np.dtype(d)) for s, d, _ in ins]
    out_avals = [ShapedArray(s, np.dtype(d)) for s, d in outs]
    donated = [d for _, _, d in ins]
    aliases, donors, unused = set_up_aliases(in_avals, out_avals, donated)
    j_aliases, j_unused, j_donors = jax_mlir._set_up_aliases(  # type: ignore[no-untyped-call]  # jax internals are untyped
        None, [jax_core.ShapedArray(s, np.dtype(d)) for s, d, _ in ins],
        [jax_core.ShapedArray(s, np.dtype(d)) for s, d in outs], donated,
        None, None, None, None, None,
    )
    assert aliases == list(j_aliases)
    assert unused == list(j_unused)
    assert donors == (list(j_donors) if j_donors is not None else [False] * len(ins))


def test_donate_argnames_and_keyword_calls() -> None:
    """Names resolve to positions and positions to names (as JAX's
    ``resolve_argnums``): a donated parameter is donated however it is passed."""

    def f(x: tdx.Array, y: tdx.Array) -> tdx.Array:
        return x - y

    by_name = tdx.jit(f, donate_argnames="x")
    by_num = tdx.jit(f, donate_argnums=0)
    assert by_name.donate_argnums == (0,) and by_num.donate_argnames == ("x",)
    for jf in (by_name, by_num):
        calls: list[Callable[[tdx.Array, tdx.Array], tdx.Array]] = [
            lambda a, b: jf(a, b), lambda a, b: jf(a, y=b), lambda a, b: jf(x=a, y=b),
        ]
        for call in calls:
            for _ in range(2):
                a, b = tdx.device_put(np.arange(3.0)), tdx.device_put(np.ones(3))
                out = call(a, b)
                np.testing.assert_array_equal(np.asarray(out), np.arange(3.0) - 1.0)
                assert a.is_deleted() and not b.is_deleted()


def test_negative_donate_argnums_counts_from_the_end() -> None:
    jf = tdx.jit(add_mul, donate_argnums=-1)
    assert jf.donate_argnums == (1,)
    x, y = tdx.device_put(np.ones(3)), tdx.device_put(np.ones(3))
    jf(x, y)
    assert y.is_deleted() and not x.is_deleted()


def test_donated_pytree_deletes_every_leaf() -> None:
    def step(params: dict[str, tdx.Array], g: tdx.Array) -> dict[str, tdx.Array]:
        return {k: v - 0.1 * g for k, v in params.items()}

    jf = tdx.jit(step, donate_argnums=0)
    slow = count_slow_calls(jf)
    for _ in range(2):
        params: dict[str, tdx.Array] = {"a": tdx.device_put(np.ones(2)), "b": tdx.device_put(np.full(2, 2.0))}
        g = tdx.device_put(np.ones(2))
        out = jf(params, g)
        np.testing.assert_allclose(np.asarray(out["a"]), 0.9)
        np.testing.assert_allclose(np.asarray(out["b"]), 1.9)
        assert params["a"].is_deleted() and params["b"].is_deleted() and not g.is_deleted()
    assert len(slow) == 1


def test_static_and_donated_arguments_together() -> None:
    def f(n: int, x: tdx.Array) -> tdx.Array:
        return x * n

    jf = tdx.jit(f, static_argnums=0, donate_argnums=1)
    slow = count_slow_calls(jf)
    for _ in range(2):
        x = tdx.device_put(np.arange(3.0))
        np.testing.assert_array_equal(np.asarray(jf(3, x)), np.arange(3.0) * 3)
        assert x.is_deleted()
    assert len(slow) == 1


def test_numpy_and_scalar_arguments_are_copied_not_deleted() -> None:
    """As in JAX: a donated NumPy array or Python scalar is copied to the
    device; the caller's value is untouched."""
    jf = tdx.jit(lambda x, s: x + s, donate_argnums=(0, 1))
    for _ in range(2):
        x = np.arange(3.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the scalar has no output to alias
            out = jf(x, 2.0)
        np.testing.assert_array_equal(np.asarray(out), np.arange(3.0) + 2.0)
        np.testing.assert_array_equal(x, np.arange(3.0))


# -- warnings and errors -------------------------------------------------------------
def test_unusable_donation_warns_and_keeps_the_array() -> None:
    """No output of the donated argument's type or size: JAX's warning, and
    (as in JAX) the argument is not consumed."""
    jf = tdx.jit(lambda x: x.sum(), donate_argnums=0)
    x = tdx.device_put(np.arange(3.0))
    with pytest.warns(UserWarning, match=r"Some donated buffers were not usable: float64\[3\]") as ours:
        out = jf(x)
    assert float(out) == 3.0 and not x.is_deleted()
    jx = jnp.arange(3.0)
    with pytest.warns(UserWarning) as theirs:
        jax.jit(lambda x: x.sum(), donate_argnums=0)(jx)
    assert str(ours[0].message) == str(theirs[0].message)
    assert not jx.is_deleted()


def jax_error(make: Callable[[], object]) -> str:
    with pytest.raises(ValueError) as e:
        make()
    return str(e.value)


def f2(x: Any, y: Any) -> Any:
    return x + y


def test_static_argument_cannot_be_donated() -> None:
    for kw in ({"static_argnums": 0, "donate_argnums": 0},
               {"static_argnames": "x", "donate_argnames": "x"},
               {"static_argnums": 0, "donate_argnames": "x"},
               {"static_argnames": "y", "donate_argnums": 1}):
        with pytest.raises(StaticArgumentError, match="cannot intersect") as e:
            tdx.jit(f2, **kw)
        assert str(e.value) == jax_error(lambda: jax.jit(f2, **kw))


def test_static_argnums_and_donate_argnums_intersect_without_a_signature() -> None:
    """No signature to read (a builtin): the numbers are compared (JAX
    compares them when it rebases the donated numbers)."""
    with pytest.raises(StaticArgumentError, match="cannot intersect"):
        tdx.jit(max, static_argnums=0, donate_argnums=0)
    with pytest.raises(StaticArgumentError, match="donate_argnums instead of donate_argnames"):
        tdx.jit(max, donate_argnames="x")


def test_bad_donate_argnums_and_argnames() -> None:
    with pytest.raises(StaticArgumentError, match="donate_argnums=.* takes only 2 positional"):
        tdx.jit(f2, donate_argnums=5)
    with pytest.raises(StaticArgumentError, match=r"donate_argnames \['z'\] are not parameters"):
        tdx.jit(f2, donate_argnames="z")
    with pytest.raises(StaticArgumentError, match="donate_argnums must be ints"):
        tdx.jit(f2, donate_argnums=("x",))  # type: ignore[arg-type]  # the wrong type on purpose
    with pytest.raises(StaticArgumentError, match="donate_argnames must be strings"):
        tdx.jit(f2, donate_argnames=(0,))  # type: ignore[arg-type]  # the wrong type on purpose
    with pytest.raises(ValueError):  # JAX refuses both too
        jax.jit(f2, donate_argnums=5)
    with pytest.raises(ValueError):
        jax.jit(f2, donate_argnames="z")


def test_using_a_deleted_array_raises() -> None:
    jf = tdx.jit(add_mul, donate_argnums=0)
    keep = tdx.jit(add_mul)
    x, y = tdx.device_put(np.ones(3)), tdx.device_put(np.ones(3))
    jf(x, y)
    keep(y, y)  # the fast path of `keep` exists now
    uses: list[Callable[[], object]] = [
        lambda: x + 1.0, lambda: np.asarray(x), lambda: repr(x), lambda: x.block_until_ready(),
        lambda: float(x.sum()), lambda: jf(x, y), lambda: keep(x, y), lambda: keep(y, x),
        lambda: tdx.jit(lambda a: a * 2)(x), lambda: x.tolist(),
    ]
    for use in uses:
        with pytest.raises(DeletedArrayError, match=r"Array has been deleted with shape=float64\[3\]"):
            use()
    assert isinstance(DeletedArrayError("m"), RuntimeError)  # what JAX raises


def test_delete_and_is_deleted() -> None:
    for x in (tnp.asarray(np.arange(3.0)), tdx.device_put(np.arange(3.0)),
              tdx.jit(lambda a: a + 1)(np.arange(3.0))):
        assert not x.is_deleted()
        x.delete()
        assert x.is_deleted()
        x.delete()  # again: nothing to do (as in JAX)
        with pytest.raises(DeletedArrayError):
            np.asarray(x)


def test_a_tracer_cannot_be_deleted() -> None:
    def f(x: tdx.Array | np.ndarray[Any, Any]) -> tdx.Array:
        assert isinstance(x, tdx.Array) and not x.is_deleted()
        with pytest.raises(TypeError, match="cannot be deleted"):
            x.delete()
        return x

    tdx.jit(f)(np.ones(2))


# -- under transformations, and a training loop --------------------------------------
def test_donation_is_ignored_under_transformations() -> None:
    """Under ``grad``/``vmap`` (or inside another jit) the call is staged;
    nothing is deleted and the values are those without donation."""
    jf = tdx.jit(lambda x: (x * x).sum(), donate_argnums=0)
    x = tdx.device_put(np.arange(3.0))
    g = tdx.grad(jf)(x)
    np.testing.assert_array_equal(np.asarray(g), 2 * np.arange(3.0))
    v = tdx.vmap(jf)(tdx.device_put(np.ones((2, 3))))
    np.testing.assert_array_equal(np.asarray(v), [3.0, 3.0])
    outer = tdx.jit(lambda x: jf(x) + 1.0)
    assert float(outer(x)) == 6.0
    assert not x.is_deleted()


def _train(donate: bool, steps: int) -> tuple[list[float], dict[str, np.ndarray[Any, Any]]]:
    def loss(p: dict[str, tdx.Array], xb: tdx.Array, yb: tdx.Array) -> tdx.Array:
        pred = tnp.tanh(xb @ p["w"] + p["b"])
        return ((pred - yb) ** 2).mean()

    def step(p: dict[str, tdx.Array], xb: tdx.Array, yb: tdx.Array) -> tuple[dict[str, tdx.Array], tdx.Array]:
        val, g = tdx.value_and_grad(loss)(p, xb, yb)
        return {k: p[k] - 0.1 * g[k] for k in p}, val

    jstep = tdx.jit(step, donate_argnums=0) if donate else tdx.jit(step)
    rng = np.random.default_rng(0)
    p: dict[str, tdx.Array] = {"w": tdx.device_put(rng.normal(size=(4, 2))), "b": tdx.device_put(np.zeros(2))}
    xb, yb = tdx.device_put(rng.normal(size=(8, 4))), tdx.device_put(rng.normal(size=(8, 2)))
    losses = []
    for _ in range(steps):
        old = p
        p, val = jstep(p, xb, yb)
        losses.append(float(val))
        assert old["w"].is_deleted() == donate and old["b"].is_deleted() == donate
    return losses, {k: np.asarray(v) for k, v in p.items()}


def test_train_step_with_donated_params_gives_the_same_numbers() -> None:
    l_don, p_don = _train(True, 6)
    l_keep, p_keep = _train(False, 6)
    assert l_don == l_keep
    for k in p_don:
        np.testing.assert_array_equal(p_don[k], p_keep[k])
    assert l_don[-1] < l_don[0]


def test_ahead_of_time_compiled_call_donates() -> None:
    jf = tdx.jit(add_mul, donate_argnums=0)
    x, y = tdx.device_put(np.ones(3)), tdx.device_put(np.ones(3))
    lowered = jf.lower(x, y)
    assert "tf.aliasing_output = 0" in lowered.as_text()
    compiled = lowered.compile()
    s, m = compiled(x, y)
    np.testing.assert_array_equal(np.asarray(s), 2.0)
    np.testing.assert_array_equal(np.asarray(m), 2.0)
    assert x.is_deleted() and not y.is_deleted()
    with pytest.raises(DeletedArrayError):
        compiled(x, y)


def test_without_donation_nothing_is_deleted() -> None:
    jf = tdx.jit(add_mul)
    x, y = tdx.device_put(np.ones(3)), tdx.device_put(np.ones(3))
    for _ in range(2):
        jf(x, y)
    assert not x.is_deleted() and not y.is_deleted()
    assert "aliasing" not in jf.lower(x, y).as_text()
