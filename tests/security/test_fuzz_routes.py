"""Route fuzzing: whatever path, query string or JSON body a client sends, every page
and API answers with a status below 500 – bad input is a 4xx with a message (JSON under
/api/), never a stack trace. The parsers behind them are fuzzed in test_fuzz_parsers.py; this
proves the views put every core ParseError where it belongs."""
from __future__ import annotations

import tempfile
from pathlib import Path
from urllib.parse import quote

from hypothesis import given, settings
from hypothesis import strategies as st

from ibiportal import create_app
from tests.servers import fresh_sqlite

MINT_FIELDS = ["title", "creators", "publisher", "place", "degree", "report_number", "extent", "target_url", "date",
               "language", "count", "item_type"]
ROUTES = ["/", "/convert", "/parse", "/compose", "/cite", "/cite.bib", "/cite.ris", "/cite.json", "/trace", "/mint",
          "/mint/qr.svg", "/api/v1/convert", "/api/v1/parse", "/api/v1/compose", "/api/v1/classify", "/api/v1/cite",
          "/J8LNKB5R7W/3FUQHC5", "/8JMKD3MGP8W/35MMLL8", "/8JMKD3MGP8W/35MMLL8!:(oai_dc)", "/archive/items/x",
          "/trace/AAAAAAAAAAAAAAAA", "/convert/prefixes", "/demo/archives/mtc-m16c/col/x", "/oai"]
NAMES = ["q", "ibi", "url", "text", "verbs", "verb", "filepath", "base", "host", "ip", "port", "count", "format",
         "lang", "archives", "original", "require_original", "client_ip", "accept_language", "servicesubject",
         "archiveserviceibi", "registrationkey", "step1-verb", "compare", "next", "identifier", "metadataPrefix", "from",
         "until", "set", "resumptionToken"]
SAMPLES = st.sampled_from(["8JMKD3MGP8W/35MMLL8", "http://urlib.net/8JMKD3MGP8W/35MMLL8!:(oai_dc)", "GetMetadata(oai_dc)",
                           "sid.inpe.br/mtc-m18@80/2009/02.16.17.46", "-1", "99999999999999999999", "live", "demo", "all",
                           "inclusionRequest", "%", "{}", "", "\x00", "ß0/", "\u202e", "\udfff", "Silva, M\ud800",
                           "\t", "\r\n", "\x85", "9" * 5000, "x" * 5000])
VALUES = st.one_of(st.text(max_size=60), SAMPLES)  # lone surrogates (category Cs) included
WIRE_VALUES = VALUES.map(lambda text: text.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
"""What a form can carry: its bytes are UTF-8, so a surrogate arrives as invalid bytes, read as U+FFFD."""
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), VALUES),
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.one_of(st.sampled_from(NAMES), VALUES),
                                                                         inner, max_size=6)),
    max_leaves=40,
)
HOSTILE_JSON = st.one_of(
    st.integers(1, 200_000).map(lambda depth: "[" * depth),
    st.integers(1, 200_000).map(lambda depth: '{"a":' * depth),
    st.tuples(st.sampled_from(["count", "title", "identifiers"]), st.integers(1, 6000), st.booleans()).map(
        lambda spec: f'{{"{spec[0]}": {"%s" if not spec[2] else chr(34) + "%s" + chr(34)}}}' % ("9" * spec[1])),
    st.integers(1, 6000).map(lambda digits: '{"count": 1.' + "5" * digits + "}"),
)

_APP = None


def client():
    """One app for every example (no rate limits, a fine granularity so that mints do not wait)."""
    global _APP
    if _APP is None:
        folder = Path(tempfile.mkdtemp(prefix="ibiportal-fuzz-"))
        _APP = create_app({"TESTING": True, "DATABASE": fresh_sqlite(folder / "fuzz.sqlite"), "SECRET_KEY": "fuzz",
                           "WTF_CSRF_ENABLED": False, "DEMO_ARCHIVES": False, "RATELIMIT_ENABLED": False,
                           "GRANULARITY": "0.000001"})
    return _APP.test_client()


def assert_answered(response) -> None:
    body = response.get_data(as_text=True)
    assert response.status_code < 500, body[:500]
    assert "Traceback" not in body
    if response.request.path.startswith("/api/") and response.status_code >= 400 and response.status_code != 404:
        assert response.get_json()["error"]["message"]


def query_string(pairs: list[tuple[str, str]]) -> str:
    """Percent-encoded UTF-8; a lone surrogate as the bytes a careless client sends for it."""
    def encoded(text: str) -> str:
        return quote(text.encode("utf-8", "surrogatepass"), safe="")

    return "&".join(f"{encoded(name)}={encoded(value)}" for name, value in pairs)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ROUTES), st.lists(st.tuples(st.one_of(st.sampled_from(NAMES), st.text(max_size=8)), VALUES), max_size=4))
def test_any_query_string_on_any_page(route, pairs):
    with client() as http:
        response = http.get(f"{route}?{query_string(pairs)}", environ_base={"REMOTE_ADDR": "172.16.44.200"})
        assert_answered(response)


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=80), st.binary(max_size=40))
def test_any_path_and_raw_query(path, raw_query):
    with client() as http:
        # PATH_INFO and QUERY_STRING as a WSGI server gives them: the bytes, as latin-1 text.
        environ = {"PATH_INFO": "/" + path.encode("utf-8", "surrogatepass").decode("latin-1"), "QUERY_STRING": raw_query.decode("latin-1")}
        response = http.get("/", environ_base={"REMOTE_ADDR": "172.16.44.200"}, environ_overrides=environ)
        assert_answered(response)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["/api/v1/mint", "/api/v1/trace", "/api/v1/convert/batch", "/api/v1/extract"]),
       st.one_of(JSON, st.dictionaries(st.sampled_from(MINT_FIELDS), VALUES, max_size=6), HOSTILE_JSON,
                 st.binary(max_size=60)))
def test_any_json_body_on_the_api(route, body):
    """Whatever the body, a status below 500; and an item it minted shows, stored text and all."""
    with client() as http:
        if isinstance(body, (bytes, str)):
            response = http.post(route, data=body, content_type="application/json")
        else:
            response = http.post(route, json=body)
        assert_answered(response)
        if route == "/api/v1/mint" and response.status_code == 201:
            minted = response.get_json()
            for item in minted if isinstance(minted, list) else [minted]:
                assert_answered(http.get(f"/archive/items/{item['ibip']}"))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["/mint", "/convert", "/trace", "/admin/login"]),
       st.dictionaries(st.sampled_from(NAMES + MINT_FIELDS + ["username", "password"]),
                       WIRE_VALUES, max_size=5))
def test_any_form_post(route, form):
    with client() as http:
        assert_answered(http.post(route, data=form, environ_base={"REMOTE_ADDR": "172.16.44.200"}))


def test_a_raw_byte_that_is_not_utf8_in_the_query_is_a_400_naming_it():
    """Found by the fuzzer: werkzeug cannot read request.args then; it was a 500."""
    with client() as http:
        page = http.get("/", environ_overrides={"QUERY_STRING": "q=8JMKD3MGP8W/\x80"})
        api = http.get("/api/v1/convert", environ_overrides={"QUERY_STRING": "ibi=\xff"})
    assert page.status_code == 400 and "the byte 0x80, which is not UTF-8" in page.get_data(as_text=True)
    assert api.status_code == 400
    assert api.get_json()["error"] == {"message": "the query string has the byte 0xFF, which is not UTF-8: percent-encode it (%FF)",
                                       "position": 5, "field": "query"}
