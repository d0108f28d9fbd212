"""Every style, by its rules: real INPE author lists, every kind of item, and a defect scan.

Expected texts are written by hand from each style's manual (see ibiportal/citation/styles.py
for the rules and their sources); none is produced by the code under test.
"""
from __future__ import annotations

import re
from datetime import date

import pytest

from ibiportal.citation import STYLE_KEYS, CitationRecord, ItemType, citations
from tests.citation.inpe_author_lists import AUTHOR_LISTS

ACCESSED = date(2026, 11, 22)
IBI = "8JMKD3MGP8W/34PGRBS"
REP = "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"
URL = f"http://urlib.net/ibi/{IBI}"
SERIES = f"{REP}-NTC"

#: The issue's example report, cited with each real author list.
REPORT = dict(
    persistent_url=URL, ibi=IBI, repository=REP, title="Título do relatório", date="2009", publisher="INPE",
    place="São José dos Campos", extent="39", report_number="NTC", item_type=ItemType.REPORT,
)
#: What follows the authors in each style, for REPORT (written from each style's rules).
AFTER_AUTHORS = {
    "inpe": (
        f"Título do relatório. São José dos Campos: INPE, 2009. 39 p. IBI: <{IBI}>. ({SERIES})."
        f" Disponível em: <{URL}>."
    ),
    "inpe_en": (
        f"Título do relatório. São José dos Campos: INPE, 2009. 39 p. IBI: <{IBI}>. ({SERIES})."
        f" Available from: <{URL}>."
    ),
    "abnt": (
        f"Título do relatório. São José dos Campos: INPE, 2009. 39 p. ({SERIES}). Disponível em: {URL}."
        " Acesso em: 22 nov. 2026."
    ),
    "apa": f"(2009). Título do relatório (Report No. {SERIES}). INPE. {URL}",
    "ieee": f", “Título do relatório,” INPE, São José dos Campos, Rep. {SERIES}, 2009. [Online]. Available: {URL}",
    "harvard": (
        f"(2009) Título do relatório. {SERIES}. São José dos Campos: INPE. Available at: {URL}"
        " (Accessed: 22 November 2026)."
    ),
}


def expected(case: dict, style: str) -> str:
    head = case["nbr"] if style in ("inpe", "inpe_en", "abnt") else case[style]
    glue = "" if style == "ieee" else " "
    return f"{head}{glue}{AFTER_AUTHORS[style]}"


def test_at_least_25_real_author_lists_each_with_its_source():
    assert len(AUTHOR_LISTS) >= 25
    assert all(case["source"] and case["creators"] for case in AUTHOR_LISTS)


@pytest.mark.parametrize("style", STYLE_KEYS)
@pytest.mark.parametrize("case", AUTHOR_LISTS, ids=lambda case: case["creators"][0])
def test_real_inpe_author_lists_in_every_style(case, style):
    record = CitationRecord(creators=tuple(case["creators"]), **REPORT)
    assert citations(record, ACCESSED).formatted[style] == expected(case, style)


def test_the_issues_example_in_inpe_style_character_for_character():
    record = CitationRecord(creators=("Silva, Maria da", "Leite Filho, Waldemar de Castro"), **REPORT)
    assert citations(record, ACCESSED).formatted["inpe"] == (
        "SILVA, M. da; LEITE FILHO, W. de C. Título do relatório. São José dos Campos: INPE, 2009. 39 p."
        " IBI: <8JMKD3MGP8W/34PGRBS>. (sid.inpe.br/mtc-m18@80/2009/02.16.17.46-NTC). Disponível em:"
        " <http://urlib.net/ibi/8JMKD3MGP8W/34PGRBS>."
    )


