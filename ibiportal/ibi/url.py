"""Persistent URLs (file 003, §8.1 and §8.2: Tables 8.1, 8.3, 8.6 and 8.8).

``http://urlib.net/<ibi><mdf><path-absolute>?<query>``, read from a full URL on any resolver
host, from a host-less path (``/LK47B6W/362SFKH+``) or from a bare IBI with its modifier
(``8JMKD3MGP8W/35MMLL8!:(oai_dc)``). Decisions where file 003 is silent:

* Scheme ``http`` or ``https`` (any case); any host and port, no user information. Spaces
  around the whole input are ignored; positions still count them.
* The IBI is read verbatim by :func:`ibiportal.ibi.identifier.split_ibi` (its characters never
  need percent-encoding). What follows it up to the query — modifier and file path — is
  percent-decoded as UTF-8 (so ``%21`` is ``!`` and ``%2F`` is ``/``); ``+`` stays ``+`` there.
* File 002's legacy metadata suffix ``??`` is read as ``:`` where it follows the IBI or its
  modifier (``…/35MMLL8??`` is ``…/35MMLL8:``; ``…/35MMLL8???a=b`` is ``…/35MMLL8:?a=b``).
* ``#`` starts a fragment (RFC 3986), although Table 8.1's ``caractere`` admits it: browsers
  never send it, so it is kept apart, never interpreted, and given back in canonical forms.
* A file path is ``path-absolute``: a lone ``/`` means no file; ``//…`` and the dot segments
  ``.`` and ``..`` are refused (the path names a file inside the item).
* The query is ``name=value`` pairs joined by ``&`` (Table 8.1); names and values are
  form-decoded (``+`` is a space, Table 6.1, then ``%hh`` as UTF-8). A raw character outside
  ``%x21-7E`` and a second raw ``=`` in a pair must be percent-encoded, and are refused.
* Two pairs are the resolver's (Table 8.3): ``ibiurl.requireditemstatus`` takes exactly
  ``Original`` (case-sensitive), ``ibiurl.verblist`` a ``lista-de-verbos`` (Table 8.4; verbs
  joined by ``+`` or, form-decoded, by spaces; empty means none); either given twice is an
  error. Every other pair is kept in order for the item, other ``ibiurl.`` names included:
  URLib's own links carry ``ibiurl.backgroundlanguage``, ``ibiurl.requiredsite`` and more
  (STANDARD.md §6), and refusing them would refuse the links people hold. Those pairs are kept
  *verbatim* as well as decoded: the item gets them as they were written (``+`` for a space,
  the escapes' case), and a value whose escapes are not UTF-8 (URLib's older pages wrote
  Latin-1: ``num%E9rica``) is decoded as Latin-1 for display instead of being refused.
* ``parsedibiurl.verblist`` is the modifier's verbs, then the ``ibiurl.verblist`` verbs not
  already among them, a verb repeated in the list counted once unless the repetition composes
  a modifier (``+:+``) (§8.2: "a união, sem repetição"; STANDARD.md §7); together they must still form a modifier of Table 8.2 plus at
  most one ``GetFileList``, else the URL asks for something that does not exist.
"""
from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote, unquote_plus

from ibiportal.errors import ParseError
from ibiportal.i18n import N_
from ibiportal.ibi.identifier import Identifier, split_ibi
from ibiportal.ibi.modifiers import (
    Modifier, Verb, check_composition, kept_in_union, scan_modifier, scan_verb_list, union_verbs,
)

DEFAULT_RESOLVER = "http://urlib.net/"
"""The resolver of Table 8.1 (``"http://urlib.net/" IBI …``)."""

REQUIRED_ITEM_STATUS = "ibiurl.requireditemstatus"
VERB_LIST = "ibiurl.verblist"
ORIGINAL = "Original"
"""Table 8.3: the names of the resolver's two query pairs, and the one status value."""

