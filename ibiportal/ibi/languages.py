"""Languages and countries of persistent-URL translations (file 003, Appendix B, Table B.1).

Table B.1 defines the rules ``idioma`` and ``país`` by enumeration: 184 two-letter lower-case
ISO 639-1 codes (ISO 2002; the table lists ``sk`` twice) and 249 two-letter upper-case
ISO 3166-1 alpha-2 codes (ISO 2013). Those enumerations are :data:`LANGUAGES` and
:data:`COUNTRIES`, exactly: ``bh`` (withdrawn from ISO 639-1 since) is kept and codes assigned
later are not added, because the standard, not the current ISO list, is the authority. Case is
part of the rule: ``PT`` is no language and ``br`` no country.

English and Portuguese names are given for a common subset, for explanations; other codes are
shown as themselves.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from ibiportal.i18n import N_

LANGUAGES: frozenset[str] = frozenset(
    """
    aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy
    da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu
    hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb
    lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om
    or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw
    ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
    """.split()
)
"""Table B.1 rule ``idioma``: the ISO 639-1 codes, lower case."""

COUNTRIES: frozenset[str] = frozenset(
    """
    AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR
    BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ
    EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW
    GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY
    KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV
    MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY
    QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG
    TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM
    ZW
    """.split()
)
"""Table B.1 rule ``país``: the ISO 3166-1 alpha-2 codes, upper case."""

LANGUAGE_NAMES: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "af": ("Afrikaans", "africâner"),
        "ar": ("Arabic", "árabe"),
        "bg": ("Bulgarian", "búlgaro"),
        "bn": ("Bengali", "bengali"),
        "ca": ("Catalan", "catalão"),
        "cs": ("Czech", "tcheco"),
        "da": ("Danish", "dinamarquês"),
        "de": ("German", "alemão"),
        "el": ("Greek", "grego"),
        "en": ("English", "inglês"),
        "eo": ("Esperanto", "esperanto"),
        "es": ("Spanish", "espanhol"),
        "et": ("Estonian", "estoniano"),
        "eu": ("Basque", "basco"),
        "fa": ("Persian", "persa"),
        "fi": ("Finnish", "finlandês"),
        "fr": ("French", "francês"),
        "ga": ("Irish", "irlandês"),
        "gl": ("Galician", "galego"),
        "gn": ("Guarani", "guarani"),
        "he": ("Hebrew", "hebraico"),
        "hi": ("Hindi", "híndi"),
        "hr": ("Croatian", "croata"),
        "hu": ("Hungarian", "húngaro"),
        "id": ("Indonesian", "indonésio"),
        "is": ("Icelandic", "islandês"),
        "it": ("Italian", "italiano"),
        "ja": ("Japanese", "japonês"),
        "ko": ("Korean", "coreano"),
        "la": ("Latin", "latim"),
        "lt": ("Lithuanian", "lituano"),
        "lv": ("Latvian", "letão"),
        "ms": ("Malay", "malaio"),
        "nl": ("Dutch", "neerlandês"),
        "no": ("Norwegian", "norueguês"),
        "pl": ("Polish", "polonês"),
        "pt": ("Portuguese", "português"),
        "qu": ("Quechua", "quíchua"),
        "ro": ("Romanian", "romeno"),
        "ru": ("Russian", "russo"),
        "sk": ("Slovak", "eslovaco"),
        "sl": ("Slovenian", "esloveno"),
        "sr": ("Serbian", "sérvio"),
        "sv": ("Swedish", "sueco"),
        "sw": ("Swahili", "suaíli"),
        "th": ("Thai", "tailandês"),
        "tr": ("Turkish", "turco"),
        "uk": ("Ukrainian", "ucraniano"),
        "vi": ("Vietnamese", "vietnamita"),
        "wa": ("Walloon", "valão"),
        "zh": ("Chinese", "chinês"),
    }
)
"""English and Portuguese names of common :data:`LANGUAGES` (``wa`` is file 003's own example)."""

COUNTRY_NAMES: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "AO": ("Angola", "Angola"),
        "AR": ("Argentina", "Argentina"),
        "AT": ("Austria", "Áustria"),
        "AU": ("Australia", "Austrália"),
        "BE": ("Belgium", "Bélgica"),
        "BO": ("Bolivia", "Bolívia"),
        "BR": ("Brazil", "Brasil"),
        "CA": ("Canada", "Canadá"),
        "CH": ("Switzerland", "Suíça"),
        "CL": ("Chile", "Chile"),
        "CN": ("China", "China"),
        "CO": ("Colombia", "Colômbia"),
        "CV": ("Cabo Verde", "Cabo Verde"),
        "CU": ("Cuba", "Cuba"),
        "DE": ("Germany", "Alemanha"),
        "DK": ("Denmark", "Dinamarca"),
        "EC": ("Ecuador", "Equador"),
        "ES": ("Spain", "Espanha"),
        "FI": ("Finland", "Finlândia"),
        "FR": ("France", "França"),
        "GB": ("United Kingdom", "Reino Unido"),
        "GW": ("Guinea-Bissau", "Guiné-Bissau"),
        "IE": ("Ireland", "Irlanda"),
        "IN": ("India", "Índia"),
        "IT": ("Italy", "Itália"),
        "JP": ("Japan", "Japão"),
        "KR": ("South Korea", "Coreia do Sul"),
        "MO": ("Macao", "Macau"),
        "MX": ("Mexico", "México"),
        "MZ": ("Mozambique", "Moçambique"),
        "NL": ("Netherlands", "Países Baixos"),
        "NO": ("Norway", "Noruega"),
        "NZ": ("New Zealand", "Nova Zelândia"),
        "PE": ("Peru", "Peru"),
        "PT": ("Portugal", "Portugal"),
        "PY": ("Paraguay", "Paraguai"),
        "RU": ("Russia", "Rússia"),
        "SE": ("Sweden", "Suécia"),
        "ST": ("São Tomé and Príncipe", "São Tomé e Príncipe"),
        "TL": ("Timor-Leste", "Timor-Leste"),
        "US": ("United States", "Estados Unidos"),
        "UY": ("Uruguay", "Uruguai"),
        "VE": ("Venezuela", "Venezuela"),
        "ZA": ("South Africa", "África do Sul"),
    }
)
"""English and Portuguese names of common :data:`COUNTRIES` (the Portuguese-speaking ones included)."""

