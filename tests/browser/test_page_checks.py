"""Every page, in both languages, checked by tools nobody here wrote and for its language
(docs/page-checks.md).

One fresh portal for the module – the demo Archives, the own Archive's demo items as ``bin/serve``
seeds them, an administrator – is crawled and walked:

* **the crawl** (``tests/checkers/crawler.py``) follows every link its pages offer, in English
  and in Portuguese, from the home page and from the persistent URLs of the demo Archives' items
  (where readers arrive from outside): no link may answer 4xx or 5xx; links to other hosts are
  listed, never fetched, and must be hosts the test knows;
* **the walk** opens every page in every state a reader meets (results, errors, an alert, a
  trace, the administrator's pages…) in Chromium, once in each language, and looks at it at
  1280 px and at 390 px. At each width **axe-core** (``tests/checkers/axe.py``) may find no
  serious or critical violation, the page may not be wider than the window, and a box that
  scrolls sideways must say so and be reachable by keyboard; the page must say its language and
  mark it in the language switch, and a Portuguese page may show none of the catalog's English
  sentences (``test_browser_languages.py``). The two languages walk side by side, state by state,
  so that each state's English and Portuguese renderings can be compared for English left in
  the Portuguese one (``test_browser_untranslated.py``);
* **the Nu HTML checker** (vnu.jar, one run of Java for every page the crawl fetched and every
  document the walk received) may find no error; every page template must be among them, in both
  languages.

The walk shares one browser context per language among all its states: nothing else uses them,
and what one state leaves in them (the language and session cookies, the pages cached) is what a
reader's browser carries from page to page.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from datetime import datetime, timezone
from pathlib import Path

import pytest
from flask import template_rendered
from flask_babel import get_locale
from playwright.sync_api import Browser, Page

from ibiportal.archive.demo import load_demo_archives
from ibiportal.archive.http_server import ArchiveHTTPServer
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.protocol.registry import ArchiveDetails, Confirmation, KeyHash
from ibiportal.storage.import_runs import ImportRunStore
from ibiportal.storage.registry import ArchiveStore
from ibiportal.storage.traces import TraceStore
from tests.admin_session import log_in_as
from tests.checkers import axe, nu
from tests.checkers.crawler import Crawl, crawl
from tests.servers import fresh_sqlite, serving

from .conftest import LiveServer, log_in, serve_with_admin, shoot, sized_page
from .test_browser_languages import english_left, language_marks, switched
from .test_browser_untranslated import shared_texts, texts

LANGUAGES = ("en", "pt-BR")
WIDTHS = {"desktop": 1280, "phone": 390}
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"

OUTSIDE_HOSTS = {
    "mtc-m16c.sid.inpe.br": "the standard's Archive of §10 (file 003): its items' files and records, as the standard prints them",
    "mtc-m16d.sid.inpe.br": "the standard's Archive of Examples 6.1-6.2 and 9.4-9.12 (file 003): their files",
    "urlib.net": "the standard's resolver: an IBI's persistent URL, as file 003 writes it",
    "www.openarchives.org": "the oai_dc schema's namespace, the describedby link's profile (FAIR Signposting)",
    "schema.org": "an item's type and AboutPage, FAIR Signposting's type links",
}
"""The hosts outside the portal that its pages link to, each with why: a new one fails the crawl
until it is added here."""

ACCEPTED = {
    "Attribute “profile” not allowed on element “link” at this point.":
        "FAIR Signposting writes the oai_dc record's profile on the item page's describedby <link> as in its "
        "Link header, and harvesters read it there (the Signposting project's parser does); HTML defines no "
        "such attribute",
}
"""The Nu HTML checker's errors the portal keeps on purpose, each with why."""

ARCHIVE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"  # Example 7.1's Archive, registered for the admin pages
EXCLUDED_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.40"  # an Archive an administrator excluded, its history kept
GARBLED = "garbled.example.org"
SLOW = "slow.example.org:8080"


