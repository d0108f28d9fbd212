"""Request messages of the protocol (file 003, §6.1, §7.2, §8.2, §9.1), as typed values.

One frozen dataclass per ``servicesubject``:

=================================  ==========================  =========================
subject                            class                       pairs
=================================  ==========================  =========================
``urlRequest``                     :class:`UrlRequest`         Table 8.9 (Example 6.1)
``acknowledgment``                 :class:`Acknowledgment`     Table 8.11 (Example 8.9)
``inclusionRequest``               :class:`InclusionRequest`   Table 7.2 (Example 7.2)
``exclusionRequest``               :class:`ExclusionRequest`   Table 7.2 (Example 7.3)
``inclusionConfirmationRequest``   :class:`InclusionConfirmationRequest`  (Example 7.4)
=================================  ==========================  =========================

Field values are *texts* (Table 6.1 encodes them on the way out and decodes them on the way
in); a multi-valued pair (an IP list, a verb list) is a tuple. Constructing a message
validates it (:class:`~ibiportal.errors.ParseError`, a ``ValueError``, naming the wire
``field``), so an invalid message cannot exist. Pairs the standard does not define are kept,
in order, in ``extra`` rather than rejected, so that a newer peer is still understood.

Registration keys are secrets (STANDARD.md §3): they are :class:`RegistrationKey` objects
whose ``repr``/``str`` are masked, compared in constant time, and never echoed by an error.
Only :meth:`RegistrationKey.reveal` and the request URL itself contain the digits.
"""
from __future__ import annotations

import hmac
import ipaddress
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, NP_, Message
from ibiportal.protocol.pairlist import PairList
from ibiportal.protocol.query import QueryPair, build_query, parse_query

RESOLVER_ADDRESS = "urlib.net"
"""Web address of the resolver (§6.1); Examples 7.2 and 7.3 use ``www.urlib.net``."""
RESOLVER_SERVICE_IBI = "J8LNKB5R7W/3FUQHC5"
"""IBI of the resolver service: requests go to ``http://urlib.net/J8LNKB5R7W/3FUQHC5`` (§6.1)."""

CONTENT_TYPES = ("Data", "Metadata")
ITEM_STATES = ("Original", "Copy")

_VERB = re.compile(  # case-blind, as ABNF literals are (RFC 5234 §2.3)
    r"GetTranslation(\([a-z]{2}(-[A-Z]{2})?\))?|GetLastEdition|GetMetadata(\((oai_dc|BibINPE)\))?|GetFileList", re.IGNORECASE
)
_IBI_FORMS = re.compile(r"rep [^ ]+( ibip [^ ]+)?|ibip [^ ]+")
_HOSTPORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:[0-9]{1,5})?")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")


def check_key(text: str, field: str = "registrationkey") -> None:
    """Check ``chave = número ["-" número]``, ``número = 10*DÍGITO`` (Table 7.1).

    The :class:`ParseError` says what is wrong and where (1-based, in the key) without ever
    quoting the key. Also the syntax of ``urlkey`` (Tables 8.11 and 9.3). ``field`` names the key
    in the message: a pair's name, or a message ("the registration key") for a form's field.
    """
    rule = N_("Table 7.1: 10 or more digits, optionally '-' and 10 or more digits")
    if not text:
        raise ParseError(N_("%(field)s is empty (%(rule)s)", field=field, rule=rule), position=None, field=field)
    numbers = text.split("-")
    if len(numbers) > 2:
        second_dash = len(numbers[0]) + len(numbers[1]) + 2
        raise ParseError(N_("%(field)s has more than one '-' (%(rule)s)", field=field, rule=rule), position=second_dash, field=field)
    start = 1
    for too_short, number in zip(_SHORT_NUMBER, numbers):
        for index, char in enumerate(number):
            if char not in "0123456789":
                raise ParseError(N_("%(field)s has a character that is not a digit (%(rule)s)", field=field, rule=rule), start + index, field)
        if len(number) < 10:
            raise ParseError(too_short(field, len(number), rule), start, field)
        start += len(number) + 1


