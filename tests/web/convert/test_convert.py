"""Converting through the JSON API, the CLI and the Convert page with its anatomy and prefix table."""
from __future__ import annotations

import json
import re

import pytest

from ibiportal import create_app
from ibiportal.ibi.conversion import convert
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import PAIR_CONFIRMED, IdentifierStore, decision_source
from ibiportal.web.convert.anatomy import anatomy
from tests.servers import fresh_sqlite
from tests.admin_session import log_in_as


def test_api_convert_every_seed_pair_both_ways(client, vectors):
    for pair in vectors["same_item_both_forms"]:
        from_rep = client.get("/api/v1/convert", query_string={"ibi": pair["rep"]}).get_json()
        assert from_rep["form"] == "rep"
        assert from_rep["ibip"] == pair["ibip"], pair["source"]
        from_ibip = client.get("/api/v1/convert", query_string={"ibi": pair["ibip"]}).get_json()
        assert from_ibip["form"] == "ibip"
        # The suffix is exact; the prefix comes from the table, which may prefer another
        # spelling of the same subsystem (sid.inpe.br/mtc-m18 for sid.inpe.br/mtc-m18@80).
        assert from_ibip["suffix"]["rep"] == pair["rep"].split("/", 2)[2], pair["source"]
        assert from_ibip["prefix"]["source"] == "table"
        if "utc" in pair:
            assert from_rep["utc"] == from_ibip["utc"] == pair["utc"]


def test_api_convert_shape(client):
    body = client.get("/api/v1/convert?ibi=8JMKD3MGP8W/34PGRBS").get_json()
    assert set(body) == {"input", "form", "rep", "ibip", "prefix", "suffix", "utc", "warnings", "notes"}
    assert set(body["prefix"]) == {"rep", "ibip", "host", "ip", "port", "source", "reference"}
    assert body["prefix"]["ip"] == "150.163.34.243" and body["prefix"]["port"] == 800


def test_api_convert_unknown_prefix_says_so(client):
    body = client.get("/api/v1/convert?ibi=dpi.inpe.br/banon/1999/01.09.22.14").get_json()
    assert body["ibip"] is None and body["prefix"]["ibip"] is None
    assert body["suffix"]["ibip"]  # the suffix is always exact
    assert any("unknown" in w for w in body["warnings"])


def test_api_convert_with_user_supplied_ip(client):
    body = client.get(
        "/api/v1/convert", query_string={"ibi": "dpi.inpe.br/banon/1999/01.09.22.14", "ip": "150.163.2.174"}
    ).get_json()
    assert body["prefix"]["ibip"] == "J8LNKAN8PW"
    assert body["prefix"]["source"] == "user"
    assert body["warnings"]


@pytest.mark.parametrize(
    ("query", "field", "position", "fragment"),
    [
        ({"ibi": ""}, None, None, "empty"),
        ({"ibi": "8JMKD3MGP8W/34PGRBV"}, "suffix", 19, "'V'"),
        ({"ibi": "8JMKD3MGP8W"}, None, None, "/"),
        ({"ibi": "sid.inpe.br/mtc-m18/2009/13.16.17.46"}, "suffix", 26, "month 13"),
        ({"ibi": "sid.inpe.br/mtc-m18/2009/02.30.17.46"}, "suffix", None, "30"),
        ({"ibi": "sid.inpe.br/mtc-m18/1995/07.31.23.59"}, "suffix", 21, "no IBIp form"),
        ({"ibi": "8JMKD3MGP8W/34PGRBS", "host": "mtc-m18.sid.inpe.br", "port": "99999"}, "port", None, "99999"),
        ({"ibi": "sid.inpe.br/mtc-m18/2009/02.16.17.46", "ip": "300.1.2.3"}, "ip", None, "300.1.2.3"),
        ({"ibi": "sid.inpe.br/mtc-m18/2009/02.16.17.46", "ip": "10.0.0.1", "port": "abc"}, "port", 1, "number"),
        ({"ibi": "x" * 300}, None, None, "long"),
    ],
)
def test_api_convert_bad_input_is_a_400_saying_what_and_where(client, query, field, position, fragment):
    response = client.get("/api/v1/convert", query_string=query)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert fragment in error["message"]
    if field is not None:
        assert error["field"] == field
    if position is not None:
        assert error["position"] == position


