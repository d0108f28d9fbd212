"""Every page of the portal in Brazilian Portuguese and in English, at 1280 px and at 390 px.

An administrator's browser (so that the administration pages are walked too) chooses the
language once with ``?lang=``; the cookie keeps it on every later page. Each page must say its
language in ``<html lang>``, offer the switch with the current language marked, and, in
Portuguese, show none of the catalog's English sentences untranslated: any entry of four words or
more whose English text is still on the page (outside elements marked as another language, such as
a citation or the English meaning of a URL) is a page or message that missed the catalog. A date
must read as the language writes it.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page

from ibiportal.web import catalogs

from .conftest import log_in, shoot, sized_page

PAGES = {
    "home": "/",
    "home-result": "/?q=sid.inpe.br/mtc-m18@80/2009/02.16.17.46",
    "mint": "/mint",
    "convert": "/convert?ibi=8JMKD3MGP8W/34PGRBS",
    "prefixes": "/convert/prefixes",
    "compose": "/compose?ibi=8JMKD3MGP8W/35MMLL8&step1-verb=GetLastEdition",
    "parse": "/parse?url=http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
    "trace": "/trace",
    "trace-history": "/trace/history",
    "cite": "/cite",
    "references": "/references",
    "api-docs": "/api/docs",
    "health": "/archives/health",
    "archives": "/admin/archives",
    "items": "/admin/items/",
    "import": "/admin/import/",
    "resolvers": "/admin/resolvers",
    "conformance": "/admin/conformance",
    "item-page": "/D7N2U8HW/3UGHFGH",  # the resolver's redirect, to a demo Archive's page of the item
    "item-metadata": "/D7N2U8HW/3UGHFGH:",
    "item-files": "/demo/archives/library/filelist/D7N2U8HW/3UGHFGH",
    "not-found": "/8JMKD3MGP8W/34PGRBS",
    "error": "/no-such-page",
}
DATES = {"pt-BR": "16/02/2009 17:46:00 UTC", "en": "16 Feb 2009, 17:46:00 UTC"}
"""How the home page dates sid.inpe.br/mtc-m18@80/2009/02.16.17.46 (Algorithm 2) in each language."""
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


@pytest.mark.parametrize("width", ["desktop", "phone"])
@pytest.mark.parametrize("language", ["pt-BR", "en"])
def test_every_page_in_both_languages(browser, live_server, language, width):
    for page in sized_page(browser, live_server, width):
        log_in(page)
        page.goto(f"/?lang={language}")
        other = "en" if language == "pt-BR" else "pt-BR"
        for name, path in {**PAGES, "trace-view": None}.items():
            if path is None:  # the trace of the not-found resolution above, through its page's link
                page.goto(PAGES["not-found"])
                path = page.locator("main a[href^='/trace/']").first.get_attribute("href")
            page.goto(path)
            assert page.evaluate("document.documentElement.lang") == language, name
            switch = page.locator("header .languages a")
            assert switch.count() == 2, name
            assert page.locator(f"header .languages a[lang='{language}']").get_attribute("aria-current") == "true"
            assert page.locator(f"header .languages a[lang='{other}']").get_attribute("aria-current") is None
            if language == "pt-BR":
                text = page.evaluate(VISIBLE_TEXT)
                left = [sentence for sentence in ENGLISH if sentence in text]
                assert left == [], f"{name}: English left on the Portuguese page: {left}"
            if name == "home-result":
                assert DATES[language] in page.locator("main").inner_text()
            shoot(page, f"language-{name}-{language}-{width}", full_page=False)
        page.goto("/convert")
        with page.expect_navigation():
            page.locator(f"header .languages a[lang='{other}']").click()
        assert page.evaluate("document.documentElement.lang") == other
        assert page.url.endswith(f"/convert?lang={other}")


def test_the_catalog_gives_the_walk_something_to_find():
    """The check above is only as good as its list: it holds the pages' long sentences."""
    assert len(ENGLISH) > 200
    assert "Convert identifiers" not in ENGLISH  # two words: too short to be sure it is a sentence
    assert any(sentence.startswith("A new identifier in both forms at once") for sentence in ENGLISH)
