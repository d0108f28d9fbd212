"""``POST /api/v1/extract?resolve=1``: a whole reference list checked in one request, over the
real routes. The registered Archive answers on a loopback port (a scripted Archive, as in
test_resolution_cache.py), so the test counts the ``urlRequest`` messages the portal really sent:
each distinct request once, whatever the number of entries making it."""
from __future__ import annotations

import functools
import json
import socket

import pytest

from ibiportal.ibi.numerals import encode_base27
from ibiportal.resolver import registry_service
from ibiportal.resolver.addresses import check_host
from ibiportal.web.context import APPLICATION
from tests.scripted_archive import ArchiveRequest
from tests.servers import fresh_sqlite
from tests.web.resolve.test_resolution_cache import INCLUDE, ITEM, SERVICE_IBI, ItemArchive, fake_dns, include, make_app

LIST = f"""1. SILVA, M. Item. IBI: <{ITEM}>. Disponível em: <http://urlib.net/ibi/{ITEM}>.
2. SOUZA, J. Other. IBI: <8JMKD3MGP8W/34PGRBS>.
3. Broken: <http://urlib.net/8JMKD3MGP8W/ZZZZZZZ>.
4. Again: http://urlib.net/{ITEM}
5. Last edition: \\url{{http://urlib.net/{ITEM}!}}
"""
USER = {"REMOTE_ADDR": "172.16.44.200"}


class LastEditionArchive(ItemArchive):
    """ItemArchive whose item has no next edition, so its last edition is itself (§9, Algorithm 2:
    every ``.lastedition`` pair equals its plain twin)."""

    def __call__(self, request: ArchiveRequest):
        answer = super().__call__(request)
        if isinstance(answer, str) and answer.startswith("archiveaddress"):
            url = next(line for line in answer.split("\r\n") if line.startswith("url "))
            answer += f"url.lastedition {url[4:]}\r\n"
        return answer


def asked(archive) -> dict[tuple[str, str], int]:
    """The urlRequest messages the Archive received, counted by IBI and verb list."""
    counts: dict[tuple[str, str], int] = {}
    for request in archive.sent("urlRequest"):
        key = (request.query["parsedibiurl.ibi"][0], request.query.get("parsedibiurl.verblist", [""])[0])
        counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.fixture
def live(tmp_path, monkeypatch, scripted_archive):
    """An app without demo Archives, the loopback Archive included; ``start(**config)`` makes another."""
    monkeypatch.setattr(socket, "getaddrinfo", fake_dns)
    monkeypatch.setattr(registry_service, "check_host", functools.partial(check_host, getaddrinfo=fake_dns))
    database = fresh_sqlite(tmp_path / "live.sqlite")
    archive = scripted_archive(LastEditionArchive())
    apps = []

    def start(**config):
        app = make_app(database, **config)
        apps.append(app)
        return app

    app = start()
    assert app.test_cli_runner().invoke(args=["archives", "register", SERVICE_IBI, "--key", "1234567890"]).exit_code == 0
    include(app.test_client(), archive, INCLUDE)
    yield app, archive, start
    for each in apps:
        each.extensions[APPLICATION].http_transport.close()
        each.extensions[APPLICATION].fan_out_transport.close()


def test_every_entry_resolved_each_request_asked_once(live):
    app, archive, _ = live
    # A reader just followed the item's last edition: the check takes that from the cache.
    assert app.test_client().get(f"/{ITEM}!", environ_base=USER).headers["X-IBI-Cache"] == "miss"
    response = app.test_client().post("/api/v1/extract?resolve=1", json={"text": LIST}, environ_base=USER)
    assert response.status_code == 200
    body = response.get_json()
    rows = [(row["line"], row["resolution"]["outcome"], row["resolution"]["status"]) for row in body["found"]]
    assert rows == [(1, "found", 302), (1, "found", 302), (2, "not found", 404), (3, "invalid", None),
                    (4, "found", 302), (5, "found", 302)]
    assert body["summary"] == {"found": 4, "deleted": 0, "not found": 1, "invalid": 1, "error": 0}
    # Three entries ask for ITEM, one for its last edition: two requests about it, one about 34PGRBS.
    assert asked(archive) == {(ITEM, ""): 1, (ITEM, "GetLastEdition"): 1, ("8JMKD3MGP8W/34PGRBS", ""): 1}
    first = body["found"][0]["resolution"]
    assert first["location"] == "http://mtc-m21.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/item.pdf"
    assert first["reason"] == f"redirects to {first['location']}" and first["cache"] in ("miss", "joined")
    assert body["found"][5]["resolution"]["cache"] == "hit"
    trace = app.test_client().get(first["trace"].replace("http://localhost", "")).get_json()
    assert trace["url"] == first["location"]  # the trace link is that resolution's
    assert body["found"][3]["resolution"]["reason"] == "not an IBI: character 'Z' is not in the IBIp alphabet (0 1 I O V Y Z are excluded, Table 7.1) (at character 30)"
    # The check's own outcomes are not kept in the cache (a 5,000-IBI list would push out what
    # readers follow): checked again, the Archive is asked again, and so is a reader's GET.
    again = app.test_client().post("/api/v1/extract?resolve=1", json={"text": LIST}, environ_base=USER).get_json()
    assert [row["resolution"]["cache"] for row in again["found"]] == ["miss", "miss", "miss", None, "miss", "hit"]
    assert asked(archive) == {(ITEM, ""): 2, (ITEM, "GetLastEdition"): 1, ("8JMKD3MGP8W/34PGRBS", ""): 2}
    get = app.test_client().get(f"/{ITEM}", environ_base=USER)
    assert get.status_code == 302 and get.headers["X-IBI-Cache"] == "miss"