@pytest.mark.parametrize(
    ("creator", "nbr", "apa", "ieee"),
    [
        ("Silva, Maria da", "SILVA, M. da.", "Silva, M. da.", "M. da Silva"),
        ("Maria da Silva", "SILVA, M. da.", "Silva, M. da.", "M. da Silva"),
        ("Leite Filho, Waldemar de Castro", "LEITE FILHO, W. de C.", "Leite Filho, W. de C.", "W. de C. Leite Filho"),
        ("Waldemar de Castro Leite Filho", "LEITE FILHO, W. de C.", "Leite Filho, W. de C.", "W. de C. Leite Filho"),
        ("Santiago Junior, Valdivino", "SANTIAGO JUNIOR, V.", "Santiago Junior, V.", "V. Santiago Junior"),
        ("Carlos Neto", "NETO, C.", "Neto, C.", "C. Neto"),  # a surname alone, not a suffix
        ("Pedro Sobrinho Neto", "SOBRINHO NETO, P.", "Sobrinho Neto, P.", "P. Sobrinho Neto"),
        ("Souza, Ana Paula", "SOUZA, A. P.", "Souza, A. P.", "A. P. Souza"),
        ("Souza, Ana-Paula", "SOUZA, A.-P.", "Souza, A.-P.", "A.-P. Souza"),
        ("Almeida, R.C.", "ALMEIDA, R. C.", "Almeida, R. C.", "R. C. Almeida"),
        ("dos Santos, João", "SANTOS, J. dos.", "Santos, J. dos.", "J. dos Santos"),
        ("van der Berg, Jan", "VAN DER BERG, J.", "van der Berg, J.", "J. van der Berg"),
        ("Ludwig van Beethoven", "VAN BEETHOVEN, L.", "van Beethoven, L.", "L. van Beethoven"),
        ("Instituto Nacional de Pesquisas Espaciais (INPE)", "INSTITUTO NACIONAL DE PESQUISAS ESPACIAIS (INPE).",
         "Instituto Nacional de Pesquisas Espaciais (INPE).", "Instituto Nacional de Pesquisas Espaciais (INPE)"),
        ("Research Data Service", "RESEARCH DATA SERVICE.", "Research Data Service.", "Research Data Service"),
        ("Banon,", "BANON.", "Banon.", "Banon"),
    ],
)
def test_names_with_particles_suffixes_compound_given_names_and_organisations(creator, nbr, apa, ieee):
    formatted = citations(CitationRecord(creators=(creator,), **REPORT), ACCESSED).formatted
    assert formatted["abnt"].startswith(f"{nbr} Título")
    assert formatted["inpe"].startswith(f"{nbr} Título")
    assert formatted["apa"].startswith(f"{apa} (2009).")
    assert formatted["ieee"].startswith(f"{ieee}, “Título")


# --- every kind of item --------------------------------------------------------------------

THESIS = dict(
    persistent_url="http://urlib.net/ibi/8JMKD3MGP3W34R/3UGHFGH", ibi="8JMKD3MGP3W34R/3UGHFGH",
    repository="sid.inpe.br/mtc-m21c/2019/12.04.15.16", creators=("Robledo Asencio, José Carlos",),
    title="Estudo numérico do processo de decomposição: câmaras catalíticas", date="2020",
    publisher="Instituto Nacional de Pesquisas Espaciais (INPE)", place="São José dos Campos", extent="189",
    degree="Doutorado em Combustão e Propulsão", report_number="TDI", item_type=ItemType.DOCTORAL_THESIS,
)
T_URL, T_SERIES = THESIS["persistent_url"], "sid.inpe.br/mtc-m21c/2019/12.04.15.16-TDI"
T_TITLE = "Estudo numérico do processo de decomposição: câmaras catalíticas"
T_NOTE = "(Doutorado em Combustão e Propulsão) - Instituto Nacional de Pesquisas Espaciais (INPE), São José dos Campos, 2020."


