"""Bad input raises what JAX raises, as far as ``except`` can tell (issue 29,
item 5): each case below runs under JAX and under typedax, and typedax's
exception must be an instance of the nearest built-in class of JAX's
(``TypeError``, ``ValueError``, ``IndexError``, ...), so an
``except ValueError:`` written for JAX catches typedax's too. typedax's own
classes (``core/errors.py``) inherit the built-in ones for that; the message
is typedax's own. Eager, and under ``jit`` where the mistake can be staged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import TypedaxError

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


@dataclass(frozen=True)
class Lib:
    """One library's names, as the cases use them."""

    np: Any
    lax: Any
    random: Any
    tree: Any
    jit: Any
    vmap: Any
    grad: Any
    jvp: Any
    jacfwd: Any
    key: Callable[[int], Any]
    make_jaxpr: Any
    checkpoint: Any


JAX = Lib(jnp, jax.lax, jax.random, jax.tree_util, jax.jit, jax.vmap, jax.grad, jax.jvp, jax.jacfwd,
          jax.random.PRNGKey, jax.make_jaxpr, jax.checkpoint)
TDX = Lib(tnp, tdx.lax, tdx.random, tdx.tree_util, tdx.jit, tdx.vmap, tdx.grad, tdx.jvp, tdx.jacfwd,
          tdx.random.PRNGKey, tdx.make_jaxpr, tdx.checkpoint)

V3 = np.ones(3)
V4 = np.ones(4)
M23 = np.ones((2, 3))
M45 = np.ones((4, 5))


def _jit(m: Lib, f: Callable[..., object], *args: object) -> object:
    """``f`` of ``args`` under the library's ``jit``."""
    return m.jit(f)(*args)


def _vjp(m: Lib) -> Any:
    return jax.vjp if m is JAX else tdx.vjp


def _linearize(m: Lib) -> Any:
    return jax.linearize if m is JAX else tdx.linearize


def _hessian(m: Lib) -> Any:
    return jax.hessian if m is JAX else tdx.hessian


def _custom_jvp(m: Lib) -> Any:
    return jax.custom_jvp if m is JAX else tdx.custom_jvp


def _body_changes_type(c: Any) -> Any:
    return c.astype("float32") if c.dtype == np.float64 else c.astype("float64")


