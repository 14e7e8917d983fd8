"""Deliberately ill-typed uses of typedax: mypy --strict must reject exactly
the lines whose comment says why (tests/test_typed_consumer.py checks them)."""

from __future__ import annotations

import numpy as np

import typedax as tdx


def double(x: tdx.Value) -> tdx.Value:
    return tdx.numpy.multiply(x, 2.0)


def wrong() -> None:
    cj = tdx.make_jaxpr(double)(np.ones(2))
    name: str = cj.jaxpr  # error: a Jaxpr is not a str
    tdx.eval_jaxpr(str(cj), [np.ones(2)])  # error: text is not a Jaxpr (parse it first)
    tdx.parse_jaxpr(cj.jaxpr)  # error: parse_jaxpr takes text
    n: int = tdx.typecheck_jaxpr(cj.jaxpr)  # error: a JaxprType is not an int
    tdx.make_jaxpr(double)(np.ones(2), np.ones(2))  # error: double takes one argument
    tdx.tree.unflatten([1], [2])  # error: a list is not a TreeDef
    print(name, n)
