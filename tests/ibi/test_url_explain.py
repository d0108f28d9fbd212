"""Explanations of modifiers and persistent URLs in English and Portuguese (Tables 8.2 and 8.5)."""
from __future__ import annotations

import pytest

from ibiportal.ibi.explain import explain, explain_verbs
from ibiportal.ibi.url import parse_persistent_url

def explain_modifier(modifier: str, lang: str = "en") -> str:
    """What the resolver says a modifier returns: the verbs of a persistent URL written with it,
    in words (as the home box and a resolution's trace word them, without the IBI)."""
    return explain_verbs(parse_persistent_url(f"8JMKD3MGP8W/34PGRBS{modifier}").verbs, lang)


#: Table 8.2, columns "Modificador" and "Retorno", verbatim; and the same in English.
TABLE_8_2 = [
    (":", "metadados", "metadata"),
    (":+", "tradução dos metadados", "translation of the metadata"),
    ("!", "última edição", "last edition"),
    ("!+", "tradução da última edição", "translation of the last edition"),
    ("!:", "metadados da última edição", "metadata of the last edition"),
    ("!+:", "metadados da tradução da última edição", "metadata of the translation of the last edition"),
    ("!:+", "tradução dos metadados da última edição", "translation of the metadata of the last edition"),
    ("!+:+", "tradução dos metadados da tradução da última edição", "translation of the metadata of the translation of the last edition"),
    ("+", "tradução", "translation"),
    ("+!", "última edição da tradução", "last edition of the translation"),
    ("+:", "metadados da tradução", "metadata of the translation"),
    ("+!:", "metadados da última edição da tradução", "metadata of the last edition of the translation"),
    ("+:+", "tradução dos metadados da tradução", "translation of the metadata of the translation"),
    ("+!:+", "tradução dos metadados da última edição da tradução", "translation of the metadata of the last edition of the translation"),
]


@pytest.mark.parametrize(("modifier", "portuguese", "english"), TABLE_8_2)
def test_the_14_compositions_in_words(modifier, portuguese, english):
    assert explain_modifier(modifier, "pt") == portuguese
    assert explain_modifier(modifier) == english


@pytest.mark.parametrize(
    ("modifier", "english", "portuguese"),
    [
        ("!:(oai_dc)", "metadata, in oai_dc, of the last edition", "metadados, em oai_dc, da última edição"),
        (":(oai_dc)", "metadata in oai_dc", "metadados em oai_dc"),
        ("+(pt-BR)", "translation into Portuguese (Brazil)", "tradução em português (Brasil)"),
        ("+(pt)", "translation into Portuguese", "tradução em português"),
        ("+(wa)!", "last edition of the translation into Walloon", "última edição da tradução em valão"),
        ("+(ii-AQ)", "translation into ii (AQ)", "tradução em ii (AQ)"),
        (":(oai_dc)+(en-US)", "translation into English (United States) of the metadata in oai_dc",
         "tradução em inglês (Estados Unidos) dos metadados em oai_dc"),
        ("", "the identified item itself", "o próprio item identificado"),
    ],
)
def test_parameters_in_words(modifier, english, portuguese):
    assert (explain_modifier(modifier), explain_modifier(modifier, "pt")) == (english, portuguese)


def test_file_list_is_outermost_wherever_it_stands():
    verbs = parse_persistent_url("8JMKD3MGP8W/34PGRBS?ibiurl.verblist=GetFileList%2BGetLastEdition").verbs
    assert explain_verbs(verbs) == "list of files of the last edition"
    assert explain_verbs(verbs, "pt") == "lista de arquivos da última edição"
    assert explain_verbs(parse_persistent_url("LK47B6W/362SFKH?ibiurl.verblist=GetFileList").verbs, "pt", "LK47B6W/362SFKH") == "lista de arquivos do item LK47B6W/362SFKH"


@pytest.mark.parametrize(
    ("url", "english", "portuguese"),
    [
        ("http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
         "Metadata, in oai_dc, of the last edition of the item 8JMKD3MGP8W/35MMLL8.",
         "Metadados, em oai_dc, da última edição do item 8JMKD3MGP8W/35MMLL8."),
        ("http://urlib.net/LK47B6W/362SFKH/reference.bib",
         "File /reference.bib of the item LK47B6W/362SFKH.",
         "Arquivo /reference.bib do item LK47B6W/362SFKH."),
        ("http://urlib.net/LK47B6W/362SFKH?ibiurl.verblist=GetFileList",
         "List of files of the item LK47B6W/362SFKH.",
         "Lista de arquivos do item LK47B6W/362SFKH."),
        ("http://urlib.net/LK47B6W/362SFKH",
         "The item LK47B6W/362SFKH.",
         "O item LK47B6W/362SFKH."),
        ("http://urlib.net/LK47B6W/362SFKH+?ibiurl.requireditemstatus=Original&ibiurl.verblist=GetMetadata",
         "Metadata of the translation of the item LK47B6W/362SFKH. A translation without a language follows the "
         "browser's preferred language (Accept-Language). Only the original is accepted, not a copy "
         "(ibiurl.requireditemstatus=Original).",
         "Metadados da tradução do item LK47B6W/362SFKH. Uma tradução sem idioma segue o idioma de preferência do "
         "navegador (Accept-Language). Somente o original é aceito, não uma cópia (ibiurl.requireditemstatus=Original)."),
        ("http://urlib.net/LK47B6W/362SFKH!/reference.bib?a=1&b=x+y",
         "Last edition of the item LK47B6W/362SFKH. The file path /reference.bib is not used when verbs are present "
         "(file 003, §9.2, CRIARPARURL). Passed on to the item: a=1, b=x y.",
         "Última edição do item LK47B6W/362SFKH. O caminho /reference.bib não é usado quando há verbos "
         "(arquivo 003, §9.2, CRIARPARURL). Repassado ao item: a=1, b=x y."),
    ],
)
def test_explain_urls(url, english, portuguese):
    parsed = parse_persistent_url(url)
    assert (explain(parsed), explain(parsed, "pt")) == (english, portuguese)


def test_unknown_explanation_language():
    with pytest.raises(ValueError, match="explanations are in en or pt"):
        explain_modifier("!", "fr")
