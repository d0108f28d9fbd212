"""The standard's printed messages (file 003 §6.1, §7.2, §8.2 and §10), transcribed once.

Every test that reproduces them imports them from here, so each figure has one transcription
and one record of how it was repaired. The standard prints each URL broken after ``?`` and
after every ``&`` (one pair per line); the URLs below are those lines joined with nothing in
between. Other PDF-extraction artefacts repaired here:

* Example 8.9 and the acknowledgments of §10.1 and §10.2 wrap the ``url`` value inside a
  path (``…/doc/`` + blank line + ``Relat%f3rio%20Final.pdf&``); joined without a space.
* The answer of §10.1 prints ``CCSDS\\%20650.0-B-1.pdf`` (a LaTeX escape); read ``%20``.
* The second answer of §10.2 prints ``http://mtc-m16c ... br/col/…`` (an elision by the
  typesetter); read ``http://mtc-m16c.sid.inpe.br/col/…``.
* The first urlRequest of §10.2 prints the proxy IP as ``150.163.68.11`` while the captured
  pairs and every other message have ``150.163.68.1``: :data:`SECTION_10_2_URL_REQUEST_1` is
  repaired, :data:`SECTION_10_2_URL_REQUEST_1_AS_PRINTED` is byte for byte.

Answers are written one pair per line with LF, as printed; an Archive sends CRLF (Table 6.2).
"""
from __future__ import annotations

EXAMPLE_6_1 = (
    "http://mtc-m16d.sid.inpe.br/sid.inpe.br/mtc-m19@80/2009/08.21.17.02?"
    "servicesubject=urlRequest&"
    "clientinformation.ipaddress=150.163.2.175&"
    "parsedibiurl.ibi=8JMKD3MGP7W/3EPGUE5"
)
EXAMPLE_7_2 = (
    "http://www.urlib.net/J8LNKB5R7W/3FUQHC5?"
    "servicesubject=inclusionRequest&"
    "archiveaddress=mtc-m21.sid.inpe.br&"
    "archiveserviceibi=sid.inpe.br/mtc-m21/2012/06.05.15.34.39&"
    "archiveip=150.163.34.239&"
    "archiveprotocol=HTTP&"
    "archiveplatformversion=2014:11.09.02.16.15&"
    "archiveadmemailaddress=banon@dpi.inpe.br&"
    "registrationkey=1234567890"
)
EXAMPLE_7_3 = EXAMPLE_7_2.replace("servicesubject=inclusionRequest", "servicesubject=exclusionRequest")
EXAMPLE_7_4 = (
    "http://mtc-m21.sid.inpe.br/sid.inpe.br/mtc-m21/2012/06.05.15.34.39?"
    "servicesubject=inclusionConfirmationRequest"
)
EXAMPLE_8_9 = (
    "http://mtc-m16d.sid.inpe.br/sid.inpe.br/mtc-m19@80/2009/08.21.17.02?"
    "servicesubject=acknowledgment&"
    "clientinformation.ipaddress=150.163.2.175&"
    "contenttype=Data&"
    "ibi=rep%20sid.inpe.br/mtc-m19/2013/09.04.12.27.57%20ibip%208JMKD3MGP7W/3EPGUE5&"
    "url=http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/"
    "Relat%f3rio%20Final.pdf&"
    "url.persistent=http://mtc-m16d.sid.inpe.br:80/8JMKD3MGP7W/3EPGUE5&"
    "urlkey=1424636122-5331490054869684"
)

