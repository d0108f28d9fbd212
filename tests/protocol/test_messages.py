"""Request messages (file 003, §6.1, §7.2, §8.2, §10): the printed URLs, byte for byte.

The printed messages and how their PDF artefacts were repaired: tests/standard_examples.py.
"""
from __future__ import annotations

import pytest

from ibiportal.errors import ParseError
from ibiportal.protocol import (
    RESOLVER_ADDRESS,
    RESOLVER_SERVICE_IBI,
    Acknowledgment,
    AddressedRequest,
    ExclusionRequest,
    InclusionConfirmationRequest,
    InclusionRequest,
    RegistrationKey,
    UrlRequest,
    check_key,
    parse_pair_list,
    parse_request,
    parse_request_url,
    request_url,
)
from ibiportal.protocol.query import build_query, decode_query_value, encode_query_value, parse_query
from ibiportal.protocol.messages import request_of_pairs
from tests.standard_examples import (
    EXAMPLE_6_1,
    EXAMPLE_7_2,
    EXAMPLE_7_3,
    EXAMPLE_7_4,
    EXAMPLE_8_9,
    SECTION_10_1_ACK,
    SECTION_10_1_ANSWER,
    SECTION_10_1_URL,
    SECTION_10_1_URL_REQUEST,
    SECTION_10_2_ACK,
    SECTION_10_2_ANSWER_2,
    SECTION_10_2_URL_REQUEST_1_AS_PRINTED,
    SECTION_10_2_URL_REQUEST_2,
)

ARCHIVE_16C = ("mtc-m16c.sid.inpe.br", "sid.inpe.br/mtc-m18@80/2008/03.17.15.17")

SWITCH = dict(
    archive_address="mtc-m21.sid.inpe.br",
    archive_service_ibi="sid.inpe.br/mtc-m21/2012/06.05.15.34.39",
    archive_ip="150.163.34.239",
    archive_platform_version="2014:11.09.02.16.15",
    archive_adm_email_address="banon@dpi.inpe.br",
    registration_key=RegistrationKey("1234567890"),
)
CLIENTS = ("172.16.44.200", "150.163.68.1")


def roundtrip(url: str, address: str, service_ibi: str, message, *, sort: bool = False) -> None:
    assert request_url(address, service_ibi, message, sort=sort) == url
    assert parse_request_url(url) == AddressedRequest(address, service_ibi, message)


def test_requests_to_the_resolver_service_go_to_its_base_url_of_section_6_1():
    url = request_url(RESOLVER_ADDRESS, RESOLVER_SERVICE_IBI, UrlRequest(client_ips=CLIENTS, ibi="8JMKD3MGP8W/35MMLL8"))
    assert url.startswith("http://urlib.net/J8LNKB5R7W/3FUQHC5?")
    assert parse_request_url(url).address == "urlib.net"


def test_example_6_1_url_request():
    message = UrlRequest(client_ips=("150.163.2.175",), ibi="8JMKD3MGP7W/3EPGUE5")
    roundtrip(EXAMPLE_6_1, "mtc-m16d.sid.inpe.br", "sid.inpe.br/mtc-m19@80/2009/08.21.17.02", message)
    assert message.filepath is None and message.verbs == ()


def test_example_7_2_inclusion_request():
    roundtrip(EXAMPLE_7_2, "www.urlib.net", RESOLVER_SERVICE_IBI, InclusionRequest(**SWITCH))


def test_example_7_3_exclusion_request():
    message = ExclusionRequest(**SWITCH)
    roundtrip(EXAMPLE_7_3, "www.urlib.net", RESOLVER_SERVICE_IBI, message)
    assert message != InclusionRequest(**SWITCH)


def test_example_7_4_inclusion_confirmation_request():
    archive = (SWITCH["archive_address"], SWITCH["archive_service_ibi"])
    roundtrip(EXAMPLE_7_4, *archive, InclusionConfirmationRequest())


def test_example_8_9_acknowledgment():
    message = Acknowledgment(
        client_ips=("150.163.2.175",),
        content_type="Data",
        ibi="rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUE5",
        url="http://mtc-m16d.sid.inpe.br/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/Relatório Final.pdf",
        url_persistent="http://mtc-m16d.sid.inpe.br:80/8JMKD3MGP7W/3EPGUE5",
        urlkey="1424636122-5331490054869684",
    )
    roundtrip(EXAMPLE_8_9, "mtc-m16d.sid.inpe.br", "sid.inpe.br/mtc-m19@80/2009/08.21.17.02", message)
    assert message.state is None  # Table 8.11 says mandatory; Example 8.9 has none


