"""``%hh`` for characters beyond ISO-8859-1, in requests (Table 6.1) and answers (§6.2).

File 003 writes a character as the ``%hh`` of its byte "no sistema de codificação adotado"
and shows ISO-8859-1 (``ó`` → ``%f3``, Examples 6.2 and 8.9): the protocol's escapes are
bytes, read one byte per character, which keeps every byte an Archive sent exactly (a URL is
passed on byte for byte). One byte cannot carry ``€`` or ``中``; for those RFC 3986 §2.5 makes
UTF-8 the encoding of URI components, so such a character is written as its UTF-8 bytes
(``€`` → ``%e2%82%ac``) instead of being refused, and a reader that knows its names are UTF-8
(the own Archive's file names) reads those bytes back as UTF-8.
"""
from __future__ import annotations


def escapes(char: str) -> str:
    """``char`` as ``%hh`` in lower case: its ISO-8859-1 byte (``ó`` → ``%f3``, the standard's
    figures), else its UTF-8 bytes (``€`` → ``%e2%82%ac``)."""
    code = ord(char)
    if code <= 0xFF:
        return f"%{code:02x}"
    return "".join(f"%{byte:02x}" for byte in char.encode("utf-8", "surrogatepass"))
