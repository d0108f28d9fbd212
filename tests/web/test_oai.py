"""``/oai``: the own Archive as an OAI-PMH 2.0 data provider. Every response is validated against
the protocol's schemas (OAI-PMH.xsd with oai_dc.xsd: tests/oai_schemas.py)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from sqlalchemy import update
from werkzeug.datastructures import MultiDict

from ibiportal import create_app
from ibiportal.archive import oai_pmh
from ibiportal.ibi.clock import utc_now
from ibiportal.storage.database import Storage, iso
from ibiportal.storage.schema import minted_item
from tests.oai_schemas import assert_valid
from tests.settings_marker import marked_settings

OAI = "{http://www.openarchives.org/OAI/2.0/}"
DC = "{http://purl.org/dc/elements/1.1/}"
OAI_DC = "{http://www.openarchives.org/OAI/2.0/oai_dc/}"


@pytest.fixture
def app(new_database, request):
    """The suite's app, minting at a granularity of a millisecond: no mint waits for the next second."""
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                       "GRANULARITY": "0.001", **marked_settings(request)})


def harvest(client, method: str = "GET", **arguments) -> etree._Element:
    """One request's response, once valid (200, text/xml, the schemas)."""
    if method == "POST":
        response = client.post("/oai", data=arguments)
    else:
        response = client.get("/oai", query_string=arguments)
    assert response.status_code == 200 and response.mimetype == "text/xml", response.data
    return assert_valid(response.data)


def error_of(root: etree._Element) -> tuple[str, str]:
    error = root.find(f"{OAI}error")
    assert error is not None, etree.tostring(root)
    return error.get("code"), error.text


def mint(client, **fields) -> dict:
    response = client.post("/api/v1/mint", json={"title": "Item", **fields})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def set_changed(app, rep: str, when: str) -> None:
    """An item last changed at ``when`` (its datestamp, and its Table 9.3 timestamp), as a change then would have left it."""
    storage = Storage(app.config["DATABASE"])
    with storage.write_transaction() as conn:
        conn.execute(update(minted_item).where(minted_item.c.rep == rep).values(updated_at=when))
    storage.close()


