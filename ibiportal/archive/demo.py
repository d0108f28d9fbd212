"""The demo Archives, loaded from ``data/demo_archives.json`` (data, not code).

Two kinds of Archive are described there:

* **The standard's Archives**, ``mtc-m16c`` and ``mtc-m16d`` (file 003, §6-§10), holding the
  items the standard shows, with the standard's own URLs (``http://mtc-m16c.sid.inpe.br/col/…``)
  because its examples print them: their answers reproduce Examples 6.2, 9.2, 9.3, 9.9-9.12
  and the Archive answers of §10.1 and §10.2.
* **Scenario Archives** support staff meet in real life (a copy held elsewhere, two claimed
  originals, a deletion, a next-edition chain across Archives, an Archive too slow to answer,
  one whose answer is malformed). Their items are fictional (prefix ``ibiportal.test/lab`` =
  ``D7N2U8HW``, host ``lab.ibiportal.test``, IP 192.0.2.10 of RFC 5737, port 80 in names and
  800 in IBIp as URLib does) and their URLs point into the portal, under the placeholder
  ``{portal}``, which :func:`load_demo_archives` replaces with ``portal_url``:

  ================================================================  =========================
  URL                                                               serves
  ================================================================  =========================
  ``{portal}/demo/archives/<archive>/col/<rep>/doc/<file>``          a file of the item
  ``{portal}/demo/archives/<archive>/col/<rep>/metadata``            its metadata, free format
  ``{portal}/demo/archives/<archive>/col/<rep>/metadata.xml``        its metadata as oai_dc
                                                                    (:func:`.oai_dc.oai_dc_xml`)
  ``{portal}/demo/archives/<archive>/filelist/<ibip>``               its file list (GetFileList)
  ================================================================  =========================

  ``<archive>`` is the Archive's ``name``, ``<rep>`` the item's repository name (find the item
  with ``archives[name].service.store.find(rep)``).

``behaviour`` tells the resolver's in-process transport how an Archive misbehaves:
``{"delay_seconds": 30}`` (its answers arrive that late) or ``{"malformed": "<raw body>"}``
(that body is sent instead of every answer). The service itself always answers correctly.

Data format: see ``_about`` in the JSON file. Every error names the Archive, the item and the
field (:class:`DemoDataError`).
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ibiportal.archive.model import (
    TIMESTAMP_FORMAT,
    ArchiveIdentity,
    Behaviour,
    ContentType,
    DublinCore,
    IbiForms,
    Item,
    ItemState,
    Metadata,
)
from ibiportal.archive.relation import Relation
from ibiportal.archive.service import ArchiveService
from ibiportal.archive.store import InMemoryItemStore
from ibiportal.errors import IbiError, ParseError
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.languages import country_problem, language_problem
from ibiportal.protocol.pairlist import is_word_character

DEFAULT_DATA_PATH = Path(__file__).resolve().parent / "data" / "demo_archives.json"
DEFAULT_PORTAL_URL = "http://localhost:5000"
PORTAL_PLACEHOLDER = "{portal}"


class DemoDataError(IbiError, ValueError):
    """The demo data file is wrong; the message says which Archive, which item, which field."""


@dataclass(frozen=True)
class DemoArchive:
    """One demo Archive: its service, the scenario it plays, and its behaviour."""

    name: str
    description: str
    service: ArchiveService
    behaviour: Behaviour = Behaviour()

    @property
    def faulty(self) -> bool:
        """See :attr:`Behaviour.faulty`."""
        return self.behaviour.faulty


#: The path of a demo item's oai_dc record below the portal's base URL (the module's URL layout).
_METADATA_PATH = re.compile(r"/demo/archives/([^/]+)/col/([^/].*?)/metadata\.xml")


def metadata_place(path: str) -> tuple[str, str] | None:
    """The demo Archive and the IBI whose oai_dc record the portal serves at ``path`` (below
    its base URL), if it is such a path."""
    match = _METADATA_PATH.fullmatch(path)
    return (match[1], match[2]) if match else None


def item_with_metadata_at(archives: Iterable[DemoArchive], url: str) -> Item | None:
    """The demo item whose oai_dc record is at ``url``: the standard's Archives answer their real
    hosts' URLs, as §10 prints them, which are not reachable offline; the item is in process."""
    for archive in archives:
        for item in archive.service.store.items():
            if item.metadata is not None and item.metadata.oai_dc_url == url and item.dc is not None:
                return item
    return None


