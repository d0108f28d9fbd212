"""The three machine-readable forms of a citation: BibTeX, RIS and CSL-JSON.

All three are written from the same parsed :class:`~ibiportal.citation.record.CitationRecord`
and share one citation key, so a reference manager that imports any of them gets the same
entry. Each carries the kind of item (:mod:`.types`), the persistent URL (file 003, §8.1) as its
URL and the IBI in its note.

* BibTeX: the entry type of the kind (``@phdthesis``, ``@techreport``…, ``@misc``), with the
  ``ibi``, ``repository`` and ``url`` fields INPE's own BibTeX exports carry, for
  biblatex/BibTeX in UTF-8 — non-ASCII letters are written as they are
  (biblatex, or BibTeX with ``inputenc``/a UTF-8 engine); the characters TeX gives a meaning
  (``\\ { } & % $ # _ ~ ^``) are escaped in every field except ``url``, which biblatex reads
  verbatim (there only ``{``, ``}`` and ``\\``, which a URL never needs, are percent-encoded).
* RIS: ``TAG  - value`` lines ended by CRLF, as the RIS format specification writes them,
  from ``TY  - <type>`` (``THES``, ``RPRT``, ``CONF``…) to ``ER  - ``.
* CSL-JSON: the item dict of the CSL data schema.
"""
from __future__ import annotations

import re
import unicodedata

from ibiportal.citation.record import CitationRecord
from ibiportal.citation.types import ItemType

_TEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_URL_SPECIALS = {"{": "%7B", "}": "%7D", "\\": "%5C"}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _ascii_word(text: str) -> str:
    """``text`` folded to lower-case ASCII letters and digits (``Bragança`` → ``braganca``)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def citation_key(record: CitationRecord) -> str:
    """A stable key: first creator's family name, year and first title word (``almeida2015carbon``).

    The same record always gives the same key; an item with none of the three falls back to
    its IBI (``ibi8jmkd3mgp8w34pgrbs``).
    """
    names = record.names
    author = ""
    if names:
        first = names[0]
        author = _ascii_word(first.literal.split()[0] if first.literal else first.family or "")
    issued = record.issued
    year = str(issued.year) if issued else ""
    title_words = [_ascii_word(word) for word in (record.title or "").split()]
    title = next((word for word in title_words if word and not word.isdigit()), "")
    key = f"{author}{year}{title}"
    return key if author or title else f"ibi{_ascii_word(record.ibi)}"


def tex_escape(text: str) -> str:
    """``text`` with TeX's special characters escaped, on one line."""
    return "".join(_TEX_SPECIALS.get(char, char) for char in _one_line(text))


def bibtex(record: CitationRecord) -> str:
    """The BibTeX entry of ``record``, typed by its kind."""
    kind = record.item_type
    fields: list[tuple[str, str]] = []
    if record.names:
        fields.append(("author", " and ".join(_bibtex_name(name) for name in record.names)))
    if record.title:
        fields.append(("title", tex_escape(record.title)))
    issued = record.issued
    if issued:
        fields += [("year", str(issued.year)), ("date", issued.iso())]
    elif record.date and record.date.strip():
        fields.append(("year", tex_escape(record.date)))
    if record.publisher:
        # BibTeX names who issued a thesis "school", a report "institution".
        holder = "school" if kind.is_thesis else "institution" if kind is ItemType.REPORT else "publisher"
        fields.append((holder, tex_escape(record.publisher)))
    if record.place:
        fields.append(("address", tex_escape(record.place)))
    if record.degree and kind.is_thesis:
        fields.append(("type", tex_escape(record.degree)))
    if record.report_number:
        fields.append(("number", tex_escape(record.report_number)))
    if record.extent:
        fields.append(("pages", tex_escape(record.extent)))
    if record.language:
        fields.append(("language", tex_escape(record.language)))
    fields.append(("ibi", tex_escape(record.ibi)))
    if record.repository and record.repository != record.ibi:
        fields.append(("repository", tex_escape(record.repository)))
    url = "".join(_URL_SPECIALS.get(char, char) for char in _one_line(record.persistent_url))
    fields.append(("url", url))
    fields.append(("note", tex_escape(record.identifiers)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind.names.bibtex}{{{citation_key(record)},\n{body}\n}}\n"


def _bibtex_name(name) -> str:
    """``particle Family, Given``; an organisation in braces so BibTeX does not split it."""
    if name.literal is not None:
        return "{" + tex_escape(name.literal) + "}"
    return tex_escape(name.inverted())


def ris(record: CitationRecord) -> str:
    """The RIS record of ``record``, CRLF line ends."""
    lines = [("TY", record.item_type.names.ris)]
    lines += [("AU", name.inverted()) for name in record.names]
    if record.title:
        lines.append(("TI", record.title))
    issued = record.issued
    if issued:
        month = f"{issued.month:02d}" if issued.month else ""
        day = f"{issued.day:02d}" if issued.day else ""
        lines += [("PY", f"{issued.year:04d}"), ("DA", f"{issued.year:04d}/{month}/{day}/")]
    if record.publisher:
        lines.append(("PB", record.publisher))
    if record.place:
        lines.append(("CY", record.place))
    if record.extent:
        lines.append(("SP", record.extent))
    if record.degree and record.item_type.is_thesis:
        lines.append(("M3", record.degree))
    if record.description:
        lines.append(("AB", record.description))
    if record.language:
        lines.append(("LA", record.language))
    lines += [("UR", record.persistent_url), ("ID", citation_key(record)), ("N1", record.identifiers)]
    text = "".join(f"{tag}  - {_one_line(value)}\r\n" for tag, value in lines)
    return text + "ER  - \r\n"


def csl_json(record: CitationRecord) -> dict:
    """The CSL-JSON item of ``record``."""
    item: dict = {"id": citation_key(record), "type": record.item_type.names.csl}
    if record.title:
        item["title"] = _one_line(record.title)
    if record.names:
        item["author"] = [name.csl() for name in record.names]
    issued = record.issued
    if issued:
        item["issued"] = {"date-parts": [issued.parts()]}
    elif record.date and record.date.strip():
        item["issued"] = {"literal": _one_line(record.date)}
    optional = (
        ("publisher", record.publisher),
        ("publisher-place", record.place),
        ("number-of-pages", record.extent),
        ("genre", record.degree if record.item_type.is_thesis else None),
        ("number", record.report_number),
    )
    item.update({name: _one_line(value) for name, value in optional if value})
    if record.description:
        item["abstract"] = _one_line(record.description)
    if record.language:
        item["language"] = record.language
    item["URL"] = record.persistent_url
    item["note"] = record.identifiers
    return item