def delete(client, api_token: str, ibip: str) -> None:
    response = client.delete(f"/api/v1/items/{ibip}", headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 200, response.get_json()


def identifiers(root: etree._Element) -> list[str]:
    return [header.findtext(f"{OAI}identifier") for header in root.iter(f"{OAI}header")]


@pytest.mark.settings(ADMIN_EMAIL="urlib@inpe.br")
def test_identify_names_the_repository_its_address_and_how_it_dates(app, client):
    first = mint(client)
    set_changed(app, first["rep"], "2011-07-02T15:38:00.000000Z")
    mint(client)
    identify = harvest(client, verb="Identify").find(f"{OAI}Identify")
    assert [child.tag.removeprefix(OAI) for child in identify] == [
        "repositoryName", "baseURL", "protocolVersion", "adminEmail", "earliestDatestamp", "deletedRecord", "granularity"]
    assert identify.findtext(f"{OAI}baseURL") == "http://localhost/oai"
    assert identify.findtext(f"{OAI}protocolVersion") == "2.0"
    assert identify.findtext(f"{OAI}adminEmail") == "urlib@inpe.br"
    assert identify.findtext(f"{OAI}earliestDatestamp") == "2011-07-02T15:38:00Z"
    assert identify.findtext(f"{OAI}deletedRecord") == "persistent"
    assert identify.findtext(f"{OAI}granularity") == "YYYY-MM-DDThh:mm:ssZ"


def test_a_record_is_the_oai_dc_record_the_own_archive_serves(client):
    before = iso(utc_now())
    item = mint(client, title="Modelagem de tempestades", creators=["Souza, Ana"], language="pt", date="2012",
                item_type="doctoral thesis", degree="Doutorado em Meteorologia")
    root = harvest(client, verb="GetRecord", identifier=f"oai:localhost:{item['rep']}", metadataPrefix="oai_dc")
    header = root.find(f"{OAI}GetRecord/{OAI}record/{OAI}header")
    assert header.get("status") is None
    assert header.findtext(f"{OAI}identifier") == f"oai:localhost:{item['rep']}"
    stored = header.findtext(f"{OAI}datestamp")  # when it was stored (it never changed since), to the second
    assert before[:19] <= stored[:19] <= iso(utc_now())[:19] and stored.endswith("Z") and len(stored) == 20
    assert [spec.text for spec in header.iter(f"{OAI}setSpec")] == ["type:doctoral_thesis"]
    record = root.find(f"{OAI}GetRecord/{OAI}record/{OAI}metadata/{OAI_DC}dc")
    served = etree.fromstring(client.get(f"/archive/items/{item['ibip']}/oai_dc.xml").data)
    assert etree.tostring(record, method="c14n", exclusive=True) == etree.tostring(served, method="c14n", exclusive=True)
    assert [element.text for element in record.iter(f"{DC}identifier")] == [
        f"http://localhost/{item['rep']}", f"http://localhost/{item['ibip']}", item["ibip"], item["rep"]]


def test_identifiers_name_the_portals_host_or_the_configured_repository_identifier(new_database):
    config = {"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "t", "PORTAL_URL": "https://archive.inpe.br"}
    client = create_app(config).test_client()
    item = mint(client)
    assert identifiers(harvest(client, verb="ListIdentifiers", metadataPrefix="oai_dc")) == [f"oai:archive.inpe.br:{item['rep']}"]
    client = create_app({**config, "OAI_REPOSITORY_ID": "urlib.net"}).test_client()
    root = harvest(client, verb="ListIdentifiers", metadataPrefix="oai_dc")
    assert identifiers(root) == [f"oai:urlib.net:{item['rep']}"]
    assert root.findtext(f"{OAI}request") == "https://archive.inpe.br/oai"


def test_a_deleted_item_is_a_deleted_header_for_ever(client, api_token):
    kept, gone = mint(client, item_type="report"), mint(client, item_type="report")
    delete(client, api_token, gone["ibip"])
    for verb in ("ListIdentifiers", "ListRecords"):
        root = harvest(client, verb=verb, metadataPrefix="oai_dc")
        headers = {header.findtext(f"{OAI}identifier"): header for header in root.iter(f"{OAI}header")}
        assert headers[f"oai:localhost:{gone['rep']}"].get("status") == "deleted"
        assert headers[f"oai:localhost:{kept['rep']}"].get("status") is None
        assert [spec.text for spec in headers[f"oai:localhost:{gone['rep']}"].iter(f"{OAI}setSpec")] == ["type:report"]
    record = harvest(client, verb="GetRecord", identifier=f"oai:localhost:{gone['rep']}", metadataPrefix="oai_dc")
    assert record.find(f"{OAI}GetRecord/{OAI}record/{OAI}header").get("status") == "deleted"
    assert record.find(f"{OAI}GetRecord/{OAI}record/{OAI}metadata") is None
    assert error_of(harvest(client, verb="ListMetadataFormats", identifier=f"oai:localhost:{gone['rep']}"))[0] == "noMetadataFormats"
    formats = harvest(client, verb="ListMetadataFormats", identifier=f"oai:localhost:{kept['rep']}")
    assert [prefix.text for prefix in formats.iter(f"{OAI}metadataPrefix")] == ["oai_dc"]


def test_from_and_until_select_by_datestamp_inclusively_to_the_day_or_the_second(app, client):
    items = [mint(client) for _ in range(4)]
    for item, when in zip(items, ("2020-01-01T23:59:59.999999Z", "2020-01-02T00:00:00.000000Z",
                                  "2020-01-02T12:30:00.000000Z", "2020-01-03T00:00:00.000000Z")):
        set_changed(app, item["rep"], when)
    reps = [f"oai:localhost:{item['rep']}" for item in items]

    def window(**bounds) -> list[str]:
        root = harvest(client, verb="ListIdentifiers", metadataPrefix="oai_dc", **bounds)
        return [] if root.find(f"{OAI}error") is not None else identifiers(root)

    assert window(**{"from": "2020-01-02", "until": "2020-01-02"}) == reps[1:3]
    assert window(**{"from": "2020-01-02T00:00:00Z", "until": "2020-01-02T12:30:00Z"}) == reps[1:3]
    assert window(**{"from": "2020-01-02T12:30:01Z"}) == reps[3:]
    assert window(until="2020-01-01T23:59:59Z") == reps[:1]
    datestamps = [header.findtext(f"{OAI}datestamp") for header in
                  harvest(client, verb="ListIdentifiers", metadataPrefix="oai_dc").iter(f"{OAI}header")]
    assert datestamps == ["2020-01-01T23:59:59Z", "2020-01-02T00:00:00Z", "2020-01-02T12:30:00Z", "2020-01-03T00:00:00Z"]
    nothing = harvest(client, verb="ListRecords", metadataPrefix="oai_dc", **{"from": "2021-01-01"})
    assert error_of(nothing)[0] == "noRecordsMatch"


def test_one_set_per_kind_of_item(client):
    report, thesis, _untyped = mint(client, item_type="report"), mint(client, item_type="master's thesis"), mint(client)
    sets = harvest(client, verb="ListSets")
    specs = [spec.text for spec in sets.iter(f"{OAI}setSpec")]
    assert specs[:2] == ["type:article", "type:book"] and "type:masters_thesis" in specs and len(specs) == 10
    assert identifiers(harvest(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set="type:report")) == [
        f"oai:localhost:{report['rep']}"]
    assert identifiers(harvest(client, verb="ListRecords", metadataPrefix="oai_dc", set="type:masters_thesis")) == [
        f"oai:localhost:{thesis['rep']}"]
    assert error_of(harvest(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set="type:book"))[0] == "noRecordsMatch"
    assert error_of(harvest(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set="series:x"))[0] == "noRecordsMatch"


def test_pages_resume_with_tokens_that_outlive_changes(client, api_token, monkeypatch):
    """Five items in pages of two; during the harvest an item already given and one not yet given
    are deleted, and one is minted: all come at the end, none is skipped, the list's size and
    cursor are told."""
    monkeypatch.setattr(oai_pmh, "PAGE_SIZE", 2)
    items = [mint(client, title=f"Item {n}") for n in range(5)]
    first = harvest(client, verb="ListRecords", metadataPrefix="oai_dc")
    token = first.find(f"{OAI}ListRecords/{OAI}resumptionToken")
    assert (token.get("completeListSize"), token.get("cursor")) == ("5", "0") and token.text
    seen = identifiers(first)
    assert seen == [f"oai:localhost:{item['rep']}" for item in items[:2]]
    delete(client, api_token, items[0]["ibip"])  # given already: comes again, deleted
    delete(client, api_token, items[3]["ibip"])  # not given yet: moves past the end, still given once
    items.append(mint(client, title="Item 5"))  # minted meanwhile
    cursors, statuses = [], {}
    while token is not None and token.text:
        page = harvest(client, verb="ListRecords", resumptionToken=token.text)
        token = page.find(f"{OAI}ListRecords/{OAI}resumptionToken")
        cursors.append((token.get("completeListSize"), token.get("cursor")))
        seen += identifiers(page)
        statuses.update({header.findtext(f"{OAI}identifier"): header.get("status") for header in page.iter(f"{OAI}header")})
    expected = [items[n]["rep"] for n in (0, 1, 2, 4, 0, 3, 5)]
    assert seen == [f"oai:localhost:{rep}" for rep in expected]
    # six items now; the last page's token is empty, and its count includes the item given twice
    assert cursors == [("6", "2"), ("6", "4"), ("7", "6")]
    assert [statuses[f"oai:localhost:{items[n]['rep']}"] for n in (0, 3, 5)] == ["deleted", "deleted", None]


def test_post_answers_as_get(client):
    item = mint(client)
    by_post = harvest(client, "POST", verb="GetRecord", identifier=f"oai:localhost:{item['rep']}", metadataPrefix="oai_dc")
    by_get = harvest(client, verb="GetRecord", identifier=f"oai:localhost:{item['rep']}", metadataPrefix="oai_dc")
    for root in (by_post, by_get):
        root.remove(root.find(f"{OAI}responseDate"))
    assert etree.tostring(by_post) == etree.tostring(by_get)


LIST = {"verb": "ListRecords", "metadataPrefix": "oai_dc"}


@pytest.mark.parametrize(("query", "code", "words"), [
    ("", "badVerb", "no verb"),
    ("verb=Harvest", "badVerb", "Harvest is not a verb"),
    ("verb=Identify&verb=ListSets", "badVerb", "2 times"),
    ("verb=Identify&set=type:report", "badArgument", "Identify takes no argument set"),
    ("verb=GetRecord&metadataPrefix=oai_dc", "badArgument", "needs the argument identifier"),
    ("verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc", "badArgument", "more than once"),
    ("verb=ListRecords&metadataPrefix=oai_dc&from=2020-13-01", "badArgument", "no such day"),
    ("verb=ListRecords&metadataPrefix=oai_dc&from=2020-01-01T10:00:00", "badArgument", "not a date"),
    ("verb=ListRecords&metadataPrefix=oai_dc&from=2020-01-01&until=2020-01-02T00:00:00Z", "badArgument", "same granularity"),
    ("verb=ListRecords&metadataPrefix=oai_dc&from=2020-01-02&until=2020-01-01", "badArgument", "later than until"),
    ("verb=ListRecords&metadataPrefix=oai_dc&set=type:a b", "badArgument", "not a setSpec"),
    ("verb=ListRecords&metadataPrefix=oai%20dc", "badArgument", "not a metadataPrefix"),
    ("verb=ListRecords&metadataPrefix=oai_dc&resumptionToken=x", "badArgument", "exclusive"),
    ("verb=ListRecords&resumptionToken=bm90IGEgdG9rZW4", "badResumptionToken", "not one this repository gave"),
    ("verb=ListRecords&resumptionToken=%%%", "badResumptionToken", "not one this repository gave"),
    ("verb=ListSets&resumptionToken=abc", "badResumptionToken", "ListSets gives no resumptionToken"),
    ("verb=ListRecords&metadataPrefix=marc21", "cannotDisseminateFormat", "oai_dc only, not marc21"),
    ("verb=GetRecord&identifier=oai:localhost:x/y&metadataPrefix=mods", "cannotDisseminateFormat", "not mods"),
    ("verb=GetRecord&identifier=oai:localhost:sid.inpe.br/mtc-m21/2012/07.02.15.38&metadataPrefix=oai_dc",
     "idDoesNotExist", "no item of this repository"),
    ("verb=GetRecord&identifier=oai:urlib.net:sid.inpe.br/x&metadataPrefix=oai_dc", "idDoesNotExist", "not an identifier of this repository"),
    ("verb=ListMetadataFormats&identifier=urn:nbn:br:inpe:1", "idDoesNotExist", "not an identifier of this repository"),
    ("verb=ListMetadataFormats&identifier=nonsense", "badArgument", "not a URI"),
    ("verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:localhost:%25zz", "badArgument", "not a URI"),
    ("verb=ListSets&set=%EF%BF%BE", "badArgument", "U+FFFE, which XML cannot carry"),
    ("verb=%EF%BF%BF", "badVerb", "\ufffd is not a verb"),
    ("verb=ListIdentifiers&metadataPrefix=oai_dc", "noRecordsMatch", "no item matches"),
])
def test_every_error_has_its_case(client, query, code, words):
    response = client.get("/oai?" + query)
    assert response.status_code == 200
    root = assert_valid(response.data)
    assert error_of(root)[0] == code and words in error_of(root)[1]
    request = root.find(f"{OAI}request")
    assert request.text == "http://localhost/oai"
    if code in ("badVerb", "badArgument"):  # §3.2: arguments are echoed only when they were well-formed
        assert dict(request.attrib) == {}
    else:
        assert request.get("verb") == dict(pair.split("=") for pair in query.split("&"))["verb"]


def test_a_token_for_one_verb_is_refused_by_another(client, monkeypatch):
    monkeypatch.setattr(oai_pmh, "PAGE_SIZE", 1)
    mint(client), mint(client)
    token = harvest(client, verb="ListIdentifiers", metadataPrefix="oai_dc").findtext(f"{OAI}ListIdentifiers/{OAI}resumptionToken")
    assert error_of(harvest(client, verb="ListRecords", resumptionToken=token))[0] == "badResumptionToken"
    assert len(identifiers(harvest(client, verb="ListIdentifiers", resumptionToken=token))) == 1


def test_errors_are_told_in_the_readers_language(client):
    response = client.get("/oai?verb=ListRecords&metadataPrefix=marc21", headers={"Accept-Language": "pt-BR"})
    code, text = error_of(assert_valid(response.data))
    assert code == "cannotDisseminateFormat" and "marc21" in text and "oai_dc" in text and "only" not in text


def test_harvesters_are_held_to_the_api_rate_limit_and_told_when_to_come_back(new_database):
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "t", "RATELIMIT_API": "2/minute"})
    client = app.test_client()
    for _ in range(2):
        assert client.get("/oai?verb=Identify").status_code == 200
    busy = client.get("/oai?verb=Identify")
    assert busy.status_code == 503 and 1 <= int(busy.headers["Retry-After"]) <= 60
    assert client.get("/api/v1/parse?url=http://urlib.net/8JMKD3MGP8W/34PGRBS").status_code == 429  # one budget