def test_entries_stream_as_ndjson(live):
    app, _, _ = live
    response = app.test_client().post("/api/v1/extract?resolve=1", json={"text": LIST}, environ_base=USER,
                                      headers={"Accept": "application/x-ndjson"})
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    lines = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
    assert lines[0] == {"count": 6, "distinct": 2, "broken": 1, "requests": 3}
    assert lines[-1] == {"summary": {"found": 4, "deleted": 0, "not found": 1, "invalid": 1, "error": 0}}
    entries = sorted(lines[1:-1], key=lambda row: row["index"])
    assert [row["index"] for row in entries] == list(range(6))
    assert entries[5]["text"] == f"http://urlib.net/{ITEM}!" and entries[5]["persistent_url"].endswith("!")
    assert all(set(row["resolution"]) == {"outcome", "status", "location", "reason", "trace", "cache"} for row in entries)


def test_a_check_keeps_traces_within_its_budget_and_each_link_it_gives_opens(live):
    _, _, start = live
    # Half the retention of 4: two traces for the check's three requests. The not-found takes one
    # whatever the order they end in; a found one only while more than half is left.
    app = start(TRACE_RETENTION=4)
    body = app.test_client().post("/api/v1/extract?resolve=1", json={"text": LIST}, environ_base=USER).get_json()
    by_request: dict[str, set] = {}
    for row in body["found"]:
        if row["resolution"]["status"] is not None:
            by_request.setdefault(row["persistent_url"], set()).add(row["resolution"]["trace"])
    assert all(len(links) == 1 for links in by_request.values())  # the entries of one request share its trace
    links = {url: links.pop() for url, links in by_request.items()}
    unknown = next(url for url in links if "34PGRBS" in url)
    assert links[unknown] is not None
    assert sum(link is None for link in links.values()) >= 1 and sum(link is not None for link in links.values()) <= 2
    for url, link in links.items():  # after the check: every link it gave is kept, and is that request's
        if link is not None:
            trace = app.test_client().get(link.replace("http://localhost", "")).get_json()
            assert trace["persistent_url"] == url.replace("http://urlib.net/", "http://localhost/")
    untraced = [row["resolution"] for row in body["found"] if row["persistent_url"] in links
                and links[row["persistent_url"]] is None]
    assert untraced and all(each["outcome"] == "found" and each["location"] for each in untraced)  # still where it leads


def test_the_per_ibi_limit_leaves_the_rest_not_checked(live):
    _, archive, start = live
    app = start(RATELIMIT_ENABLED=True, RATELIMIT_REFERENCES="2/minute")
    body = app.test_client().post("/api/v1/extract?resolve=1", json={"text": LIST}, environ_base=USER).get_json()
    refused = [row for row in body["found"] if row["resolution"]["status"] == 429]
    assert len(refused) == 1 and refused[0]["resolution"]["outcome"] == "error"
    assert refused[0]["resolution"]["reason"].startswith("not checked: at most 2/minute IBIs are checked for your address; check again in ")
    assert body["summary"]["error"] == 1
    # The budget is per minute: the next list is not checked at all, the broken entry still invalid.
    later = app.test_client().post("/api/v1/extract?resolve=1", json={"text": LIST}, environ_base=USER).get_json()
    assert body["summary"]["invalid"] == later["summary"]["invalid"] == 1 and later["summary"]["error"] == 5


def test_a_200_ibi_list_passes_under_the_default_limits(client):
    text = "\n".join(f"{index}. IBI: <8JMKD3MGP8W/{encode_base27(480_992_662 + 60 * index)}>." for index in range(200))
    assert client.application.config["RATELIMIT_ENABLED"] and client.application.config["RATELIMIT_REFERENCES"] == "1000/minute"
    body = client.post("/api/v1/extract?resolve=1", json={"text": text}).get_json()
    assert body["count"] == 200 and body["summary"]["not found"] == 200, body["summary"]


def test_resolve_takes_a_flag(client):
    response = client.post("/api/v1/extract?resolve=maybe", json={"text": LIST})
    assert response.status_code == 400 and response.get_json()["error"]["field"] == "resolve"
    plain = client.post("/api/v1/extract?resolve=0", json={"text": LIST}).get_json()
    assert "summary" not in plain and "resolution" not in plain["found"][0]
