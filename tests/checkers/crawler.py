"""A crawl of every link the portal's pages offer, through the app's test client.

From its seeds the crawl fetches every page of the portal that a page links to – ``<a href>``,
``<link href>``, scripts, images, GET forms' actions, redirects – and records what each answered;
a link to another host is recorded with the pages that offer it and never fetched. lxml's
``iterlinks`` (libxml2's HTML parser) finds the links: every attribute HTML defines as a URL
(``href``, ``src``, ``action``, ``formaction``, ``cite``…), ``url()`` in styles and a meta
refresh. A POST form's action is no link (a GET would only meet its 405). What a page may answer
depends on how it was reached (:data:`WORST_ALLOWED`); a page's language switch leads to the page
itself, and is held to what the page was.

Why not LinkChecker, PyPI's well-kept link checker: run as root (CI) it drops to ``nobody``, who
cannot read the pytest folders its cookie file would be in; it waits 0.1–0.6 s between two
requests to one host (a 300-page crawl took 113 s); it follows a redirect to another host, a DNS
look-up from the test machine; and its sessions keep the cookie a language switch sets, so a
crawl in Portuguese turns English halfway. Its link extraction (BeautifulSoup on
``html.parser``) took 0.6 s for the API docs page, where lxml takes 0.04 s.

Each page is crawled in every language asked, as the reader's cookie says it. A language switch
(``?lang=…``, ``/language?lang=…&next=…``) is followed as linked, and what it fetches counts as
that page's visit in the language it asks for: every page is fetched once per language, not once
per language and switch. The cookie is set again before every request, so a switch followed
never turns the rest of the crawl. What is not a page (a download, a script, an image, JSON)
says the same in every language: it is fetched once. Each resolution the crawl sets off keeps a
trace whose page it then visits: fetching a citation's three downloads in a second language only
made three more traces to visit.

Records the crawl makes itself are sampled (``at_most``): every resolution it sets off keeps a
trace, and every trace has a page, a JSON download and links to more forms – 175 traces and 350
trace pages, two thirds of a whole crawl's time, all of one template. Pages whose path matches
one of ``at_most``'s patterns are visited until that many of them have been, in every language;
the others are counted in ``skipped``, never fetched.
"""
from __future__ import annotations

from collections import deque
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urldefrag, urlencode, urljoin, urlsplit, urlunsplit

import lxml.html
from flask.testing import FlaskClient

#: What a browser asks for when it follows a link: the resolver answers by it (a page, not a record).
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
SCHEMES = ("http", "https")
REDIRECTS = (301, 302, 303, 307, 308)
#: The language switch of the pages whose query is not the portal's (i18n.switch_language).
SWITCH = "/language"
#: What a page may answer, by how the crawl reached it: a plain link must not lead to a 4xx or 5xx;
#: a GET form's action, sent empty, may answer 400 (the portal's form with errors); a seed – a
#: persistent URL a reader brings, such as a deleted item's – may answer its alert (404, 410…).
#: A page reached in more than one way is held to the strictest.
WORST_ALLOWED = {"link": 399, "form": 400, "seed": 499}


@dataclass(frozen=True)
class Visit:
    """One page in one language: ``url`` as it was linked (path and query)."""

    url: str
    language: str


@dataclass(frozen=True)
class Link:
    """A URL a page offers, and how (a key of :data:`WORST_ALLOWED`)."""

    url: str
    kind: str = "link"


@dataclass
class Crawl:
    """What a crawl met: every internal visit with its status, the HTML of every page, how each
    page was reached (each way with the first page that linked to it so), and the links to other
    hosts with the pages that offer them."""

    statuses: dict[Visit, int] = field(default_factory=dict)
    pages: dict[Visit, str] = field(default_factory=dict)
    reached: dict[str, dict[str, str]] = field(default_factory=dict)
    outside: dict[str, set[str]] = field(default_factory=dict)
    skipped: set[str] = field(default_factory=set)

    def failures(self) -> dict[Visit, str]:
        """Every visit whose status is worse than the strictest way it was reached allows, and
        why: its status and the first page that linked to it that way."""
        failed = {}
        for visit, status in self.statuses.items():
            ways = self.reached[page_of(visit.url)]
            strictest = min(ways, key=WORST_ALLOWED.__getitem__)
            if status > WORST_ALLOWED[strictest]:
                failed[visit] = f"{status} {visit.url} in {visit.language} ({strictest} from {ways[strictest] or 'the seeds'})"
        return failed


