"""Pair lists: the body of every answer in the protocol (file 003, §6.2, Table 6.2).

Grammar (Table 6.2)::

    lista-de-pares = par *(espaço par)          ; a1 {a2 a3} a4 a5
    par            = nome 1*SP valor
    nome           = palavra
    valor          = palavra | ("{" lista "}")
    lista          = palavra 1*(SP palavra)
    espaço         = SP | CRLF
    palavra        = 1*caractere
    caractere      = %x21-7A | %x7C | %x7E      ; printable ASCII except { and }

Braces do not nest (``{`` and ``}`` are not characters), so a braced value is a flat list of
words; the ``ibi`` value's words alternate form/IBI
(``ibi {rep sid.inpe.br/… ibip 8JMKD3MGP7W/3EPGUE5}``, Table 9.4): see
:func:`ibiportal.resolver.reading.ibi_forms`.

Every value exists in two forms:

* **raw** – the value exactly as on the wire (ASCII, without its braces, ``%hh`` escapes
  kept). This is what to redirect a browser to, store, or compare: Example 6.2's ``url``
  raw value ``…/Relat%f3rio%20Final.pdf`` is the real URL.
* **text** – the raw value with every ``%hh`` decoded as one ISO-8859-1 character
  (§6.2: "ó … codificado no sistema da ISO/IEC 8859-1 pelo valor decimal 243, será
  representado por %f3"), i.e. ``…/Relatório Final.pdf``. This is what to show a person,
  and what to put into a request message (Table 6.1 re-encodes it; Examples 8.9 and §10).

Reading is tolerant where the grammar's strictness carries no meaning: pairs may be separated
by any run of spaces, CRLF or bare LF (the standard prints one pair per line), the body may
start and end with such separators (an answer usually ends with a line break), and a braced
value may contain runs of spaces. Everything else – unbalanced or nested braces, a name
without a value, non-ASCII bytes, control characters, a CR without LF – is a
:class:`~ibiportal.errors.ParseError` with its 1-based character position.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Message
from ibiportal.protocol.percent import escapes

Separator = Literal["\n", "\r\n", " "]

_PERCENT_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_CONTROL_NAMES = {0x09: "TAB", 0x0A: "LF", 0x0D: "CR", 0x00: "NUL", 0x7F: "DEL"}
#: A ``palavra`` of Table 6.2, and a raw value (words and spaces): what :class:`Pair` checks
#: first in one pass, before it walks the characters to name the one that is wrong. An answer
#: of the own Archive builds a hundred pairs; checked a character at a time they were a sixth of
#: an uncached resolution (``benchmarks/uncached.py``).
_WORD = re.compile(r"[\x21-\x7a\x7c\x7e]+")
_VALUE = re.compile(r"[\x20-\x7a\x7c\x7e]*")


def is_word_character(char: str) -> bool:
    """Whether ``char`` is a ``caractere`` of Table 6.2 (%x21-7A | %x7C | %x7E)."""
    code = ord(char)
    return 0x21 <= code <= 0x7A or code in (0x7C, 0x7E)


def decode_value(raw: str) -> str:
    """The text of a raw value: each ``%hh`` becomes the ISO-8859-1 character hh (§6.2).

    A ``%`` not followed by two hexadecimal digits is an ordinary character of Table 6.2 and
    is kept as it is.
    """
    return _PERCENT_ESCAPE.sub(lambda match: chr(int(match[1], 16)), raw)


def escape_value(text: str) -> str:
    """The raw (wire) form of a text value, so that ``decode_value(escape_value(t)) == t`` for
    every ``t`` within ISO-8859-1.

    Characters outside Table 6.2 – non-ASCII (ISO-8859-1, §6.2), control characters, ``{``,
    ``}`` – and ``%`` itself are written ``%hh`` in lower case, as ``%f3`` in Example 6.2; a
    character beyond ISO-8859-1 as its UTF-8 bytes (:mod:`ibiportal.protocol.percent`).
    A space between two words stays a space (the value becomes a braced word list, as
    ``{wrong registration key}``); a space at either end or next to another space is written
    ``%20``, since a word list cannot carry it.
    """
    out: list[str] = []
    last = len(text) - 1
    for index, char in enumerate(text):
        code = ord(char)
        if code > 0x7F:
            out.append(escapes(char))
        elif char == " ":
            lone = 0 < index < last and text[index - 1] != " " and text[index + 1] != " "
            out.append(" " if lone else "%20")
        elif char == "%" or not is_word_character(char):
            out.append(f"%{code:02x}")
        else:
            out.append(char)
    return "".join(out)


def _describe(char: str, from_bytes: bool) -> str:
    """A person-readable name of a character that is not allowed where it stands."""
    code = ord(char)
    if code > 0x7F:
        if from_bytes:
            return N_("non-ASCII byte 0x%(code)s (write it %%%(escape)s, §6.2)", code=f"{code:02X}", escape=f"{code:02x}")
        if code <= 0xFF:
            return N_("non-ASCII character %(char)s (U+%(code)s; write it %%%(escape)s, §6.2)", char=repr(char),
                      code=f"{code:04X}", escape=f"{code:02x}")
        return N_("non-ASCII character %(char)s (U+%(code)s; not in ISO-8859-1)", char=repr(char), code=f"{code:04X}")
    if code < 0x20 or code == 0x7F:
        name = _CONTROL_NAMES.get(code, f"0x{code:02X}")
        return N_("control character %(name)s (Table 6.2 allows printable ASCII only)", name=name)
    return repr(char)


@dataclass(frozen=True)
class Pair:
    """One ``nome valor`` pair of Table 6.2.

    ``value`` is the raw wire value, without braces: printable ASCII and spaces only
    (``""`` is the empty value ``{}``). ``position`` is the 1-based character at which the
    value starts in the parsed body (``None`` for a pair built in code); it is not part of
    equality.
    """

    name: str
    value: str
    position: int | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if _WORD.fullmatch(self.name) and _VALUE.fullmatch(self.value):  # the common case, checked in C
            return
        if not self.name:
            raise ParseError(N_("a pair name cannot be empty (Table 6.2: nome = palavra)"), field=self.name)
        for index, char in enumerate(self.name):
            if not is_word_character(char):
                raise ParseError(
                    N_("pair name %(name)r contains %(value)s at character %(value2)s; a name is one word of Table 6.2", name=self.name, value=_describe(char, False), value2=index + 1),
                    position=index + 1,
                    field=self.name,
                )
        for index, char in enumerate(self.value):
            if char != " " and not is_word_character(char):
                raise ParseError(
                    N_("value of %(name)r contains %(value)s at character %(value2)s; build it with Pair.from_text to escape it", name=self.name, value=_describe(char, False), value2=index + 1),
                    position=index + 1,
                    field=self.name,
                )

    @classmethod
    def from_text(cls, name: str, text: str) -> Pair:
        """A pair whose value is ``text`` escaped with :func:`escape_value`."""
        return cls(name, escape_value(text))

    @property
    def text(self) -> str:
        """The value as a person should read it (``%hh`` decoded as ISO-8859-1)."""
        return decode_value(self.value)

    def serialize(self) -> str:
        """``name value``, the value braced when empty or made of several words."""
        if self.value and " " not in self.value:
            return f"{self.name} {self.value}"
        return f"{self.name} {{{self.value}}}"


@dataclass(frozen=True)
class PairList:
    """An ordered pair list (Table 6.2); the empty list is the empty answer.

    The grammar does not forbid a name appearing twice, so duplicates are kept in order;
    :meth:`get`, :meth:`text` and :meth:`to_dict` use the first occurrence. Iteration yields
    ``(name, raw value)``.
    (An Archive's answer that gives one name two values is set aside by the resolver:
    :func:`ibiportal.resolver.reading.set_aside`.)
    """

    pairs: tuple[Pair, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "pairs", tuple(self.pairs))

    @classmethod
    def from_pairs(cls, items: Iterable[tuple[str, str]]) -> PairList:
        """A pair list from ``(name, text)`` items, each text escaped by :func:`escape_value`.

        For a value already in wire form (e.g. a percent-encoded URL an Archive serves),
        build :class:`Pair` objects directly instead: ``PairList([Pair("url", url)])``.
        """
        return cls(tuple(Pair.from_text(name, text) for name, text in items))

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return ((pair.name, pair.value) for pair in self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __contains__(self, name: object) -> bool:
        return any(pair.name == name for pair in self.pairs)

    def pair(self, name: str) -> Pair | None:
        """The first :class:`Pair` called ``name``, or ``None``."""
        return next((pair for pair in self.pairs if pair.name == name), None)

    def get(self, name: str, default: str | None = None) -> str | None:
        """The raw value of the first pair called ``name`` (wire form, ``%hh`` kept)."""
        found = self.pair(name)
        return default if found is None else found.value

    def text(self, name: str, default: str | None = None) -> str | None:
        """The decoded text of the first pair called ``name`` (for people and requests)."""
        found = self.pair(name)
        return default if found is None else found.text

    def names(self) -> tuple[str, ...]:
        """Every name, in order, duplicates included."""
        return tuple(pair.name for pair in self.pairs)

    def to_dict(self) -> dict[str, str]:
        """``{name: raw value}``, first occurrence winning (use for JSON, traces)."""
        result: dict[str, str] = {}
        for pair in self.pairs:
            result.setdefault(pair.name, pair.value)
        return result

    def serialize(self, separator: Separator = "\n") -> str:
        """The list as ASCII text, ``separator`` between pairs and nothing after the last.

        Table 6.2: ``lista-de-pares = par *(espaço par)`` with ``espaço = SP | CRLF`` – a
        separator stands *between* pairs only, so a reader comparing ``confirmation yes``
        exactly (Example 7.4) accepts it. ``"\\n"`` (default) gives one pair per line as the
        standard prints them; ``"\\r\\n"`` is the wire form; ``" "`` one line, as the status
        messages of §7.2 and JUNTAR (§9.2) produce them.
        """
        if separator not in ("\n", "\r\n", " "):
            raise ValueError(f"separator must be LF, CRLF or a space, not {separator!r}")
        return separator.join(pair.serialize() for pair in self.pairs)


def parse_pair_list(data: str | bytes) -> PairList:
    """Parse a pair list (Table 6.2), raising :class:`ParseError` with a 1-based position.

    ``bytes`` are read one byte per character; any byte above 0x7F is an error (§6.2 wants
    such bytes escaped as ``%hh``). Empty or blank input is the empty list.
    """
    from_bytes = isinstance(data, bytes)
    text = data.decode("latin-1") if isinstance(data, bytes) else data
    if _WELL_FORMED.fullmatch(text):  # read by one regular expression; the scanner names what is wrong
        return PairList(tuple(Pair(match[1], match[2] if match[2] is not None else match[3],
                                   position=match.start(2 if match[2] is not None else 3) + 1)
                              for match in _PAIR.finditer(text)))
    return PairList(tuple(_Scanner(text, from_bytes).pairs()))


#: Table 6.2's grammar as regular expressions (the tolerant separators of the module docstring
#: included): a well-formed list is read in one pass in C, and only a malformed one goes through
#: :class:`_Scanner`, which says where and why. The resolver reads every Archive's answer, the own
#: Archive's hundred pairs included: a character at a time that was a tenth of an uncached
#: resolution (``benchmarks/uncached.py``).
_PAIR_TEXT = r"([\x21-\x7a\x7c\x7e]+) +(?:\{([ \x21-\x7a\x7c\x7e]*)\}|([\x21-\x7a\x7c\x7e]+))"
_SEPARATORS = r"(?: |\r\n|\n)+"
_PAIR = re.compile(_PAIR_TEXT)
_WELL_FORMED = re.compile(rf"(?:{_SEPARATORS})?(?:{_PAIR_TEXT}(?:{_SEPARATORS}{_PAIR_TEXT})*(?:{_SEPARATORS})?)?")


class _Scanner:
    """A single left-to-right pass over a pair list; positions are 1-based."""

    def __init__(self, text: str, from_bytes: bool) -> None:
        self.text = text
        self.from_bytes = from_bytes
        self.index = 0

    def fail(self, message: str, index: int | None = None) -> ParseError:
        return ParseError(message, position=(self.index if index is None else index) + 1)

    def unexpected(self, where: str) -> ParseError:
        char = self.text[self.index]
        if char == "}":
            return self.fail(N_("unbalanced '}': no '{' is open"))
        if char == "\r":
            return self.fail(N_("CR not followed by LF (Table 6.2: CRLF)"))
        return self.fail(N_("%(char)s %(where)s", char=_describe(char, self.from_bytes), where=where))

    def at_end(self) -> bool:
        return self.index >= len(self.text)

    def peek(self) -> str:
        return self.text[self.index]

    def skip_separators(self) -> None:
        """Skip SP, CRLF and LF between pairs; a lone CR is an error."""
        while not self.at_end():
            char = self.peek()
            if char in " \n":
                self.index += 1
            elif char == "\r" and self.text.startswith("\r\n", self.index):
                self.index += 2
            elif char == "\r":
                raise self.fail(N_("CR not followed by LF (Table 6.2: CRLF)"))
            else:
                return

    def word(self) -> str:
        start = self.index
        while not self.at_end() and is_word_character(self.peek()):
            self.index += 1
        return self.text[start:self.index]

    def pairs(self) -> Iterator[Pair]:
        self.skip_separators()
        while not self.at_end():
            yield self.pair()
            self.skip_separators()

    def pair(self) -> Pair:
        name_index = self.index
        if self.peek() == "{":
            raise self.fail(N_("a name cannot be braced: '{' where a pair name should start"))
        name = self.word()
        if not name:
            raise self.unexpected(N_("where a pair name should start"))
        if self.at_end() or self.peek() in "\r\n":
            raise self.fail(N_("name %(name)s has no value", name=repr(name)), name_index)
        if self.peek() == "{":
            raise self.fail(N_("'{' inside name %(name)s: put a space between name and value", name=repr(name)))
        if self.peek() != " ":
            raise self.unexpected(N_("inside name %(name)s", name=repr(name)))
        while not self.at_end() and self.peek() == " ":
            self.index += 1
        if self.at_end() or self.peek() in "\r\n":
            raise self.fail(N_("name %(name)s has no value", name=repr(name)), name_index)
        value_index = self.index
        if self.peek() == "{":
            value, value_index = self.braced(), value_index + 1
            if not self.at_end() and self.peek() not in " \r\n":
                raise self.unexpected(N_("after the braced value of %(name)s: pairs are separated by spaces or line "
                                         "breaks", name=repr(name)))
        else:
            value = self.word()
            if not value:
                raise self.unexpected(N_("where the value of %(name)s should start", name=repr(name)))
            if not self.at_end() and self.peek() == "{":
                raise self.fail(N_("'{' inside the value of %(name)s: braces enclose a whole value", name=repr(name)))
            if not self.at_end() and self.peek() not in " \r\n":
                raise self.unexpected(N_("inside the value of %(name)s", name=repr(name)))
        return Pair(name, value, position=value_index + 1)

    def braced(self) -> str:
        open_index = self.index
        self.index += 1
        while not self.at_end() and self.peek() != "}":
            char = self.peek()
            if char == "{":
                raise self.fail(N_("nested '{' inside the value opened at character %(position)s (Table 6.2 has no "
                                   "nesting)", position=open_index + 1))
            if char in "\r\n":
                raise self.fail(N_("line break inside the braced value opened at character %(position)s (Table 6.2: "
                                   "words of a value are separated by SP)", position=open_index + 1))
            if char != " " and not is_word_character(char):
                raise self.unexpected(N_("inside the braced value opened at character %(position)s",
                                         position=open_index + 1))
            self.index += 1
        if self.at_end():
            raise self.fail(N_("unbalanced '{': no '}' closes it"), open_index)
        self.index += 1
        return self.text[open_index + 1:self.index - 1]


@dataclass(frozen=True)
class UnreadableAnswer:
    """Why an Archive's answer could not be read: a value, never raised (see :func:`read_answer`)."""

    message: str
    position: int | None = None

    def __str__(self) -> str:
        where = f" (at character {self.position})" if self.position is not None else ""
        return f"{self.message}{where}"

    @property
    def explanation(self) -> Message:
        """The same as ``str()``, as a message a page shows in its reader's language."""
        message = self.message if isinstance(self.message, Message) else Message(self.message)
        if self.position is None:
            return message
        return N_("%(message)s (at character %(position)s)", message=message, position=self.position)

    def to_dict(self) -> dict:
        """``{"message", "position"}``, the same shape as :meth:`ParseError.to_dict`."""
        return {"message": self.message, "position": self.position}


def read_answer(body: bytes | str) -> PairList | UnreadableAnswer:
    """Read an Archive's answer without raising: a :class:`PairList` or a :class:`UnreadableAnswer`.

    For the resolver, which must turn a malformed answer into a trace entry, not a crash.
    """
    try:
        return parse_pair_list(body)
    except ParseError as error:
        return UnreadableAnswer(error.message, error.position)
