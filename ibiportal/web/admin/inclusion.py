"""What an Archive's administrator runs to have the Archive included (file 003 §7.2, Table 7.2),
as the Archive page and the page after registering show it: a shell script of ``curl``.

The values only the Archive knows (its address, IP, platform version, administrator's e-mail,
and its key unless the portal has just generated it) are shell variables set on the first
lines, to be edited there once; ``curl --get --data-urlencode`` then writes every pair into the
query with the percent-encoding of Table 6.1, whatever the values hold (an e-mail with ``+``,
an IBI with ``@``). A key the portal has just generated is written into the script itself, so
the script runs as it is once the other values are filled in.
"""
from __future__ import annotations

from dataclasses import dataclass

from flask_babel import LazyString, lazy_gettext

from ...application.registry import inclusion_request_pairs


@dataclass(frozen=True)
class Blank:
    """A value only the Archive knows: its shell variable, an example and what it is."""

    variable: str
    example: str
    meaning: LazyString


#: The pairs of Table 7.2 the Archive's administrator fills in, by wire name.
BLANKS = {
    "archiveaddress": Blank("ARCHIVE_ADDRESS", "archive.example.org:8741",
                            lazy_gettext("host:port where the resolver reaches the Archive's service, no http://")),
    "archiveip": Blank("ARCHIVE_IP", "203.0.113.7", lazy_gettext("the IP address of that host")),
    "archiveplatformversion": Blank("PLATFORM_VERSION", "1.0", lazy_gettext("the Archive software's version")),
    "archiveadmemailaddress": Blank("ADMIN_EMAIL", "admin@example.org", lazy_gettext("the Archive administrator's e-mail")),
    "registrationkey": Blank("REGISTRATION_KEY", "0000000000-0000000000", lazy_gettext("the key the Archive was registered with")),
}


def _quoted(text: str) -> str:
    """``text`` in single quotes for a POSIX shell (always quoted: the lines read alike)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def inclusion_script(service_url: str, service_ibi: str, key: str | None = None) -> str:
    """The ``inclusionRequest`` of ``service_ibi`` to the resolver service at ``service_url``, as
    shell lines: the blanks to fill in, then one ``curl``; ``key`` (a just generated one) written
    in, else a blank too."""
    assignments, options = [], []
    for wire, value in inclusion_request_pairs(service_ibi):
        blank = BLANKS.get(wire)
        if wire == "registrationkey" and key is not None:
            options.append(_quoted(f"{wire}={key}"))
        elif blank is not None:
            assignments.append(f"{blank.variable}={_quoted(blank.example)}  # {blank.meaning}")
            options.append(f'"{wire}=${blank.variable}"')
        else:
            options.append(_quoted(f"{wire}={value}"))
    lines = [*assignments, f"curl --get {_quoted(service_url)} \\"]
    lines += [f"  --data-urlencode {option}" + (" \\" if number < len(options) - 1 else "")
              for number, option in enumerate(options)]
    return "\n".join(lines)