OAI_NAMES = ["verb", "identifier", "metadataPrefix", "from", "until", "set", "resumptionToken", "lang", "x"]
SAMPLES = ["Identify", "ListMetadataFormats", "ListSets", "GetRecord", "ListIdentifiers", "ListRecords", "oai_dc",
           "marc21", "ITEM", "GONE", "oai:localhost:", "2020-01-01", "2020-02-30", "2020-01-01T00:00:00Z",
           "type:report", "type:", "TOKEN", "%", "[::]", "#a#b", "\ufffe", "\u202e", "ação", "", " "]
TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=24)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    """One portal for every example: an item, a deleted item, and a token of a list of two."""
    from tests.servers import fresh_sqlite

    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path_factory.mktemp("oai") / "fuzz.sqlite"),
                      "SECRET_KEY": "t", "RATELIMIT_ENABLED": False, "GRANULARITY": "0.000001"})
    client = app.test_client()
    item, gone = mint(client, item_type="report"), mint(client)
    token = app.test_cli_runner().invoke(args=["api-token", "create", "fuzz"]).output.strip().splitlines()[-1]
    delete(client, token, gone["ibip"])
    values = {"ITEM": f"oai:localhost:{item['rep']}", "GONE": f"oai:localhost:{gone['rep']}"}
    return client, values


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(OAI_NAMES), st.one_of(st.sampled_from(SAMPLES), TEXT)), max_size=5),
       st.sampled_from(["GET", "POST"]))
def test_any_request_is_answered_by_a_valid_document(fuzzed, pairs, method):
    client, values = fuzzed
    pairs = [(name, values.get(value, value)) for name, value in pairs]
    if any(value == "TOKEN" for _, value in pairs):
        with_token = oai_pmh.ListQuery(oai_pmh.Verb.LIST_RECORDS, after=("2020-01-01T00:00:00.000000Z", 0)).encode()
        pairs = [(name, with_token if value == "TOKEN" else value) for name, value in pairs]
    sent = MultiDict(pairs)
    response = client.post("/oai", data=sent) if method == "POST" else client.get("/oai", query_string=sent)
    assert response.status_code == 200, response.data
    assert_valid(response.data)
