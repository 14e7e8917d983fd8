"""Pytrees that cannot be flattened give a ``TreeError`` naming the node
type and where in the tree it sits; unhashable aux data works under jit (as
in JAX); a dataclass that its constructor cannot rebuild is refused with the
way out."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pytest

import typedax as tdx
from typedax import tree
from typedax.core.errors import TreeError


class Returns42:
    def __init__(self, v: float) -> None:
        self.v = v


class NotIterable:
    def __init__(self, v: float) -> None:
        self.v = v


class ListAux:
    def __init__(self, v: Any, aux: list[int]) -> None:
        self.v, self.aux = v, aux


def _bad_flatten(n: Returns42) -> tuple[Iterable[object], Hashable]:
    return 42  # type: ignore[return-value]  # the mistake under test


def _not_iterable(n: NotIterable) -> tuple[Iterable[object], Hashable]:
    return 5, None  # type: ignore[return-value]  # the mistake under test


tree.register_node(Returns42, _bad_flatten, lambda aux, ch: Returns42(1.0))
tree.register_node(NotIterable, _not_iterable, lambda aux, ch: NotIterable(1.0))
tree.register_node(
    ListAux,
    lambda n: ([n.v], n.aux),  # type: ignore[arg-type, return-value]  # a list as aux data, on purpose
    lambda aux, ch: ListAux(ch[0], aux),  # type: ignore[arg-type]  # the list comes back
)


def test_unsortable_dict_keys_name_the_path() -> None:
    with pytest.raises(TreeError, match=r"at tree\[0\]\['p'\]: a dict whose keys cannot be sorted"):
        tree.flatten([{"p": {1: 1.0, "a": 2.0}}])


def test_a_flatten_that_returns_nonsense_names_the_node() -> None:
    with pytest.raises(TreeError, match=r"at tree\[1\]: the flatten function registered for Returns42"):
        tree.flatten((1.0, Returns42(1.0)))
    with pytest.raises(TreeError, match=r"at tree\['m'\]: .* NotIterable returned children of type int"):
        tree.flatten({"m": NotIterable(1.0)})


def test_a_dataclass_with_an_init_false_field_is_refused_with_the_fix() -> None:
    @dataclasses.dataclass
    class D:
        x: float
        y: float = dataclasses.field(init=False, default=0.0)

    with pytest.raises(TreeError, match=r"at tree\[0\]: dataclass D has field\(s\) y with init=False.*register_node"):
        tree.flatten([D(1.0)])

    @dataclasses.dataclass
    class Fine:
        x: float
        y: float = 0.0

    leaves, td = tree.flatten(Fine(1.0, 2.0))
    assert leaves == [1.0, 2.0] and tree.unflatten(td, leaves) == Fine(1.0, 2.0)


def test_unhashable_aux_data_works_under_jit() -> None:
    f = tdx.jit(lambda u: u.v * 2.0)
    assert float(np.asarray(f(ListAux(1.0, [1, 2])))) == 2.0
    assert float(np.asarray(f(ListAux(3.0, [1, 2])))) == 6.0
    assert len(f._staged) == 1  # equal aux data: one trace
    f(ListAux(3.0, [1, 2, 3]))
    assert len(f._staged) == 2  # different aux data: another