def test_example_8_9_from_the_answer_of_example_6_2(vectors):
    answer = parse_pair_list(vectors["pair_list_example_6_2"])
    message = Acknowledgment.from_answer(
        answer, client_ips=("150.163.2.175",), url_persistent="http://mtc-m16d.sid.inpe.br:80/8JMKD3MGP7W/3EPGUE5"
    )
    # Example 8.9 acknowledges another answer (its urlkey differs) and omits state.
    url = request_url("mtc-m16d.sid.inpe.br", "sid.inpe.br/mtc-m19@80/2009/08.21.17.02", message)
    assert url == EXAMPLE_8_9.replace("url=", "state=Original&url=", 1).replace(
        "1424636122-5331490054869684", "1426203276-5985125171467764"
    )


def test_section_10_1_messages_in_name_order():
    request = UrlRequest(client_ips=CLIENTS, ibi="8JMKD3MGP8W/35MMLL8")
    roundtrip(SECTION_10_1_URL_REQUEST, *ARCHIVE_16C, request, sort=True)
    answer = parse_pair_list(SECTION_10_1_ANSWER)
    ack = Acknowledgment.from_answer(answer, client_ips=CLIENTS, url_persistent="http://urlib.net:80/8JMKD3MGP8W/35MMLL8")
    roundtrip(SECTION_10_1_ACK, *ARCHIVE_16C, ack, sort=True)
    assert answer.get("url") == SECTION_10_1_URL


def test_section_10_2_messages_in_name_order():
    verbs = ("GetLastEdition", "GetMetadata(oai_dc)")
    first = UrlRequest(client_ips=("172.16.44.200", "150.163.68.11"), ibi="8JMKD3MGP8W/35MMLL8", verbs=verbs)
    roundtrip(SECTION_10_2_URL_REQUEST_1_AS_PRINTED, *ARCHIVE_16C, first, sort=True)
    second = UrlRequest(client_ips=CLIENTS, ibi="sid.inpe.br/mtc-m18/2012/07.12.18.08", verbs=verbs)
    roundtrip(SECTION_10_2_URL_REQUEST_2, *ARCHIVE_16C, second, sort=True)
    ack = Acknowledgment.from_answer(
        parse_pair_list(SECTION_10_2_ANSWER_2),
        client_ips=CLIENTS,
        url_persistent="http://urlib.net:80/8JMKD3MGP8W/35MMLL8!:(oai_dc)",
        relation=".lastedition.metadata(oai_dc)",
    )
    roundtrip(SECTION_10_2_ACK, *ARCHIVE_16C, ack, sort=True)


def test_from_answer_needs_the_url():
    with pytest.raises(ParseError) as caught:
        Acknowledgment.from_answer(parse_pair_list(SECTION_10_1_ANSWER), client_ips=CLIENTS,
                                   url_persistent="http://urlib.net/x/y", relation=".metadata")
    assert caught.value.field == "contenttype.metadata"
    assert "the answer has no such pair" in caught.value.message


def test_url_request_with_every_pair_and_plus_separated_verbs():
    message = parse_request(
        "servicesubject=urlRequest&clientinformation.ipaddress=2001:db8::1&parsedibiurl.filepath=/reference.bib"
        "&parsedibiurl.ibi=LK47B6W/362SFKH&parsedibiurl.verblist=GetTranslation(pt-BR)+GetFileList"
    )
    assert message == UrlRequest(
        client_ips=("2001:db8::1",), ibi="LK47B6W/362SFKH", filepath="/reference.bib",
        verbs=("GetTranslation(pt-BR)", "GetFileList"),
    )
    assert message.to_query() == (
        "servicesubject=urlRequest&clientinformation.ipaddress=2001:db8::1&parsedibiurl.filepath=/reference.bib"
        "&parsedibiurl.ibi=LK47B6W/362SFKH&parsedibiurl.verblist=GetTranslation(pt-BR)%20GetFileList"
    )


def test_unknown_pairs_are_kept_as_extra():
    message = parse_request("servicesubject=inclusionConfirmationRequest&lang=pt%20BR")
    assert message == InclusionConfirmationRequest(extra=(("lang", "pt BR"),))
    assert message.to_query() == "servicesubject=inclusionConfirmationRequest&lang=pt%20BR"
    with pytest.raises(ParseError, match="defined pair"):
        InclusionConfirmationRequest(extra=(("servicesubject", "x"),))


