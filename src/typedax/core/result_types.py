"""The result types of a primitive application, as the interpreters that
record equations (staging, partial evaluation) compute them.

Three steps, in this order: the primitive's abstract evaluation (its shape
and dtype rule, refusing typed keys where it has no meaning on them:
``core/ir.py``), JAX's weak-type rule (``core/weak.py``), and -- once a mesh
with an Explicit axis exists -- the explicit-sharding rule
(``core/explicit.py``).

``result_types`` remembers the answer for primitives whose abstract
evaluation is a pure function of the operands' types and the params
(``Primitive.pure_types``: the element-wise ones and those whose rule is a
``memo_abstract``), keyed by the *identity* of the primitive, the params map
and each operand type. Identity is finer than equality: a weak and a strong
type, or a typed and an untyped one, are different objects (``ShapedArray``
compares without those flags), so each keeps its own entry. The entry keeps
every keyed object alive, so an ``id`` is never reused while it is a key.
Tracing asks this on every equation; a hit costs one dictionary lookup in
place of the three steps (a 10,000-equation ``lax`` chain hits on all but
its first few equations: the tracers share their types, and ``lax`` shares
one params map per distinct value). Before the dictionary, the staging
trace compares the identities of the primitive's last remembered question
(``Primitive.last_types``), the same question again in a chain.

What is never remembered: errors (a bad operand raises every time, the same
error); an application with a typed (explicitly sharded) operand, or
``sharding_constraint``, whose result type reads the current mesh and the
``out_sharding=`` request; and one whose params name a typed-key dtype
(whether it is refused depends on whether a key exists yet). Every other
result of a pure rule depends on nothing but the key.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .avals import ShapedArray
from .dtypes import EXTENDED
from .explicit import propagate
from .ir import Params, Primitive, Types
from .sharding import EXPLICIT_SEEN
from .weak import ALWAYS_ASK, with_weak

#: (id(primitive), id(params), id(operand type), ...) -> (result types, the
#: keyed objects, kept alive while the entry exists)
MEMO: dict[tuple[int, ...], tuple[Types, object]] = {}
_LIMIT = 8192


def types1(prim: Primitive, x: ShapedArray, params: Params) -> Types:
    """``result_types`` of one operand of type ``x``, asking the primitive's
    last remembered types first (the staging trace asks those itself, and
    calls this when they are another question's)."""
    hit = MEMO.get((id(prim), id(params), id(x)))
    if hit is None:
        return result_types(prim, (x,), params)
    out = hit[0]
    prim.last_types.one = (params, x, out)
    return out


def types2(prim: Primitive, x: ShapedArray, y: ShapedArray, params: Params) -> Types:
    """``types1`` for two operands."""
    hit = MEMO.get((id(prim), id(params), id(x), id(y)))
    if hit is None:
        return result_types(prim, (x, y), params)
    out = hit[0]
    prim.last_types.two = (params, x, y, out)
    return out


def result_types(prim: Primitive, in_avals: Sequence[ShapedArray], params: Params) -> Types:
    """The types of ``prim``'s results on operands of types ``in_avals``,
    weak flags and explicit shardings included (see the module's text)."""
    n = len(in_avals)
    if n == 1:
        key: tuple[int, ...] = (id(prim), id(params), id(in_avals[0]))
    elif n == 2:
        key = (id(prim), id(params), id(in_avals[0]), id(in_avals[1]))
    else:
        key = (id(prim), id(params), *map(id, in_avals))
    hit = MEMO.get(key)
    if hit is not None:
        return hit[0]
    out = compute_result_types(prim, in_avals, params)
    if prim.pure_types and _rememberable(prim, in_avals, params):
        if len(MEMO) >= _LIMIT:
            MEMO.clear()
        MEMO[key] = (out, (prim, params, tuple(in_avals)))
        if n == 1:
            prim.last_types.one = (params, in_avals[0], out)
        elif n == 2:
            prim.last_types.two = (params, in_avals[0], in_avals[1], out)
    return out


def compute_result_types(prim: Primitive, in_avals: Sequence[ShapedArray], params: Params) -> Types:
    """``result_types`` without the memo: the three steps."""
    avals = prim.abstract_eval(in_avals, params)
    name = prim.name
    for a in in_avals:
        if a.weak_type:
            avals = with_weak(name, in_avals, params, avals)
            break
    else:  # no weak operand: the rule's own answer, but for a few primitives
        if name in ALWAYS_ASK:
            avals = with_weak(name, in_avals, params, avals)
    if EXPLICIT_SEEN[0]:  # explicit sharding: the results' sharding types (untyped operands: nothing to do)
        for a in in_avals:
            if a.sharding is not None:
                return tuple(propagate(name, in_avals, params, list(avals)))
        if name == "sharding_constraint":  # (it types an untyped operand too)
            avals = propagate(name, in_avals, params, list(avals))
    return tuple(avals)


#: ``weak_types``'s memo, keyed as ``MEMO``
WEAK_MEMO: dict[tuple[int, ...], tuple[Types, object]] = {}


def weak_types(prim: Primitive, in_avals: Sequence[ShapedArray], params: Params) -> Types:
    """The abstract evaluation with JAX's weak-type rule applied to every
    result (weak where the rule says so, strong elsewhere), without the
    explicit-sharding step: what partial evaluation gives the equations it
    stages. Remembered as ``result_types`` is."""
    key = (id(prim), id(params), *map(id, in_avals))
    hit = WEAK_MEMO.get(key)
    if hit is not None:
        return hit[0]
    out = tuple(with_weak(prim.name, in_avals, params, prim.abstract_eval(in_avals, params)))
    if prim.pure_types and _rememberable(prim, in_avals, params):
        if len(WEAK_MEMO) >= _LIMIT:
            WEAK_MEMO.clear()
        WEAK_MEMO[key] = (out, (prim, params, tuple(in_avals)))
    return out


def _rememberable(prim: Primitive, in_avals: Sequence[ShapedArray], params: Params) -> bool:
    if prim.name == "sharding_constraint":
        return False
    for a in in_avals:
        if a.sharding is not None:
            return False
    for v in params.values():
        if isinstance(v, np.dtype) and v in EXTENDED:
            return False
    return True


def clear_result_types() -> None:
    """Forget every remembered result type (``typedax.clear_caches``; the
    primitives' last questions stay, each keeping its own objects alive)."""
    MEMO.clear()
    WEAK_MEMO.clear()