@pytest.fixture(scope="module")
def portal(tmp_path_factory, included_archive) -> Iterator[LiveServer]:
    """A fresh portal of its own (rate limits off: a crawl and a walk ask faster than a person;
    loopback Archives allowed: the conformance check of its own Archive), with the demo items
    seeded, an Archive registered, one excluded, a finished import, traces kept with failed
    exchanges, and the templates it renders recorded with their language."""
    server = serve_with_admin(fresh_sqlite(tmp_path_factory.mktemp("checked") / "portal.sqlite"),
                              RATELIMIT_ENABLED=False, ALLOW_PRIVATE_ARCHIVES=True)
    seeded = server.app.test_cli_runner().invoke(args=["demo-archive", "seed"])
    assert seeded.exit_code == 0, seeded.output
    server.demo_item = re.search(r"Demo items minted: (\S+)", seeded.output).group(1)  # type: ignore[attr-defined]
    storage = server.storage()
    registry, now = ArchiveStore(storage), datetime.now(timezone.utc)
    # Every resolution of the walk asks the included Archive: one on this machine, which holds
    # nothing (never an address outside it); the excluded one is never asked.
    for service_ibi, address in ((ARCHIVE_IBI, included_archive), (EXCLUDED_IBI, "127.0.0.1:13")):
        registry.register_archive(service_ibi, KeyHash.of(RegistrationKey("1234567890-1234567890")), now)
        registry.record_inclusion(service_ibi, ArchiveDetails(address, "127.0.0.1", "URLib 2.1", "admin@example.org"),
                                  Confirmation(True, "confirmation yes"), now)
    registry.record_exclusion(EXCLUDED_IBI, now)
    runs = ImportRunStore(storage)  # a finished import, for the Import page's list and a run's page
    runs.finish(runs.create("collection.csv", b"ibi\n", dry_run=True, update=False, started_by="admin", counts={}), None, 0)
    failed = [  # as the resolver keeps them: an answer that is no pair list, a timeout (Archive health lists them)
        {"number": 3, "kind": "urlRequest", "receiver": GARBLED, "archive": GARBLED, "status": "malformed",
         "elapsed_ms": 12.5, "parse_error": {"message": "value of 'url' is not a pair list", "position": 7}},
        {"number": 3, "kind": "urlRequest", "receiver": SLOW, "archive": SLOW, "status": "timeout",
         "elapsed_ms": 5000.0, "error": "the exchange deadline (5 s) passed; connection closed"},
    ]
    TraceStore(storage).save_trace("failed-exchanges", "http://urlib.net/8JMKD3MGP8W/34PGRBS", "not found",
                                   {"trace": {"steps": failed}}, keep=1000, budget_bytes=10**7)
    storage.close()
    server.rendered = set()  # type: ignore[attr-defined]
    record = lambda sender, template, context, **extra: server.rendered.add((template.name, str(get_locale())))  # noqa: E731
    template_rendered.connect(record, server.app)
    yield server
    template_rendered.disconnect(record, server.app)
    server.server.shutdown()


class _HoldsNothing(BaseHTTPRequestHandler):
    """An Archive that holds no item: every message is answered with an empty pair list (§9.1)."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def included_archive() -> Iterator[str]:
    """The portal's included Archive: :class:`_HoldsNothing` on a loopback port, as ``127.0.0.1:PORT``."""
    with serving(_HoldsNothing) as address:
        yield address


@pytest.fixture(scope="module")
def garbled_archive() -> Iterator[ArchiveHTTPServer]:
    """The demo Archive ``garbled`` (its answers malformed) on a loopback port, for a conformance check."""
    archive = load_demo_archives()["garbled"]
    server = ArchiveHTTPServer(archive.service, malformed=archive.behaviour.malformed)
    server.handle_error = lambda request, client_address: None  # a client that gave up is expected
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def demo_item_urls() -> list[str]:
    """The persistent URL of every item the demo Archives the portal asks hold (a faulty one, too
    slow or garbled, is asked only by a trace that includes it)."""
    urls = []
    for archive in load_demo_archives().values():
        if archive.behaviour.delay_seconds or archive.behaviour.malformed:
            continue
        for item in archive.service.store.items():
            urls.append("/" + (item.ibi.ibip or item.ibi.rep))
    return sorted(set(urls))


