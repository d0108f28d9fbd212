"""Algorithm 1 (MONTARRESPOSTA) and Algorithm 2 (MONTARLISTADEURL) beyond the standard's examples."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ibiportal.archive.demo import load_demo_archives
from ibiportal.archive.model import ArchiveIdentity, IbiForms, Item, ItemState, Metadata
from ibiportal.archive.relation import Relation
from ibiportal.archive.service import ArchiveService, filter_url_list, new_urlkey, refusal
from ibiportal.archive.store import InMemoryItemStore
from ibiportal.ibi.modifiers import Verb
from ibiportal.protocol.messages import InclusionConfirmationRequest, UrlRequest, check_key
from ibiportal.protocol.pairlist import parse_pair_list
from tests.standard_examples import EXAMPLE_7_3, query_of

URL_REQUEST = "servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175&parsedibiurl.ibi="
WHEN = datetime(2020, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
IDENTITY = ArchiveIdentity("archive.ibiportal.test", IbiForms(rep="ibiportal.test/lab/2010/01.05.09.05"))
ARCHIVES = load_demo_archives()
QUERY_PIECES = (
    "servicesubject=urlRequest", "servicesubject=acknowledgment", "servicesubject=inclusionConfirmationRequest",
    "clientinformation.ipaddress=150.163.2.175", "clientinformation.ipaddress=%C3%A9", "parsedibiurl.ibi=LK47B6W/362SFKH",
    "parsedibiurl.ibi=8JMKD3MGP7W/3EPGUE5", "parsedibiurl.ibi=%7B%7D", "parsedibiurl.filepath=/reference.bib",
    "parsedibiurl.filepath=/%2E%2E/x", "parsedibiurl.verblist=GetFileList", "parsedibiurl.verblist=GetTranslation(pt)",
    "parsedibiurl.verblist=GetMetadata+GetLastEdition", "urlkey=1", "contenttype=Data", "=", "%", "x",
)
RELATIONS = tuple(
    Relation.parse(text)
    for text in ("", ".lastedition", ".metadata", ".metadata(oai_dc)", ".translation", ".translation(pt)")
)


def pairs(text: str) -> dict[str, str]:
    return parse_pair_list(text).to_dict()


def item(rep: str, **fields) -> Item:
    defaults = dict(
        state=ItemState.ORIGINAL,
        timestamp=WHEN,
        directory_url=f"http://archive.ibiportal.test/col/{rep}/doc/",
        target_file="index.html",
        files=("index.html",),
        file_list_url=f"http://archive.ibiportal.test/filelist/{rep}",
    )
    return Item(IbiForms(rep=rep), **{**defaults, **fields})


def service(*items: Item, **options) -> ArchiveService:
    return ArchiveService(IDENTITY, InMemoryItemStore(items), relations=RELATIONS, clock=lambda: WHEN, **options)


def test_inclusion_confirmation_request_is_confirmed(archives, vectors):
    for archive in archives.values():
        answer = archive.service.respond("servicesubject=inclusionConfirmationRequest")
        # Exactly ``confirmation yes``: Table 6.2 puts nothing after the last pair, and a resolver
        # comparing the answer as a string must accept it (Example 7.4).
        assert (answer.status, answer.text) == (200, vectors["status_messages"]["confirmation"])
        assert archive.service.answer(InclusionConfirmationRequest()) == answer.text


def test_unknown_ibi_gets_the_empty_answer(archives):
    answer = archives["mtc-m16c"].service.respond(URL_REQUEST + "8JMKD3MGP8W/35MMLL9")
    assert (answer.status, answer.text, len(answer.pairs)) == (200, "", 0)


def test_parsed_request_is_answered_like_its_query_string(archives):
    service = archives["mtc-m16d"].service
    message = UrlRequest(client_ips=("150.163.2.175",), ibi="LK47B6W/362SFKH")
    assert service.answer(message) == service.answer(URL_REQUEST + "LK47B6W/362SFKH")


def test_urlkey_is_fresh_for_every_answer_and_has_the_shape_of_table_7_1(live_archives):
    service = live_archives["mtc-m16c"].service
    keys = [pairs(service.answer(URL_REQUEST + "8JMKD3MGP8W/35MME4E"))["urlkey"] for _ in range(50)]
    assert len(set(keys)) == 50
    for key in keys:
        check_key(key, "urlkey")
        seconds, random_digits = key.split("-")
        assert int(seconds) == int(datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc).timestamp())
        assert len(random_digits) == 20


def test_new_urlkey_starts_with_the_unix_time():
    assert new_urlkey(WHEN).startswith(f"{int(WHEN.timestamp())}-")


def test_platform_software_without_ibi_is_answered_as_empty_braces():
    survey = "ibiportal.test/lab/2015/03.10.14.22"
    answer = service(item(survey)).answer(URL_REQUEST + survey)
    assert "ibi.platformsoftware {}\r\n" in answer
    assert pairs(answer)["ibi.platformsoftware"] == ""


def test_deleted_item_answers_ibi_state_and_timestamp_only():
    deleted = Item(IbiForms(rep="ibiportal.test/lab/2014/05.19.16.30"), ItemState.DELETED, WHEN)
    for verbs in ("", "&parsedibiurl.verblist=GetMetadata"):
        answer = service(deleted).answer(URL_REQUEST + "ibiportal.test/lab/2014/05.19.16.30" + verbs)
        assert answer == (
            "archiveaddress archive.ibiportal.test\r\n"
            "ibi {rep ibiportal.test/lab/2014/05.19.16.30}\r\n"
            "ibi.archiveservice {rep ibiportal.test/lab/2010/01.05.09.05}\r\n"
            "ibi.platformsoftware {}\r\n"
            "state Deleted\r\n"
            "timestamp 2020-01-02T03:04:05Z"
        )


def test_next_edition_hides_the_last_edition_and_is_kept_for_getlastedition():
    first = item("ibiportal.test/lab/2011/04.12.08.15", nextedition=IbiForms(rep="ibiportal.test/lab/2013/09.30.17.02"))
    archive = service(first, filtering=False)
    full = archive.build_url_list("ibiportal.test/lab/2011/04.12.08.15")
    assert full.get("ibi.nextedition") == "rep ibiportal.test/lab/2013/09.30.17.02"
    assert not any(name.endswith(".lastedition") for name in full.names())
    assert full.get("url") is not None
    plain = pairs(service(first).answer(URL_REQUEST + "ibiportal.test/lab/2011/04.12.08.15"))
    assert "ibi.nextedition" not in plain and "url" in plain
    asked = pairs(
        service(first).answer(
            URL_REQUEST + "ibiportal.test/lab/2011/04.12.08.15&parsedibiurl.verblist=GetLastEdition"
        )
    )
    assert asked["ibi.nextedition"] == "rep ibiportal.test/lab/2013/09.30.17.02"
    assert "url.lastedition" not in asked and "urlkey" not in asked


def test_without_next_edition_every_lastedition_pair_equals_its_plain_twin(archives):
    answer = archives["mtc-m16c"].service.build_url_list("8JMKD3MGP8W/35MME4E").to_dict()
    twins = [name for name in answer if ".lastedition" in name]
    assert len(twins) == 15
    for name in twins:
        assert answer[name] == answer[name.replace(".lastedition", "")], name


def test_translation_held_elsewhere_gives_its_ibi_but_no_url():
    held_elsewhere = IbiForms(rep="ibiportal.test/lab/2015/06.02.09.41")
    original = item("ibiportal.test/lab/2015/03.10.14.22", language="en", translations=(("pt", held_elsewhere),))
    answer = service(original, filtering=False).build_url_list("ibiportal.test/lab/2015/03.10.14.22")
    assert answer.get("ibi.translation(pt)") == "rep ibiportal.test/lab/2015/06.02.09.41"
    assert not {"url.translation(pt)", "state.translation(pt)", "timestamp.translation(pt)"} & set(answer.names())


def test_bare_translation_is_the_item_only_when_its_language_is_unspecified():
    unspecified = item("ibiportal.test/lab/2015/03.10.14.22")
    english = item("ibiportal.test/lab/2016/11.08.10.05", language="en")
    archive = service(unspecified, english, filtering=False)
    assert archive.build_url_list("ibiportal.test/lab/2015/03.10.14.22").get("url.translation") is not None
    assert "url.translation" not in archive.build_url_list("ibiportal.test/lab/2016/11.08.10.05")


def test_metadata_without_ibi_has_a_url_but_no_ibi_pair():
    metadata = Metadata(url="http://archive.ibiportal.test/md", state=ItemState.COPY, timestamp=WHEN)
    answer = service(item("ibiportal.test/lab/2015/03.10.14.22", metadata=metadata), filtering=False).build_url_list(
        "ibiportal.test/lab/2015/03.10.14.22"
    )
    assert answer.get("url.metadata") == "http://archive.ibiportal.test/md"
    assert answer.get("state.metadata") == "Copy"
    assert answer.get("contenttype.metadata") == "Metadata"
    assert "ibi.metadata" not in answer
    assert "url.metadata(oai_dc)" not in answer  # this metadata is not served as oai_dc


def test_filter_keeps_every_pair_for_an_empty_verb_list_only_of_the_empty_relation(archives):
    full = archives["mtc-m16c"].service.build_url_list("8JMKD3MGP8W/35MME4E")
    kept = filter_url_list(full, ())
    assert kept.names() == (
        "archiveaddress", "contenttype", "ibi", "ibi.archiveservice", "ibi.platformsoftware",
        "state", "timestamp", "url", "urlkey",
    )


def test_filter_with_a_language_keeps_that_translation_only(archives):
    full = archives["mtc-m16c"].service.build_url_list("8JMKD3MGP8W/35MME4E")
    kept = filter_url_list(full, (Verb.parse("GetTranslation(pt)"),))
    assert [name for name in kept.names() if name.startswith("url")] == ["url.translation(pt)", "urlkey"]


def test_filter_of_a_verb_order_outside_table_9_5_keeps_identification_only(archives):
    full = archives["mtc-m16c"].service.build_url_list("8JMKD3MGP8W/35MME4E")
    kept = filter_url_list(full, (Verb.parse("GetMetadata"), Verb.parse("GetLastEdition")))
    assert kept.names() == ("archiveaddress", "ibi", "ibi.archiveservice", "ibi.platformsoftware")


def test_relations_must_contain_the_empty_relation():
    with pytest.raises(ValueError, match="empty relation"):
        ArchiveService(IDENTITY, InMemoryItemStore(()), relations=(Relation.parse(".metadata"),))


def test_two_items_with_one_ibi_in_one_store_are_rejected():
    with pytest.raises(ValueError, match="two items"):
        InMemoryItemStore([item("ibiportal.test/lab/2015/03.10.14.22"), item("ibiportal.test/lab/2015/03.10.14.22")])


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("", "servicesubject"),
        ("clientinformation.ipaddress=150.163.2.175", "servicesubject"),
        ("servicesubject=urlRequest&servicesubject=urlRequest", "duplicate pair 'servicesubject'"),
        ("servicesubject=getEverything", "unknown servicesubject"),
        ("servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175", "parsedibiurl.ibi"),
        ("servicesubject=urlRequest&parsedibiurl.ibi=LK47B6W/362SFKH", "clientinformation.ipaddress"),
        (URL_REQUEST + "LK47B6W/362SFKH&clientinformation.ipaddress=1.2.3.4", "duplicate pair"),
        (
            "servicesubject=urlRequest&clientinformation.ipaddress=not-an-ip&parsedibiurl.ibi=LK47B6W/362SFKH",
            "not an IPv4 or IPv6 address",
        ),
        (URL_REQUEST + "LK47B6W/362SFKO", "not in the IBIp alphabet"),
        (URL_REQUEST + "sid.inpe.br/mtc-m18/1969/01.01.00.00", "1970"),
        (URL_REQUEST + "LK47B6W/362SFKH&parsedibiurl.verblist=GetEverything", "verb"),
        (URL_REQUEST + "LK47B6W/362SFKH&parsedibiurl.verblist=GetTranslation(xx)", "not a language"),
        ("servicesubject=urlRequest&parsedibiurl.ibi=a b", "space"),
        ("servicesubject=urlRequest&parsedibiurl.ibi=%zz", "percent escape"),
        ("servicesubject=acknowledgment&contenttype=Data", "mandatory"),
        (query_of(EXAMPLE_7_3), "addressed to the resolver"),
    ],
)
def test_malformed_requests_are_refused_with_a_pair_list(archives, query, reason):
    answer = archives["mtc-m16d"].service.respond(query)
    assert answer.status == 400 and answer.refused
    refusal = parse_pair_list(answer.text)
    assert refusal.names() == ("status.request", "status.reason")
    assert refusal.get("status.request") == "refused"
    assert reason in refusal.text("status.reason")
    assert "archiveaddress" not in refusal
    assert "1234567890" not in answer.text


def test_refusal_reason_with_hostile_text_stays_one_valid_pair_list(archives):
    answer = archives["mtc-m16d"].service.respond("servicesubject=%7Bx%7D%20y%0D%0Az")
    assert answer.status == 400
    assert parse_pair_list(answer.text).text("status.reason").startswith("malformed request: unknown servicesubject")


def test_reason_beyond_iso_8859_1_is_still_a_pair_list():
    answer = refusal("a dash — and an arrow →")
    assert parse_pair_list(answer.text).text("status.reason") == "a dash ? and an arrow ?"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200) | st.builds("&".join, st.lists(st.sampled_from(QUERY_PIECES), max_size=8)))
def test_any_request_gets_a_pair_list_never_an_exception(query):
    archive = ARCHIVES["mtc-m16d"].service
    answer = archive.respond(query)
    assert answer.status in (200, 400)
    parse_pair_list(answer.text)


def test_an_item_target_file_must_be_one_of_its_files():
    with pytest.raises(ValueError, match="not one of its files"):
        item("ibiportal.test/lab/2015/03.10.14.22", target_file="gone.html")


def test_an_ibi_dated_before_1995_is_asked_about_like_any_other(archives):
    """STANDARD.md §7: such a repository name is an IBI (it only has no IBIp form): an Archive that
    does not hold it answers the empty list, as for any unknown IBI (Algorithm 2)."""
    answer = archives["mtc-m16d"].service.respond(URL_REQUEST + "sid.inpe.br/mtc-m18/1994/01.01.00.00")
    assert answer.status == 200 and not answer.refused and answer.text == ""


@pytest.mark.parametrize("name", ["€.txt", "中.txt", "Relatório.pdf"])
def test_a_file_name_beyond_iso_8859_1_is_found_when_asked_in_utf_8(name):
    """A browser and this resolver write ``€`` as its UTF-8 bytes; the Archive's names are UTF-8."""
    from urllib.parse import quote
    held = item("ibiportal.test/lab/2014/05.19.16.30", files=("index.html", name))
    encoded = quote("/" + name, encoding="utf-8")
    for spelled in (encoded, re.sub("%[0-9A-F]{2}", lambda escape: escape[0].lower(), encoded)):
        answer = pairs(service(held).answer(
            URL_REQUEST + "ibiportal.test/lab/2014/05.19.16.30&parsedibiurl.filepath=" + spelled))
        wanted = "http://archive.ibiportal.test/col/ibiportal.test/lab/2014/05.19.16.30/doc/" + quote(name)
        assert answer["url"].lower() == wanted.lower()


