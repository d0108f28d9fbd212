"""Reading an IBI of either form (file 004, Tables 6.1 and 7.1).

:func:`parse_ibi` reads a whole text; :func:`split_ibi` reads the IBI at the start of a
persistent-URL path. Both decide the form the same way (:func:`ibi_form`): the characters
``.`` ``-`` ``@`` never occur in an IBIp, and a repository name's third part is a year, so

* a text whose first ``/``-part contains ``.``, ``-`` or ``@`` (a subdomain has a dot
  unless it is a bare top-level domain) is a repository name;
* a text whose first part is an IBIp prefix in shape (IBIp alphabet, with its ``W`` or
  ``X`` separator) and whose second part starts in the IBIp alphabet is an IBIp, whatever
  follows: ``LK47B6W/362SFKH/2024/a.pdf`` is an IBIp with a file path;
* otherwise a text whose first part starts with a letter (as a top-level domain does),
  second part could be ``word[@port]`` and third part is all digits, is a repository name
  (``br/inpe/2009/09.09.22.01``); anything else is an IBIp (``8JMKD3MGP8W/35MMLL8``).

A one-label repository-name prefix spelt like an IBIp prefix (``LK47B6W/x/2009/…``) is
read as an IBIp: Algorithm 1 takes a host's first label off a domain, so real prefixes
have a dot.

Errors then come from that form's grammar, with a 1-based position in the input.
"""
from __future__ import annotations

import string
from functools import lru_cache

from ibiportal.errors import ParseError
from ibiportal.i18n import N_
from ibiportal.ibi.ibip import IBIP_ALPHABET, IPV4_SEPARATOR, IPV6_SEPARATOR, Ibip
from ibiportal.ibi.repository import SEGMENTS, RepositoryName
from ibiportal.ibi.syntax import MAX_LENGTH, SEPARATOR, check_text, separator_indexes

Identifier = RepositoryName | Ibip
#: Characters of a repository name that an IBIp never has (Tables 6.1 and 7.1).
_REPOSITORY_ONLY = frozenset(".-@")
#: Characters of a repository-name suffix's last part: month.day.hour.minute[...].
_TIME_CHARACTERS = frozenset(string.digits + ".")
_LETTERS = frozenset(string.ascii_letters)
IBIP_SEPARATORS = frozenset(IPV4_SEPARATOR + IPV6_SEPARATOR)
#: What may follow an IBIp suffix inside its ``/``-part: nothing, a modifier, a query.
_AFTER_IBIP_SUFFIX = frozenset(["", "!", "+", ":", "?", "#"])
_ALPHANUMERIC = _LETTERS | frozenset(string.digits)
#: Characters of a repository name's second part: word [("." | "@") port].
_WORD_PORT_CHARACTERS = _ALPHANUMERIC | _REPOSITORY_ONLY
_UNEXPECTED = {
    RepositoryName.form: lambda character: N_("character %(character)r cannot follow the date of a repository name",
                                              character=character),
    Ibip.form: lambda character: N_("character %(character)r is not in the IBIp alphabet (0 1 I O V Y Z are "
                                    "excluded, Table 7.1)", character=character),
}


def ibi_form(text: str) -> str:
    """``"rep"`` or ``"ibip"``: which grammar the text (or path) should follow."""
    parts = text.split(SEPARATOR)
    if any(character in _REPOSITORY_ONLY for character in parts[0]):
        return RepositoryName.form
    if _ibip_in_shape(parts):
        return Ibip.form
    if (
        len(parts) > 2
        and parts[0][:1] in _LETTERS
        and all(character in _WORD_PORT_CHARACTERS for character in parts[1])
        and parts[2]
        and all(character in string.digits for character in parts[2])
    ):
        return RepositoryName.form
    return Ibip.form