def test_cli_convert_arguments_and_stdin(runner):
    result = runner.invoke(args=["ibi", "convert", "--json", "8JMKD3MGP8W/34PGRBS"])
    assert result.exit_code == 0
    assert json.loads(result.output)["rep"].endswith("/2009/02.16.17.46")
    result = runner.invoke(args=["ibi", "convert"], input="LK47B6W/362SFKH\n\niconet.com.br/banon/2009/09.09.22.01\n")
    assert result.exit_code == 0
    assert "iconet.com.br/banon/2009/09.09.22.01" in result.output and "LK47B6W/362SFKH" in result.output


def test_cli_convert_bad_input_exits_non_zero_but_converts_the_rest(runner):
    result = runner.invoke(args=["ibi", "convert", "8JMKD3MGP8W/34PGRBS", "8JMKD3MGP8W/0"])
    assert result.exit_code == 1
    assert "error: 8JMKD3MGP8W/0" in result.output and "'0'" in result.output
    assert "sid.inpe.br/mtc-m18" in result.output


def test_convert_page(client):
    page = client.get("/convert?ibi=8JMKD3MGP8W/34PGRBS")
    assert page.status_code == 200
    assert b"150.163.34.243" in page.data and b"2009-02-16T17:46:00Z" in page.data


def test_convert_page_shows_error_next_to_the_field(client):
    page = client.get("/convert?ibi=8JMKD3MGP8W/34PGRBV")
    assert page.status_code == 400
    html = page.get_data(as_text=True)
    assert 'id="ibi-error"' in html and "character 19" in html


def test_unknown_api_route_is_json_404(client):
    response = client.get("/api/v1/nothing")
    assert response.status_code == 404
    assert response.get_json()["error"]["message"]


def test_cli_prefix_pair_extends_the_table(runner, client):
    before = client.get("/api/v1/convert?ibi=dpi.inpe.br/banon/1999/01.09.22.14").get_json()
    assert before["ibip"] is None
    added = runner.invoke(args=["ibi", "prefix-pair", "dpi.inpe.br/banon", "J8LNKAN8PW"])
    assert added.exit_code == 0, added.output
    listed = runner.invoke(args=["ibi", "prefix-pair"])
    assert "dpi.inpe.br/banon\tJ8LNKAN8PW" in listed.output
    after = client.get("/api/v1/convert?ibi=dpi.inpe.br/banon/1999/01.09.22.14").get_json()
    assert after["ibip"] == "J8LNKAN8PW/9HFNHE" and after["prefix"]["source"] == "table"
    back = client.get("/api/v1/convert?ibi=J8LNKAN8PW/9HFNHE").get_json()
    assert back["rep"] == "dpi.inpe.br/banon/1999/01.09.22.14"


def test_cli_prefix_pair_rejects_a_bad_prefix(runner):
    result = runner.invoke(args=["ibi", "prefix-pair", "dpi.inpe.br/banon", "J8LNKAN8P0"])
    assert result.exit_code != 0 and "ibip_prefix" in result.output


# -- the page: anatomy, warnings, cross-links ---------------------------------------

REP = "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"
IBIP = "8JMKD3MGP8W/34PGRBS"


def pieces(cell) -> list[tuple[str, str]]:
    return [(piece.text, piece.name) for piece in cell.pieces]


