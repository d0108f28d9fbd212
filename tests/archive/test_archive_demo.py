"""The demo Archives: each scenario behaves as its description says; the loader names every error."""
from __future__ import annotations

import copy
import json
from xml.etree import ElementTree

import pytest

from ibiportal.archive.demo import DEFAULT_DATA_PATH, DemoDataError, load_demo_archives
from ibiportal.archive.model import ItemState
from ibiportal.archive.oai_dc import oai_dc_xml
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.protocol.pairlist import PairList, UnreadableAnswer, parse_pair_list, read_answer

from .conftest import PORTAL

STANDARD = ("mtc-m16c", "mtc-m16d")
SURVEY = "ibiportal.test/lab/2015/03.10.14.22"
REPORT = "D7N2U8HW/3MP9QLE"
WITHDRAWN = "ibiportal.test/lab/2014/05.19.16.30"
EDITIONS = ("D7N2U8HW/39G4TD2", "D7N2U8HW/3ETPTF5", "D7N2U8HW/3QDQH85")


def ask(archive, ibi: str, verbs: str = "") -> PairList:
    query = f"servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175&parsedibiurl.ibi={ibi}"
    if verbs:
        query += f"&parsedibiurl.verblist={verbs}"
    return parse_pair_list(archive.service.answer(query))


def holders(archives, ibi: str) -> dict[str, PairList]:
    """The non-empty answers of every demo Archive for ``ibi``."""
    answers = {name: ask(archive, ibi) for name, archive in archives.items()}
    return {name: answer for name, answer in answers.items() if len(answer)}


def scenario_items(archives):
    for name, archive in archives.items():
        if name not in STANDARD:
            for item in archive.service.store.items():
                yield name, item


def test_every_archive_has_a_distinct_name_address_and_a_description(archives):
    assert len(archives) == 13
    addresses = [archive.service.identity.address for archive in archives.values()]
    assert len(set(addresses)) == len(addresses)
    for name, archive in archives.items():
        assert archive.name == name and len(archive.description) > 40


def test_standard_archives_are_the_standards(archives):
    for name, address, service_ibi in (
        ("mtc-m16c", "mtc-m16c.sid.inpe.br", "rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17"),
        ("mtc-m16d", "mtc-m16d.sid.inpe.br", "rep sid.inpe.br/mtc-m19@80/2009/08.21.17.02"),
    ):
        identity = archives[name].service.identity
        assert (identity.address, str(identity.service_ibi)) == (address, service_ibi)


def test_scenario_archives_hold_none_of_the_standards_items(archives):
    standard_keys = {
        str(parse_ibi(form))
        for name in STANDARD
        for item in archives[name].service.store.items()
        for form in item.ibi.forms()
    }
    for _, item in scenario_items(archives):
        assert not {str(parse_ibi(form)) for form in item.ibi.forms()} & standard_keys


def test_scenario_items_are_valid_ibis_from_2009_on_in_both_forms(archives):
    for name, item in scenario_items(archives):
        rep, ibip = parse_ibi(item.ibi.rep), parse_ibi(item.ibi.ibip)
        assert rep.date == ibip.date and rep.utc >= "2009", (name, item.ibi)


def test_scenario_items_have_real_metadata_served_as_oai_dc(archives):
    without_creators = []
    for name, item in scenario_items(archives):
        assert item.dc is not None and item.dc.title, (name, item.ibi)
        if not item.dc.creators:
            without_creators.append((name, item.dc.title))
        if item.state is not ItemState.DELETED:
            assert item.metadata is not None and item.metadata.oai_dc_url.startswith(f"{PORTAL}/demo/archives/{name}/")
            record = ElementTree.fromstring(oai_dc_xml(item).encode("utf-8"))
            assert record.findtext("{http://purl.org/dc/elements/1.1/}title") == item.dc.title
    # One on purpose: a bulletin cited by its title (each style's rule for an item without creators).
    assert without_creators == [("library", "Boletim de monitoramento do Pantanal: março de 2024")]


def test_portal_placeholder_is_replaced_in_every_scenario_url():
    archives = load_demo_archives(portal_url="https://portal.example.org/")
    for name, item in scenario_items(archives):
        if item.state is not ItemState.DELETED:
            for url in (item.url, item.file_list_url, item.metadata.url):
                assert url.startswith(f"https://portal.example.org/demo/archives/{name}/"), url