RESOLVER_PAIRS = frozenset({REQUIRED_ITEM_STATUS, VERB_LIST})
"""The query pairs the resolver interprets (Table 8.3); all others are passed on to the item."""

SCHEMES = frozenset({"http", "https"})
"""The schemes of a persistent URL (Table 8.1 writes ``http``; ``https`` is accepted too)."""

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
"""RFC 3986 ``scheme ":"`` at the start of the input (an IBI never matches: it has ``/`` before any ``:``)."""

_AUTHORITY = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
"""``host [":" port]`` of the resolver: a name, an IPv4 address or a bracketed IPv6 address."""

_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
"""One ``%hh`` escape (Table 6.1)."""

TABLE_6_1 = frozenset(" %&+=?")
"""Table 6.1: characters that a query value must percent-encode (space, ``%``, ``&``, ``+``, ``=``, ``?``)."""

_PATH_SAFE = "/:@!$&'()*+,;="
"""RFC 3986 ``pchar`` beyond the unreserved characters, plus ``/``: left as they are in a file path."""


def encode_query_component(text: str) -> str:
    """Percent-encode a query name or value: Table 6.1's characters, ``#``, and all but ``%x21-7E`` as UTF-8."""
    return "".join(
        char if "!" <= char <= "~" and char not in TABLE_6_1 and char != "#" else "".join(f"%{byte:02X}" for byte in char.encode())
        for char in text
    )


def _describe(char: str) -> str:
    """A character as a message shows it (a space in words, in the reader's language)."""
    if char == " ":
        return N_("a space")
    return f"`{char}`" if char.isprintable() else f"U+{ord(char):04X}"


def _decode(text: str, start: int, end: int, *, plus_is_space: bool = False) -> tuple[str, list[int]]:
    """Percent-decode ``text[start:end]`` as UTF-8 (with ``+`` as a space in a query).

    Returns the characters and, for each, the 1-based position in ``text`` where it begins,
    plus one more entry for the position just after the span.
    """
    chars: list[str] = []
    positions: list[int] = []
    decoder = codecs.getincrementaldecoder("utf-8")()
    pending: int | None = None
    index = start
    while index < end:
        char = text[index]
        if char == "%":
            if not _ESCAPE.match(text, index, end):
                raise ParseError(N_("`%` must begin a `%hh` escape (Table 6.1)"), index + 1)
            pending = pending or index + 1
            try:
                decoded = decoder.decode(bytes([int(text[index + 1 : index + 3], 16)]))
            except UnicodeDecodeError as exc:
                raise ParseError(N_("these `%hh` escapes are not UTF-8 text"), pending) from exc
            if decoded:
                chars.append(decoded)
                positions.append(pending)
                pending = None
            index += 3
            continue
        if pending is not None:
            break
        if not "!" <= char <= "~":
            raise ParseError(N_("%(value)s must be percent-encoded (Table 6.1)", value=_describe(char)), index + 1)
        chars.append(" " if plus_is_space and char == "+" else char)
        positions.append(index + 1)
        index += 1
    if pending is not None:
        raise ParseError(N_("these `%hh` escapes are not UTF-8 text: a character is cut short"), pending)
    positions.append(end + 1)
    return "".join(chars), positions


def check_filepath(path: str, positions: Sequence[int] | None = None, field: str | None = None) -> str | None:
    """Check a decoded file path (``path-absolute``): return it, or None for a lone ``/`` (no file)."""
    where = positions if positions is not None else range(1, len(path) + 2)
    if not path.startswith("/"):
        raise ParseError(N_("a file path begins with `/` (path-absolute, Table 8.1)"), where[0], field)
    if path == "/":
        return None
    if path.startswith("//"):
        raise ParseError(N_("a file path may not begin with `//` (path-absolute, RFC 3986)"), where[1], field)
    offset = 1
    for segment in path[1:].split("/"):
        if segment in (".", ".."):
            raise ParseError(
                N_("`%(segment)s` is not allowed as a path segment: the file path names a file inside the item", segment=segment),
                where[offset],
                field,
            )
        offset += len(segment) + 1
    return path