def _ibip_in_shape(parts: list[str]) -> bool:
    """An IBIp prefix in shape (numeral, then ``W`` or ``X``), then a suffix in the IBIp
    alphabet that ends the part or is followed by a modifier or query (Tables 7.1, 8.1)."""
    if len(parts) < 2:
        return False
    prefix = parts[0].upper()
    suffix = parts[1].upper()
    run = len(suffix) - len(suffix.lstrip("".join(IBIP_ALPHABET)))
    return (
        prefix[:1] not in IBIP_SEPARATORS
        and all(character in IBIP_ALPHABET for character in prefix)
        and any(character in IBIP_SEPARATORS for character in prefix)
        and run > 0
        and suffix[run : run + 1] in _AFTER_IBIP_SUFFIX
    )


@lru_cache(maxsize=4096)
def parse_ibi(text: str) -> Identifier:
    """Parse a whole IBI of either form into :class:`RepositoryName` or :class:`Ibip`.

    Raises :class:`ParseError` with a message naming the problem and the 1-based position
    (``None`` for an empty text): wrong alphabet, missing ``/``, wrong number of parts, bad
    date fields, a date before 1995-08-01T00:00:00Z, a prefix that decodes to no IP, a port
    outside 1-65535, or a text over 255 characters (syntax.MAX_LENGTH).

    Remembered (the identifiers are frozen): a resolution reads the IBI asked in each answer
    several times (the own Archive's lookup, the check of each answer's ``ibi`` pair, the prefix
    pairs it proves), and decoding an IBIp's prefix is most of a parse (``benchmarks/uncached.py``).
    A text that fails is parsed again each time, to raise its error.
    """
    check_text(text)
    cls = RepositoryName if ibi_form(text) == RepositoryName.form else Ibip
    return cls.parse(text)


def split_ibi(path: str) -> tuple[Identifier, int]:
    """Read the IBI at the start of ``path``; return it and the index where it ends.

    Contract for the persistent-URL parser: ``path[:end]`` is the IBI text and
    ``path[end:]`` the rest (a modifier ``!`` ``+`` ``:``, a ``/`` and a file path, a ``?``
    and a query, or nothing). The form is decided as in :func:`ibi_form`; then

    * a repository name is four ``/``-parts: the fourth is the longest run of digits and
      dots after the third ``/`` (``sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/a.pdf``
      ends before ``/doc``);
    * an IBIp is two parts: the second ends at the first character outside the IBIp
      alphabet (``8JMKD3MGP8W/35MMLL8!:(oai_dc)`` ends before ``!``).

    A letter or digit right after that end (``35MMLL8O``) cannot start a modifier or a path,
    so it is reported as a :class:`ParseError` at its position (for an IBIp before anything
    else: ``…/ZZZZZZZ`` is one character outside the alphabet, not a missing date), as are all
    errors of the IBI itself (positions are 1-based in ``path``).
    """
    check_text(path[:MAX_LENGTH])  # type and emptiness; the IBI's own length is checked below
    slashes = separator_indexes(path)
    if ibi_form(path) == RepositoryName.form:
        if len(slashes) < SEGMENTS - 1:
            RepositoryName.parse(path)  # raises: too few parts
        cls, end, allowed = RepositoryName, slashes[SEGMENTS - 2] + 1, _TIME_CHARACTERS
    else:
        if not slashes:
            Ibip.parse(path)  # raises: missing "/" (or an error of the prefix itself)
        cls, end, allowed = Ibip, slashes[0] + 1, IBIP_ALPHABET
    while end < len(path) and path[end].upper() in allowed:
        end += 1
    stray = end < len(path) and path[end] in _ALPHANUMERIC
    if stray and cls is Ibip:  # a letter or digit outside the alphabet: that character is the fault
        raise ParseError(_UNEXPECTED[cls.form](path[end]), end + 1, "suffix")
    text = path[:end]
    # The IBI of a persistent URL is read again by whoever resolves it (the own Archive's lookup,
    # each answer's ``ibi`` pair): read it through parse_ibi's memory when that reads it alike.
    identifier = parse_ibi(text) if len(text) <= MAX_LENGTH and ibi_form(text) == cls.form else cls.parse(text)
    if stray:
        raise ParseError(_UNEXPECTED[cls.form](path[end]), end + 1, "suffix")
    return identifier, end