@pytest.fixture(scope="module")
def crawled(portal) -> Crawl:
    client = log_in_as(portal.app.test_client(), "admin", base_url=portal.url)
    seeds = ["/", *demo_item_urls(), f"/{portal.demo_item}:(BibINPE)"]  # URLib's citation page is asked, not linked
    return crawl(client, portal.url, seeds, LANGUAGES, at_most=SAMPLED)


SAMPLED = {r"/trace/[\w-]{16}": 10, r"/trace/[\w-]{16}\.json|/api/v1/trace/[\w-]{16}": 10}
"""Trace pages and their JSON: ten of each (the crawl's own resolutions keep a trace each)."""


def test_every_link_answers_in_both_languages(crawled):
    failures = crawled.failures()
    assert failures == {}, "links that fail:\n" + "\n".join(failures.values())
    hosts = {re.sub(r":\d+$", "", url.split("/")[2]) for url in crawled.outside}
    assert hosts <= set(OUTSIDE_HOSTS), f"links to hosts nobody listed: {sorted(hosts - set(OUTSIDE_HOSTS))}"
    pages = {visit.url for visit in crawled.pages}
    assert len(crawled.pages) > 200 and {"/admin/items/", "/archives/health", "/api/docs"} <= pages


@dataclass
class Walk:
    """What one language's walk found: per state and width, axe's violations, the page's width,
    what the page says wrongly about its language and (in Portuguese) the catalog's English
    sentences it shows; per state, the page's texts and the document the browser received (for
    the Nu HTML checker)."""

    language: str
    violations: dict[str, list[dict]] = field(default_factory=dict)
    widths: dict[str, axe.Width] = field(default_factory=dict)
    marks: dict[str, list[str]] = field(default_factory=dict)
    english: dict[str, list[str]] = field(default_factory=dict)
    texts: dict[str, list[str]] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)


def states(portal: LiveServer, garbled: ArchiveHTTPServer) -> dict[str, object]:
    """Every page in every state the walk checks: a path to open, or what to do to bring it up."""
    own = portal.demo_item  # the own Archive's demo original, with its file report.pdf
    return {
        "home": "/",
        "home-result": "/?q=sid.inpe.br/mtc-m18@80/2009/02.16.17.46",
        "home-typo": "/?q=IBI: <8JMKD3MGP8W/35MML!8>",
        "home-hint": lambda page: typed_in_home_box(page, "sid.inpe.br/mtc-m18@80/2009/13.16.17.46"),
        "home-hint-read": lambda page: typed_in_home_box(page, "IBI: <8JMKD3MGP8W/35MMLL8>."),
        "convert": "/convert?ibi=8JMKD3MGP8W/34PGRBS",
        "convert-errors": "/convert?ibi=8JMKD3MGP8W34PGRBS",
        "convert-batch": convert_batch,
        "prefixes": "/convert/prefixes",
        "compose": "/compose?ibi=8JMKD3MGP8W/35MMLL8&step1-verb=GetLastEdition",
        "parse": "/parse?url=http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
        "parse-errors": "/parse?url=http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc",
        "trace": "/trace",
        "trace-view": trace_of_every_archive,
        "trace-not-found": trace_of_not_found,
        "trace-history": "/trace/history",
        "trace-missing": "/trace/no-such-trace",
        "cite": "/cite",
        "cite-result": "/cite?ibi=D7N2U8HW/3J5AC3H",
        "cite-errors": "/cite?ibi=8JMKD3MGP8W34PGRBS",
        "cite-deleted": "/cite?ibi=D7N2U8HW/3GBBQK2",
        "references": "/references",
        "references-result": checked_references,
        "mint": "/mint",
        "mint-result": mint,
        "mint-errors": lambda page: mint(page, date="2024-13-45", target_url="ftp://x"),
        "own-item": f"/{own}",
        "own-item-files": f"/archive/items/{own}/files",
        "item-page": "/D7N2U8HW/3UGHFGH",  # the resolver's redirect, to a demo Archive's page of the item
        "item-metadata": "/D7N2U8HW/3UGHFGH:",
        "item-files": "/demo/archives/library/filelist/D7N2U8HW/3UGHFGH",
        "not-found": "/8JMKD3MGP8W/34PGRBS",
        "gone": "/D7N2U8HW/3GBBQK2",  # a deleted item's alert
        "health": "/archives/health",
        "api-docs": "/api/docs",
        "error": "/no-such-page",
        "archives": "/admin/archives",
        "archives-bad-key": bad_registration_key,
        "archive": f"/admin/archives/{ARCHIVE_IBI}",
        "archive-excluded": f"/admin/archives/{EXCLUDED_IBI}",
        "archive-registered": f"/admin/archives/{ARCHIVE_IBI}/registered",
        "archive-remove": f"/admin/archives/{ARCHIVE_IBI}/remove",
        "items": "/admin/items/",
        "item-edit": f"/admin/items/{own}",
        "item-delete": f"/admin/items/{own}/delete",
        "item-remove-file": f"/admin/items/{own}/files/delete?path=report.pdf",
        "import": "/admin/import/",
        "resolvers": "/admin/resolvers",
        "conformance": "/admin/conformance",
        "conformance-result": lambda page: conformance(page, f"{portal.url}/{portal.app.config['ARCHIVE_SERVICE_IBI']}"),
        "conformance-errors": lambda page: conformance(page, "http://mtc-m16c.sid.inpe.br", known="8JMKD3MGP8W/35MML01"),
        "conformance-refused": lambda page: conformance(page, f"http://127.0.0.1:9/{ARCHIVE_IBI}", refusing=portal),
        "conformance-garbled": lambda page: conformance(page, garbled.base_url, known="D7N2U8HW/3SNU8PS"),
    }


