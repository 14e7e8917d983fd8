"""The canonical text form of jaxprs (the tutorial's format).

Layout uses a tiny block combinator: ``a >> b`` puts block ``b`` to the right
of the last line of ``a``, indenting ``b``'s later lines to match, so nested
jaxprs in params print inline and stay readable. ``parse.py`` reads it back.
"""

from __future__ import annotations

import itertools
import math
import string
from collections.abc import Iterator
from contextvars import ContextVar

import numpy as np

from .avals import ShapedArray
from .dtypes import DType, bool_, complex128, float64, int64
from .ir import UNTRACED, Atom, Eqn, Jaxpr, LazyJaxpr, Lit, Param, Params, Var, install_jaxpr_printer

# Literals of these dtypes print bare; others carry a ``:dtype`` suffix.
DEFAULT_LIT_DTYPES: frozenset[DType] = frozenset({bool_, int64, float64, complex128})


class PP:
    """A block of lines, each with its indentation."""

    __slots__ = ("lines",)

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.lines = lines

    @staticmethod
    def text(s: str) -> PP:
        return PP([(0, line) for line in s.split("\n")])

    def indent(self, n: int) -> PP:
        return PP([(n + i, s) for i, s in self.lines])

    def __add__(self, other: PP) -> PP:
        return PP(self.lines + other.lines)

    def __rshift__(self, other: PP) -> PP:
        if not other.lines:
            return self
        if not self.lines:
            return other
        ind, last = self.lines[-1]
        first_ind, first = other.lines[0]
        rest = other.indent(ind + len(last)).lines[1:]
        return PP(self.lines[:-1] + [(ind, last + " " * first_ind + first)] + rest)

    def __str__(self) -> str:
        return "\n".join((" " * i + s).rstrip() for i, s in self.lines)


def vcat(blocks: list[PP]) -> PP:
    out: list[tuple[int, str]] = []
    for b in blocks:
        out.extend(b.lines)
    return PP(out)


# Names the parser reads as literals or keywords; no variable gets them.
RESERVED_NAMES: frozenset[str] = frozenset({"in", "let", "inf", "nan", "lambda"})


def names() -> Iterator[str]:
    """a, b, ..., z, ab, ac, ... (the tutorial's variable names)."""
    for r in itertools.count(1):
        for s in itertools.permutations(string.ascii_lowercase, r):
            name = "".join(s)
            if name not in RESERVED_NAMES:
                yield name


def lit_str(lit: Lit) -> str:
    v = lit.val
    dtype = lit.aval.dtype
    if isinstance(v, float):
        s = "nan" if math.isnan(v) else repr(v)
    elif isinstance(v, complex):
        s = complex_str(v)
    else:
        s = repr(v)
    return s if dtype in DEFAULT_LIT_DTYPES else f"{s}:{dtype.name}"


def _part(v: float) -> str:
    return "nan" if math.isnan(v) else repr(v)


def complex_str(v: complex) -> str:
    """A complex literal's text, one token: ``1.0+2.0j``, ``-0.0-1.5j``, ``nan+infj``."""
    im = v.imag
    neg = not math.isnan(im) and math.copysign(1.0, im) < 0
    return f"{_part(v.real)}{'-' if neg else '+'}{_part(-im if neg else im)}j"


#: Whether the printer is inside a custom rule's jaxpr (``LazyJaxpr``).
_IN_RULE: ContextVar[bool] = ContextVar("typedax_printing_a_rule", default=False)

#: How a rule the text does not hold prints (``parse.py`` reads it as ``ir.UNTRACED``).
UNTRACED_WORD = "untraced"


def _rule_jaxpr(p: LazyJaxpr) -> Jaxpr | None:
    """The jaxpr a custom rule prints as: traced now if need be, where the
    printer is not inside another rule already (text holds one level of
    rules: a rule calling its own function would nest without end); None
    (printed ``untraced``) inside a rule, for a rule that closed over arrays
    (the text has no array constants), or one whose tracing fails."""
    if p is UNTRACED or _IN_RULE.get():
        return None
    try:
        closed = p.force()
    except Exception:  # noqa: BLE001 - printing shows the program; using the rule raises
        return None
    return None if closed.consts else closed.jaxpr


def _pp_rule(jaxpr: Jaxpr) -> PP:
    token = _IN_RULE.set(True)
    try:
        return pp_jaxpr_block(jaxpr)
    finally:
        _IN_RULE.reset(token)