_NAME_INDEX = {"en": 0, "pt": 1}
"""Which name of a ``(English, Portuguese)`` pair each explanation language takes."""


def _name(names: Mapping[str, tuple[str, str]], code: str, lang: str) -> str:
    """The name of ``code`` in ``lang`` (``en`` or ``pt``) from ``names``, or the code itself when not listed."""
    pair = names.get(code)
    return pair[_NAME_INDEX[lang]] if pair else code


def language_name(code: str, lang: str = "en") -> str:
    """The name of language ``code`` in ``lang`` (``en`` or ``pt``), or the code itself when not listed."""
    return _name(LANGUAGE_NAMES, code, lang)


def country_name(code: str, lang: str = "en") -> str:
    """The name of country ``code`` in ``lang`` (``en`` or ``pt``), or the code itself when not listed."""
    return _name(COUNTRY_NAMES, code, lang)


def _problem(code: str, codes: frozenset[str], fold: Callable[[str], str], rule: tuple) -> str | None:
    """Why ``code`` is not in ``codes``; ``rule`` is (the message for no code, for a wrong code, and for
    one that ``fold`` makes right)."""
    if code in codes:
        return None
    expected, wrong, near = rule
    if not code:
        return expected
    if fold(code) in codes:
        return near(code, fold(code))
    return wrong(code)


def language_problem(code: str) -> str | None:
    """Why ``code`` is not a language of Table B.1, or None when it is."""
    return _problem(code, LANGUAGES, str.lower, (
        N_("a language is expected: languages are lower-case ISO 639-1 codes such as `pt` (Appendix B)"),
        lambda code: N_("`%(code)s` is not a language: languages are lower-case ISO 639-1 codes (Appendix B)", code=code),
        lambda code, near: N_("`%(code)s` is not a language: languages are lower-case ISO 639-1 codes (Appendix B); "
                              "did you mean `%(near)s`?", code=code, near=near),
    ))


def country_problem(code: str) -> str | None:
    """Why ``code`` is not a country of Table B.1, or None when it is."""
    return _problem(code, COUNTRIES, str.upper, (
        N_("a country is expected after `-`: countries are upper-case ISO 3166-1 codes such as `BR` (Appendix B)"),
        lambda code: N_("`%(code)s` is not a country: countries are upper-case ISO 3166-1 codes (Appendix B)", code=code),
        lambda code, near: N_("`%(code)s` is not a country: countries are upper-case ISO 3166-1 codes (Appendix B); "
                              "did you mean `%(near)s`?", code=code, near=near),
    ))