#: A key's first or second number too short: each its own sentence, so that each language words
#: its ordinal its own way.
_SHORT_NUMBER = (
    lambda field, length, rule: NP_("%(field)s: the first number has %(count)s digit (%(rule)s)",
                                    "%(field)s: the first number has %(count)s digits (%(rule)s)",
                                    length, field=field, rule=rule),
    lambda field, length, rule: NP_("%(field)s: the second number has %(count)s digit (%(rule)s)",
                                    "%(field)s: the second number has %(count)s digits (%(rule)s)",
                                    length, field=field, rule=rule),
)


class RegistrationKey:
    """An Archive's registration key (Table 7.1), validated, masked and compared in constant time."""

    __slots__ = ("_digits",)
    MASK = "<hidden>"

    def __init__(self, key: str, field: str = "registrationkey") -> None:
        check_key(key, field)  # ``field`` names the key in the error: the pair, or a form's label
        object.__setattr__(self, "_digits", key)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("RegistrationKey is immutable")

    def reveal(self) -> str:
        """The key itself: only for the request URL or for hashing before storage."""
        return self._digits

    def matches(self, candidate: str) -> bool:
        """Constant-time comparison with a key received or entered as text."""
        return hmac.compare_digest(self._digits.encode("ascii"), candidate.encode("latin-1", "replace"))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RegistrationKey):
            return NotImplemented
        return self.matches(other._digits)

    def __hash__(self) -> int:
        return hash((RegistrationKey, self._digits))

    def __repr__(self) -> str:
        return f"RegistrationKey({self.MASK})"

    __str__ = __repr__


#: The parts of a request URL (§6.1) as its errors name them.
_ADDRESS, _SERVICE_IBI = N_("address"), N_("service IBI")


def _fail(field: str, message: Message, position: int | None = None) -> ParseError:
    return ParseError(N_("%(field)s: %(message)s", field=field, message=message), position=position, field=field)


def _check_ips(ips: tuple[str, ...], field: str) -> None:
    """``lista-de-IP = IP *(SP IP)`` (Table 8.10): the user's IP, then its proxies'."""
    if not ips:
        raise _fail(field, N_("needs at least the user's IP (Table 8.10)"))
    position = 1
    for ip in ips:
        if not _is_ip(ip):
            raise _fail(field, N_("%(ip)r is not an IPv4 or IPv6 address (Table 8.10)", ip=ip), position)
        position += len(ip) + 1


