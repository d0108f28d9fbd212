"""Every entry point reads IBIs as they are published, through the one recogniser, with its notes.

The same handful of real forms (tests/ibi/data/wild_ibis.py has where each kind was found) goes
through the home page, ``/api/v1/classify``, Convert (page, API, batch and CLI), Parse (page and
API), Compose, Cite and Trace; text that is not an IBI keeps its message and position.
"""
from __future__ import annotations

from ibiportal.ibi.recognise import recognise

REFERENCE = "IBI: <8JMKD3MGP3W34T/47AF772>."  # TATHU (2022), as printed
REPORT = "(sid.inpe.br/mtc-m19/2013/09.04.12.27.57-TDI)."  # the standard's item with INPE's suffix
LINK = "urlib.net/ibi/8JMKD3MGP8W/35MMLL8?ibiurl.backgroundlanguage=pt-BR"  # no scheme, /ibi/, URLib's pair
DEMO_ITEM = "D7N2U8HW/3QDQH85"  # a demo Archive's item with oai_dc metadata
CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


def test_classify_api_gives_both_urls_and_the_notes(client):
    body = client.get("/api/v1/classify", query_string={"q": LINK}).get_json()
    assert (body["kind"], body["ibi"]) == ("url", "8JMKD3MGP8W/35MMLL8")
    assert body["original_url"] == "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.backgroundlanguage=pt-BR"
    assert body["portal_url"] == "http://localhost/8JMKD3MGP8W/35MMLL8?ibiurl.backgroundlanguage=pt-BR"
    messages = [note["message"] for note in body["notes"]]
    assert any("no scheme" in m for m in messages) and any("`/ibi/`" in m for m in messages)
    assert any("`ibiurl.backgroundlanguage` is URLib's" in m for m in messages)
    assert body["notes"][0]["start"] == 1


def test_classify_api_keeps_the_message_and_position_of_non_ibis(client):
    response = client.get("/api/v1/classify", query_string={"q": "IBI: <8JMKD3MGP3W34T/47AF77O>."})
    body = response.get_json()
    assert body["kind"] == "unknown"
    assert body["error"]["position"] == 28 and "'O' is not in the IBIp alphabet" in body["error"]["message"]


def test_home_page_shows_the_notes_and_the_original_resolver(client):
    html = client.get("/", query_string={"q": REFERENCE}).get_data(as_text=True)
    assert "This is an IBI in IBIp form" in html
    assert "the label <code>IBI:</code> of a printed reference is not part of the IBI" in html
    assert "On its original resolver" in html and "http://urlib.net/8JMKD3MGP3W34T/47AF772" in html


def test_convert_page_api_and_cli(client, runner):
    html = client.get("/convert", query_string={"ibi": REPORT}).get_data(as_text=True)
    assert "8JMKD3MGP7W/3EPGUE5" in html and "report-number suffix" in html
    assert "Prefix pair used: <code>sid.inpe.br/mtc-m19</code> = <code>8JMKD3MGP7W</code>" in html and "Example 6.2" in html
    body = client.get("/api/v1/convert", query_string={"ibi": REPORT}).get_json()
    assert (body["input"], body["rep"], body["ibip"]) == (REPORT, "sid.inpe.br/mtc-m19/2013/09.04.12.27.57", "8JMKD3MGP7W/3EPGUE5")
    assert any("`-TDI`" in note["message"] for note in body["notes"])
    result = runner.invoke(args=["ibi", "convert", REPORT])
    assert result.exit_code == 0 and "8JMKD3MGP7W/3EPGUE5" in result.output and "`-TDI`" in result.output
    bad = client.get("/api/v1/convert", query_string={"ibi": "sid.inpe.br/mtc-m19/2013/09.04.12.27.5x"})
    assert bad.status_code == 400 and bad.get_json()["error"]["position"] == 39  # the `x`, as before


def test_convert_batch_reads_each_row(client):
    body = client.post("/api/v1/convert/batch", json={"identifiers": [REFERENCE, REPORT, "8JMKD3MGP8W/34PGRBS", "nope"]}).get_json()
    rows = body["rows"]
    assert [row["ibip"] for row in rows[:3]] == ["8JMKD3MGP3W34T/47AF772", "8JMKD3MGP7W/3EPGUE5", "8JMKD3MGP8W/34PGRBS"]
    assert any("read as 8JMKD3MGP3W34T/47AF772" in warning for warning in rows[0]["warnings"])
    assert rows[3]["error"] is not None


def test_parse_page_and_api(client):
    body = client.get("/api/v1/parse", query_string={"url": LINK}).get_json()
    assert body["parsedibiurl.ibi"] == "8JMKD3MGP8W/35MMLL8"
    assert body["query"] == [["ibiurl.backgroundlanguage", "pt-BR"]]
    assert body["canonical"]["symbols"] == "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.backgroundlanguage=pt-BR"
    assert body["notes"]
    html = client.get("/parse", query_string={"url": LINK}).get_data(as_text=True)
    assert "Read from what you gave" in html and "<code>/ibi/</code>" in html
    error = client.get("/api/v1/parse", query_string={"url": "urlib.net/ibi/8JMKD3MGP8W/35MMLL8!!"}).get_json()["error"]
    assert error["position"] == 35 and error["field"] == "url"  # the second `!`


def test_compose_takes_any_form_of_the_ibi(client):
    body = client.get("/api/v1/compose", query_string={"ibi": REFERENCE, "verb": "GetLastEdition",
                                                       "q": "ibiurl.backgroundlanguage=pt-BR"}).get_json()
    assert body["canonical"]["symbols"].endswith("/8JMKD3MGP3W34T/47AF772!?ibiurl.backgroundlanguage=pt-BR")
    assert body["notes"]
    html = client.get("/compose", query_string={"ibi": REPORT}).get_data(as_text=True)
    assert "sid.inpe.br/mtc-m19/2013/09.04.12.27.57" in html


def test_cite_reads_a_printed_reference(client):
    body = client.get("/api/v1/cite", query_string={"ibi": f"IBI: <{DEMO_ITEM}>."}).get_json()
    assert body["ibi"] == DEMO_ITEM, body


def test_trace_resolves_the_reading(client):
    response = client.post("/api/v1/trace", json={"url": "urlib.net/rep/8JMKD3MGP8W/35MMLL8", "archives": "demo"},
                           environ_base=CLIENT)
    assert response.status_code == 201
    body = response.get_json()
    assert body["persistent_url"] == recognise("urlib.net/rep/8JMKD3MGP8W/35MMLL8").reading == "http://urlib.net/8JMKD3MGP8W/35MMLL8"
    assert body["url"] is not None
    page = client.post("/trace", data={"url": "IBI: <8JMKD3MGP8W/35MMLL8!>", "archives": "demo"}, environ_base=CLIENT)
    assert page.status_code == 303
    bad = client.post("/trace", data={"url": "IBI: <8JMKD3MGP8W/35MMLL8!!>", "archives": "demo"}, environ_base=CLIENT)
    assert bad.status_code == 400
    assert "the last edition is asked once" in bad.get_data(as_text=True)
