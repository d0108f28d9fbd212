"""No English left on a Portuguese page, whether or not the catalog knows the sentence.

The language walk (``test_browser_languages.py``) looks for the catalog's English sentences on
the Portuguese pages, so a string that was never wrapped for translation is invisible to it.
This test needs no catalog: it renders each page in English and in Brazilian Portuguese, in the
same state, and flags any run of four or more words that the two renderings share. Text that is
deliberately in another language is marked so (``lang="en"``: a transport's own words, a
citation, the English meaning beside a Portuguese quotation; an item's title in its record's
language, ``lang=""`` when none is recorded) and skipped, as are names no translator may touch
(``translate="no"``: an item's creators), code, samples and keyboard input (``code``, ``pre``,
``kbd``, ``samp``); identifiers and URLs are no words
(a token with a digit, a slash, a dot inside or an ``@`` breaks a run).

The state shown includes what pages only show after something happened: an administrator's
pages (logged in), an Archive's history, the Archive health page with a failure in the traces
kept, the conformance check's results, a mint's result, a trace, the home box's hint as the user
types (its script's sentences and the API's), a deleted item's alert and a registration key the
form refuses. (What every parser can say is rendered in both languages by
``tests/web/test_core_messages_in_portuguese.py``, without a browser.)
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timezone

import pytest
from playwright.sync_api import Page

from ibiportal.archive.demo import load_demo_archives
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.protocol.registry import ArchiveDetails, Confirmation, KeyHash
from ibiportal.storage.registry import ArchiveStore
from ibiportal.storage.traces import TraceStore

from .conftest import LiveServer, log_in, shoot, sized_page
from .test_browser_admin import allow_private  # noqa: F401  (a fixture)
from .test_browser_languages import PAGES

LANGUAGES = ("en", "pt-BR")
RUN = 4
"""Words in a row that a Portuguese page may not share with the English one."""

SHARED = (
    "São José dos Campos",  # a place: the Mint form's example of a place of publication
    "Banon, Gerald Jean Francis",  # a person: the Mint form's example of a creator
    "Doutorado em Computação Aplicada",  # a Brazilian degree's own name: the Mint form's example
    "Harvard (Cite Them Right)",  # a citation style's name
)
"""Words a page shows identically in both languages on purpose (each one justified)."""

TEXTS = """(portuguese) => {
  const other = portuguese ? "body [lang]" : "body [lang^='pt']";
  const skipped = other + ", [translate=no], code, pre, kbd, samp, script, style, template, [hidden]";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    if (text && !node.parentElement.closest(skipped)) texts.push(text);
  }
  for (const element of document.querySelectorAll("body [placeholder], body [title], body [aria-label], body [alt]")) {
    if (element.closest(skipped)) continue;
    for (const name of ["placeholder", "title", "aria-label", "alt"]) {
      if (element.getAttribute(name)) texts.push(element.getAttribute(name));
    }
  }
  return texts;
}"""
"""Every text of the page (its text nodes, a select's options and a closed <details> included,
and the placeholders, titles, labels for screen readers and images' alternatives) outside code and
outside what is marked with a language: on the English page, Portuguese (the standard's words
quoted); on the Portuguese page, anything marked, whose language is deliberate (a citation in its
style's language, a record's title in the record's, a transport's English words)."""

PUNCTUATION = ",;:!?()[]{}\"'‘’«»…–—*"
WORD = re.compile(r"[^\W\d_][^\W\d_A-Z]*(?:[-'’][^\W\d_A-Z]+)?")
QUOTED = re.compile(r"“[^”]*”")
ARCHIVE_NAMES = frozenset(load_demo_archives())
"""The demo Archives' names (origin, mirror, tombstone…): identifiers, which pages list as they are."""


def runs(text: str) -> list[list[str]]:
    """The runs of words of ``text``. A token that is no word ends a run, so that identifiers,
    names of formats and data never count as English: a token with a digit, a dot, a slash or an
    ``@`` (an IBI, a URL, a number, a file's extension), with a capital letter after its first
    (an acronym such as ABNT, BibTeX, a language tag such as pt-BR) or two hyphens (a style's id
    such as chicago-author-date), a capital letter alone (the IBIp alphabet's "0 1 I O V Y Z"), or a demo
    Archive's name. Text in typographic quotes is quoted material (what a person
    typed), and a sentence's end ends a run too."""
    found: list[list[str]] = [[]]
    for token in QUOTED.sub(" / ", text).split():
        word = token.strip(PUNCTUATION).rstrip(".")
        if WORD.fullmatch(word) and word not in ARCHIVE_NAMES and not (len(word) == 1 and word.isupper()):
            found[-1].append(word.lower())
        elif found[-1]:
            found.append([])
        if token[-1:] in ".;:!?" and found[-1]:
            found.append([])
    return [run for run in found if len(run) >= RUN]


def shingles(text: str) -> set[tuple[str, ...]]:
    return {tuple(run[i:i + RUN]) for run in runs(text) for i in range(len(run) - RUN + 1)}


def shared_texts(english: list[str], portuguese: list[str]) -> list[str]:
    """The Portuguese page's texts holding four words in a row that the English page has too."""
    english_shingles = set().union(*(shingles(_unshared(text)) for text in english)) if english else set()
    return sorted({text for text in portuguese if shingles(_unshared(text)) & english_shingles})


def _unshared(text: str) -> str:
    for words in SHARED:
        text = text.replace(words, " / ")
    return text


def texts(page: Page, language: str) -> list[str]:
    return page.evaluate(TEXTS, language == "pt-BR")


def rendered_in_both(page: Page, show) -> dict[str, list[str]]:
    """The page's texts in each language: the language chosen (``/language``, which works on
    the resolver's addresses too), then ``show(page)`` brings the page up."""
    rendered = {}
    for language in LANGUAGES:
        page.goto(f"/language?lang={language}&next=/")
        show(page)
        rendered[language] = texts(page, language)
    return rendered


@pytest.fixture
def admin(browser, live_server) -> Iterator[Page]:
    for page in sized_page(browser, live_server, "desktop"):
        log_in(page)
        yield page


ARCHIVE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"  # Example 7.1's Archive
GARBLED = "garbled.example.org"
SLOW = "slow.example.org:8080"


@pytest.fixture
def arranged(live_server) -> Iterator[None]:
    """An Archive with a history (registered, included, excluded by an administrator, a refusal)
    and traces kept with failed exchanges (an answer that is no pair list, a timeout), as the
    resolver stores them; the Archive is removed afterwards (the traces stay, as any test's)."""
    storage = live_server.storage()
    registry = ArchiveStore(storage)
    now = datetime.now(timezone.utc)
    registry.register_archive(ARCHIVE_IBI, KeyHash.of(RegistrationKey("1234567890-1234567890")), now)
    registry.record_inclusion(ARCHIVE_IBI, ArchiveDetails("150.163.34.239", "150.163.34.239", "URLib 2.1",
                                                          "admin@example.org"), Confirmation(True, "confirmation yes"), now)
    registry.record_exclusion(ARCHIVE_IBI, now)
    steps = [
        {"number": 3, "kind": "urlRequest", "receiver": GARBLED, "archive": GARBLED, "status": "malformed",
         "elapsed_ms": 12.5, "parse_error": {"message": "value of 'url' is not a pair list", "position": 7}},
        {"number": 3, "kind": "urlRequest", "receiver": SLOW, "archive": SLOW, "status": "timeout",
         "elapsed_ms": 5000.0, "error": "the exchange deadline (5 s) passed; connection closed"},
    ]
    TraceStore(storage).save_trace("untranslated-failures", "http://urlib.net/8JMKD3MGP8W/34PGRBS", "not found",
                                   {"trace": {"steps": steps}}, keep=1000, budget_bytes=10**7)
    yield
    registry.remove_archive(ARCHIVE_IBI)
    storage.close()


def test_no_page_shares_a_run_of_english_words_with_its_portuguese_twin(admin, live_server, arranged,
                                                                        allow_private, serve_demo_archive):
    garbled = serve_demo_archive("garbled")
    shows = {name: (lambda page, path=path: page.goto(path)) for name, path in PAGES.items()}
    shows.update({
        "archive": lambda page: page.goto(f"/admin/archives/{ARCHIVE_IBI}"),
        "archive-registered": lambda page: page.goto(f"/admin/archives/{ARCHIVE_IBI}/registered"),
        "archive-remove": lambda page: page.goto(f"/admin/archives/{ARCHIVE_IBI}/remove"),
        "mint-result": mint,
        "mint-errors": lambda page: mint(page, date="2024-13-45", target_url="ftp://x"),
        "item-edit": lambda page: page.goto(f"/admin/items/{minted_ibip(page)}"),
        "item-delete": lambda page: page.goto(f"/admin/items/{minted_ibip(page)}/delete"),
        "conformance-errors": lambda page: conformance(page, "http://mtc-m16c.sid.inpe.br", known="8JMKD3MGP8W/35MML01"),
        "conformance-refused": lambda page: conformance(page, f"http://127.0.0.1:9/{ARCHIVE_IBI}", live_server),
        "conformance-garbled": lambda page: conformance(page, garbled.base_url, known="D7N2U8HW/3SNU8PS"),
        "trace-view": trace,
        "cite-result": lambda page: page.goto("/cite?ibi=D7N2U8HW/3J5AC3H"),
        "cite-errors": lambda page: page.goto("/cite?ibi=8JMKD3MGP8W34PGRBS"),
        "cite-deleted": lambda page: page.goto("/cite?ibi=D7N2U8HW/3GBBQK2"),
        "references-result": references,
        "convert-errors": lambda page: page.goto("/convert?ibi=8JMKD3MGP8W34PGRBS"),
        "home-hint": lambda page: typed_in_home_box(page, "sid.inpe.br/mtc-m18@80/2009/13.16.17.46"),
        "home-hint-read": lambda page: typed_in_home_box(page, "IBI: <8JMKD3MGP8W/35MMLL8>."),
        "alert-deleted": lambda page: page.goto("/D7N2U8HW/3GBBQK2"),
        "archives-bad-key": bad_registration_key,
        "parse-errors": lambda page: page.goto("/parse?url=http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc"),
    })
    # The items page lists it: a title with no language recorded and a creator's name, runs of
    # words that both renderings show as they are (before, only items other tests had left there).
    mint(admin, title="A field report on carbon fluxes", creators="Maria da Silva Leite")
    found = {}
    for name, show in shows.items():
        rendered = rendered_in_both(admin, show)
        found[name] = shared_texts(rendered["en"], rendered["pt-BR"])
        if name in ("health", "archive", "mint-result", "conformance-refused", "conformance-garbled"):
            shoot(admin, f"untranslated-{name}-pt-BR")
    left = {name: texts_left for name, texts_left in found.items() if texts_left}
    assert left == {}, "English left on Portuguese pages:\n" + "\n".join(
        f"  {name}: {texts_left}" for name, texts_left in left.items())


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


def minted_ibip(page: Page) -> str:
    """A new item's IBIp (minted through the form)."""
    mint(page)
    return page.locator("article.minted dd code").nth(1).inner_text()


def conformance(page: Page, address: str, refusing: LiveServer | None = None, known: str = "") -> None:
    """The check of ``address``; with ``refusing`` (the live server), as a portal that refuses
    loopback Archives answers it."""
    page.goto("/admin/conformance")
    page.locator("#address").fill(address)
    page.locator("#known_ibi").fill(known)
    config = refusing.app.config if refusing else {}
    before = config.get("ALLOW_PRIVATE_ARCHIVES")
    if refusing:
        config["ALLOW_PRIVATE_ARCHIVES"] = False
    try:
        page.locator("form.conformance button[type=submit]").click()
        page.locator("#summary, .errors, [role=alert]").first.wait_for()
    finally:
        if refusing:
            config["ALLOW_PRIVATE_ARCHIVES"] = before


def references(page: Page) -> None:
    """The reference check of a list: an item the demo Archives hold, one none holds, a broken link."""
    page.goto("/references")
    page.locator("#text").fill("1. Banon, G. IBI: <8JMKD3MGP8W/35MMLL8>.\n"
                               "2. (sid.inpe.br/mtc-m18@80/2009/02.16.17.46-NTC).\n"
                               "3. Broken: <http://urlib.net/8JMKD3MGP8W/ZZZZZZZ>.\n")
    with page.expect_navigation():
        page.locator("form.references button[type=submit]").click()  # the page's first submit is the header's Log out


def typed_in_home_box(page: Page, text: str) -> None:
    """The home page's box as the user types ``text``: the hint its script writes (home.js)."""
    page.goto("/")
    page.locator("input[data-classify]").fill(text)
    page.wait_for_function("() => document.getElementById('q-live').textContent.length > 0")


def bad_registration_key(page: Page) -> None:
    """An Archive registered with a key too short: the form's error names the key's first number."""
    page.goto("/admin/archives")
    page.locator("#service_ibi").fill(ARCHIVE_IBI)
    page.locator("#registration_key").fill("123")
    with page.expect_navigation():
        page.locator("form:has(#registration_key) button[type=submit]").click()


def trace(page: Page) -> None:
    page.goto(PAGES["not-found"])
    page.goto(page.locator("main a[href^='/trace/']").first.get_attribute("href"))


def test_the_detector_finds_english_in_portuguese_and_skips_identifiers():
    english = ["The answer is not a pair list (Table 6.2).", "Give 8JMKD3MGP8W/35MMLL8 or http://urlib.net/a/b c d e"]
    portuguese = ["A resposta não é uma lista de pares (Tabela 6.2).",
                  "Algo: the answer is not a pair list",
                  "Dê 8JMKD3MGP8W/35MMLL8 ou http://urlib.net/a/b c d e"]
    assert shared_texts(english, portuguese) == ["Algo: the answer is not a pair list"]
    assert runs("one two three. four five six seven") == [["four", "five", "six", "seven"]]