class _Where:
    """The place in the data file being read, for error messages.

    ``archive`` and ``item`` are labels: ``'slow'`` (a name) or ``#11`` (a position, before
    the name is known); ``#1 (ibiportal.test/lab/…)`` for an item.
    """

    def __init__(self, archive: str = "", item: str = "") -> None:
        self.archive = archive
        self.item = item

    def error(self, field: str, problem: str) -> DemoDataError:
        place = [f"archive {self.archive}"] if self.archive else []
        place += [f"item {self.item}"] if self.item else []
        place.append(f"field {field!r}")
        return DemoDataError(f"demo data, {', '.join(place)}: {problem}")


def _fields(data: Any, where: _Where, field: str, required: set[str], optional: set[str]) -> dict[str, Any]:
    """``data`` as a JSON object with exactly the ``required`` keys and some ``optional`` ones."""
    if not isinstance(data, dict):
        raise where.error(field, f"expected an object, found {type(data).__name__}")
    missing = sorted(required - data.keys())
    if missing:
        raise where.error(field, f"missing {', '.join(missing)}")
    unknown = sorted(data.keys() - required - optional)
    if unknown:
        raise where.error(field, f"unknown key {', '.join(unknown)}")
    return data


def _item_label(index: int, data: Any) -> str:
    """``#2 (ibiportal.test/lab/…)``: the item's position, and its IBI as written when there is one."""
    ibi = data.get("ibi") if isinstance(data, dict) else None
    forms = ibi if isinstance(ibi, dict) else {}
    written = next((forms[form] for form in ("rep", "ibip") if isinstance(forms.get(form), str)), None)
    return f"#{index + 1}" + (f" ({written})" if written else "")


def _text(data: Any, where: _Where, field: str) -> str:
    if not isinstance(data, str) or not data.strip():
        raise where.error(field, "expected a non-empty string")
    return data


def _texts(data: Any, where: _Where, field: str) -> tuple[str, ...]:
    if not isinstance(data, list):
        raise where.error(field, "expected a list of strings")
    return tuple(_text(value, where, field) for value in data)