@lru_cache(maxsize=4096)
def _is_ip(text: str) -> bool:
    """Whether ``text`` is an IP address, remembered: every message of a resolution carries the
    same client IPs, and each message is checked where it is built and where it is read."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


#: Any white space (``str.isspace``'s): one search, not a generator over every character.
_SPACE = re.compile(r"\s")


def _check_ibi(value: str, field: str) -> None:
    """A light check of an IBI (one word containing '/'); ``ibiportal.ibi`` checks the grammar."""
    if not value or "/" not in value or _SPACE.search(value):
        raise _fail(field, N_("%(value)r is not an IBI (a repository name or an IBIp, one word with '/')", value=value))


def _check_choice(value: str, choices: tuple[str, ...], field: str) -> None:
    if value not in choices:
        raise _fail(field, N_("%(value)r is not one of %(choices)s", value=value, choices=", ".join(choices)))


def _check_http_url(value: str, field: str) -> None:
    """Table 8.11 writes ``http``; it predates https everywhere, so an item or a portal on
    https is acknowledged like one on http (docs/standard-decisions.md)."""
    scheme = next((scheme for scheme in ("http://", "https://") if value.lower().startswith(scheme)), None)
    if scheme is None or len(value) == len(scheme):
        raise _fail(field, N_("%(value)r is not an http:// or https:// URL", value=value[:60]))


def _check_hostport(value: str, field: str) -> None:
    """``hostport`` (RFC 2396 §3.2.2): host name or IP, optional ``:port``."""
    match = _HOSTPORT.fullmatch(value)
    if not match or (match[2] and int(match[2][1:]) > 65535):
        raise _fail(field, N_("%(value)r is not a host with an optional :port", value=value))


def _as_tuple(value: Iterable[str] | str, field: str) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError(f"{field} is a sequence of strings, not one string")
    return tuple(value)


@dataclass(frozen=True)
class _Message:
    """What every request message shares: its subject, its pairs, its query string."""

    SUBJECT: ClassVar[str]
    PAIRS: ClassVar[tuple[tuple[str, str, bool], ...]]
    """``(wire name, attribute, mandatory)`` in the order of the standard's table."""

    extra: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", tuple((name, value) for name, value in self.extra))
        known = {"servicesubject", *(wire for wire, _, _ in self.PAIRS)}
        for name, _ in self.extra:
            if name in known:
                raise _fail(name, N_("is a defined pair and cannot also be an extra pair"))

    def to_pairs(self) -> tuple[tuple[str, str], ...]:
        """``(name, text)`` pairs: ``servicesubject`` first, then the table's order, then extras."""
        pairs = [("servicesubject", self.SUBJECT)]
        for wire, attribute, _ in self.PAIRS:
            value = getattr(self, attribute)
            if value is None or value == ():
                continue
            if isinstance(value, tuple):
                value = " ".join(value)
            elif isinstance(value, RegistrationKey):
                value = value.reveal()
            pairs.append((wire, value))
        pairs.extend(self.extra)
        return tuple(pairs)

    def to_query(self, *, sort: bool = False) -> str:
        """The query string (Table 6.1). ``sort=True`` orders pairs by name, as in §10.

        A message to an Archive whose every text is ASCII is remembered by its query
        (:data:`_WRITTEN`): reading that query gives this message back, pair for pair, and an
        Archive answered in this process reads it without parsing it again."""
        pairs = self.to_pairs()
        if sort:
            pairs = tuple(sorted(pairs, key=lambda pair: pair[0]))
        query = build_query(pairs)
        if type(self) in _REMEMBERED and not self.extra and all(value.isascii() for _, value in pairs):
            _WRITTEN.put(query, self)
        return query

    @classmethod
    def _load(cls, attribute: str, text: str) -> Any:
        """Turn a decoded wire value into the attribute's type (overridden for tuples and keys)."""
        return text

    @classmethod
    def _from_values(cls, values: dict[str, str], extra: tuple[tuple[str, str], ...]) -> _Message:
        kwargs: dict[str, Any] = {}
        for wire, attribute, mandatory in cls.PAIRS:
            if wire in values:
                kwargs[attribute] = cls._load(attribute, values[wire])
            elif mandatory:
                raise _fail(wire, N_("missing mandatory pair for %(subject)s", subject=cls.SUBJECT))
        return cls(**kwargs, extra=extra)


def _split(text: str) -> tuple[str, ...]:
    return tuple(text.split(" ")) if text else ()


@dataclass(frozen=True)
class UrlRequest(_Message):
    """``urlRequest``: resolver → every Archive, "Solicitar URL" (3) (Table 8.9, Example 6.1).

    ``client_ips``: the user's IP, then its proxies' (Table 8.10). ``ibi``: the IBI to
    resolve. ``filepath``: ``path-absolute`` inside the item (Table 8.9; given without its
    ``/``, as Example 9.11 writes ``reference.bib``, the ``/`` is added), or ``None``. ``verbs``: the
    verb list (Table 8.4), sent space-separated as in §10.2.
    """

    SUBJECT: ClassVar[str] = "urlRequest"
    PAIRS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("clientinformation.ipaddress", "client_ips", True),
        ("parsedibiurl.filepath", "filepath", False),
        ("parsedibiurl.ibi", "ibi", True),
        ("parsedibiurl.verblist", "verbs", False),
    )

    client_ips: tuple[str, ...]
    ibi: str
    filepath: str | None = None
    verbs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "client_ips", _as_tuple(self.client_ips, "client_ips"))
        object.__setattr__(self, "verbs", _as_tuple(self.verbs, "verbs"))
        _check_ips(self.client_ips, "clientinformation.ipaddress")
        _check_ibi(self.ibi, "parsedibiurl.ibi")
        if self.filepath and not self.filepath.startswith("/"):  # Example 9.11 writes "reference.bib"
            object.__setattr__(self, "filepath", "/" + self.filepath)
        position = 1
        for verb in self.verbs:
            if not _VERB.fullmatch(verb):
                raise _fail("parsedibiurl.verblist", N_("%(verb)r is not a verb of Table 8.4", verb=verb[:40]), position)
            position += len(verb) + 1

    @classmethod
    def _load(cls, attribute: str, text: str) -> Any:
        return _split(text) if attribute in ("client_ips", "verbs") else text