def test_copy_held_elsewhere(archives):
    answers = holders(archives, SURVEY)
    assert set(answers) == {"origin", "mirror"}
    original, copy_ = answers["origin"], answers["mirror"]
    assert original.get("ibi") == copy_.get("ibi")
    assert (original.get("state"), copy_.get("state")) == ("Original", "Copy")
    assert original.get("url") != copy_.get("url")
    assert copy_.get("url") == f"{PORTAL}/demo/archives/mirror/col/{SURVEY}/doc/index.html"
    assert copy_.get("ibi.platformsoftware") == ""  # its platform software has no IBI: {}


def test_copy_answers_its_own_metadata_and_translation_links(archives):
    answer = ask(archives["mirror"], SURVEY, "GetMetadata(oai_dc)")
    assert answer.get("url.metadata(oai_dc)") == f"{PORTAL}/demo/archives/mirror/col/{SURVEY}/metadata.xml"
    assert answer.get("state.metadata(oai_dc)") == "Copy"
    translation = ask(archives["mirror"], SURVEY, "GetTranslation(pt)")
    assert translation.get("ibi.translation(pt)") == "rep ibiportal.test/lab/2015/06.02.09.41 ibip D7N2U8HW/3JJT8F5"
    assert "url.translation(pt)" not in translation  # the translation is held by origin only
    at_origin = ask(archives["origin"], SURVEY, "GetTranslation(pt)")
    assert at_origin.get("url.translation(pt)") == (
        f"{PORTAL}/demo/archives/origin/col/ibiportal.test/lab/2015/06.02.09.41/doc/index.html"
    )


def test_two_archives_claim_the_original(archives):
    answers = holders(archives, REPORT)
    assert set(answers) == {"rival-a", "rival-b"}
    assert [answer.get("state") for answer in answers.values()] == ["Original", "Original"]


def test_deleted_item(archives):
    answers = holders(archives, WITHDRAWN)
    assert set(answers) == {"tombstone"}
    deleted = answers["tombstone"]
    assert deleted.get("state") == "Deleted" and deleted.get("timestamp") == "2021-03-02T10:00:00Z"
    assert not any(name.startswith("url") for name in deleted.names())


def test_next_edition_chain_across_three_archives(archives):
    """Resolve ``E1!:(oai_dc)`` as §10.2 does: follow ``ibi.nextedition`` from Archive to Archive."""
    verbs = "GetLastEdition%20GetMetadata(oai_dc)"
    wanted = "url.lastedition.metadata(oai_dc)"
    ibi, path = EDITIONS[0], []
    for _ in range(5):
        answers = {name: ask(archive, ibi, verbs) for name, archive in archives.items()}
        (name, answer), = ((name, answer) for name, answer in answers.items() if len(answer))
        path.append(name)
        if wanted in answer:
            break
        ibi = parse_pair_list(answer.get("ibi.nextedition")).get("ibip")
    assert path == ["edition-a", "edition-b", "edition-c"]
    last = "ibiportal.test/lab/2018/01.22.11.47"
    assert answer.get(wanted) == f"{PORTAL}/demo/archives/edition-c/col/{last}/metadata.xml"
    assert answer.get("ibi.lastedition.metadata(oai_dc)") == f"rep {last}.12 ibip D7N2U8HW/3QDQH8H"


def test_slow_archive_is_flagged_but_answers_correctly(archives):
    slow = archives["slow"]
    assert slow.behaviour.delay_seconds == 30 and slow.behaviour.malformed is None
    assert ask(slow, "D7N2U8HW/3P82998").get("state") == "Original"
    assert all(archive.behaviour.delay_seconds == 0 for name, archive in archives.items() if name != "slow")


def test_garbled_archive_sends_a_body_the_resolver_cannot_read(archives):
    garbled = archives["garbled"]
    assert isinstance(read_answer(garbled.behaviour.malformed), UnreadableAnswer)
    assert "braced value" in str(read_answer(garbled.behaviour.malformed))
    assert ask(garbled, "D7N2U8HW/3SNU8PS").get("state") == "Original"  # the service itself is sound
    assert all(archive.behaviour.malformed is None for name, archive in archives.items() if name != "garbled")


