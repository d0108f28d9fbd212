"""What a persistent URL asks for, in plain English or Portuguese (file 003, Tables 8.2 and 8.5).

A composition reads from the last operator outwards: ``!:(oai_dc)`` is the metadata, in
oai_dc, *of the last edition*; ``+!:+`` the translation of the metadata of the last edition of
the translation. The Portuguese wording is Table 8.2's own (``tradução dos metadados``).
``GetFileList`` always applies last: the list of files of what the other verbs designate.
"""
from __future__ import annotations

from collections.abc import Sequence

from ibiportal.ibi.languages import country_name, language_name
from ibiportal.ibi.modifiers import GET_FILE_LIST, GET_LAST_EDITION, GET_METADATA, GET_TRANSLATION, Verb
from ibiportal.ibi.url import ORIGINAL, REQUIRED_ITEM_STATUS, PersistentUrl

EXPLANATION_LANGUAGES = ("en", "pt")
"""The languages explanations are written in."""

_NOUNS: dict[str, dict[str, str]] = {
    "en": {
        GET_METADATA: "metadata",
        GET_LAST_EDITION: "last edition",
        GET_TRANSLATION: "translation",
        GET_FILE_LIST: "list of files",
    },
    "pt": {
        GET_METADATA: "metadados",
        GET_LAST_EDITION: "última edição",
        GET_TRANSLATION: "tradução",
        GET_FILE_LIST: "lista de arquivos",
    },
}
"""Table 8.5 column "Retorno" (and its English): what each verb returns."""

_OF_PT = {GET_METADATA: "dos", GET_LAST_EDITION: "da", GET_TRANSLATION: "da", GET_FILE_LIST: "da"}
"""Portuguese ``de`` + article before each noun (metadados is masculine plural, the others feminine)."""

_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "into": "into",
        "in": "in",
        "itself": "the identified item itself",
        "item": "the item {ibi}",
        "of item": "of the item {ibi}",
        "file": "file {path} of the item {ibi}",
        "path unused": "The file path {path} is not used when verbs are present (file 003, §9.2, CRIARPARURL).",
        "preferred": "A translation without a language follows the browser's preferred language (Accept-Language).",
        "original": f"Only the original is accepted, not a copy ({REQUIRED_ITEM_STATUS}={ORIGINAL}).",
        "passed": "Passed on to the item: {pairs}.",
    },
    "pt": {
        "into": "em",
        "in": "em",
        "itself": "o próprio item identificado",
        "item": "o item {ibi}",
        "of item": "do item {ibi}",
        "file": "arquivo {path} do item {ibi}",
        "path unused": "O caminho {path} não é usado quando há verbos (arquivo 003, §9.2, CRIARPARURL).",
        "preferred": "Uma tradução sem idioma segue o idioma de preferência do navegador (Accept-Language).",
        "original": f"Somente o original é aceito, não uma cópia ({REQUIRED_ITEM_STATUS}={ORIGINAL}).",
        "passed": "Repassado ao item: {pairs}.",
    },
}
"""The fixed wording of explanations, per language."""


def _texts(lang: str) -> dict[str, str]:
    """The wording for ``lang``; :class:`ValueError` for a language explanations are not written in."""
    if lang not in EXPLANATION_LANGUAGES:
        raise ValueError(f"explanations are in {' or '.join(EXPLANATION_LANGUAGES)}, not {lang!r}")
    return _TEXTS[lang]


def _noun(verb: Verb, lang: str, followed: bool) -> str:
    """What ``verb`` returns, with its parameter in words; ``followed`` when an ``of …`` comes after."""
    texts = _texts(lang)
    noun = _NOUNS[lang][verb.name]
    if verb.language is not None:
        noun += f" {texts['into']} {language_name(verb.language, lang)}"
        if verb.country is not None:
            noun += f" ({country_name(verb.country, lang)})"
    if verb.format is not None:
        noun += f", {texts['in']} {verb.format}," if followed else f" {texts['in']} {verb.format}"
    return noun


def _of(verb: Verb, lang: str) -> str:
    """The words joining an outer noun to ``verb``'s noun: ``of the`` / ``da``, ``dos``."""
    return _OF_PT[verb.name] if lang == "pt" else "of the"


def explain_verbs(verbs: Sequence[Verb], lang: str = "en", ibi: str | None = None) -> str:
    """What ``verbs`` (in written order) return, outermost first; ending ``of the item <ibi>`` when given.

    ``[GetLastEdition, GetMetadata(oai_dc)]`` → ``metadata, in oai_dc, of the last edition``.
    """
    texts = _texts(lang)
    chain = [verb for verb in reversed(verbs) if verb.name == GET_FILE_LIST]
    chain += [verb for verb in reversed(verbs) if verb.name != GET_FILE_LIST]
    if not chain:
        return texts["item"].format(ibi=ibi) if ibi is not None else texts["itself"]
    words = _noun(chain[0], lang, followed=len(chain) > 1 or ibi is not None)
    for index, verb in enumerate(chain[1:], start=1):
        words += f" {_of(verb, lang)} {_noun(verb, lang, followed=index < len(chain) - 1 or ibi is not None)}"
    return words + (" " + texts["of item"].format(ibi=ibi) if ibi is not None else "")


def explain(url: PersistentUrl, lang: str = "en") -> str:
    """What a persistent URL asks the resolver for, as sentences: the target, then any notes."""
    texts = _texts(lang)
    ibi = str(url.ibi)
    if url.filepath is not None and not url.verbs:
        target = texts["file"].format(path=url.filepath, ibi=ibi)
    else:
        target = explain_verbs(url.verbs, lang, ibi)
    sentences = [target[0].upper() + target[1:] + "."]
    if url.filepath is not None and url.verbs:
        sentences.append(texts["path unused"].format(path=url.filepath))
    if any(verb.name == GET_TRANSLATION and verb.language is None for verb in url.verbs):
        sentences.append(texts["preferred"])
    if url.required_item_status:
        sentences.append(texts["original"])
    if url.query:
        sentences.append(texts["passed"].format(pairs=", ".join(f"{name}={value}" for name, value in url.query)))
    return " ".join(sentences)
