"""The resolver's registry of Archives as values (file 003 §7.1–§7.2): who is registered, with
which key hash, and what each inclusion said.

Both sides of the registry use these: the resolver service decides with them and storage keeps
them, so neither imports the other, and the values sit in the core, pure, with the messages
they are read from.

The registry has one module per layer (the design's "The registry"): ``protocol.registry``
its values, ``resolver.registry_service`` §7.2's service, ``storage.registry`` what is kept,
``application.registry`` the administrator's use case, which wires the other three.
"""
from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field

from ibiportal.protocol.messages import InclusionRequest, RegistrationKey


@dataclass(frozen=True)
class KeyHash:
    """A registration key (Table 7.1) as stored: scrypt with a per-record random salt.

    The key itself is never kept; :meth:`matches` recomputes the hash of a candidate and
    compares the digests with :func:`hmac.compare_digest` (constant time).
    """

    salt: bytes = field(repr=False)
    digest: bytes = field(repr=False)
    n: int = 2**14
    r: int = 8
    p: int = 1

    ALGORITHM = "scrypt"

    @classmethod
    def of(cls, key: RegistrationKey) -> KeyHash:
        """Hash ``key`` with a fresh 16-byte salt."""
        salt = os.urandom(16)
        return cls(salt, cls._derive(key, salt, cls.n, cls.r, cls.p), cls.n, cls.r, cls.p)

    @staticmethod
    def _derive(key: RegistrationKey, salt: bytes, n: int, r: int, p: int) -> bytes:
        return hashlib.scrypt(key.reveal().encode("ascii"), salt=salt, n=n, r=r, p=p, dklen=32)

    def matches(self, key: RegistrationKey) -> bool:
        """Whether ``key`` is the registered key (constant-time comparison of the digests)."""
        return hmac.compare_digest(self._derive(key, self.salt, self.n, self.r, self.p), self.digest)

    def encode(self) -> str:
        """``scrypt$n$r$p$<salt hex>$<digest hex>``, the stored text."""
        return "$".join((self.ALGORITHM, str(self.n), str(self.r), str(self.p), self.salt.hex(), self.digest.hex()))

    @classmethod
    def decode(cls, text: str) -> KeyHash:
        """The inverse of :meth:`encode`; ``ValueError`` for a text it did not write."""
        algorithm, n, r, p, salt, digest = text.split("$")
        if algorithm != cls.ALGORITHM:
            raise ValueError(f"unknown key hash algorithm {algorithm!r}")
        return cls(bytes.fromhex(salt), bytes.fromhex(digest), int(n), int(r), int(p))


@dataclass(frozen=True)
class ArchiveDetails:
    """What an ``inclusionRequest`` says about the Archive (Table 7.2), the key left out."""

    address: str
    ip: str
    platform_version: str
    admin_email: str

    @classmethod
    def of(cls, request: InclusionRequest) -> ArchiveDetails:
        return cls(
            request.archive_address,
            request.archive_ip,
            request.archive_platform_version,
            request.archive_adm_email_address,
        )


@dataclass(frozen=True)
class Confirmation:
    """Result of "Solicitar confirmação" (3)/(4): ``successful`` and, for people, why (§7.2)."""

    successful: bool
    detail: str

    @property
    def word(self) -> str:
        """``successful`` or ``unsuccessful``, the value of ``status.confirmation``."""
        return "successful" if self.successful else "unsuccessful"


@dataclass(frozen=True)
class RegisteredArchive:
    """A registered Archive (§7.1) and what its last inclusion said (§7.2).

    ``address`` … ``admin_email`` are ``None`` until the first inclusion;
    ``last_confirmation`` is ``successful``, ``unsuccessful`` or ``None``. Times are ISO 8601
    UTC texts. ``key_generated``: whether the portal generated the key (``None``: not known, for
    Archives registered before the portal kept it).
    """

    service_ibi: str
    key_hash: KeyHash = field(repr=False)
    registered_at: str
    updated_at: str
    included: bool = False
    address: str | None = None
    ip: str | None = None
    platform_version: str | None = None
    admin_email: str | None = None
    last_confirmation: str | None = None
    key_generated: bool | None = None


@dataclass(frozen=True)
class ArchiveEvent:
    """One line of an Archive's history: ``kind`` is registered, included, excluded or refused."""

    at: str
    kind: str
    detail: str
