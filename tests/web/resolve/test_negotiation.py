"""Content negotiation on ``GET /<IBI>``: citations for citation types, the redirect for browsers.

Every offered type answers 200 with the same citation the Cite API gives; q-values decide; a
citation type we do not offer is passed over, and 406 lists what is offered when nothing else
was acceptable; a browser's Accept keeps the redirect.
"""
from __future__ import annotations

import pytest

from ibiportal import create_app
from ibiportal.web.resolve.negotiation import CitationFormat, NotOffered, negotiate, parse_accept
from tests.servers import fresh_sqlite

THESIS = "D7N2U8HW/3UGHFGH"  # demo Archive "library": a doctoral thesis
CHROME = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
FIREFOX = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
SAFARI = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
BIB = "text/x-bibliography"


@pytest.mark.parametrize(
    ("accept", "wanted"),
    [
        (None, None),
        ("", None),
        ("*/*", None),
        (CHROME, None),
        (FIREFOX, None),
        ("application/json", None),
        ("application/x-bibtex", CitationFormat("application/x-bibtex")),
        ("Application/X-BibTeX", CitationFormat("application/x-bibtex")),
        ("application/x-research-info-systems", CitationFormat("application/x-research-info-systems")),
        ("application/vnd.citationstyles.csl+json", CitationFormat("application/vnd.citationstyles.csl+json")),
        (BIB, CitationFormat(BIB, "apa")),
        (f"{BIB}; style=apa", CitationFormat(BIB, "apa")),
        (f"{BIB}; style=abnt", CitationFormat(BIB, "abnt")),
        (f"{BIB}; style=abnt; locale=pt-BR", CitationFormat(BIB, "abnt")),
        (f"{BIB}; style=ieee; locale=en-US", CitationFormat(BIB, "ieee")),
        (f"{BIB}; style=harvard", CitationFormat(BIB, "harvard")),
        (f"{BIB}; style=inpe", CitationFormat(BIB, "inpe")),
        (f'{BIB}; style="inpe"; locale=pt-BR', CitationFormat(BIB, "inpe")),
        (f"{BIB}; style=inpe; locale=en", CitationFormat(BIB, "inpe_en")),
        (f"{BIB}; style=INPE; locale=en-GB", CitationFormat(BIB, "inpe_en")),
        # q-values decide, ties go to the range written first
        ("application/x-bibtex;q=0.5, text/html", None),
        ("text/html;q=0.4, application/x-bibtex", CitationFormat("application/x-bibtex")),
        ("application/x-bibtex, text/html", CitationFormat("application/x-bibtex")),
        ("text/html, application/x-bibtex", None),
        ("application/x-research-info-systems;q=0.9, application/x-bibtex", CitationFormat("application/x-bibtex")),
        ("application/x-bibtex;q=0, text/plain;q=0.1", None),
        ("application/x-bibtex;q=0", None),
        ("application/x-bibtex;q=high, application/x-research-info-systems;q=0.2",
         CitationFormat("application/x-research-info-systems")),
        # a citation type we do not offer is passed over; 406 when nothing else was acceptable
        (f"{BIB}; style=mla", NotOffered()),
        (f"{BIB}; style=apa; locale=pt-BR", NotOffered()),
        (f"{BIB}; style=abnt; locale=en", NotOffered()),
        (f"{BIB}; style=mla, {BIB}; style=ieee;q=0.5", CitationFormat(BIB, "ieee")),
        (f"{BIB}; style=mla, */*;q=0.1", None),
        # any CSL style by name, in a CSL locale (a bare language is its usual region)
        (f"{BIB}; style=chicago-author-date", CitationFormat(BIB, "chicago-author-date", "en-US", csl=True)),
        (f"{BIB}; style=Nature; locale=pt_br", CitationFormat(BIB, "nature", "pt-BR", csl=True)),
        (f"{BIB}; style=elsevier-vancouver; locale=de", CitationFormat(BIB, "elsevier-vancouver", "de-DE", csl=True)),
        (f"{BIB}; style=nature; locale=xx", NotOffered()),
    ],
)
def test_negotiate(accept, wanted):
    assert negotiate(accept) == wanted


def test_accept_ranges_are_ordered_by_quality_then_as_written():
    ranges = parse_accept("a/b;q=0.5, c/d, e/f;q=0.5;x=1, g/h;q=1.5, i/j;q=0")
    assert [(r.media_type, r.quality) for r in ranges] == [("c/d", 1.0), ("a/b", 0.5), ("e/f", 0.5)]
    assert ranges[2].parameters == {"x": "1"}


@pytest.fixture
def client(tmp_path):
    return create_app({
        "TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "n.sqlite"), "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
    }).test_client()


def api_citations(client, ibi: str) -> dict:
    return client.get("/api/v1/cite", query_string={"ibi": ibi}).get_json()["citations"]