def checked_references(page: Page) -> None:
    """A reference list checked: an item the demo Archives hold, one none holds, a broken link
    (the References form's own button: a page's first submit button is the header's Log out)."""
    page.goto("/references")
    page.locator("#text").fill("1. Banon, G. IBI: <8JMKD3MGP8W/35MMLL8>.\n"
                               "2. (sid.inpe.br/mtc-m18@80/2009/02.16.17.46-NTC).\n"
                               "3. Broken: <http://urlib.net/8JMKD3MGP8W/ZZZZZZZ>.\n")
    with page.expect_navigation():
        page.locator("form.references button[type=submit]").click()


def convert_batch(page: Page) -> None:
    page.goto("/convert")
    page.locator("#identifiers").fill("8JMKD3MGP8W/34PGRBS\nsid.inpe.br/mtc-m18@80/2009/02.16.17.46\nnot an IBI")
    with page.expect_navigation():
        page.locator("form.batch button[type=submit]").first.click()


def trace_of_every_archive(page: Page) -> None:
    """A trace whose diagram has a lifeline for every default Archive (the widest diagram)."""
    page.goto("/trace")
    page.locator("#url").fill("http://urlib.net/8JMKD3MGP8W/35MMLL8!")
    with page.expect_navigation():
        page.locator("form.trace-form button[type=submit]").click()
    page.locator(".seq-scroll").wait_for()


def trace_of_not_found(page: Page) -> None:
    """The trace of a resolution that found nothing, through the not-found page's link to it."""
    page.goto("/8JMKD3MGP8W/34PGRBS")
    page.goto(page.locator("main a[href^='/trace/']").first.get_attribute("href"))


def typed_in_home_box(page: Page, text: str) -> None:
    """The home page's box as the user types ``text``: the hint its script writes (home.js)."""
    page.goto("/")
    page.locator("input[data-classify]").fill(text)
    page.wait_for_function("() => document.getElementById('q-live').textContent.length > 0")


def mint(page: Page, **fields: str) -> None:
    """The Mint form sent: a title and a comma-less creator with a particle, or ``fields`` (ids)
    that the form refuses."""
    page.goto("/mint")
    page.locator("#title").fill("Modelagem hidrológica")
    page.locator("#creators").fill("Maria da Silva")
    for name, value in fields.items():
        page.locator(f"#{name}").fill(value)
    page.locator("form.mint-form button[type=submit]").click()
    page.locator("article.minted, .errors, [role=alert]").first.wait_for()


def bad_registration_key(page: Page) -> None:
    """An Archive registered with a key too short: the form's error names the key's first number."""
    page.goto("/admin/archives")
    page.locator("#service_ibi").fill(ARCHIVE_IBI)
    page.locator("#registration_key").fill("123")
    with page.expect_navigation():
        page.locator("form:has(#registration_key) button[type=submit]").click()


