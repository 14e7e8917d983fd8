"""``dataclasses.replace`` on the frozen IR never carries a memo across programs."""

from __future__ import annotations

import dataclasses

import numpy as np

import typedax as tdx
from typedax import lax
from typedax.core import Eqn, Jaxpr


def _two_programs() -> tuple[Jaxpr, Jaxpr]:
    x = np.float64(1.0)
    mul = tdx.make_jaxpr(lambda a: lax.mul(a, a))(x).jaxpr
    add = tdx.make_jaxpr(lambda a: lax.add(a, a))(x).jaxpr
    return mul, add


def test_replace_jaxpr_after_hash_gets_its_own_key() -> None:
    mul, add = _two_programs()
    hash(mul)  # memoizes mul's alpha key
    # splice add's equations into mul's frame: a different program
    edited = dataclasses.replace(mul, in_binders=add.in_binders, eqns=add.eqns, outs=add.outs)
    assert edited == add
    assert edited != mul
    assert hash(edited) == hash(add)
    assert str(edited) == str(add)


def test_replace_with_same_fields_is_equal() -> None:
    mul, _ = _two_programs()
    hash(mul)
    same = dataclasses.replace(mul)
    assert same == mul and hash(same) == hash(mul)


def test_replace_eqn_changes_the_program() -> None:
    mul, add = _two_programs()
    hash(mul)
    (eqn,) = mul.eqns
    new_eqn: Eqn = dataclasses.replace(eqn, primitive=add.eqns[0].primitive)
    edited = dataclasses.replace(mul, eqns=(new_eqn,))
    assert edited != mul
    assert edited == add
    # and the edited program runs as written
    assert float(np.asarray(tdx.eval_jaxpr(edited, [np.float64(3.0)])[0])) == 6.0


def test_alpha_memo_is_not_an_init_field() -> None:
    names = {f.name for f in dataclasses.fields(Jaxpr) if f.init}
    assert names == {"in_binders", "eqns", "outs"}
