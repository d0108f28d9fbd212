"""OAI-PMH 2.0 (Lagoze, Van de Sompel et al., 2002/2015), the data provider's side: requests read
and checked, resumption tokens, and responses written as XML from values. Pure: no storage, no
Flask, no clock (the caller gives the response date).

URLib's Archives have been OAI-PMH data providers since 2003; the portal's own Archive is one
too (``ibiportal.application.oai``). What it offers:

* one metadata format, ``oai_dc``: the record ``:(oai_dc)`` serves (``ibiportal.archive.oai_dc``);
* one set per kind of item (:data:`SETS`, ``type:report``, …): setSpecs and names stay English,
  for machines; an item of no kind is in no set. The repository has sets, so the protocol's
  ``noSetHierarchy`` never applies;
* deleted items as headers ``status="deleted"`` kept for ever (``deletedRecord`` ``persistent``:
  an item's tombstone stays, Algorithm 2 lines 11-15);
* datestamps to the second, when an item's record last changed here (ibiportal.storage.oai_items);
  ``from`` and ``until`` to the day or to the second (§3.3.1), both inclusive, of one granularity;
* lists in pages of :data:`PAGE_SIZE` with stateless resumption tokens (:class:`ListQuery`): a
  token holds the list's arguments, the ``(change key, id)`` of the last item given and how many
  were given, so it never expires and a harvest sees every item, an item changed meanwhile at
  the end (``ibiportal.storage.oai_items``).

Every error of §3.6 has its case: ``badVerb`` (no verb, an unknown or repeated one),
``badArgument`` (an argument missing, unknown, repeated, or malformed, an identifier that is no URI), ``badResumptionToken``,
``cannotDisseminateFormat`` (a prefix other than ``oai_dc``), ``idDoesNotExist`` (an identifier
not of this repository or of no item), ``noRecordsMatch`` (an empty list), ``noMetadataFormats``
(a deleted item has no metadata left) and, never, ``noSetHierarchy``.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from lxml import etree

from ..citation.types import ItemType
from ..i18n import N_, Message
from .oai_dc import NOT_XML_CHAR, OAI_DC_NAMESPACE, XSI_NAMESPACE, xml_text

OAI_NAMESPACE = "http://www.openarchives.org/OAI/2.0/"
OAI_SCHEMA_LOCATION = f"{OAI_NAMESPACE} http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd"
OAI_DC_SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd"
OAI_DC = "oai_dc"
PROTOCOL_VERSION = "2.0"
GRANULARITY = "YYYY-MM-DDThh:mm:ssZ"
#: Headers or records in one page of a list (tests make it smaller).
PAGE_SIZE = 100

#: One set per kind of item: ``type:`` and the kind's name (``type:doctoral_thesis``), English
#: names, as OAI-PMH is read by machines.
SETS: dict[str, ItemType] = {f"type:{kind.name.lower()}": kind for kind in ItemType}

#: §3.4 and the schema's patterns: a setSpec, a metadataPrefix.
_SET_SPEC = re.compile(r"[A-Za-z0-9\-_.!~*'()]+(:[A-Za-z0-9\-_.!~*'()]+)*")
_METADATA_PREFIX = re.compile(r"[A-Za-z0-9\-_.!~*'()]+")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_SECOND = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_CHANGE_KEY = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")
#: §2.4: an identifier is a URI (RFC 3986: a scheme, then unreserved, sub-delims, ``:@/?``
#: and percent-escapes; one ``#``). Stricter than the schema's anyURI, never looser: an identifier
#: the response echoes must validate.
_URI_CHARS = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*"
_URI = re.compile(rf"[A-Za-z][A-Za-z0-9+.\-]*:{_URI_CHARS}(?:#{_URI_CHARS})?")


class Verb(StrEnum):
    IDENTIFY = "Identify"
    LIST_METADATA_FORMATS = "ListMetadataFormats"
    LIST_SETS = "ListSets"
    GET_RECORD = "GetRecord"
    LIST_IDENTIFIERS = "ListIdentifiers"
    LIST_RECORDS = "ListRecords"


_LIST_ARGUMENTS = (frozenset({"metadataPrefix"}), frozenset({"from", "until", "set"}))
#: §4: each verb's required and optional arguments (``resumptionToken`` is the exclusive one of
#: the three list verbs).
ARGUMENTS: dict[Verb, tuple[frozenset[str], frozenset[str]]] = {
    Verb.IDENTIFY: (frozenset(), frozenset()),
    Verb.LIST_METADATA_FORMATS: (frozenset(), frozenset({"identifier"})),
    Verb.LIST_SETS: (frozenset(), frozenset()),
    Verb.GET_RECORD: (frozenset({"identifier", "metadataPrefix"}), frozenset()),
    Verb.LIST_IDENTIFIERS: _LIST_ARGUMENTS,
    Verb.LIST_RECORDS: _LIST_ARGUMENTS,
}
_RESUMABLE = frozenset({Verb.LIST_SETS, Verb.LIST_IDENTIFIERS, Verb.LIST_RECORDS})


class ErrorCode(StrEnum):
    """§3.6's error codes this repository answers (not ``noSetHierarchy``: it has sets)."""

    BAD_ARGUMENT = "badArgument"
    BAD_RESUMPTION_TOKEN = "badResumptionToken"
    BAD_VERB = "badVerb"
    CANNOT_DISSEMINATE_FORMAT = "cannotDisseminateFormat"
    ID_DOES_NOT_EXIST = "idDoesNotExist"
    NO_RECORDS_MATCH = "noRecordsMatch"
    NO_METADATA_FORMATS = "noMetadataFormats"


