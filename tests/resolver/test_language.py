"""Accept-Language q-values choosing a translation (STANDARD.md §4)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ibiportal.ibi.modifiers import Verb
from ibiportal.protocol.pairlist import Pair, PairList
from ibiportal.resolver.language import choose_translation, parse_accept_language
from ibiportal.resolver.reading import read

HEADER = "pt-BR,fr;q=0.8,en;q=0.5,pt;q=0.3"  # §10.1


def test_parse_orders_by_q():
    assert [(r.range, r.q) for r in parse_accept_language(HEADER)] == [("pt-br", 1.0), ("fr", 0.8), ("en", 0.5), ("pt", 0.3)]


def test_choice_follows_q_values():
    assert choose_translation(["en", "fr"], HEADER).language == "fr"
    assert choose_translation(["en", "pt"], HEADER).language == "pt"  # pt matches the pt-BR range at q=1
    assert choose_translation(["en", "pt-BR"], HEADER).language == "pt-BR"
    assert choose_translation(["en", "de"], "de;q=0,en;q=0.1").language == "en"


def test_an_exact_tag_wins_over_a_primary_language_match_listed_first():
    """A ``pt-BR`` reader gets ``(pt-BR)`` even when ``(pt)`` is offered first (Example 8.3)."""
    assert choose_translation(["pt", "pt-BR"], HEADER).language == "pt-BR"
    assert choose_translation(["pt", "pt-BR"], "pt-BR").language == "pt-BR"
    assert choose_translation(["pt-BR", "pt"], "pt").language == "pt"
    assert choose_translation(["pt-PT", "pt-BR"], "pt-BR,pt;q=0.9").language == "pt-BR"
    assert choose_translation(["pt", "en"], "en;q=0.9,pt-BR").language == "pt"  # q-values still come first


def test_no_match_chooses_no_translation_and_says_the_original_is_taken():
    """Example 8.3: "senão deve retornar simplesmente a versão do item … no seu idioma original"."""
    choice = choose_translation(["de", "it"], HEADER)
    assert choice.language is None and "original" in choice.reason
    assert choose_translation([], HEADER).language is None


EXAMPLE_9_3 = PairList.from_pairs([
    ("ibi", "rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23 ibip 8JMKD3MGP8W/35MME4E"),
    ("url", "http://mtc-m16c.sid.inpe.br/col/original.pdf"),
    ("url.translation(de)", "http://mtc-m16c.sid.inpe.br/col/de.pdf"),
    ("url.translation(pt)", "http://mtc-m16c.sid.inpe.br/col/pt.pdf"),
    ("url.translation(pt-BR)", "http://mtc-m16c.sid.inpe.br/col/pt-BR.pdf"),
])
PLUS = (Verb.parse("GetTranslation"),)


def test_reading_a_bare_translation_without_a_match_gives_the_original():
    reading = read(EXAMPLE_9_3, PLUS, "en,fr;q=0.5")
    assert reading.url == "http://mtc-m16c.sid.inpe.br/col/original.pdf" and reading.relation == ""
    assert any("original" in note for note in reading.notes)
    assert read(EXAMPLE_9_3, PLUS, None).url == "http://mtc-m16c.sid.inpe.br/col/original.pdf"


def test_reading_a_bare_translation_without_a_match_prefers_a_language_less_translation():
    pairs = PairList((*EXAMPLE_9_3.pairs, Pair("url.translation", "http://mtc-m16c.sid.inpe.br/col/any.pdf")))
    reading = read(pairs, PLUS, "en")
    assert (reading.url, reading.relation) == ("http://mtc-m16c.sid.inpe.br/col/any.pdf", ".translation")


def test_reading_a_bare_translation_gives_the_exact_tag():
    assert read(EXAMPLE_9_3, PLUS, "pt-BR").url == "http://mtc-m16c.sid.inpe.br/col/pt-BR.pdf"
    assert read(EXAMPLE_9_3, PLUS, "pt").url == "http://mtc-m16c.sid.inpe.br/col/pt.pdf"
    assert read(EXAMPLE_9_3, PLUS, "de").url == "http://mtc-m16c.sid.inpe.br/col/de.pdf"


@given(st.text(max_size=60), st.lists(st.sampled_from(["en", "fr", "pt", "pt-BR", "de"]), min_size=1, unique=True))
def test_never_raises_and_picks_an_offered_language_or_none(header, offered):
    assert choose_translation(offered, header).language in (*offered, None)