def test_anatomy_pairs_each_piece_with_its_counterpart():
    server, port, date = anatomy(convert(REP)).rows
    assert pieces(server.rep) == [("sid.inpe.br", "subdomain"), ("mtc-m18", "word")]
    assert pieces(server.ibip) == [("8JMKD3MGP8", "coded IP"), ("W", "IPv4 marker")]
    assert (server.rep.meaning, server.ibip.meaning) == ("host mtc-m18.sid.inpe.br", "IP 150.163.34.243")
    assert pieces(port.rep) == [("@80", "port")] and pieces(port.ibip) == []
    assert (port.rep.meaning, port.ibip.meaning) == ("port 80", "port 800")
    assert pieces(date.rep) == [("2009", "year"), ("02.16.17.46", "month.day.hour.minute")]
    assert pieces(date.ibip) == [("34PGRBS", "coded seconds")]
    assert date.rep.meaning == date.ibip.meaning == "2009-02-16T17:46:00Z"
    assert "427,571,160 seconds after 1995-08-01T00:00:00Z (Unix time 1234806360)" in date.ibip.note
    assert date.link == "the same instant, exactly"


def test_anatomy_strips_rebuild_both_identifiers():
    drawn = anatomy(convert(REP))
    assert "".join(piece.text for piece in drawn.rep) == REP
    assert "".join(piece.text for piece in drawn.ibip) == IBIP


def test_anatomy_of_a_port_and_a_fraction():
    # Port 1912 written with the legacy '@'; a fraction of a second becomes W + base 27 (Algorithm 6).
    server, port, date = anatomy(convert("sid.inpe.br/iris@1912/2005/07.20.00.37.33", ip="150.163.2.174", port=1912)).rows
    assert pieces(port.rep) == [("@1912", "port")] and "before August 2010" in port.rep.note
    assert port.ibip.meaning == "port 1912" and [p.name for p in port.ibip.pieces] == ["coded port"]
    assert server.link == "computed from what you gave, not checked"
    assert pieces(date.rep)[1] == ("07.20.00.37.33", "month.day.hour.minute.second")
    _, _, fraction = anatomy(convert("sid.inpe.br/mtc-m18/2010/10.20.15.21.55.3462")).rows
    assert [p.name for p in fraction.ibip.pieces] == ["coded seconds", "fraction marker", "coded fraction"]
    assert fraction.rep.meaning == fraction.ibip.meaning == "2010-10-20T15:21:55.3462Z"


def test_anatomy_says_when_the_suffix_does_not_survive():
    _, _, date = anatomy(convert("sid.inpe.br/mtc-m18/2010/10.20.15.21.55.05")).rows
    assert date.link == "not the same instant: see the warning"
    assert (date.rep.meaning, date.ibip.meaning) == ("2010-10-20T15:21:55.05Z", "2010-10-20T15:21:55.5Z")


def test_anatomy_of_an_unknown_prefix():
    drawn = anatomy(convert("J8LNKAN8PW/9HFNHE"))
    server, port, _ = drawn.rows
    assert server.rep.pieces == () and server.rep.meaning is None and port.rep.meaning is None
    assert server.ibip.meaning == "IP 150.163.2.174"
    assert server.link == "no known pair: the other prefix is unknown"
    assert "".join(piece.text for piece in drawn.rep) == "(unknown prefix)/1999/01.09.22.14"


def test_convert_page_draws_the_anatomy_with_copy_buttons_and_links(client):
    html = client.get("/convert", query_string={"ibi": REP}).get_data(as_text=True)
    assert '<span class="piece piece-port">@80</span>' in html
    assert f'data-copy="{IBIP}"' in html and f'data-copy="{REP}"' in html
    assert f'href="/compose?ibi={IBIP}"' in html and f'href="/cite?ibi={IBIP}"' in html
    assert f'href="/{IBIP}"' in html
    assert "style=" not in html and "<script>" not in html  # the CSP allows neither


