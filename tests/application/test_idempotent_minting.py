"""Minting a client may retry (Idempotency-Key), on SQLite and PostgreSQL: a request sent again
answers its first sending's items; a half-done one is completed, never doubled; two workers
running it at once mint each item once; a key is forgotten only after 24 hours."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from itertools import count

import pytest

from ibiportal.application.idempotent_minting import KEPT_HOURS, IdempotentMinting, KeyReused, fingerprint
from ibiportal.application.minting import Minter
from ibiportal.ibi.mint_request import MintRequest
from ibiportal.ibi.subsystem import Subsystem
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.storage.mint_keys import MintKeyStore
from ibiportal.ibi.history import Actor

TESTER = Actor("command", "tests")

SUBSYSTEM = Subsystem(host="mtc-m18.sid.inpe.br", port=80, ip="150.163.34.243", ibip_port=800, granularity=Decimal(1))
REQUEST = MintRequest(title="Relatório")
PRINT = fingerprint({"title": "Relatório"})


class Portal:
    """One worker's view of the database: its own connection, a shared clock of mint dates."""

    def __init__(self, setting: str, seconds, now: list[datetime]) -> None:
        storage = Storage(setting)
        self.storage = storage
        self.minter = Minter(IdentifierStore(storage), SUBSYSTEM, clock=lambda: Decimal(next(seconds)),
                             sleep=lambda _: None)
        self.minting = IdempotentMinting(self.minter, MintKeyStore(storage), IdentifierStore(storage),
                                         clock=lambda: now[0])


@pytest.fixture
def portals(database_setting):
    seconds = count(1234806360, 60)
    now = [datetime(2026, 11, 24, 9, 0, tzinfo=timezone.utc)]
    made: list[Portal] = []

    def portal() -> Portal:
        made.append(Portal(database_setting, seconds, now))
        return made[-1]

    portal.now = now
    yield portal
    for each in made:
        each.storage.close()


def ibips(outcome) -> list[str]:
    return [item.ibip for item in outcome.items]


def test_the_same_key_answers_the_same_items_and_another_request_is_refused(portals):
    portal = portals()
    first = portal.minting.mint(2, REQUEST, "key-1", "client:192.0.2.1", PRINT, actor=TESTER)
    again = portal.minting.mint(2, REQUEST, "key-1", "client:192.0.2.1", PRINT, actor=TESTER)
    assert ibips(again) == ibips(first) and len(set(ibips(first))) == 2
    assert (first.replayed, again.replayed) == (False, True)
    assert len(portal.minter.store.minted_items()) == 2
    with pytest.raises(KeyReused, match="used with another request"):
        portal.minting.mint(2, MintRequest(title="Other"), "key-1", "client:192.0.2.1", fingerprint({"title": "Other"}), actor=TESTER)
    other_client = portal.minting.mint(2, REQUEST, "key-1", "client:192.0.2.2", PRINT, actor=TESTER)
    assert not set(ibips(other_client)) & set(ibips(first))


def test_a_request_stopped_half_way_is_completed_by_its_retry(portals):
    portal = portals()
    real_mint = portal.minter.mint
    calls = count()

    def dies_on_the_second(request, also=None, *, actor):
        if next(calls) == 1:
            raise ConnectionError("the worker was killed")
        return real_mint(request, also, actor=actor)

    portal.minter.mint = dies_on_the_second
    with pytest.raises(ConnectionError):
        portal.minting.mint(3, REQUEST, "key-2", "token:ci", PRINT, actor=TESTER)
    portal.minter.mint = real_mint
    retried = portal.minting.mint(3, REQUEST, "key-2", "token:ci", PRINT, actor=TESTER)
    assert len(set(ibips(retried))) == 3 and retried.replayed
    assert sorted(item.ibip for item in portal.minter.store.minted_items()) == sorted(ibips(retried))


def test_two_workers_running_the_same_request_mint_each_item_once(portals):
    workers = [portals() for _ in range(4)]
    outcomes: list = [None] * len(workers)
    start = threading.Barrier(len(workers))

    def run(index: int) -> None:
        start.wait()
        outcomes[index] = workers[index].minting.mint(2, REQUEST, "key-3", "client:192.0.2.9", PRINT, actor=TESTER)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert all(ibips(outcome) == ibips(outcomes[0]) for outcome in outcomes)
    assert len(set(ibips(outcomes[0]))) == 2
    assert len(workers[0].minter.store.minted_items()) == 2


def test_a_key_is_kept_24_hours_then_forgotten(portals):
    portal = portals()
    first = portal.minting.mint(1, REQUEST, "key-4", "client:192.0.2.1", PRINT, actor=TESTER)
    portals.now[0] += timedelta(hours=KEPT_HOURS) - timedelta(seconds=1)
    assert ibips(portal.minting.mint(1, REQUEST, "key-4", "client:192.0.2.1", PRINT, actor=TESTER)) == ibips(first)
    portals.now[0] += timedelta(seconds=2)
    assert ibips(portal.minting.mint(1, REQUEST, "key-4", "client:192.0.2.1", PRINT, actor=TESTER)) != ibips(first)


def test_without_a_key_every_request_mints(portals):
    portal = portals()
    assert ibips(portal.minting.mint(1, REQUEST, actor=TESTER)) != ibips(portal.minting.mint(1, REQUEST, actor=TESTER))
