"""Minting through the service, the JSON API, the CLI and the page."""
from __future__ import annotations

import base64
import html as html_lib
import json
import re
from decimal import Decimal

import pytest
import segno

from ibiportal import create_app

from ibiportal.errors import ParseError
from ibiportal.ibi.dates import split_date
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.application.minting import Minter
from ibiportal.ibi.mint_request import MintRequest
from ibiportal.ibi.subsystem import Subsystem
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.web.identifiers.qr import qr_svg
from tests.servers import fresh_sqlite
from ibiportal.ibi.history import Actor

TESTER = Actor("command", "tests")


def make_minter(database, clock, sleep, granularity="1"):
    """A minter on ``database`` (SQLite or PostgreSQL, see ``database_setting``), as a new process makes it."""
    subsystem = Subsystem(
        host="mtc-m18.sid.inpe.br", port=80, ip="150.163.34.243", ibip_port=800,
        granularity=Decimal(granularity),
    )
    return Minter(IdentifierStore(Storage(database)), subsystem, clock=clock, sleep=sleep)


def test_mint_gives_both_forms_of_the_same_date(database_setting):
    sleeps: list[float] = []
    minter = make_minter(database_setting, lambda: Decimal("1234806360.25"), sleeps.append)  # 2009-02-16T17:46:00.25Z
    item = minter.mint(actor=TESTER)
    # The first identifier of a subsystem is shortened to the minute (Algorithm 4 lines 8-16).
    assert item.rep == "sid.inpe.br/mtc-m18/2009/02.16.17.46"
    assert item.ibip == "8JMKD3MGP8W/34PGRBS"
    assert item.utc == "2009-02-16T17:46:00Z"
    assert parse_ibi(item.rep).date == parse_ibi(item.ibip).date == item.date
    assert sleeps == []


def test_minted_items_are_stored_before_being_returned(database_setting):
    minter = make_minter(database_setting, lambda: Decimal("1287588115.3462"), [].append)
    items = minter.mint_many(3, MintRequest(title="A title", target_url="https://example.org/x"), actor=TESTER)
    stored = minter.store.minted_items()
    assert [s.ibip for s in stored] == [i.ibip for i in items]
    assert stored[0].title == "A title" and stored[0].target_url == "https://example.org/x"


def test_requests_arriving_together_queue_for_their_slots(new_database):
    sleeps: list[float] = []
    # Three requests at the same instant (as from three workers): each reserves the next
    # one-second slot and waits for it (Algorithm 4 line 7), the third twice as long.
    minter = make_minter(new_database(), lambda: Decimal("1287588115.3462"), sleeps.append)
    dates = [minter.mint(actor=TESTER).date for _ in range(3)]
    assert dates == [Decimal(1287588115), Decimal(1287588116), Decimal(1287588117)]
    assert sleeps == [0.6538, 1.6538]


class FakeClock:
    """A clock that sleeping moves forward, like the real one."""

    def __init__(self, start: str):
        self.now = Decimal(start)
        self.sleeps: list[float] = []

    def __call__(self) -> Decimal:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += Decimal(str(seconds))


def test_clock_set_back_an_hour_still_gives_later_dates_without_hanging(database_setting):
    clock = FakeClock("1700000000.5")
    minter = make_minter(database_setting, clock, clock.sleep, granularity="0.01")
    first = [minter.mint(actor=TESTER) for _ in range(3)][-1]
    clock.now -= 3600
    # A restart after the step: the offset is persisted, not kept in the process.
    restarted = make_minter(database_setting, clock, clock.sleep, granularity="0.01")
    later = [restarted.mint(actor=TESTER) for _ in range(50)]
    dates = [first.date] + [item.date for item in later]
    assert dates == sorted(set(dates))
    # No request waits out the hour. The longest wait is at the turn of a second, where the
    # slots S.01-S.09 are skipped (their IBIp would repeat S.1's), plus one slot.
    assert max(clock.sleeps) <= 0.11


