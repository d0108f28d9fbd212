"""oai_dc records of items: what a ``:(oai_dc)`` URL serves (file 003, Table 8.2; Lagoze et al. 2002).

:func:`oai_dc_xml` writes one ``<oai_dc:dc>`` record from an item's fields, for the demo
Archives' items and the portal's own alike. Every text is XML-escaped; characters XML 1.0
cannot carry at all (most control characters) are replaced by U+FFFD, so a hostile title can
neither break the record nor make it ill-formed.
"""
from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

from ibiportal.archive.model import Item

OAI_DC_NAMESPACE = "http://www.openarchives.org/OAI/2.0/oai_dc/"
DC_NAMESPACE = "http://purl.org/dc/elements/1.1/"
XSI_NAMESPACE = "http://www.w3.org/2001/XMLSchema-instance"
OAI_DC_SCHEMA_LOCATION = f"{OAI_DC_NAMESPACE} http://www.openarchives.org/OAI/2.0/oai_dc.xsd"
RESOLVER_URL = "http://urlib.net"
"""Base of persistent URLs (§8.1), written as the record's ``dc:identifier``."""

#: Characters outside the XML 1.0 ``Char`` production (§2.2 of the XML recommendation).
NOT_XML_CHAR = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_REPLACEMENT = "\ufffd"


def xml_text(text: str) -> str:
    """``text`` with each character XML cannot carry replaced by U+FFFD."""
    return NOT_XML_CHAR.sub(_REPLACEMENT, text)


def _element(name: str, text: str) -> str:
    return f"  <dc:{name}>{escape(xml_text(text))}</dc:{name}>"


def oai_dc_xml(item: Item, resolver_url: str = RESOLVER_URL) -> str:
    """The oai_dc record of ``item``, as a UTF-8 XML document (text).

    Elements, in the schema's order: ``dc:title``, ``dc:creator``…, ``dc:subject``…,
    ``dc:description``… (the abstract, then notes), ``dc:publisher``, ``dc:date``, ``dc:type``,
    ``dc:format``, ``dc:identifier`` (the persistent URL of each form of the IBI,
    ``resolver_url/<ibi>``; the IBIp and the repository name themselves, which harvesters match
    without parsing URLs; then others such as a report number) and ``dc:language``.
    Raises ``ValueError`` when the item has no descriptive metadata (``item.dc``).
    """
    dc = item.dc
    if dc is None:
        raise ValueError(f"item {item.ibi} has no descriptive metadata to write as oai_dc")
    elements = [("title", dc.title)]
    elements += [("creator", creator) for creator in dc.creators]
    elements += [("subject", subject) for subject in dc.subjects]
    if dc.description:
        elements.append(("description", dc.description))
    elements += [("description", note) for note in dc.notes]
    single = (("publisher", dc.publisher), ("date", dc.date), ("type", dc.type), ("format", dc.format))
    elements += [(name, value) for name, value in single if value]
    elements += [("identifier", f"{resolver_url}/{form}") for form in item.ibi.forms()]
    elements += [("identifier", form) for form in (item.ibi.ibip, item.ibi.rep) if form]
    elements += [("identifier", identifier) for identifier in dc.identifiers]
    if item.language:
        elements.append(("language", item.language))
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<oai_dc:dc xmlns:oai_dc={quoteattr(OAI_DC_NAMESPACE)} xmlns:dc={quoteattr(DC_NAMESPACE)}"
        f" xmlns:xsi={quoteattr(XSI_NAMESPACE)} xsi:schemaLocation={quoteattr(OAI_DC_SCHEMA_LOCATION)}>",
        *(_element(name, value) for name, value in elements),
        "</oai_dc:dc>",
        "",
    ]
    return "\n".join(lines)