class OaiError(Exception):
    """A protocol error: its code and a message (English, translatable)."""

    def __init__(self, code: ErrorCode, message: Message) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Request:
    """A request whose verb and arguments were checked against §4 (not yet their values)."""

    verb: Verb
    arguments: dict[str, str]


def read_request(pairs: Iterable[tuple[str, str]]) -> Request:
    """The request of a query string's or a form's ``pairs``; :class:`OaiError` ``badVerb`` or
    ``badArgument`` when §3.1.1 or §4 refuses it (every argument at most once)."""
    pairs = list(pairs)
    verbs = [value for name, value in pairs if name == "verb"]
    if not verbs:
        raise OaiError(ErrorCode.BAD_VERB, N_("the request has no verb"))
    if len(verbs) > 1:
        raise OaiError(ErrorCode.BAD_VERB, N_("the verb is given %(count)s times; give it once", count=len(verbs)))
    try:
        verb = Verb(verbs[0])
    except ValueError:
        raise OaiError(ErrorCode.BAD_VERB, N_("%(verb)s is not a verb of OAI-PMH 2.0", verb=verbs[0])) from None
    arguments: dict[str, str] = {}
    for name, value in pairs:
        if name == "verb":
            continue
        if name in arguments:
            raise OaiError(ErrorCode.BAD_ARGUMENT, N_("the argument %(name)s is given more than once", name=name))
        unfit = NOT_XML_CHAR.search(value)
        if unfit:
            raise OaiError(ErrorCode.BAD_ARGUMENT, N_("the argument %(name)s holds U+%(code)04X, which XML cannot carry",
                                                      name=name, code=ord(unfit[0])))
        arguments[name] = value
    required, optional = ARGUMENTS[verb]
    if "resumptionToken" in arguments and verb in _RESUMABLE:
        others = sorted(set(arguments) - {"resumptionToken"})
        if others:
            raise OaiError(ErrorCode.BAD_ARGUMENT, N_(
                "resumptionToken is an exclusive argument: %(names)s may not come with it", names=", ".join(others)))
        return Request(verb, arguments)
    unknown = sorted(set(arguments) - required - optional)
    if unknown:
        raise OaiError(ErrorCode.BAD_ARGUMENT, N_("%(verb)s takes no argument %(names)s", verb=verb, names=", ".join(unknown)))
    missing = sorted(required - set(arguments))
    if missing:
        raise OaiError(ErrorCode.BAD_ARGUMENT, N_("%(verb)s needs the argument %(names)s", verb=verb, names=", ".join(missing)))
    if "identifier" in arguments and not _URI.fullmatch(arguments["identifier"]):
        raise OaiError(ErrorCode.BAD_ARGUMENT, N_("the identifier %(identifier)s is not a URI, as OAI-PMH identifiers are",
                                                  identifier=arguments["identifier"]))
    return Request(verb, arguments)


