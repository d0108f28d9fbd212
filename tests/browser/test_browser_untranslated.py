"""No English left on a Portuguese page, whether or not the catalog knows the sentence.

The catalog's check (``test_browser_languages.py``) looks for the catalog's English sentences on
the Portuguese pages, so a string that was never wrapped for translation is invisible to it.
This check needs no catalog: the walk of every page (``test_page_checks.py``) renders each page
in English and in Brazilian Portuguese, in the same state, and :func:`shared_texts` flags any run
of four or more words that the two renderings share. Text that is
deliberately in another language is marked so (``lang="en"``: a transport's own words, a
citation, the English meaning beside a Portuguese quotation; an item's title in its record's
language, ``lang=""`` when none is recorded) and skipped, as are names no translator may touch
(``translate="no"``: an item's creators), code, samples and keyboard input (``code``, ``pre``,
``kbd``, ``samp``); identifiers and URLs are no words
(a token with a digit, a slash, a dot inside or an ``@`` breaks a run).

The states the walk compares include what pages only show after something happened: an
administrator's pages (logged in), an Archive's history, the Archive health page with a failure
in the traces kept, the conformance check's results, a mint's result, a trace, the home box's
hint as the user types (its script's sentences and the API's), a deleted item's alert and a
registration key the form refuses. (What every parser can say is rendered in both languages by
``tests/web/test_core_messages_in_portuguese.py``, without a browser.)
"""
from __future__ import annotations

import re

from playwright.sync_api import Page

from ibiportal.archive.demo import load_demo_archives

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
    """The texts of the page shown in ``language`` (:data:`TEXTS`), for :func:`shared_texts`."""
    return page.evaluate(TEXTS, language == "pt-BR")


def test_the_detector_finds_english_in_portuguese_and_skips_identifiers():
    english = ["The answer is not a pair list (Table 6.2).", "Give 8JMKD3MGP8W/35MMLL8 or http://urlib.net/a/b c d e"]
    portuguese = ["A resposta não é uma lista de pares (Tabela 6.2).",
                  "Algo: the answer is not a pair list",
                  "Dê 8JMKD3MGP8W/35MMLL8 ou http://urlib.net/a/b c d e"]
    assert shared_texts(english, portuguese) == ["Algo: the answer is not a pair list"]
    assert runs("one two three. four five six seven") == [["four", "five", "six", "seven"]]
