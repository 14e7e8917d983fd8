"""``shard_map`` and the collectives in this (one-device) process: the jaxpr
prints and parses back, and the errors. The 8-device behaviour against JAX
is ``tests/sharded/test_collectives.py`` (run by ``tests/test_sharding.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from pyrsistent import pmap

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import parse_jaxpr
from typedax.core.errors import AxisNameError, BatchingError, JaxprTextTypeError, PrimitiveTypeError, ShardingError
from typedax.core.ir import Param
from typedax.core.trace import bind1
from typedax.jitting.shard_map import ShardMapParams, shard_map_p
from typedax.primitives.collectives import psum_p
from typedax.sharding import P

MESH = tdx.make_mesh((1,), ("i",))
X = np.arange(4.0)
XA = tnp.asarray(X)


def _every_collective(v: tdx.Array) -> tdx.Array:
    s = lax.psum(v, "i") + lax.pmax(v, "i") - lax.pmin(v, "i") + lax.pmean(v, "i")
    g = lax.all_gather(s, "i", tiled=True) + lax.all_gather(s, "i")[0]
    r = lax.psum_scatter(g, "i", tiled=True)
    a = lax.all_to_all(r, "i", 0, 0, tiled=True)
    return lax.ppermute(a, "i", [(0, 0)]) * lax.axis_index("i") + lax.psum(1, "i")


def test_jaxpr_prints_and_parses_back() -> None:
    f = tdx.shard_map(_every_collective, mesh=MESH, in_specs=P("i"), out_specs=P("i"))

    def gathered(v: tdx.Array) -> tdx.Array:
        return lax.all_gather(lax.psum(v, "i"), "i") * 2

    g = tdx.shard_map(gathered, mesh=MESH, in_specs=P("i"), out_specs=P())
    for closed in (tdx.make_jaxpr(f)(XA), tdx.make_jaxpr(tdx.grad(lambda v: tnp.sum(g(v))))(XA)):
        text = str(closed.jaxpr)
        assert "shard_map [" in text and "mesh_axes=(\"i\",)" in text
        back = parse_jaxpr(text)
        assert back == closed.jaxpr and str(back) == text
    assert "psum [ axes=(\"i\",) ]" in str(tdx.make_jaxpr(f)(XA))


def test_one_device_mesh_runs_eagerly_and_under_jit() -> None:
    f = tdx.shard_map(_every_collective, mesh=MESH, in_specs=P("i"), out_specs=P("i"))
    want = np.ones(4)  # every collective over one device is the identity; axis_index is 0; psum(1) 1
    np.testing.assert_allclose(np.asarray(f(XA)), want)
    np.testing.assert_allclose(np.asarray(tdx.jit(f)(XA)), want)


def test_a_wrong_name_in_parsed_text_is_an_error() -> None:
    f = tdx.shard_map(lambda v: lax.psum(v, "i"), mesh=MESH, in_specs=P("i"), out_specs=P())
    text = str(tdx.make_jaxpr(f)(X).jaxpr).replace('psum [ axes=("i",) ]', 'psum [ axes=("j",) ]')
    with pytest.raises(JaxprTextTypeError, match="unbound axis name: 'j'"):
        parse_jaxpr(text)


def test_collectives_outside_shard_map() -> None:
    with pytest.raises(AxisNameError, match=r"psum: unbound axis name: 'i'.*\[\]"):
        lax.psum(tnp.ones(3), "i")
    with pytest.raises(AxisNameError, match="unbound axis name"):
        tdx.jit(lambda v: lax.all_gather(v, "i"))(X)
    with pytest.raises(AxisNameError, match="axis_index"):
        tdx.jit(lambda v: v + lax.axis_index("i"))(X)
    with pytest.raises(AxisNameError, match="only inside shard_map"):  # bound by hand: refused at lowering
        tdx.jit(lambda v: bind1(psum_p, (v,), pmap({"axes": ("i",)})))(X)
    with pytest.raises(AxisNameError, match="axis_name must be"):
        lax.psum(X, ())
    with pytest.raises(NotImplementedError, match="pmax"):  # as JAX: no derivative
        tdx.grad(lambda v: tnp.sum(tdx.shard_map(lambda u: lax.pmax(u, "i"), mesh=MESH, in_specs=P("i"), out_specs=P())(v)))(X)
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        lax.psum(X, "i", axis_index_groups=[[0]])  # type: ignore[arg-type]  # not supported


def test_collective_argument_errors() -> None:
    def run(body: object) -> object:
        return tdx.shard_map(body, mesh=MESH, in_specs=P("i"), out_specs=P("i"))(X)  # type: ignore[call-overload]  # a test body

    with pytest.raises(PrimitiveTypeError, match="must equal the axis size"):
        run(lambda v: lax.all_to_all(v, "i", 0, 0))  # untiled: the split axis must have the axis size
    with pytest.raises(PrimitiveTypeError, match="sources and destinations must be unique"):
        run(lambda v: lax.ppermute(v, "i", [(0, 0), (0, 0)]))
    with pytest.raises(PrimitiveTypeError, match=r"in \[0, 1\)"):
        run(lambda v: lax.ppermute(v, "i", [(0, 1)]))
    with pytest.raises(PrimitiveTypeError, match="out of range"):
        run(lambda v: lax.all_gather(v, "i", axis=3))
    with pytest.raises(PrimitiveTypeError, match="must equal the axis size"):
        run(lambda v: lax.psum_scatter(v, "i"))  # untiled: dimension 0 (4) is not the axis size (1)


def test_shard_map_errors() -> None:
    with pytest.raises(ShardingError, match="Mesh"):
        tdx.shard_map(lambda v: v, mesh="i", in_specs=P(), out_specs=P())(X)  # type: ignore[call-overload]  # not a mesh
    with pytest.raises(ShardingError, match="pytree prefix"):
        tdx.shard_map(lambda v: v, mesh=MESH, in_specs=(P(), P()), out_specs=P())(X)
    with pytest.raises(ShardingError, match="2 entries for an array of rank 1"):
        tdx.shard_map(lambda v: v, mesh=MESH, in_specs=P("i", None), out_specs=P())(X)
    with pytest.raises(ShardingError, match="needs mesh="):
        tdx.shard_map(lambda v: v, in_specs=P(), out_specs=P())(X)
    with pytest.raises(ShardingError, match="automatic"):
        tdx.shard_map(lambda v: v, mesh=tdx.make_mesh((1, 1), ("a", "b")), in_specs=P(), out_specs=P(), axis_names={"a"})


def test_params_are_checked() -> None:
    closed = tdx.make_jaxpr(tdx.shard_map(lambda v: v * 2, mesh=MESH, in_specs=P("i"), out_specs=P("i")))(X)
    (eqn,) = closed.jaxpr.eqns
    p = ShardMapParams.of(eqn.params)
    assert p.in_specs == ((("i",),),) and p.out_specs == ((("i",),),) and p.check_rep
    bad: list[tuple[str, Param]] = [
        ("mesh_axes", (1,)), ("in_specs", ("i",)), ("mesh_shape", (2,)), ("out_specs", (((("k",),),))),
    ]
    for key, value in bad:
        with pytest.raises(PrimitiveTypeError, match="shard_map"):
            bind1(shard_map_p, (X,), eqn.params.set(key, value))
    with pytest.raises(PrimitiveTypeError, match="the body takes"):
        bind1(shard_map_p, (np.ones(5),), eqn.params)


def test_pmap_on_one_device() -> None:
    def f(v: tdx.Array) -> tdx.Array:
        return v * lax.psum(1, "i") + lax.axis_index("i")

    out = tdx.pmap(f, "i")(tnp.asarray(X.reshape(1, 4)))
    np.testing.assert_allclose(np.asarray(out), X.reshape(1, 4))
    with pytest.raises(ShardingError, match="requires 2 logical devices, but only 1"):
        tdx.pmap(f, "i")(tnp.asarray(X.reshape(2, 2)))
    with pytest.raises(NotImplementedError, match="static_broadcasted_argnums"):
        tdx.pmap(f, "i", static_broadcasted_argnums=1)
    with pytest.raises(ShardingError, match="backend 'tpu'"):
        tdx.pmap(f, "i", backend="tpu")
    with pytest.raises(BatchingError, match="no argument is mapped"):
        tdx.pmap(lambda v: v, in_axes=None)(X)
