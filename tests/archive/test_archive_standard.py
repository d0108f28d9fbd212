"""The standard's own Archive answers (file 003: Examples 6.2, 9.2-9.12, §10.1, §10.2), reproduced.

The messages of §6.1 and §10 come from tests/standard_examples.py (with their repairs noted
there). Example 9.2 below is repaired where marked ``REPAIRED``: ``http://mtc-m16c ... br/col/…``
(a line break the PDF extraction elided; the host is ``mtc-m16c.sid.inpe.br`` like every other
URL of these answers).
"""
from __future__ import annotations

from ibiportal.archive.service import filter_url_list
from ibiportal.ibi.modifiers import Verb
from ibiportal.protocol.pairlist import parse_pair_list
from tests.standard_examples import (
    EXAMPLE_6_1,
    SECTION_10_1_ACK,
    SECTION_10_1_ANSWER,
    SECTION_10_1_URL_REQUEST,
    SECTION_10_2_ACK,
    SECTION_10_2_ANSWER_1,
    SECTION_10_2_ANSWER_2,
    SECTION_10_2_URL_REQUEST_1,
    SECTION_10_2_URL_REQUEST_2,
    query_of,
)

EXAMPLE_9_2 = """\
archiveaddress mtc-m16c.sid.inpe.br
contenttype Data
contenttype.lastedition Data
contenttype.lastedition.metadata Metadata
contenttype.lastedition.metadata(oai_dc) Metadata
contenttype.metadata Metadata
contenttype.metadata(oai_dc) Metadata
contenttype.metadata.translation Metadata
contenttype.translation(en) Data
contenttype.translation(pt) Data
ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23 ibip 8JMKD3MGP8W/35MME4E}
ibi.archiveservice {rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17}
ibi.lastedition {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23 ibip 8JMKD3MGP8W/35MME4E}
ibi.lastedition.metadata {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47}
ibi.lastedition.metadata(oai_dc) {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47}
ibi.metadata {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47}
ibi.metadata(oai_dc) {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47}
ibi.metadata.translation {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47}
ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}
ibi.translation(en) {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23}
ibi.translation(pt) {rep sid.inpe.br/mtc-m18@80/2009/08.25.19.43}
state Original
state.lastedition Original
state.lastedition.metadata Original
state.lastedition.metadata(oai_dc) Original
state.metadata Original
state.metadata(oai_dc) Original
state.metadata.translation Original
state.translation(en) Original
state.translation(pt) Original
timestamp 2009-07-21T13:23:45Z
timestamp.lastedition 2009-07-21T13:23:45Z
timestamp.lastedition.metadata 2014-04-04T17:39:54Z
timestamp.lastedition.metadata(oai_dc) 2014-04-04T17:39:54Z
timestamp.metadata 2014-04-04T17:39:54Z
timestamp.metadata(oai_dc) 2014-04-04T17:39:54Z
timestamp.metadata.translation 2014-04-04T17:39:54Z
timestamp.translation(en) 2009-07-21T13:23:45Z
timestamp.translation(pt) 2011-09-22T14:45:11Z
url http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23/doc/CCSDS%20643.0-B-1.pdf
url.lastedition http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23/doc/CCSDS%20643.0-B-1.pdf
url.lastedition.metadata http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47/doc/metadata.cgi
url.lastedition.metadata(oai_dc) http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47/doc/metadata.cgi?choice=oai_dc
url.metadata http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47/doc/metadata.cgi
url.metadata(oai_dc) http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47/doc/metadata.cgi?choice=oai_dc
url.metadata.translation http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23.47/doc/metadata.cgi
url.translation(en) http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23/doc/CCSDS%20643.0-B-1.pdf
url.translation(pt) http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/08.25.19.43/doc/RTC-07.pdf
urlkey 1426387214-9164566186556927
"""  # REPAIRED: both url...metadata(oai_dc) lines read "http://mtc-m16c ... br/col/" in the standard

EXAMPLE_9_3 = """\
archiveaddress mtc-m16c.sid.inpe.br
contenttype.translation(en) Data
contenttype.translation(pt) Data
ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23 ibip 8JMKD3MGP8W/35MME4E}
ibi.archiveservice {rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17}
ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}
ibi.translation(en) {rep sid.inpe.br/mtc-m18@80/2009/07.21.13.23}
ibi.translation(pt) {rep sid.inpe.br/mtc-m18@80/2009/08.25.19.43}
state.translation(en) Original
state.translation(pt) Original
timestamp.translation(en) 2009-07-21T13:23:45Z
timestamp.translation(pt) 2011-09-22T14:45:11Z
url.translation(en) http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.13.23/doc/CCSDS%20643.0-B-1.pdf
url.translation(pt) http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/08.25.19.43/doc/RTC-07.pdf
urlkey 1426387214-9164566186556927
"""

