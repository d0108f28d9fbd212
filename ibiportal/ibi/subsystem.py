"""The portal's identification subsystem: the server both prefixes name, and its granularity r.

Pure: the prefixes (Algorithms 1 and 5) and Algorithm 4's step as the portal takes it. The
persisted ``last-date-for-suffix`` and the transaction that advances it are the minter's
(``application.minting``) and storage's (``storage.identifiers``).
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property

from ibiportal.ibi.dates import split_date
from ibiportal.ibi.distributor import DistributorStep, next_date, validate_granularity
from ibiportal.ibi.ibip import ibip_prefix
from ibiportal.ibi.repository import rep_prefix


@dataclass(frozen=True)
class Subsystem:
    """The portal's identification subsystem: the server named by both prefixes, and r."""

    host: str
    port: int
    ip: str
    ibip_port: int
    granularity: Decimal

    # Computed once per subsystem, not per mint: Algorithm 5 costs a fifth of a millisecond, and
    # every mint asks for the key while it holds the lock other mints queue for.

    @cached_property
    def rep_prefix(self) -> str:
        """Algorithm 1."""
        return rep_prefix(self.host, self.port)

    @cached_property
    def ibip_prefix(self) -> str:
        """Algorithm 5."""
        return ibip_prefix(self.ip, self.ibip_port)

    @cached_property
    def key(self) -> str:
        """Which subsystem's clock to advance: both prefixes, since both are issued together."""
        return f"{self.rep_prefix} {self.ibip_prefix}"

    @classmethod
    def validated(cls, host: str, port: int, ip: str, ibip_port: int, granularity: Decimal | str) -> Subsystem:
        """Build (and so validate) the subsystem from the portal's ``MINT_*`` settings."""
        subsystem = cls(host=host.lower(), port=port, ip=ip, ibip_port=ibip_port,
                        granularity=validate_granularity(Decimal(str(granularity))))
        _ = subsystem.key  # builds both prefixes: a bad host, IP or port fails at start-up
        return subsystem


def ibip_safe_step(now: Decimal, last: Decimal | None, r: Decimal) -> DistributorStep:
    """Algorithm 4, skipping the slots whose IBIp would repeat an earlier one's.

    Algorithm 6 writes a fraction of a second as an integer numeral, so ``S.01`` and ``S.1``
    get the same IBIp suffix (STANDARD.md §1.4 warns of it). With r <= 0.01 the distributor
    would issue both; the portal instead treats ``S.0…`` as taken and moves to ``S.1``, so
    both forms stay unique and reversible (about 9% of the slots at r = 0.01).
    """
    step = next_date(now, last, r)
    seconds, fraction = split_date(step.date_for_suffix)
    if fraction.startswith("0"):
        step = next_date(now, Decimal(seconds) + Decimal("0.1") - r, r)
    return step
