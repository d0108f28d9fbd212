"""The OAI-PMH 2.0 response schema and the oai_dc schema, with what they import, read from
``tests/data/oai/`` (see its README): every import is resolved there, none over the network."""
from __future__ import annotations

from functools import cache
from pathlib import Path

from lxml import etree

SCHEMAS = Path(__file__).parent / "data" / "oai"
#: Where the schemas import each other from, as they name them, and the local copy of each.
LOCAL_COPIES = {
    "http://www.w3.org/2001/03/xml.xsd": "xml.xsd",
    "http://dublincore.org/schemas/xmls/simpledc20021212.xsd": "simpledc20021212.xsd",
}
#: A schema document importing both namespaces a response uses: OAI-PMH's and oai_dc's.
_BOTH = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:import namespace="http://www.openarchives.org/OAI/2.0/" schemaLocation="OAI-PMH.xsd"/>
  <xs:import namespace="http://www.openarchives.org/OAI/2.0/oai_dc/" schemaLocation="oai_dc.xsd"/>
</xs:schema>"""


class _LocalCopies(etree.Resolver):
    def resolve(self, url, pubid, context):
        name = LOCAL_COPIES.get(url)
        if name is None and url.startswith(("http:", "https:")):
            raise AssertionError(f"the schemas import {url}, of which tests/data/oai has no copy")
        return self.resolve_filename(str(SCHEMAS / name), context) if name else None


@cache
def response_schema() -> etree.XMLSchema:
    """OAI-PMH.xsd with oai_dc.xsd (and simpledc20021212.xsd, xml.xsd): a whole response, its
    records' metadata included (the response schema validates them strictly)."""
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    parser.resolvers.add(_LocalCopies())
    return etree.XMLSchema(etree.fromstring(_BOTH, parser, base_url=str(SCHEMAS / "responses.xsd")))


def assert_valid(document: bytes) -> etree._Element:
    """The parsed document, once the schemas found it valid (their errors otherwise)."""
    root = etree.fromstring(document, etree.XMLParser(no_network=True, resolve_entities=False))
    schema = response_schema()
    assert schema.validate(root), "\n".join(str(error) for error in schema.error_log)
    return root
