"""Text checked once, at the edge (ibiportal/web/edge.py): lone surrogates, control characters,
over-long values and unbounded JSON are a 400 (413 for size) naming the field and the character,
in the API, the forms and the query strings alike; never a 500, never stored."""
from __future__ import annotations

import json

import pytest

from ibiportal.ibi.batch import MAX_ROWS
from ibiportal.ibi.numerals import encode_base27
from ibiportal.web.identifiers.forms import MAX_LOOKUP_LENGTH
from ibiportal.web.edge import MAX_JSON_BYTES, MAX_JSON_DEPTH, MAX_NUMBER_DIGITS, MAX_TEXT_CHARS

MINT_TEXT_FIELDS = ["title", "publisher", "place", "degree", "report_number", "extent", "target_url"]


def post_json(client, route: str, text: str):
    """The body as a client writes it: ``\\udfff`` is a valid JSON escape."""
    return client.post(route, data=text, content_type="application/json")


def error_of(response) -> dict:
    return response.get_json()["error"]


def test_a_lone_surrogate_in_a_creator_is_refused_and_nothing_is_minted(client):
    response = post_json(client, "/api/v1/mint", '{"creators": ["Silva, M\\udfff"]}')
    assert response.status_code == 400
    assert error_of(response) == {"field": "creators[0]", "position": 9, "message":
                                  "creators[0] holds U+DFFF, half of a surrogate pair, which is not text: "
                                  "send valid Unicode (UTF-8)"}
    minted = client.post("/api/v1/mint", json={"creators": ["Silva, M."]}).get_json()
    assert client.get("/" + minted["ibip"], follow_redirects=True).status_code == 200


@pytest.mark.parametrize("field", MINT_TEXT_FIELDS)
def test_a_lone_surrogate_in_any_mint_field_is_a_400_naming_it(client, field):
    response = post_json(client, "/api/v1/mint", f'{{"{field}": "ab\\ud800"}}')
    assert response.status_code == 400
    assert error_of(response)["field"] == field and error_of(response)["position"] == 3


def test_a_lone_surrogate_in_a_batch_conversion_names_the_entry(client):
    response = post_json(client, "/api/v1/convert/batch", '{"identifiers": ["8JMKD3MGP8W/35MMLL8", "8JMKD3MGP8W/35MMLL8\\ud800"]}')
    assert response.status_code == 400
    assert error_of(response)["field"] == "identifiers[1]" and error_of(response)["position"] == 20


def test_a_surrogate_key_is_refused_too(client):
    response = post_json(client, "/api/v1/mint", '{"\\udc80": 1}')
    assert response.status_code == 400 and error_of(response)["field"] == "body"


@pytest.mark.parametrize(("char", "code"), [("\x00", "0000"), ("\x07", "0007"), ("\n", "000A"), ("\x85", "0085")])
def test_a_control_character_in_a_single_line_field_is_a_400(client, char, code):
    response = client.post("/api/v1/mint", json={"title": "A title" + char})
    assert response.status_code == 400
    assert error_of(response)["field"] == "title" and error_of(response)["position"] == 8
    assert f"control character U+{code}" in error_of(response)["message"]


def test_multi_line_fields_keep_their_line_breaks_and_tabs(client):
    response = client.post("/api/v1/extract", json={"text": "Silva, M. 2009.\r\n\tIBI 8JMKD3MGP8W/35MMLL8\n"})
    assert response.status_code == 200
    refused = client.post("/api/v1/extract", json={"text": "Silva\x1b[31m"})
    assert refused.status_code == 400 and "only tab, CR and LF are" in error_of(refused)["message"]


def test_an_over_long_value_is_a_400_at_the_first_character_too_many(client):
    response = client.post("/api/v1/mint", json={"publisher": "x" * (MAX_TEXT_CHARS + 1)})
    assert response.status_code == 400
    assert error_of(response) == {"field": "publisher", "position": MAX_TEXT_CHARS + 1, "message":
                                  f"publisher is {MAX_TEXT_CHARS + 1} characters long; at most {MAX_TEXT_CHARS} are read"}


def test_deep_nesting_is_a_400_where_it_goes_too_deep(client):
    response = post_json(client, "/api/v1/mint", "[" * 100_000)
    assert response.status_code == 400
    assert error_of(response)["field"] == "body" and error_of(response)["position"] == MAX_JSON_DEPTH + 1
    brackets_in_text = '{"title": "' + "[" * 100 + '"}'  # inside a string, a bracket is text
    assert post_json(client, "/api/v1/mint", brackets_in_text).status_code == 201


@pytest.mark.parametrize("count", ["9" * 5000, '"' + "9" * 5000 + '"', '"' + "9" * 4000 + '"', "1" + "0" * 40])
def test_a_count_of_thousands_of_digits_is_a_400(client, count):
    response = post_json(client, "/api/v1/mint", f'{{"count": {count}}}')
    assert response.status_code == 400
    assert error_of(response)["field"] in ("body", "count")


def test_a_number_of_too_many_digits_anywhere_is_a_400_at_it(client):
    body = '{"title": "x", "extra": [' + "7" * (MAX_NUMBER_DIGITS + 1) + "]}"
    response = post_json(client, "/api/v1/mint", body)
    assert response.status_code == 400 and error_of(response)["position"] == body.index("7") + 1