SECTION_10_1_REQUEST = query_of(SECTION_10_1_URL_REQUEST)
SECTION_10_1_ACKNOWLEDGMENT = query_of(SECTION_10_1_ACK)
SECTION_10_2_FIRST_REQUEST = query_of(SECTION_10_2_URL_REQUEST_1)
SECTION_10_2_SECOND_REQUEST = query_of(SECTION_10_2_URL_REQUEST_2)
SECTION_10_2_ACKNOWLEDGMENT = query_of(SECTION_10_2_ACK)
EXAMPLE_6_1_REQUEST = query_of(EXAMPLE_6_1)

def wire(printed: str) -> str:
    """The printed answer as sent: one pair per line, CRLF between pairs (Table 6.2 ``espaço``),
    nothing after the last (``lista-de-pares = par *(espaço par)``)."""
    return printed.rstrip("\n").replace("\n", "\r\n")


def url_pair(service, ibi: str, filepath: str = "", verbs: str = "", relation: str = "") -> str | None:
    """The ``url<relation>`` value of MONTARLISTADEURL for ``ibi`` (CRIARPARURL, Examples 9.9-9.12)."""
    answer = service.build_url_list(ibi, filepath, tuple(Verb.parse(verb) for verb in verbs.split()))
    return answer.get(f"url{relation}")


def test_example_9_2_montarlistadeurl_pair_for_pair(archives):
    answer = archives["mtc-m16c"].service.build_url_list("8JMKD3MGP8W/35MME4E")
    assert list(answer) == list(parse_pair_list(EXAMPLE_9_2))
    assert answer.serialize("\n") == EXAMPLE_9_2.rstrip("\n")


def test_example_9_2_in_either_ibi_form_and_case(archives):
    service = archives["mtc-m16c"].service
    expected = list(service.build_url_list("8JMKD3MGP8W/35MME4E"))
    assert list(service.build_url_list("sid.inpe.br/mtc-m18@80/2009/07.21.13.23")) == expected
    assert list(service.build_url_list("8jmkd3mgp8w/35mme4e")) == expected


def test_example_9_3_filtrarlistadeurl(archives):
    service = archives["mtc-m16c"].service
    full = service.build_url_list("8JMKD3MGP8W/35MME4E")
    assert filter_url_list(full, (Verb.parse("GetTranslation"),)).serialize("\n") == EXAMPLE_9_3.rstrip("\n")


def test_example_9_3_through_algorithm_1(archives):
    query = (
        "servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175&"
        "parsedibiurl.ibi=8JMKD3MGP8W/35MME4E&parsedibiurl.verblist=GetTranslation"
    )
    assert archives["mtc-m16c"].service.answer(query) == wire(EXAMPLE_9_3)


def test_example_6_2_answers_example_6_1(archives, urlkey, vectors):
    urlkey.value = "1426203276-5985125171467764"
    answer = archives["mtc-m16d"].service.answer(EXAMPLE_6_1_REQUEST)
    assert answer == wire(vectors["pair_list_example_6_2"])


def test_section_10_1_archive_answer_byte_for_byte(archives, urlkey):
    urlkey.value = "1427244889-5349022633744855"
    assert archives["mtc-m16c"].service.answer(SECTION_10_1_REQUEST) == wire(SECTION_10_1_ANSWER)


def test_section_10_1_acknowledgment_notice(archives, vectors):
    notice = archives["mtc-m16c"].service.answer(SECTION_10_1_ACKNOWLEDGMENT)
    assert notice == vectors["status_messages"]["ack_notice"]


def test_section_10_2_first_answer_has_the_next_edition_and_no_url(archives):
    assert archives["mtc-m16c"].service.answer(SECTION_10_2_FIRST_REQUEST) == wire(SECTION_10_2_ANSWER_1)


def test_section_10_2_second_answer_byte_for_byte(archives, urlkey):
    urlkey.value = "1426286454-36108967764060357"
    assert archives["mtc-m16c"].service.answer(SECTION_10_2_SECOND_REQUEST) == wire(SECTION_10_2_ANSWER_2)


def test_section_10_2_acknowledgment_notice(archives, vectors):
    notice = archives["mtc-m16c"].service.answer(SECTION_10_2_ACKNOWLEDGMENT)
    assert notice == vectors["status_messages"]["ack_notice"]


