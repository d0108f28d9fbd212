"""Building a persistent URL from a user's choices (file 003, §8.1).

The choices are an ordered verb sequence — the order is the composition: ``!`` then ``:`` is
the metadata *of the last edition* — plus a file path, the original-only status, query pairs
for the item and the resolver base. The result is a :class:`~ibiportal.ibi.url.PersistentUrl`,
which spells itself both ways::

    url = compose("8JMKD3MGP8W/35MMLL8", ["GetLastEdition", "GetMetadata(oai_dc)"])
    url.canonical_symbols()   # http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)
    url.canonical_verblist()  # http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)

``GetFileList`` has no symbol, so the symbol spelling carries it as
``?ibiurl.verblist=GetFileList``; its place in the sequence does not matter (§8.1).
Errors are :class:`~ibiportal.errors.ParseError` with ``field`` ``"ibi"``, ``"verbs"``
(position: the 1-based number of the verb in the sequence), ``"filepath"``, ``"query"``
(position: the number of the pair) or ``"base"``.
"""
from __future__ import annotations

from collections.abc import Sequence

from ibiportal.errors import ParseError
from ibiportal.i18n import N_
from ibiportal.ibi.identifier import Identifier, parse_ibi
from ibiportal.ibi.modifiers import Modifier, Verb, check_composition
from ibiportal.ibi.url import DEFAULT_RESOLVER, ORIGINAL, RESOLVER_PAIRS, PersistentUrl, check_filepath, normalize_base


def _verb(choice: Verb | str, number: int) -> Verb:
    """The verb for the ``number``-th choice, read with :meth:`Verb.parse` when given as text."""
    if isinstance(choice, Verb):
        return choice
    try:
        return Verb.parse(choice)
    except ParseError as exc:
        raise ParseError(N_("verb %(number)s: %(message)s", number=number, message=exc.message), number, "verbs") from exc


def compose(
    ibi: Identifier | str,
    verbs: Sequence[Verb | str] = (),
    *,
    filepath: str | None = None,
    original: bool = False,
    query: Sequence[tuple[str, str]] = (),
    base: str = DEFAULT_RESOLVER,
) -> PersistentUrl:
    """The persistent URL asking ``base`` for ``verbs`` (in order) of ``ibi``.

    ``verbs`` are :class:`Verb` values or their text (``"GetTranslation(pt-BR)"``) and must
    compose one modifier of Table 8.2, plus at most one ``GetFileList``. ``filepath`` is a
    decoded ``path-absolute`` (``/reference.bib``); ``original`` asks for
    ``ibiurl.requireditemstatus=Original``; ``query`` pairs (decoded) are passed on to the item.

    :raises ParseError: naming the choice that is wrong (see the module docstring).
    """
    if isinstance(ibi, str):
        try:
            ibi = parse_ibi(ibi)
        except ParseError as exc:
            raise ParseError(exc.message, exc.position, "ibi") from exc
    chosen = tuple(_verb(choice, number) for number, choice in enumerate(verbs, start=1))
    check_composition(chosen, range(1, len(chosen) + 1), "verbs")
    for number, (name, _) in enumerate(query, start=1):
        if not name:
            raise ParseError(N_("a pair needs a name (Table 8.1)"), number, "query")
        if name in RESOLVER_PAIRS:
            raise ParseError(N_("`%(name)s` is a resolver pair (Table 8.3): choose verbs and `original` instead", name=name), number, "query")
    return PersistentUrl(
        ibi=ibi,
        modifier=Modifier(tuple(verb for verb in chosen if verb.bare)),
        filepath=check_filepath(filepath, field="filepath") if filepath is not None else None,
        required_item_status=ORIGINAL if original else None,
        query_verbs=tuple(verb for verb in chosen if not verb.bare),
        query=tuple(query),
        resolver=normalize_base(base),
    )
