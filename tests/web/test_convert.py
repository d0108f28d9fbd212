"""Converting through the JSON API, the CLI and the page (issue 2)."""
from __future__ import annotations

import json

import pytest


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
    assert set(body) == {"input", "form", "rep", "ibip", "prefix", "suffix", "utc", "warnings"}
    assert set(body["prefix"]) == {"rep", "ibip", "host", "ip", "port", "source"}
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
        ({"ibi": "sid.inpe.br/mtc-m18/1995/07.31.23.59"}, "suffix", None, "1995-08-01"),
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
