"""Small input parsers shared by the API, the pages and the CLI."""
from __future__ import annotations

import re
from collections.abc import Iterable

from ..application.resolving import Asked
from ..errors import ParseError
from ..i18n import N_
from ..ibi.classify import read_url
from ..ibi.recognise import Recognition
from ..ibi.url import PersistentUrl
from ..resolver.addresses import client_ip_list
from ..resolver.engine import ClientInfo

_NO = frozenset({"", "0", "false", "no", "off"})
_YES = frozenset({"1", "true", "yes", "on"})
"""How a yes/no parameter may be written (lower-cased)."""


def optional_port(value: str | None) -> int | None:
    """A port typed by a user: empty is "none"; digits only (the range is checked by the core)."""
    if value is None or not value.strip():
        return None
    if not value.strip().isdigit():
        raise ParseError(N_("port must be a number from 1 to 65535, not %(value)r", value=value), position=1, field="port")
    return int(value)


def optional_flag(value: str | None, field: str) -> bool:
    """A yes/no parameter: absent, empty, ``0``, ``false``, ``no`` or ``off`` is no; ``1``, ``true``, ``yes`` or ``on`` is yes."""
    text = (value or "").strip().lower()
    if text in _NO:
        return False
    if text in _YES:
        return True
    raise ParseError(N_("%(field)s is yes or no (1/0, true/false, yes/no, on/off), not %(value)r", field=field, value=value), position=1, field=field)


def persistent_url_input(text: str | None) -> PersistentUrl:
    """The persistent URL given as ``url``; errors name that field, the position being the character in it."""
    return recognised_url_input(text)[0]


def recognised_url_input(text: str | None) -> tuple[PersistentUrl, Recognition]:
    """The persistent URL given as ``url``, in any form the recogniser reads (``/ibi/``, no scheme,
    ``IBI: <…>.``, …), and the recognition whose notes say what was set aside; errors name the
    ``url`` field, the position being the character in the text as given."""
    if text is None:
        raise ParseError(N_("the `url` parameter is required, such as url=http://urlib.net/LK47B6W/362SFKH"), field="url")
    return read_url(text, "url")


def query_pairs(texts: Iterable[str]) -> list[tuple[str, str]]:
    """``name=value`` texts, split at the first ``=``, as pairs for the item; a text without ``=`` is an error
    (field ``query``, position: the pair's number, as :func:`ibiportal.ibi.compose.compose` counts them)."""
    pairs: list[tuple[str, str]] = []
    for number, text in enumerate(texts, start=1):
        name, equals, value = text.partition("=")
        if not equals:
            raise ParseError(N_("`%(text)s` is not a pair: write `name=value`", text=text), position=number, field="query")
        pairs.append((name, value))
    return pairs


def asked_url_input(text: str | None) -> Asked:
    """What a trace resolves for ``text``, read once: the text as given (stripped) when the
    recogniser set nothing aside, so the trace shows exactly what was typed; else the
    recogniser's reading (``http://urlib.net/ibi/X`` is resolved as ``http://urlib.net/X``, as
    ``GET /ibi/X`` is). Errors as :func:`recognised_url_input`'s."""
    parsed, recognition = recognised_url_input(text)
    return Asked(recognition.reading if recognition.notes else text.strip(), parsed)

def client_input(own: ClientInfo, client_ip: object = None, accept_language: object = None) -> ClientInfo:
    """The client to resolve as: ``own`` (the request's), or the ``client_ip`` / ``accept_language`` given.

    ``client_ip`` is one IP address or the list of Table 8.10 (the user's, then its proxies',
    separated by spaces or commas); a part that is no IP is an error naming it and its
    1-based position. ``accept_language`` replaces the request's header when not ``None``.
    """
    client = own
    if client_ip is not None and not isinstance(client_ip, str):
        raise ParseError(N_("client_ip must be text: an IP address, or the list of Table 8.10"), field="client_ip")
    if client_ip:
        text = client_ip
        ips: list[str] = []
        for match in re.finditer(r"[^\s,]+", text):
            parsed = client_ip_list(match[0], None, ())
            if not parsed:
                raise ParseError(N_("client_ip %(match)r is not an IP address", match=match[0]), match.start() + 1, "client_ip")
            ips.extend(parsed)
        client = ClientInfo(tuple(ips), client.language_preference)
    if accept_language is not None:
        if not isinstance(accept_language, str):
            raise ParseError(N_("accept_language must be text such as 'pt-BR,en;q=0.5'"), field="accept_language")
        client = ClientInfo(client.ip_addresses, accept_language)
    return client