def _read_resolver(text: str, start: int, end: int) -> tuple[str | None, int]:
    """Read ``scheme://host[:port]/`` (or a host-less ``/``) at ``start``: the resolver base and where the IBI begins.

    The base is ``/`` for a host-less path and None for a bare IBI.
    """
    scheme = _SCHEME.match(text, start, end)
    if scheme and text.startswith("//", scheme.end(), end):
        if scheme.group(1).lower() not in SCHEMES:
            raise ParseError(N_("`%(value)s` is not a scheme of persistent URLs: use http or https (Table 8.1)", value=scheme.group(1)), start + 1)
        host_start = scheme.end() + 2
        host_end = next((i for i in range(host_start, end) if text[i] in "/?#"), end)
        authority = text[host_start:host_end]
        if "@" in authority:
            raise ParseError(N_("user information (`…@`) is not part of a persistent URL"), host_start + authority.index("@") + 1)
        if not _AUTHORITY.fullmatch(authority):
            raise ParseError(N_("`%(authority)s` is not a host[:port]", authority=authority) if authority
                             else N_("a host is expected after `//`"), host_start + 1)
        if host_end == end or text[host_end] != "/":
            raise ParseError(N_("no IBI: it follows the host, as in http://urlib.net/<IBI> (Table 8.1)"), host_end + 1)
        return f"{scheme.group(1).lower()}://{authority.lower()}/", host_end + 1
    if scheme and scheme.group(1).lower() in SCHEMES:
        raise ParseError(N_("`//` is expected after `%(value)s`", value=scheme.group()), scheme.end() + 1)
    if text.startswith("//", start, end):
        raise ParseError(N_("a host needs a scheme: write `http://host/…`"), start + 1)
    return ("/", start + 1) if text.startswith("/", start, end) else (None, start)


def normalize_base(base: str) -> str:
    """A resolver base as canonical URLs begin: ``http(s)://host[:port]/``, or ``/`` for host-less paths.

    :raises ParseError: (``field="base"``) when ``base`` is not such a base.
    """
    if base.rstrip("/") == "":
        return "/"
    text = base if base.endswith("/") else base + "/"
    try:
        resolver, index = _read_resolver(text, 0, len(text))
    except ParseError as exc:
        raise ParseError(exc.message, exc.position, "base") from exc
    if resolver is None or index != len(text):
        raise ParseError(N_("a resolver base is `http://host[:port]/`"), 1, "base")
    return resolver