def test_convert_page_explains_an_unknown_prefix(client):
    html = client.get("/convert?ibi=dpi.inpe.br/banon/1999/01.09.22.14").get_data(as_text=True)
    assert "prefix unknown: no known IBIp prefix for dpi.inpe.br/banon" in html
    assert "neither follows from the other" in html and 'href="/convert/prefixes"' in html
    assert 'href="/compose?ibi=dpi.inpe.br/banon/1999/01.09.22.14"' in html  # no IBIp: the name itself


# -- the prefix table ------------------------------------------------------------------------


def log_in(client) -> None:
    log_in_as(client, "ada")


def stored_pairs(app) -> list[tuple[str, str]]:
    storage = Storage(app.config["DATABASE"])
    try:
        return IdentifierStore(storage).prefix_pairs()
    finally:
        storage.close()


def test_prefix_table_lists_the_standards_pairs_and_added_ones(app, client, runner):
    runner.invoke(args=["ibi", "prefix-pair", "dpi.inpe.br/banon", "J8LNKAN8PW"])
    html = client.get("/convert/prefixes").get_data(as_text=True)
    assert f"{len(KNOWN_PREFIX_PAIRS) + 1} known prefix pairs" in html
    assert "<td><code>iconet.com.br/banon</code></td>" in html and "127.0.0.1, <span" in html
    assert '<td class="source"><span>administrator' in html and "banon.dpi.inpe.br" in html  # the portal's words
    # Each real server's pair shows its published reference and the item printed in both forms.
    assert "TATHU - Software para rastreio" in html
    assert "<code>sid.inpe.br/mtc-m21d/2022/07.20.15.45</code> = <code>8JMKD3MGP3W34T/47AF772</code>" in html
    assert 'name="rep_prefix"' not in html  # no form for visitors
    assert 'href="/admin/login?next=/convert/prefixes"' in html


def test_adding_a_pair_needs_an_administrator(app, client):
    response = client.post("/convert/prefixes", data={"rep_prefix": "dpi.inpe.br/banon", "ibip_prefix": "J8LNKAN8PW"})
    assert response.status_code == 302 and response.headers["Location"].startswith("/admin/login?next=")
    assert stored_pairs(app) == []


def test_administrator_adds_a_pair_and_conversion_uses_it(app, client):
    log_in(client)
    assert 'name="rep_prefix"' in client.get("/convert/prefixes").get_data(as_text=True)
    response = client.post("/convert/prefixes", data={"rep_prefix": "DPI.inpe.br/banon", "ibip_prefix": "j8lnkan8pw"})
    assert response.status_code == 302 and response.headers["Location"] == "/convert/prefixes"
    assert stored_pairs(app) == [("dpi.inpe.br/banon", "J8LNKAN8PW")]  # normalized, as the CLI does
    html = client.get("/convert/prefixes").get_data(as_text=True)
    assert "Added dpi.inpe.br/banon = J8LNKAN8PW." in html and "administrator ada" in html
    converted = client.get("/api/v1/convert?ibi=J8LNKAN8PW/9HFNHE").get_json()
    assert converted["rep"] == "dpi.inpe.br/banon/1999/01.09.22.14"
    again = client.post("/convert/prefixes", data={"rep_prefix": "dpi.inpe.br/banon", "ibip_prefix": "J8LNKAN8PW"})
    assert "already in the table" in client.get(again.headers["Location"]).get_data(as_text=True)
    assert len(stored_pairs(app)) == 1
    # the source is stored in English, and shown in the reader's language wherever it is named
    portuguese = client.get("/convert?ibi=J8LNKAN8PW/9HFNHE", headers={"Accept-Language": "pt-BR"}).get_data(as_text=True)
    assert "fonte: <span>administrador ada</span>" in portuguese
    assert "<span>administrador ada</span>" in client.get("/convert/prefixes", headers={"Accept-Language": "pt-BR"}).get_data(as_text=True)


