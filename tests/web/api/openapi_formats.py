"""The string formats of the OpenAPI document (``ibiportal/web/api/openapi.py``), as Hypothesis
strategies for schemathesis: which strings an ``ibi`` or a ``persistent-url`` is cannot be a
regular expression (an IBI's date must decode to a time after 1995-08-01, its prefix to a host
or an address), nor are the CSL styles and locales, the dates on the calendar or a list of IP
addresses: generated calls draw them from the portal's own grammar and lists instead.

Loaded by ``tests/web/api/test_openapi.py`` and, through ``schemathesis.toml`` at the repository root,
by ``schemathesis run …`` there.
"""
from __future__ import annotations

import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

from hypothesis import strategies as st

import schemathesis

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the CLI loads this file by its path

from ibiportal.citation.csl import locale_names, style_names  # noqa: E402
from ibiportal.ibi.ibip import ibip_suffix  # noqa: E402
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS  # noqa: E402
from ibiportal.ibi.repository import rep_suffix  # noqa: E402

#: 1995-08-01T00:00:00Z, the earliest date an IBI may hold, and the end of 2099.
_FIRST, _LAST = 807235200, 4102444799
_DATES = st.integers(_FIRST, _LAST).map(Decimal)


def _ibi(pair: tuple[str, str], date: Decimal, form: str) -> str:
    rep_prefix, ibip_prefix = pair
    return f"{rep_prefix}/{rep_suffix(date)}" if form == "rep" else f"{ibip_prefix}/{ibip_suffix(date)}"


#: An IBI of a known subsystem (so that either form converts), in either form.
IBIS = st.builds(_ibi, st.sampled_from(KNOWN_PREFIX_PAIRS), _DATES, st.sampled_from(["rep", "ibip"]))
#: Its persistent URL (Table 8.1) on urlib.net or this portal, bare or with a modifier.
PERSISTENT_URLS = st.builds("{}{}{}".format, st.sampled_from(["http://urlib.net/", "/"]), IBIS,
                            st.sampled_from(["", "!", "+", ":", "+(pt)", "!:(oai_dc)"]))

#: An absolute http(s) URL, as a mint's or a copy's target_url.
HTTP_URLS = st.builds("{}://{}/{}".format, st.sampled_from(["http", "https", "HTTPS"]),
                      st.from_regex(r"\A[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?(\.[a-z]{2,6}){1,2}\Z"),
                      st.from_regex(r"\A[A-Za-z0-9._~%/-]{0,40}\Z"))
#: A resolver base: http(s)://host[:port]/, the last slash optional (ibi.url.normalize_base).
_HOSTS = st.from_regex(r"\A[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?(\.[a-z]{2,6}){1,2}\Z")
RESOLVER_BASES = st.builds("{}://{}{}{}".format, st.sampled_from(["http", "https"]), _HOSTS,
                           st.sampled_from(["", ":80", ":8080"]), st.sampled_from(["", "/"])) | st.sampled_from(["", "/"])
#: An item's own date: YYYY, YYYY-MM, YYYY-MM-DD, DD/MM/YYYY or MM/YYYY (minting.normalize_item_date).
ITEM_DATES = st.dates(date(1000, 1, 1)).flatmap(lambda day: st.sampled_from([
    f"{day:%Y}", f"{day:%Y-%m}", f"{day:%Y-%m-%d}", f"{day:%d/%m/%Y}", f"{day:%m/%Y}"]))
#: A user's IP, then its proxies' (Table 8.10), separated by commas or spaces.
IP_LISTS = st.lists(st.ip_addresses().map(str), min_size=1, max_size=3).flatmap(
    lambda ips: st.sampled_from([", ", " ", ","]).map(lambda separator: separator.join(ips)))

schemathesis.openapi.format("ibi", IBIS)
schemathesis.openapi.format("persistent-url", PERSISTENT_URLS)
schemathesis.openapi.format("http-url", HTTP_URLS)
schemathesis.openapi.format("item-date", ITEM_DATES)
schemathesis.openapi.format("ip-list", IP_LISTS)
schemathesis.openapi.format("resolver-base", RESOLVER_BASES)
schemathesis.openapi.format("ibi-or-persistent-url", IBIS | PERSISTENT_URLS)
schemathesis.openapi.format("csl-style", st.sampled_from(["", *style_names()]))  # empty: the six own styles only
schemathesis.openapi.format("csl-locale", st.sampled_from(["", *locale_names()]))  # empty: en-US