def test_a_restart_continues_after_the_last_date(database_setting):
    clock = lambda: Decimal("1700000000.5")  # noqa: E731
    first = make_minter(database_setting, clock, [].append).mint(actor=TESTER)
    second = make_minter(database_setting, clock, [].append).mint(actor=TESTER)  # a new process: new Storage, same database
    assert second.date > first.date


@pytest.mark.parametrize(
    ("fields", "field", "fragment"),
    [
        ({"target_url": "ftp://example.org/x"}, "target_url", "http"),
        ({"target_url": "example.org"}, "target_url", "absolute"),
        ({"target_url": "http://[abc"}, "target_url", "not a URL"),  # urlsplit raised ValueError: a 500
        ({"title": "x" * 501}, "title", "too long"),
        ({"title": "bad\x07bell"}, "title", "control character"),
        ({"date": "2024-13-01"}, "date", "calendar"),
        ({"date": "yesterday"}, "date", "YYYY"),
        ({"creators": 5}, "creators", "list"),
    ],
)
def test_mint_request_rejects_bad_fields(fields, field, fragment):
    from ibiportal.errors import ParseError

    with pytest.raises(ParseError) as info:
        MintRequest.parse(fields)
    assert info.value.field == field
    assert fragment in info.value.message


def test_api_mint_one(client):
    response = client.post("/api/v1/mint", json={"title": "My report", "target_url": "https://example.org/r"})
    assert response.status_code == 201
    body = response.get_json()
    assert set(body) >= {"rep", "ibip", "utc", "persistent_url"}
    assert parse_ibi(body["rep"]).date == parse_ibi(body["ibip"]).date
    assert body["persistent_url"] == "http://localhost/" + body["ibip"]


def test_api_mint_without_body(client):
    response = client.post("/api/v1/mint")
    assert response.status_code == 201
    assert parse_ibi(response.get_json()["ibip"]).form == "ibip"


@pytest.mark.settings(GRANULARITY="0.01")
def test_api_mint_count_gives_a_list_of_distinct_increasing_identifiers(client):
    response = client.post("/api/v1/mint", json={"count": 5})
    assert response.status_code == 201
    items = response.get_json()
    assert len(items) == 5
    dates = [parse_ibi(i["ibip"]).date for i in items]
    assert dates == sorted(set(dates))


@pytest.mark.parametrize(
    ("body", "field", "position"),
    [
        ('{"count": 101}', "count", None),
        ('{"count": 0}', "count", None),
        ('{"count": "many"}', "count", None),
        ('{"count": "\u00b2"}', "count", None),  # a digit to str.isdigit, not to int()
        ('{"creators": {}}', "creators", None),
        ('{"creators": ["Banon, G.", 7]}', "creators", 2),
        ('{"title": ', "body", 11),
        ("[1, 2]", "body", 1),
        ('{"target_url": "javascript:alert(1)"}', "target_url", 1),
    ],
)
def test_api_mint_bad_input_is_a_400_naming_the_field(client, body, field, position):
    response = client.post("/api/v1/mint", data=body, content_type="application/json")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["field"] == field
    assert error["position"] == position
    assert error["message"]


