"""Persistent-URL modifiers and verbs (file 003, §8.1, Tables 8.1, 8.2, 8.4 and 8.5).

A modifier (``mdf``) is a composition of the elementary operators ``!`` (last edition),
``+`` (translation, optionally ``+(xx)`` or ``+(xx-YY)``) and ``:`` (metadata, optionally
``:(oai_dc)``, or URLib's ``:(BibINPE)``, STANDARD.md §8). Each operator is a :class:`Verb` with a symbol (Table 8.5); ``GetFileList`` is
the fourth verb and has none. Verbs are kept in the order written: ``+!`` is the last edition
*of the translation*, ``!+`` the translation *of the last edition*.

Positions in :class:`~ibiportal.errors.ParseError` are 1-based character numbers; the
scanners take a ``positions`` sequence so that a caller that decoded or sliced its input can
report positions in the whole original text.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

from ibiportal.errors import ParseError
from ibiportal.i18n import N_
from ibiportal.ibi.languages import country_problem, language_problem

GET_METADATA = "GetMetadata"
GET_LAST_EDITION = "GetLastEdition"
GET_TRANSLATION = "GetTranslation"
GET_FILE_LIST = "GetFileList"

VERBS: tuple[str, ...] = (GET_METADATA, GET_LAST_EDITION, GET_TRANSLATION, GET_FILE_LIST)
"""Table 8.4 rule ``verbo``: the four verb names, as written; read case-blind, as ABNF literals are."""

SYMBOLS: dict[str, str] = {":": GET_METADATA, "!": GET_LAST_EDITION, "+": GET_TRANSLATION}
"""Table 8.5: the symbol (synonym) of each verb that has one; ``GetFileList`` has none."""

_SYMBOL_OF = {verb: symbol for symbol, verb in SYMBOLS.items()}

RELATIONS: dict[str, str] = {GET_METADATA: ".metadata", GET_LAST_EDITION: ".lastedition", GET_TRANSLATION: ".translation"}
"""Table 9.5 rule ``relação``: the elementary relation of each verb; ``GetFileList`` adds none (§9.2)."""

OAI_DC = "oai_dc"
BIBINPE = "BibINPE"
METADATA_FORMATS: frozenset[str] = frozenset({OAI_DC, BIBINPE})
"""The metadata format parameters: Tables 8.1 and 8.4's ``formato = "oai_dc"``, and URLib's
``BibINPE`` (its "how to cite" page in INPE's form, STANDARD.md §8), which urlib.net answers as a
format beside ``oai_dc``. Read case-blind and written in these spellings, as ABNF literals are."""

MDF_SHAPE = re.compile(r"(?:!\+?|\+!?)?(?::\+?)?")
"""Table 8.1 ``mdf = ([u [t]] | [t [u]]) [m [t]]`` over bare symbols (parameters left out)."""

COMPOSITIONS: frozenset[str] = frozenset(
    word
    for length in range(1, 5)
    for word in map("".join, product("!+:", repeat=length))
    if MDF_SHAPE.fullmatch(word)
)
"""The 14 non-empty bare modifiers of Table 8.2, generated from :data:`MDF_SHAPE` (none is longer than 4)."""

_PREFIXES = frozenset(word[:end] for word in COMPOSITIONS for end in range(len(word) + 1))
"""Every bare modifier that can still grow into one of :data:`COMPOSITIONS` (the set is prefix-closed)."""

_VERB_NAME = re.compile(r"[A-Za-z_]*")
"""The name part of a verb of Table 8.4, read before its optional ``(`` parameter."""

_VERB_BY_FOLDED = {verb.casefold(): verb for verb in VERBS}
"""Table 8.4's verbs by their case-folded spelling: the grammar's literals are case-blind."""

_VERB_TOKEN = re.compile(r"[^+ ]*")
"""Everything up to the next separator of Table 8.4, to quote a word that is not a verb."""


@dataclass(frozen=True)
class Verb:
    """One verb of Table 8.4, with its parameter: ``GetTranslation(pt-BR)``, ``GetMetadata(oai_dc)``.

    Constructing an invalid verb raises :class:`ParseError` (without position).
    """

    name: str
    language: str | None = None
    country: str | None = None
    format: str | None = None

    def __post_init__(self) -> None:
        if self.name not in VERBS:
            raise ParseError(_unknown_verb(self.name))
        if self.name != GET_TRANSLATION and (self.language is not None or self.country is not None):
            raise ParseError(N_("`%(name)s` takes no language (Table 8.4)", name=self.name))
        if self.name != GET_METADATA and self.format is not None:
            raise ParseError(N_("`%(name)s` takes no format (Table 8.4)", name=self.name))
        problem = (
            (language_problem(self.language) if self.language is not None else None)
            or (country_problem(self.country) if self.country is not None else None)
            or (_format_problem(self.format) if self.format is not None else None)
        )
        if problem:
            raise ParseError(problem)
        if self.country is not None and self.language is None:
            raise ParseError(N_("a country needs a language: `+(xx-YY)` (Table 8.1)"))

    @classmethod
    def parse(cls, text: str) -> Verb:
        """Read one verb of Table 8.4, such as ``GetTranslation(pt-BR)``."""
        verb, end = _scan_verb(text, 0, range(1, len(text) + 2))
        if end != len(text):
            raise ParseError(N_("unexpected `%(text)s` after `%(text2)s` (Table 8.4)", text=text[end], text2=text[:end]), end + 1)
        return verb

    @property
    def parameter(self) -> str:
        """The parameter as written after the verb or symbol: ``(pt-BR)``, ``(oai_dc)`` or ``""``."""
        inner = self.format or "-".join(part for part in (self.language, self.country) if part)
        return f"({inner})" if inner else ""

    @property
    def bare(self) -> str:
        """The symbol without parameter (``!``, ``+``, ``:``), ``""`` for ``GetFileList``."""
        return _SYMBOL_OF.get(self.name, "")

    @property
    def symbol(self) -> str:
        """The modifier spelling (Table 8.5): ``+(pt-BR)``, ``:(oai_dc)``, ``!``; ``""`` for ``GetFileList``."""
        return self.bare + self.parameter if self.bare else ""

    @property
    def relation(self) -> str:
        """The elementary relation of Table 9.5: ``.translation(pt-BR)``, ``.lastedition``; ``""`` for ``GetFileList``."""
        return RELATIONS[self.name] + self.parameter if self.name in RELATIONS else ""

    def __str__(self) -> str:
        return self.name + self.parameter


@dataclass(frozen=True)
class Modifier:
    """A persistent-URL modifier: a composition of Table 8.2 (possibly empty), as verbs in written order."""

    verbs: tuple[Verb, ...] = ()

    def __post_init__(self) -> None:
        for verb in self.verbs:
            if not verb.bare:
                raise ParseError(N_("`%(verb)s` has no modifier symbol (Table 8.5)", verb=verb))
        check_composition(self.verbs)

    @classmethod
    def parse(cls, text: str) -> Modifier:
        """Read a whole modifier such as ``!:(oai_dc)`` or ``+(pt-BR)``; ``""`` is the empty modifier."""
        modifier, end = scan_modifier(text)
        if end != len(text):
            raise ParseError(N_("`%(text)s` is not a modifier: expected `!`, `+` or `:` (Table 8.1)", text=text[end]), end + 1)
        return modifier

    @property
    def shape(self) -> str:
        """The bare composition, parameters left out: ``!:`` for ``!:(oai_dc)``."""
        return "".join(verb.bare for verb in self.verbs)

    def __str__(self) -> str:
        return "".join(verb.symbol for verb in self.verbs)


def _format_problem(fmt: str) -> str | None:
    """Why ``fmt`` is not a metadata format of Table 8.1, or None."""
    if fmt in METADATA_FORMATS:
        return None
    return N_("only `(oai_dc)` (Table 8.1) and URLib's `(BibINPE)` (STANDARD.md §8) are metadata formats")


def _unknown_verb(name: str) -> str:
    """The message for a word that is not one of the four verbs of Table 8.4."""
    near = [verb for verb in VERBS if verb.lower() == name.lower()]
    if near:
        return N_("`%(name)s` is not a verb: verbs are GetMetadata, GetLastEdition, GetTranslation and GetFileList "
                  "(Table 8.4); did you mean `%(near)s`?", name=name, near=near[0])
    return N_("`%(name)s` is not a verb: verbs are GetMetadata, GetLastEdition, GetTranslation and GetFileList "
              "(Table 8.4)", name=name)


def order_reason(shape: str, bare: str) -> str | None:
    """Why the operator ``bare`` may not come after the bare modifier ``shape`` (Table 8.1), or None.

    Public so that a form can say why a verb is unavailable before anyone picks it.
    """
    if shape + bare in _PREFIXES:
        return None
    if bare == ":":
        return N_("metadata is asked once")
    if bare == "!":
        return N_("the last edition is asked once") if "!" in shape else N_("the last edition is asked before the metadata")
    if shape.endswith("+"):
        return N_("a translation is not translated again")
    return N_("a second translation may only follow `:` (translation of the metadata)")


def check_composition(verbs: Sequence[Verb], positions: Sequence[int] | None = None, field: str | None = None) -> None:
    """Raise :class:`ParseError` unless ``verbs`` form one modifier of Table 8.2 plus at most one ``GetFileList``.

    ``GetFileList`` may stand anywhere (its position does not matter, §8.1); the other verbs,
    in order, must spell one of :data:`COMPOSITIONS`. ``positions[k]`` locates ``verbs[k]``.
    """
    shape = ""
    done: list[str] = []
    file_lists = 0
    for index, verb in enumerate(verbs):
        where = positions[index] if positions is not None else None
        if verb.name == GET_FILE_LIST:
            file_lists += 1
            if file_lists > 1:
                raise ParseError(N_("`GetFileList` is asked once"), where, field)
            continue
        reason = order_reason(shape, verb.bare)
        if reason:
            raise ParseError(
                N_("`%(verb)s` may not follow `%(value)s` — %(reason)s: `%(shape)s%(bare)s` is not a modifier of Table 8.2", verb=verb, value='+'.join(done), reason=reason, shape=shape, bare=verb.bare),
                where,
                field,
            )
        shape += verb.bare
        done.append(str(verb))


def union_verbs(first: Sequence[Verb], second: Sequence[Verb]) -> tuple[Verb, ...]:
    """§8.2 union without repetition, order kept: ``first``, then the verbs of ``second`` it keeps
    (:func:`kept_in_union`)."""
    return tuple(first) + tuple(second[index] for index in kept_in_union(first, second))


def kept_in_union(first: Sequence[Verb], second: Sequence[Verb]) -> tuple[int, ...]:
    """The indexes of the verbs of ``second`` (``ibiurl.verblist``) that the union with ``first``
    (the modifier's verbs) keeps.

    A verb already in ``first`` is dropped (§8.2: "a união, sem repetição"). A verb repeated within
    ``second`` is merged too (STANDARD.md §7), unless the repetition composes a modifier of Table
    8.2: ``GetTranslation+GetMetadata+GetTranslation`` is ``+:+``, the translation of the metadata
    of a translation, while ``GetMetadata+GetMetadata`` asks the metadata once.
    """
    union = list(first)
    kept: list[int] = []
    for index, verb in enumerate(second):
        if verb in first or (verb in union and not _composes([*union, verb])):
            continue
        union.append(verb)
        kept.append(index)
    return tuple(kept)


def _composes(verbs: Sequence[Verb]) -> bool:
    try:
        check_composition(verbs)
    except ParseError:
        return False
    return True


def _read_parameter(text: str, index: int, positions: Sequence[int]) -> tuple[str | None, int, int]:
    """Read ``(content)`` at ``index``: ``(content, content_index, end)``, or ``(None, index, index)`` when absent."""
    if not text.startswith("(", index):
        return None, index, index
    close = text.find(")", index + 1)
    if close < 0:
        raise ParseError(N_("`(` is not closed by `)` (Table 8.1)"), positions[index])
    return text[index + 1 : close], index + 1, close + 1


def _translation(content: str, start: int, positions: Sequence[int]) -> Verb:
    """The ``GetTranslation`` verb for the parameter ``lang[-COUNTRY]`` found at ``start``."""
    language, dash, country = content.partition("-")
    language, country = language.lower(), country.upper()  # ABNF literals are case-blind (RFC 5234 §2.3)
    problem = language_problem(language)
    if problem:
        raise ParseError(problem, positions[start])
    if dash:
        problem = country_problem(country)
        if problem:
            raise ParseError(problem, positions[start + len(language) + 1])
    return Verb(GET_TRANSLATION, language, country if dash else None)


def _metadata(content: str, start: int, positions: Sequence[int]) -> Verb:
    """The ``GetMetadata`` verb for the format parameter found at ``start`` (``(OAI_DC)`` is ``(oai_dc)``,
    ``(bibinpe)`` is ``(BibINPE)``)."""
    content = next((known for known in METADATA_FORMATS if known.casefold() == content.casefold()), content)
    problem = _format_problem(content)
    if problem:
        raise ParseError(problem, positions[start])
    return Verb(GET_METADATA, format=content)


def _with_parameter(name: str, label: str, text: str, index: int, positions: Sequence[int]) -> tuple[Verb, int]:
    """The verb ``name`` (written ``label``) with the optional parameter at ``index``, and the index after it."""
    content, start, end = _read_parameter(text, index, positions)
    if content is None:
        return Verb(name), end
    if name == GET_TRANSLATION:
        return _translation(content, start, positions), end
    if name == GET_METADATA:
        return _metadata(content, start, positions), end
    raise ParseError(N_("`%(label)s` takes no parameter (Tables 8.1 and 8.4)", label=label), positions[index])


def scan_modifier(text: str, start: int = 0, positions: Sequence[int] | None = None) -> tuple[Modifier, int]:
    """Read the longest modifier of Table 8.1 at ``text[start:]``; return it and the index after it.

    ``positions[i]`` is the 1-based position reported for ``text[i]`` (default ``i + 1``;
    ``len(text) + 1`` entries). A symbol out of order raises at once, naming the rule.
    """
    where = positions if positions is not None else range(1, len(text) + 2)
    verbs: list[Verb] = []
    index = start
    while index < len(text) and text[index] in SYMBOLS:
        bare = text[index]
        shape = "".join(verb.bare for verb in verbs)
        reason = order_reason(shape, bare)
        if reason:
            written = "".join(verb.symbol for verb in verbs)
            raise ParseError(N_("`%(bare)s` may not follow `%(written)s` — %(reason)s (Table 8.1)", bare=bare, written=written, reason=reason), where[index])
        verb, index = _with_parameter(SYMBOLS[bare], bare, text, index + 1, where)
        verbs.append(verb)
    return Modifier(tuple(verbs)), index


def _scan_verb(text: str, start: int, positions: Sequence[int]) -> tuple[Verb, int]:
    """Read one verb of Table 8.4 at ``start``; return it and the index after it."""
    written = _VERB_NAME.match(text, start).group()
    name = _VERB_BY_FOLDED.get(written.casefold(), written)  # ``getlastedition`` is GetLastEdition (RFC 5234 §2.3)
    if name not in VERBS:
        raise ParseError(_unknown_verb(name or _VERB_TOKEN.match(text, start).group()), positions[start])
    return _with_parameter(name, written, text, start + len(written), positions)


def scan_verb_list(text: str, positions: Sequence[int] | None = None) -> tuple[tuple[Verb, int], ...]:
    """Read a whole ``lista-de-verbos`` (Table 8.4): each verb with its position.

    Verbs are separated by ``+`` or, where form decoding turned ``+`` into a space, by a space.
    """
    where = positions if positions is not None else range(1, len(text) + 2)
    if not text:
        return ()
    found: list[tuple[Verb, int]] = []
    index = 0
    while True:
        if index == len(text) or text[index] in "+ ":
            raise ParseError(N_("a verb is expected: verbs are separated by one `+` (Table 8.4)"), where[index])
        verb, end = _scan_verb(text, index, where)
        found.append((verb, where[index]))
        if end == len(text):
            return tuple(found)
        if text[end] not in "+ ":
            raise ParseError(N_("unexpected `%(text)s` after `%(verb)s`: verbs are separated by `+` (Table 8.4)", text=text[end], verb=verb), where[end])
        index = end + 1

