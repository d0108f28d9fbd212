"""QR codes of persistent URLs, as SVG made by ``segno`` (the Mint page's result card).

A regular QR code (never a Micro QR, which phone cameras do not read), error correction M or
better (segno raises the level when the same symbol size allows), the quiet zone included.
The SVG has no ``style`` attribute and no script, so it passes the portal's CSP as an image.
"""
from __future__ import annotations

import base64
import io

import segno

ERROR_CORRECTION = "m"
#: Pixels per module: a symbol of a short URL (33 modules with the quiet zone) is about 260 px.
SCALE = 8


def qr_svg(url: str) -> bytes:
    """The QR code of ``url`` as a standalone SVG document (UTF-8)."""
    buffer = io.BytesIO()
    segno.make(url, error=ERROR_CORRECTION, micro=False).save(
        buffer, kind="svg", scale=SCALE, title=url, svgclass="qr", lineclass="qr-line", omitsize=True
    )
    return buffer.getvalue()


def qr_data_uri(url: str) -> str:
    """The same SVG as a ``data:`` URI for an ``<img>`` (the CSP allows ``img-src data:``)."""
    return "data:image/svg+xml;base64," + base64.b64encode(qr_svg(url)).decode("ascii")
