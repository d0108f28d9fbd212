"""Converting an IBI to the other form (STANDARD.md §1.4).

What converts, and how:

* the suffix, always and exactly: the same date through Algorithms 2 and 6;
* an IBIp prefix decodes to its IP and port (Algorithm 5 inverse);
* the other form's prefix only from a *known pair* (prefixes.py) or from the host / IP and
  port the user supplies (Algorithm 1 with port default 80, Algorithm 5 with port default
  800). Otherwise it is unknown and the result says so: never a guess presented as fact.

``prefix.source`` says where the *other* form's prefix came from:

* ``"table"``: a known prefix pair;
* ``"user"``: computed from the host or IP the caller supplied (not checked against anything);
* ``None``: unknown (``prefix.rep`` or ``prefix.ibip`` is then ``None``).

When the pair is one of the real servers of ``data/known_servers.json``, ``prefix.reference``
is the published reference that prints both forms of one of its items (servers.py); for another
pair, the source the table gives with it (prefixes.py: the portal's own subsystem, an
administrator, an Archive's answer). The conversion says which pair it used and why it is a fact.

``prefix.host`` is the host of the repository-name prefix (Algorithm 1 inverse); ``prefix.ip``
and ``prefix.port`` are the IP and port the IBIp prefix decodes to (the port of the IBIp
form: URLib used 80 in names and 800 in IBIps for one server, and a repository-name port is
visible in its prefix). Each is ``None`` when its prefix is unknown.

Warnings, in plain words, cover every case where the result is less than a fact: unknown
prefix, user-supplied values, several candidates in the table, arguments that were ignored,
and suffixes that do not survive the round trip (a fraction of a second with leading zeros,
``.05``, becomes the integer 5 in the IBIp form and reads back as ``.5``).

Speed: :func:`convert` reads well-formed input on the fast path (fast.py: compiled patterns,
arithmetic) and takes the other form's prefix, its decoding and its warnings from a cache per
prefix and table (prefixes repeat in every real batch). Only input the fast path does not accept,
or a host, IP or port given by the caller, goes through :func:`convert_precisely`, the diagnostic
path that names the faulty character; both give equal results wherever both apply.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ibiportal.errors import ParseError
from ibiportal.i18n import N_
from ibiportal.ibi.fast import read_fast
from ibiportal.ibi.identifier import parse_ibi
from ibiportal.ibi.ibip import DEFAULT_PORT as IBIP_DEFAULT_PORT
from ibiportal.ibi.ibip import decode_ibip_prefix, decode_ibip_suffix, ibip_prefix, ibip_suffix
from ibiportal.ibi.prefixes import KNOWN_PREFIX_PAIRS, ibip_prefixes_for, is_claim, rep_prefixes_for
from ibiportal.ibi.repository import DEFAULT_PORT as REP_DEFAULT_PORT
from ibiportal.ibi.repository import RepositoryName, decode_rep_prefix, rep_prefix, rep_suffix
from ibiportal.ibi.servers import known_server
from ibiportal.ibi.syntax import SEPARATOR

#: Names were written with ``@`` before the port until August 2010 (file 004: ``@`` was needed by
#: deployments before then, ``.`` is recommended since), port 80 included: ``sid.inpe.br/mtc-m18@80/2009/…``
#: but ``sid.inpe.br/mtc-m18/2012/…`` (STANDARD.md §8). Unix seconds of 2010-08-01T00:00:00Z.
AT_SIGN_UNTIL = 1280620800


def _legacy_utc(utc: str) -> bool:
    """Whether an ISO 8601 UTC date (``2009-07-21T13:23:00Z``) is before :data:`AT_SIGN_UNTIL`."""
    year, month = utc.split("-", 2)[:2]
    return (int(year), int(month)) < (2010, 8)


SOURCE_TABLE = "table"
SOURCE_USER = "user"


@dataclass(frozen=True)
class PrefixInfo:
    """Both prefixes, what they decode to, and where the other form's prefix came from."""

    rep: str | None
    ibip: str | None
    host: str | None
    ip: str | None
    port: int | None
    source: str | None
    reference: str | None = None


@dataclass(frozen=True)
class SuffixPair:
    """The suffix in both forms: always known, since it is a date."""

    rep: str
    ibip: str


@dataclass(frozen=True)
class Conversion:
    """The result of :func:`convert`; :meth:`to_dict` is the JSON shape of the API."""

    input: str
    form: str
    rep: str | None
    ibip: str | None
    prefix: PrefixInfo
    suffix: SuffixPair
    utc: str
    warnings: tuple[str, ...]

    def to_dict(self) -> dict:
        """``{"input", "form", "rep", "ibip", "prefix": {...}, "suffix": {...}, "utc", "warnings"}``."""
        return {
            "input": self.input,
            "form": self.form,
            "rep": self.rep,
            "ibip": self.ibip,
            "prefix": {
                "rep": self.prefix.rep,
                "ibip": self.prefix.ibip,
                "host": self.prefix.host,
                "ip": self.prefix.ip,
                "port": self.prefix.port,
                "source": self.prefix.source,
                "reference": self.prefix.reference,
            },
            "suffix": {"rep": self.suffix.rep, "ibip": self.suffix.ibip},
            "utc": self.utc,
            "warnings": list(self.warnings),
        }


