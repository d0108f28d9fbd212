"""The anatomy of one identifier in both forms: what the Convert page draws.

Each form is cut into its pieces (Table 6.1 for the repository name, Table 7.1 for the IBIp),
and the pieces are grouped by the three things both forms say, one :class:`Row` each, pairing a
piece of one form with its counterpart in the other:

* server: the repository name's subdomain and word, which give the host (Algorithm 1), and the
  IBIp's coded IP with its ``W`` (IPv4) or ``X`` (IPv6) (Algorithm 5);
* port: after ``.`` or ``@`` in a repository name (80 when not written), coded after the
  ``W``/``X`` in an IBIp (800 when not written);
* date: year and month.day.hour.minute[.second[.fraction]] (Algorithm 2), and the base-27
  count of seconds since 1995-08-01T00:00:00Z, with ``W`` and a coded fraction (Algorithm 6).

A prefix the conversion could not find (no known pair) has no pieces: its cells say so.
Pure: no Flask; the template draws it, colour-coded by :attr:`Piece.kind` and named in words (its
words are :func:`~ibiportal.i18n.N_` messages, translated when drawn).
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ...ibi.conversion import SOURCE_TABLE, SOURCE_USER, Conversion
from ...ibi.dates import EPOCH, utc_iso
from ...ibi.ibip import DEFAULT_PORT as IBIP_DEFAULT_PORT
from ...ibi.ibip import FRACTION_SEPARATOR, IPV4_SEPARATOR, decode_ibip_prefix, decode_ibip_suffix
from ...ibi.repository import DEFAULT_PORT as REP_DEFAULT_PORT
from ...ibi.repository import PORT_SEPARATORS, decode_rep_prefix, decode_rep_suffix
from ...ibi.syntax import SEPARATOR
from ...i18n import N_, Localized, number

SERVER, PORT, DATE, SEPARATOR_KIND, UNKNOWN = "server", "port", "date", "separator", "unknown"
_TIME_FIELDS = {4: N_("month.day.hour.minute"), 5: N_("month.day.hour.minute.second"),
                6: N_("month.day.hour.minute.second.fraction")}
"""The names of a repository-name suffix's time part, by its number of fields."""


@dataclass(frozen=True)
class Piece:
    """Characters of one form, what the standard calls them, and which row they belong to."""

    text: str
    name: str
    kind: str


@dataclass(frozen=True)
class Cell:
    """One form's pieces for a row, what they decode to (``None``: unknown), and how."""

    pieces: tuple[Piece, ...]
    meaning: str | None
    note: str


@dataclass(frozen=True)
class Row:
    """A thing both forms say (server, port or date), in each form, and how the two are linked."""

    kind: str
    title: str
    rep: Cell
    ibip: Cell
    link: str


@dataclass(frozen=True)
class Anatomy:
    """Both forms piece by piece (for the identifier strips) and the rows linking them."""

    rep: tuple[Piece, ...]
    ibip: tuple[Piece, ...]
    rows: tuple[Row, ...]


def anatomy(conversion: Conversion) -> Anatomy:
    """Cut a conversion's two forms into pieces and pair them up."""
    prefix, suffix = conversion.prefix, conversion.suffix
    rep_server, rep_port = _rep_prefix_cells(prefix.rep)
    ibip_server, ibip_port = _ibip_prefix_cells(prefix.ibip)
    rep_date, ibip_date = _rep_date_cell(suffix.rep), _ibip_date_cell(suffix.ibip)
    same_instant = decode_rep_suffix(suffix.rep) == decode_ibip_suffix(suffix.ibip)
    rows = (
        Row(SERVER, N_("Server"), rep_server, ibip_server, _server_link(prefix.source)),
        Row(PORT, N_("Port"), rep_port, ibip_port, _port_link(prefix.source)),
        Row(
            DATE,
            N_("Date (UTC)"),
            rep_date,
            ibip_date,
            N_("the same instant, exactly") if same_instant else N_("not the same instant: see the warning"),
        ),
    )
    return Anatomy(
        rep=_strip(rep_server, rep_port, rep_date, N_("unknown repository-name prefix"), four_parts=True),
        ibip=_strip(ibip_server, ibip_port, ibip_date, N_("unknown IBIp prefix"), four_parts=False),
        rows=rows,
    )


def _server_link(source: str | None) -> str:
    if source == SOURCE_TABLE:
        return N_("the same server: a known prefix pair")
    if source == SOURCE_USER:
        return N_("computed from what you gave, not checked")
    return N_("no known pair: the other prefix is unknown")


def _port_link(source: str | None) -> str:
    if source == SOURCE_TABLE:
        return N_("the same subsystem")
    if source == SOURCE_USER:
        return N_("as you gave it")
    return N_("unknown")