def crawl(client: FlaskClient, origin: str, seeds: list[str], languages: tuple[str, ...],
          at_most: dict[str, int] | None = None) -> Crawl:
    """Everything reachable from ``seeds`` (paths) on the portal at ``origin`` (its
    ``PORTAL_URL``: links there are internal), in each of ``languages``; of the pages whose path
    matches a pattern of ``at_most``, that many."""
    found = Crawl()
    seen: set[tuple[str, str]] = set()
    not_pages: set[str] = set()
    samples = {re.compile(pattern): (limit, set()) for pattern, limit in (at_most or {}).items()}
    queue = deque((Visit(seed, language), Link(seed, "seed"), "") for language in languages for seed in seeds)
    while queue:
        visit, link, referrer = queue.popleft()
        page, switched_to = page_of(visit.url), _language_asked(visit.url)
        visit = Visit(visit.url, switched_to or visit.language)
        found.reached.setdefault(page, {}).setdefault(link.kind, referrer)
        if (page, visit.language) in seen or page in not_pages or _beyond_sample(samples, page, found):
            continue
        seen.add((page, visit.language))
        client.set_cookie("lang", visit.language, domain=urlsplit(origin).hostname)
        answer = client.get(visit.url, base_url=origin, headers={"Accept": BROWSER_ACCEPT})
        found.statuses[visit] = answer.status_code
        links: list[Link] = []
        if answer.status_code in REDIRECTS:  # a form's redirect is still the form's answer, a switch's its page
            kept = link.kind == "form" or urlsplit(visit.url).path == SWITCH
            links = [Link(answer.headers["Location"], link.kind if kept else "link")]
        elif answer.mimetype == "text/html":
            found.pages[visit] = answer.get_data(as_text=True)
            links = links_of(found.pages[visit])
        else:
            not_pages.add(page)
        answer.close()
        for offered in links:
            target = _absolute(origin, visit.url, offered.url)
            if target is None:
                continue
            if not target.startswith(origin + "/"):
                found.outside.setdefault(target, set()).add(visit.url)
                continue
            path = target[len(origin):]
            if _switch_target(path) == page:  # this page in another language: what this page is
                offered = Link(path, link.kind)
            queue.append((Visit(path, visit.language), offered, visit.url))
    return found


def _switch_target(path: str) -> str:
    """The page a link shows: for the language switch of the resolver's addresses
    (``/language?lang=…&next=…``), ``next``."""
    parts = urlsplit(path)
    if parts.path == SWITCH:
        return page_of(dict(parse_qsl(parts.query)).get("next", "/"))
    return page_of(path)


def _beyond_sample(samples: dict, page: str, found: Crawl) -> bool:
    """Whether ``page`` is one too many of its pattern (noted in ``found.skipped``)."""
    path = urlsplit(page).path
    for pattern, (limit, taken) in samples.items():
        if pattern.fullmatch(path):
            if path not in taken and len(taken) >= limit:
                found.skipped.add(path)
                return True
            taken.add(path)
    return False


def page_of(url: str) -> str:
    """The page a URL shows, whatever its language: the URL without ``lang``."""
    parts = urlsplit(url)
    rest = [(name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True) if name != "lang"]
    return urlunsplit(("", "", parts.path, urlencode(rest), ""))


def _language_asked(url: str) -> str | None:
    return next((value for name, value in parse_qsl(urlsplit(url).query) if name == "lang"), None)


def links_of(html: str) -> list[Link]:
    """The URLs a page offers (a POST form's actions left out)."""
    document = lxml.html.document_fromstring(html)
    links = []
    for element, attribute, url, _ in document.iterlinks():
        form = attribute in ("action", "formaction")
        if form and _posted(element):
            continue
        links.append(Link(url.strip(), "form" if form else "link"))
    return links


def _posted(element) -> bool:
    form = element if element.tag == "form" else next(element.iterancestors("form"), None)
    return form is not None and (form.get("method") or "get").lower() == "post"


def _absolute(origin: str, page: str, link: str) -> str | None:
    """The link's URL without its fragment, or ``None`` for what no crawler fetches
    (``mailto:``, ``data:``); a link to a place in the page itself is the page."""
    target = urldefrag(urljoin(origin + page, link)).url
    if urlsplit(target).scheme not in SCHEMES:
        return None
    return target
