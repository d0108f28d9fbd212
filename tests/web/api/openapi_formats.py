"""The string formats of the OpenAPI document (``ibiportal/web/api/openapi.py``), as Hypothesis
strategies for schemathesis: which strings an ``ibi`` or a ``persistent-url`` is cannot be a
regular expression (an IBI's date must decode to a time after 1995-08-01, its prefix to a host
or an address), nor are the CSL styles and locales, the dates on the calendar or a list of IP
addresses: generated calls draw them from the portal's own grammar and lists instead.

Loaded by ``tests/web/api/test_openapi.py`` and, through ``schemathesis.toml`` at the repository root,
by ``schemathesis run …`` there.
"""
from __future__ import annotations

import string
import sys
from datetime import date
from decimal import Decimal
from ipaddress import IPv4Address, IPv6Address
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

# Host names and addresses are built from plain parts, not drawn from a regular expression or
# st.ip_addresses(): the coverage phase asks each format for a value of its maximum length (2,000
# characters for a URL), which no value of these formats reaches, and Hypothesis gives up only after
# about a thousand draws; from_regex made each of those three times dearer (5 s per length asked).
_LABELS = st.text(alphabet=string.ascii_lowercase + string.digits, min_size=1, max_size=20)
#: A host name: one to three labels (a hyphen inside one) and a top-level domain.
_HOSTS = st.builds("{}{}.{}".format, _LABELS, st.sampled_from(["", "-1", "-portal", ".inpe"]),
                   st.sampled_from(["br", "net", "org", "example", "com.br"]))
#: An absolute http(s) URL, as a mint's or a copy's target_url.
HTTP_URLS = st.builds("{}://{}/{}".format, st.sampled_from(["http", "https", "HTTPS"]), _HOSTS,
                      st.text(alphabet=string.ascii_letters + string.digits + "._~%/-", max_size=40))
#: A resolver base: http(s)://host[:port]/, the last slash optional (ibi.url.normalize_base).
RESOLVER_BASES = st.builds("{}://{}{}{}".format, st.sampled_from(["http", "https"]), _HOSTS,
                           st.sampled_from(["", ":80", ":8080"]), st.sampled_from(["", "/"])) | st.sampled_from(["", "/"])
#: An item's own date: YYYY, YYYY-MM, YYYY-MM-DD, DD/MM/YYYY or MM/YYYY (minting.normalize_item_date).
ITEM_DATES = st.dates(date(1000, 1, 1)).flatmap(lambda day: st.sampled_from([
    f"{day:%Y}", f"{day:%Y-%m}", f"{day:%Y-%m-%d}", f"{day:%d/%m/%Y}", f"{day:%m/%Y}"]))
#: A user's IP, then its proxies' (Table 8.10), separated by commas or spaces.
_IPS = st.one_of(st.integers(0, 2**32 - 1).map(IPv4Address), st.integers(0, 2**128 - 1).map(IPv6Address)).map(str)
IP_LISTS = st.builds(str.join, st.sampled_from([", ", " ", ","]), st.lists(_IPS, min_size=1, max_size=3))

schemathesis.openapi.format("ibi", IBIS)
schemathesis.openapi.format("persistent-url", PERSISTENT_URLS)
schemathesis.openapi.format("http-url", HTTP_URLS)
schemathesis.openapi.format("item-date", ITEM_DATES)
schemathesis.openapi.format("ip-list", IP_LISTS)
schemathesis.openapi.format("resolver-base", RESOLVER_BASES)
schemathesis.openapi.format("ibi-or-persistent-url", IBIS | PERSISTENT_URLS)
schemathesis.openapi.format("csl-style", st.sampled_from(["", *style_names()]))  # empty: the six own styles only
schemathesis.openapi.format("csl-locale", st.sampled_from(["", *locale_names()]))  # empty: en-US
