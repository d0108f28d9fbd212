"""The own Archive's demo items: what a new user of ``bin/serve`` finds minted already, so that
every part of an Archive can be seen working before minting anything – an item with a file
(``X/report.pdf``, ``X?ibiurl.verblist=GetFileList``), its Portuguese translation (``X+(pt)``),
its second edition (``X!``), translated too, so that all 14 forms of Table 8.2 resolve
(``X!+(pt):``, ``X+(pt)!``, …).

They are minted only by the demo identification subsystem (its identifiers name no real
server) and only into an Archive that has never minted anything: a real institution's Archive
never gets them, and a demo item deleted stays deleted.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

from ..ibi.history import Actor
from ..ibi.minted import MintedItem
from .minting import Minter
from ..ibi.mint_request import MintRequest
from ..storage.identifiers import IdentifierStore
from .files import ItemFiles, Upload

#: The file the original holds.
DEMO_FILE = "report.pdf"

_ORIGINAL = {"title": "Archive in a box: a demo item of the IBI Portal", "creators": ["Silva, Ana", "Souza, Bruno"],
             "date": "2026", "language": "en", "item_type": "report", "publisher": "IBI Portal", "place": "São José dos Campos"}
_TRANSLATION = {**_ORIGINAL, "title": "Arquivo numa caixa: um item de demonstração do IBI Portal", "language": "pt"}
_SECOND_EDITION = {**_ORIGINAL, "title": "Archive in a box: a demo item of the IBI Portal (2nd edition)"}
_SECOND_TRANSLATION = {**_TRANSLATION, "title": "Arquivo numa caixa: um item de demonstração do IBI Portal (2ª edição)"}


@dataclass(frozen=True)
class DemoItems:
    """The items seeded: the original (with :data:`DEMO_FILE`), its translation, its second
    edition and the second edition's translation (the next edition of the first translation)."""

    original: MintedItem
    translation: MintedItem
    second_edition: MintedItem
    second_translation: MintedItem


#: Who the demo items' history says made them.
SEEDER = Actor("command", "flask demo-archive seed")


class DemoItemSeeder:
    """Seeds the demo items (module docstring) through the same use cases a user calls."""

    def __init__(self, minter: Minter, store: IdentifierStore, files: ItemFiles, demo_subsystem: bool) -> None:
        self.minter = minter
        self.store = store
        self.files = files
        self.demo_subsystem = demo_subsystem

    def seed(self) -> DemoItems | None:
        """Mint the demo items, or ``None`` when this Archive must not get them (a real
        subsystem, or items minted already, deleted ones included)."""
        if not self.demo_subsystem or self.store.search_minted(limit=1):
            return None
        original = self.minter.mint(MintRequest.parse(_ORIGINAL), actor=SEEDER)
        self.files.put(original.ibip, DEMO_FILE, Upload(io.BytesIO(demo_pdf(_ORIGINAL["title"], original.rep)), "application/pdf"),
                       actor=SEEDER)
        translation = self.minter.mint(MintRequest.parse({**_TRANSLATION, "translation_of": original.ibip}), actor=SEEDER)
        second = self.minter.mint(MintRequest.parse({**_SECOND_EDITION, "previous_edition": original.ibip}), actor=SEEDER)
        second_translation = self.minter.mint(MintRequest.parse(
            {**_SECOND_TRANSLATION, "translation_of": second.ibip, "previous_edition": translation.ibip}), actor=SEEDER)
        return DemoItems(original, translation, second, second_translation)


def demo_pdf(title: str, rep: str) -> bytes:
    """A one-page PDF (ISO 32000-1) naming the item: a real file for PDF viewers and Range requests."""
    def escaped(text: str) -> str:
        return text.encode("latin-1", "replace").decode("latin-1").replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    content = (f"BT /F1 16 Tf 56 760 Td ({escaped(title)}) Tj 0 -28 Td /F1 11 Tf "
               f"(Repository name: {escaped(rep)}) Tj ET").encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    pdf = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    pdf += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(pdf)