#: (name, the bad call given a library). ``jit:`` cases stage the mistake.
CASES: list[tuple[str, Callable[[Lib], object]]] = [
    # -- shapes: broadcasting, contraction, reshape
    ("add broadcast mismatch", lambda m: m.np.add(V3, V4)),
    ("jit: add broadcast mismatch", lambda m: _jit(m, lambda a, b: a + b, V3, V4)),
    ("multiply 2-d broadcast mismatch", lambda m: m.np.multiply(M23, np.ones((3, 2)))),
    ("where broadcast mismatch", lambda m: m.np.where(V3 > 0, V3, V4)),
    ("broadcast_to", lambda m: m.np.broadcast_to(V3, (4,))),
    ("jit: where broadcast mismatch", lambda m: _jit(m, lambda a, b: m.np.where(a > 0, a, b), V3, V4)),
    ("jit: stack shape mismatch", lambda m: _jit(m, lambda a, b: m.np.stack([a, b]), V3, V4)),
    ("jit: linalg.inv non-square", lambda m: _jit(m, m.np.linalg.inv, M23)),
    ("jit: transpose bad axes", lambda m: _jit(m, lambda a: m.np.transpose(a, (0, 0)), M23)),
    ("jit: squeeze non-unit axis", lambda m: _jit(m, lambda a: m.np.squeeze(a, axis=0), M23)),
    ("lax.add shape mismatch", lambda m: m.lax.add(V3, V4)),
    ("lax.add dtype mismatch", lambda m: m.lax.add(np.float32(1), np.int32(1))),
    ("dot shape mismatch", lambda m: m.np.dot(M23, M45)),
    ("jit: dot shape mismatch", lambda m: _jit(m, m.np.dot, M23, M45)),
    ("matmul shape mismatch", lambda m: m.np.matmul(M23, M45)),
    ("einsum bad subscripts", lambda m: m.np.einsum("ij,jk->ik", M23, M45)),
    ("reshape size mismatch", lambda m: m.np.reshape(np.ones(6), (4,))),
    ("jit: reshape size mismatch", lambda m: _jit(m, lambda a: a.reshape(4), np.ones(6))),
    ("reshape two -1", lambda m: m.np.reshape(np.ones(6), (-1, -1))),
    ("concatenate shape mismatch", lambda m: m.np.concatenate([M23, M45])),
    ("stack shape mismatch", lambda m: m.np.stack([V3, V4])),
    ("split unequal", lambda m: m.np.split(np.ones(5), 2)),
    ("array_split into zero sections", lambda m: m.np.array_split(V3, 0)),
    ("split into negative sections", lambda m: m.np.split(V3, -1)),
    ("lax.slice out of bounds", lambda m: m.lax.slice(V3, (0,), (5,))),
    ("lax.dynamic_slice too large", lambda m: m.lax.dynamic_slice(V3, (0,), (5,))),
    ("broadcast_shapes mismatch", lambda m: m.np.broadcast_shapes((3,), (4,))),
    ("full shape mismatch", lambda m: m.np.full((2,), V3)),
    ("take_along_axis rank mismatch", lambda m: m.np.take_along_axis(M23, np.zeros(3, int), axis=0)),
    ("cross of 4-vectors", lambda m: m.np.cross(V4, V4)),
    ("tensordot mismatch", lambda m: m.np.tensordot(M23, M23, axes=1)),
    ("diag of a 3-d array", lambda m: m.np.diag(np.ones((2, 2, 2)))),
    ("trace of a vector", lambda m: m.np.trace(V3)),
    ("searchsorted 2-d", lambda m: m.np.searchsorted(M23, 1.0)),
    ("linalg.solve shape mismatch", lambda m: m.np.linalg.solve(np.eye(3), V4)),
    ("linalg.det non-square", lambda m: m.np.linalg.det(M23)),
    ("lax.reshape size mismatch", lambda m: m.lax.reshape(M23, (4,))),
    ("lax.pad config length", lambda m: m.lax.pad(V3, 0.0, [(1, 1, 0), (1, 1, 0)])),
    ("lax.squeeze non-unit", lambda m: m.lax.squeeze(M23, (0,))),
    ("lax.conv feature mismatch",
     lambda m: m.lax.conv(np.ones((1, 2, 5, 5)), np.ones((3, 3, 2, 2)), (1, 1), "SAME")),
    ("lax.top_k k too large", lambda m: m.lax.top_k(V3, 5)),
    ("lax.dynamic_update_slice shape", lambda m: m.lax.dynamic_update_slice(V3, V4, (0,))),
    ("lax.select shape mismatch", lambda m: m.lax.select(np.array([True, False]), V3, V3)),
    ("at set broadcast mismatch", lambda m: m.np.asarray(M23).at[0].set(np.ones(5))),
    # -- axes
    ("sum bad axis", lambda m: m.np.sum(V3, axis=2)),
    ("jit: sum bad axis", lambda m: _jit(m, lambda a: m.np.sum(a, axis=2), V3)),
    ("argmax bad axis", lambda m: m.np.argmax(M23, axis=2)),
    ("sort bad axis", lambda m: m.np.sort(M23, axis=2)),
    ("swapaxes bad axis", lambda m: m.np.swapaxes(M23, 0, 5)),
    ("expand_dims bad axis", lambda m: m.np.expand_dims(M23, 5)),
    ("fft bad axis", lambda m: m.np.fft.fft(V3, axis=2)),
    ("lax.sort bad dimension", lambda m: m.lax.sort(V3, dimension=1)),
    ("lax.cumsum bad axis", lambda m: m.lax.cumsum(V3, axis=1)),
    ("lax.expand_dims bad axis", lambda m: m.lax.expand_dims(V3, (3,))),
    ("lax.reduce bad dimensions", lambda m: m.lax.reduce(V3, 0.0, m.lax.add, (1,))),
    ("lax.dynamic_index_in_dim bad axis", lambda m: m.lax.dynamic_index_in_dim(V3, 0, axis=2)),
    ("lax.associative_scan bad axis", lambda m: m.lax.associative_scan(m.lax.add, M23, axis=2)),
    ("lax.transpose bad permutation", lambda m: m.lax.transpose(M23, (0, 0))),
    ("transpose bad axes", lambda m: m.np.transpose(M23, (0, 0))),
    ("squeeze non-unit axis", lambda m: m.np.squeeze(M23, axis=0)),
    ("moveaxis out of range", lambda m: m.np.moveaxis(M23, 2, 0)),
    ("concatenate bad axis", lambda m: m.np.concatenate([M23, M23], axis=2)),
    ("concatenate of no arrays", lambda m: m.np.concatenate([])),
    ("stack of no arrays", lambda m: m.np.stack([])),
    ("linalg.inv of a vector", lambda m: m.np.linalg.inv(V3)),
    ("linalg.eigvals non-square", lambda m: m.np.linalg.eigvals(M23)),
    ("linalg.pinv of a vector", lambda m: m.np.linalg.pinv(V3)),
    ("linalg.lstsq leading mismatch", lambda m: m.np.linalg.lstsq(M23, V3)),
    ("linalg.norm bad ord", lambda m: m.np.linalg.norm(M23, ord="fro", axis=0)),
    ("convolve 2-d", lambda m: m.np.convolve(M23, V3)),
    ("convolve unknown mode", lambda m: m.np.convolve(V3, V3, mode="foo")),
    ("interp size mismatch", lambda m: m.np.interp(V3, V3, V4)),
    ("einsum output label not in inputs", lambda m: m.np.einsum("ij->k", M23)),
    ("einsum operand count", lambda m: m.np.einsum("ij,jk->ik", M23)),
    ("moveaxis repeated", lambda m: m.np.moveaxis(M23, (0, 0), (1, 0))),
    ("jacfwd argnums out of range", lambda m: m.jacfwd(lambda a: a, argnums=3)(V3)),
    # -- dtypes and values
    ("diff negative order", lambda m: m.np.diff(M23, n=-1)),
    ("quantile unknown method", lambda m: m.np.quantile(V3, 0.5, method="foo")),
    ("eye negative", lambda m: m.np.eye(-1)),
    ("linspace negative num", lambda m: m.np.linspace(0, 1, -1)),
    ("asarray of None", lambda m: m.np.asarray(None)),
    ("asarray of a string", lambda m: m.np.asarray("abc")),
    ("linalg.inv non-square", lambda m: m.np.linalg.inv(M23)),
    ("pad negative width", lambda m: m.np.pad(V3, -1)),
    ("arange zero step", lambda m: m.np.arange(0, 10, 0)),
    ("zeros negative shape", lambda m: m.np.zeros((-1,))),
    ("meshgrid unknown indexing", lambda m: m.np.meshgrid(V3, V3, indexing="zz")),
    ("bincount of floats", lambda m: m.np.bincount(V3)),
    ("jit: unique without size", lambda m: _jit(m, m.np.unique, V3)),
    ("take unknown mode", lambda m: m.np.take(V3, np.array([0]), mode="wrapp")),
    # -- indexing
    ("index with a float", lambda m: m.np.asarray(V3)[1.0]),
    ("index with a float array", lambda m: m.np.asarray(V3)[np.array([0.5])]),
    ("too many indices", lambda m: m.np.asarray(V3)[0, 0]),
    ("index a list", lambda m: m.np.asarray(V3)[[0, 1]]),
    ("item out of bounds", lambda m: m.np.asarray(M23).item(9)),
    ("item of a non-scalar", lambda m: m.np.asarray(M23).item()),
    ("static index into an empty axis", lambda m: m.np.zeros((0, 2))[0]),
    ("jit: slice with traced bounds", lambda m: _jit(m, lambda a, i: a[i:], V3, 1)),
    # -- concreteness
    ("jit: bool of a tracer", lambda m: _jit(m, lambda a: 1.0 if a.sum() > 0 else 0.0, V3)),
    ("jit: int of a tracer", lambda m: _jit(m, lambda a: int(a[0]), V3)),
    ("jit: float of a tracer", lambda m: _jit(m, lambda a: float(a[0]), V3)),
    ("jit: np.asarray of a tracer", lambda m: _jit(m, lambda a: np.asarray(a), V3)),
    ("jit: argument of no array type", lambda m: _jit(m, lambda a: a, object())),
    ("jit: static_argnums of an array", lambda m: m.jit(lambda a, n: a * n, static_argnums=1)(V3, V3)),
    ("jit: static_argnames of no argument", lambda m: m.jit(lambda a: a, static_argnames="b")(V3, b=1)),
    # -- vmap
    ("vmap axis-size mismatch", lambda m: m.vmap(lambda a, b: a + b)(V3, V4)),
    ("vmap in_axes out of range", lambda m: m.vmap(lambda a: a, in_axes=1)(V3)),
    ("vmap in_axes tree mismatch", lambda m: m.vmap(lambda a, b: a, in_axes=(0, 0, 0))(V3, V3)),
    ("vmap out_axes tree mismatch", lambda m: m.vmap(lambda a: a, out_axes=(0, 0))(V3)),
    ("vmap out_axes out of range", lambda m: m.vmap(lambda a: a, out_axes=2)(V3)),
    ("vmap in_axes of a float", lambda m: m.vmap(lambda a: a, in_axes=0.5)(V3)),
    ("vmap of a scalar", lambda m: m.vmap(lambda a: a)(1.0)),
    # -- differentiation
    ("grad of a non-scalar", lambda m: m.grad(lambda a: a * 2)(V3)),
    ("grad of an integer input", lambda m: m.grad(lambda a: a * 2)(3)),
    ("grad argnums out of range", lambda m: m.grad(lambda a: a.sum(), argnums=2)(V3)),
    ("jit of a non-callable", lambda m: m.jit(3)),
    ("grad of a non-callable", lambda m: m.grad(3)),
    ("vmap of a non-callable", lambda m: m.vmap(3)),
    ("jacfwd of a non-callable", lambda m: m.jacfwd(3)),
    ("hessian of a non-callable", lambda m: _hessian(m)(3)),
    ("jvp primal-tangent shape mismatch", lambda m: m.jvp(lambda a: a, (V3,), (V4,))),
    ("jvp primal-tangent tree mismatch", lambda m: m.jvp(lambda a: a, (V3,), (V3, V3))),
    ("vjp cotangent shape mismatch", lambda m: _vjp(m)(lambda a: a, V3)[1](V4)),
    ("vjp cotangent dtype mismatch", lambda m: _vjp(m)(lambda a: a, V3)[1](np.ones(3, np.int32))),
    ("linearize tangent shape mismatch", lambda m: _linearize(m)(lambda a: a, V3)[1](V4)),
    ("hessian of an integer input", lambda m: _hessian(m)(lambda a: a)(np.arange(3))),
    ("custom_jvp without a rule", lambda m: _custom_jvp(m)(lambda a: a)(V3)),
    ("jit: donate_argnums out of range", lambda m: m.jit(lambda a: a, donate_argnums=3)(V3)),
    ("jacfwd of an integer input", lambda m: m.jacfwd(lambda a: a)(np.arange(3))),
    ("grad through a while_loop", lambda m: m.grad(
        lambda a: m.lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, a))(1.0)),
    # -- control flow
    ("scan carry type change", lambda m: m.lax.scan(lambda c, x: (c + x, x), np.int32(0), V3)),
    ("scan carry shape change", lambda m: m.lax.scan(lambda c, x: (m.np.stack([c, c]), x), 0.0, V3)),
    ("scan length mismatch", lambda m: m.lax.scan(lambda c, x: (c, x), 0.0, (V3, V4))),
    ("scan without xs or length", lambda m: m.lax.scan(lambda c, x: (c, x), 0.0, None)),
    ("map length mismatch", lambda m: m.lax.map(lambda x: x, (V3, V4))),
    ("switch without branches", lambda m: m.lax.switch(0, [], V3)),
    ("cond branch mismatch", lambda m: m.lax.cond(True, lambda a: a, lambda a: a.sum(), V3)),
    ("cond non-scalar predicate", lambda m: m.lax.cond(V3 > 0, lambda a: a, lambda a: a, V3)),
    ("switch float index", lambda m: m.lax.switch(1.5, [lambda a: a, lambda a: a], V3)),
    ("while_loop body type change", lambda m: m.lax.while_loop(lambda c: c < 3, _body_changes_type, 0.0)),
    ("while_loop non-boolean cond", lambda m: m.lax.while_loop(lambda c: c, lambda c: c - 1, 3.0)),
    ("fori_loop body type change", lambda m: m.lax.fori_loop(0, 3, lambda i, c: c.astype("int32"), 0.0)),
    ("fori_loop float and int bounds", lambda m: m.lax.fori_loop(0.0, 3, lambda i, c: c + i, 0.0)),
    ("clamp with Python float bounds on float32 (x64)",
     lambda m: m.lax.clamp(0.0, np.ones(3, np.float32), 1.0)),
    ("make_jaxpr static_argnums out of range",
     lambda m: m.make_jaxpr(lambda a, n: a * n, static_argnums=5)(1.0, 2)),
    ("make_jaxpr unhashable static argument",
     lambda m: m.make_jaxpr(lambda a, n: a, static_argnums=1)(1.0, [2])),
    ("grad of checkpoint with a policy that is not callable",
     lambda m: m.grad(m.checkpoint(lambda a: m.np.sin(a) * 2, policy=3))(1.0)),
    # -- pytrees
    ("tree_map structure mismatch", lambda m: m.tree.tree_map(lambda a, b: a, (1, 2), (1, 2, 3))),
    ("tree_map dict keys mismatch", lambda m: m.tree.tree_map(lambda a, b: a, {"a": 1}, {"b": 1})),
    ("tree_transpose structure mismatch", lambda m: m.tree.tree_transpose(
        m.tree.tree_structure((1, 2)), m.tree.tree_structure([1, 2]), (1, 2))),
    ("tree_unflatten leaf count", lambda m: m.tree.tree_unflatten(m.tree.tree_structure((1, 2)), [1])),
    # -- random
    ("random with an integer seed as key", lambda m: m.random.normal(0, (2,))),
    ("random with a float key", lambda m: m.random.normal(np.ones(2), (2,))),
    ("random.split of a key array", lambda m: m.random.split(m.random.split(m.key(0)), 2)),
    ("random.choice too many without replacement",
     lambda m: m.random.choice(m.key(0), 3, (5,), replace=False)),
    ("random.normal of an integer dtype", lambda m: m.random.normal(m.key(0), (2,), dtype=np.int32)),
    ("random.categorical bad axis", lambda m: m.random.categorical(m.key(0), M23, axis=3)),
    ("random.bernoulli shape mismatch", lambda m: m.random.bernoulli(m.key(0), V3, shape=(4,))),
    ("random.randint float dtype", lambda m: m.random.randint(m.key(0), (2,), 0, 5, dtype=np.float32)),
    ("random.PRNGKey of a float", lambda m: m.key(1.5)),  # type: ignore[arg-type]  # the mistake
    ("random.fold_in of a NaN", lambda m: m.random.fold_in(m.key(0), float("nan"))),
    ("random.fold_in of a negative Python float", lambda m: m.random.fold_in(m.key(0), -1.5)),
]