def test_cli_mint_prints_and_stores(runner, app):
    result = runner.invoke(args=["ibi", "mint", "--count", "2", "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert len(lines) == 2
    with app.app_context():
        from ibiportal.web.context import application

        assert [i.ibip for i in IdentifierStore(application().storage()).minted_items()] == [line["ibip"] for line in lines]


def test_cli_mint_bad_count_exits_non_zero(runner):
    result = runner.invoke(args=["ibi", "mint", "--count", "10001"])
    assert result.exit_code != 0
    assert "count" in result.output


def test_mint_page_shows_result_and_demo_notice(client):
    page = client.get("/mint")
    assert b"demo identification subsystem" in page.data
    response = client.post("/mint", data={"title": "Page item", "count": "1"}, follow_redirects=True)
    assert response.status_code == 200
    assert b"Persistent URL" in response.data


def test_mint_page_shows_error_next_to_field(client):
    response = client.post("/mint", data={"target_url": "gopher://x", "count": "1"})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert 'id="target_url-error"' in html and "http" in html


def test_no_two_dates_share_an_ibip_at_fine_granularity(new_database):
    # r = 0.01 would issue S.01 and later S.1, whose IBIp suffixes are equal (Algorithm 6).
    clock = FakeClock("1700000000.005")
    subsystem = Subsystem("mtc-m18.sid.inpe.br", 80, "150.163.34.243", 800, Decimal("0.01"))
    minter = Minter(IdentifierStore(Storage(new_database())), subsystem, clock, clock.sleep)
    items = [minter.mint(actor=TESTER) for _ in range(250)]
    assert len({item.ibip for item in items}) == 250
    assert all(parse_ibi(item.ibip).date == item.date for item in items)
    assert not any(split_date(item.date)[1].startswith("0") for item in items)


# --- The Mint page's form and result cards -------------------------------------------

FIELD_ERROR = re.compile(r'<div class="error" id="([^"]+)-error"><p>(.*?)</p>')
QR_IMG = re.compile(r'<img src="data:image/svg\+xml;base64,([^"]+)" alt="QR code of ([^"]+)"')


def field_errors(html: str) -> dict[str, str]:
    """Each field's error as its text reads (the code it quotes marked ``<code>`` on the page)."""
    return {name: html_lib.unescape(re.sub(r"<[^>]+>", "", message)) for name, message in FIELD_ERROR.findall(html)}


def test_mint_page_needs_the_csrf_token(tmp_path):
    """CSRF on (as in production): a POST without the token is refused with a message; with it, minted."""
    app = create_app({"DATABASE": fresh_sqlite(tmp_path / "csrf.sqlite"), "SECRET_KEY": "k", "SESSION_COOKIE_SECURE": False})
    client = app.test_client()
    refused = client.post("/mint", data={"title": "No token"})
    assert refused.status_code == 400
    assert "The CSRF token is missing." in refused.get_data(as_text=True)
    form = client.get("/mint").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', form).group(1)
    minted = client.post("/mint", data={"csrf_token": token, "title": "With token", "count": "1"}, follow_redirects=True)
    assert minted.status_code == 200 and "Minted 1 identifier" in minted.get_data(as_text=True)
    with app.app_context():
        from ibiportal.web.context import application

        assert [item.title for item in IdentifierStore(application().storage()).minted_items()] == ["With token"]


def test_mint_card_has_both_forms_copy_buttons_qr_code_and_citations(client):
    response = client.post(
        "/mint",
        data={
            "title": "Interoperability report",
            "creators": "Banon, Gerald Jean Francis\nDoe, Jane",
            "date": "2009-02-16",
            "language": "en",
            "target_url": "https://example.org/report.pdf",
            "count": "1",
        },
        follow_redirects=True,
    )
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    rep = re.search(r"<dt>Repository name</dt>\s*<dd><code>([^<]+)</code>", html).group(1)
    ibip = re.search(r"<dt>IBIp</dt>\s*<dd><code>([^<]+)</code>", html).group(1)
    assert parse_ibi(rep).date == parse_ibi(ibip).date
    url = "http://localhost/" + ibip
    for text in (rep, ibip, url):
        assert f'data-copy="{text}"' in html
    assert f'<a href="{url}">{url}</a>' in html
    # The QR code is segno's SVG of exactly that URL.
    encoded, alt = QR_IMG.search(html).groups()
    assert alt == url and base64.b64decode(encoded) == qr_svg(url)
    assert f'href="/mint/qr.svg?url={url}" download' in html
    # Citations: formatted text and exports, each carrying the persistent URL and a copy button.
    assert "Banon, G. J. F., &amp; Doe, J. (2009). <i>Interoperability report" in html
    assert "BANON, G. J. F.; DOE, J. <b>Interoperability report" in html
    assert html.count(url) >= 6
    for label in ("Copy APA", "Copy ABNT", "Copy IEEE", "Copy BibTeX", "Copy RIS"):
        assert f">{label}</button>" in html
    assert "@misc{" in html and "TY  - " in html
    assert "<details class=\"citations\" open>" in html  # one item: shown at once


def test_qr_download_is_the_svg_of_a_persistent_url_of_this_portal(client):
    url = "http://localhost/8JMKD3MGP8W/34PGRBS"
    response = client.get("/mint/qr.svg", query_string={"url": url})
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert response.headers["Content-Disposition"] == 'attachment; filename="qr-8JMKD3MGP8W-34PGRBS.svg"'
    assert response.data == qr_svg(url)
    svg = response.data.decode()
    assert "<svg " in svg and 'viewBox="0 0 ' in svg and "style=" not in svg and "<script" not in svg
    size = segno.make(url, error="m", micro=False).symbol_size(scale=8)
    assert f'viewBox="0 0 {size[0]} {size[1]}"' in svg


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("http://urlib.net/8JMKD3MGP8W/34PGRBS", "only persistent URLs on this portal"),
        ("http://localhost/8JMKD3MGP8W/34PGRBO", "IBIp alphabet"),
        (None, "required"),
    ],
)
def test_qr_download_refuses_other_text(client, url, fragment):
    response = client.get("/mint/qr.svg", query_string={"url": url} if url else {})
    assert response.status_code == 400
    assert fragment in response.get_data(as_text=True)