def convert(
    text: str,
    known_pairs: Iterable[Sequence[str]] = KNOWN_PREFIX_PAIRS,
    host: str | None = None,
    ip: str | None = None,
    port: int | None = None,
) -> Conversion:
    """Convert an IBI of either form to the other (STANDARD.md §1.4 decision).

    ``known_pairs`` are ``(rep_prefix, ibip_prefix)`` pairs; ``host`` (for an IBIp input)
    or ``ip`` (for a repository-name input), with ``port``, let the caller supply what the
    table does not know. Raises :class:`ParseError` for a bad IBI, host, IP, port or pair.
    A batch passes the same ``known_pairs`` tuple for every row, so the prefix cache is hit.
    """
    if host is None and ip is None and port is None:
        reading = read_fast(text) if isinstance(text, str) else None
        prefix = None if reading is None else _prefix_sides(known_pairs).get(
            reading.form, reading.prefix, _legacy_utc(reading.utc) if reading.form == "ibip" else False)
        if prefix is not None:
            info, warnings = prefix
            return Conversion(
                input=text,
                form=reading.form,
                rep=f"{info.rep}{SEPARATOR}{reading.rep_suffix}" if info.rep else None,
                ibip=f"{info.ibip}{SEPARATOR}{reading.ibip_suffix}" if info.ibip else None,
                prefix=info,
                suffix=SuffixPair(reading.rep_suffix, reading.ibip_suffix),
                utc=reading.utc,
                warnings=warnings,
            )
    return convert_precisely(text, known_pairs, host, ip, port)


#: Prefixes remembered per table of pairs (a batch's distinct prefixes are few; a hostile one's
#: are at most this many, then the rest are computed each time).
PREFIXES_REMEMBERED = 4096


class _PrefixSides:
    """The prefix side of a conversion for one table of pairs, remembered per prefix.

    Computed by the diagnostic path's own functions, so both paths agree: both prefixes, their
    decoding and the warnings for a well-formed input's (normalized) prefix, or ``None`` when
    that path would refuse the prefix or the table, so that it runs and names the error.
    """

    def __init__(self, pairs: tuple[tuple[str, ...], ...]) -> None:
        self.pairs = pairs
        self._known: dict[tuple[str, str, bool], tuple[PrefixInfo, tuple[str, ...]] | None] = {}

    def get(self, form: str, prefix: str, legacy: bool = False) -> tuple[PrefixInfo, tuple[str, ...]] | None:
        """``legacy``: the item is dated before August 2010 (:data:`AT_SIGN_UNTIL`)."""
        key = (form, prefix, legacy)
        try:
            return self._known[key]
        except KeyError:
            pass
        side = self._compute(form, prefix, legacy)
        if len(self._known) < PREFIXES_REMEMBERED:
            self._known[key] = side
        return side

    def _compute(self, form: str, prefix: str, legacy: bool) -> tuple[PrefixInfo, tuple[str, ...]] | None:
        warnings: list[str] = []
        pairs = list(self.pairs)
        try:
            if form == RepositoryName.form:
                host, _ = decode_rep_prefix(prefix)
                rep_text = prefix
                ibip_text, source = _ibip_prefix_for(prefix, host, pairs, None, None, None, warnings)
            else:
                ibip_ip, ibip_port = decode_ibip_prefix(prefix)
                ibip_text = prefix
                rep_text, source = _rep_prefix_for(prefix, ibip_ip, ibip_port, pairs, None, None, None, warnings,
                                                   legacy)
                host = decode_rep_prefix(rep_text)[0] if rep_text else None
            decoded_ip, decoded_port = decode_ibip_prefix(ibip_text) if ibip_text else (None, None)
        except ParseError:
            return None
        reference = _reference(rep_text, ibip_text, source, self.pairs)
        return PrefixInfo(rep_text, ibip_text, host, decoded_ip, decoded_port, source, reference), tuple(warnings)


@lru_cache(maxsize=8)
def _sides_of_table(pairs: tuple[tuple[str, ...], ...]) -> _PrefixSides:
    return _PrefixSides(pairs)


