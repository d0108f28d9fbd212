"""Imports started from the Import page, run in the background with their progress in the database.

An import of thousands of records (an OAI-PMH harvest of a whole Archive) takes longer than one
request may: behind nginx and gunicorn a request is cut after a timeout, and a page that streams
the outcomes shows them only to the one browser tab that asked, and not after a reload. So the page
starts a *run*: the import goes on in a thread of the process that received it, and writes its
progress (records done of how many, each outcome, the counts) to the database after each record
(``storage.import_runs``). The run's page reads it from there, from any worker or node, reloaded
or opened by another administrator, and ends with the report.

Nothing is half-written: each item is still written whole or not at all by
:class:`~.importing.Importer` (a package by :class:`~.packaging.PackageImporter`); the progress row
of an outcome is written after its item's commit. A run whose process ends (a restart, a deploy, gunicorn
replacing a worker after ``max_requests``) stops where it was: every item before is whole, none
after was begun. Its row is then no longer renewed (``alive_at``, every :data:`HEARTBEAT_SECONDS`
while it runs), and after :data:`STALE_SECONDS` its page says it was interrupted; running the same
source again goes on, every item done being ``unchanged``.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Literal

from ..ibi.history import Actor
from ..errors import ParseError
from ..i18n import N_
from ..storage.database import Storage, iso
from ..storage.import_runs import ImportRun, ImportRunStore
from .import_sources import ImportSource, Reading
from .importing import OUTCOMES, Fetch, Importer, SourceUnreachable, Totals, http_fetch

log = logging.getLogger(__name__)

#: Seconds between two signs of life of a running import.
HEARTBEAT_SECONDS = 10.0
#: Seconds without a sign of life after which a run is taken for interrupted (its process ended).
STALE_SECONDS = 6 * HEARTBEAT_SECONDS

RunState = Literal["running", "finished", "stopped", "interrupted"]


def state_of(run: ImportRun, now: datetime) -> RunState:
    """``running``; ``finished`` (every record done), ``stopped`` (the source stopped, or the
    import failed); ``interrupted`` (its process ended without a word: not heard from lately)."""
    if run.finished_at is not None:
        return "stopped" if run.stopped else "finished"
    return "running" if run.alive_since(STALE_SECONDS, now) else "interrupted"


class ImportRuns:
    """Starts import runs in threads of this process.

    ``open_storage`` opens a connection of the run's own (the request that starts it closes its
    one); ``make_importer`` builds the importer over a connection, with the prefix pairs known
    when the run was started; ``fetch`` asks an OAI-PMH source for a page. ``threads`` are this
    process's runs, by id (a test waits for one).
    """

    def __init__(self, open_storage: Callable[[], Storage],
                 make_importer: Callable[[Storage, Sequence[Sequence[str]]], Importer],
                 heartbeat_seconds: float = HEARTBEAT_SECONDS, fetch: Fetch = http_fetch) -> None:
        self.open_storage = open_storage
        self.make_importer = make_importer
        self.heartbeat_seconds = heartbeat_seconds
        self.fetch = fetch
        self.threads: dict[str, threading.Thread] = {}

    def start(self, source: ImportSource, *, dry_run: bool, update: bool, started_by: str,
              pairs: Sequence[Sequence[str]]) -> str:
        """Record the run and start it; its id at once (the import goes on in the background)."""
        storage = self.open_storage()
        try:
            stale_before = iso(storage.clock() - timedelta(seconds=STALE_SECONDS))
            run_id = ImportRunStore(storage).create(source.name, source.data, dry_run=dry_run, update=update,
                                                    started_by=started_by, counts=dict.fromkeys(OUTCOMES, 0),
                                                    stale_before=stale_before)
        finally:
            storage.close()
        actor = Actor("import", f"{source.file_name} (administrator {started_by})")
        thread = threading.Thread(target=self._run, args=(run_id, source, dry_run, update, actor, pairs),
                                  name=f"import-{run_id}", daemon=True)
        self.threads = {key: running for key, running in self.threads.items() if running.is_alive()}
        self.threads[run_id] = thread
        thread.start()
        return run_id

    def _run(self, run_id: str, source: ImportSource, dry_run: bool, update: bool, actor: Actor,
             pairs: Sequence[Sequence[str]]) -> None:
        done = threading.Event()
        threading.Thread(target=self._beat, args=(run_id, done), name=f"import-{run_id}-alive", daemon=True).start()
        try:
            storage = self.open_storage()
        except Exception:  # noqa: BLE001 - not a record was read: the run shows interrupted once stale
            done.set()
            log.exception("import run %s could not open the database", run_id)
            return
        store, stopped, reading = ImportRunStore(storage), None, None
        try:
            reading = Reading(source, self.make_importer(storage, pairs), dry_run=dry_run, update=update, actor=actor,
                              fetch=self.fetch)
            totals = Totals()
            for seq, outcome in enumerate(reading):
                totals.add(outcome)
                store.record(run_id, seq, outcome.to_dict(), totals.counts, reading.total)
        except ParseError as error:
            stopped = error.message
        except SourceUnreachable as error:
            stopped = error.args[0]
        except Exception:  # noqa: BLE001 - the run must end said, whatever stopped it; the log keeps the rest
            log.exception("import run %s stopped", run_id)
            stopped = N_("the import stopped on an error of the portal (its log says which); the records before "
                         "it were imported whole")
        finally:
            done.set()
            try:
                store.finish(run_id, stopped, reading.total if reading else None)
            finally:
                storage.close()

    def _beat(self, run_id: str, done: threading.Event) -> None:
        """Renew the run's ``alive_at`` until it is done, on a connection of its own."""
        storage = None
        try:
            while not done.wait(self.heartbeat_seconds):
                storage = storage or self.open_storage()
                ImportRunStore(storage).beat(run_id)
        except Exception:  # noqa: BLE001 - a missed beat shows the run interrupted, never breaks it
            log.exception("import run %s: its sign of life could not be written", run_id)
        finally:
            if storage is not None:
                storage.close()