@pytest.mark.settings(GRANULARITY="0.01")
def test_minting_several_gives_one_compact_card_each(client):
    html = client.post("/mint", data={"title": "Batch", "count": "3"}, follow_redirects=True).get_data(as_text=True)
    assert "Minted 3 identifiers" in html
    assert html.count('<article class="minted card compact"') == 3
    assert len(set(QR_IMG.findall(html))) == 3
    assert '<details class="citations">' in html  # closed when there are several


def test_every_field_error_is_shown_next_to_its_field_at_once(client):
    response = client.post(
        "/mint",
        data={"date": "2024-02-30", "language": "english", "target_url": "ftp://example.org/x", "count": "0"},
    )
    assert response.status_code == 400
    errors = field_errors(response.get_data(as_text=True))
    assert set(errors) == {"date", "language", "target_url", "count"}
    assert "calendar date" in errors["date"] and "http" in errors["target_url"]
    assert "english" in errors["language"] and "between 1 and 100" in errors["count"]


@pytest.mark.parametrize("data", [
    {"title": "Relatório", "creators": "Banon, G.", "date": "2024", "language": "pt", "target_url": "https://example.org/r",
     "item_type": "report", "publisher": "INPE", "place": "São José dos Campos", "extent": "39", "report_number": "NTC",
     "count": "1"},
    {"date": "2024-02-30", "language": "english", "target_url": "ftp://example.org/x", "degree": "D", "count": "0"},
])
def test_a_mint_post_reads_the_request_once(client, monkeypatch, data):
    """Every field is read by one MintRequest.parse, valid or not: no field is read again to show its error."""
    reads = []
    parse = MintRequest.parse.__func__
    monkeypatch.setattr(MintRequest, "parse", classmethod(lambda cls, fields: reads.append(fields) or parse(cls, fields)))
    response = client.post("/mint", data=data)
    assert response.status_code == (303 if data["count"] == "1" else 400)
    assert len(reads) == 1


def test_the_api_answers_every_field_error_at_once(client):
    body = {"count": 0, "title": "x" * 501, "date": "2024-02-30", "language": "english", "target_url": "ftp://x"}
    response = client.post("/api/v1/mint", json=body)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert (error["field"], error["message"]) == ("count", error["errors"][0]["message"])  # the first, as before
    assert [each["field"] for each in error["errors"]] == ["count", "title", "target_url", "date", "language"]
    assert error["errors"][1]["position"] == 501