@dataclass(frozen=True)
class PersistentUrl:
    """A parsed persistent URL: the IBI, the modifier, the file path and the query (Tables 8.1, 8.3, 8.6).

    ``query_verbs`` are the verbs of ``ibiurl.verblist``; ``query`` the other pairs, decoded, in
    order, and ``query_text`` the same pairs as written in the URL parsed (empty when the URL was
    composed: its pairs are then encoded from ``query``); ``resolver`` the ``scheme://host/`` the URL was given with (``/`` for a host-less
    path, None for a bare IBI); ``fragment`` what followed ``#``, verbatim.
    """

    ibi: Identifier
    modifier: Modifier = Modifier()
    filepath: str | None = None
    required_item_status: str | None = None
    query_verbs: tuple[Verb, ...] = ()
    query: tuple[tuple[str, str], ...] = ()
    resolver: str | None = None
    fragment: str | None = None
    query_text: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if self.required_item_status not in (None, ORIGINAL):
            raise ParseError(N_("`%(required_item_status)s` takes only the value `%(original)s` (Table 8.3)", required_item_status=REQUIRED_ITEM_STATUS, original=ORIGINAL))
        if self.filepath is not None and check_filepath(self.filepath) is None:
            raise ParseError(N_("a file path names a file: write no path rather than `/`"))
        for name, _ in self.query:
            if name.lower() in RESOLVER_PAIRS:
                raise ParseError(N_("`%(name)s` is a resolver pair (Table 8.3), not one passed on to the item", name=name))
        check_composition(self.verbs)

    @classmethod
    def parse(cls, text: str) -> PersistentUrl:
        """Read a persistent URL, a host-less path or a bare IBI with modifiers; see :func:`parse_persistent_url`."""
        return parse_persistent_url(text)

    @property
    def verbs(self) -> tuple[Verb, ...]:
        """``parsedibiurl.verblist`` (§8.2): the modifier's verbs, then the new ones of ``ibiurl.verblist``."""
        return union_verbs(self.modifier.verbs, self.query_verbs)

    @property
    def relation(self) -> str:
        """The relation asked for (Table 9.5), such as ``.lastedition.metadata(oai_dc)``; ``""`` is the item itself."""
        return "".join(verb.relation for verb in self.verbs)

    def to_table_8_8(self) -> dict[str, object]:
        """The data the resolver extracts (Tables 8.6 and 8.8), under their own names."""
        return {
            "parsedibiurl.ibi": str(self.ibi),
            "parsedibiurl.verblist": [str(verb) for verb in self.verbs],
            "parsedibiurl.filepath": self.filepath,
            "parsedibiurl.requireditemstatus": self.required_item_status,
        }

    def canonical_symbols(self, base: str | None = None) -> str:
        """This URL with its verbs as modifier symbols (``…/IBI!:(oai_dc)``); ``GetFileList`` stays in the query.

        ``base`` defaults to the resolver the URL came with, else :data:`DEFAULT_RESOLVER`.
        """
        symbols = Modifier(tuple(verb for verb in self.verbs if verb.bare))
        return self._spell(base, str(symbols), tuple(verb for verb in self.verbs if not verb.bare))

    def canonical_verblist(self, base: str | None = None) -> str:
        """This URL with all its verbs in ``ibiurl.verblist`` (``…/IBI?ibiurl.verblist=GetLastEdition+…``)."""
        return self._spell(base, "", self.verbs)

    def _spell(self, base: str | None, mdf: str, verbs: Sequence[Verb]) -> str:
        """The URL text with modifier ``mdf`` and ``verbs`` in the query, pairs in canonical order."""
        pairs = [f"{REQUIRED_ITEM_STATUS}={self.required_item_status}"] if self.required_item_status else []
        if verbs:
            pairs.append(f"{VERB_LIST}={'+'.join(str(verb) for verb in verbs)}")
        if self.query:
            pairs.append(self.passed_on_query())
        url = normalize_base(base if base is not None else self.resolver or DEFAULT_RESOLVER) + str(self.ibi) + mdf
        if self.filepath:
            url += quote(self.filepath, safe=_PATH_SAFE)
        if pairs:
            url += "?" + "&".join(pairs)
        return url if self.fragment is None else f"{url}#{self.fragment}"

    def passed_on_query(self) -> str:
        """The pairs passed on to the item, ``&``-joined: as written when parsed, else encoded."""
        if len(self.query_text) == len(self.query):
            return "&".join(self.query_text)
        return "&".join(f"{encode_query_component(name)}={encode_query_component(value)}" for name, value in self.query)

    def __str__(self) -> str:
        return self.canonical_symbols()


_UNRESERVED_ESCAPE = re.compile(r"%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee]|40)")
"""``%hh`` of an unreserved character (RFC 3986 §2.3) or of ``@`` (a ``pchar``, part of legacy
repository names): the same character as written plainly (§6.2.2.2), never a delimiter here."""