class _Reader:
    """Reads the JSON data into demo Archives, checking every field."""

    def __init__(self, portal_url: str, clock: Callable[[], datetime] | None, urlkey: Callable[[], str] | None):
        self.portal_url = portal_url.rstrip("/")
        self.service_options: dict[str, Any] = {}
        if clock is not None:
            self.service_options["clock"] = clock
        if urlkey is not None:
            self.service_options["urlkey"] = urlkey

    def archives(self, data: Any) -> dict[str, DemoArchive]:
        root = _fields(data, _Where(), "(file)", {"archives"}, {"_about", "default_relations"})
        default_relations = root.get("default_relations", [""])
        if not isinstance(root["archives"], list):
            raise _Where().error("archives", "expected a list of archives")
        archives: dict[str, DemoArchive] = {}
        for index, entry in enumerate(root["archives"]):
            archive = self.archive(entry, index, default_relations)
            if archive.name in archives:
                raise _Where(repr(archive.name)).error("name", "two archives have this name")
            archives[archive.name] = archive
        return archives

    def archive(self, data: Any, index: int, default_relations: Any) -> DemoArchive:
        where = _Where(f"#{index + 1}")
        fields = _fields(
            data,
            where,
            "(archive)",
            {"name", "description", "address", "service_ibi", "platform_software", "items"},
            {"relations", "behaviour"},
        )
        name = _text(fields["name"], where, "name")
        where.archive = repr(name)
        platform = fields["platform_software"]
        identity = ArchiveIdentity(
            _text(fields["address"], where, "address"),
            self.forms(fields["service_ibi"], where, "service_ibi"),
            None if platform is None else self.forms(platform, where, "platform_software"),
        )
        relations = self.relations(fields.get("relations", default_relations), where)
        if not isinstance(fields["items"], list):
            raise where.error("items", "expected a list of items")
        items = [
            self.item(entry, _Where(where.archive, _item_label(number, entry)))
            for number, entry in enumerate(fields["items"])
        ]
        try:
            store = InMemoryItemStore(items)
        except ValueError as error:
            raise where.error("items", str(error)) from error
        service = ArchiveService(identity, store, relations=relations, **self.service_options)
        behaviour = self.behaviour(fields.get("behaviour", {}), where)
        return DemoArchive(name, _text(fields["description"], where, "description"), service, behaviour)

    def relations(self, data: Any, where: _Where) -> tuple[Relation, ...]:
        if not isinstance(data, list):
            raise where.error("relations", "expected a list of relations (Table 9.5)")
        relations = []
        for text in data:
            if not isinstance(text, str):
                raise where.error("relations", f"{text!r} is not a string")
            try:
                relations.append(Relation.parse(text))
            except ParseError as error:
                raise where.error("relations", str(error)) from error
        if Relation() not in relations:
            raise where.error("relations", 'must contain the empty relation "" (file 003, §9.2)')
        return tuple(relations)

    def behaviour(self, data: Any, where: _Where) -> Behaviour:
        fields = _fields(data, where, "behaviour", set(), {"delay_seconds", "malformed"})
        delay = fields.get("delay_seconds", 0.0)
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or delay < 0:
            raise where.error("behaviour.delay_seconds", "expected a non-negative number of seconds")
        malformed = fields.get("malformed")
        if malformed is not None and not isinstance(malformed, str):
            raise where.error("behaviour.malformed", "expected the raw answer body as a string")
        return Behaviour(float(delay), malformed)

    def forms(self, data: Any, where: _Where, field: str) -> IbiForms:
        """Table 9.4 forms; each must be an IBI, and both forms must name the same instant."""
        fields = _fields(data, where, field, set(), {"rep", "ibip"})
        parsed = {}
        for form in ("rep", "ibip"):
            if form in fields:
                text = _text(fields[form], where, f"{field}.{form}")
                try:
                    identifier = parse_ibi(text)
                except ParseError as error:
                    raise where.error(f"{field}.{form}", f"{text!r} is not an IBI: {error}") from error
                if identifier.form != form:
                    raise where.error(f"{field}.{form}", f"{text!r} is not in the {form} form")
                parsed[form] = identifier
        if not parsed:
            raise where.error(field, "needs rep, ibip or both (Table 9.4)")
        if len(parsed) == 2 and parsed["rep"].date != parsed["ibip"].date:
            raise where.error(field, f"rep and ibip name different dates ({parsed['rep'].utc}, {parsed['ibip'].utc})")
        return IbiForms(fields.get("rep"), fields.get("ibip"))

    def url(self, data: Any, where: _Where, field: str) -> str:
        """A URL as it goes on the wire: ``{portal}`` replaced, printable ASCII, http://."""
        url = _text(data, where, field).replace(PORTAL_PLACEHOLDER, self.portal_url)
        if not url.startswith("http://") and not url.startswith("https://"):
            raise where.error(field, f"{url!r} is not an http URL")
        bad = next((char for char in url if not is_word_character(char)), None)
        if bad is not None:
            raise where.error(field, f"{url!r} contains {bad!r}: percent-encode it (Table 6.2)")
        return url

    def timestamp(self, data: Any, where: _Where, field: str) -> datetime:
        text = _text(data, where, field)
        try:
            return datetime.strptime(text, TIMESTAMP_FORMAT).replace(tzinfo=timezone.utc)
        except ValueError as error:
            raise where.error(field, f"{text!r} is not an ISO 8601 UTC time like 2014-01-02T17:23:57Z") from error

    def choice(self, data: Any, where: _Where, field: str, choices: type[ItemState] | type[ContentType]) -> Any:
        try:
            return choices(data)
        except ValueError as error:
            allowed = ", ".join(choice.value for choice in choices)
            raise where.error(field, f"{data!r} is not one of {allowed}") from error

    def language(self, data: Any, where: _Where, field: str) -> str:
        """``idioma ["-" país]`` of Appendix B."""
        language, dash, country = _text(data, where, field).partition("-")
        problem = language_problem(language) or (country_problem(country) if dash else None)
        if problem:
            raise where.error(field, problem)
        return data

    def item(self, data: Any, where: _Where) -> Item:
        fields = _fields(
            data,
            where,
            "(item)",
            {"source", "ibi", "state", "timestamp"},
            {
                "contenttype", "directory_url", "target_file", "files", "file_list_url", "file_name_encoding",
                "language", "nextedition", "translations", "metadata", "dc",
            },
        )
        _text(fields["source"], where, "source")
        ibi = self.forms(fields["ibi"], where, "ibi")
        state = self.choice(fields["state"], where, "state", ItemState)
        dc = self.dublin_core(fields["dc"], where) if "dc" in fields else None
        timestamp = self.timestamp(fields["timestamp"], where, "timestamp")
        common = {"ibi": ibi, "state": state, "timestamp": timestamp, "dc": dc}
        if state is ItemState.DELETED:
            kept = sorted(fields.keys() - {"source", "ibi", "state", "timestamp", "dc"})
            if kept:
                raise where.error(
                    kept[0], "a Deleted item keeps only its IBI, timestamp and dc (Algorithm 2 lines 11-15)"
                )
            return Item(**common)
        for required in ("directory_url", "target_file", "files", "file_list_url"):
            if required not in fields:
                raise where.error(required, "missing (only a Deleted item has no files)")
        directory_url = self.url(fields["directory_url"], where, "directory_url")
        if not directory_url.endswith("/"):
            raise where.error("directory_url", "must end with '/': file names are appended to it")
        files = _texts(fields["files"], where, "files")
        target_file = _text(fields["target_file"], where, "target_file")
        if target_file not in files:
            raise where.error("target_file", f"{target_file!r} is not one of the item's files")
        encoding = fields.get("file_name_encoding", "utf-8")
        if encoding not in ("utf-8", "latin-1"):
            raise where.error("file_name_encoding", "expected utf-8 or latin-1")
        translations = fields.get("translations", {})
        if not isinstance(translations, dict):
            raise where.error("translations", "expected an object: language → IBI forms")
        return Item(
            **common,
            contenttype=self.choice(fields.get("contenttype", "Data"), where, "contenttype", ContentType),
            directory_url=directory_url,
            target_file=target_file,
            files=files,
            file_list_url=self.url(fields["file_list_url"], where, "file_list_url"),
            file_name_encoding=encoding,
            language=self.language(fields["language"], where, "language") if "language" in fields else None,
            nextedition=self.forms(fields["nextedition"], where, "nextedition") if "nextedition" in fields else None,
            translations=tuple(
                (self.language(lang, where, f"translations.{lang}"), self.forms(forms, where, f"translations.{lang}"))
                for lang, forms in translations.items()
            ),
            metadata=self.metadata(fields["metadata"], where) if "metadata" in fields else None,
        )

    def metadata(self, data: Any, where: _Where) -> Metadata:
        fields = _fields(data, where, "metadata", {"url", "state", "timestamp"}, {"ibi", "oai_dc_url"})
        state = self.choice(fields["state"], where, "metadata.state", ItemState)
        if state is ItemState.DELETED:
            raise where.error("metadata.state", "metadata served here are Original or Copy")
        return Metadata(
            url=self.url(fields["url"], where, "metadata.url"),
            state=state,
            timestamp=self.timestamp(fields["timestamp"], where, "metadata.timestamp"),
            ibi=self.forms(fields["ibi"], where, "metadata.ibi") if "ibi" in fields else None,
            oai_dc_url=self.url(fields["oai_dc_url"], where, "metadata.oai_dc_url") if "oai_dc_url" in fields else None,
        )

    def dublin_core(self, data: Any, where: _Where) -> DublinCore:
        fields = _fields(
            data,
            where,
            "dc",
            {"title"},
            {"creators", "subjects", "description", "publisher", "date", "type", "format", "notes", "identifiers"},
        )
        single = {
            name: _text(fields[name], where, f"dc.{name}")
            for name in ("description", "publisher", "date", "type", "format")
            if name in fields
        }
        several = {
            name: _texts(fields.get(name, []), where, f"dc.{name}")
            for name in ("creators", "subjects", "notes", "identifiers")
        }
        return DublinCore(title=_text(fields["title"], where, "dc.title"), **several, **single)


def load_demo_archives(
    path: Path | str = DEFAULT_DATA_PATH,
    *,
    portal_url: str = DEFAULT_PORTAL_URL,
    clock: Callable[[], datetime] | None = None,
    urlkey: Callable[[], str] | None = None,
) -> dict[str, DemoArchive]:
    """The demo Archives of ``path`` by name, each with its :class:`ArchiveService`.

    ``portal_url`` replaces ``{portal}`` in the scenario Archives' URLs; ``clock`` and
    ``urlkey`` are passed to every service (defaults: the real clock, :func:`.service.new_urlkey`).
    Raises :class:`DemoDataError` naming the Archive, item and field of the first problem.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DemoDataError(f"demo data {path}: not JSON: {error}") from error
    return _Reader(portal_url, clock, urlkey).archives(data)

