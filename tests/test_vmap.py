"""Batching: the tutorial's examples, every rule against a Python loop over
the batch (generated jaxprs, every in_axes choice), the pytree API, nesting,
composition with jvp, and the error paths."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax, primitives
from typedax.core import Jaxpr, Primitive, ShapedArray
from typedax.core.errors import BatchingError, ConcretizationError
from typedax.core.ir import NDArray
from typedax.core.trace import Value
from typedax.interpreters.batching import BatchDim, vmap_flat, vmap_jaxpr
from typedax.testing import jaxprs, values
from typedax.transforms import vmap_jaxpr as vmap_jaxpr_public
from typedax.testing import assert_roundtrips

F64 = npt.NDArray[np.float64]


def arr(x: object) -> F64:
    return np.asarray(x, dtype=np.float64)


def first_order_primitives() -> list[Primitive]:
    return [p for p in vars(primitives).values() if isinstance(p, Primitive)]


roundtrips = assert_roundtrips


def test_every_first_order_primitive_has_a_batching_rule() -> None:
    prims = first_order_primitives()
    assert len(prims) >= 30
    missing = [p.name for p in prims if p.rules.batch is None]
    assert not missing, f"primitives without a batching rule: {missing}"


def test_transforms_facade_exports_vmap_jaxpr() -> None:
    assert vmap_jaxpr_public is vmap_jaxpr


# -- the tutorial's Part 1 examples ---------------------------------------------------
def test_tutorial_add_one_to_a_scalar() -> None:
    def add_one_to_a_scalar(scalar: Value) -> Value:
        assert np.ndim(scalar) == 0
        return lax.add(1.0, scalar)

    out = tdx.vmap(add_one_to_a_scalar, (0,))(np.arange(3.0))
    np.testing.assert_array_equal(arr(out), [1.0, 2.0, 3.0])


def test_tutorial_jacfwd_by_vmap_of_jvp() -> None:
    x = np.arange(3.0)

    def pushfwd(v: Value) -> Value:
        return tdx.jvp(lax.sin, (x,), (v,))[1]

    vecs_in = np.eye(3)
    jac_t = tdx.vmap(pushfwd, (0,))(vecs_in)
    np.testing.assert_allclose(arr(jac_t), np.diag(np.cos(x)))


# -- generated jaxprs against a loop over the batch -------------------------------------
@st.composite
def batched_case(draw: st.DrawFn) -> tuple[Jaxpr, int, list[BatchDim], list[NDArray]]:
    j = draw(jaxprs(max_eqns=6, min_inputs=1))
    size = draw(st.integers(1, 3))
    dims: list[BatchDim] = []
    args: list[NDArray] = []
    for a in j.in_avals:
        d = draw(st.one_of(st.none(), st.integers(-(a.ndim + 1), a.ndim)))
        dims.append(d)
        if d is None:
            args.append(draw(values(a)))
        else:
            pos = d % (a.ndim + 1)
            shape = a.shape[:pos] + (size,) + a.shape[pos:]
            args.append(draw(values(ShapedArray(shape, a.dtype))))
    return j, size, dims, args


def loop_reference(j: Jaxpr, size: int, dims: list[BatchDim], args: list[NDArray]) -> list[NDArray]:
    per_example = []
    for b in range(size):
        xs = [
            x if d is None else np.take(x, b, axis=d % x.ndim)
            for x, d in zip(args, dims)
        ]
        per_example.append([np.asarray(o) for o in tdx.eval_jaxpr(j, xs)])
    return [np.stack([ex[k] for ex in per_example]) for k in range(len(j.outs))]


def assert_close(got: NDArray, want: NDArray) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind == "f":
        tol = 1e-5 if want.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(arr(got), arr(want), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


@given(batched_case())
def test_vmap_jaxpr_matches_a_loop(case: tuple[Jaxpr, int, list[BatchDim], list[NDArray]]) -> None:
    j, size, dims, args = case
    bj = vmap_jaxpr(j, size, dims)
    roundtrips(bj)
    got = [np.asarray(o) for o in tdx.eval_jaxpr(bj, args)]
    for g, w in zip(got, loop_reference(j, size, dims, args)):
        assert_close(g, w)


@given(batched_case())
def test_vmap_interpreter_matches_a_loop(case: tuple[Jaxpr, int, list[BatchDim], list[NDArray]]) -> None:
    j, size, dims, args = case
    outs = vmap_flat(lambda xs: tdx.eval_jaxpr(j, xs), size, dims, args, [0] * len(j.outs))
    for g, w in zip(outs, loop_reference(j, size, dims, args)):
        assert_close(np.asarray(g), w)


@given(batched_case())
def test_vmap_of_jvp_jaxpr_typechecks(case: tuple[Jaxpr, int, list[BatchDim], list[NDArray]]) -> None:
    j, size, dims, _ = case
    roundtrips(vmap_jaxpr(tdx.transforms.jvp_jaxpr(j), size, dims + dims))


# -- rules needing care, checked directly -----------------------------------------------
@pytest.mark.parametrize("dl", [None, 0, 1, 2, 3])
@pytest.mark.parametrize("dr", [None, 0, 1, 2, 3])
def test_dot_general_every_batch_position(dl: BatchDim, dr: BatchDim) -> None:
    if dl is None and dr is None:
        return
    rng = np.random.default_rng(1)
    dn = (((2,), (1,)), ((0,), (0,)))  # per example: [2,3,4] x [2,4,5] -> [2,3,5]
    lhs = rng.normal(size=(2, 3, 4))
    rhs = rng.normal(size=(2, 4, 5))
    size = 3
    bl = lhs if dl is None else np.stack([lhs * (k + 1) for k in range(size)], axis=dl)
    br = rhs if dr is None else np.stack([rhs - k for k in range(size)], axis=dr)
    out = tdx.vmap(lambda a, b: lax.dot_general(a, b, dn), in_axes=(dl, dr))(bl, br)
    want = np.stack(
        [
            np.asarray(lax.dot_general(
                bl if dl is None else np.take(bl, k, axis=dl),
                br if dr is None else np.take(br, k, axis=dr),
                dn,
            ))
            for k in range(size)
        ]
    )
    np.testing.assert_allclose(arr(out), want, rtol=1e-12)


@pytest.mark.parametrize("d", [0, 1, 2])
def test_broadcast_with_size_one_operand_dims(d: int) -> None:
    x = np.arange(6.0).reshape(2, 1, 3)  # per example (1, 3) after removing axis d=0...
    xb = np.moveaxis(x, 0, d)
    out = tdx.vmap(
        lambda v: lax.broadcast_in_dim(v, (4, 5, 3), (1, 2)), in_axes=d
    )(xb)
    want = np.stack([np.broadcast_to(x[k][None], (4, 5, 3)) for k in range(2)])
    np.testing.assert_array_equal(arr(out), want)


def test_select_n_with_scalar_batched_predicate() -> None:
    preds = np.array([True, False])
    xs = np.arange(6.0).reshape(2, 3)
    out = tdx.vmap(lambda p, x: lax.select(p, x, lax.neg(x)), in_axes=(0, None))(preds, xs[0])
    np.testing.assert_array_equal(arr(out), [xs[0], -xs[0]])
    out2 = tdx.vmap(lambda p, x: lax.select(p, x, lax.neg(x)), in_axes=(None, 1))(True, xs)
    np.testing.assert_array_equal(arr(out2), xs.T)


# -- the API ------------------------------------------------------------------------------
def test_in_axes_none_and_negative() -> None:
    x = np.arange(6.0).reshape(2, 3)
    y = np.array([10.0, 20.0])
    out = tdx.vmap(lambda a, b: lax.add(a, b), in_axes=(-1, None))(x, y)
    np.testing.assert_array_equal(arr(out), x.T + y[None, :])


def test_in_axes_as_a_list_means_a_tuple() -> None:
    out = tdx.vmap(lambda a, b: lax.mul(a, b), in_axes=[0, None])(np.arange(3.0), 2.0)
    np.testing.assert_array_equal(arr(out), [0.0, 2.0, 4.0])


def test_pytree_in_axes_and_out_axes() -> None:
    def f(p: Mapping[str, Value], x: Value) -> tuple[Value, Mapping[str, Value]]:
        return lax.mul(p["w"], x), {"s": tnp.sum(x), "w": p["w"]}

    p = {"w": np.arange(3.0), "b": np.ones((4, 3))}
    x = np.arange(12.0).reshape(4, 3)
    out, aux = tdx.vmap(f, in_axes=({"w": None, "b": 0}, 0), out_axes=(1, {"s": 0, "w": None}))(p, x)
    np.testing.assert_array_equal(arr(out), (x * p["w"]).T)
    np.testing.assert_array_equal(arr(aux["s"]), x.sum(1))
    np.testing.assert_array_equal(arr(aux["w"]), p["w"])


def test_negative_out_axes_and_unbatched_output_broadcast() -> None:
    x = np.arange(6.0).reshape(3, 2)
    out, const = tdx.vmap(lambda v: (lax.neg(v), np.float64(7.0)), out_axes=-1)(x)
    np.testing.assert_array_equal(arr(out), -x.T)
    np.testing.assert_array_equal(arr(const), [7.0, 7.0, 7.0])


def test_keyword_arguments_are_mapped_along_axis_0() -> None:
    def f(x: Value, *, scale: Value) -> Value:
        return lax.mul(x, scale)

    out = tdx.vmap(f, in_axes=None)(np.float64(2.0), scale=np.arange(3.0))
    np.testing.assert_array_equal(arr(out), [0.0, 2.0, 4.0])


def test_axis_size_with_nothing_mapped() -> None:
    out = tdx.vmap(lambda x: lax.mul(x, 2.0), in_axes=None, axis_size=3)(np.float64(1.5))
    np.testing.assert_array_equal(arr(out), [3.0, 3.0, 3.0])


def test_nested_vmap_is_an_outer_product() -> None:
    a, b = np.arange(3.0), np.arange(4.0)
    out = tdx.vmap(tdx.vmap(lax.mul, in_axes=(None, 0)), in_axes=(0, None))(a, b)
    np.testing.assert_array_equal(arr(out), np.outer(a, b))


def test_vmap_of_matmul_is_batched_matmul() -> None:
    rng = np.random.default_rng(0)
    xs, w = rng.normal(size=(5, 3)), rng.normal(size=(3, 2))
    out = tdx.vmap(lambda x: tnp.matmul(x, w))(xs)
    np.testing.assert_allclose(arr(out), xs @ w, rtol=1e-12)


def test_per_example_jacobians_by_vmap_of_jacfwd() -> None:
    xs = np.arange(6.0).reshape(2, 3)
    jacs = tdx.vmap(tdx.jacfwd(lax.sin))(xs)
    want = np.stack([np.diag(np.cos(x)) for x in xs])
    np.testing.assert_allclose(arr(jacs), want)


def test_jvp_of_vmap() -> None:
    xs = np.arange(3.0)
    y, t = tdx.jvp(tdx.vmap(lax.sin), (xs,), (np.ones(3),))
    np.testing.assert_allclose(arr(t), np.cos(xs))


def test_vmap_staged_by_make_jaxpr() -> None:
    j = tdx.make_jaxpr(tdx.vmap(lambda x: tnp.sum(lax.mul(x, x))))(np.ones((5, 3))).jaxpr
    assert j.out_avals == (ShapedArray((5,), np.dtype(np.float64)),)
    assert [e.primitive.name for e in j.eqns] == ["mul", "reduce_sum"]


# -- error paths -----------------------------------------------------------------------------
def test_inconsistent_sizes_name_the_arguments_and_sizes() -> None:
    with pytest.raises(BatchingError) as e:
        tdx.vmap(lambda x, y: lax.add(x, y))(np.ones((2, 3)), np.ones((4, 3)))
    msg = str(e.value)
    assert "argument 'x'" in msg and "argument 'y'" in msg
    assert "size 2" in msg and "size 4" in msg


def test_inconsistent_sizes_inside_a_pytree_name_the_path() -> None:
    with pytest.raises(BatchingError, match=r"argument 'p'\['b'\]"):
        tdx.vmap(lambda p: p)({"a": np.ones(2), "b": np.ones(3)})


def test_in_axes_tree_mismatch() -> None:
    with pytest.raises(BatchingError, match="tree prefix"):
        tdx.vmap(lambda x, y: x, in_axes=((0, 0), 0))(np.ones(2), np.ones(2))


def test_in_axes_wrong_length() -> None:
    with pytest.raises(BatchingError, match="len\\(in_axes\\)=3"):
        tdx.vmap(lambda x, y: x, in_axes=(0, 0, 0))(np.ones(2), np.ones(2))


def test_in_axes_leaf_must_be_int_or_none() -> None:
    with pytest.raises(BatchingError, match="ints or None"):
        tdx.vmap(lambda x: x, in_axes=("a",))(np.ones(2))  # type: ignore[arg-type]  # the error under test


@pytest.mark.parametrize("axis", [2, -3])
def test_in_axes_out_of_range(axis: int) -> None:
    with pytest.raises(BatchingError, match="out of range"):
        tdx.vmap(lambda x: x, in_axes=axis)(np.ones((2, 3)))


def test_scalar_argument_cannot_be_mapped() -> None:
    with pytest.raises(BatchingError, match="out of range"):
        tdx.vmap(lambda x: x)(1.0)


def test_out_axes_out_of_range() -> None:
    with pytest.raises(BatchingError, match="out_axes=2"):
        tdx.vmap(lambda x: x, out_axes=2)(np.ones(3))


def test_out_axes_none_for_a_batched_output() -> None:
    with pytest.raises(BatchingError, match="out_axes is None"):
        tdx.vmap(lambda x: x, out_axes=None)(np.ones(3))


def test_out_axes_tree_mismatch() -> None:
    with pytest.raises(BatchingError, match="tree prefix of the output"):
        tdx.vmap(lambda x: (x, x), out_axes=(0, 0, 0))(np.ones(3))


def test_nothing_mapped_without_axis_size() -> None:
    with pytest.raises(BatchingError, match="axis_size"):
        tdx.vmap(lambda x: x, in_axes=None)(np.ones(3))


def test_axis_size_disagreeing_with_arguments() -> None:
    with pytest.raises(BatchingError, match="axis_size is 4"):
        tdx.vmap(lambda x: x, axis_size=4)(np.ones(3))


def test_python_control_flow_on_a_batched_value_raises() -> None:
    def f(x: Value) -> Value:
        if x > 0:  # type: ignore[operator]  # differs per example: the error under test
            return x
        return lax.neg(x)

    with pytest.raises(ConcretizationError, match="batched by vmap"):
        tdx.vmap(f)(np.ones(3))


def test_vmap_flat_and_vmap_jaxpr_errors() -> None:
    with pytest.raises(BatchingError, match="size 3 along its batch axis"):
        vmap_flat(lambda xs: xs, 2, [0], [np.ones(3)], [0])
    with pytest.raises(BatchingError, match="1 inputs but 2 in_dims"):
        vmap_flat(lambda xs: xs, 2, [0, 0], [np.ones(2)], [0])
    j = tdx.make_jaxpr(lax.sin)(np.ones(3)).jaxpr
    with pytest.raises(BatchingError, match="out of range"):
        vmap_jaxpr(j, 2, [2])
    with pytest.raises(BatchingError, match="takes 1 inputs"):
        vmap_jaxpr(j, 2, [0, 0])


def test_vmap_and_jacfwd_keep_the_signature_for_mypy() -> None:
    def f(x: Value, y: float) -> Value:
        return tnp.multiply(x, y)

    g = tdx.vmap(f, in_axes=(0, None))
    out: Value = g(np.arange(3.0), 2.0)  # mypy checks these argument and result types
    jac: Value = tdx.jacfwd(f)(np.arange(3.0), 2.0)
    np.testing.assert_array_equal(arr(out), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(arr(jac), 2.0 * np.eye(3))
