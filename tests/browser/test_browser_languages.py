"""What a page must say about its language, in Brazilian Portuguese and in English.

The walk of every page (``test_page_checks.py``: every state, both languages, 1280 px and
390 px) is made by an administrator's browser (so that the administration pages are walked too)
that chooses the language once with ``?lang=``; the cookie keeps it on every later page. On each
page, at each width, it asks :func:`language_marks` and, in Portuguese, :func:`english_left`:
the page must say its language in ``<html lang>``, offer the switch with the current language
marked, and, in Portuguese, show none of the catalog's English sentences untranslated: any entry
of four words or more whose English text is still on the page (outside elements marked as another
language, such as a citation or the English meaning of a URL) is a page or message that missed
the catalog. A date must read as the language writes it. Last, :func:`switched` follows the switch.
"""
from __future__ import annotations

import re

from playwright.sync_api import Page

from ibiportal.web import catalogs

DATES = {"pt-BR": "16/02/2009 17:46:00 UTC", "en": "16 Feb 2009, 17:46:00 UTC"}
"""How the home page dates sid.inpe.br/mtc-m18@80/2009/02.16.17.46 (Algorithm 2) in each language."""
DATED = "home-result"
"""The walk's state that shows that date (``test_page_checks.py``)."""
PLACEHOLDER = re.compile(r"%\(\w+\)[-#0 +]?\d*(?:\.\d+)?[a-zA-Z]|%%")


def english_sentences() -> list[str]:
    """The catalog's English texts (their literal pieces between placeholders, markup removed) of
    four words or more whose translation is different: none may be on a Portuguese page."""
    catalog = catalogs.read(catalogs.SOURCE / "pt_BR" / "LC_MESSAGES" / "messages.po")
    sentences = set()
    for message in catalog:
        english = message.id if isinstance(message.id, str) else message.id[0]
        portuguese = message.string if isinstance(message.string, str) else message.string[0]
        for piece in PLACEHOLDER.split(re.sub(r"<[^>]+>", "", english)):
            piece = " ".join(piece.split()).strip(" .,:;()")
            if len(piece.split()) >= 4 and piece not in portuguese:
                sentences.add(piece)
    return sorted(sentences)


ENGLISH = english_sentences()

VISIBLE_TEXT = """() => {
  const body = document.body.cloneNode(true);
  for (const other of body.querySelectorAll("[lang]:not([lang^='pt'])")) other.remove();
  for (const hidden of body.querySelectorAll("[hidden], script, template")) hidden.remove();
  return body.innerText.replace(/\\s+/g, " ");
}"""

MARKS = """() => ({
  lang: document.documentElement.lang,
  links: [...document.querySelectorAll("header .languages a")].map(a => [a.getAttribute("lang"), a.getAttribute("aria-current")]),
})"""
"""The page's ``<html lang>`` and its language switch's links: each one's language and ``aria-current``."""


def other_than(language: str) -> str:
    return "en" if language == "pt-BR" else "pt-BR"


def language_marks(page: Page, language: str, state: str) -> list[str]:
    """What the page shown says wrongly about its language: ``<html lang>``, the switch (two
    links, the current language's marked ``aria-current="true"``, the other's not marked), and on
    the home page's result the date as ``language`` writes it."""
    shown = page.evaluate(MARKS)
    wrong = []
    if shown["lang"] != language:
        wrong.append(f"<html lang={shown['lang']!r}>")
    links = {tag: current for tag, current in shown["links"]}
    if len(shown["links"]) != 2 or links.get(language, "missing") != "true" or links.get(other_than(language), "missing") is not None:
        wrong.append(f"the language switch (language, aria-current): {shown['links']}")
    if state == DATED and DATES[language] not in page.locator("main").inner_text():
        wrong.append(f"no date written {DATES[language]!r}")
    return wrong


def english_left(page: Page) -> list[str]:
    """The catalog's English sentences on the (Portuguese) page shown, outside what is marked as
    another language."""
    text = page.evaluate(VISIBLE_TEXT)
    return [sentence for sentence in ENGLISH if sentence in text]


def switched(page: Page, language: str, width: int) -> list[str]:
    """The switch followed on Convert, the page in ``language`` at ``width`` px: the page must
    come back in the other language, at the same address with ``?lang=``."""
    other = other_than(language)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/language?lang={language}&next=/convert")
    with page.expect_navigation():
        page.locator(f"header .languages a[lang='{other}']").click()
    now = page.evaluate("document.documentElement.lang")
    if now == other and page.url.endswith(f"/convert?lang={other}"):
        return []
    return [f"the switch to {other} on Convert led to {page.url}, in <html lang={now!r}>"]


def test_the_catalog_gives_the_walk_something_to_find():
    """The check of the catalog's sentences is only as good as its list: it holds the pages' long sentences."""
    assert len(ENGLISH) > 200
    assert "Convert identifiers" not in ENGLISH  # two words: too short to be sure it is a sentence
    assert any(sentence.startswith("A new identifier in both forms at once") for sentence in ENGLISH)
