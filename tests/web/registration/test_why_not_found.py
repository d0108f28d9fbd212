"""Why not found, through the portal: an IBI minted at an address with no registered Archive, one
whose Archive is excluded, and one whose Archive timed out each end with the right next step —
on the alert page, in its JSON, in the stored trace, the trace API and the Trace page."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from ibiportal.ibi.ibip import ibip_prefix
from ibiportal.storage.database import Storage
from ibiportal.storage.registry import ArchiveStore
from tests.reliability.faulty_archives import RawArchive, answers, include, says_nothing
from tests.admin_session import log_in_as

ADDRESS = "150.163.34.243"  # what 8JMKD3MGP8W encodes (Algorithm 5), a public IP literal: no DNS
UNKNOWN = "/8JMKD3MGP8W/34PGRBS"
SERVICE_IBI = "8JMKD3MGP8W/3B8S6GL"
JSON = {"Accept": "application/json"}


def register(app, *, included: bool, address: str = ADDRESS) -> None:
    """Register the Archive at ``address`` and include it (then exclude it unless ``included``)."""
    include(app.config["DATABASE"], address, SERVICE_IBI)
    if not included:
        storage = Storage(app.config["DATABASE"])
        ArchiveStore(storage).record_exclusion(SERVICE_IBI, datetime.now(timezone.utc))
        storage.close()


def not_found(client) -> dict:
    """GET the unknown IBI as JSON; the alert's body, with the diagnosis."""
    response = client.get(UNKNOWN, headers=JSON)
    assert response.status_code == 404
    return response.get_json()


def test_no_archive_registered_at_the_address(client):
    diagnosis = not_found(client)["diagnosis"]
    assert diagnosis["case"] == "none-registered"
    assert diagnosis["subsystem"]["ips"] == [ADDRESS] and diagnosis["subsystem"]["port"] == 800
    assert diagnosis["at_address"] == []
    assert diagnosis["next_steps"][0].startswith(
        f"No Archive at {ADDRESS} (mtc-m18.sid.inpe.br) is registered with this resolver: the item's Archive "
        "administrator should register it")


def test_the_archive_at_the_address_excluded_itself(app, client):
    register(app, included=False)
    diagnosis = not_found(client)["diagnosis"]
    assert diagnosis["case"] == "excluded"
    assert [(a["name"], a["state"]) for a in diagnosis["at_address"]] == [(SERVICE_IBI, "excluded")]
    assert re.fullmatch(
        rf"The Archive {SERVICE_IBI} at {ADDRESS} was excluded on \d{{4}}-\d\d-\d\d \d\d:\d\d UTC "
        r"\(its history says: switched off\), so the resolver no longer asks it\. It is asked again once it is "
        r"included again \(its inclusionRequest, §7\.2, or an administrator\)\.", diagnosis["next_steps"][0])


def test_an_archive_the_administrator_excluded_is_named_with_the_date_and_who(app, client):
    """The walk-through's case: an Archive excluded from its admin page a moment ago. The
    not-found page names it, the day and the administrator, and never asks to register it."""
    register(app, included=True)
    log_in_as(client, "maria")
    excluded = client.post(f"/admin/archives/{SERVICE_IBI}/exclude")
    assert excluded.status_code == 303
    with client.session_transaction() as session:
        session.clear()  # support staff read it without a login
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    page = client.get(UNKNOWN).get_data(as_text=True)
    assert f"The Archive {SERVICE_IBI} at {ADDRESS} was excluded on {today} " in page
    assert "(its history says: excluded by the administrator maria)" in page
    assert "should register it" not in page and "No Archive at" not in page


@pytest.mark.parametrize("case", ["none-registered", "excluded", "included-but-failed", "included-but-empty"])
@pytest.mark.settings(ARCHIVE_READ_TIMEOUT=0.5, ALLOW_PRIVATE_ARCHIVES=True)
def test_every_next_step_links_to_a_page_an_anonymous_reader_can_open(app, client, case):
    """On the alert page and the Trace page alike, each next step has at least one link, and
    each link answers 200 without a login (the walk-through's "see the Archives page" was
    neither a link nor open to support staff)."""
    with RawArchive(says_nothing if case == "included-but-failed" else answers(b"")) as archive:
        if case != "none-registered":
            register(app, included=case != "excluded", address=archive.address)
        response = client.get(f"/{ibip_prefix('127.0.0.1')}/34PGRBS", headers=JSON)
    body = response.get_json()
    assert body["diagnosis"]["case"] == case
    trace_id = body["trace"].rsplit("/", 1)[1]
    for page in (client.get(f"/{ibip_prefix('127.0.0.1')}/34PGRBS"), client.get(f"/trace/{trace_id}")):
        steps = re.search(r'<ol class="next-steps">(.*?)</ol>', page.get_data(as_text=True), re.S)[1]
        items = re.findall(r"<li>(.*?)</li>", steps, re.S)
        assert len(items) == len(body["diagnosis"]["next_steps"]) >= 1
        for item in items:
            links = re.findall(r'<a href="([^"]+)"', item)
            assert links, f"a next step without a link: {item}"
            for href in links:
                assert client.get(href.replace("&amp;", "&")).status_code == 200, href