def _unreserved_decoded(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """``text[start:end]`` with :data:`_UNRESERVED_ESCAPE` escapes decoded (``/%38JMKD3MGP8W/…`` is
    ``/8JMKD3MGP8W/…``), and for each character, and one past the end, its index in ``text``."""
    piece = text[start:end]
    if "%" not in piece:
        return piece, list(range(start, end + 1))
    chars: list[str] = []
    origin: list[int] = []
    index = start
    while index < end:
        match = _UNRESERVED_ESCAPE.match(text, index, end)
        chars.append(chr(int(text[index + 1:index + 3], 16)) if match else text[index])
        origin.append(index)
        index += 3 if match else 1
    return "".join(chars), origin + [end]


def _modifier_and_path(text: str, ibi_end: int, query_at: int, body_end: int) -> tuple[str, list[int], int]:
    """Decode what follows the IBI up to the query, reading file 002's ``??`` as ``:``.

    Returns the characters, their positions, and the index of the query's ``?`` (-1 if none).
    """
    chars, positions = _decode(text, ibi_end, query_at if query_at >= 0 else body_end)
    if query_at < 0 or not text.startswith("??", query_at, body_end) or "/" in chars:
        return chars, positions, query_at
    next_query = text.find("?", query_at + 2, body_end)
    more, more_positions = _decode(text, query_at + 2, next_query if next_query >= 0 else body_end)
    return chars + ":" + more, positions[:-1] + [query_at + 1] + more_positions, next_query


def _passed_on(text: str, start: int, equals: int, end: int) -> tuple[str, str]:
    """A pair passed on to the item, decoded; escapes that are not UTF-8 read as Latin-1.

    Such pairs are "ignorados por este sistema" (§8.1): a name without ``=`` (``equals == end``,
    ``?d``) has the empty value, and a value may hold ``=`` (``?a=b=c``); they are passed on as
    written (:meth:`PersistentUrl.passed_on_query`).
    """
    value_start = min(equals + 1, end)
    try:
        return (_decode(text, start, equals, plus_is_space=True)[0],
                _decode(text, value_start, end, plus_is_space=True)[0])
    except ParseError as exc:
        if "not UTF-8" not in exc.message:
            raise
        return unquote_plus(text[start:equals], encoding="latin-1"), unquote_plus(text[value_start:end], encoding="latin-1")


def _read_query(
    text: str, start: int, end: int
) -> tuple[str | None, tuple[tuple[Verb, int], ...], tuple[tuple[str, str], ...], tuple[str, ...]]:
    """Read the query ``text[start:end]`` (Tables 8.1 and 8.3): the status, the located verbs, the
    other pairs decoded and as written."""
    status: str | None = None
    verbs: tuple[tuple[Verb, int], ...] = ()
    pairs: list[tuple[str, str]] = []
    written: list[str] = []
    seen: dict[str, int] = {}
    index = start
    while index < end:
        pair_end = text.find("&", index, end)
        pair_end = end if pair_end < 0 else pair_end
        equals = text.find("=", index, pair_end)
        if pair_end == index:
            raise ParseError(N_("a pair is expected: pairs are `name=value` joined by one `&` (Table 8.1)"), index + 1)
        if equals == index:
            raise ParseError(N_("a pair needs a name before `=` (Table 8.1)"), index + 1)
        name, value = _passed_on(text, index, pair_end if equals < 0 else equals, pair_end)
        if name.lower().startswith("ibiurl."):  # the resolver's (§8.1); literals, case-blind (RFC 5234 §2.3)
            if equals < 0:
                raise ParseError(N_("`%(text)s` is not a pair: pairs are `name=value` (Table 8.1)",
                                    text=text[index:pair_end]), index + 1)
            second = text.find("=", equals + 1, pair_end)
            if second >= 0:
                raise ParseError(N_("`=` in a value must be percent-encoded as `%3D` (Table 6.1)"), second + 1)
        if name.lower() in RESOLVER_PAIRS:
            name = name.lower()
            value, value_positions = _decode(text, equals + 1, pair_end, plus_is_space=True)
            if name in seen:
                raise ParseError(N_("`%(name)s` is given twice (first at character %(seen)s) (Table 8.3)", name=name, seen=seen[name]), index + 1)
            seen[name] = index + 1
            if name == REQUIRED_ITEM_STATUS:
                if value.casefold() != ORIGINAL.casefold():
                    raise ParseError(
                        N_("`%(required_item_status)s` takes only the value `%(original)s` (Table 8.3), not `%(value)s`", required_item_status=REQUIRED_ITEM_STATUS, original=ORIGINAL, value=value), equals + 2
                    )
                status = ORIGINAL
            else:
                verbs = scan_verb_list(value, value_positions)
        else:
            pairs.append((name, value))
            written.append(text[index:pair_end])
        if pair_end == end - 1:
            raise ParseError(N_("a pair is expected after `&` (Table 8.1)"), pair_end + 1)
        index = pair_end + 1
    return status, verbs, tuple(pairs), tuple(written)


def parse_persistent_url(text: str) -> PersistentUrl:
    """Read a persistent URL (``http://urlib.net/…``, any http(s) host), a host-less path or a bare IBI.

    :raises ParseError: with the 1-based ``position`` in ``text`` and the rule broken; an error of
        the IBI itself (from :func:`~ibiportal.ibi.identifier.split_ibi`) keeps its message, its
        position moved from the IBI to the whole text.
    """
    if not text.strip():
        raise ParseError(N_("a persistent URL is expected, such as http://urlib.net/LK47B6W/362SFKH"), 1)
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    resolver, index = _read_resolver(text, start, end)
    fragment_at = text.find("#", index, end)
    body_end = fragment_at if fragment_at >= 0 else end
    query_at = text.find("?", index, body_end)
    path_end = query_at if query_at >= 0 else body_end
    if index == path_end:
        raise ParseError(N_("no IBI: a persistent URL names an IBI, as in http://urlib.net/<IBI> (Table 8.1)"), index + 1)
    written, origin = _unreserved_decoded(text, index, path_end)
    try:
        ibi, length = split_ibi(written)
    except ParseError as exc:
        raise ParseError(exc.message, origin[min((exc.position or 1) - 1, len(written))] + 1) from exc
    chars, positions, query_at = _modifier_and_path(text, origin[length], query_at, body_end)
    modifier, after = scan_modifier(chars, 0, positions)
    filepath = None
    if after < len(chars):
        if chars[after] != "/":
            value = _describe(chars[after])
            if modifier.verbs:
                message = N_("%(value)s may not follow the modifier `%(modifier)s`: a modifier (`!`, `+`, `:`), a file "
                             "path `/…` or a query `?…` may (Table 8.1)", value=value, modifier=str(modifier))
            else:
                message = N_("%(value)s may not follow the IBI: a modifier (`!`, `+`, `:`), a file path `/…` or a "
                             "query `?…` may (Table 8.1)", value=value)
            raise ParseError(message, positions[after])
        filepath = check_filepath(chars[after:], positions[after:])
    status, located, query, written = _read_query(text, query_at + 1, body_end) if query_at >= 0 else (None, (), (), ())
    added = [located[index] for index in kept_in_union(modifier.verbs, [verb for verb, _ in located])]
    # The modifier is valid on its own and Table 8.2 is prefix-closed, so only an added verb can break the composition.
    check_composition(
        modifier.verbs + tuple(verb for verb, _ in added),
        [positions[0]] * len(modifier.verbs) + [where for _, where in added],
    )
    return PersistentUrl(
        ibi=ibi,
        modifier=modifier,
        filepath=filepath,
        required_item_status=status,
        query_verbs=tuple(verb for verb, _ in located),
        query=query,
        resolver=resolver,
        fragment=text[fragment_at + 1 : end] if fragment_at >= 0 else None,
        query_text=written,
    )