# --- the loader names the Archive, the item and the field of every problem ---------------------------------------

@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads(DEFAULT_DATA_PATH.read_text(encoding="utf-8"))


def load_changed(tmp_path, data: dict, change) -> None:
    changed = copy.deepcopy(data)
    change(changed)
    path = tmp_path / "archives.json"
    path.write_text(json.dumps(changed), encoding="utf-8")
    load_demo_archives(path)


def archive(data: dict, name: str) -> dict:
    return next(entry for entry in data["archives"] if entry["name"] == name)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: archive(d, "mirror")["items"][0]["ibi"].update(rep="ibiportal.test/lab/2015/13.10.14.22"),
         "archive 'mirror', item #1 (ibiportal.test/lab/2015/13.10.14.22), field 'ibi.rep'"),
        (lambda d: archive(d, "mirror")["items"][0]["ibi"].update(ibip="D7N2U8HW/3J5AC3J"),
         "archive 'mirror', item #1 (ibiportal.test/lab/2015/03.10.14.22), field 'ibi': rep and ibip name different dates"),
        (lambda d: archive(d, "mirror")["items"][0]["ibi"].update(ibip="ibiportal.test/lab/2015/03.10.14.22"),
         "field 'ibi.ibip': 'ibiportal.test/lab/2015/03.10.14.22' is not in the ibip form"),
        (lambda d: archive(d, "origin")["items"][1].update(state="Lost"),
         "archive 'origin', item #2 (ibiportal.test/lab/2015/06.02.09.41), field 'state': 'Lost' is not one of"),
        (lambda d: archive(d, "origin")["items"][1].update(timestamp="2015-06-02 10:05"),
         "field 'timestamp': '2015-06-02 10:05' is not an ISO 8601 UTC time"),
        (lambda d: archive(d, "origin")["items"][1].update(colour="red"), "field '(item)': unknown key colour"),
        (lambda d: archive(d, "origin")["items"][1].update(target_file="gone.html"),
         "field 'target_file': 'gone.html' is not one of the item's files"),
        (lambda d: archive(d, "origin")["items"][1].update(language="PT"), "field 'language': `PT` is not a language"),
        (lambda d: archive(d, "origin")["items"][1].update(directory_url="{portal}/a b/"),
         "field 'directory_url': 'http://localhost:5000/a b/' contains ' '"),
        (lambda d: archive(d, "tombstone")["items"][0].update(files=["index.html"]),
         "archive 'tombstone', item #1 (ibiportal.test/lab/2014/05.19.16.30), field 'files': a Deleted item keeps only"),
        (lambda d: archive(d, "slow").update(relations=[".metadata"]), "archive 'slow', field 'relations': must contain"),
        (lambda d: archive(d, "slow").update(relations=["", ".metadata.lastedition"]),
         "archive 'slow', field 'relations': relation '.metadata.lastedition' does not follow Table 9.5"),
        (lambda d: archive(d, "slow").update(behaviour={"delay_seconds": -1}), "field 'behaviour.delay_seconds'"),
        (lambda d: archive(d, "slow").update(behaviour={"sleepy": True}), "field 'behaviour': unknown key sleepy"),
        (lambda d: archive(d, "slow").pop("address"), "archive #11, field '(archive)': missing address"),
        (lambda d: archive(d, "slow").update(name="garbled"), "archive 'garbled', field 'name': two archives"),
        (lambda d: archive(d, "origin")["items"].append(archive(d, "origin")["items"][0]),
         "archive 'origin', field 'items': two items of one Archive are identified by"),
        (lambda d: archive(d, "edition-a")["items"][0]["metadata"].update(state="Deleted"),
         "field 'metadata.state': metadata served here are Original or Copy"),
        (lambda d: archive(d, "edition-a")["items"][0]["dc"].pop("title"), "field 'dc': missing title"),
    ],
)
def test_loader_errors_name_archive_item_and_field(tmp_path, data, change, message):
    with pytest.raises(DemoDataError) as raised:
        load_changed(tmp_path, data, change)
    assert message in str(raised.value)


def test_loader_rejects_a_file_that_is_not_json(tmp_path):
    path = tmp_path / "archives.json"
    path.write_text("{archives: []", encoding="utf-8")
    with pytest.raises(DemoDataError, match="not JSON"):
        load_demo_archives(path)