@dataclass(frozen=True)
class Acknowledgment(_Message):
    """``acknowledgment``: resolver → the chosen Archive, "Agradecer" (5) (Table 8.11, Example 8.9).

    ``content_type``, ``ibi``, ``state``, ``url`` and ``urlkey`` are the texts of the
    Archive's own answer (use :meth:`from_answer`). Table 8.11 makes ``state`` mandatory
    but Example 8.9 has none, so ``state`` may be ``None`` (always send it).
    """

    SUBJECT: ClassVar[str] = "acknowledgment"
    PAIRS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("clientinformation.ipaddress", "client_ips", True),
        ("contenttype", "content_type", True),
        ("ibi", "ibi", False),
        ("state", "state", False),
        ("url", "url", True),
        ("url.persistent", "url_persistent", True),
        ("urlkey", "urlkey", True),
    )

    client_ips: tuple[str, ...]
    content_type: str
    url: str
    url_persistent: str
    urlkey: str
    ibi: str | None = None
    state: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "client_ips", _as_tuple(self.client_ips, "client_ips"))
        _check_ips(self.client_ips, "clientinformation.ipaddress")
        _check_choice(self.content_type, CONTENT_TYPES, "contenttype")
        if self.ibi is not None and not _IBI_FORMS.fullmatch(self.ibi):
            raise _fail("ibi", N_("%(value)r is not 'rep …', 'ibip …' or 'rep … ibip …' (Table 9.4)", value=self.ibi[:80]))
        if self.state is not None:
            _check_choice(self.state, ITEM_STATES, "state")
        _check_http_url(self.url, "url")
        _check_http_url(self.url_persistent, "url.persistent")
        check_key(self.urlkey, "urlkey")

    @classmethod
    def _load(cls, attribute: str, text: str) -> Any:
        return _split(text) if attribute == "client_ips" else text

    @classmethod
    def from_answer(
        cls,
        answer: PairList,
        *,
        client_ips: Iterable[str],
        url_persistent: str,
        relation: str = "",
    ) -> Acknowledgment:
        """The acknowledgment of the URL ``url<relation>`` chosen in ``answer`` (Table 8.11).

        Takes ``contenttype``, ``ibi``, ``state`` and ``url`` qualified by ``relation``
        (e.g. ``".lastedition.metadata(oai_dc)"``, §10.2) and the unqualified ``urlkey``,
        as decoded texts, so that Table 6.1 encodes them as in Example 8.9 and §10.
        Raises :class:`ParseError` when a mandatory pair is missing from the answer.
        """
        def text(name: str, mandatory: bool) -> str | None:
            value = answer.text(name)
            if value is None and mandatory:
                raise _fail(name, N_("the answer has no such pair, so it cannot be acknowledged"))
            return value

        return cls(
            client_ips=tuple(client_ips),
            content_type=text(f"contenttype{relation}", True),
            ibi=text(f"ibi{relation}", False),
            state=text(f"state{relation}", False),
            url=text(f"url{relation}", True),
            url_persistent=url_persistent,
            urlkey=text("urlkey", True),
        )


