"""Why an IBI was not found, for support staff: what its prefix encodes, which registered
Archives are at that address, which Archives failed and how, and who should do what next.

An IBI's prefix names the identification subsystem that minted it (file 004: an IBIp prefix
is the server's IP and port, Algorithm 5; a repository-name prefix its host and port,
Algorithm 1), and URLib items are normally held by the Archive on that server. So a not-found
is explained by looking at that address in the resolver's registry (file 003 §7: registered,
included or excluded) and at what the Archives asked answered (the per-Archive outcomes of
message 4 in the trace, never its sentences).

Pure data in, pure data out: the registry's entries and the known prefix pairs are handed in
by the caller, so this module knows no database and no Flask.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

from ..i18n import N_, Message, decimal, from_record, to_record
from ..ibi.ibip import Ibip, decode_ibip_prefix
from ..ibi.identifier import parse_ibi
from ..ibi.prefixes import ibip_prefixes_for, rep_prefixes_for
from ..ibi.repository import decode_rep_prefix
from ..protocol.registry import ArchiveEvent, RegisteredArchive
from .trace import AlertReason, Resolution, Status, TraceStep

#: The alerts that mean "nobody gave a URL for this IBI" and get a diagnosis.
NOT_FOUND_ALERTS = frozenset({AlertReason.NOT_FOUND, AlertReason.NO_ARCHIVE_ANSWERED, AlertReason.NO_ARCHIVES})

#: Exchange statuses that are a failure of the Archive or of the way to it (not an answer).
FAILURES = {
    Status.TIMEOUT: N_("did not answer in time"),
    Status.MALFORMED: N_("answered something that is not a pair list (Table 6.2)"),
    Status.HTTP_ERROR: N_("answered with an HTTP error"),
    Status.REFUSED: N_("is at an address the resolver may not contact"),
    Status.TRANSPORT_ERROR: N_("could not be reached (the connection failed)"),
    Status.NOT_SENT: N_("could not be asked (the request could not be built)"),
}


def failure_words(status: Status, http_status: int | None = None, error: str | None = None) -> Message:
    """How an Archive failed, in words (its HTTP status, the transport's error when there is one)."""
    how = FAILURES[status]
    if status is Status.HTTP_ERROR and http_status:
        how = N_("answered with an HTTP error %(status)s", status=http_status)
    return N_("%(failure)s (%(error)s)", failure=how, error=error) if error else how


class Case(StrEnum):
    """What the registry and the answers say about the Archive at the IBI's address."""

    NONE_REGISTERED = "none-registered"
    EXCLUDED = "excluded"
    INCLUDED_FAILED = "included-but-failed"
    INCLUDED_EMPTY = "included-but-empty"


class Page(StrEnum):
    """The public pages a next step links to (the web layer knows their addresses): support
    staff reading a not-found have no administrator's login, so no step sends them to one."""

    ARCHIVE_HEALTH = "archive-health"  # every registered Archive: included or excluded, since when, how it answers
    PARSE = "parse"  # the persistent URL read field by field
    CONVERT = "convert"  # the IBI's other form and what its prefix encodes
    TRACE = "trace"  # the same persistent URL traced again


@dataclass(frozen=True)
class NextStep:
    """One thing to do next: ``message`` with ``%(name)s`` placeholders filled from ``values``
    (kept apart so that a page can show the sentence in its reader's language; a value may be a
    message itself), and the public ``pages`` where it is done or checked. A step kept as a
    sentence only (a trace stored before steps kept their message) is not ``translatable``."""

    message: str
    values: Mapping[str, object] = field(default_factory=dict)
    pages: tuple[Page, ...] = ()
    translatable: bool = True

    @property
    def sentence(self) -> str:
        """The sentence, as a message to show in the reader's language (as it is, if not translatable)."""
        return Message(self.message, self.values) if self.translatable else self.message

    @property
    def text(self) -> str:
        """The sentence in English, values filled in."""
        return str(self.sentence)

    def to_dict(self) -> dict[str, Any]:
        data = {"message": self.message, "values": {name: str(value) for name, value in self.values.items()},
                "pages": [page.value for page in self.pages]}
        if any(isinstance(value, (Message, tuple)) for value in self.values.values()):
            data["message_i18n"] = to_record(self.sentence)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NextStep:
        record = data.get("message_i18n")
        values = data["values"] if record is None else dict(from_record(data["message"], record).values)
        return cls(data["message"], values, tuple(Page(page) for page in data["pages"]))


@dataclass(frozen=True)
class IssuingSubsystem:
    """The server an IBI's prefix names: from the prefix itself and from known prefix pairs."""

    prefix: str
    form: str
    hosts: tuple[str, ...]
    ips: tuple[str, ...]
    port: int

    @property
    def where(self) -> str:
        """``150.163.34.243`` or ``mtc-m18.sid.inpe.br (150.163.34.243)``: the address in words."""
        names = self.hosts + self.ips if self.form == "rep" else self.ips + self.hosts
        first, others = names[0], names[1:]
        return first + (f" ({', '.join(others)})" if others else "")

    @cached_property
    def decoded(self) -> Message:
        """The prefix read back, in words (the alert page's "Minted at", the plain-text alert, JSON);
        made once per subsystem (a reference check's diagnoses share theirs: :class:`RegistryView`)."""
        if self.form == "ibip":
            text = N_("the IBIp prefix %(prefix)s encodes IP %(ip)s, port %(port)s (Algorithm 5)",
                      prefix=self.prefix, ip=self.ips[0], port=self.port)
        else:
            text = N_("the repository-name prefix %(prefix)s encodes host %(host)s, port %(port)s (Algorithm 1)",
                      prefix=self.prefix, host=self.hosts[0], port=self.port)
        known = self.hosts[1:] if self.form == "rep" else self.hosts
        known_ips = self.ips[1:] if self.form == "ibip" else self.ips
        if known or known_ips:
            return N_("%(decoded)s; known prefix pairs name the same server %(names)s",
                      decoded=text, names=", ".join(known or known_ips))
        return text

    def holds(self, address: str | None, ip: str | None = None) -> bool:
        """Whether an Archive at ``address`` (``host[:port]``), with IP ``ip``, is on this server.

        Ports are not compared: URLib wrote port 80 in names and 800 in IBIp for the same server,
        and an Archive's service port need not be its identification subsystem's.
        """
        host = _host_of(address) if address else None
        names = self._names
        return bool((host and host.lower() in names) or (ip and ip.lower() in names))

    @cached_property
    def _names(self) -> frozenset[str]:
        return frozenset(name.lower() for name in self.hosts + self.ips)

    def to_dict(self) -> dict[str, Any]:
        return {"prefix": self.prefix, "form": self.form, "hosts": list(self.hosts), "ips": list(self.ips),
                "port": self.port, "decoded": self.decoded}


@dataclass(frozen=True)
class ArchiveOutcome:
    """One Archive and what became of it: registered but excluded, or asked and how it ended."""

    name: str
    address: str | None
    state: str  # "excluded", "answered-empty", "failed", "answered"
    detail: str

    def to_dict(self) -> dict[str, Any]:
        data = {"name": self.name, "address": self.address, "state": self.state, "detail": self.detail}
        if (record := to_record(self.detail)) is not None:
            data["detail_i18n"] = record
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ArchiveOutcome:
        return cls(data["name"], data["address"], data["state"], from_record(data["detail"], data.get("detail_i18n")))


@dataclass(frozen=True)
class NotFoundDiagnosis:
    """The explanation of a not-found, shown on the Trace page, in the JSON trace and on the alert page."""

    ibi: str
    case: Case
    subsystem: IssuingSubsystem
    at_address: tuple[ArchiveOutcome, ...]
    failed: tuple[ArchiveOutcome, ...]
    next_steps: tuple[NextStep, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ibi": self.ibi,
            "case": self.case.value,
            "subsystem": self.subsystem.to_dict(),
            "at_address": [outcome.to_dict() for outcome in self.at_address],
            "failed": [outcome.to_dict() for outcome in self.failed],
            "next_steps": [step.text for step in self.next_steps],
            "next_step_details": [step.to_dict() for step in self.next_steps],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NotFoundDiagnosis:
        subsystem = data["subsystem"]
        return cls(
            ibi=data["ibi"],
            case=Case(data["case"]),
            subsystem=IssuingSubsystem(subsystem["prefix"], subsystem["form"], tuple(subsystem["hosts"]),
                                tuple(subsystem["ips"]), subsystem["port"]),
            at_address=tuple(ArchiveOutcome.from_dict(outcome) for outcome in data["at_address"]),
            failed=tuple(ArchiveOutcome.from_dict(outcome) for outcome in data["failed"]),
            next_steps=_next_steps_of(data),
        )


def subsystem_of(ibi: Ibip | Any, prefix_pairs: Iterable[Sequence[str]] = ()) -> IssuingSubsystem:
    """The server ``ibi``'s prefix names, completed by the known (rep prefix, IBIp prefix) pairs."""
    pairs = list(prefix_pairs)
    if ibi.form == "ibip":
        hosts = tuple(_unique(decode_rep_prefix(rep)[0] for rep in rep_prefixes_for(ibi.prefix, pairs)))
        return IssuingSubsystem(ibi.prefix, "ibip", hosts, (ibi.ip,), ibi.port)
    ips = tuple(_unique(decode_ibip_prefix(ibip)[0] for ibip in ibip_prefixes_for(ibi.prefix, pairs)))
    return IssuingSubsystem(ibi.prefix, "rep", (ibi.host,), ips, ibi.port)


def diagnose(
    resolution: Resolution, registry: Iterable[RegisteredArchive], prefix_pairs: Iterable[Sequence[str]] = (),
    exclusions: Mapping[str, ArchiveEvent] | None = None,
) -> NotFoundDiagnosis | None:
    """The diagnosis of a not-found resolution; ``None`` when it found a URL or ended otherwise.
    ``exclusions`` is each excluded Archive's last ``excluded`` event of its history (by service
    IBI): when it was excluded, and by whom or why, which the registry row alone does not say."""
    return RegistryView(registry, prefix_pairs, exclusions).diagnose(resolution)


class RegistryView:
    """The registry, the prefix table and the last exclusions as diagnoses read them, indexed
    once: the Archives by address, the excluded ones, and each prefix's issuing subsystem.

    A reference check diagnoses each of its not-founds (up to 5,000) against the registry as it
    was when the check started; indexing the registry and decoding the IBI's prefix against the
    prefix table for each of them was a tenth of the check's CPU (``benchmarks/references.py
    --profile``). The IBIs of one list mostly share a few prefixes. Safe to share between
    threads: a prefix decoded twice at once stores the same subsystem twice."""

    def __init__(self, registry: Iterable[RegisteredArchive], prefix_pairs: Iterable[Sequence[str]] = (),
                 exclusions: Mapping[str, ArchiveEvent] | None = None) -> None:
        self.registry = tuple(registry)
        self.prefix_pairs = [tuple(pair) for pair in prefix_pairs]
        self.exclusions = exclusions or {}
        self.by_address = {archive.address.lower(): archive for archive in self.registry if archive.address}
        self.excluded = tuple(archive for archive in self.registry if not archive.included and archive.address)
        self._subsystems: dict[tuple[str, str], IssuingSubsystem] = {}

    def subsystem(self, ibi: Ibip | Any) -> IssuingSubsystem:
        """:func:`subsystem_of` the IBI's prefix, decoded once per prefix."""
        key = (ibi.form, ibi.prefix)
        known = self._subsystems.get(key)
        if known is None:
            known = self._subsystems[key] = subsystem_of(ibi, self.prefix_pairs)
        return known

    def diagnose(self, resolution: Resolution) -> NotFoundDiagnosis | None:
        """:func:`diagnose` against this registry."""
        if resolution.alert is None or resolution.alert.reason not in NOT_FOUND_ALERTS:
            return None
        asked = asked_ibi(resolution)
        if asked is None:  # the engine's own bad-request alert is not a not-found
            return None
        ibi = parse_ibi(asked)
        subsystem = self.subsystem(ibi)
        by_address = self.by_address
        outcomes = [_outcome(step, by_address) for step in _first_round(resolution)]
        asked_addresses = {(outcome.address or "").lower() for outcome in outcomes}
        here = [
            outcome for outcome in outcomes
            if subsystem.holds(outcome.address, getattr(by_address.get((outcome.address or "").lower()), "ip", None))
        ]
        here += [
            _excluded(archive, self.exclusions.get(archive.service_ibi))
            for archive in self.excluded
            if archive.address.lower() not in asked_addresses and subsystem.holds(archive.address, archive.ip)
        ]
        failed = tuple(outcome for outcome in outcomes if outcome.state == "failed")
        case = _case(here)
        return NotFoundDiagnosis(str(ibi), case, subsystem, tuple(here), failed,
                                 _next_steps(str(ibi), case, subsystem, here, failed, self.exclusions))


def asked_ibi(resolution: Resolution) -> str | None:
    """The IBI of the persistent URL resolved, as the trace's facts say: the capture (2), or the
    first round's (3) in a trace that travelled without its capture (``published``)."""
    for step in (*resolution.trace.numbered(2), *_first_round(resolution)):
        if step.ibi:
            return step.ibi
    return None


def _first_round(resolution: Resolution) -> list[TraceStep]:
    """Messages (3)/(4) of the round about the URL's own IBI (later rounds ask other IBIs)."""
    return [step for step in resolution.trace.numbered(3) if step.hop == 1]


def _outcome(step: TraceStep, registered: dict[str, RegisteredArchive]) -> ArchiveOutcome:
    """A registered Archive is named by its archive-service IBI, an in-process one by its name."""
    address = step.archive
    entry = registered.get((address or "").lower())
    name = entry.service_ibi if entry is not None else step.receiver
    if step.status is Status.EMPTY:
        return ArchiveOutcome(name, address, "answered-empty", N_("answered that it holds no item with this IBI"))
    if step.status in FAILURES:
        detail = failure_words(step.status, step.http_status, step.error)
        if step.elapsed_ms is not None:
            detail = N_("%(failure)s, after %(ms)s ms", failure=detail, ms=decimal(step.elapsed_ms))
        return ArchiveOutcome(name, address, "failed", detail)
    if step.status is Status.SET_ASIDE:
        return ArchiveOutcome(name, address, "answered", N_("answered, but its answer was set aside (%(why)s)",
                                                            why=step.error))
    return ArchiveOutcome(name, address, "answered", N_("answered, but with no URL for what was asked"))


def _case(here: Sequence[ArchiveOutcome]) -> Case:
    states = {outcome.state for outcome in here}
    if "failed" in states:
        return Case.INCLUDED_FAILED
    if states & {"answered-empty", "answered"}:
        return Case.INCLUDED_EMPTY
    if "excluded" in states:
        return Case.EXCLUDED
    return Case.NONE_REGISTERED


def _excluded(archive: RegisteredArchive, event: ArchiveEvent | None) -> ArchiveOutcome:
    """A registered Archive at the address that is not asked: since when, and why if its history says."""
    when = _when(event.at if event is not None else archive.updated_at)
    if event is not None and event.detail:
        detail = N_("registered, but excluded on %(date)s (%(why)s)", date=when, why=event.detail)
    else:
        detail = N_("registered, but excluded on %(date)s", date=when)
    return ArchiveOutcome(archive.service_ibi, archive.address, "excluded", detail)


def _next_steps(ibi: str, case: Case, subsystem: IssuingSubsystem, here: Sequence[ArchiveOutcome],
                failed: Sequence[ArchiveOutcome], exclusions: Mapping[str, ArchiveEvent]) -> tuple[NextStep, ...]:
    """Who should do what, each step with the public pages where it is checked or done."""
    steps: list[NextStep] = []
    if case is Case.NONE_REGISTERED:
        steps.append(NextStep(
            N_("No Archive at %(where)s is registered with this resolver: the item's Archive administrator should "
            "register it (its archive-service IBI and a registration key, §7.1) and include it "
            "(inclusionRequest, §7.2). The Archive health page lists every Archive registered here."),
            {"where": subsystem.where}, (Page.ARCHIVE_HEALTH,)))
        steps.append(NextStep(
            N_("Check the identifier for typos first: a mistyped prefix names another server."),
            pages=(Page.PARSE, Page.CONVERT)))
    elif case is Case.EXCLUDED:
        for outcome in here:
            if outcome.state == "excluded":
                steps.append(_excluded_step(outcome, exclusions.get(outcome.name)))
    elif case is Case.INCLUDED_FAILED:
        for outcome in here:
            if outcome.state == "failed":
                steps.append(NextStep(
                    N_("The Archive %(name)s at %(address)s is included but %(detail)s: its administrator should "
                    "check that its server is up and answers urlRequest within the resolver's deadline; then "
                    "trace again."),
                    {"name": outcome.name, "address": outcome.address or "", "detail": outcome.detail},
                    (Page.ARCHIVE_HEALTH, Page.TRACE)))
    else:
        names = ", ".join(f"{outcome.name} ({outcome.address})" for outcome in here if outcome.state != "excluded")
        steps.append(NextStep(
            N_("The Archive at %(where)s, %(names)s, is included and answered that it holds no item %(ibi)s: "
            "check the identifier for typos; if it is right, that Archive's administrator should check whether "
            "the item was moved or removed without a Deleted state."),
            {"where": subsystem.where, "names": names, "ibi": ibi}, (Page.PARSE, Page.CONVERT)))
    others = [outcome for outcome in failed if outcome not in here]
    if others and case is Case.NONE_REGISTERED:
        # Nobody at the IBI's address to ask, and some Archive did not answer: the item may be
        # held by it (a copy, or an Archive on another server), so that comes before registering one.
        listed = tuple(N_("%(name)s (%(detail)s)", name=outcome.name, detail=outcome.detail) for outcome in others)
        steps.insert(0, NextStep(
            N_("First, the Archives that failed to answer: %(listed)s. One of them may hold the item: its "
               "administrator should look at it, then trace again."), {"listed": listed},
            (Page.ARCHIVE_HEALTH, Page.TRACE)))
    elif others:
        listed = tuple(N_("%(name)s (%(detail)s)", name=outcome.name, detail=outcome.detail) for outcome in others)
        steps.append(NextStep(
            N_("Other Archives failed to answer: %(listed)s. If one of them holds the item, its administrator "
            "should look at it."), {"listed": listed}, (Page.ARCHIVE_HEALTH,)))
    return tuple(steps)


def _excluded_step(outcome: ArchiveOutcome, event: ArchiveEvent | None) -> NextStep:
    """"The Archive at X was excluded on <date>", with the history's reason when it has one: an
    excluded Archive is registered, so registering it (the step for an empty address) would be wrong."""
    values = {"name": outcome.name, "address": outcome.address or ""}
    if event is None:
        return NextStep(
            N_("The Archive %(name)s at %(address)s is registered but excluded: the resolver no longer asks it. "
            "It is asked again once it is included again (its inclusionRequest, §7.2, or an administrator)."),
            values, (Page.ARCHIVE_HEALTH,))
    return NextStep(
        N_("The Archive %(name)s at %(address)s was excluded on %(date)s (its history says: %(why)s), so the "
        "resolver no longer asks it. It is asked again once it is included again (its inclusionRequest, §7.2, "
        "or an administrator)."),
        {**values, "date": _when(event.at), "why": event.detail or N_("no reason given")}, (Page.ARCHIVE_HEALTH,))


def _when(at: str) -> str:
    """A stored UTC time (``2026-11-24T07:10:05.987505Z``) as people read it: ``2026-11-24 07:10 UTC``."""
    return f"{at[:10]} {at[11:16]} UTC" if len(at) >= 16 and at[10] == "T" else at


def _next_steps_of(data: dict[str, Any]) -> tuple[NextStep, ...]:
    """The next steps of a diagnosis's JSON; a trace stored before they had pages keeps its sentences."""
    details = data.get("next_step_details")
    if details is None:
        return tuple(NextStep(text, translatable=False) for text in data["next_steps"])
    return tuple(NextStep.from_dict(step) for step in details)


def _host_of(address: str) -> str:
    """``host`` of ``host:port`` (``[v6]:port`` and a bare IPv6 too)."""
    if address.startswith("["):
        return address[1:].split("]", 1)[0]
    if address.count(":") == 1:
        return address.split(":", 1)[0]
    return address


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))