def _builtin_class(e: BaseException) -> type[BaseException]:
    """The first built-in class among ``e``'s classes (JAX's
    ``ConcretizationTypeError`` is a ``TypeError``, NumPy's ``AxisError`` a
    ``ValueError``)."""
    for c in type(e).__mro__:
        if c.__module__ == "builtins":
            return c
    raise AssertionError(f"no built-in class in {type(e).__mro__}")  # unreachable: BaseException


def _raised(f: Callable[[Lib], object], m: Lib) -> BaseException:
    try:
        f(m)
    except Exception as e:  # noqa: BLE001 - the point is which class
        return e
    raise AssertionError("no exception raised")


@pytest.mark.parametrize("name,f", CASES, ids=[n for n, _ in CASES])
def test_the_exception_is_an_instance_of_jaxs_builtin_class(name: str, f: Callable[[Lib], object]) -> None:
    want = _builtin_class(_raised(f, JAX))
    got = _raised(f, TDX)
    assert isinstance(got, want), (
        f"{name}: JAX raises a {want.__name__}; typedax's {type(got).__name__} is not one: {got}"
    )


def test_the_vmapped_log_probs_except_clause() -> None:
    """JAX's vmapped-log-probs example calls its one-example ``log_joint`` on a
    batch and catches the broadcasting mistake with ``except ValueError``:
    the same code on typedax is caught by the same clause, with a library
    error."""
    all_x, y = np.ones((7, 3)), np.ones(7)

    def log_joint(m: Lib, beta: Any) -> Any:
        result = m.np.sum(-(beta**2) / 2.0)
        return result + m.np.sum(-m.np.log(1 + m.np.exp(-(2 * y - 1) * m.np.dot(all_x, beta))))

    batch = np.ones((3, 3))
    for m in (JAX, TDX):
        try:
            log_joint(m, m.np.asarray(batch))
        except ValueError as e:
            assert m is JAX or isinstance(e, TypedaxError)
        else:
            raise AssertionError("no exception raised")


def test_item_takes_jaxs_arguments() -> None:
    x, jx = tnp.arange(6.0).reshape(2, 3), jnp.arange(6.0).reshape(2, 3)
    for args in [(4,), (1, 2), (0, 1)]:
        assert x.item(*args) == jx.item(*args)
