"""Registering an Archive (file 003 §7.1), shared by the Archives page and ``flask archives register``.

§7.1: the Archive's administrator asks by e-mail (Example 7.1) to register the Archive's
service IBI with a registration key "de sua escolha" (Table 7.1); the resolver's
administrator enters both. When the Archive's administrator has not chosen one, a key is
generated here, to be sent back to them: it is shown once, when it is made, and never
again – only its hash (:class:`~ibiportal.protocol.registry.KeyHash`) is stored, and
no log line contains it.

The registry has one module per layer (the design's "The registry"): ``protocol.registry``
its values, ``resolver.registry_service`` §7.2's service, ``storage.registry`` what is kept,
``application.registry`` the administrator's use case, which wires the other three.
"""
from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import Conflict, ParseError
from ..i18n import N_, Message
from ..protocol.messages import InclusionRequest, RegistrationKey
from ..protocol.registry import ArchiveEvent, Confirmation, KeyHash, RegisteredArchive
from ..ibi.clock import Clock
from ..ibi.identifier import parse_ibi
from ..resolver.registry_service import RegistrationService
from ..resolver.transport import Transport
from ..storage.database import Storage
from ..storage.registry import ArchiveStore

#: Digits in each of the two numbers of a generated key (Table 7.1 asks for 10 or more):
#: 2 × 15 random decimal digits, about 100 bits.
GENERATED_KEY_DIGITS = 15


class AlreadyRegistered(Conflict):
    """The service IBI is registered already; remove it first to change its key."""

    def __init__(self, service_ibi: str):
        super().__init__(f"{service_ibi} is already registered; remove it first to register it with another key")
        self.service_ibi = service_ibi


@dataclass(frozen=True)
class Registration:
    """A registration just made. ``key`` is the key itself: show it once if ``generated``."""

    service_ibi: str
    key: RegistrationKey = field(repr=False)
    generated: bool


def generate_key() -> RegistrationKey:
    """A fresh key ``número "-" número`` (Table 7.1), each number 15 digits from :mod:`secrets`."""
    numbers = (f"{secrets.randbelow(10**GENERATED_KEY_DIGITS):0{GENERATED_KEY_DIGITS}d}" for _ in range(2))
    return RegistrationKey("-".join(numbers))


class Registering:
    """The registry of Archives as the resolver's administrator keeps it (§7.1, §7.2): register,
    list, read an Archive's history, record a confirmation request, exclude, include again and
    remove; the Archives page and ``flask archives`` share it. ``storage``: the calling unit of
    work's; ``clock``: the application's, which dates every event."""

    def __init__(self, storage: Callable[[], Storage], clock: Clock) -> None:
        self.storage = storage
        self.clock = clock

    def _store(self) -> ArchiveStore:
        return ArchiveStore(self.storage())

    def register(self, service_ibi: str, key: str | None) -> Registration:
        """Register ``service_ibi`` (either IBI form) with ``key``, or with a generated key when ``key`` is ``None``.

        Raises :class:`ParseError` (field ``service_ibi`` or ``registration_key``, with the
        position; a key is never quoted) or :class:`AlreadyRegistered`.
        """
        try:  # the page names the field by its label, so the message does not repeat Table 7.2's pair name
            ibi = str(parse_ibi(service_ibi))
        except ParseError as error:
            raise ParseError(error.message, error.position, "service_ibi") from error
        if key is None:
            registration_key, generated = generate_key(), True
        else:
            try:
                registration_key, generated = RegistrationKey(key, field=N_("the registration key")), False
            except ParseError as error:
                raise ParseError(error.message, error.position, "registration_key") from error
        if not self._store().register_archive(ibi, KeyHash.of(registration_key), self.clock(), key_generated=generated):
            raise AlreadyRegistered(ibi)
        return Registration(ibi, registration_key, generated)

    def archives(self) -> list[RegisteredArchive]:
        """Every registered Archive, by service IBI."""
        return self._store().archives()

    def find(self, service_ibi: str) -> RegisteredArchive | None:
        return self._store().find_archive(service_ibi)

    def events(self, service_ibi: str) -> list[ArchiveEvent]:
        """An Archive's history, oldest first."""
        return self._store().archive_events(service_ibi)

    def record_confirmation(self, service_ibi: str, confirmation: Confirmation) -> None:
        self._store().record_confirmation(service_ibi, confirmation, self.clock())

    def exclude(self, service_ibi: str, detail: Message) -> None:
        self._store().record_exclusion(service_ibi, self.clock(), detail)

    def include_again(self, service_ibi: str, detail: Message) -> bool:
        return self._store().record_reinclusion(service_ibi, self.clock(), detail)

    def remove(self, service_ibi: str) -> bool:
        """Forget an Archive and its history; ``False`` when it was not registered."""
        return self._store().remove_archive(service_ibi)

    def service(self, transport: Transport, allow_private: bool) -> RegistrationService:
        """The resolver's registration service (§7.2: what Archives send to ``/<resolver service IBI>``)."""
        return RegistrationService(self._store(), transport, allow_private=allow_private, clock=self.clock)


#: What an Archive's administrator fills in before sending the inclusion request.
PLACEHOLDERS = {
    "archiveaddress": "ARCHIVE_ADDRESS",  # host[:port] the resolver will ask (§6.1)
    "archiveip": "ARCHIVE_IP",
    "archiveplatformversion": "PLATFORM_VERSION",
    "archiveadmemailaddress": "ADMIN_EMAIL",
    "registrationkey": "REGISTRATION_KEY",
}


def inclusion_request_pairs(service_ibi: str) -> list[tuple[str, str]]:
    """The eight pairs of Table 7.2 for ``service_ibi``'s ``inclusionRequest``, in the table's
    order, with placeholders for what only the Archive knows (and for its key, never shown)."""
    known = {"archiveserviceibi": service_ibi, "archiveprotocol": "HTTP"}
    return [("servicesubject", InclusionRequest.SUBJECT)] + [
        (wire, known.get(wire) or PLACEHOLDERS[wire]) for wire, _, _ in InclusionRequest.PAIRS
    ]