def _prefix_sides(pairs: Iterable[Sequence[str]]) -> _PrefixSides:
    """The sides of a prefix table, built once per table (the table is hashed, which for a few
    dozen pairs costs a microsecond; the core keeps no other state between calls)."""
    if isinstance(pairs, tuple) and all(isinstance(pair, tuple) for pair in pairs):
        return _sides_of_table(pairs)  # tuples of strings all the way down: cannot change under the cache
    return _sides_of_table(tuple(tuple(pair) for pair in pairs))


def convert_precisely(
    text: str,
    known_pairs: Iterable[Sequence[str]] = KNOWN_PREFIX_PAIRS,
    host: str | None = None,
    ip: str | None = None,
    port: int | None = None,
) -> Conversion:
    """:func:`convert` on the diagnostic path: every character judged by the precise parsers,
    so that a malformed input's error names what is wrong and where."""
    identifier = parse_ibi(text)
    pairs = list(known_pairs)
    warnings: list[str] = []
    if isinstance(identifier, RepositoryName):
        rep_text = identifier.prefix
        ibip_text, source = _ibip_prefix_for(identifier.prefix, identifier.host, pairs, ip, port, host, warnings)
        try:
            suffixes = SuffixPair(identifier.suffix, ibip_suffix(identifier.date))
        except ParseError as exc:  # dated before the IBIp epoch: an IBI with no IBIp form
            raise ParseError(exc.message, len(identifier.prefix) + 2, "suffix") from exc
        _check_round_trip(identifier, suffixes.ibip, warnings)
    else:
        rep_text, source = _rep_prefix_for(identifier.prefix, identifier.ip, identifier.port, pairs, host, port, ip,
                                           warnings, identifier.date < AT_SIGN_UNTIL)
        ibip_text = identifier.prefix
        suffixes = SuffixPair(rep_suffix(identifier.date), identifier.suffix)
    decoded_ip, decoded_port = decode_ibip_prefix(ibip_text) if ibip_text else (None, None)
    return Conversion(
        input=text,
        form=identifier.form,
        rep=f"{rep_text}{SEPARATOR}{suffixes.rep}" if rep_text else None,
        ibip=f"{ibip_text}{SEPARATOR}{suffixes.ibip}" if ibip_text else None,
        prefix=PrefixInfo(
            rep=rep_text,
            ibip=ibip_text,
            host=decode_rep_prefix(rep_text)[0] if rep_text else None,
            ip=decoded_ip,
            port=decoded_port,
            source=source,
            reference=_reference(rep_text, ibip_text, source, pairs),
        ),
        suffix=suffixes,
        utc=identifier.utc,
        warnings=tuple(warnings),
    )


def _reference(
    rep_text: str | None, ibip_text: str | None, source: str | None, pairs: Iterable[Sequence[str]]
) -> str | None:
    """Why the pair a table conversion used is a fact: the published reference of a known server,
    else the source the table gives with the pair (its third element), else None."""
    if source != SOURCE_TABLE or not rep_text or not ibip_text:
        return None
    server = known_server(rep_text, ibip_text)
    if server is not None:
        return server.reference
    wanted = decode_rep_prefix(rep_text)
    sources = (pair[2] for pair in pairs if len(pair) > 2 and pair[1].upper() == ibip_text
               and decode_rep_prefix(pair[0]) == wanted)
    return next(sources, None)


def _ibip_prefix_for(
    rep_prefix: str, rep_host: str, pairs: list, ip: str | None, port: int | None, host: str | None,
    warnings: list[str],
) -> tuple[str | None, str | None]:
    """``(IBIp prefix, source)`` for a repository name's prefix: known pair, else the caller's IP."""
    if host is not None:
        warnings.append(N_("host %(host)r ignored: the repository name already names its host (%(rep_host)s)",
                           host=host, rep_host=rep_host))
    computed = ibip_prefix(ip, IBIP_DEFAULT_PORT if port is None else port) if ip is not None else None
    if ip is None and port is not None:
        warnings.append(N_("port %(port)s ignored: it is used with an IP, and none was given", port=port))
    known = ibip_prefixes_for(rep_prefix, _facts_beside(computed, pairs))
    if known:
        if len(known) > 1:
            warnings.append(N_("the table pairs %(prefix)s with %(count)s IBIp prefixes (%(known)s); the first is shown",
                               prefix=rep_prefix, count=len(known), known=", ".join(known)))
        if computed is not None and computed != known[0]:
            warnings.append(N_("the IBIp prefix computed from the IP you supplied (%(computed)s) differs from the "
                               "known pair (%(known)s); the known pair is shown", computed=computed, known=known[0]))
        _warn_if_claimed(rep_prefix, known[0], pairs, warnings)
        return known[0], SOURCE_TABLE
    if computed is not None:
        warnings.append(N_("IBIp prefix %(computed)s computed by Algorithm 5 from the IP and port you supplied; "
                           "it is not checked against anything", computed=computed))
        return computed, SOURCE_USER
    warnings.append(N_("prefix unknown: no known IBIp prefix for %(prefix)s; supply the server's IP (and port, "
                       "default %(port)s) to compute one", prefix=rep_prefix, port=IBIP_DEFAULT_PORT))
    return None, None