def test_doctoral_thesis_in_every_style():
    cited = citations(CitationRecord(**THESIS), ACCESSED)
    assert cited.formatted == {
        "inpe": f"ROBLEDO ASENCIO, J. C. {T_TITLE}. 2020. 189 p. IBI: <8JMKD3MGP3W34R/3UGHFGH>. ({T_SERIES})."
        f" Tese {T_NOTE} Disponível em: <{T_URL}>.",
        "inpe_en": f"ROBLEDO ASENCIO, J. C. {T_TITLE}. 2020. 189 p. IBI: <8JMKD3MGP3W34R/3UGHFGH>. ({T_SERIES})."
        f" Thesis {T_NOTE} Available from: <{T_URL}>.",
        "abnt": f"ROBLEDO ASENCIO, J. C. {T_TITLE}. 2020. 189 p. Tese {T_NOTE.replace(' - ', ' – ')}"
        f" Disponível em: {T_URL}. Acesso em: 22 nov. 2026.",
        "apa": f"Robledo Asencio, J. C. (2020). {T_TITLE} [Doctoral dissertation, Instituto Nacional de Pesquisas"
        f" Espaciais (INPE)]. {T_URL}",
        "ieee": f"J. C. Robledo Asencio, “{T_TITLE},” Ph.D. dissertation, Instituto Nacional de Pesquisas Espaciais"
        f" (INPE), São José dos Campos, 2020. [Online]. Available: {T_URL}",
        "harvard": f"Robledo Asencio, J.C. (2020) {T_TITLE}. PhD thesis. Instituto Nacional de Pesquisas Espaciais"
        f" (INPE). Available at: {T_URL} (Accessed: 22 November 2026).",
    }
    # Emphasis: NBR 6023 the title without its subtitle in bold, APA and Harvard the title in italics.
    html = cited.formatted_html
    assert "<b>Estudo numérico do processo de decomposição</b>: câmaras catalíticas." in html["inpe"]
    assert "<b>Estudo numérico do processo de decomposição</b>: câmaras" in html["abnt"]
    assert f"<i>{T_TITLE}</i> [Doctoral dissertation" in html["apa"]
    assert f"<i>{T_TITLE}</i>. PhD thesis." in html["harvard"]
    assert "<i>" not in html["ieee"] and "<b>" not in html["ieee"]
    assert cited.bibtex.startswith("@phdthesis{robledoasencio2020estudo,\n")
    assert "  ibi = {8JMKD3MGP3W34R/3UGHFGH},\n" in cited.bibtex
    assert "  repository = {sid.inpe.br/mtc-m21c/2019/12.04.15.16},\n" in cited.bibtex
    assert f"  url = {{{T_URL}}},\n" in cited.bibtex
    assert "  school = {Instituto Nacional de Pesquisas Espaciais (INPE)},\n" in cited.bibtex
    assert cited.ris.startswith("TY  - THES\r\n") and "M3  - Doutorado em Combustão e Propulsão\r\n" in cited.ris
    assert cited.csl_json["type"] == "thesis" and cited.csl_json["genre"] == "Doutorado em Combustão e Propulsão"


def test_masters_thesis_names_itself_a_dissertation_in_nbr_and_a_masters_thesis_elsewhere():
    record = CitationRecord(**{**THESIS, "item_type": ItemType.MASTERS_THESIS, "degree": None})
    formatted = citations(record, ACCESSED).formatted
    assert " Dissertação (Mestrado) - Instituto Nacional" in formatted["inpe"]
    assert " Dissertation (Master's) - Instituto Nacional" in formatted["inpe_en"]
    assert " Dissertação (Mestrado) – Instituto Nacional" in formatted["abnt"]
    assert "[Master's thesis, Instituto Nacional" in formatted["apa"]
    assert "“, M.S. thesis" not in formatted["ieee"] and ",” M.S. thesis, Instituto" in formatted["ieee"]
    assert ". Master's thesis. Instituto" in formatted["harvard"]
    assert citations(record, ACCESSED).bibtex.startswith("@mastersthesis{")


KINDS = [
    # kind, BibTeX, RIS, CSL, APA description after the title, IEEE's words after the title
    (ItemType.ARTICLE, "article", "JOUR", "article-journal", "", "“Carbon stocks,” Demo, 2015."),
    (ItemType.BOOK, "book", "BOOK", "book", "", "Carbon stocks. Belém: Demo, 2015."),
    (ItemType.CHAPTER, "incollection", "CHAP", "chapter", "", "“Carbon stocks,” Demo, Belém, 2015."),
    (ItemType.CONFERENCE_PAPER, "inproceedings", "CONF", "paper-conference", "", "“Carbon stocks,” Demo, Belém, 2015."),
    (ItemType.REPORT, "techreport", "RPRT", "report", "", "“Carbon stocks,” Demo, Belém, 2015."),
    (ItemType.DATASET, "misc", "DATA", "dataset", " [Data set]", "“Carbon stocks,” Demo, Belém, 2015."),
    (ItemType.SOFTWARE, "misc", "COMP", "software", " [Computer software]", "“Carbon stocks,” Demo, Belém, 2015."),
    (ItemType.OTHER, "misc", "GEN", "document", "", "“Carbon stocks,” Demo, Belém, 2015."),
]