@pytest.mark.settings(ARCHIVE_READ_TIMEOUT=0.5, ALLOW_PRIVATE_ARCHIVES=True)
def test_the_archive_at_the_address_timed_out(app, client):
    """The Archive at the IBIp's address (loopback here) accepts and never answers: the portal's
    read timeout (``IBIPORTAL_ARCHIVE_READ_TIMEOUT``, 0.5 s here instead of 5) ends the exchange."""
    with RawArchive(says_nothing) as silent:
        register(app, included=True, address=silent.address)
        response = client.get(f"/{ibip_prefix('127.0.0.1')}/34PGRBS", headers=JSON)
    assert response.status_code == 404
    body = response.get_json()
    diagnosis = body["diagnosis"]
    assert diagnosis["case"] == "included-but-failed"
    (here,) = diagnosis["at_address"]
    assert here["name"] == SERVICE_IBI and here["state"] == "failed"
    assert here["detail"].startswith("did not answer in time") and "no answer within 0.5 s" in here["detail"]
    assert diagnosis["next_steps"][0].startswith(
        f"The Archive {SERVICE_IBI} at {silent.address} is included but did not answer in time")
    assert "check that its server is up" in diagnosis["next_steps"][0]
    # The stored trace keeps it: the JSON permalink and the Trace page say the same.
    trace_id = body["trace"].rsplit("/", 1)[1]
    assert client.get(body["trace"]).get_json()["diagnosis"] == diagnosis
    page = client.get(f"/trace/{trace_id}").get_data(as_text=True)
    assert "Why it was not found" in page and "is included but did not answer in time" in page


def test_the_alert_page_says_why_and_what_next(client):
    page = client.get(UNKNOWN).get_data(as_text=True)
    assert "Why it was not found" in page
    assert f"the IBIp prefix 8JMKD3MGP8W encodes IP {ADDRESS}, port 800 (Algorithm 5)" in page
    assert "none: no Archive at" in page
    assert re.search(r'<ol class="next-steps">\s*<li>No Archive at ', page)
    assert re.search(r'<li>No Archive at [^<]*<span class="step-links"><a href="/archives/health">', page)


def test_the_plain_text_alert_has_the_next_steps(client):
    text = client.get(UNKNOWN, headers={"Accept": "text/plain"}).get_data(as_text=True)
    assert f"next: No Archive at {ADDRESS}" in text
    assert "  Archive health: every registered Archive and its state: http://localhost/archives/health\n" in text


def test_the_plain_text_alert_in_portuguese_keeps_its_line_keys(client):
    """The sentences in the reader's language (a pt-BR curl user once got English sentences under
    Portuguese link labels); the keys scripts read (the reason, next:, trace:) as in English."""
    text = client.get(UNKNOWN, headers={"Accept": "text/plain", "Accept-Language": "pt-BR"}).get_data(as_text=True)
    english = client.get(UNKNOWN, headers={"Accept": "text/plain"}).get_data(as_text=True)
    def keys(lines: str) -> list[str]:
        return [line.split(":", 1)[0] if line.startswith(("not-found:", "next:", "trace:")) else "…"
                for line in lines.splitlines() if not line.startswith("  ")]
    assert keys(text) == keys(english) and keys(text)[:2] == ["not-found", "…"]
    for sentence in ("the IBIp prefix 8JMKD3MGP8W encodes", "No Archive at", "is registered with this resolver",
                     "Check the identifier for typos"):
        assert sentence in english and sentence not in text, sentence
    assert "prefixo IBIp 8JMKD3MGP8W" in text


def test_the_trace_api_returns_the_diagnosis(client):
    body = client.post("/api/v1/trace", json={"url": f"http://urlib.net{UNKNOWN}"}).get_json()
    assert body["diagnosis"]["case"] == "none-registered"


def test_a_found_trace_has_no_diagnosis(client):
    body = client.post("/api/v1/trace", json={"url": "http://urlib.net/8JMKD3MGP8W/35MMLL8"}).get_json()
    assert "diagnosis" not in body
    page = client.get(f"/trace/{body['id']}").get_data(as_text=True)
    assert "Why it was not found" not in page


@pytest.mark.parametrize("port", [800, 1912])
def test_a_repeated_not_found_served_from_the_cache_still_says_why(client, port):
    prefix = ibip_prefix(ADDRESS, port)
    first = client.get(f"/{prefix}/34PGRBS", headers=JSON)
    second = client.get(f"/{prefix}/34PGRBS", headers=JSON)
    assert first.status_code == second.status_code == 404
    assert second.headers["X-IBI-Cache"] == "hit"
    assert second.get_json()["diagnosis"] == first.get_json()["diagnosis"]
    assert second.get_json()["diagnosis"]["subsystem"]["port"] == port


def test_the_diagnosis_in_portuguese(app, client):
    """The next steps are kept as messages with their values, so a Portuguese reader gets them in
    Portuguese, the Archive's name, address and date slotted in, and the links' words too."""
    register(app, included=False)
    page = client.get(UNKNOWN, headers={"Accept-Language": "pt-BR"}).get_data(as_text=True)
    assert "Por que não foi encontrado" in page and "Próximos passos" in page
    assert f"O Arquivo {SERVICE_IBI} em {ADDRESS} foi excluído em " in page
    assert "(seu histórico diz: desligado)" in page  # the history's own words, translated too
    assert ">Saúde dos Arquivos: todos os Arquivos registrados e seu estado</a>" in page
    assert "o prefixo IBIp 8JMKD3MGP8W codifica o IP 150.163.34.243, porta 800 (Algoritmo 5)" in page