def _strip(server: Cell, port: Cell, date: Cell, unknown_name: str, four_parts: bool) -> tuple[Piece, ...]:
    """The whole identifier, piece by piece, with its ``/`` separators; a repository name
    (``four_parts``) has one more inside its prefix and one inside its suffix (Table 6.1)."""
    slash = Piece(SEPARATOR, N_("separator"), SEPARATOR_KIND)
    prefix: tuple[Piece, ...] = (*server.pieces, *port.pieces)
    suffix = date.pieces
    if four_parts:
        suffix = (suffix[0], slash, *suffix[1:])  # year "/" month.day...
        if prefix:
            prefix = (prefix[0], slash, *prefix[1:])  # subdomain "/" word [port]
    if not prefix:
        prefix = (Piece(N_("(unknown prefix)"), unknown_name, UNKNOWN),)
    return (*prefix, slash, *suffix)


def _rep_prefix_cells(prefix: str | None) -> tuple[Cell, Cell]:
    """Server and port cells of a repository-name prefix (Table 6.1, Algorithm 1)."""
    if prefix is None:
        unknown = N_("unknown: no known pair names this subsystem's host (give it in the form above)")
        return Cell((), None, unknown), Cell((), None, N_("unknown, with the host"))
    host, port = decode_rep_prefix(prefix)
    subdomain, _, word_port = prefix.partition(SEPARATOR)
    cut = min((word_port.find(sep) for sep in PORT_SEPARATORS if sep in word_port), default=len(word_port))
    word, port_text = word_port[:cut], word_port[cut:]
    server = Cell(
        (Piece(subdomain, N_("subdomain"), SERVER), Piece(word, N_("word"), SERVER)),
        N_("host %(host)s", host=host),
        N_("Algorithm 1: the host's first label is the word, the rest is the subdomain"),
    )
    if port_text:
        written = (N_("written after the word (the @ of names issued before August 2010)") if port_text.startswith("@")
                   else N_("written after the word"))
        port_cell = Cell((Piece(port_text, N_("port"), PORT),), N_("port %(port)s", port=port), written)
    else:
        port_cell = Cell((), N_("port %(port)s", port=port),
                         N_("not written: %(port)s is the default (Algorithm 1)", port=REP_DEFAULT_PORT))
    return server, port_cell


def _ibip_prefix_cells(prefix: str | None) -> tuple[Cell, Cell]:
    """Server and port cells of an IBIp prefix (Table 7.1, Algorithm 5)."""
    if prefix is None:
        unknown = N_("unknown: no known pair names this subsystem's IP (give it in the form above)")
        return Cell((), None, unknown), Cell((), None, N_("unknown, with the IP"))
    ip, port = decode_ibip_prefix(prefix)
    cut = next(index for index, character in enumerate(prefix) if character in "WX")
    coded_ip, marker, coded_port = prefix[:cut], prefix[cut], prefix[cut + 1 :]
    version = "IPv4" if marker == IPV4_SEPARATOR else "IPv6"
    server = Cell(
        (Piece(coded_ip, N_("coded IP"), SERVER), Piece(marker, N_("%(version)s marker", version=version), SERVER)),
        N_("IP %(ip)s", ip=ip),
        N_("Algorithm 5: the %(version)s address read as a number, written in base 27", version=version),
    )
    if coded_port:
        port_cell = Cell((Piece(coded_port, N_("coded port"), PORT),), N_("port %(port)s", port=port),
                         N_("%(coded)s in base 27", coded=coded_port))
    else:
        port_cell = Cell((), N_("port %(port)s", port=port),
                         N_("not written: %(port)s is the default (Algorithm 5)", port=IBIP_DEFAULT_PORT))
    return server, port_cell


def _rep_date_cell(suffix: str) -> Cell:
    """The repository-name suffix: year, then month.day.hour.minute[.second[.fraction]] (Algorithm 2)."""
    year, _, time = suffix.partition(SEPARATOR)
    return Cell(
        (Piece(year, N_("year"), DATE), Piece(time, _TIME_FIELDS[time.count(".") + 1], DATE)),
        utc_iso(decode_rep_suffix(suffix)),
        N_("Algorithm 2: the UTC date and time written out"),
    )


def _ibip_date_cell(suffix: str) -> Cell:
    """The IBIp suffix: seconds since the epoch in base 27, ``W`` and a coded fraction (Algorithm 6)."""
    date = decode_ibip_suffix(suffix)
    coded_seconds, marker, coded_fraction = suffix.partition(FRACTION_SEPARATOR)
    pieces = [Piece(coded_seconds, N_("coded seconds"), DATE)]
    if marker:
        pieces += [Piece(marker, N_("fraction marker"), DATE), Piece(coded_fraction, N_("coded fraction"), DATE)]
    after_epoch = date - EPOCH
    return Cell(
        tuple(pieces),
        utc_iso(date),
        N_("Algorithm 6: %(seconds)s seconds after 1995-08-01T00:00:00Z (Unix time %(unix)s), written in base 27",
           seconds=_decimal(after_epoch), unix=date),
    )


def _decimal(value: Decimal) -> Localized:
    """A count of seconds as each language writes numbers (``988,595,160.5`` and ``988.595.160,5``),
    its fraction digits kept as written."""
    return number(value, len(format(value, "f").partition(".")[2]))
