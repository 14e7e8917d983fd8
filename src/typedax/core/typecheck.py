"""``typecheck_jaxpr``: the full type-checking pass over a jaxpr."""

from __future__ import annotations

from .errors import JaxprTypeError, PrimitiveTypeError, TypedaxError
from .memo import IdentityMemo
from .ir import Atom, Eqn, Jaxpr, JaxprType, Lit, Var
from .pretty import _Namer, pp_eqn


def _eqn_text(eqn: Eqn) -> str:
    return str(pp_eqn(_Namer(), eqn))


def _where(eqn: Eqn | None) -> str:
    return "the jaxpr's outputs" if eqn is None else f"equation: {_eqn_text(eqn)}"


def typecheck_jaxpr(jaxpr: Jaxpr) -> JaxprType:
    """The jaxpr's type, or ``JaxprTypeError`` naming the offending equation.

    A jaxpr is immutable, so a success is remembered: the bodies of nested
    control flow are checked once, not once per enclosing level."""
    known = _CHECKED.get(jaxpr, None)
    if known is None:
        known = _typecheck(jaxpr)
        _CHECKED.put(jaxpr, None, known)
    return known


_CHECKED: IdentityMemo[JaxprType] = IdentityMemo()


def _typecheck(jaxpr: Jaxpr) -> JaxprType:
    env: set[Var] = set()
    for v in jaxpr.in_binders:
        if v in env:
            raise JaxprTypeError(f"input binder {v.aval.str_short()} is bound twice")
        env.add(v)

    def check_atom(a: Atom, eqn: Eqn | None) -> None:
        # the equation's text is built only when there is an error to report
        if isinstance(a, Var):
            if a not in env:
                raise JaxprTypeError(f"unbound variable of type {a.aval.str_short()} in {_where(eqn)}")
        elif isinstance(a, Lit):
            if a.aval.shape != ():
                raise JaxprTypeError(f"non-scalar literal in {_where(eqn)}")
        else:
            raise JaxprTypeError(f"{type(a).__name__} is not an atom, in {_where(eqn)}")

    for eqn in jaxpr.eqns:
        for a in eqn.inputs:
            check_atom(a, eqn)
        try:
            expected = eqn.primitive.abstract_eval([a.aval for a in eqn.inputs], eqn.params)
        except PrimitiveTypeError as e:
            raise JaxprTypeError(f"{e}\n  in equation: {_eqn_text(eqn)}") from e
        except TypedaxError:
            raise
        if len(expected) != len(eqn.out_binders):
            raise JaxprTypeError(
                f"{eqn.primitive.name} produces {len(expected)} outputs but the equation "
                f"binds {len(eqn.out_binders)}\n  in equation: {_eqn_text(eqn)}"
            )
        for v, t in zip(eqn.out_binders, expected):
            if v.aval != t:
                raise JaxprTypeError(
                    f"out binder has type {v.aval.str_short()} but {eqn.primitive.name} "
                    f"produces {t.str_short()}\n  in equation: {_eqn_text(eqn)}"
                )
            if v in env:
                raise JaxprTypeError(f"variable bound twice\n  in equation: {_eqn_text(eqn)}")
            env.add(v)
    for a in jaxpr.outs:
        check_atom(a, None)
    return JaxprType(jaxpr.in_avals, tuple(a.aval for a in jaxpr.outs))


def typecheck_closed(jaxpr: Jaxpr, num_outs: int) -> JaxprType:
    """Typecheck and check the output arity (for params holding jaxprs)."""
    t = typecheck_jaxpr(jaxpr)
    if len(t.out_types) != num_outs:
        raise JaxprTypeError(f"expected a jaxpr with {num_outs} outputs, got type {t}")
    return t