def test_next_edition_and_translation_links(client):
    first = re.search(r"<dt>IBIp</dt>\s*<dd><code>([^<]+)</code>", client.post("/mint", data={"title": "v1"}, follow_redirects=True).get_data(as_text=True)).group(1)
    edition = client.post("/mint", data={"title": "v2", "previous_edition": first}, follow_redirects=True)
    assert edition.status_code == 200
    assert f"<dt>Next edition of</dt><dd><code>{first}</code></dd>" in edition.get_data(as_text=True)
    again = client.post("/mint", data={"title": "v2 again", "previous_edition": first})
    assert again.status_code == 400 and "already has a next edition" in field_errors(again.get_data(as_text=True))["previous_edition"]
    no_language = client.post("/mint", data={"translation_of": first})
    assert no_language.status_code == 400 and "needs its language" in field_errors(no_language.get_data(as_text=True))["language"]
    translated = client.post("/mint", data={"translation_of": first, "language": "pt-BR"}, follow_redirects=True)
    assert f"<dt>Translation of</dt><dd><code>{first}</code></dd>" in translated.get_data(as_text=True)
    several = client.post("/mint", data={"previous_edition": first, "count": "2"})
    assert several.status_code == 400 and "one identifier at a time" in field_errors(several.get_data(as_text=True))["count"]
    unknown = client.post("/mint", data={"previous_edition": "8JMKD3MGP8W/34PGRBS"})
    assert "not an item of this portal" in field_errors(unknown.get_data(as_text=True))["previous_edition"]
    bad = client.post("/mint", data={"previous_edition": "8JMKD3MGP8W/34PGRBO"})
    assert "IBIp alphabet" in field_errors(bad.get_data(as_text=True))["previous_edition"]


def test_api_mint_echoes_what_was_given(client):
    body = client.post(
        "/api/v1/mint", json={"title": "T", "creators": ["Doe, Jane"], "date": "2024-05", "language": "pt-BR"}
    ).get_json()
    assert (body["title"], body["creators"], body["date"], body["language"]) == ("T", ["Doe, Jane"], "2024-05", "pt-BR")


# --- Post/Redirect/Get ------------------------------------------------------------------------

def test_minting_redirects_to_its_result_and_reloading_never_mints_again(app, client):
    response = client.post("/mint", data={"title": "Once", "count": "1"})
    assert response.status_code == 303
    location = response.headers["Location"]
    assert re.fullmatch(r"/mint/result/[A-Za-z0-9_-]+", location)
    first, reload = client.get(location), client.get(location)
    assert first.status_code == reload.status_code == 200
    assert "Minted 1 identifier" in reload.get_data(as_text=True)
    with app.app_context():
        from ibiportal.web.context import application

        assert [item.title for item in IdentifierStore(application().storage()).minted_items()] == ["Once"]


def test_mint_more_starts_empty(client):
    html = client.post("/mint", data={"title": "Filled in", "creators": "Banon, Gerald", "count": "1"},
                       follow_redirects=True).get_data(as_text=True)
    form = html[html.index('<form method="post" action="/mint"'):]
    assert "Mint more" in html
    assert 'value="Filled in"' not in form and "Banon, Gerald</textarea>" not in form


def test_only_the_minting_session_sees_the_result(app, client):
    location = client.post("/mint", data={"title": "Mine", "count": "1"}).headers["Location"]
    stranger = app.test_client()
    response = stranger.get(location)
    assert response.status_code == 404
    assert "only in the browser session that minted it" in response.get_data(as_text=True)
    assert "Mine" not in response.get_data(as_text=True)


# --- Forms people fill in: dates as written in Brazil, labels in messages, notes -------------

@pytest.mark.parametrize("written, stored", [
    ("2023", "2023"), ("2023-11", "2023-11"), ("2023-11-30", "2023-11-30"),
    ("30/11/2023", "2023-11-30"), ("1/2/2023", "2023-02-01"), ("11/2023", "2023-11"), ("3/2023", "2023-03"),
])
def test_item_dates_are_read_as_people_write_them_and_kept_in_iso_8601(written, stored):
    assert MintRequest.parse({"date": written}).item_date == stored