def test_a_pair_source_the_portal_did_not_write_stays_as_stored(app):
    storage = Storage(app.config["DATABASE"])
    store = IdentifierStore(storage)
    store.add_prefix_pair("dpi.inpe.br/banon", "J8LNKAN8PW", "a note typed by hand")
    store.learn_prefix_pair("dpi.inpe.br/x", "J8LNKAN8PX", "library", "ibi {rep dpi.inpe.br/x/1 ibip J8LNKAN8PX/1}")
    store.learn_prefix_pair("dpi.inpe.br/y", "J8LNKAN8PY", "library", "ibi {rep dpi.inpe.br/y/1 ibip J8LNKAN8PY/1}")
    store.decide_prefix_pair("dpi.inpe.br/y", "J8LNKAN8PY", PAIR_CONFIRMED, decision_source(PAIR_CONFIRMED, "ada"))
    typed, learnt, decided = (record.source for record in store.prefix_pair_records())
    storage.close()
    assert type(typed) is str and typed == "a note typed by hand"
    assert learnt.template.startswith("reported by the Archive %(archive)s on %(date)s")
    assert learnt.values["archive"] == "library" and learnt == learnt.template % dict(learnt.values)
    # a decision on a claim is read back as the decision's message, then the claim's
    assert decided.startswith("confirmed by administrator ada; reported by the Archive library on ")
    assert decided.values["decision"].values == {"name": "ada"}
    assert decided.values["source"].template.startswith("reported by the Archive %(archive)s")


def test_the_result_leads_to_the_other_form(client):
    """Convert's result links the other form to its own conversion (the anatomy read from that side)."""
    html = client.get("/convert?ibi=sid.inpe.br/mtc-m18@80/2009/07.21.14.43").get_data(as_text=True)
    assert 'href="/convert?ibi=8JMKD3MGP8W/35MMLL8">Convert this form</a>' in html
    back = client.get("/convert?ibi=8JMKD3MGP8W/35MMLL8").get_data(as_text=True)
    assert 'href="/convert?ibi=sid.inpe.br/mtc-m18@80/2009/07.21.14.43">Convert this form</a>' in back


@pytest.mark.parametrize(
    ("data", "field", "fragment"),
    [
        ({"rep_prefix": "dpi.inpe.br/banon", "ibip_prefix": "J8LNKAN8P0"}, "ibip_prefix", "(at character 10)"),
        ({"rep_prefix": "dpi.inpe.br/ban_on", "ibip_prefix": "J8LNKAN8PW"}, "rep_prefix", "(at character 16)"),
        ({"rep_prefix": "dpi.inpe.br/banon.99999", "ibip_prefix": "J8LNKAN8PW"}, "rep_prefix", "99999"),
        ({"rep_prefix": "", "ibip_prefix": "J8LNKAN8PW"}, "rep_prefix", "Give the repository-name prefix"),
        ({"rep_prefix": "dpi.inpe.br/banon", "ibip_prefix": ""}, "ibip_prefix", "Give the IBIp prefix"),
    ],
)
def test_a_bad_pair_is_an_error_next_to_its_field_and_nothing_is_added(app, client, data, field, fragment):
    log_in(client)
    response = client.post("/convert/prefixes", data=data)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert f'id="{field}-error"' in html and fragment in html.split(f'id="{field}-error"')[1].split("</div>")[0]
    other = "ibip_prefix" if field == "rep_prefix" else "rep_prefix"
    assert f'id="{other}-error"' not in html
    assert stored_pairs(app) == []


def test_adding_a_pair_needs_the_csrf_token(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "csrf.sqlite"), "SECRET_KEY": "test"})
    client = app.test_client()
    log_in(client)
    data = {"rep_prefix": "dpi.inpe.br/banon", "ibip_prefix": "J8LNKAN8PW"}
    assert client.post("/convert/prefixes", data=data).status_code == 400
    assert stored_pairs(app) == []
    html = client.get("/convert/prefixes").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)
    assert client.post("/convert/prefixes", data={**data, "csrf_token": token}).status_code == 302
    assert stored_pairs(app) == [("dpi.inpe.br/banon", "J8LNKAN8PW")]
