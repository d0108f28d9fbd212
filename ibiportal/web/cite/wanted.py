"""What the user typed to Cite: an IBI of either form or a persistent URL, read by the core
recogniser (:func:`ibiportal.ibi.classify.read_url`), as the two persistent URLs a citation needs."""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import ParseError
from ...ibi.classify import read_url
from ...ibi.compose import compose
from ...ibi.modifiers import Verb
from ...ibi.url import PersistentUrl
from ..context import canonical_base

#: The verb added to the item's URL (Table 8.4): its metadata in the oai_dc format.
OAI_DC = Verb("GetMetadata", format="oai_dc")
#: Verbs that name something other than the item itself, dropped from the cited URL.
_NOT_THE_ITEM = frozenset({"GetMetadata", "GetFileList"})


@dataclass(frozen=True)
class CiteRequest:
    """The item's persistent URL (cited) and the ``:(oai_dc)`` one (resolved), from the input."""

    item_url: PersistentUrl
    metadata_url: PersistentUrl

    @classmethod
    def parse(cls, text: str | None) -> CiteRequest:
        """Read an IBI or a persistent URL, in any form the recogniser reads (``IBI: <…>.``,
        ``/ibi/``, ``-TDI``, …); errors name the ``ibi`` field and the character."""
        text = (text or "").strip()
        if not text:
            raise ParseError(
                "Enter an IBI (8JMKD3MGP8W/34PGRBS or sid.inpe.br/mtc-m18@80/2009/02.16.17.46)"
                " or a persistent URL (http://urlib.net/8JMKD3MGP8W/34PGRBS)",
                field="ibi",
            )
        try:
            given, _ = read_url(text, "ibi")
            verbs = [verb for verb in given.verbs if verb.name not in _NOT_THE_ITEM]
            original = given.required_item_status is not None
            base = canonical_base(given)
            item_url = compose(given.ibi, verbs, original=original, base=base)
            metadata_url = compose(given.ibi, [*verbs, OAI_DC], original=original, base=base)
        except ParseError as exc:
            raise ParseError(exc.message, exc.position if exc.field in (None, "ibi") else None, "ibi") from exc
        return cls(item_url, metadata_url)
