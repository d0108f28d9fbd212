"""Every message the core can produce arrives whole in Portuguese: each parser is driven with a
corpus of bad inputs, and what it says is rendered as a Portuguese page renders it.

The browser walk (``tests/browser/test_page_checks.py``) sees the states a browser
reaches; most of a parser's messages belong to none of them. Here each message is rendered in
both languages, and the Portuguese one may share no word with the English one, except:

* the input's own words (a typed ``month``, an unknown ``novel``);
* code: what a message quotes (between backticks or quotes), identifiers and acronyms (a token
  with a digit, a slash, a dot or an ``@`` inside, or a capital after its first letter: IBIp,
  GetMetadata, HTTP);
* text recorded in another language (:class:`~ibiportal.i18n.Recorded`: a library's own words,
  which pages mark ``lang="en"``);
* the standard's names (:data:`PROTOCOL`) and the words both languages write (:data:`BOTH`).

A value left in English (a field's name, an ordinal, a reason built as text) shows up as such a
word: "month 13 fora do intervalo", "o número na posição first". No placeholder may be left
(``%(name)s``, ``{name}``), and a count says its noun once, in its number (no "Arquivo(s)")."""
from __future__ import annotations

import io
import re
import socket
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from flask import Flask

from ibiportal.archive.oai_pmh import OaiError
from ibiportal.errors import IbiError, ParseError
from ibiportal.i18n import Localized, Message, NP_, Recorded, N_
from ibiportal.web import i18n

BOTH = frozenset({
    "a", "as", "no", "do", "host", "hosts", "e-mail", "web", "proxy", "zero", "item", "base", "escape", "http",
    "https", "byte", "bytes", "use", "literal", "array", "log", "status", "gateway", "escapes", "original", "link",
    "portal", "loopback",
})
"""Words Portuguese writes too: an article or a contraction, a loanword the portal keeps, a verb."""
PROTOCOL = frozenset({
    "acknowledgment", "last-word", "servicesubject", "registrationkey", "archiveprotocol", "archiveaddress",
    "hostport", "archiveserviceibi", "markdown", "pt", "en", "de", "null",
})
"""Names the standards and formats give, which no translation changes (a subject, a rule of a
grammar, a pair, a language code, a JSON literal)."""

CODE = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’|<[^<>]*>")
"""Quoted material: code, a character, a value as given, a placeholder of a form (``<service IBI>``)."""
WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
PLACEHOLDER = re.compile(r"%\(\w+\)|%[sdr]\b|\{\w*\}")
PARENTHESISED_PLURAL = re.compile(r"(?<=[^\W\d_])(?<!http)\(e?s\)")


def words(text: str) -> set[str]:
    """The words of ``text`` outside code and identifiers (see the module docstring)."""
    found = set()
    for token in CODE.sub(" ", text).split():
        token = token.strip(",;:!?()[]{}…–—*").rstrip(".")
        if not token or token.startswith(".") or re.search(r"[\d/@_=]|\w[.:]\w|://", token):
            continue
        found.update(word.lower() for word in WORD.findall(token) if len(word) > 1 and word[1:] == word[1:].lower())
    return found


def recorded_words(problem: object) -> set[str]:
    """The words of the recorded text inside a message (which stays as it was, marked English)."""
    if isinstance(problem, Recorded):
        return {word.lower() for word in WORD.findall(problem)}
    if isinstance(problem, Message):
        return set().union(*(recorded_words(value) for value in problem.values.values()))
    if isinstance(problem, tuple):
        return set().union(*(recorded_words(value) for value in problem))
    return set()


def english_left(portuguese: str, english: str, given: str | bytes, problem: object = None) -> set[str]:
    """The words of the Portuguese rendering that are the English one's, and neither the input's
    nor code, recorded text or words both languages write."""
    given = given.decode("latin-1") if isinstance(given, bytes) else given
    shared = words(portuguese) & words(english)
    return (shared - {word.lower() for word in WORD.findall(given)} - recorded_words(message_of(problem))
            - BOTH - PROTOCOL)


@dataclass(frozen=True)
class Case:
    """One bad input of one parser: ``run(given)`` raises the error, or returns the message;
    ``names`` are the names of that parser's language its messages quote bare (OAI-PMH's
    arguments, the citation styles' ids), which are no words to translate."""

    parser: str
    given: str | bytes
    run: Callable[[str | bytes], object]
    names: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return f"{self.parser}:{self.given[:40]!r}"


