"""Text out of the files people check references in: ``.txt``, ``.bib``, ``.ris``, ``.pdf``,
``.docx`` and ``.odt``.

The reference checker (``ibiportal.ibi.extract``) reads text; this module gets it from an
uploaded file. Plain-text kinds are UTF-8 (a byte-order mark allowed), else Latin-1, the two
encodings reference managers write. A PDF's text is extracted page by page with pypdf (a pure
Python reader: no external program, nothing to install beside the package), pages joined by a
line break; a PDF that cannot be read gets a message saying so, never a stack trace. A thesis is
written in a word processor: a ``.docx`` is read with python-docx and an ``.odt`` with odfdo (both
on lxml), one line per paragraph and table cell in document order; a link's address that its
shown text does not hold is kept beside it (``the thesis <http://urlib.net/…>``), since a reference
often shows "Available at: link" with the IBI in the link only. Both are ZIP files: one whose
parts unpack to more than :data:`MAX_UNPACKED` bytes is refused before it is parsed.

Limits are those of batch conversion (``ibiportal.ibi.batch``): at most ``MAX_BYTES`` of text,
and of a file other than a PDF; a PDF may be larger (its text is far smaller than the file) up
to the request limit of the app.
"""
from __future__ import annotations

import io
import logging
import zipfile
from pathlib import PurePath

from ..errors import ParseError, TooLarge
from ..i18n import N_, number
from .batch import MAX_BYTES, MAX_ROWS

TEXT_KINDS = (".txt", ".bib", ".ris")
PDF_KIND = ".pdf"
DOCX_KIND = ".docx"
ODT_KIND = ".odt"
KINDS = (*TEXT_KINDS, PDF_KIND, DOCX_KIND, ODT_KIND)
#: What the parts of a .docx or .odt may unpack to (a ZIP bomb is refused before it is parsed).
MAX_UNPACKED = 50_000_000


def check_text_size(text: str, from_file: bool = False) -> None:
    """Refuse more than ``MAX_BYTES`` of text (as UTF-8), naming the limit (and saying whether
    the text was a file's)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        values = {"size": number(size), "limit": number(MAX_BYTES)}
        if from_file:
            message = N_("the file's text is %(size)s bytes; at most %(limit)s bytes (1 MB) are checked at once: split it",
                         **values)
        else:
            message = N_("the text is %(size)s bytes; at most %(limit)s bytes (1 MB) are checked at once: split it", **values)
        raise TooLarge(message, field="text")


def check_found_count(count: int) -> None:
    """Refuse more than ``MAX_ROWS`` IBIs at once, as batch conversion does."""
    if count > MAX_ROWS:
        raise ParseError(N_("the text holds %(count)s IBIs; at most %(max_rows)s are checked at once: split it", count=number(count), max_rows=number(MAX_ROWS)), field="text")


def text_of(filename: str, data: bytes) -> str:
    """The text of an uploaded file, by its extension (``KINDS``)."""
    kind = PurePath(filename or "").suffix.lower()
    if kind not in KINDS:
        if filename:
            raise ParseError(N_("%(name)s is not a .txt, .bib, .ris, .pdf, .docx or .odt file", name=filename), field="file")
        raise ParseError(N_("the file is not a .txt, .bib, .ris, .pdf, .docx or .odt file"), field="file")
    if kind == PDF_KIND:
        text = pdf_text(data)
    elif kind == DOCX_KIND:
        text = docx_text(data)
    elif kind == ODT_KIND:
        text = odt_text(data)
    else:
        if len(data) > MAX_BYTES:
            raise TooLarge(N_("the file is %(size)s bytes; at most %(limit)s bytes (1 MB) are checked at once: split it",
                              size=number(len(data)), limit=number(MAX_BYTES)), field="file")
        text = _decode(data)
    check_text_size(text, from_file=True)
    return text


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def pdf_text(data: bytes) -> str:
    """The text of a PDF, pages joined by a line break; ParseError when it cannot be read."""
    from pypdf import PdfReader  # imported on use: only the reference checker reads PDFs

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings on damaged files are not the user's business
    if not data.startswith(b"%PDF-"):
        raise ParseError(N_("the file is not a PDF (it does not begin with %PDF-)"), position=1, field="file")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ParseError(N_("the PDF is encrypted: its text cannot be read; save it without a password"), field="file")
        return "\n".join(page.extract_text() or "" for page in reader.pages)
    except ParseError:
        raise
    except Exception as exc:  # pypdf raises many kinds on damaged files; each means "unreadable"
        raise ParseError(N_("the PDF could not be read (%(type)s): is it damaged?", type=type(exc).__name__), field="file") from exc


def _check_package(data: bytes, kind: str) -> None:
    """A .docx or .odt is a ZIP file whose parts unpack to at most MAX_UNPACKED bytes."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            unpacked = sum(part.file_size for part in package.infolist())
    except zipfile.BadZipFile as exc:
        raise ParseError(N_("the file is not a %(kind)s document (it is not a ZIP package): is it damaged?", kind=kind),
                         field="file") from exc
    if unpacked > MAX_UNPACKED:
        raise TooLarge(N_("the %(kind)s document unpacks to %(size)s bytes; at most %(limit)s are read", kind=kind,
                          size=number(unpacked), limit=number(MAX_UNPACKED)), field="file")


def _with_link(text: str, address: str | None) -> str:
    """``text`` and, when it does not show it, the link's address after it."""
    return text if not address or address in text else f"{text} <{address}>"


def docx_text(data: bytes) -> str:
    """The text of a .docx, one line per paragraph and table cell, in document order."""
    from docx import Document  # imported on use: only the reference checker reads .docx
    from docx.table import Table

    _check_package(data, ".docx")
    try:
        document = Document(io.BytesIO(data))
        lines: list[str] = []

        def read(blocks) -> None:
            for block in blocks:
                if isinstance(block, Table):
                    for row in block.rows:
                        for cell in row.cells:
                            read(cell.iter_inner_content())
                    continue
                text = block.text
                for link in block.hyperlinks:
                    text = _with_link(text, link.url)
                lines.append(text)

        read(document.iter_inner_content())
        return "\n".join(lines)
    except Exception as exc:  # python-docx raises many kinds on damaged files; each means "unreadable"
        raise ParseError(N_("the .docx document could not be read (%(type)s): is it damaged?", type=type(exc).__name__),
                         field="file") from exc


def odt_text(data: bytes) -> str:
    """The text of an .odt, one line per paragraph and heading (table cells too), in document
    order; odfdo writes a link as ``[text](address)``, which the checker reads."""
    from odfdo import Document  # imported on use: only the reference checker reads .odt

    _check_package(data, ".odt")
    try:
        body = Document(io.BytesIO(data)).body
        return "\n".join(element.text_recursive for element in
                         body.get_elements("descendant::text:p | descendant::text:h"))
    except Exception as exc:  # odfdo raises many kinds on damaged files; each means "unreadable"
        raise ParseError(N_("the .odt document could not be read (%(type)s): is it damaged?", type=type(exc).__name__),
                         field="file") from exc