def test_table_6_1_encoding():
    assert encode_query_value("1997-07-16T19:20+01:00") == "1997-07-16T19:20%2B01:00"  # §6.1's own example
    assert encode_query_value(" %&+=?") == "%20%25%26%2B%3D%3F"
    assert encode_query_value("Relatório#1\n") == "Relat%f3rio%231%0a"
    assert encode_query_value("a/b@c:d!(e)") == "a/b@c:d!(e)"
    assert decode_query_value("Relat%F3rio+Final%2B1") == "Relatório Final+1"
    assert build_query([("a b", "c&d")]) == "a%20b=c%26d"
    # Beyond ISO-8859-1: the UTF-8 bytes (RFC 3986 §2.5), never an error (it was a 500).
    assert encode_query_value("/€.txt") == "/%e2%82%ac.txt"
    assert encode_query_value("/中.txt") == "/%e4%b8%ad.txt"


def test_parse_query_accepts_bytes_and_keeps_positions():
    pairs = parse_query(b"a=1&bb=%41")
    assert [(p.name, p.value, p.position, p.value_position) for p in pairs] == [("a", "1", 1, 3), ("bb", "A", 5, 8)]
    assert parse_query("") == ()


@pytest.mark.parametrize("key", ["1234567890", "1234567890-1234567890", "12345678901234"])
def test_registration_keys_valid(vectors, key):
    assert key in vectors["registration_key_valid"]
    assert RegistrationKey(key).reveal() == key


def test_registration_key_vectors(vectors):
    for key in vectors["registration_key_valid"]:
        check_key(key)
    for key in vectors["registration_key_invalid"]:
        with pytest.raises(ParseError):
            check_key(key)


@pytest.mark.parametrize(
    ("key", "position", "words"),
    [
        ("123456789", 1, "the first number has 9 digits"),
        ("1234567890-", 12, "the second number has 0 digits"),
        ("abcdefghij", 1, "not a digit"),
        ("1234567890-123", 12, "the second number has 3 digits"),
        ("", None, "is empty"),
        ("1234567890-1234567890-1234567890", 22, "more than one '-'"),
        ("12345６7890", 6, "not a digit"),
    ],
)
def test_registration_keys_invalid(key, position, words):
    with pytest.raises(ParseError) as caught:
        RegistrationKey(key)
    assert words in caught.value.message and "Table 7.1" in caught.value.message
    assert caught.value.position == position and caught.value.field == "registrationkey"
    if key:
        assert key not in str(caught.value)


def test_registration_key_is_masked_everywhere():
    secret = "9876543210-0123456789"
    key = RegistrationKey(secret)
    message = InclusionRequest(**{**SWITCH, "registration_key": secret})
    for shown in (repr(key), str(key), f"{key}", repr(message), str(message), f"{message!r}"):
        assert secret not in shown and "9876543210" not in shown
    assert "RegistrationKey(<hidden>)" in repr(message)
    assert message.registration_key == key and key.matches(secret) and not key.matches("9876543210")
    assert hash(key) == hash(RegistrationKey(secret))
    assert secret in message.to_query()
    with pytest.raises(AttributeError):
        key._digits = "0"  # type: ignore[misc]


def test_a_malformed_key_in_a_query_is_located_but_not_quoted():
    query = EXAMPLE_7_2.split("?", 1)[1].replace("1234567890", "12345x7890")
    with pytest.raises(ParseError) as caught:
        parse_request(query)
    assert caught.value.position == query.index("12345x7890") + 6
    assert caught.value.field == "registrationkey"
    assert "12345x7890" not in str(caught.value)


QUERY = EXAMPLE_7_2.split("?", 1)[1]