@dataclass(frozen=True)
class _ArchiveSwitch(_Message):
    """The eight mandatory pairs of Table 7.2, shared by inclusion and exclusion requests."""

    PAIRS: ClassVar[tuple[tuple[str, str, bool], ...]] = (
        ("archiveaddress", "archive_address", True),
        ("archiveserviceibi", "archive_service_ibi", True),
        ("archiveip", "archive_ip", True),
        ("archiveprotocol", "archive_protocol", True),
        ("archiveplatformversion", "archive_platform_version", True),
        ("archiveadmemailaddress", "archive_adm_email_address", True),
        ("registrationkey", "registration_key", True),
    )

    archive_address: str
    archive_service_ibi: str
    archive_ip: str
    archive_platform_version: str
    archive_adm_email_address: str
    registration_key: RegistrationKey
    archive_protocol: str = "HTTP"

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.registration_key, str):
            object.__setattr__(self, "registration_key", RegistrationKey(self.registration_key))
        _check_hostport(self.archive_address, "archiveaddress")
        _check_ibi(self.archive_service_ibi, "archiveserviceibi")
        try:
            ipaddress.ip_address(self.archive_ip)
        except ValueError as error:
            raise _fail("archiveip", N_("%(ip)r is not an IPv4 or IPv6 address", ip=self.archive_ip)) from error
        if self.archive_protocol != "HTTP":
            raise _fail("archiveprotocol", N_("%(value)r is not HTTP, the only protocol of Table 7.2", value=self.archive_protocol))
        version = self.archive_platform_version
        if not version or any(ord(char) > 0x7F for char in version):
            raise _fail("archiveplatformversion", N_("must be a non-empty ASCII string (Table 7.2)"))
        if not _EMAIL.fullmatch(self.archive_adm_email_address):
            raise _fail("archiveadmemailaddress", N_("%(value)r is not an e-mail address", value=self.archive_adm_email_address[:60]))

    @classmethod
    def _load(cls, attribute: str, text: str) -> Any:
        return RegistrationKey(text) if attribute == "registration_key" else text


@dataclass(frozen=True)
class InclusionRequest(_ArchiveSwitch):
    """``inclusionRequest``: an Archive switching on → resolver (Table 7.2, Example 7.2)."""

    SUBJECT: ClassVar[str] = "inclusionRequest"


@dataclass(frozen=True)
class ExclusionRequest(_ArchiveSwitch):
    """``exclusionRequest``: an Archive switching off → resolver (Table 7.2, Example 7.3)."""

    SUBJECT: ClassVar[str] = "exclusionRequest"


@dataclass(frozen=True)
class InclusionConfirmationRequest(_Message):
    """``inclusionConfirmationRequest``: resolver → an including Archive (Example 7.4); no other pair."""

    SUBJECT: ClassVar[str] = "inclusionConfirmationRequest"
    PAIRS: ClassVar[tuple[tuple[str, str, bool], ...]] = ()


Request = UrlRequest | Acknowledgment | InclusionRequest | ExclusionRequest | InclusionConfirmationRequest
"""Any request message."""

SUBJECTS: dict[str, type[_Message]] = {
    cls.SUBJECT: cls
    for cls in (UrlRequest, Acknowledgment, InclusionRequest, ExclusionRequest, InclusionConfirmationRequest)
}
"""``servicesubject`` value → message class."""

_SUBJECTS_FOLDED = {subject.casefold(): cls for subject, cls in SUBJECTS.items()}

#: The messages the resolver sends Archives, remembered by the query written for them (:class:`_Written`).
_REMEMBERED = frozenset({UrlRequest, Acknowledgment})


class AddressedRequest(NamedTuple):
    """A parsed request URL: ``http://<address>/<service_ibi>?<message>`` (§6.1)."""

    address: str
    service_ibi: str
    message: Request


def request_url(address: str, service_ibi: str, message: Request, *, sort: bool = False) -> str:
    """``http://<address>/<service_ibi>?<pairs>`` (§6.1); ``sort=True`` orders pairs by name (§10)."""
    return f"{service_url(address, service_ibi)}?{message.to_query(sort=sort)}"


def service_url(address: str, service_ibi: str) -> str:
    """``http://<address>/<service_ibi>``, checked: the part of a request URL that names the
    Archive. A message sent to many Archives encodes its query once and joins it to each."""
    _check_hostport(address, _ADDRESS)
    _check_ibi(service_ibi, _SERVICE_IBI)
    if any(char in service_ibi for char in "?#%"):
        raise _fail(_SERVICE_IBI, N_("%(value)r cannot contain '?', '#' or '%%'", value=service_ibi))
    return f"http://{address}/{service_ibi}"


