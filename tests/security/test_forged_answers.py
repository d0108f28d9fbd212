"""A registered Archive answering every ``urlRequest`` with another item's ``ibi`` and a URL of
its own (security issue 39, finding 5) no longer sends a reader of the portal's own item there:
the Archive plays on a real loopback socket and the portal asks it through its real fan-out.
Its answer is set aside, as the JSON trace and the Trace page say, in English and Portuguese;
an Archive that claims the own item's original instead is set aside too."""
from __future__ import annotations

import html
import time
from urllib.parse import urlsplit

import pytest

from ibiportal import create_app
from ibiportal.resolver.local_transport import LocalTransport
from ibiportal.web.context import APPLICATION
from tests.reliability.faulty_archives import include
from tests.scripted_archive import ArchiveRequest, ScriptedArchive
from tests.servers import fresh_sqlite

FORGED = ("ibi {rep sid.inpe.br/mtc-m18/2009/02.16.17.46 ibip 8JMKD3MGP8W/34PGRBS} state Original "
          "url http://evil.example/forged\r\n")
TARGET = "https://example.org/own/report.pdf"
CLIENT = {"REMOTE_ADDR": "172.16.44.200"}
PT = {"Accept-Language": "pt-BR,pt;q=0.9"}
EN = {"Accept-Language": "en-US,en;q=0.9"}


def forger(request: ArchiveRequest) -> str:
    """The finding's Archive: the same forged answer to every urlRequest."""
    return "notice {acknowledgment received}\r\n" if request.subject == "acknowledgment" else FORGED


def claimant(request: ArchiveRequest) -> str:
    """An Archive that names the item asked and claims its original, with a URL of its own."""
    if request.subject == "acknowledgment":
        return "notice {acknowledgment received}\r\n"
    asked = request.query["parsedibiurl.ibi"][0]
    return f"ibi {{ibip {asked}}} state Original url http://evil.example/claimed\r\n"


@pytest.fixture(params=[forger, claimant], ids=["another-item", "competing-original"])
def portal(request, tmp_path, scripted_archive, monkeypatch):
    """A portal without demo Archives whose one registered Archive is the loopback one, and an
    item minted in the portal's own Archive. The own Archive answers 0.3 s late, so that the
    loopback Archive's answer arrives first and is read, as in the finding."""
    fetch = LocalTransport.fetch

    def late(self, url, timeouts):
        time.sleep(0.3)
        return fetch(self, url, timeouts)

    monkeypatch.setattr(LocalTransport, "fetch", late)
    archive: ScriptedArchive = scripted_archive(request.param)
    database = fresh_sqlite(tmp_path / "forged.sqlite")
    app = create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                      "DEMO_ARCHIVES": False, "ALLOW_PRIVATE_ARCHIVES": True, "RATELIMIT_ENABLED": False})
    include(database, archive.address)
    client = app.test_client()
    minted = client.post("/api/v1/mint", json={"title": "Own report", "target_url": TARGET}).get_json()
    yield client, archive, minted, request.param
    app.extensions[APPLICATION].http_transport.close()
    app.extensions[APPLICATION].fan_out_transport.close()


def test_a_reader_of_an_own_item_is_not_sent_to_the_forged_url(portal):
    client, archive, minted, kind = portal
    for form in ("ibip", "rep"):
        response = client.get(f"/{minted[form]}", environ_base=CLIENT)
        assert response.status_code == 302 and response.headers["Location"] == TARGET
        assert archive.count("urlRequest") >= 1  # the Archive was asked, over the socket
        trace = client.get(urlsplit(response.headers["X-IBI-Trace"]).path).get_json()
        step = next(step for step in trace["trace"]["steps"] if step["number"] == 3 and step["archive"] == archive.address)
        expected = "other-item" if kind is forger else "competing-original"
        assert (step["status"], step["set_aside"], step["arrival"]) == ("set-aside", expected, 1)
        assert "set aside" in step["error"] and step["error_i18n"]["template"]
        assert trace["archive"] == "portal" and "evil.example" not in (trace["url"] or "")


def test_the_trace_page_says_the_answer_was_set_aside_in_both_languages(portal):
    client, archive, minted, kind = portal
    response = client.get(f"/{minted['ibip']}", environ_base=CLIENT)
    page_url = urlsplit(response.headers["X-IBI-Trace"]).path.replace("/api/v1/trace/", "/trace/")
    english = html.unescape(client.get(page_url, headers=EN).get_data(as_text=True))
    portuguese = html.unescape(client.get(page_url, headers=PT).get_data(as_text=True))
    if kind is forger:
        assert "its ibi pair names sid.inpe.br/mtc-m18/2009/02.16.17.46, another item than" in english
        assert "seu par ibi nomeia sid.inpe.br/mtc-m18/2009/02.16.17.46, outro item que não" in portuguese
    else:
        assert "it claims the original (state Original), which this portal's own Archive holds" in english
        assert "afirma ter o original (state Original), que o próprio Arquivo deste portal tem" in portuguese
        assert "this portal's own Archive holds the original" in english
        assert "o próprio Arquivo deste portal tem o original" in portuguese
    assert "Set aside:" in english and "Posta de lado:" in portuguese
    assert "http://evil.example/" in english  # the forged URL is shown as the answer's pair, never offered