@pytest.mark.parametrize(("kind", "bibtex", "ris", "csl", "apa", "ieee"), KINDS, ids=lambda value: str(value))
def test_every_kind_reaches_every_format(kind, bibtex, ris, csl, apa, ieee):
    record = CitationRecord(
        persistent_url="http://x.test/A/B", ibi="A/B", title="Carbon stocks", creators=("Almeida, Rita C.",),
        date="2015", publisher="Demo", place="Belém", item_type=kind,
    )
    cited = citations(record, ACCESSED)
    assert cited.bibtex.startswith(f"@{bibtex}{{almeida2015carbon,\n")
    assert cited.ris.startswith(f"TY  - {ris}\r\n")
    assert cited.csl_json["type"] == csl
    assert cited.formatted["apa"] == f"Almeida, R. C. (2015). Carbon stocks{apa}. Demo. http://x.test/A/B"
    if kind is ItemType.ARTICLE:
        ieee = "“Carbon stocks,” Demo, Belém, 2015."
    assert cited.formatted["ieee"] == f"R. C. Almeida, {ieee} [Online]. Available: http://x.test/A/B"
    emphasised = "<i>Carbon stocks</i>" in cited.formatted_html["apa"]
    assert emphasised is not kind.is_part  # a part of a larger work is not italicised, a whole work is


# --- items without creators, title, date, place or publisher -------------------------------


def test_an_item_without_creators_is_cited_by_its_title_once():
    record = CitationRecord(
        persistent_url=URL, ibi=IBI, repository=REP, title="A missão espacial: relatório", date="2009",
        publisher="INPE", place="São José dos Campos", item_type=ItemType.REPORT,
    )
    formatted = citations(record, ACCESSED).formatted
    assert formatted == {
        "inpe": f"A MISSÃO espacial: relatório. São José dos Campos: INPE, 2009. IBI: <{IBI}>. ({REP})."
        f" Disponível em: <{URL}>.",
        "inpe_en": f"A MISSÃO espacial: relatório. São José dos Campos: INPE, 2009. IBI: <{IBI}>. ({REP})."
        f" Available from: <{URL}>.",
        "abnt": f"A MISSÃO espacial: relatório. São José dos Campos: INPE, 2009. Disponível em: {URL}."
        " Acesso em: 22 nov. 2026.",
        "apa": f"A missão espacial: relatório. (2009). INPE. {URL}",
        "ieee": f"“A missão espacial: relatório,” INPE, São José dos Campos, 2009. [Online]. Available: {URL}",
        "harvard": f"A missão espacial: relatório (2009). São José dos Campos: INPE. Available at: {URL}"
        " (Accessed: 22 November 2026).",
    }


def test_missing_place_publisher_and_date_are_what_each_style_prints():
    record = CitationRecord(persistent_url="http://x.test/A/B", ibi="A/B", title="Notas", creators=("Banon, Gerald",))
    formatted = citations(record, ACCESSED).formatted
    assert "Notas. [S. l.: s. n.], [s. d.]. Disponível" in formatted["abnt"]
    assert "Notas. [S. l.: s. n.], [n.d.]. IBI: <A/B>. Available" in formatted["inpe_en"]
    assert formatted["apa"] == "Banon, G. (n.d.). Notas. http://x.test/A/B"
    assert formatted["harvard"].startswith("Banon, G. (no date) Notas. Available at:")
    assert formatted["ieee"] == "G. Banon, “Notas.” [Online]. Available: http://x.test/A/B"
    only_place = citations(CitationRecord(persistent_url="u", ibi="A/B", title="T", place="Natal"), ACCESSED)
    assert "T. Natal: [s. n.], [s. d.]." in only_place.formatted["abnt"]
    only_publisher = citations(CitationRecord(persistent_url="u", ibi="A/B", title="T", publisher="INPE"), ACCESSED)
    assert "T. [S. l.]: INPE, [s. d.]." in only_publisher.formatted["abnt"]
    # The year of the repository name: a date certain that the item does not print (NBR 6023 8.6.1.3).
    dated_by_name = citations(CitationRecord(persistent_url="u", ibi=IBI, repository=REP, title="T"), ACCESSED)
    assert "T. [S. l.: s. n.], [2009]." in dated_by_name.formatted["abnt"]


def test_a_title_ending_in_a_question_mark_gets_no_full_stop_and_ieee_keeps_it_inside_the_quotes():
    record = CitationRecord(persistent_url="u", ibi="A/B", title="Onde está o IBI?", creators=("Banon, G.",), date="2020")
    formatted = citations(record, ACCESSED).formatted
    assert "Onde está o IBI? [S. l.: s. n.], 2020." in formatted["abnt"]
    assert formatted["ieee"] == "G. Banon, “Onde está o IBI?” 2020. [Online]. Available: u"
    assert formatted["apa"] == "Banon, G. (2020). Onde está o IBI? u"


