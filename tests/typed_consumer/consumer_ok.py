"""A strictly typed user of typedax: mypy --strict --disallow-any-expr must
accept this file (tests/test_typed_consumer.py runs it)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax, tree
from typedax.core import JaxprType, ShapedArray


class Pair(NamedTuple):
    a: tdx.Value
    b: tdx.Value


def model(x: tdx.Value, y: tdx.Value) -> Pair:
    return Pair(tnp.multiply(lax.sin(x), y), tnp.add(x, 1.0))


def stage() -> tdx.ClosedJaxpr:
    x = np.ones(3, np.float32)
    cj: tdx.ClosedJaxpr = tdx.make_jaxpr(model)(x, x)
    return cj


def check(cj: tdx.ClosedJaxpr) -> str:
    jaxpr: tdx.Jaxpr = cj.jaxpr
    t: JaxprType = tdx.typecheck_jaxpr(jaxpr)
    again: tdx.Jaxpr = tdx.parse_jaxpr(str(jaxpr))
    same: bool = again == jaxpr
    outs: list[tdx.Value] = tdx.eval_jaxpr(jaxpr, [np.ones(3, np.float32), np.ones(3, np.float32)])
    avals: tuple[ShapedArray, ...] = cj.out_avals
    return f"{t} {same} {len(outs)} {avals[0].str_short()}"


def leaves() -> int:
    flat, treedef = tree.flatten({"w": np.zeros(2), "b": (1.0, None)})
    rebuilt: object = tree.unflatten(treedef, flat)
    n: int = treedef.num_leaves
    return n + len(flat) + (rebuilt is not None)


if __name__ == "__main__":
    print(check(stage()), leaves())
