"""Text out of the files people check references in: ``.txt``, ``.bib``, ``.ris`` and ``.pdf``.

The reference checker (``ibiportal.ibi.extract``) reads text; this module gets it from an
uploaded file. Plain-text kinds are UTF-8 (a byte-order mark allowed), else Latin-1, the two
encodings reference managers write. A PDF's text is extracted page by page with pypdf (a pure
Python reader: no external program, nothing to install beside the package), pages joined by a
line break; a PDF that cannot be read gets a message saying so, never a stack trace.

Limits are those of batch conversion (``ibiportal.ibi.batch``): at most ``MAX_BYTES`` of text,
and of a file other than a PDF; a PDF may be larger (its text is far smaller than the file) up
to the request limit of the app.
"""
from __future__ import annotations

import io
import logging
from pathlib import PurePath

from .errors import ParseError
from .ibi.batch import MAX_BYTES, MAX_ROWS

TEXT_KINDS = (".txt", ".bib", ".ris")
PDF_KIND = ".pdf"
KINDS = (*TEXT_KINDS, PDF_KIND)


class TooLarge(ParseError):
    """An input over a size limit: answered 413, its message naming the limit."""


def check_text_size(text: str, what: str = "the text") -> None:
    """Refuse more than ``MAX_BYTES`` of text (as UTF-8), naming the limit."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise TooLarge(f"{what} is {size:,} bytes; at most {MAX_BYTES:,} bytes (1 MB) are checked at once: split it", field="text")


def check_found_count(count: int) -> None:
    """Refuse more than ``MAX_ROWS`` IBIs at once, as batch conversion does."""
    if count > MAX_ROWS:
        raise ParseError(f"the text holds {count:,} IBIs; at most {MAX_ROWS:,} are checked at once: split it", field="text")


def text_of(filename: str, data: bytes) -> str:
    """The text of an uploaded file, by its extension (``KINDS``)."""
    kind = PurePath(filename or "").suffix.lower()
    if kind not in KINDS:
        raise ParseError(f"{filename or 'the file'!s} is not a .txt, .bib, .ris or .pdf file", field="file")
    if kind == PDF_KIND:
        text = pdf_text(data)
    else:
        if len(data) > MAX_BYTES:
            raise TooLarge(f"the file is {len(data):,} bytes; at most {MAX_BYTES:,} bytes (1 MB) are checked at once: split it",
                           field="file")
        text = _decode(data)
    check_text_size(text, "the file's text")
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
        raise ParseError("the file is not a PDF (it does not begin with %PDF-)", position=1, field="file")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ParseError("the PDF is encrypted: its text cannot be read; save it without a password", field="file")
        return "\n".join(page.extract_text() or "" for page in reader.pages)
    except ParseError:
        raise
    except Exception as exc:  # pypdf raises many kinds on damaged files; each means "unreadable"
        raise ParseError(f"the PDF could not be read ({type(exc).__name__}): is it damaged?", field="file") from exc