MALFORMED_QUERIES = [
    # (query, position, field, words in the message); a value's error points at the value's
    # first character, or at the exact character when the value has no escapes
    ("", None, "servicesubject", "servicesubject: missing"),
    ("clientinformation.ipaddress=1.2.3.4", None, "servicesubject", "servicesubject: missing"),
    ("servicesubject=urlRequests", 16, "servicesubject", "unknown servicesubject 'urlRequests'"),
    ("servicesubject=urlRequest&parsedibiurl.ibi=a/b", None, "clientinformation.ipaddress",
     "missing mandatory pair for urlRequest"),
    ("servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4", None, "parsedibiurl.ibi",
     "parsedibiurl.ibi: missing mandatory pair"),
    (QUERY.replace("&registrationkey=1234567890", ""), None, "registrationkey",
     "registrationkey: missing mandatory pair for inclusionRequest"),
    (QUERY + "&archiveip=150.163.34.240", len(QUERY) + 2, "archiveip",
     f"duplicate pair 'archiveip' (first at character {QUERY.index('archiveip=') + 1})"),
    ("servicesubject=urlRequest&servicesubject=urlRequest", 27, "servicesubject", "duplicate pair 'servicesubject'"),
    ("servicesubject=urlRequest&&parsedibiurl.ibi=a/b", 27, None, "empty pair"),
    ("servicesubject=urlRequest&", 27, None, "empty pair"),
    ("servicesubject", 1, None, "pair 'servicesubject' has no '='"),
    ("servicesubject=urlRequest&=x", 27, None, "empty name"),
    ("servicesubject=urlRequest&parsedibiurl.ibi=a%2", 45, None, "malformed percent escape '%2'"),
    ("servicesubject=urlRequest&parsedibiurl.ibi=a%zzb", 45, None, "malformed percent escape '%zz'"),
    ("servicesubject=url Request", 19, None, "space must be written %20"),
    ("servicesubject=urlRequest&x=Relatório", 34, None, "non-ASCII character 'ó'"),
    ("servicesubject=urlRequest&x=a\tb", 30, None, "control character 0x09"),
    ("servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4%20300.1.1.1&parsedibiurl.ibi=a/b",
     55, "clientinformation.ipaddress", "'300.1.1.1' is not an IPv4 or IPv6 address"),
    ("servicesubject=urlRequest&clientinformation.ipaddress=&parsedibiurl.ibi=a/b",
     55, "clientinformation.ipaddress", "needs at least the user's IP"),
    ("servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi=8JMKD3MGP7W",
     80, "parsedibiurl.ibi", "'8JMKD3MGP7W' is not an IBI"),
    ("servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi=a/b"
     "&parsedibiurl.verblist=GetLastEdition+GetMetaDatum", 106, "parsedibiurl.verblist",
     "'GetMetaDatum' is not a verb of Table 8.4"),
    (QUERY.replace("archiveprotocol=HTTP", "archiveprotocol=USP"), QUERY.index("=HTTP") + 2, "archiveprotocol",
     "'USP' is not HTTP"),
    (QUERY.replace("archiveip=150.163.34.239", "archiveip=mtc-m21"), QUERY.index("=150.163.34.239") + 2,
     "archiveip", "'mtc-m21' is not an IPv4 or IPv6 address"),
    (QUERY.replace("archiveaddress=mtc-m21.sid.inpe.br", "archiveaddress=mtc-m21.sid.inpe.br:99999"),
     QUERY.index("=mtc-m21") + 2, "archiveaddress", "is not a host with an optional :port"),
    (QUERY.replace("banon@dpi.inpe.br", "banon"), QUERY.index("=banon") + 2, "archiveadmemailaddress",
     "'banon' is not an e-mail address"),
    (QUERY.replace("registrationkey=1234567890", "registrationkey=1234567890-12"),
     QUERY.index("=1234567890") + 13, "registrationkey", "the second number has 2 digits"),
    ("servicesubject=acknowledgment&clientinformation.ipaddress=1.2.3.4&contenttype=data&url=http://a/b"
     "&url.persistent=http://urlib.net/a/b&urlkey=1234567890", 79, "contenttype", "'data' is not one of Data, Metadata"),
    ("servicesubject=acknowledgment&clientinformation.ipaddress=1.2.3.4&contenttype=Data&url=ftp://a/b"
     "&url.persistent=http://urlib.net/a/b&urlkey=1234567890", 88, "url", "'ftp://a/b' is not an http:// or https:// URL"),
    ("servicesubject=acknowledgment&clientinformation.ipaddress=1.2.3.4&contenttype=Data&url=http://a/b"
     "&url.persistent=http://urlib.net/a/b&urlkey=1234567890&state=Deleted", 159, "state",
     "'Deleted' is not one of Original, Copy"),
    ("servicesubject=acknowledgment&clientinformation.ipaddress=1.2.3.4&contenttype=Data&url=http://a/b"
     "&url.persistent=http://urlib.net/a/b&urlkey=1234567890&ibi=sid.inpe.br/x/y", 157, "ibi",
     "is not 'rep …', 'ibip …' or 'rep … ibip …' (Table 9.4)"),
    ("servicesubject=acknowledgment&clientinformation.ipaddress=1.2.3.4&contenttype=Data&url=http://a/b"
     "&url.persistent=http://urlib.net/a/b&urlkey=123", 142, "urlkey", "urlkey: the first number has 3 digits"),
]