@pytest.mark.parametrize("written, words", [
    ("31/02/2023", "not a calendar date"), ("13/2023", "not a calendar date"), ("2023-13", "not a calendar date"),
    ("30-11-2023", "must be YYYY, YYYY-MM, YYYY-MM-DD, DD/MM/YYYY or MM/YYYY"), ("2023-1", "must be YYYY"),
])
def test_dates_that_are_not_dates_say_why(written, words):
    with pytest.raises(ParseError) as caught:
        MintRequest.parse({"date": written})
    assert words in caught.value.message and caught.value.field == "date"


def test_the_page_shows_the_date_normalised_and_the_reading_of_a_comma_less_creator(client):
    html = client.post("/mint", data={"title": "Relatório", "date": "30/11/2023", "creators": "Maria da Silva\nBanon, Gerald",
                                      "count": "1"}, follow_redirects=True).get_data(as_text=True)
    assert '<dt>Date of the item</dt><dd><time datetime="2023-11-30">30 Nov 2023</time></dd>' in html
    notes = re.findall(r'<p class="notice creator-note" role="note">([^<]+)</p>', html)
    assert len(notes) == 1 and html_lib.unescape(notes[0]).startswith(
        "“Maria da Silva” has no comma, so it was read as family name “Silva”, given names “Maria da”")


def test_the_api_stores_the_normalised_date(client):
    assert client.post("/api/v1/mint", json={"date": "11/2023"}).get_json()["date"] == "2023-11"


def test_errors_use_the_labels_people_see_and_are_announced(client):
    response = client.post("/mint", data={"target_url": "https://example.org/a b", "date": "30-11-2023"})
    errors = field_errors(response.get_data(as_text=True))
    assert errors["target_url"].startswith("Target URL contains a space")
    assert errors["date"].startswith("Date of the item '30-11-2023' must be")
    assert re.search(r'<p class="error error-summary" role="alert">Nothing was minted: correct these fields:\s*Date of the item, Target URL\.</p>',
                     response.get_data(as_text=True))


# --- Shareable pages: the item page, one source for citations --------------------------------

THESIS_FIELDS = {
    "title": "Modelagem de fluxos", "creators": "Silva, Maria da\nLeite Filho, Waldir de Carvalho",
    "date": "2020", "item_type": "doctoral thesis", "extent": "182 p.", "publisher": "INPE",
    "place": "São José dos Campos", "degree": "Doutorado em Computação Aplicada",
    "target_url": "https://example.org/thesis.pdf", "count": "1",
}


def test_the_mint_result_cites_as_cite_does_and_links_the_public_item_page(app, client):
    html = client.post("/mint", data=THESIS_FIELDS, follow_redirects=True).get_data(as_text=True)
    ibip = re.search(r"<dt>IBIp</dt>\s*<dd><code>([^<]+)</code>", html).group(1)
    cited = client.get("/api/v1/cite", query_string={"ibi": ibip}).get_json()["citations"]
    assert "pages = {182}" in cited["bibtex"]
    # The card shows exactly Cite's BibTeX, RIS and formatted texts (escaped as the page escapes them).
    from markupsafe import escape
    for text in (cited["bibtex"], cited["ris"], *cited["formatted_html"].values()):
        assert str(escape(text)) in html or text in html
    for extension in ("bib", "ris", "json"):
        assert f'href="/cite.{extension}?ibi={ibip}" download' in html
    page_url = f"http://localhost/archive/items/{ibip}"
    assert f'<a class="item-page" href="{page_url}">' in html
    # Anyone opens the item page (no session), with both forms labelled, the URL, Cite and downloads.
    stranger = app.test_client()
    page = stranger.get(f"/archive/items/{ibip}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert re.search(r"<dt>Repository name</dt><dd><code>[^<]+</code>", text)
    assert f"<dt>IBIp</dt><dd><code>{ibip}</code>" in text
    assert f'href="http://localhost/{ibip}"' in text and f'href="/cite?ibi={ibip}"' in text
    assert f'href="/cite.bib?ibi={ibip}" download' in text
    download = stranger.get(f"/cite.bib?ibi={ibip}")
    assert download.status_code == 200 and download.get_data(as_text=True) == cited["bibtex"]
