"""A small OAI-PMH 2.0 data provider for the tests, written from the protocol's text
(http://www.openarchives.org/OAI/openarchivesprotocol.html, version 2.0 of 2002-06-14, updated
2008-12-07), not from the portal's code: the Archive a collection moves in *from*.

It serves a list of records as a WSGI app (GET and POST, §3.1.1), with the six verbs (§4):
``Identify``, ``ListMetadataFormats`` (``oai_dc`` only), ``ListSets`` (no sets: ``noSetHierarchy``),
``ListIdentifiers``, ``ListRecords`` (``from``/``until`` at day or seconds granularity, §3.3) and
``GetRecord``, and their error conditions (§3.6): ``badVerb``, ``badArgument`` (a missing,
repeated or unknown argument, a resumptionToken with another), ``badResumptionToken``,
``cannotDisseminateFormat``, ``idDoesNotExist``, ``noRecordsMatch``, ``noSetHierarchy``. Lists come
``page_size`` records at a time with a resumption token carrying ``completeListSize`` and
``cursor`` (§3.5); the last page has an empty token. Deleted records are headers with
``status="deleted"`` and no metadata (§2.5.1, ``deletedRecord`` persistent).

``hold``: an event per page number (1 is the first page) that the answer of that page waits for,
so that a test can catch an import half-way; ``held`` is set when a page waits so.
``asked``: every request's arguments.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from urllib.parse import parse_qs
from xml.sax.saxutils import escape, quoteattr

OAI = "http://www.openarchives.org/OAI/2.0/"
#: §4.2: the arguments of each verb: required, optional, exclusive.
VERBS = {
    "Identify": (set(), set(), None),
    "ListMetadataFormats": (set(), {"identifier"}, None),
    "ListSets": (set(), set(), "resumptionToken"),
    "ListIdentifiers": ({"metadataPrefix"}, {"from", "until", "set"}, "resumptionToken"),
    "ListRecords": ({"metadataPrefix"}, {"from", "until", "set"}, "resumptionToken"),
    "GetRecord": ({"identifier", "metadataPrefix"}, set(), None),
}


@dataclass(frozen=True)
class SourceRecord:
    """One item of the source: its OAI identifier, datestamp (UTC, seconds), Dublin Core elements
    in order (``("title", "…")``), and whether it was deleted."""

    identifier: str
    datestamp: datetime
    dc: tuple[tuple[str, str], ...] = ()
    deleted: bool = False


@dataclass
class OaiSource:
    records: list[SourceRecord]
    page_size: int = 50
    base_url: str = "http://archive.example.org/oai"
    repository_name: str = "A URLib Archive"
    hold: dict[int, threading.Event] = field(default_factory=dict)
    held: threading.Event = field(default_factory=threading.Event)
    asked: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.records = sorted(self.records, key=lambda record: (record.datestamp, record.identifier))

    # -- WSGI ----------------------------------------------------------------------------------

    def __call__(self, environ, start_response):
        query = environ.get("QUERY_STRING", "")
        if environ["REQUEST_METHOD"] == "POST":  # §3.1.1.2: the arguments as a form
            length = int(environ.get("CONTENT_LENGTH") or 0)
            query = environ["wsgi.input"].read(length).decode("utf-8")
        arguments = parse_qs(query, keep_blank_values=True)
        body = self.answer(arguments)
        start_response("200 OK", [("Content-Type", "text/xml; charset=utf-8")])
        return [body.encode("utf-8")]

    def answer(self, arguments: dict[str, list[str]]) -> str:
        self.asked.append({name: values[0] for name, values in arguments.items()})
        verb = arguments.get("verb", [""])
        if len(verb) != 1 or verb[0] not in VERBS:
            return self._error("badVerb", "the verb is missing, repeated or not one of OAI-PMH's six")
        verb = verb[0]
        required, optional, exclusive = VERBS[verb]
        given = {name for name in arguments if name != "verb"}
        repeated = [name for name, values in arguments.items() if len(values) > 1]
        if repeated:
            return self._error("badArgument", f"{repeated[0]} is repeated")
        if exclusive in given:
            if given != {exclusive}:
                return self._error("badArgument", f"{exclusive} is an exclusive argument")
        elif not required <= given or not given <= required | optional:
            return self._error("badArgument", f"{verb} takes {sorted(required)} and may take {sorted(optional)}")
        one = {name: values[0] for name, values in arguments.items()}
        return getattr(self, f"_{verb}")(one)

    # -- the verbs -------------------------------------------------------------------------------

    def _Identify(self, arguments):
        earliest = self.records[0].datestamp if self.records else datetime(1995, 8, 1, tzinfo=timezone.utc)
        return self._response(arguments, (
            f"<Identify><repositoryName>{escape(self.repository_name)}</repositoryName>"
            f"<baseURL>{escape(self.base_url)}</baseURL><protocolVersion>2.0</protocolVersion>"
            "<adminEmail>archive@example.org</adminEmail>"
            f"<earliestDatestamp>{_stamp(earliest)}</earliestDatestamp><deletedRecord>persistent</deletedRecord>"
            "<granularity>YYYY-MM-DDThh:mm:ssZ</granularity></Identify>"))

    def _ListMetadataFormats(self, arguments):
        if "identifier" in arguments and self._find(arguments["identifier"]) is None:
            return self._error("idDoesNotExist", "no such item", arguments)
        return self._response(arguments, (
            "<ListMetadataFormats><metadataFormat><metadataPrefix>oai_dc</metadataPrefix>"
            "<schema>http://www.openarchives.org/OAI/2.0/oai_dc.xsd</schema>"
            "<metadataNamespace>http://www.openarchives.org/OAI/2.0/oai_dc/</metadataNamespace>"
            "</metadataFormat></ListMetadataFormats>"))

    def _ListSets(self, arguments):
        if "resumptionToken" in arguments:
            return self._error("badResumptionToken", "no list of sets was given", arguments)
        return self._error("noSetHierarchy", "this repository has no sets", arguments)

    def _ListIdentifiers(self, arguments):
        return self._list("ListIdentifiers", arguments, lambda record: self._header(record))

    def _ListRecords(self, arguments):
        return self._list("ListRecords", arguments, self._record)

    def _GetRecord(self, arguments):
        if arguments["metadataPrefix"] != "oai_dc":
            return self._error("cannotDisseminateFormat", "oai_dc only", arguments)
        record = self._find(arguments["identifier"])
        if record is None:
            return self._error("idDoesNotExist", "no such item", arguments)
        return self._response(arguments, f"<GetRecord>{self._record(record)}</GetRecord>")

    # -- lists and their resumption tokens (§3.5) -------------------------------------------

    def _list(self, verb: str, arguments: dict[str, str], show) -> str:
        if "resumptionToken" in arguments:
            try:  # the token names the list's bounds and where the next page starts: valid for ever
                prefix, start, end, cursor = arguments["resumptionToken"].split("|")
                cursor_at = int(cursor)
            except ValueError:
                return self._error("badResumptionToken", "not a token this source gave", arguments)
            bounds = {"from": start, "until": end}
        else:
            prefix, bounds, cursor_at = arguments["metadataPrefix"], arguments, 0
            if "set" in arguments:
                return self._error("noSetHierarchy", "this repository has no sets", arguments)
        if prefix != "oai_dc":
            return self._error("cannotDisseminateFormat", "oai_dc only", arguments)
        try:
            low, high = _bound(bounds.get("from") or "", False), _bound(bounds.get("until") or "", True)
        except ValueError:
            return self._error("badArgument", "from and until are YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ", arguments)
        if bounds.get("from") and bounds.get("until") and len(bounds["from"]) != len(bounds["until"]):
            return self._error("badArgument", "from and until have different granularities", arguments)
        chosen = [record for record in self.records if (low is None or record.datestamp >= low)
                  and (high is None or record.datestamp <= high)]
        if not chosen:
            return self._error("noRecordsMatch", "nothing in these bounds", arguments)
        if cursor_at >= len(chosen) or cursor_at % self.page_size:
            return self._error("badResumptionToken", "not a token this source gave", arguments)
        page_number = cursor_at // self.page_size + 1
        if page_number in self.hold:
            self.held.set()
            self.hold[page_number].wait(30)
        page = chosen[cursor_at:cursor_at + self.page_size]
        following = cursor_at + len(page)
        token = ""
        if following < len(chosen):
            token = "|".join([prefix, bounds.get("from") or "", bounds.get("until") or "", str(following)])
        resumption = ""
        if token or cursor_at:
            resumption = (f'<resumptionToken completeListSize="{len(chosen)}" cursor="{cursor_at}">'
                          f"{escape(token)}</resumptionToken>")
        return self._response(arguments, f"<{verb}>{''.join(show(record) for record in page)}{resumption}</{verb}>")

    # -- the parts of an answer ------------------------------------------------------------

    def _find(self, identifier: str) -> SourceRecord | None:
        return next((record for record in self.records if record.identifier == identifier), None)

    def _header(self, record: SourceRecord) -> str:
        status = ' status="deleted"' if record.deleted else ""
        return (f"<header{status}><identifier>{escape(record.identifier)}</identifier>"
                f"<datestamp>{_stamp(record.datestamp)}</datestamp></header>")

    def _record(self, record: SourceRecord) -> str:
        if record.deleted:
            return f"<record>{self._header(record)}</record>"
        elements = "".join(f"<dc:{name}>{escape(value)}</dc:{name}>" for name, value in record.dc)
        return (f"<record>{self._header(record)}<metadata>"
                '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" '
                'xmlns:dc="http://purl.org/dc/elements/1.1/" '
                'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                'xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ '
                'http://www.openarchives.org/OAI/2.0/oai_dc.xsd">'
                f"{elements}</oai_dc:dc></metadata></record>")

    def _response(self, arguments: dict[str, str], inner: str) -> str:
        attributes = "".join(f" {name}={quoteattr(value)}" for name, value in sorted(arguments.items()))
        return _envelope(f"<request{attributes}>{escape(self.base_url)}</request>{inner}")

    def _error(self, code: str, text: str, arguments: dict[str, str] | None = None) -> str:
        # §3.6: with badVerb or badArgument the request element carries no attributes
        shown = "" if code in ("badVerb", "badArgument") else "".join(
            f" {name}={quoteattr(value)}" for name, value in sorted((arguments or {}).items()))
        return _envelope(f"<request{shown}>{escape(self.base_url)}</request><error code={quoteattr(code)}>"
                         f"{escape(text)}</error>")


def _envelope(inner: str) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>'
            f'<OAI-PMH xmlns="{OAI}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            f'xsi:schemaLocation="{OAI} http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">'
            f"<responseDate>{_stamp(datetime.now(timezone.utc))}</responseDate>{inner}</OAI-PMH>")


def _stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _bound(text: str, upper: bool) -> datetime | None:
    """A ``from`` or ``until`` (§3.3.1): a day (its start, or with ``upper`` its last second) or a second."""
    if not text:
        return None
    if len(text) == 10:
        day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
        return day.replace(hour=23, minute=59, second=59) if upper else day
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def records_of(items: Iterable[dict]) -> list[SourceRecord]:
    """The source's records from a collection's items (``tests/data/urlib_collection``)."""
    return [SourceRecord(item["oai_identifier"], datetime.fromisoformat(item["datestamp"].replace("Z", "+00:00")),
                         tuple((name, value) for name, value in item["dc"]), item.get("deleted", False))
            for item in items]