@pytest.mark.parametrize(("query", "position", "field", "words"), MALFORMED_QUERIES)
def test_malformed_queries(query, position, field, words):
    with pytest.raises(ParseError) as caught:
        parse_request(query)
    assert words in caught.value.message
    assert caught.value.position == position
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("url", "position", "words"),
    [
        ("https://urlib.net/J8LNKB5R7W/3FUQHC5?servicesubject=x", 1, "starts with http://"),
        ("http://urlib.net/J8LNKB5R7W/3FUQHC5", 36, "no '?'"),
        ("http://urlib.net?servicesubject=urlRequest", 17, "no service IBI"),
        ("http://url ib.net/J8LNKB5R7W/3FUQHC5?servicesubject=x", 8, "not a host"),
        ("http://urlib.net/J8LNKB5R7W?servicesubject=x", 18, "is not an IBI"),
        ("http://urlib.net/J8LNKB5R7W/3FUQHC5?servicesubject=nothing", 52, "unknown servicesubject"),
    ],
)
def test_malformed_request_urls(url, position, words):
    with pytest.raises(ParseError) as caught:
        parse_request_url(url)
    assert words in caught.value.message
    assert caught.value.position == position


def test_request_url_checks_its_base():
    message = InclusionConfirmationRequest()
    with pytest.raises(ParseError, match="not a host"):
        request_url("http://x", "a/b", message)
    with pytest.raises(ParseError, match="cannot contain"):
        request_url("x", "a/b?c", message)
    with pytest.raises(TypeError, match="sequence"):
        UrlRequest(client_ips="1.2.3.4", ibi="a/b")  # type: ignore[arg-type]


def test_a_verb_list_is_read_case_blind():
    request = parse_request("servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi=a/b"
                            "&parsedibiurl.verblist=getlastedition+GETMETADATA(OAI_DC)")
    assert request.verbs == ("getlastedition", "GETMETADATA(OAI_DC)")  # the Archive reads them (Verb.parse)


def test_servicesubject_is_read_case_blind():
    """``servicesubject`` values are literals of Table 6.1's messages: case does not matter (RFC 5234 §2.3)."""
    assert type(parse_request("servicesubject=INCLUSIONCONFIRMATIONREQUEST")).__name__ == "InclusionConfirmationRequest"
    assert type(parse_request(
        "servicesubject=urlrequest&clientinformation.ipaddress=150.163.2.175&parsedibiurl.ibi=LK47B6W/362SFKH")
    ).__name__ == "UrlRequest"


def test_a_file_path_without_its_slash_is_read_as_example_9_11_writes_it():
    request = parse_request("servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4&parsedibiurl.ibi=a/b"
                            "&parsedibiurl.filepath=reference.bib")
    assert request.filepath == "/reference.bib"


PRINTABLE_ASCII = "".join(chr(code) for code in range(0x20, 0x7F))


@pytest.mark.parametrize("message", [
    UrlRequest(("150.163.34.1",), "8JMKD3MGP8W/35MMLL8"),
    UrlRequest(("172.16.44.200", "150.163.68.1"), "sid.inpe.br/mtc-m21c/2019/01.01.00.00.00", "/a b+c%d.pdf",
               ("GetTranslation(pt-BR)", "GetLastEdition", "GetFileList")),
    Acknowledgment(client_ips=("172.16.44.200", "150.163.68.1"), content_type="Data", url="http://x.example/"
                   + PRINTABLE_ASCII, url_persistent="http://urlib.net:80/8JMKD3MGP8W/35MMLL8?ibiurl.language=pt",
                   urlkey="1426387214-9164566186556927", ibi="rep sid.inpe.br/a/2019/01.01 ibip 8JMKD3MGP8W/35MMLL8",
                   state="Original"),
    Acknowledgment(client_ips=("::1",), content_type="Metadata", url="https://x.example/=&?%+ ",
                   url_persistent="https://p.example:443/a/b", urlkey="1426387214"),
], ids=["bare", "verbs-file", "every-ascii", "https"])
@pytest.mark.parametrize("sort", [False, True])
def test_a_message_the_resolver_writes_reads_back_as_itself_so_its_query_may_stand_for_it(message, sort):
    """What lets parse_request return a message written lately instead of reading its query
    again (messages._Written): the reading, done in full, gives the very message."""
    query = message.to_query(sort=sort)
    assert request_of_pairs(parse_query(query)) == message
    assert parse_request(query) == message


def test_a_query_not_written_here_is_read_in_full():
    message = UrlRequest(("150.163.34.1",), "8JMKD3MGP8W/35MMLL8")
    query = message.to_query() + "&x=1"  # an extra pair: never one this process wrote
    assert parse_request(query).extra == (("x", "1"),)
    with pytest.raises(ParseError):
        parse_request(message.to_query() + "&parsedibiurl.ibi=a/b")  # a pair twice