SECTION_10_1_URL_REQUEST = (
    "http://mtc-m16c.sid.inpe.br/sid.inpe.br/mtc-m18@80/2008/03.17.15.17?"
    "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"
    "parsedibiurl.ibi=8JMKD3MGP8W/35MMLL8&"
    "servicesubject=urlRequest"
)
SECTION_10_1_ANSWER = """\
archiveaddress mtc-m16c.sid.inpe.br
contenttype Data
ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43 ibip 8JMKD3MGP8W/35MMLL8}
ibi.archiveservice {rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17}
ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}
state Original
timestamp 2009-07-21T14:43:31Z
url http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/CCSDS%20650.0-B-1.pdf
urlkey 1427244889-5349022633744855
"""
SECTION_10_1_ACK = (
    "http://mtc-m16c.sid.inpe.br/sid.inpe.br/mtc-m18@80/2008/03.17.15.17?"
    "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"
    "contenttype=Data&"
    "ibi=rep%20sid.inpe.br/mtc-m18@80/2009/07.21.14.43%20ibip%208JMKD3MGP8W/35MMLL8&"
    "servicesubject=acknowledgment&"
    "state=Original&"
    "url=http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/"
    "CCSDS%20650.0-B-1.pdf&"
    "url.persistent=http://urlib.net:80/8JMKD3MGP8W/35MMLL8&"
    "urlkey=1427244889-5349022633744855"
)
#: The URL (7) the resolver returns in §10.1.
SECTION_10_1_URL = "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/CCSDS%20650.0-B-1.pdf"

SECTION_10_2_URL_REQUEST_1 = (
    "http://mtc-m16c.sid.inpe.br/sid.inpe.br/mtc-m18@80/2008/03.17.15.17?"
    "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"
    "parsedibiurl.ibi=8JMKD3MGP8W/35MMLL8&"
    "parsedibiurl.verblist=GetLastEdition%20GetMetadata(oai_dc)&"
    "servicesubject=urlRequest"
)
SECTION_10_2_URL_REQUEST_1_AS_PRINTED = SECTION_10_2_URL_REQUEST_1.replace("150.163.68.1&", "150.163.68.11&")
SECTION_10_2_ANSWER_1 = """\
archiveaddress mtc-m16c.sid.inpe.br
ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43 ibip 8JMKD3MGP8W/35MMLL8}
ibi.archiveservice {rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17}
ibi.nextedition {rep sid.inpe.br/mtc-m18/2012/07.12.18.08}
ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}
"""
SECTION_10_2_URL_REQUEST_2 = (
    "http://mtc-m16c.sid.inpe.br/sid.inpe.br/mtc-m18@80/2008/03.17.15.17?"
    "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"
    "parsedibiurl.ibi=sid.inpe.br/mtc-m18/2012/07.12.18.08&"
    "parsedibiurl.verblist=GetLastEdition%20GetMetadata(oai_dc)&"
    "servicesubject=urlRequest"
)
SECTION_10_2_ANSWER_2 = """\
archiveaddress mtc-m16c.sid.inpe.br
contenttype.lastedition.metadata(oai_dc) Metadata
ibi {rep sid.inpe.br/mtc-m18/2012/07.12.18.08 ibip 8JMKD3MGP8W/3C9EP6P}
ibi.archiveservice {rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17}
ibi.lastedition.metadata(oai_dc) {rep sid.inpe.br/mtc-m18/2012/07.12.18.08.49}
ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}
state.lastedition.metadata(oai_dc) Original
timestamp.lastedition.metadata(oai_dc) 2014-04-04T17:36:01Z
url.lastedition.metadata(oai_dc) http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18/2012/07.12.18.08.49/doc/metadata.cgi?choice=oai_dc
urlkey 1426286454-36108967764060357
"""
SECTION_10_2_ACK = (
    "http://mtc-m16c.sid.inpe.br/sid.inpe.br/mtc-m18@80/2008/03.17.15.17?"
    "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&"
    "contenttype=Metadata&"
    "ibi=rep%20sid.inpe.br/mtc-m18/2012/07.12.18.08.49&"
    "servicesubject=acknowledgment&"
    "state=Original&"
    "url=http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18/2012/07.12.18.08.49/doc/"
    "metadata.cgi%3Fchoice%3Doai_dc&"
    "url.persistent=http://urlib.net:80/8JMKD3MGP8W/35MMLL8!:(oai_dc)&"
    "urlkey=1426286454-36108967764060357"
)
#: The URL (7) the resolver returns in §10.2.
SECTION_10_2_URL = (
    "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18/2012/07.12.18.08.49/doc/metadata.cgi?choice=oai_dc"
)


def query_of(url: str) -> str:
    """The pairs of a request URL, without its base (what an Archive service receives)."""
    return url.split("?", 1)[1]