def test_a_verb_list_in_another_case_is_answered_as_the_verbs(archives):
    """``getmetadata(OAI_DC)`` is ``GetMetadata(oai_dc)`` (RFC 5234 §2.3): the same filtered answer."""
    archive = archives["mtc-m16c"].service
    asked = URL_REQUEST + "8JMKD3MGP8W/35MME4E&parsedibiurl.verblist="
    answered = pairs(archive.answer(asked + "getmetadata(OAI_DC)"))
    assert "url.metadata(oai_dc)" in answered
    assert answered.keys() == pairs(archive.answer(asked + "GetMetadata(oai_dc)")).keys()


VERB_LISTS = ((), ("GetLastEdition",), ("GetTranslation",), ("GetTranslation(pt)",), ("GetTranslation(en)",),
              ("GetMetadata",), ("GetMetadata(oai_dc)",), ("GetFileList",), ("GetTranslation(pt)", "GetLastEdition"),
              ("GetLastEdition", "GetTranslation"), ("GetLastEdition", "GetMetadata(oai_dc)"),
              ("GetTranslation", "GetMetadata", "GetTranslation"), ("GetMetadata", "GetLastEdition"),
              ("GetLastEdition", "GetFileList"), ("GetTranslation(en)", "GetLastEdition", "GetMetadata"))


@pytest.mark.parametrize("own", [False, True], ids=["demo relations", "own Archive's relations"])
def test_following_only_the_relations_the_filter_keeps_answers_the_same(archives, own):
    """FILTRARLISTADEURL over the whole URL list, and over the list of the relations it can keep
    (what ``respond`` builds), are the same answer, for every demo item and verb list."""
    from ibiportal.archive.own import own_relations

    for archive in archives.values():
        service = archive.service
        if own:
            service = ArchiveService(service.identity, service.store, relations=own_relations,
                                     clock=service.clock, urlkey=lambda: "1426387214-9164566186556927")
        for held in service.store.items():
            for texts in VERB_LISTS:
                verbs = tuple(Verb.parse(text) for text in texts)
                for filepath in ("", "index.html"):
                    whole = filter_url_list(service.build_url_list(held.ibi.forms()[0], filepath, verbs), verbs)
                    pruned = service.build_url_list(held.ibi.forms()[0], filepath, verbs,
                                                     kept_for=Relation.from_verbs(verbs))
                    assert filter_url_list(pruned, verbs) == whole, (archive.name, held.ibi, texts, filepath)