def cases(parser: str, run: Callable[[str], object], *inputs: str | bytes, names: frozenset[str] = frozenset()) -> list[Case]:
    return [Case(parser, given, run, names) for given in inputs]


def raise_(error: Exception) -> None:
    raise error


def first_problem(records) -> Message:
    """The first problem of records read (an import's), raising none."""
    return next(record.problem for record in records if record.problem)


def zip_of(**files: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


def unresolvable(host, port, **_):
    raise socket.gaierror(-2, "Name or service not known")


def loopback(host, port, **_):
    return [(2, 1, 6, "", ("127.0.0.1", port))]


def corpus() -> Iterator[Case]:
    """The bad inputs of each parser (and the messages some rules of the resolver write)."""
    from ibiportal.application.citing import CiteRequest
    from ibiportal.application.idempotent_minting import idempotency_key
    from ibiportal.application.joining import ResolverService
    from ibiportal.application.releasing import Successor
    from ibiportal.application.resolving import ArchiveSet
    from ibiportal.archive.file_path import parse_file_path
    from ibiportal.archive.import_formats import read_file
    from ibiportal.archive.oai_pmh import read_request
    from ibiportal.archive.relation import Relation
    from ibiportal.citation.csl import UnknownLocale, UnknownStyle
    from ibiportal.citation.oai_dc import from_oai_dc
    from ibiportal.ibi.documents import text_of
    from ibiportal.ibi.batch import decode_upload
    from ibiportal.ibi.classify import classify
    from ibiportal.ibi.compose import compose
    from ibiportal.ibi.conversion import convert
    from ibiportal.ibi.extract import Bounds, extract
    from ibiportal.ibi.ibip import Ibip
    from ibiportal.ibi.identifier import parse_ibi
    from ibiportal.ibi.modifiers import Modifier, scan_verb_list
    from ibiportal.ibi.prefixes import check_prefix_pair
    from ibiportal.ibi.recognise import recognise
    from ibiportal.ibi.repository import RepositoryName
    from ibiportal.ibi.url import parse_persistent_url
    from ibiportal.ibi.mint_request import MintRequest, parse_count
    from ibiportal.protocol.messages import check_key, parse_request, parse_request_url
    from ibiportal.protocol.pairlist import parse_pair_list
    from ibiportal.protocol.query import parse_query
    from ibiportal.resolver.addresses import check_url
    from ibiportal.resolver.conformance_probes import parse_service_address
    from ibiportal.resolver.diagnosis import failure_words
    from ibiportal.resolver.language import choose_translation
    from ibiportal.resolver.trace import Status
    from ibiportal.resolver.engine import ClientInfo
    from ibiportal.web.inputs import client_input, optional_flag, optional_port, query_pairs

    yield from cases("IBI", parse_ibi,
                     "", "x" * 300, "sid.inpe.br", "8JMKD3MGP8W/35MML!8", "8JMKD3MGP8W34PGRBS",
                     "sid.inpe.br/mtc-m18@80/2009/13.16.17.46", "sid.inpe.br/mtc-m18@80/2009/12.16.17",
                     "sid.inpe.br/mtc-m18@80/2009/02.30.17.46", "sid.inpe.br/mtc-m18@80/2009/02.16.25.46",
                     "sid.inpe.br/mtc-m18@80/2009/02.16.17.61", "sid.inpe.br/mtc-m18@80/2009/02.16.17.46.61",
                     "sid.inpe.br/mtc-m18@80/2009/02.16.17.4x", "sid.inpe.br/mtc-m18@80/2009/2.16.17.46",
                     "sid.inpe.br/mtc-m18@80/09/02.16.17.46", "sid.inpe.br/mtc-m18@80/1969/02.16.17.46",
                     "sid.inpe.br/mtc-m18@99999/2009/02.16.17.46", "sid.inpe.br/mtc-m18@080/2009/02.16.17.46",
                     "sid.inpe.br/mtc-m18@8x/2009/02.16.17.46", "sid.inpe.br/mtc-m18@/2009/02.16.17.46",
                     "-sid.inpe.br/mtc/2009/02.16.17.46", "sid.inpe.br/mtc-/2009/02.16.17.46",
                     "sid.inpe.9r/mtc/2009/02.16.17.46", "sid..inpe.br/mtc/2009/02.16.17.46", "sid.inpe.br/mtc/2009",
                     "sid.inpe.br/mtc/2009/02.16.17.46/x", "sid.inpe.br/mtc/2009/02.16.17.46.5.1",
                     "sid.inpe.br/mt$c/2009/02.16.17.46", "sid.inpe.br/mtc/2009/02.16.x.46", "8JMKD3MGP8W/35MMLL0",
                     "8JMKD3MGP8W/35MMLLI", "1JMKD3MGP8W/35MMLL8", "8JMKD3MGP8/35MMLL8", "8JMKD3MGP8WW/35MMLL8",
                     "28JMKD3MGP8W/35MMLL8", "8JMKD3MGP8W2/35MMLL8", "8JMKD3MGP8W/235MMLL8", "8JMKD3MGP8W/",
                     "8JMKD3MGP8W/35MMLL8/X", "8JMKD3MG$P8W/35MMLL8", "8JMKD3MGP8W/35MMLL8!", "ZZZZZZZZZZZZZZZZW/35MMLL8",
                     "8JMKD3MGP8W/ZZZZZZZZZZZZZZ", "8JMKD3MGP8W/35MMLL8WW", "8JMKD3MGP8W/35MMLL8W2", "8JMKD3MGP8W/35MMLL8X",
                     "W/35MMLL8", "8JMKD3MGP8W2222/35MMLL8")
    yield from cases("repository name", RepositoryName.parse, "sid.inpe.br/mtc-m18@80", "x.y/z/2009/02.29.10.00")
    yield from cases("IBIp", Ibip.parse, "8JMKD3MGP8W35MMLL8", "8JMKD3MGP8W/35MMLLO")
    yield from cases("modifiers", Modifier.parse,
                     "!!", "+(xx)", "+(pt-XX)", "+(pt-)", ":(marc)", ":!", "!+(pt)!", "?", "+(pt", ":(oai_dc",
                     "+()", "!x", "+(pt)+(en)", "::", "!(pt)")
    yield from cases("verb list", scan_verb_list,
                     "GetMetadat", "getmetadata(x)", "GetLastEdition(pt)", "GetTranslation(xx)", "GetMetadata(marc)",
                     "GetMetadata,GetLastEdition", "Get Metadata",
                     "GetTranslation(pt-xx)",
                     "GetFileList(x)")
    yield from cases("persistent URL", parse_persistent_url,
                     "", "http://", "ftp://urlib.net/8JMKD3MGP8W/35MMLL8", "http://urlib.net/",
                     "http://urlib.net/8JMKD3MGP8W/35MML!8", "http://urlib.net/8JMKD3MGP8W/35MMLL8 x",
                     "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc", "http://urlib.net/8JMKD3MGP8W/35MMLL8/../x",
                     "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.requireditemstatus=Copy",
                     "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=x",
                     "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetMetadata&ibiurl.verblist=GetMetadata",
                     "http://urlib.net/8JMKD3MGP8W/35MMLL8%", "http://urlib.net/8JMKD3MGP8W/35MMLL8%zz",
                     "http://urlib.net/8JMKD3MGP8W/35MMLL8%ff", "http:/urlib.net/8JMKD3MGP8W/35MMLL8",
                     "http://urlib net/8JMKD3MGP8W/35MMLL8", "http://urlib.net/8JMKD3MGP8W/35MMLL8:x",
                     "http://urlib.net/8JMKD3MGP8W/35MMLL8+(pt)+(en)")
    yield from cases("conversion", lambda text: convert(text, ()), "sid.inpe.br/mtc-m99/2009/02.16.17.46",
                     "8JMKD3MGP9W/35MMLL8", "sid.inpe.br/mtc-m18@80/2009/02.16.17.46.050")
    yield from cases("conversion with a server", lambda text: convert(text, (), ip="999.1.1.1"),
                     "sid.inpe.br/mtc/2009/02.16.17.46")
    yield from cases("conversion with a host", lambda text: convert(text, (), host="x"), "8JMKD3MGP9W/35MMLL8")
    yield from cases("classify", lambda text: raise_(classify(text).error), "8JMKD3MGP8W/35MML!8",
                     "http://urlib.net/rep/8JMKD3MGP8W/35MMLL8!!")
    yield from cases("recognise", lambda text: recognise(text).notes[0].message,
                     "IBI: <8JMKD3MGP8W/35MMLL8>.", "http://urlib.net/ibi/8JMKD3MGP8W/35MMLL8",
                     "urlib.net/8JMKD3MGP8W/35MMLL8", "sid.inpe.br/mtc-m21d/2022/07.20.15.45-NTC",
                     "[8JMKD3MGP8W/35MMLL8](http://urlib.net/8JMKD3MGP8W/35MMLL8)",
                     "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.language=pt",
                     "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/x.pdf",
                     "rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43 ibip 8JMKD3MGP8W/35MMLL8")
    yield from cases("extract", lambda text: extract(text, bounds=Bounds(max_found=1)),
                     "8JMKD3MGP8W/35MMLL8 8JMKD3MGP8W/35MMLL9")
    yield from cases("reference", lambda text: extract(text).found[0].to_dict()["warnings"][0],
                     "IBI: <8JMKD3MGP8W/35MMLL8>. (sid.inpe.br/mtc-m18@80/2010/07.21.14.43)")
    yield from cases("registration key", check_key,
                     "", "1", "123", "1234567890-12", "1234567890-1234567890-1234567890", "12345x7890", "1234567890-")
    yield from cases("registration key of a form", lambda text: check_key(text, N_("the registration key")), "123")
    yield from cases("request", parse_request,
                     "", "servicesubject=x", "servicesubject=urlRequest", "a b", "a=%zz", "a=1&a=2", "&", "x",
                     "servicesubject=urlRequest&clientinformation.ipaddress=x&parsedibiurl.ibi=8JMKD3MGP8W/35MMLL8",
                     "servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi=x",
                     "servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi=8JMKD3MGP8W/35MMLL8"
                     "&parsedibiurl.verblist=Get",
                     "servicesubject=inclusionRequest&archiveaddress=a%20b&archiveserviceibi=x/y&archiveip=1.2.3.4"
                     "&archiveprotocol=HTTP&archiveplatformversion=1&archiveadmemailaddress=a@b&registrationkey=1234567890",
                     "servicesubject=inclusionRequest&archiveaddress=a.b&archiveserviceibi=x/y&archiveip=x"
                     "&archiveprotocol=HTTP&archiveplatformversion=1&archiveadmemailaddress=a@b&registrationkey=1234567890",
                     "servicesubject=inclusionRequest&archiveaddress=a.b&archiveserviceibi=x/y&archiveip=1.2.3.4"
                     "&archiveprotocol=FTP&archiveplatformversion=1&archiveadmemailaddress=a@b&registrationkey=1234567890",
                     "servicesubject=inclusionRequest&archiveaddress=a.b&archiveserviceibi=x/y&archiveip=1.2.3.4"
                     "&archiveprotocol=HTTP&archiveplatformversion=1&archiveadmemailaddress=ab&registrationkey=1234567890")
    yield from cases("request URL", parse_request_url, "https://x", "http://urlib.net", "http://urlib.net?x",
                     "http://urlib.net/x?servicesubject=urlRequest", "http://a b/x/y?servicesubject=urlRequest")
    yield from cases("pair list", parse_pair_list,
                     "a", "a {b", "a b}", "a {b {c}}", "{a} b", "a\rb", "a {b\nc}", "a é", "a {b} c {d", "a b c", "}",
                     "a\x01", b"a \xe9", "a{b}", "a {b}c", "a\u20ac b")
    yield from cases("query", parse_query, "a b", "a=\x01", "a=é", b"a=\xe9", "&", "a", "=b", "a=%z")
    yield from cases("mint", lambda text: MintRequest.parse(dict(pair.split("=", 1) for pair in text.split("&"))),
                     "date=2024-13-45", "date=tomorrow", "date=0000", "date=2023-02-29", "target_url=ftp://x",
                     "target_url=http://", "target_url=http://[abc", "target_url=http://a b", "title=\x01", "language=xx",
                     "language=pt-XX", "translation_of=8JMKD3MGP8W/35MMLL8", "previous_edition=x", "item_type=novel",
                     "degree=PhD", "title=" + "x" * 2000)
    yield from cases("mint's creators", lambda text: MintRequest.parse({"creators": text.split("|")}), "|".join("x" * 60))
    yield from cases("count", parse_count, "x", "0", "1001", "9" * 30)
    yield from cases("idempotency key", idempotency_key, "a b", "x" * 300)
    yield from cases("import", lambda text: list(read_file(text, b"")), "list.txt", "list.csv")
    yield from cases("import a CSV", lambda text: list(read_file("list.csv", text.encode())),
                     "title\nx", "ibi,colour\nx")
    yield from cases("import a record", lambda text: first_problem(read_file(text.split("|")[0], text.split("|")[1].encode())),
                     "list.bib|@book{x, title={a", "list.csv|ibi,type\nx,novel")
    yield from cases("file path", parse_file_path, "", "/a", "a//b", "../a", "a\\b", "a\x01", "x" * 300, "%2e%2e/a",
                     "a\ufffd")
    yield from cases("relation", Relation.parse, "x", ".translation(xx)", ".metadata(marc)", ".lastedition(pt)",
                     ".metadata.lastedition.lastedition")
    yield from cases("compose", lambda text: compose("8JMKD3MGP8W/35MMLL8", text.split(",")),
                     "GetMetadat", "GetMetadata,GetLastEdition", "GetFileList,GetFileList")
    yield from cases("compose's pairs", lambda text: compose("8JMKD3MGP8W/35MMLL8", query=[(text, "1")]),
                     "", "ibiurl.verblist")
    yield from cases("prefix pair", lambda text: check_prefix_pair(*text.split(" ")),
                     "sid.inpe.br/mtc-m18@80 8JMKD3MGP8X", "sid.inpe.br 8JMKD3MGP8W")
    yield from cases("successor", Successor.parse, "", "ftp://x", "http://a b/x", "http://x.org/8JMKD3MGP8W/35MML!8",
                     "http://x.org/", "x.org")
    yield from cases("resolver service", ResolverService.parse, "", "ftp://urlib.net/x", "http://urlib.net",
                     "http://urlib.net/J8LNKB5R7W/3FUQHC5?x")
    yield from cases("Archive service address", parse_service_address, "", "ftp://x", "http://x/y?z", "http://x",
                     "http://x/8JMKD3MGP8W/35MML!8", "http://a b/8JMKD3MGP8W/35MMLL8")
    yield from cases("cite", lambda text: CiteRequest.parse(text, "http://urlib.net/"), "", "8JMKD3MGP8W/35MML!8")
    yield from cases("Archives to ask", lambda text: ArchiveSet.parse(*text.split(",")), "some", "demo,")
    yield from cases("client", lambda text: client_input(ClientInfo(("127.0.0.1",), None), text), "x", "1.2.3.4, y")
    yield from cases("port", optional_port, "x")
    yield from cases("flag", lambda text: optional_flag(text, "original"), "maybe")
    yield from cases("pairs for the item", query_pairs_case(query_pairs), "x")
    yield from cases("citation style", lambda text: UnknownStyle(text, ["apa"] if text == "ap" else []), "ap", "x",
                     names=frozenset({"apa"}))
    yield from cases("citation locale", UnknownLocale, "xx")
    yield from cases("oai_dc record", from_oai_dc, "<x", "<!DOCTYPE x><x/>", "<x/>", "x" * 2_000_000)
    yield from cases("document", lambda text: text_of(text.split("|")[0], text.split("|")[1].encode()),
                     "a.exe|x", "|x", "a.docx|x", "a.odt|x", "a.pdf|x")
    yield from cases("batch upload", decode_upload, b"\xff\xfe\xfa", b"x" * 2_000_000)
    yield from cases("OAI-PMH request", lambda text: read_request([pair.split("=") for pair in text.split("&") if pair]),
                     "", "verb=x", "verb=Identify&verb=Identify", "verb=Identify&x=1", "verb=GetRecord",
                     "verb=GetRecord&identifier=x&metadataPrefix=oai_dc", names=frozenset({"identifier"}))
    yield from cases("address", lambda text: check_url(text, allow_private=False, getaddrinfo=unresolvable),
                     "ftp://x", "http://nowhere.invalid/")
    yield from cases("private address", lambda text: check_url(text, allow_private=False, getaddrinfo=loopback),
                     "http://localhost/")
    yield from cases("an Archive's failure", lambda text: failure_words(Status(text), 500, Recorded("Connection refused")),
                     "timeout", "http-error", "malformed", "refused")
    yield from cases("a translation chosen", lambda text: choose_translation(("en", "de"), text).reason, "pt", "")
    yield from cases("package", package_case, "not a zip", "no manifest")
    yield from cases("nothing chosen", nothing_chosen, "1", "2", "1/t", "t")


def query_pairs_case(query_pairs):
    return lambda text: query_pairs([text])


def package_case(text: str) -> object:
    """An item package that is none: not a zip, or a zip without a package's files or format."""
    from ibiportal.application.packaging import HISTORY, ITEM, MANIFEST, PackageImporter
    if text == "not a zip":
        return PackageImporter(None, None, None, 0, clock=None).run(io.BytesIO(b"x"), "item.zip")
    files = {"other": b"{}"} if text == "no manifest" else {MANIFEST: b'{"format": "x"}', ITEM: b"{}", HISTORY: b""}
    with zipfile.ZipFile(io.BytesIO(zip_of(**files))) as archive:
        return PackageImporter._read(archive, "item.zip")


def nothing_chosen(arrived: str) -> Message:
    """Why a round chose nothing, for ``arrived``: ``1`` or ``2`` empty answers, ``1/t`` one empty
    and one that timed out, ``t`` a timeout alone."""
    from ibiportal.resolver.asking import Reply
    from ibiportal.resolver.selecting import nobody
    from ibiportal.resolver.transport import ArchiveEndpoint, Exchange, Failure

    def reply(name: str, failure: Failure | None = None) -> tuple[Reply, None]:
        exchange = Exchange(status=None if failure else 200, body=None if failure else b"", failure=failure,
                            error=Recorded("Operation timed out after 5000 milliseconds") if failure else None)
        return Reply(ArchiveEndpoint(f"{name}.example:80", "SERVICE/IBI", name), f"http://{name}.example/", exchange,
                     12.5, 1.0), None

    empty = [reply(f"archive{number}") for number in range(int(arrived[0]) if arrived[0].isdigit() else 0)]
    failed = [reply("archive9", Failure.TIMEOUT)] if "t" in arrived else []
    return nobody([*empty, *failed], [])


CORPUS = list(corpus())


@pytest.fixture(scope="module")
def render(tmp_path_factory) -> Callable[[object, str], str]:
    """``render(problem, language)``: the text a page shows for it (a core error with where it is)."""
    app = Flask(__name__, instance_path=str(tmp_path_factory.mktemp("instance")))
    i18n.init_app(app)

    def render(problem: object, language: str) -> str:
        with app.test_request_context(headers={"Accept-Language": language}):
            if isinstance(problem, ParseError):
                return str(i18n.error_text(problem))
            return str(i18n.translate(message_of(problem)))
    return render


def message_of(problem: object) -> object:
    if isinstance(problem, ParseError) or not isinstance(problem, (IbiError, Exception)):
        return problem.message if isinstance(problem, ParseError) else problem
    return getattr(problem, "message", None) or problem.args[0]


def problem_of(case: Case) -> object:
    """What the parser says of the case: the error it raises, else the message it returns, else
    the first warning of what it returns."""
    try:
        answer = case.run(case.given)
    except (IbiError, ValueError, OaiError) as error:
        return error
    if isinstance(answer, (Message, Localized, IbiError)):
        return answer
    warnings = getattr(answer, "warnings", ())
    assert warnings, f"{case.id} says nothing"
    return warnings[0]


@pytest.mark.parametrize("case", CORPUS, ids=[case.id for case in CORPUS])
def test_every_message_arrives_whole_in_portuguese(render, case):
    problem = problem_of(case)
    english, portuguese = render(problem, "en"), render(problem, "pt-BR")
    assert english != portuguese, f"not translated: {portuguese}"
    assert not PLACEHOLDER.search(portuguese), portuguese
    assert not PARENTHESISED_PLURAL.search(portuguese), portuguese
    assert english_left(portuguese, english, case.given, problem) - case.names == set(), portuguese


def test_the_detector_catches_what_pages_showed(render):
    """The untranslated words of the pages the issue listed are caught, identifiers and code are not."""
    assert english_left("month 13 fora do intervalo 01-12", "month 13 out of range 01-12", "x") == {"month"}
    assert english_left("não pode vir depois de the modifier `!`", "may not follow the modifier `!`", "x") == {
        "the", "modifier"}
    assert english_left("o número na posição first tem 3 dígitos", "the first number has 3 digits", "") == {"first"}
    assert english_left("fonte: this portal's identification subsystem", "source: this portal's identification "
                        "subsystem", "") == {"this", "portal's", "identification", "subsystem"}
    assert english_left("caractere `8JMKD3MGP8W/35MMLL8` e 'month' em IBIp", "character `x` 'month' IBIp", "") == set()
    assert PARENTHESISED_PLURAL.search("o(s) 13 Arquivo(s)")


def test_a_plural_message_says_its_noun_in_its_number(render):
    """A count chooses the form in each language (``NP_``), for one as for several."""
    one = NP_("%(count)s answer in ASCII only.", "%(count)s answers in ASCII only.", 1)
    two = NP_("%(count)s answer in ASCII only.", "%(count)s answers in ASCII only.", 2)
    assert (one, two) == ("1 answer in ASCII only.", "2 answers in ASCII only.")
    assert (render(one, "pt-BR"), render(two, "pt-BR")) == ("1 resposta só em ASCII.", "2 respostas só em ASCII.")