@pytest.mark.parametrize(
    ("accept", "content_type", "key"),
    [
        ("application/x-bibtex", "application/x-bibtex; charset=utf-8", "bibtex"),
        ("application/x-research-info-systems", "application/x-research-info-systems; charset=utf-8", "ris"),
        ("application/vnd.citationstyles.csl+json", "application/vnd.citationstyles.csl+json; charset=utf-8", "csl_json"),
        (f"{BIB}; style=apa", f"{BIB}; charset=utf-8", "apa"),
        (f"{BIB}; style=abnt; locale=pt-BR", f"{BIB}; charset=utf-8", "abnt"),
        (f"{BIB}; style=ieee", f"{BIB}; charset=utf-8", "ieee"),
        (f"{BIB}; style=harvard; locale=en", f"{BIB}; charset=utf-8", "harvard"),
        (f"{BIB}; style=inpe; locale=pt-BR", f"{BIB}; charset=utf-8", "inpe"),
        (f"{BIB}; style=inpe; locale=en", f"{BIB}; charset=utf-8", "inpe_en"),
    ],
)
def test_every_type_answers_the_citation_the_cite_api_gives(client, accept, content_type, key):
    response = client.get(f"/{THESIS}", headers={"Accept": accept})
    assert response.status_code == 200
    assert response.headers["Content-Type"] == content_type
    assert response.headers["Vary"] == "Accept" and "Location" not in response.headers
    assert response.headers["X-IBI-Trace"].startswith("http://localhost/api/v1/trace/")
    expected = api_citations(client, THESIS)
    if key == "csl_json":
        assert response.get_json(force=True) == expected["csl_json"]
    elif key in ("bibtex", "ris"):
        assert response.get_data(as_text=True) == expected[key]
    else:
        assert response.get_data(as_text=True) == expected["formatted"][key] + "\n"
        assert response.headers["Content-Language"] == ("pt-BR" if key in ("abnt", "inpe") else "en")
    if key == "bibtex":
        assert response.get_data(as_text=True).startswith("@phdthesis{")
    if key == "inpe":
        assert f"IBI: <{THESIS}>. (ibiportal.test/lab/2019/12.04.15.16-TDI). Tese (Doutorado" in response.get_data(as_text=True)


def test_the_ibi_in_either_form_and_under_ibi_cites_the_url_received(client):
    rep = "ibiportal.test/lab/2019/12.04.15.16"
    for path in (f"/{rep}", f"/ibi/{THESIS}"):
        response = client.get(path, headers={"Accept": f"{BIB}; style=inpe"})
        assert response.status_code == 200
        assert response.get_data(as_text=True).endswith(f"Disponível em: <http://localhost/{path.removeprefix('/ibi/').lstrip('/')}>.\n")


def test_browsers_and_plain_clients_keep_the_redirect(client):
    for accept in (CHROME, FIREFOX, SAFARI, "*/*", None, "application/x-bibtex;q=0.5, text/html"):
        headers = {"Accept": accept} if accept else {}
        response = client.get(f"/{THESIS}", headers=headers)
        assert response.status_code == 302, accept
        assert response.headers["Location"].endswith("/demo/archives/library/col/ibiportal.test/lab/2019/12.04.15.16/doc/publicacao.pdf")
        assert response.headers["Vary"] == "Accept"


def test_406_lists_what_is_offered(client):
    response = client.get(f"/{THESIS}", headers={"Accept": f"{BIB}; style=mla"})
    assert response.status_code == 406
    text = response.get_data(as_text=True)
    for offered in ("application/x-bibtex", "application/x-research-info-systems",
                    "application/vnd.citationstyles.csl+json", f"{BIB}; style=apa|abnt|ieee|harvard|inpe; locale=pt-BR|en"):
        assert offered in text


def test_an_item_that_cannot_be_cited_says_why_with_its_status(client):
    deleted = client.get("/D7N2U8HW/3GBBQK2", headers={"Accept": "application/x-bibtex"})
    assert deleted.status_code == 410
    assert "No oai_dc metadata for D7N2U8HW/3GBBQK2" in deleted.get_data(as_text=True)
    assert deleted.headers["X-IBI-Trace"].startswith("http://localhost/api/v1/trace/")
    unknown = client.get("/D7N2U8HW/3UGHFGJ", headers={"Accept": "application/x-bibtex"})
    assert unknown.status_code == 404


def test_negotiated_citations_count_against_the_citation_limit_and_redirects_do_not(tmp_path):
    client = create_app({
        "TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "l.sqlite"), "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
        "RATELIMIT_TRACE": "2/minute",
    }).test_client()
    asks = [client.get(f"/{THESIS}", headers={"Accept": "application/x-bibtex"}).status_code for _ in range(3)]
    assert asks == [200, 200, 429]
    assert client.get(f"/{THESIS}", headers={"Accept": FIREFOX}).status_code == 302


def test_any_csl_style_by_content_negotiation(client):
    response = client.get(f"/{THESIS}", headers={"Accept": f"{BIB}; style=elsevier-vancouver; locale=pt-BR"})
    assert response.status_code == 200
    assert response.headers["Content-Language"] == "pt-BR"
    assert response.headers["Content-Type"] == f"{BIB}; charset=utf-8"
    assert response.get_data(as_text=True) == (
        "[1] Silva M da. Segmentação hierárquica de imagens de radar: um estudo na Amazônia. "
        "Doutorado em Computação Aplicada. Instituto Nacional de Pesquisas Espaciais (INPE), 2019.\n"
    )
    api = client.get("/api/v1/cite", query_string={"ibi": THESIS, "style": "elsevier-vancouver", "locale": "pt-BR"})
    assert api.get_json()["citations"]["formatted"]["elsevier-vancouver"] + "\n" == response.get_data(as_text=True)


def test_an_unknown_style_is_a_406_naming_the_closest(client):
    response = client.get(f"/{THESIS}", headers={"Accept": f"{BIB}; style=vancouver"})
    assert response.status_code == 406
    text = response.get_data(as_text=True)
    closest = text.split("The CSL styles closest to the one asked for: ")[1].strip().split(", ")
    assert {"elsevier-vancouver", "springer-vancouver", "sage-vancouver"} <= set(closest)
    assert "style=<any CSL style" in text