class _Written:
    """The last ``size`` messages to Archives whose queries this process wrote, by query.

    Their every text is ASCII, and the query of such a message reads back as that very message
    (Table 6.1's escapes undone, the lists split where they were joined: ``tests/protocol``), so
    :func:`parse_request` returns it instead of parsing and checking it again: the resolver writes
    a ``urlRequest`` and an ``acknowledgment`` for every resolution, and the portal's own Archive,
    answered in this process, read both back (``benchmarks/uncached.py``)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._messages: dict[str, _Message] = {}
        self._lock = threading.Lock()

    def put(self, query: str, message: _Message) -> None:
        with self._lock:
            self._messages[query] = message
            if len(self._messages) > self.size:
                del self._messages[next(iter(self._messages))]

    def get(self, query: str) -> _Message | None:
        return self._messages.get(query)


def parse_request(query: str | bytes) -> Request:
    """The message of a query string (without ``?``), or a :class:`ParseError` saying where.

    Errors: characters that must be encoded, malformed pairs or escapes, a duplicate pair,
    a missing or unknown ``servicesubject``, a missing mandatory pair, an invalid value
    (its ``position`` is where the value starts, or the exact character when the value
    has no escapes). Registration keys are never quoted. A query this process wrote lately for
    an Archive is its message (:class:`_Written`).
    """
    written = _WRITTEN.get(query) if isinstance(query, str) else None
    return written if written is not None else request_of_pairs(parse_query(query))


_WRITTEN = _Written(256)


def request_of_pairs(pairs: tuple[QueryPair, ...]) -> Request:
    """:func:`parse_request` on a query already split into pairs (the resolver service reads the
    subject first, then the message, from one parse)."""
    first_seen: dict[str, int] = {}
    for pair in pairs:
        if pair.name in first_seen:
            raise ParseError(
                N_("duplicate pair %(name)r (first at character %(first_seen)s)", name=pair.name, first_seen=first_seen[pair.name]),
                position=pair.position,
                field=pair.name,
            )
        first_seen[pair.name] = pair.position
    by_name = {pair.name: pair for pair in pairs}
    subject_pair = by_name.get("servicesubject")
    if subject_pair is None:
        raise _fail("servicesubject", N_("missing; every request names its subject (§6.1)"))
    cls = _SUBJECTS_FOLDED.get(subject_pair.value.casefold())  # a literal: case-blind (RFC 5234 §2.3)
    if cls is None:
        raise ParseError(
            N_("unknown servicesubject %(value)r; expected one of %(value2)s", value=subject_pair.value[:60], value2=', '.join(SUBJECTS)),
            position=subject_pair.value_position,
            field="servicesubject",
        )
    known = {wire for wire, _, _ in cls.PAIRS}
    values = {pair.name: pair.value for pair in pairs if pair.name in known}
    extra = tuple((pair.name, pair.value) for pair in pairs if pair.name not in known and pair.name != "servicesubject")
    try:
        return cls._from_values(values, extra)
    except ParseError as error:
        where = by_name.get(error.field or "")
        if where is None:
            raise
        exact = error.position is not None and where.encoded_value == where.value
        position = where.value_position + error.position - 1 if exact else where.value_position
        raise ParseError(error.message, position=position, field=error.field) from error


def parse_request_url(url: str) -> AddressedRequest:
    """Split and parse a full request URL; positions in errors count in ``url``."""
    scheme = "http://"
    if not url[: len(scheme)].lower() == scheme:
        raise ParseError(N_("a request URL starts with http:// (§6.1)"), position=1, field="url")
    question = url.find("?")
    if question < 0:
        raise ParseError(N_("no '?' between the base URL and its pairs (§6.1)"), position=len(url) + 1, field="url")
    slash = url.find("/", len(scheme), question)
    if slash < 0:
        raise ParseError(N_("no service IBI after the address (§6.1)"), position=question + 1, field="url")
    address, service_ibi = url[len(scheme):slash], url[slash + 1:question]
    try:
        _check_hostport(address, _ADDRESS)
        _check_ibi(service_ibi, _SERVICE_IBI)
    except ParseError as error:
        start = len(scheme) + 1 if error.field == "address" else slash + 2
        raise ParseError(error.message, position=start, field=error.field) from error
    try:
        message = parse_request(url[question + 1:])
    except ParseError as error:
        position = None if error.position is None else error.position + question + 1
        raise ParseError(error.message, position=position, field=error.field) from error
    return AddressedRequest(address, service_ibi, message)