def test_a_json_body_over_its_size_is_a_413_naming_the_limit(client):
    response = post_json(client, "/api/v1/convert/batch", '{"identifiers": ["' + "A" * MAX_JSON_BYTES + '"]}')
    assert response.status_code == 413 and "at most 1,024 KiB of JSON" in error_of(response)["message"]


@pytest.mark.parametrize(("query", "field", "position"), [
    ("ibi=8JMKD3MGP8W/35MMLL8%00", "ibi", 20), ("ibi=%1B[2J", "ibi", 1), ("host=a%0D%0Ab", "host", 2),
    ("ibi=" + "A" * (MAX_TEXT_CHARS + 1), "ibi", MAX_TEXT_CHARS + 1), ("i%07bi=x", "query", 2)])
def test_query_strings_are_checked_alike(client, query, field, position):
    response = client.get("/api/v1/convert?" + query)
    assert response.status_code == 400
    assert error_of(response)["field"] == field and error_of(response)["position"] == position


def test_a_page_names_the_field_and_character(client):
    page = client.get("/convert?ibi=8JMKD3MGP8W%2F35MMLL8%7F")
    assert page.status_code == 400 and "(at character 20 of <code>ibi</code>)" in page.get_data(as_text=True)


def test_a_form_posted_with_a_control_character_is_a_400_naming_its_field(client):
    page = client.post("/mint", data={"title": "A\x07title"})
    text = page.get_data(as_text=True)
    assert page.status_code == 400 and "control character U+0007" in text and "(at character 2 of <code>title</code>)" in text
    kept = client.post("/mint", data={"creators": "Silva, M.\r\nSouza, J.", "title": "Two creators"})
    assert kept.status_code < 400


def test_a_form_part_without_a_name_is_a_400_naming_the_form(client):
    """A multipart part whose Content-Disposition has no ``name`` (schemathesis made one): once a
    500, since werkzeug keeps it under the name ``None``."""
    boundary = "b0undary"
    body = (f'--{boundary}\r\nContent-Disposition: form-data\r\n\r\nloose\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\n8JMKD3MGP8W/34PGRBS\r\n'
            f"--{boundary}--\r\n")
    response = client.post("/api/v1/extract", data=body.encode(), content_type=f"multipart/form-data; boundary={boundary}")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["field"] == "form" and "has no name" in error["message"]


def test_the_resolve_flag_takes_exactly_the_documented_values(client):
    for value, status in (("", 200), ("1", 200), ("no", 200), ("TRUE", 400), (" 1", 400)):
        response = client.post(f"/api/v1/extract?resolve={value}", json={"text": "nothing here"})
        assert response.status_code == status, value
        if status == 400:
            assert response.get_json()["error"]["field"] == "resolve"


def largest_reference_download() -> dict[str, str]:
    """The largest form "Download CSV" and "Download JSON" post: a list of MAX_ROWS IBIs, each
    checked, its resolution with a redirect, its reason and its trace as the check gives them."""
    ibis = [f"8JMKD3MGP8W/{encode_base27(index + 27 ** 6)}" for index in range(MAX_ROWS)]
    location = "http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m16c/2021/01.01.00.00/doc/a%20thesis%20of%20many%20pages.pdf"
    resolution = {"outcome": "found", "status": 302, "location": location, "reason": f"redirects to {location}",
                  "trace": "http://portal.example.org/api/v1/trace/0123456789abcdef0123456789abcdef", "cache": "miss"}
    return {"text": "\n".join(f"{index}. A reference. IBI: <{ibi}>." for index, ibi in enumerate(ibis)),
            "resolutions": json.dumps([resolution] * MAX_ROWS)}


@pytest.mark.parametrize("extension", ["csv", "json"])
def test_the_largest_reference_list_downloads_with_its_resolutions(client, extension):
    """The resolutions posted back are a field of their own, as long as the list makes them:
    a limit for single-line values once refused them past 4,096 characters (ten references)."""
    form = largest_reference_download()
    assert len(form["resolutions"]) > 100 * MAX_TEXT_CHARS
    response = client.post(f"/references.{extension}", data=form)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    body = response.get_data(as_text=True)
    assert body.count("a%20thesis%20of%20many%20pages.pdf") >= MAX_ROWS


def test_the_largest_batch_download_passes_the_edge(client):
    """Convert's "Download CSV" posts the batch again: MAX_ROWS identifiers, one a line."""
    text = "\n".join(f"8JMKD3MGP8W/{encode_base27(index + 27 ** 6)}" for index in range(MAX_ROWS))
    response = client.post("/convert/batch.csv", data={"download-kind": "lines", "download-text": text})
    assert response.status_code == 200 and response.get_data(as_text=True).count("\r\n") == MAX_ROWS + 1


def test_the_home_box_reads_its_longest_text(client):
    """The home box reads MAX_LOOKUP_LENGTH characters (a persistent URL with a long query)."""
    url = "http://urlib.net/8JMKD3MGP8W/35MMLL8?ibiurl.language=pt-BR&x=" + "y" * MAX_LOOKUP_LENGTH
    url = url[:MAX_LOOKUP_LENGTH]
    response = client.get("/", query_string={"q": url})
    assert response.status_code == 200
    too_long = client.get("/", query_string={"q": url + "y"})
    assert too_long.status_code == 400 and f"{MAX_LOOKUP_LENGTH}" in too_long.get_data(as_text=True).replace(",", "")
