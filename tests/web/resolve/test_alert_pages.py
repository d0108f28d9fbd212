"""The alert pages a reader lands on: a deleted item's 410 names what it was and links to its
record; a not-found whose Archive did not answer in time says so, and which one, first; dates
are shown once, in the reader's form."""
from __future__ import annotations

import re

import pytest

from ibiportal.resolver.local_transport import LOCAL_READ_TIMEOUT
from tests.reliability.faulty_archives import RawArchive, include, says_nothing

USER = {"REMOTE_ADDR": "172.16.44.200"}
UNKNOWN = "/8JMKD3MGP8W/34PGRBS"  # its prefix encodes 150.163.34.243, where no Archive is registered
SERVICE_IBI = "8JMKD3MGP8W/3B8S6GL"
LANGUAGES = {"en": ("Deleted on", "28 Nov"), "pt-BR": ("Removido em", "/")}


def main_of(html: str) -> str:
    return html.split('<main id="main" tabindex="-1">')[1].split("</main>")[0]


@pytest.fixture
def deleted(client, api_token) -> dict:
    item = client.post("/api/v1/mint", json={"title": "Relatório de campo", "target_url": "https://example.org/r"}).get_json()
    assert client.delete(f"/api/v1/items/{item['ibip']}", headers={"Authorization": f"Bearer {api_token}"}).status_code == 200
    return item


@pytest.mark.parametrize("lang", ["en", "pt-BR"])
def test_a_deleted_items_410_names_it_and_links_to_its_record(client, deleted, lang):
    answer = client.get("/" + deleted["ibip"], environ_base=USER, headers={"Accept-Language": lang})
    assert answer.status_code == 410
    main = main_of(answer.get_data(as_text=True))
    assert "Relatório de campo" in main
    assert f'href="/archive/items/{deleted["ibip"]}"' in main
    assert client.get(f"/archive/items/{deleted['ibip']}").status_code == 200
    # The date once, in the reader's form; machine-readable only in <time datetime>.
    text = re.sub(r"<[^>]+>", " ", main)
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", text), text
    assert len(re.findall(r"\d\d:\d\d:\d\d UTC", text)) == 1, text
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">', main)


def test_the_plain_text_alert_gives_the_deletion_time_once(client, deleted):
    text = client.get("/" + deleted["ibip"], environ_base=USER, headers={"Accept": "text/plain"}).get_data(as_text=True)
    first = text.splitlines()[0]
    assert first.startswith("deleted: ") and len(re.findall(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", first)) == 1, first


@pytest.mark.parametrize(("lang", "headline", "step"), [
    ("en", f"The Archive {SERVICE_IBI} did not answer in time", "First, the Archives that failed to answer: "),
    ("pt-BR", f"O Arquivo {SERVICE_IBI} não respondeu a tempo", "Primeiro, os Arquivos que não responderam: "),
])
@pytest.mark.settings(ARCHIVE_READ_TIMEOUT=0.5, ALLOW_PRIVATE_ARCHIVES=True)
def test_a_holder_that_did_not_answer_in_time_heads_the_page_and_its_steps(app, client, lang, headline, step):
    """An Archive registered away from the IBI's address times out: the page does not say a bare
    "not found" nor start with "register an Archive"; it names the Archive that did not answer."""
    with RawArchive(says_nothing) as silent:
        include(app.config["DATABASE"], silent.address, SERVICE_IBI)
        answer = client.get(UNKNOWN, environ_base=USER, headers={"Accept-Language": lang})
    assert answer.status_code == 404
    main = main_of(answer.get_data(as_text=True))
    assert re.search(rf"<h1>{re.escape(headline)}</h1>", main), main[:800]
    steps = re.findall(r"<li>(.*?)</li>", re.search(r'<ol class="next-steps">(.*?)</ol>', main, re.S)[1], re.S)
    assert steps[0].lstrip().startswith(step + SERVICE_IBI) and len(steps) == 3, steps
    trace = client.get(answer.headers["X-IBI-Trace"].replace("/api/v1/trace/", "/trace/"),
                       headers={"Accept-Language": lang}).get_data(as_text=True)
    assert headline in trace


@pytest.mark.parametrize("lang", ["en", "pt-BR"])
def test_the_health_page_states_both_limits(client, lang):
    """The registered Archives' limit (IBIPORTAL_ARCHIVE_READ_TIMEOUT) and the demo Archives',
    which a trace of the slow one shows ("no answer within 2 s")."""
    client.post("/trace", data={"url": "http://urlib.net/D7N2U8HW/3P82998", "include_faulty": "y"}, environ_base=USER)
    page = client.get("/archives/health", query_string={"lang": lang}).get_data(as_text=True)
    assert ("5,000 ms" if lang == "en" else "5.000 ms") in page
    assert ("2,000 ms" if lang == "en" else "2.000 ms") in page and LOCAL_READ_TIMEOUT == 2.0