def _rep_prefix_for(
    ibip_prefix: str, ibip_ip: str, ibip_port: int, pairs: list, host: str | None, port: int | None,
    ip: str | None, warnings: list[str], legacy: bool = False,
) -> tuple[str | None, str | None]:
    """``(repository-name prefix, source)`` for an IBIp's prefix: known pair, else the caller's host.

    Of the table's spellings of one host and port, the one in use on the item's date: with ``@``
    for an item dated before August 2010 (``legacy``), without after (:data:`AT_SIGN_UNTIL`)."""
    if ip is not None:
        warnings.append(N_("IP %(ip)r ignored: the IBIp prefix already encodes its IP (%(ibip_ip)s)", ip=ip, ibip_ip=ibip_ip))
    computed = rep_prefix(host, REP_DEFAULT_PORT if port is None else port) if host is not None else None
    if host is None and port is not None:
        warnings.append(N_("port %(port)s ignored: it is used with a host, and none was given", port=port))
    known = rep_prefixes_for(ibip_prefix, _facts_beside(computed, pairs))
    if known:
        hosts = {decode_rep_prefix(candidate) for candidate in known}
        if len(hosts) > 1:
            warnings.append(N_("the table pairs %(prefix)s with different hosts or ports (%(known)s); the first is "
                               "shown, which may not be the one that issued this item",
                               prefix=ibip_prefix, known=", ".join(known)))
        elif len(known) > 1:
            warnings.append(N_("%(prefix)s has %(count)s known repository-name spellings (%(known)s) for the same "
                               "host and port; the one in use on the item's date is shown (with @ before August "
                               "2010)", prefix=ibip_prefix, count=len(known), known=", ".join(known)))
            dated = [candidate for candidate in known if ("@" in candidate) == legacy]
            known = (*dated, *(candidate for candidate in known if candidate not in dated))
        if computed is not None and decode_rep_prefix(computed) != decode_rep_prefix(known[0]):
            warnings.append(N_("the prefix computed from the host you supplied (%(computed)s) differs from the "
                               "known pair (%(known)s); the known pair is shown", computed=computed, known=known[0]))
        _warn_if_claimed(known[0], ibip_prefix, pairs, warnings)
        return known[0], SOURCE_TABLE
    if computed is not None:
        warnings.append(N_("repository-name prefix %(computed)s computed by Algorithm 1 from the host and port you "
                           "supplied; it is not checked against anything", computed=computed))
        return computed, SOURCE_USER
    warnings.append(N_("prefix unknown: no known repository-name prefix for %(prefix)s (IP %(ip)s, port %(port)s); "
                       "supply the server's host name (and port, default %(default)s) to compute one",
                       prefix=ibip_prefix, ip=ibip_ip, port=ibip_port, default=REP_DEFAULT_PORT))
    return None, None


def _facts_beside(computed: str | None, pairs: list) -> list:
    """The table without the Archives' unconfirmed claims when the caller supplied a host or IP:
    what a user typed outranks what an Archive said."""
    return pairs if computed is None else [pair for pair in pairs if not is_claim(pair)]


def _warn_if_claimed(rep_prefix: str, ibip_prefix: str, pairs: list, warnings: list[str]) -> None:
    """Say so when the pair conversion used is only an Archive's claim."""
    wanted = (decode_rep_prefix(rep_prefix), ibip_prefix.upper())
    if any(is_claim(pair) and (decode_rep_prefix(pair[0]), pair[1].upper()) == wanted for pair in pairs):
        warnings.append(N_("the pair %(rep)s = %(ibip)s was reported by an Archive and no administrator has "
                           "confirmed it", rep=rep_prefix, ibip=ibip_prefix))


def _check_round_trip(rep: RepositoryName, coded_suffix: str, warnings: list[str]) -> None:
    """Warn when the IBIp suffix reads back as a different repository-name suffix."""
    back = rep_suffix(decode_ibip_suffix(coded_suffix))
    if back == rep.suffix:
        return
    fraction = format(rep.date, "f").partition(".")[2]
    if fraction.startswith("0") and fraction.strip("0"):
        warnings.append(N_("the fraction of a second .%(fraction)s has leading zeros: the IBIp form writes it as the "
                           "integer %(integer)s and reads back .%(integer)s (%(back)s), a different instant; this IBIp "
                           "does not convert back to the same identifier",
                           fraction=fraction, integer=int(fraction), back=back))
    else:
        warnings.append(N_("suffix %(suffix)s is not written as Algorithm 2 writes its date; the IBIp form keeps the "
                           "date but converts back as %(back)s", suffix=rep.suffix, back=back))
