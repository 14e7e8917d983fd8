"""The first layer of the jaxpr parser: text to tokens with positions.

One compiled regular expression splits the whole text in one C-level pass
(``findall``); a token's kind comes from its first character. A token's
offset -- and from it the line and column -- is worked out only when an error
needs one. The grammar is in ``docs/jaxpr-grammar.md``.
"""

from __future__ import annotations

import bisect
import re
from typing import Final

from .errors import JaxprSyntaxError

# Token kinds. Punctuation tokens use their own character as their kind.
NUM: Final = "number"
NEGINF: Final = "-inf"
IDENT: Final = "identifier"
STRING: Final = "string"
EOF: Final = "end of input"
_BAD: Final = "bad"

# One token after optional whitespace. A number is matched loosely (its digits
# and any letters, dots or exponent sign glued to them) and checked by
# ``number_ok`` where it is used; an identifier may carry a canonical shape
# (``float32[3,4]``) so that a binder's type is one token, a complex literal
# is one number token (``1.0-2.5j``, ``nan+infj``: ``core/pretty.py``), hyphens before
# letters (JAX's ``scatter-add``), and an extended dtype's ``<impl>``
# (``key<fry>[3]``).
_TOKEN: Final = re.compile(
    r"""\s*(
      -?(?:nan|inf|\d[\d.]*(?:[eE][+-]?\d+)?)[+-](?:nan|inf|\d[\d.]*(?:[eE][+-]?\d+)?)j(?!\w)
    | -inf(?!\w)
    | -?\d[\w.]*(?:(?<=[eE])[+-][\w.]*)?
    | [A-Za-z_]\w*(?:-[A-Za-z_]\w*)*(?:<\w+>)?(?:\[[\d,]*\])?
    | "(?:[^"\\\n]|\\.)*"
    | [{}()\[\],.:=]
    | \S
    )""",
    re.VERBOSE | re.ASCII | re.DOTALL,
)

_NUMBER: Final = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", re.ASCII)
_PART: Final = r"(?:nan|inf|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
_COMPLEX: Final = re.compile(rf"-?{_PART}[+-]{_PART}j", re.ASCII)
#: How a complex literal whose real part is NaN or infinite starts (the
#: tokenizer's first-character rule reads it as an identifier).
_WORD_COMPLEX: Final = ("nan+", "nan-", "inf+", "inf-")

_FIRST: Final[dict[str, str]] = {
    **{c: NUM for c in "0123456789"},
    **{c: IDENT for c in "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
    **{c: c for c in "{}()[],.:="},
    '"': STRING,
    "-": "-",
}

_ESCAPES: Final[dict[str, str]] = {"\\": "\\", '"': '"', "n": "\n", "t": "\t"}


def number_ok(text: str) -> bool:
    """Whether a number token is well formed (``-?digits[.digits][e[+-]digits]``,
    or a complex ``real+imagj`` of two such parts, ``nan`` or ``inf``)."""
    return _NUMBER.fullmatch(text) is not None or _COMPLEX.fullmatch(text) is not None


class Source:
    """The text being parsed, and how offsets map to lines and columns.

    Lines are counted the way ``str.splitlines`` counts them, which is how
    ``JaxprSyntaxError`` shows the offending line.
    """

    __slots__ = ("text", "_line_starts")

    def __init__(self, text: str) -> None:
        self.text = text
        self._line_starts: list[int] | None = None

    def _starts(self) -> list[int]:
        """The offset where each line starts; the end of the text counts as a
        last line start only when the text ends with a line break."""
        if self._line_starts is None:
            lines = self.text.splitlines(keepends=True)
            starts = [0]
            for line in lines:
                starts.append(starts[-1] + len(line))
            if lines and lines[-1].splitlines()[0] == lines[-1]:
                starts.pop()  # the last line has no break: the end is on it
            self._line_starts = starts
        return self._line_starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``."""
        starts = self._starts()
        i = max(bisect.bisect_right(starts, offset) - 1, 0)
        return i + 1, offset - starts[i] + 1

    def error(self, message: str, offset: int) -> JaxprSyntaxError:
        line, column = self.position(offset)
        return JaxprSyntaxError(message, self.text, line, column)


class Tokens:
    """Parallel lists (fast to index): each token's kind and text.

    The last token is always ``EOF``. Offsets into the text are worked out
    only when an error needs one.
    """

    __slots__ = ("kinds", "texts", "_text", "_offsets")

    def __init__(self, text: str, kinds: list[str], texts: list[str]) -> None:
        self.kinds = kinds
        self.texts = texts
        self._text = text
        self._offsets: list[int] | None = None

    def offset(self, i: int) -> int:
        """Where token ``i`` starts in the text."""
        if self._offsets is None:
            self._offsets = [m.start(1) for m in _TOKEN.finditer(self._text)]
            self._offsets.append(len(self._text))
        return self._offsets[i]


def tokenize(source: Source) -> Tokens:
    """Split ``source`` into tokens, or raise ``JaxprSyntaxError`` at the
    first character that starts no token."""
    text = source.text
    texts: list[str] = _TOKEN.findall(text)
    first = _FIRST.get
    kinds = [first(t[0], _BAD) for t in texts]
    if "-" in kinds:
        for i, k in enumerate(kinds):
            if k == "-":
                t = texts[i]
                kinds[i] = NEGINF if t == "-inf" else NUM if len(t) > 1 else _BAD
    if any(w in text for w in _WORD_COMPLEX):
        for i, t in enumerate(texts):
            if t.startswith(_WORD_COMPLEX):
                kinds[i] = NUM
    tokens = Tokens(text, kinds, texts)
    if _BAD in kinds:
        i = kinds.index(_BAD)
        raise source.error(f"unexpected character {texts[i]!r}", tokens.offset(i))
    if '"' in texts:
        i = texts.index('"')
        raise source.error(
            "unterminated string: expected a closing '\"' on this line", tokens.offset(i)
        )
    kinds.append(EOF)
    texts.append("")
    return tokens


def decode_string(source: Source, token: str, offset: int) -> str:
    """The value of a string token (its quotes removed, escapes decoded)."""
    body = token[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            esc = body[i + 1]
            decoded = _ESCAPES.get(esc)
            if decoded is None:
                raise source.error(
                    f"unknown escape '\\{esc}' in a string (use \\\\, \\\", \\n or \\t)",
                    offset + 1 + i,
                )
            out.append(decoded)
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)