def param_str(p: Param) -> PP:
    if isinstance(p, Jaxpr):
        return pp_jaxpr_block(p)
    if isinstance(p, LazyJaxpr):
        j = _rule_jaxpr(p)
        return PP.text(UNTRACED_WORD) if j is None else _pp_rule(j)
    if isinstance(p, tuple):
        if len(p) == 1:
            return PP.text("(") >> param_str(p[0]) >> PP.text(",)")
        out = PP.text("(")
        for i, x in enumerate(p):
            out = out >> param_str(x)
            if i + 1 < len(p):
                out = out >> PP.text(", ")
        return out >> PP.text(")")
    if isinstance(p, np.dtype):
        return PP.text(p.name)
    if isinstance(p, str):
        return PP.text(_quote(p))
    if isinstance(p, float):
        return PP.text("nan" if math.isnan(p) else repr(p))
    return PP.text(repr(p))


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def pp_params(params: Params) -> PP:
    items = sorted(params.items(), key=lambda kv: kv[0])
    if not items:
        return PP.text(" ")
    out = PP.text(" [ ")
    for i, (k, v) in enumerate(items):
        out = out >> PP.text(f"{k}=") >> param_str(v)
        if i + 1 < len(items):
            out = out >> PP.text(", ")
    return out >> PP.text(" ] ")


class _Namer:
    """Names variables in order of binding; caches the text of the avals and
    params it has printed (jaxprs share them, and printing is linear-time)."""

    __slots__ = ("names", "gen", "types", "params")

    def __init__(self) -> None:
        self.names: dict[Var, str] = {}
        self.gen = names()
        self.types: dict[ShapedArray, str] = {}
        self.params: dict[int, str | None] = {}

    def bind(self, v: Var) -> str:
        n = self.names[v] = next(self.gen)
        t = self.types.get(v.aval)
        if t is None:
            t = self.types[v.aval] = v.aval.str_short()
        return f"{n}:{t}"

    def flat_params(self, params: Params) -> str | None:
        key = id(params)
        if key in self.params:
            return self.params[key]
        text = self.params[key] = _flat_params(params)
        return text

    def atom(self, a: Atom) -> str:
        if isinstance(a, Lit):
            return lit_str(a)
        n = self.names.get(a)
        if n is None:  # an unbound variable: print something, typecheck will say
            n = self.names[a] = next(self.gen)
        return n


def _flat_param(p: Param) -> str | None:
    """A param's text when it fits on one line (no nested jaxpr), else None."""
    if isinstance(p, Jaxpr):
        return None
    if isinstance(p, LazyJaxpr):
        return UNTRACED_WORD if _rule_jaxpr(p) is None else None
    if isinstance(p, tuple):
        parts = [_flat_param(x) for x in p]
        if any(x is None for x in parts):
            return None
        inner = ", ".join(x for x in parts if x is not None)
        return f"({inner},)" if len(p) == 1 else f"({inner})"
    return str(param_str(p))


def _flat_params(params: Params) -> str | None:
    if not params:
        return " "
    parts = []
    for k, v in sorted(params.items(), key=lambda kv: kv[0]):
        text = _flat_param(v)
        if text is None:
            return None
        parts.append(f"{k}={text}")
    return f" [ {', '.join(parts)} ] "


def pp_eqn(namer: _Namer, eqn: Eqn) -> PP:
    ins = " ".join(namer.atom(a) for a in eqn.inputs)
    lhs = " ".join(namer.bind(v) for v in eqn.out_binders)
    flat = namer.flat_params(eqn.params)
    if flat is not None:  # the common case: one line, no layout needed
        return PP([(0, f"{lhs} = {eqn.primitive.name}{flat}{ins}")])
    rhs = PP.text(eqn.primitive.name) >> pp_params(eqn.params) >> PP.text(ins)
    return PP.text(lhs) >> PP.text(" = ") >> rhs


def pp_jaxpr_block(jaxpr: Jaxpr) -> PP:
    namer = _Namer()
    binders = "".join(namer.bind(v) + " " for v in jaxpr.in_binders)
    eqns = vcat([pp_eqn(namer, e) for e in jaxpr.eqns])
    outs = ", ".join(namer.atom(a) for a in jaxpr.outs)
    body = (PP.text("let ") >> eqns) + PP.text(f"in ( {outs} ) }}")
    return PP.text(f"{{ lambda {binders}.") + body.indent(2)


def pp_jaxpr(jaxpr: Jaxpr) -> str:
    return str(pp_jaxpr_block(jaxpr))


install_jaxpr_printer(pp_jaxpr)
