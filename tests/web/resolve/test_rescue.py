"""Direct links to an Archive's copy (``/col/<rep>/doc/<file>``, ``/attachment.cgi/…``,
``/archive.cgi/<rep>``), served at the same paths by the portal, are rescued: resolved like the
persistent URL ``/<rep>/<file>`` (STANDARD.md §6), over the demo Archives of file 003 §10."""
from __future__ import annotations

import pytest

from tests.web.resolve.test_resolve_segments import uncached  # noqa: F401 (the module's app without a resolution cache)

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}
ITEM = "sid.inpe.br/mtc-m19/2013/09.04.12.27.57"  # Example 8.9's item, with its file, held by a demo Archive
FILE = "Relat%C3%B3rio%20Final.pdf"
GONE = "sid.inpe.br/mtc-m21b/2017/08.10.22.44"  # a real item (tests/ibi/data/wild_ibis.py) no demo Archive holds


@pytest.mark.parametrize(("link", "persistent"), [
    (f"/col/{ITEM}/doc/{FILE}", f"/{ITEM}/{FILE}"),
    (f"/attachment.cgi/{ITEM}/doc/{FILE}?ibiurl.backgroundlanguage=en", f"/{ITEM}/{FILE}?ibiurl.backgroundlanguage=en"),
    (f"/archive.cgi/{ITEM}", f"/{ITEM}"),
])
def test_a_direct_link_redirects_where_the_persistent_url_does(uncached, link, persistent):
    rescued = uncached.get(link, environ_base=CLIENT)
    plain = uncached.get(persistent, environ_base=CLIENT)
    assert rescued.status_code == plain.status_code == 302
    assert rescued.headers["Location"] == plain.headers["Location"]
    trace = uncached.get(rescued.headers["X-IBI-Trace"].split("localhost", 1)[1]).get_json()
    assert trace["persistent_url"] == "http://localhost" + persistent


def test_an_item_nobody_holds_is_named_with_its_persistent_url(uncached):
    link = f"/col/{GONE}/doc/publicacao.pdf"
    answer = uncached.get(link, environ_base=CLIENT, headers={"Accept": "application/json"})
    assert answer.status_code == 404
    body = answer.get_json()
    assert body["persistent_url"] == f"http://localhost/{GONE}/publicacao.pdf"
    assert body["rescued_from"] == link and body["alert"]["reason"] == "not-found"
    page = uncached.get(link, environ_base=CLIENT, headers={"Accept": "text/html"}).get_data(as_text=True)
    assert f"http://localhost/{GONE}/publicacao.pdf" in page and "direct link to one Archive" in page
    assert "not a persistent URL" not in page


def test_a_malformed_repository_name_in_a_direct_link_says_so(uncached):
    answer = uncached.get("/col/sid.inpe.br/mtc-m21b/2017/13.10.22.44/doc/a.pdf", environ_base=CLIENT,
                          headers={"Accept": "application/json"})
    assert answer.status_code == 404
    message = answer.get_json()["error"]["message"]
    assert "direct link to an Archive's copy" in message and "month 13 out of range" in message
    assert "not a persistent URL" not in message


def test_pasting_a_dead_direct_link_on_the_home_page_says_where_the_item_is_now(uncached):
    dead = f"http://mtc-m16c.sid.inpe.br/col/{ITEM}/doc/{FILE}"  # the host in the link is not where the item is
    now = uncached.get(f"/{ITEM}/{FILE}", environ_base=CLIENT).headers["Location"]
    page = uncached.get("/", query_string={"q": dead}, environ_base=CLIENT).get_data(as_text=True)
    where = page.split('id="where-now-heading"')[1].split("</div>")[0]
    assert "the resolver found the item at" in where and f'href="{now}"' in where
    gone = uncached.get("/", query_string={"q": f"http://mtc-m21b.sid.inpe.br/col/{GONE}/doc/publicacao.pdf"},
                        environ_base=CLIENT).get_data(as_text=True)
    assert "No Archive the resolver asks holds this item now" in gone.split('id="where-now-heading"')[1]


def test_a_persistent_url_on_the_home_page_is_not_resolved(uncached):
    """Only a direct link asks where the item is now: a persistent URL already is the way to it."""
    page = uncached.get("/", query_string={"q": f"http://urlib.net/{ITEM}"}, environ_base=CLIENT).get_data(as_text=True)
    assert "where-now-heading" not in page
