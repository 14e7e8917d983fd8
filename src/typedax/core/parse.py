"""``parse_jaxpr``: the canonical jaxpr text (``pretty.py``) back to a ``Jaxpr``.

Two layers: ``lexer.tokenize`` turns the text into positioned tokens, and
``_Parser`` reads them by recursive descent -- each ``parse_x`` method reads
an ``x`` or raises ``JaxprSyntaxError`` saying what it expected and what it
found; each ``_optional_x`` returns ``None`` when no ``x`` starts here.
Every equation is checked against its primitive's abstract evaluation as it
is read, so a type error points at the line and column it comes from. The
grammar is written down in ``docs/jaxpr-grammar.md``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Final

import numpy as np
from pyrsistent import pmap

from .avals import ShapedArray
from .dtypes import (
    BY_NAME,
    COMPLEX,
    FLOATING,
    INTEGER,
    DType,
    bool_,
    complex64,
    complex128,
    float32,
    float64,
    int64,
    int_range,
)
from .errors import JaxprSyntaxError, JaxprTextTypeError, TypedaxError
from .ir import NO_PARAMS, UNTRACED, Atom, Eqn, Jaxpr, Lit, Param, Params, Primitive, Var
from .lexer import EOF, IDENT, NEGINF, NUM, STRING, Source, Tokens, decode_string, number_ok, tokenize
from .typecheck import typecheck_jaxpr

# Nesting of jaxprs and tuples the parser accepts: above what tracing can
# build under Python's default recursion limit (about 165 levels of nested
# jit/cond), so every jaxpr typedax prints parses back; deeper text is
# refused with a syntax error before it can exhaust Python's stack.
MAX_DEPTH: Final = 256
_FRAMES_PER_LEVEL: Final = 6  # the parser's Python frames per nesting level, with room
"""How deeply jaxprs and tuples may nest inside one another."""

MAX_DIM: Final = 2**63 - 1

_LITERAL_WORDS: Final = frozenset({"True", "False", "inf", "nan"})
_DTYPE_NAMES: Final = ", ".join(BY_NAME)
_PARAM_VALUE: Final = "a param value (a number, True, False, None, a string, a dtype, a tuple or a jaxpr)"
_BINDER: Final = "a binder like 'a:float32[3]'"

# Errors a buggy abstract-evaluation rule may raise on strange params; the
# parser reports them as type errors at the equation instead of crashing.
_RULE_ERRORS: Final = (TypedaxError, ArithmeticError, LookupError, TypeError, ValueError)


#: The registry ``parse_jaxpr`` reads without one: the library's lists every
#: family, so it sits above the core (``typedax.registry``, the jit layer),
#: and installs itself here with ``install_default_registry`` on import
#: (``import typedax`` imports it). ``None`` until then.
_DEFAULT_REGISTRY: list[Mapping[str, Primitive] | None] = [None]


def install_default_registry(registry: Mapping[str, Primitive]) -> None:
    """Make ``registry`` what ``parse_jaxpr`` reads by default (``typedax.registry`` on import)."""
    _DEFAULT_REGISTRY[0] = registry


def parse_jaxpr(text: str, registry: Mapping[str, Primitive] | None = None) -> Jaxpr:
    """Read a jaxpr from its text form, the inverse of ``str(jaxpr)``.

    Primitive names are looked up in ``registry`` (default: the library's,
    ``typedax.registry.REGISTRY``, which that module installs here when it is
    imported, as ``import typedax`` does; a user with primitives of their own passes
    ``REGISTRY.extended(their_family)``). Raises ``JaxprSyntaxError`` for
    text outside the grammar and ``JaxprTypeError`` (a ``JaxprTextTypeError``
    with line and column) for a jaxpr that reads but is not well typed.
    """
    if registry is None:
        registry = _DEFAULT_REGISTRY[0]
        if registry is None:
            raise RuntimeError(
                "parse_jaxpr: no registry given, and typedax.registry, which installs the library's as "
                "the default, is not imported (import typedax)"
            )
    source = Source(text)
    parser = _Parser(source, tokenize(source), registry)
    # room on Python's stack for MAX_DEPTH levels (the limit is only raised,
    # and restored when parsing ends)
    limit = sys.getrecursionlimit()
    needed = MAX_DEPTH * _FRAMES_PER_LEVEL + 2000
    if limit < needed:
        sys.setrecursionlimit(needed)
        try:
            return _parse_all(parser)
        finally:
            if sys.getrecursionlimit() == needed:  # unless someone else changed it meanwhile
                sys.setrecursionlimit(limit)
    return _parse_all(parser)


def _parse_all(parser: _Parser) -> Jaxpr:
    jaxpr = parser.parse_jaxpr(1)
    parser.parse_end()
    return jaxpr


_Pending = tuple[str, Var, int]  # an out binder read but not yet bound: name, var, token


class _Parser:
    __slots__ = ("src", "tokens", "kinds", "texts", "pos", "_types", "registry")

    def __init__(self, source: Source, tokens: Tokens, registry: Mapping[str, Primitive]) -> None:
        self.registry = registry
        self.src = source
        self.tokens = tokens
        self.kinds = tokens.kinds
        self.texts = tokens.texts
        self.pos = 0
        self._types: dict[str, ShapedArray] = {}  # canonical type tokens already read

    # -- errors ---------------------------------------------------------------
    def _found(self, i: int) -> str:
        if self.kinds[i] == EOF:
            return "end of input"
        t = self.texts[i]
        return repr(t if len(t) <= 32 else t[:29] + "...")

    def syntax_error(self, message: str, i: int, within: int = 0) -> JaxprSyntaxError:
        """An error at token ``i`` (``within`` characters into it)."""
        return self.src.error(message, self.tokens.offset(i) + within)

    def expected(self, what: str) -> JaxprSyntaxError:
        return self.syntax_error(f"expected {what}, found {self._found(self.pos)}", self.pos)

    def type_error(self, message: str, i: int) -> JaxprTextTypeError:
        line, column = self.src.position(self.tokens.offset(i))
        return JaxprTextTypeError(message, self.src.text, line, column)

    # -- tokens ---------------------------------------------------------------
    def parse_punct(self, p: str, what: str) -> None:
        if self.kinds[self.pos] != p:
            raise self.expected(f"'{p}' {what}")
        self.pos += 1

    def _optional_punct(self, p: str) -> bool:
        if self.kinds[self.pos] == p:
            self.pos += 1
            return True
        return False

    def _at_keyword(self, word: str) -> bool:
        return self.kinds[self.pos] == IDENT and self.texts[self.pos] == word

    def parse_keyword(self, word: str, what: str) -> None:
        if not self._at_keyword(word):
            raise self.expected(f"'{word}' {what}")
        self.pos += 1

    def _at_binder(self) -> bool:
        i = self.pos
        return (
            self.kinds[i] == IDENT
            and self.kinds[i + 1] == ":"
            and self.texts[i] not in _LITERAL_WORDS
        )

    def parse_end(self) -> None:
        if self.kinds[self.pos] != EOF:
            raise self.expected("end of input after the jaxpr")

    # -- jaxprs ---------------------------------------------------------------
    def parse_jaxpr(self, depth: int) -> Jaxpr:
        start = self.pos
        if depth > MAX_DEPTH:
            raise self.syntax_error(f"jaxprs and tuples nested more than {MAX_DEPTH} deep", start)
        self.parse_punct("{", "to open a jaxpr")
        self.parse_keyword("lambda", "after '{'")
        scope: dict[str, Var] = {}
        binders: list[Var] = []
        while self._at_binder():
            name, var, i = self.parse_binder(scope, ())
            scope[name] = var
            binders.append(var)
        if self.kinds[self.pos] != ".":
            raise self.expected(f"{_BINDER} or '.' after the input binders")
        self.pos += 1
        self.parse_keyword("let", "after 'lambda ... .'")
        eqns: list[Eqn] = []
        while True:
            if self._at_binder() or self.kinds[self.pos] == "=":
                eqns.append(self.parse_eqn(scope, depth))
            elif self._at_keyword("in"):
                break
            else:
                raise self.expected("an equation 'out:type = primitive ...' or 'in'")
        self.pos += 1
        self.parse_punct("(", "after 'in'")
        outs: list[Atom] = []
        if not self._optional_punct(")"):
            outs.append(self.parse_atom(scope))
            while self._optional_punct(","):
                outs.append(self.parse_atom(scope))
            self.parse_punct(")", "or ',' after an output")
        self.parse_punct("}", "to close the jaxpr")
        return self._finish(binders, eqns, outs, start)

    def _finish(self, binders: list[Var], eqns: list[Eqn], outs: list[Atom], start: int) -> Jaxpr:
        try:
            jaxpr = Jaxpr(tuple(binders), tuple(eqns), tuple(outs))
            typecheck_jaxpr(jaxpr)
        except TypedaxError as e:  # the per-equation checks should have caught it
            raise self.type_error(str(e), start) from e
        return jaxpr

    # -- names ------------------------------------------------------------------
    def parse_name(self, what: str) -> str:
        """An identifier naming a variable, a param or a primitive."""
        i = self.pos
        t = self.texts[i]
        if self.kinds[i] != IDENT or "[" in t:  # "[": a type token like float32[3]
            raise self.expected(what)
        self.pos += 1
        return t

    # -- binders and types ----------------------------------------------------
    def parse_binder(self, scope: dict[str, Var], pending: tuple[str, ...]) -> _Pending:
        i = self.pos
        name = self.parse_name(_BINDER)
        self.parse_punct(":", f"after the binder name '{name}'")
        aval = self.parse_type()
        if name in scope or name in pending:
            raise self.type_error(f"variable '{name}' is bound twice", i)
        return name, Var(aval), i

    def _dtype(self, name: str, i: int) -> DType:
        dtype = BY_NAME.get(name)
        if dtype is None:
            raise self.syntax_error(f"unknown dtype '{name}'; typedax supports {_DTYPE_NAMES}", i)
        return dtype

    def parse_dtype(self, what: str) -> DType:
        i = self.pos
        if self.kinds[i] != IDENT or "[" in self.texts[i]:
            raise self.expected(f"a dtype {what}")
        self.pos += 1
        return self._dtype(self.texts[i], i)

    def parse_type(self) -> ShapedArray:
        i = self.pos
        t = self.texts[i]
        if self.kinds[i] == IDENT and "[" in t:  # the canonical form: one token
            aval = self._types.get(t)
            if aval is None:
                aval = self._types[t] = self._type_token(t, i)
            self.pos += 1
            return aval
        dtype = self.parse_dtype("for the binder, like 'float32[3]'")
        self.parse_punct("[", "after the dtype to open the shape")
        dims: list[int] = []
        if not self._optional_punct("]"):
            dims.append(self._dim(self.texts[self.pos], self.pos, 0, self.kinds[self.pos] == NUM))
            self.pos += 1
            while self._optional_punct(","):
                dims.append(self._dim(self.texts[self.pos], self.pos, 0, self.kinds[self.pos] == NUM))
                self.pos += 1
            self.parse_punct("]", "or ',' in the shape")
        return ShapedArray(tuple(dims), dtype)

    def _type_token(self, t: str, i: int) -> ShapedArray:
        """The type of a token like ``float32[3,4]``."""
        name, _, rest = t.partition("[")
        dtype = self._dtype(name, i)
        dims: list[int] = []
        if rest != "]":
            at = len(name) + 1
            for d in rest[:-1].split(","):
                dims.append(self._dim(d, i, at, True))
                at += len(d) + 1
        return ShapedArray(tuple(dims), dtype)

    def _dim(self, d: str, i: int, within: int, is_num: bool) -> int:
        """One dimension size, ``d``, found ``within`` characters into token ``i``."""
        if not is_num or not d.isdigit() or (len(d) > 1 and d[0] == "0"):
            found = repr(d) if d else "nothing" if is_num else self._found(i)
            raise self.syntax_error(
                f"expected a dimension size (an integer >= 0, no leading zeros), found {found}",
                i,
                within,
            )
        n = int(d) if len(d) <= 20 else MAX_DIM + 1
        if n > MAX_DIM:
            raise self.syntax_error(
                f"dimension size {d} is too large (the limit is 2**63 - 1)", i, within
            )
        return n

    # -- equations ------------------------------------------------------------
    def parse_eqn(self, scope: dict[str, Var], depth: int) -> Eqn:
        pending: list[_Pending] = []
        while self._at_binder():
            pending.append(self.parse_binder(scope, tuple(p[0] for p in pending)))
        if self.kinds[self.pos] != "=":
            raise self.expected(f"{_BINDER} or '=' in an equation")
        self.pos += 1
        prim_i = self.pos
        t = self.texts[prim_i]
        bare = self.kinds[prim_i] == IDENT and t.endswith("[]")  # "prim[]": empty params
        if bare:
            self.pos += 1
        name = t[:-2] if bare else self.parse_name("a primitive name after '='")
        prim = self.registry.get(name)
        if prim is None:
            raise self.syntax_error(f"unknown primitive '{name}'", prim_i)
        has_params = not bare and self.kinds[self.pos] == "["
        params = self.parse_params(depth) if has_params else NO_PARAMS
        inputs: list[Atom] = []
        while (a := self._optional_atom(scope)) is not None:
            inputs.append(a)
        self._check_eqn(prim, prim_i, params, inputs, pending)
        for name, var, _ in pending:
            scope[name] = var
        return Eqn(prim, tuple(inputs), params, tuple(p[1] for p in pending))

    def _check_eqn(
        self,
        prim: Primitive,
        prim_i: int,
        params: Params,
        inputs: list[Atom],
        pending: list[_Pending],
    ) -> None:
        try:
            out_types = prim.abstract_eval([a.aval for a in inputs], params)
        except _RULE_ERRORS as e:
            message = str(e) if isinstance(e, TypedaxError) else f"{type(e).__name__}: {e}"
            raise self.type_error(f"{prim.name} rejects its operands: {message}", prim_i) from e
        if len(out_types) != len(pending):
            raise self.type_error(
                f"{prim.name} produces {len(out_types)} output(s) but the equation "
                f"binds {len(pending)}",
                prim_i,
            )
        for (name, var, i), t in zip(pending, out_types):
            if var.aval != t:
                raise self.type_error(
                    f"out binder '{name}' has type {var.aval.str_short()} but "
                    f"{prim.name} produces {t.str_short()}",
                    i,
                )

    # -- atoms and literals ---------------------------------------------------
    def _optional_atom(self, scope: dict[str, Var]) -> Atom | None:
        i = self.pos
        kind = self.kinds[i]
        if kind == NUM or kind == NEGINF:
            return self.parse_literal()
        if kind != IDENT:
            return None
        t = self.texts[i]
        if t in _LITERAL_WORDS:
            return self.parse_literal()
        nxt = self.kinds[i + 1]
        if nxt == ":" or (nxt == "(" and t == "in"):
            return None  # the next equation's binder, or the outputs
        return self.parse_var(scope)

    def parse_atom(self, scope: dict[str, Var]) -> Atom:
        kind = self.kinds[self.pos]
        if kind == NUM or kind == NEGINF or self.texts[self.pos] in _LITERAL_WORDS:
            return self.parse_literal()
        if kind == IDENT:
            return self.parse_var(scope)
        raise self.expected("a variable or a literal")

    def parse_var(self, scope: dict[str, Var]) -> Var:
        i = self.pos
        name = self.parse_name("a variable or a literal")
        var = scope.get(name)
        if var is None:
            raise self.type_error(f"unbound variable '{name}'", i)
        return var

    def parse_literal(self) -> Lit:
        i = self.pos
        kind, t = self.kinds[i], self.texts[i]
        if kind != NUM and kind != NEGINF and t not in _LITERAL_WORDS:
            raise self.expected("a literal")
        if kind == NUM and not number_ok(t):
            raise self.syntax_error(f"malformed number '{t}'", i)
        self.pos += 1
        if kind == NUM and t[-1] == "j":
            return self._complex(t, i)
        is_bool = t == "True" or t == "False"
        is_float = not is_bool and (kind == NEGINF or kind == IDENT or not _is_int_text(t))
        default = bool_ if is_bool else float64 if is_float else int64
        dtype = self.parse_dtype("after ':'") if self._optional_punct(":") else default
        if is_bool:
            if dtype != bool_:
                raise self.syntax_error(f"the literal {t} has dtype bool, not {dtype.name}", i)
            return Lit(t == "True", ShapedArray((), bool_))
        if is_float:
            return Lit.of(self._float(t, i, dtype), dtype)
        bounds = int_range(dtype) if dtype in INTEGER else None
        if bounds is None:
            hint = f", like {t}.0" if dtype in FLOATING else ""
            raise self.syntax_error(
                f"the integer literal {t} cannot have dtype {dtype.name}; "
                f"write a {dtype.name} literal{hint}",
                i,
            )
        v = self._int(t, i)
        if not bounds[0] <= v <= bounds[1]:
            raise self.syntax_error(f"the literal {t} is out of range for {dtype.name}", i)
        return Lit.of(v, dtype)

    def _int(self, t: str, i: int) -> int:
        try:
            return int(t)
        except ValueError:  # more digits than Python converts (sys.set_int_max_str_digits)
            raise self.syntax_error(f"the integer {t[:20]}... has too many digits", i) from None

    def _complex(self, t: str, i: int) -> Lit:
        dtype = self.parse_dtype("after ':'") if self._optional_punct(":") else complex128
        if dtype not in COMPLEX:
            raise self.syntax_error(f"the complex literal {t} cannot have dtype {dtype.name}", i)
        v = complex(t)
        part = float32 if dtype == complex64 else float64
        for x in (v.real, v.imag):
            with np.errstate(over="ignore"):
                big = math.isinf(float(np.asarray(x).astype(part)))
            if big and (math.isfinite(x) or "inf" not in t):
                raise self.syntax_error(f"the literal {t} is out of range for {dtype.name}", i)
        return Lit.of(v, dtype)

    def _float(self, t: str, i: int, dtype: DType) -> float:
        if t[-1] == "j":
            raise self.syntax_error(f"a complex number ({t}) is not a float", i)
        if dtype not in FLOATING:
            raise self.syntax_error(
                f"the float literal {t} cannot have dtype {dtype.name}", i
            )
        v = float(t)
        if math.isinf(v) and self.kinds[i] == NUM:
            raise self.syntax_error(f"the literal {t} is out of range for {dtype.name}", i)
        if dtype != float64 and math.isfinite(v):
            with np.errstate(over="ignore"):
                if math.isinf(float(np.asarray(v).astype(dtype))):
                    raise self.syntax_error(f"the literal {t} is out of range for {dtype.name}", i)
        return v

    # -- params -----------------------------------------------------------------
    def parse_params(self, depth: int) -> Params:
        self.parse_punct("[", "to open the params")
        items: dict[str, Param] = {}
        if self._optional_punct("]"):
            return NO_PARAMS
        while True:
            i = self.pos
            key = self.parse_name("a param name")
            if key in items:
                raise self.syntax_error(f"param '{key}' is given twice", i)
            self.parse_punct("=", f"after the param name '{key}'")
            items[key] = self.parse_param_value(depth)
            if self._optional_punct(","):
                continue
            self.parse_punct("]", "or ',' after a param")
            return pmap(items)

    def parse_param_value(self, depth: int) -> Param:
        i = self.pos
        kind, t = self.kinds[i], self.texts[i]
        if kind == "(":
            return self.parse_tuple(depth + 1)
        if kind == "{":
            return self.parse_jaxpr(depth + 1)
        self.pos += 1
        if kind == NUM:
            if not number_ok(t):
                raise self.syntax_error(f"malformed number '{t}'", i)
            return self._int(t, i) if _is_int_text(t) else self._float(t, i, float64)
        if kind == NEGINF:
            return -math.inf
        if kind == STRING:
            return decode_string(self.src, t, self.tokens.offset(i))
        if kind == IDENT:
            if t in _WORD_PARAMS:
                return _WORD_PARAMS[t]
            dtype = BY_NAME.get(t)
            if dtype is not None:
                return dtype
        self.pos = i
        raise self.expected(_PARAM_VALUE)

    def parse_tuple(self, depth: int) -> tuple[Param, ...]:
        if depth > MAX_DEPTH:
            raise self.syntax_error(f"jaxprs and tuples nested more than {MAX_DEPTH} deep", self.pos)
        self.parse_punct("(", "to open a tuple")
        if self._optional_punct(")"):
            return ()
        items: list[Param] = []
        while True:
            items.append(self.parse_param_value(depth))
            if self._optional_punct(","):
                if self._optional_punct(")"):
                    return tuple(items)
                continue
            if self.kinds[self.pos] == ")":
                if len(items) == 1:
                    raise self.syntax_error(
                        "a one-element tuple needs a trailing comma, like (x,)", self.pos
                    )
                self.pos += 1
                return tuple(items)
            raise self.expected("',' or ')' in a tuple")


_WORD_PARAMS: Final[dict[str, Param]] = {
    "True": True,
    "False": False,
    "None": None,
    "inf": math.inf,
    "nan": math.nan,
    "untraced": UNTRACED,  # a custom rule the text does not hold (core/pretty.py: UNTRACED_WORD)
}


def _is_int_text(t: str) -> bool:
    return "." not in t and "e" not in t and "E" not in t