def check_metadata_prefix(prefix: str) -> None:
    """``oai_dc`` is the only format; another well-formed prefix is ``cannotDisseminateFormat``."""
    if not _METADATA_PREFIX.fullmatch(prefix):
        raise OaiError(ErrorCode.BAD_ARGUMENT, N_("%(prefix)s is not a metadataPrefix", prefix=prefix))
    if prefix != OAI_DC:
        raise OaiError(ErrorCode.CANNOT_DISSEMINATE_FORMAT, N_(
            "this repository disseminates oai_dc only, not %(prefix)s", prefix=prefix))


def _bound(name: str, text: str, end_of_day: bool) -> tuple[str, str]:
    """``from``/``until`` as ``YYYY-MM-DDThh:mm:ss`` (a day is its first or, for ``until``, its
    last second) and its granularity."""
    if _DAY.fullmatch(text):
        granularity, second = "YYYY-MM-DD", text + ("T23:59:59" if end_of_day else "T00:00:00")
    elif _SECOND.fullmatch(text):
        granularity, second = GRANULARITY, text[:-1]
    else:
        raise OaiError(ErrorCode.BAD_ARGUMENT, N_(
            "%(name)s=%(value)s is not a date YYYY-MM-DD nor a time YYYY-MM-DDThh:mm:ssZ", name=name, value=text))
    try:
        datetime.strptime(second, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        raise OaiError(ErrorCode.BAD_ARGUMENT, N_("%(name)s=%(value)s is no such day or time", name=name, value=text)) from None
    return second, granularity


@dataclass(frozen=True)
class ListQuery:
    """What one page of ``ListIdentifiers`` or ``ListRecords`` asks: the list's arguments
    (``since``/``until`` as ``YYYY-MM-DDThh:mm:ss``, inclusive), the ``(change key, id)`` of the
    last item given before it and how many were (``cursor``). A resumption token is this, encoded."""

    verb: Verb
    set_spec: str | None = None
    since: str | None = None
    until: str | None = None
    after: tuple[str, int] | None = None
    cursor: int = 0

    @classmethod
    def of(cls, request: Request) -> ListQuery:
        """The first page's query, or the one its resumption token holds; ``OaiError`` when an
        argument's value is wrong."""
        arguments = request.arguments
        if "resumptionToken" in arguments:
            return cls.decode(request.verb, arguments["resumptionToken"])
        since = until = None
        granularities = set()
        if "from" in arguments:
            since, granularity = _bound("from", arguments["from"], end_of_day=False)
            granularities.add(granularity)
        if "until" in arguments:
            until, granularity = _bound("until", arguments["until"], end_of_day=True)
            granularities.add(granularity)
        if len(granularities) > 1:
            raise OaiError(ErrorCode.BAD_ARGUMENT, N_("from and until must have the same granularity"))
        if since is not None and until is not None and since > until:
            raise OaiError(ErrorCode.BAD_ARGUMENT, N_("from is later than until"))
        set_spec = arguments.get("set")
        if set_spec is not None and not _SET_SPEC.fullmatch(set_spec):
            raise OaiError(ErrorCode.BAD_ARGUMENT, N_("%(set)s is not a setSpec", set=set_spec))
        check_metadata_prefix(arguments["metadataPrefix"])
        return cls(request.verb, set_spec, since, until)

    def encode(self) -> str:
        """The resumption token of this query: URL-safe text."""
        after = list(self.after) if self.after else [None, None]
        fields = [self.verb.value, self.set_spec, self.since, self.until, *after, self.cursor]
        return base64.urlsafe_b64encode(json.dumps(fields, separators=(",", ":")).encode()).decode().rstrip("=")

    @classmethod
    def decode(cls, verb: Verb, token: str) -> ListQuery:
        """The query a token of ``verb`` holds; ``badResumptionToken`` for anything else
        (ListSets gives none: all its sets fit in one response)."""
        try:
            fields = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
            token_verb, set_spec, since, until, key, row_id, cursor = fields
            query = cls(Verb(token_verb), set_spec, since, until, (key, row_id), cursor)
        except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
            query = None
        if query is None or query.verb != verb or not query._well_formed():
            raise OaiError(ErrorCode.BAD_RESUMPTION_TOKEN, N_("the resumptionToken is not one this repository gave for %(verb)s",
                                                              verb=verb))
        return query

    def _well_formed(self) -> bool:
        def counts(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool) and value >= 0

        def second(value: object) -> bool:
            return value is None or isinstance(value, str) and bool(_SECOND.fullmatch(value + "Z"))

        key, row_id = self.after or (None, None)
        return (self.verb in (Verb.LIST_IDENTIFIERS, Verb.LIST_RECORDS)
                and (self.set_spec is None or isinstance(self.set_spec, str) and bool(_SET_SPEC.fullmatch(self.set_spec)))
                and second(self.since) and second(self.until)
                and isinstance(key, str) and bool(_CHANGE_KEY.fullmatch(key)) and counts(row_id) and counts(self.cursor))

    def next(self, last: tuple[str, int], given: int) -> ListQuery:
        """The next page's query, after ``given`` more items ending with ``last``."""
        return replace(self, after=last, cursor=self.cursor + given)


def oai_identifier(repository_id: str, rep: str) -> str:
    """§2.4 with the oai-identifier scheme: ``oai:<repositoryIdentifier>:<repository name>``."""
    return f"oai:{repository_id}:{rep}"


def local_identifier(repository_id: str, identifier: str) -> str:
    """The repository name an identifier of this repository names; ``idDoesNotExist`` for one of
    another repository."""
    prefix = f"oai:{repository_id}:"
    if not identifier.startswith(prefix) or len(identifier) == len(prefix):
        raise OaiError(ErrorCode.ID_DOES_NOT_EXIST, N_(
            "%(identifier)s is not an identifier of this repository (they are %(prefix)s<repository name>)",
            identifier=identifier, prefix=prefix))
    return identifier[len(prefix):]


# -- responses -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """A record's header (§2.5): its identifier, datestamp, sets and whether it is deleted."""

    identifier: str
    datestamp: str
    set_specs: tuple[str, ...] = ()
    deleted: bool = False


@dataclass(frozen=True)
class Record:
    """A header and its oai_dc document (``None`` for a deleted item)."""

    header: Header
    metadata: str | None = None


@dataclass(frozen=True)
class Resumption:
    """A list's resumptionToken element: ``token`` empty on its last page (§3.5)."""

    token: str
    complete_list_size: int
    cursor: int


@dataclass(frozen=True)
class Repository:
    """What Identify says (§4.2)."""

    name: str
    base_url: str
    admin_emails: tuple[str, ...]
    earliest_datestamp: str


#: What a verb answers: its element, which :func:`document` puts in the response.
Answer = etree._Element


def _oai(name: str) -> str:
    return f"{{{OAI_NAMESPACE}}}{name}"


def _child(parent: etree._Element, name: str, text: str | None = None, **attributes: str) -> etree._Element:
    element = etree.SubElement(parent, _oai(name), attributes)
    element.text = text
    return element


def identify(repository: Repository) -> etree._Element:
    element = etree.Element(_oai(Verb.IDENTIFY))
    _child(element, "repositoryName", repository.name)
    _child(element, "baseURL", repository.base_url)
    _child(element, "protocolVersion", PROTOCOL_VERSION)
    for email in repository.admin_emails:
        _child(element, "adminEmail", email)
    _child(element, "earliestDatestamp", repository.earliest_datestamp)
    _child(element, "deletedRecord", "persistent")
    _child(element, "granularity", GRANULARITY)
    return element


def list_metadata_formats() -> etree._Element:
    element = etree.Element(_oai(Verb.LIST_METADATA_FORMATS))
    format_ = _child(element, "metadataFormat")
    _child(format_, "metadataPrefix", OAI_DC)
    _child(format_, "schema", OAI_DC_SCHEMA)
    _child(format_, "metadataNamespace", OAI_DC_NAMESPACE)
    return element


def list_sets() -> etree._Element:
    element = etree.Element(_oai(Verb.LIST_SETS))
    for spec, kind in SETS.items():
        set_ = _child(element, "set")
        _child(set_, "setSpec", spec)
        _child(set_, "setName", str(kind.names.label))
    return element


def _header(parent: etree._Element, header: Header) -> None:
    element = _child(parent, "header", **({"status": "deleted"} if header.deleted else {}))
    _child(element, "identifier", header.identifier)
    _child(element, "datestamp", header.datestamp)
    for spec in header.set_specs:
        _child(element, "setSpec", spec)


def _record(parent: etree._Element, record: Record) -> None:
    element = _child(parent, "record")
    _header(element, record.header)
    if record.metadata is not None:
        _child(element, "metadata").append(etree.fromstring(record.metadata.encode("utf-8")))


def get_record(record: Record) -> etree._Element:
    element = etree.Element(_oai(Verb.GET_RECORD))
    _record(element, record)
    return element


def list_identifiers(headers: Sequence[Header], resumption: Resumption | None) -> etree._Element:
    element = etree.Element(_oai(Verb.LIST_IDENTIFIERS))
    for header in headers:
        _header(element, header)
    _resumption(element, resumption)
    return element


def list_records(records: Sequence[Record], resumption: Resumption | None) -> etree._Element:
    element = etree.Element(_oai(Verb.LIST_RECORDS))
    for record in records:
        _record(element, record)
    _resumption(element, resumption)
    return element


def _resumption(parent: etree._Element, resumption: Resumption | None) -> None:
    if resumption is not None:
        _child(parent, "resumptionToken", resumption.token or None,
               completeListSize=str(resumption.complete_list_size), cursor=str(resumption.cursor))


def document(base_url: str, response_date: str, request: Request | None, answer: etree._Element | OaiError,
             message: str | None = None) -> bytes:
    """The whole response (§3.2): ``responseDate``, ``request`` (its arguments only when they
    were well-formed, §3.2: not after ``badVerb`` or ``badArgument``) and the answer or the
    error, whose text is ``message`` (the error's message in the reader's language)."""
    root = etree.Element(_oai("OAI-PMH"), nsmap={None: OAI_NAMESPACE, "xsi": XSI_NAMESPACE})
    root.set(f"{{{XSI_NAMESPACE}}}schemaLocation", OAI_SCHEMA_LOCATION)
    _child(root, "responseDate", response_date)
    echoed = request is not None and not (
        isinstance(answer, OaiError) and answer.code in (ErrorCode.BAD_VERB, ErrorCode.BAD_ARGUMENT))
    attributes = {"verb": request.verb.value, **request.arguments} if echoed and request else {}
    _child(root, "request", base_url, **attributes)
    if isinstance(answer, OaiError):
        _child(root, "error", xml_text(message if message is not None else str(answer.message)), code=answer.code.value)
    else:
        root.append(answer)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")