def conformance(page: Page, address: str, refusing: LiveServer | None = None, known: str = "") -> None:
    """The check of ``address``; with ``refusing`` (the portal), as a portal that refuses
    loopback Archives answers it."""
    page.goto("/admin/conformance")
    page.locator("#address").fill(address)
    page.locator("#known_ibi").fill(known)
    with refusing.built_with(ALLOW_PRIVATE_ARCHIVES=False) if refusing else nullcontext():
        page.locator("form.conformance button[type=submit]").click()
        page.locator("#summary, .errors, [role=alert]").first.wait_for()


def documents_received(page: Page) -> list:
    """The documents ``page`` receives in its main frame, as they come (cleared by the walk)."""
    received: list = []
    page.on("response", lambda response: received.append(response)
            if response.request.resource_type == "document" and response.frame == page.main_frame else None)
    return received


def walk(browser: Browser, portal: LiveServer, garbled: ArchiveHTTPServer) -> dict[str, Walk]:
    """Every state of :func:`states` in both languages, side by side (a browser context for each
    language, the state brought up in English, then in Portuguese), each checked at both widths;
    last, each language's switch followed."""
    found = {language: Walk(language) for language in LANGUAGES}
    with ExitStack() as contexts:
        pages = {language: contexts.enter_context(contextmanager(sized_page)(browser, portal, "desktop"))
                 for language in LANGUAGES}
        received = {language: documents_received(page) for language, page in pages.items()}
        for language, page in pages.items():
            axe.install(page.context)
            page.goto(f"/admin/login?lang={language}")
            check(page, "login", found[language], received[language])
            page.goto("/?lang=en")  # log_in reads the form's English labels
            log_in(page)
            page.goto(f"/?lang={language}")
        # The items page lists it in both languages: a title with no language recorded and a
        # creator's name, runs of words that both renderings show as they are.
        mint(pages["en"], title="A field report on carbon fluxes", creators="Maria da Silva Leite")
        for name, show in states(portal, garbled).items():
            for language, page in pages.items():
                received[language].clear()
                if isinstance(show, str):
                    page.goto(show)
                else:
                    show(page)
                check(page, name, found[language], received[language])
        for language, page in pages.items():
            for width in WIDTHS.values():
                found[language].marks[f"the switch on Convert at {width} px"] = switched(page, language, width)
    return found


def check(page: Page, name: str, found: Walk, received: list) -> None:
    """The page shown, at 1280 px then at 390 px: axe, its width, its language's marks and (in
    Portuguese) the catalog's sentences left in English. Its texts and the document shown kept
    (the last one received: a state that first opens a form shows the form's answer)."""
    page.wait_for_load_state()
    shown = [response for response in received if not 300 <= response.status < 400]
    found.documents[name] = shown[-1].text()
    found.texts[name] = texts(page, found.language)
    for width_name, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        key = f"{name} at {width} px"
        found.violations[key] = axe.violations(page, whole=name in WHOLE)
        found.widths[key] = axe.width(page)
        found.marks[key] = language_marks(page, found.language, name)
        if found.language == "pt-BR":
            found.english[key] = english_left(page)
        if name in SHOT:
            shoot(page, f"checks-{name}-{found.language}-{width_name}")
        elif name in GLANCED:
            shoot(page, f"language-{name}-{found.language}-{width_name}", full_page=False)
    page.set_viewport_size({"width": WIDTHS["desktop"], "height": 900})


WHOLE = {"login", "home"}
"""The states audited with the site's header and footer (logged out, then in): the others without."""

SHOT = {"health", "trace-view", "item-edit", "mint-result", "own-item-files", "archive",
        "conformance-refused", "conformance-garbled"}
"""The pages of the clipped layouts once found, and the states whose English left in Portuguese
was once found, kept as whole-page screenshots to look at."""

GLANCED = {"home", "home-result", "mint", "convert", "prefixes", "compose", "parse", "trace", "trace-history",
           "cite", "references", "api-docs", "archives", "items", "import", "resolvers", "conformance",
           "item-page", "item-metadata", "item-files", "not-found", "error", "trace-not-found"}