def test_apa_lists_twenty_authors_and_elides_the_rest_but_the_last():
    creators = tuple(f"Autor{number}, A." for number in range(1, 23))
    apa = citations(CitationRecord(persistent_url="u", ibi="A/B", title="T", creators=creators), ACCESSED).formatted["apa"]
    assert apa.startswith("Autor1, A., Autor2, A.,") and ", Autor19, A., . . . Autor22, A. (n.d.)." in apa
    assert "Autor20" not in apa


def test_html_escapes_what_the_metadata_holds():
    record = CitationRecord(persistent_url="http://x.test/?a=1&b=<2>", ibi="A/B", title="<script>x</script> & co")
    html = citations(record, ACCESSED).formatted_html
    for text in html.values():
        assert "<script>" not in text.lower() and "&lt;script&gt;" in text.lower()
    assert "http://x.test/?a=1&amp;b=&lt;2&gt;" in html["apa"]


# --- defect scan ---------------------------------------------------------------------------

#: Stray spaces and punctuation no style may print, whatever the names.
DEFECTS = re.compile(r" [.,;:]|\. \.|\.\.(?!\.)|,,|;;|  |\(\)|\[\]|, \.|\.,(?! )|^\s|\s$|<>")


def _scan_records() -> list[CitationRecord]:
    odd_names = [
        ("Silva,",), (" , Maria",), ("Silva, Maria da",), ("Maria da Silva",), ("Leite Filho, W. de C.",),
        ("Plato",), ("Souza, A. P.", "Research Data Service", "da Costa, Ana"), ("de Paula, E. R.",),
        ("D'Ávila, João",), ("Santos,  João  ",), ("e",), ("Instituto Nacional de Pesquisas Espaciais",),
    ]
    creator_lists = [tuple(case["creators"]) for case in AUTHOR_LISTS] + odd_names + [()]
    fields = [
        dict(REPORT),
        dict(THESIS),
        dict(persistent_url="http://x.test/A/B", ibi="A/B"),
        dict(persistent_url="http://x.test/A/B", ibi="A/B", title="Só título?"),
        dict(persistent_url="http://x.test/A/B", ibi="A/B", title="Relatório final.", extent="xx + 150 p.", place="Natal"),
    ]
    records = []
    for base in fields:
        for kind in ItemType:
            for creators in creator_lists:
                records.append(CitationRecord(**{**base, "creators": creators, "item_type": kind}))
    return records


def test_defect_scan_of_every_style_for_every_test_record():
    found = []
    records = _scan_records()
    assert len(records) > 1000
    for record in records:
        cited = citations(record, ACCESSED)
        for style, text in cited.formatted.items():
            checked = text.replace(record.persistent_url, "URL")
            if DEFECTS.search(checked):
                found.append((style, record.creators, record.item_type.slug, text))
            if record.title and not record.creators:
                shown = text.upper().count(record.title.split(":")[0].upper().rstrip("?."))
                if shown != 1:
                    found.append((style, "title shown", shown, text))
    assert found[:5] == [] and not found


# --- any name, generated ---------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.sampled_from([
    "Maria", "Ana", "Paula", "José", "João", "D'Ávila", "Jean-Paul", "R.", "R.C.", "W", "da", "de", "do", "das",
    "dos", "e", "van", "der", "von", "di", "Silva", "Leite", "Filho", "Júnior", "Junior", "Neto", "Sobrinho",
    "Santos", "Instituto", "Nacional", "INPE", "Ó",
])
_NAMES = st.builds(
    lambda family, given, comma: f"{' '.join(family)}, {' '.join(given)}" if comma else " ".join(given + family),
    st.lists(_WORDS, min_size=1, max_size=3), st.lists(_WORDS, max_size=4), st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_NAMES, max_size=8), st.sampled_from(list(ItemType)), st.booleans())
def test_no_style_shows_stray_punctuation_for_any_name(creators, kind, titled):
    record = CitationRecord(
        persistent_url="http://x.test/A/B", ibi="A/B", creators=tuple(creators), item_type=kind,
        title="Título" if titled else None,
    )
    for style, text in citations(record, ACCESSED).formatted.items():
        assert not DEFECTS.search(text.replace(record.persistent_url, "URL")), (style, creators, text)