def test_section_10_requests_get_empty_answers_from_archives_without_the_item(archives):
    for name, archive in archives.items():
        if name != "mtc-m16c":
            for query in (SECTION_10_1_REQUEST, SECTION_10_2_FIRST_REQUEST, SECTION_10_2_SECOND_REQUEST):
                assert archive.service.answer(query) == "", name


def test_examples_9_4_9_6_9_8_criarpar_values(archives):
    answer = archives["mtc-m16d"].service.build_url_list("8JMKD3MGP7W/3EPGUE5")
    assert answer.get("state") == "Original"  # Example 9.4
    assert answer.get("timestamp.lastedition") == "2013-10-04T14:32:14Z"  # Example 9.6
    assert answer.get("ibi.metadata") == "rep sid.inpe.br/mtc-m19/2013/09.04.12.27.58"  # Example 9.8
    assert answer.get("ibi.lastedition") == "rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUE5"
    assert "ibi.nextedition" not in answer


def test_example_9_9_url_of_the_item(archives):
    url = url_pair(archives["mtc-m16d"].service, "LK47B6W/362SFKH")
    assert url == "http://mtc-m16d.sid.inpe.br/col/iconet.com.br/banon/2009/09.09.22.01/doc/@relatorio.pdf"


def test_example_9_10_url_of_the_metadata(archives):
    url = url_pair(archives["mtc-m16d"].service, "8JMKD3MGP7W/3EPGUE5", relation=".metadata")
    assert url == "http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.58/doc/metadata.cgi"


def test_example_9_11_url_of_a_file_in_the_item(archives):
    service = archives["mtc-m16d"].service
    expected = "http://mtc-m16d.sid.inpe.br/col/iconet.com.br/banon/2009/09.09.22.01/doc/reference.bib"
    assert url_pair(service, "LK47B6W/362SFKH", filepath="reference.bib") == expected  # as Example 9.11 writes it
    assert url_pair(service, "LK47B6W/362SFKH", filepath="/reference.bib") == expected  # Table 8.9 path-absolute


def test_example_9_11_through_algorithm_1(archives):
    query = (
        "servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175&"
        "parsedibiurl.ibi=LK47B6W/362SFKH&parsedibiurl.filepath=/reference.bib"
    )
    answer = parse_pair_list(archives["mtc-m16d"].service.answer(query))
    assert answer.get("url") == "http://mtc-m16d.sid.inpe.br/col/iconet.com.br/banon/2009/09.09.22.01/doc/reference.bib"
    assert answer.get("contenttype") == "Data"


def test_example_9_12_url_of_the_file_list(archives):
    url = url_pair(archives["mtc-m16d"].service, "LK47B6W/362SFKH", verbs="GetFileList")
    assert url == "http://mtc-m16d.sid.inpe.br/displaydoccontent.cgi/LK47B6W/362SFKH?displaytype=FileList"


def test_criarparurl_verb_list_prevails_over_file_path(archives):
    """§9.2: with both variables set, the file list wins; any other verb list gives <r, i>1."""
    service = archives["mtc-m16d"].service
    file_list = url_pair(service, "LK47B6W/362SFKH", filepath="/reference.bib", verbs="GetFileList")
    assert file_list == "http://mtc-m16d.sid.inpe.br/displaydoccontent.cgi/LK47B6W/362SFKH?displaytype=FileList"
    last_edition = url_pair(
        service, "LK47B6W/362SFKH", filepath="/reference.bib", verbs="GetLastEdition", relation=".lastedition"
    )
    assert last_edition == "http://mtc-m16d.sid.inpe.br/col/iconet.com.br/banon/2009/09.09.22.01/doc/@relatorio.pdf"


def test_file_that_is_not_part_of_the_item_has_no_url(archives):
    service = archives["mtc-m16d"].service
    answer = service.build_url_list("LK47B6W/362SFKH", "/missing.pdf")
    assert "url" not in answer and "contenttype" not in answer and "state" not in answer
    assert answer.get("ibi") == "rep iconet.com.br/banon/2009/09.09.22.01 ibip LK47B6W/362SFKH"


def test_file_name_in_iso_8859_1_is_percent_encoded_as_in_example_6_2(archives):
    url = url_pair(archives["mtc-m16d"].service, "8JMKD3MGP7W/3EPGUE5", filepath="/Relatório Final.pdf")
    assert url == "http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/Relat%f3rio%20Final.pdf"