"""The pages kept as screenshots of the window, in each language at each width, to look at."""


@pytest.fixture(scope="module")
def walks(browser, portal, garbled_archive, crawled) -> dict[str, Walk]:
    """Both languages' walks (after the crawl: its traces are in the history the walk shows)."""
    return walk(browser, portal, garbled_archive)


@pytest.mark.parametrize("language", LANGUAGES)
def test_axe_finds_nothing_serious_at_either_width(walks, language):
    found = {key: violations for key, violations in walks[language].violations.items() if violations}
    assert found == {}, f"axe-core's serious and critical violations in {language}:\n" + "\n".join(
        f"  {key}: {violation['rule']} ({violation['impact']}) {violation['help']}: {violation['nodes']}"
        for key, violations in found.items() for violation in violations)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_is_wider_than_the_window_and_wide_boxes_say_they_scroll(walks, language):
    widths = walks[language].widths
    wider = {key: f"{width.page} px in {width.window}: {width.wider}" for key, width in widths.items() if width.overflows()}
    silent = {key: width.silent_boxes() for key, width in widths.items() if width.silent_boxes()}
    assert wider == {}, f"pages wider than the window in {language}:\n" + "\n".join(f"  {key}: {why}" for key, why in wider.items())
    assert silent == {}, f"boxes that scroll sideways without a hint, a name or the keyboard in {language}:\n" + "\n".join(
        f"  {key}: {boxes}" for key, boxes in silent.items())


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_says_its_language_and_offers_the_other(walks, language):
    wrong = {key: marks for key, marks in walks[language].marks.items() if marks}
    assert wrong == {}, f"pages in {language} that do not say so:\n" + "\n".join(
        f"  {key}: {'; '.join(marks)}" for key, marks in wrong.items())


def test_no_catalog_sentence_is_left_in_english_on_a_portuguese_page(walks):
    left = {key: sentences for key, sentences in walks["pt-BR"].english.items() if sentences}
    assert left == {}, "the catalog's English sentences on pages in pt-BR:\n" + "\n".join(
        f"  {key}: {sentences}" for key, sentences in left.items())


def test_no_portuguese_page_shares_a_run_of_english_words_with_its_english_twin(walks):
    english, portuguese = walks["en"].texts, walks["pt-BR"].texts
    assert english.keys() == portuguese.keys()
    left = {name: texts_left for name, texts_shown in portuguese.items()
            if (texts_left := shared_texts(english[name], texts_shown))}
    assert left == {}, "English left on pages in pt-BR (at 1280 px, against the page in en):\n" + "\n".join(
        f"  {name}: {texts_left}" for name, texts_left in left.items())


def test_no_stylesheet_locks_the_orientation():
    """What axe's css-orientation-lock looks for (WCAG 1.3.4), which the walk does not run (it
    needs every stylesheet downloaded again for every page): a media query on the orientation."""
    static = TEMPLATES.parent / "static"
    assert [path.name for path in static.rglob("*.css") if "orientation" in path.read_text(encoding="utf-8")] == []


def test_the_nu_html_checker_finds_no_error_in_any_page(portal, crawled, walks, tmp_path):
    documents = {f"crawl-{visit.language}-{number}": html for number, (visit, html) in enumerate(crawled.pages.items())}
    names = {f"crawl-{visit.language}-{number}": f"{visit.url} ({visit.language})"
             for number, visit in enumerate(crawled.pages)}
    for language, found in walks.items():
        for name, html in found.documents.items():
            documents[f"walk-{language}-{name}"] = html
            names[f"walk-{language}-{name}"] = f"{name} ({language})"
    errors = nu.errors(documents, tmp_path, ACCEPTED)
    assert errors == [], "the Nu HTML checker's errors:\n" + "\n".join(
        f"  {names[document]} line {line}: {message} | {extract}" for document, line, message, extract in errors[:60])
    pages = {path.relative_to(TEMPLATES).as_posix() for path in TEMPLATES.rglob("*.html")
             if not path.name.startswith("_") and path.name != "base.html"}
    for language in ("en", "pt_BR"):
        missing = sorted(pages - {name for name, locale in portal.rendered if locale == language})
        assert missing == [], f"page templates no check rendered in {language}: {missing}"
