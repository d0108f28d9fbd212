"""The portal's tables as SQLAlchemy Core metadata: what the queries of this package are built
from. The schema itself changes only through the migrations (``migrations/versions``); a test
compares a migrated database with this metadata, on SQLite and on PostgreSQL.

Dates are kept as text: exact decimal Unix times (``date``, ``last_date``, …), which no float or
timestamp type would hold exactly, and ISO 8601 UTC strings.
"""
from __future__ import annotations

from sqlalchemy import BigInteger, CheckConstraint, Column, Index, Integer, LargeBinary, MetaData, Table, Text, text

#: The revision a database must be at for this code (the last file of ``migrations/versions``).
SCHEMA_REVISION = "0023"

metadata = MetaData()

#: Algorithm 4's GLOBAL last-date-for-suffix per identification subsystem, persisted so that no
#: restart, second worker or second node issues a date twice (STANDARD.md §1.3); read and
#: advanced under a row lock in the transaction that stores the item.
subsystem_clock = Table(
    "subsystem_clock", metadata,
    Column("subsystem", Text, primary_key=True),
    Column("last_date", Text, nullable=False),
    Column("last_reading", Text, nullable=False),
    Column("clock_offset", Text, nullable=False),
)

#: Identifiers minted by the portal: the items of its own Archive.
minted_item = Table(
    "minted_item", metadata,
    Column("id", Integer, primary_key=True),
    Column("rep", Text, nullable=False, unique=True),
    Column("ibip", Text, nullable=False, unique=True),
    Column("date", Text, nullable=False),
    Column("utc", Text, nullable=False),
    Column("subsystem", Text, nullable=False),
    Column("title", Text),
    Column("target_url", Text),
    Column("creators", Text),  # JSON list of names
    Column("item_date", Text),
    Column("language", Text),
    Column("created_at", Text, nullable=False),
    # what a reference needs (minted.Bibliographic)
    Column("item_type", Text),  # ibiportal.citation.ItemType slug, e.g. "doctoral thesis"
    Column("publisher", Text),
    Column("place", Text),
    Column("extent", Text),  # pages: "39", or as written
    Column("degree", Text),  # a thesis's degree, e.g. "Doutorado em Computação Aplicada"
    Column("report_number", Text),  # a report's number or INPE's document-type code ("NTC")
    # Table 9.3 timestamp: "data e hora da última atualização ou remoção" (NULL: as minted)
    Column("updated_at", Text),
    Column("deleted_at", Text),  # the tombstone: a Deleted item keeps its row, its IBI is never reused
    # moved to another Archive (application.releasing): the row stays, the own Archive answers nothing
    Column("released_at", Text),
    Column("successor", Text),  # the successor Archive's service URL, http://<address>/<service IBI>
    sqlite_autoincrement=True,
)

#: A minted item's links to other IBIs: its next edition, its translations.
item_link = Table(
    "item_link", metadata,
    Column("ibi", Text, primary_key=True),  # the minted item's IBIp
    Column("relation", Text, primary_key=True),  # "nextedition" or "translation"
    Column("language", Text, primary_key=True, server_default=text("''")),
    Column("target", Text, nullable=False),
    Index("item_link_target", "target"),  # the links to an item, read by every resolution of it (0023)
)

#: Copies the own Archive holds of other Archives' items (state Copy, Table 9.3): the IBI (its
#: normalized form, as given) and where the copy is served.
item_copy = Table(
    "item_copy", metadata,
    Column("ibi", Text, primary_key=True),
    Column("target_url", Text, nullable=False),
    Column("created_at", Text, nullable=False),
    Column("updated_at", Text, nullable=False),
)

#: The files of the own Archive's items (``ibiportal.storage.files``): one row per file, its
#: bytes in ``item_file_chunk``. Every node reads them from here, so every node serves every file.
item_file = Table(
    "item_file", metadata,
    Column("id", Integer, primary_key=True),
    Column("ibi", Text, nullable=False),  # the minted item's IBIp
    Column("path", Text, nullable=False),  # ibiportal.archive.file_path, NFC
    Column("content_type", Text, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("sha256", Text, nullable=False),  # hex: the ETag
    Column("chunk_bytes", Integer, nullable=False),  # every chunk but the last has this many
    Column("uploaded_at", Text, nullable=False),  # Last-Modified
    Index("item_file_ibi_path", "ibi", "path", unique=True),
    sqlite_autoincrement=True,
)

#: A file's bytes in chunks of ``item_file.chunk_bytes`` (seq 0, 1, …): a download or a Range
#: request reads one chunk at a time, never the whole file.
item_file_chunk = Table(
    "item_file_chunk", metadata,
    Column("file_id", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("data", LargeBinary, nullable=False),
)

#: Prefix pairs added by administrators or learnt (STANDARD.md §1.4); the standard's own pairs
#: are in code.
prefix_pair = Table(
    "prefix_pair", metadata,
    Column("rep_prefix", Text, primary_key=True),
    Column("ibip_prefix", Text, primary_key=True),
    Column("source", Text, nullable=False),
    Column("added_at", Text, nullable=False),
    Column("archive", Text),  # learnt: the Archive whose answer proved the pair
    Column("evidence", Text),  # learnt: that answer's pair, ``ibi {rep … ibip …}``
    # confirmed (a fact), suggested (an Archive's claim awaiting an administrator) or rejected (0019)
    Column("status", Text, nullable=False, server_default=text("'confirmed'")),
)

#: Resolution traces, kept within a count and a byte budget; ``size`` is the body's UTF-8 bytes.
trace = Table(
    "trace", metadata,
    Column("id", Text, primary_key=True),  # unguessable token, the permalink
    Column("created_at", Text, nullable=False),
    Column("persistent_url", Text, nullable=False),
    Column("outcome", Text, nullable=False),
    Column("body", Text, nullable=False),  # JSON of the Resolution
    Column("size", Integer, nullable=False, server_default=text("0")),
    Column("ibi", Text),  # the IBI resolved, as asked; NULL for traces stored before it was kept
    Column("options", Text),  # JSON: how it was asked (TRACE_OPTIONS); NULL for traces stored before 0022
    Index("trace_created_at", "created_at"),
    Index("trace_ibi", "ibi"),
    Index("trace_prune", "created_at", "id", "size"),  # pruning reads the index, not the rows (0012)
)

#: Traces started from the Trace page, by the fingerprint of who asked what (TraceRuns): a
#: repeated identical request joins ``trace_id`` while it runs (``finished_at`` NULL) or for a
#: few seconds after. One row per fingerprint, replaced when it is stale.
trace_run = Table(
    "trace_run", metadata,
    Column("fingerprint", Text, primary_key=True),
    Column("trace_id", Text, nullable=False),
    Column("started_at", Text, nullable=False),
    Column("finished_at", Text),
)

#: Registered Archives (file 003 §7.1-§7.2); only the key's scrypt hash is kept.
archive = Table(
    "archive", metadata,
    Column("service_ibi", Text, primary_key=True),
    Column("key_hash", Text, nullable=False),
    Column("included", Integer, nullable=False, server_default=text("0")),
    Column("address", Text),
    Column("ip", Text),
    Column("platform_version", Text),
    Column("admin_email", Text),
    Column("last_confirmation", Text),
    Column("registered_at", Text, nullable=False),
    Column("updated_at", Text, nullable=False),
    Column("key_generated", Integer),  # 1: generated by the portal, 0: chosen by the Archive, NULL: not known
)

#: Each Archive's history, bounded per Archive (registry.ARCHIVE_HISTORY_LIMIT).
archive_event = Table(
    "archive_event", metadata,
    Column("id", Integer, primary_key=True),
    Column("service_ibi", Text, nullable=False),
    Column("at", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("detail", Text, nullable=False),  # in English (the CLI, logs; the only one of older events)
    Column("detail_message", Text),  # the same as a message (ibiportal.i18n.to_record), shown in the reader's language
    Index("archive_event_service_ibi", "service_ibi", "id"),
    sqlite_autoincrement=True,
)

#: Outside resolvers the portal's own Archive asked to include or exclude it (file 003 §7.2, the
#: Archive's side of Figure 7.1): the last exchange with each. The registration key is the
#: Archive's secret for that resolver and is never stored: it is typed for every request.
joined_resolver = Table(
    "joined_resolver", metadata,
    Column("service_url", Text, primary_key=True),  # http://urlib.net/J8LNKB5R7W/3FUQHC5
    Column("action", Text, nullable=False),  # "join" (inclusionRequest) or "leave" (exclusionRequest)
    Column("outcome", Text, nullable=False),  # application.joining.JoinOutcome
    Column("status", Text),  # the resolver's answer as one line, when it answered a pair list
    Column("reason", Text),  # why the request was refused or failed, in words
    Column("reason_message", Text),  # the same as a message (ibiportal.i18n.to_record), shown in the reader's language
    Column("archive_address", Text, nullable=False),  # the archiveaddress sent
    Column("at", Text, nullable=False),
)

#: Administrators: the scrypt hash of their password, never the password.
admin_account = Table(
    "admin_account", metadata,
    Column("username", Text, primary_key=True),
    Column("password_hash", Text, nullable=False),
    Column("updated_at", Text, nullable=False),
)

#: Administrators' sessions, kept on the server: the session cookie (signed, but replayable by
#: whoever copied it) names one of these by a random id, of which only the SHA-256 is kept, and a
#: logout or a new password deletes the row, so that a copied cookie opens nothing afterwards.
admin_session = Table(
    "admin_session", metadata,
    Column("id_hash", Text, primary_key=True),
    Column("username", Text, nullable=False, index=True),
    Column("created_at", Text, nullable=False),
)

#: Tokens for the API's writes: only the SHA-256 of each token is kept (a token is 256 random
#: bits, so a fast hash is enough: nothing can be guessed from it).
api_token = Table(
    "api_token", metadata,
    Column("name", Text, primary_key=True),
    Column("token_hash", Text, nullable=False, unique=True),
    Column("created_at", Text, nullable=False),
    Column("last_used_at", Text),
)

#: Generation of the Archive set: bumped with every inclusion, exclusion or removal, so that every
#: worker's resolution cache drops all its entries (an item's change is a ``resolution_change``).
resolution_generation = Table(
    "resolution_generation", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),  # a single row, id 1
    Column("value", Integer, nullable=False),
    CheckConstraint("id = 1"),
)

#: IBIs whose resolutions changed (an item minted, edited, deleted, copied, its files or links
#: changed): each worker drops only the cached outcomes of these (storage.signal.ibis_changed).
#: On PostgreSQL ``xact`` is the id of the transaction that added the row (its default,
#: ``pg_current_xact_id()``, set by migration 0013): ids do not follow commits there, and readers
#: find the rows committed late by it; NULL on SQLite, where ids follow commits. Only the newest
#: ``signal.RETAINED_CHANGES`` are kept.
resolution_change = Table(
    "resolution_change", metadata,
    Column("id", Integer, primary_key=True),
    Column("ibi", Text, nullable=False),  # casefolded
    Column("xact", BigInteger),
    Index("resolution_change_xact", "xact"),
    sqlite_autoincrement=True,
)

#: Idempotency keys of mint requests (``Idempotency-Key``): per ``scope`` (an API token or a
#: client address), the request's fingerprint, how many items it asked for, and the IBIps minted
#: for it so far (space-separated, in order), each added in the transaction that stores its item.
mint_key = Table(
    "mint_key", metadata,
    Column("scope", Text, primary_key=True),
    Column("idempotency_key", Text, primary_key=True),
    Column("fingerprint", Text, nullable=False),
    Column("wanted", Integer, nullable=False),
    Column("ibips", Text, nullable=False),
    Column("created_at", Text, nullable=False),
    Index("mint_key_created_at", "created_at"),
)

#: Every change of an own item (``ibiportal.storage.history``): when (UTC), who (an
#: administrator's user name, an API token's name, ``import``; never a token), what (``action``)
#: and its details as JSON (each field old → new, a file's path and digest, the item linked).
#: Rows are only ever added: no page, API or command edits or removes one.
item_history = Table(
    "item_history", metadata,
    Column("id", Integer, primary_key=True),
    Column("ibi", Text, nullable=False),  # the own item's IBIp, or the IBI of a copy as given
    Column("at", Text, nullable=False),
    Column("actor_kind", Text, nullable=False),
    Column("actor_name", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("details", Text, nullable=False),  # a JSON object
    Index("item_history_ibi", "ibi", "id"),
    sqlite_autoincrement=True,
)

#: Imports started from the Import page (``ibiportal.storage.import_runs``), each run in a thread
#: of the process that received it: its source (an OAI-PMH URL, or a file's name and bytes, kept so
#: that a preview's "Import" reads what was previewed), its options, who started it, its progress
#: (``done`` records of ``total``, when known; ``counts`` per outcome as JSON) and how it ended.
#: ``alive_at`` is renewed while it runs: a run not heard from for long is shown interrupted.
import_run = Table(
    "import_run", metadata,
    Column("id", Text, primary_key=True),  # unguessable token, the page's address
    Column("source", Text, nullable=False),
    Column("source_data", LargeBinary),  # a file's bytes; NULL for an OAI-PMH URL
    Column("dry_run", Integer, nullable=False),
    Column("update_held", Integer, nullable=False),  # --update
    Column("started_by", Text, nullable=False),  # the administrator's user name
    Column("started_at", Text, nullable=False),
    Column("alive_at", Text, nullable=False),
    Column("finished_at", Text),
    Column("total", Integer),
    Column("done", Integer, nullable=False, server_default=text("0")),
    Column("counts", Text, nullable=False),  # JSON: {"created": 3, …}
    Column("stopped", Text),  # why the source stopped, in English
    Column("stopped_message", Text),  # the same as a message (ibiportal.i18n.to_record), in the reader's language
    Index("import_run_started_at", "started_at"),
)

#: Each record's outcome of an import run, in order (``seq`` from 0): its page's table and report.
import_run_outcome = Table(
    "import_run_outcome", metadata,
    Column("run_id", Text, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("outcome", Text, nullable=False),  # JSON: the report's row, its reason as a message record
)

#: The last check of each own item's target URL (``ibiportal.storage.targets``): what it found
#: (``outcome``: working, moved or failed, with the HTTP status, the failure in words, the URL a
#: permanent redirect led to), and the streak of consecutive failures with when it began. A row
#: whose ``target_url`` is not the item's any more is about a former target: the item is unchecked.
target_check = Table(
    "target_check", metadata,
    Column("ibi", Text, primary_key=True),  # the own item's IBIp
    Column("target_url", Text, nullable=False),
    Column("checked_at", Text, nullable=False),
    Column("outcome", Text, nullable=False),
    Column("status", Integer),
    Column("detail", Text),  # why it failed, in English (the CLI, the CSV report)
    Column("detail_message", Text),  # the same as a message (ibiportal.i18n.to_record), shown in the reader's language
    Column("moved_to", Text),
    Column("redirect_status", Integer),
    Column("failures", Integer, nullable=False, server_default=text("0")),
    Column("failing_since", Text),
    Column("working_at", Text),
)

#: Every check's result, the newest ``targets.RESULTS_KEPT`` per item.
target_check_result = Table(
    "target_check_result", metadata,
    Column("id", Integer, primary_key=True),
    Column("ibi", Text, nullable=False),
    Column("target_url", Text, nullable=False),
    Column("checked_at", Text, nullable=False),
    Column("outcome", Text, nullable=False),
    Column("status", Integer),
    Column("detail", Text),
    Column("location", Text),
    Index("target_check_result_ibi", "ibi", "id"),
    sqlite_autoincrement=True,
)

#: Resolutions of ``GET /<persistent URL>`` per item (the IBI as asked, normalised), UTC day
#: (``YYYY-MM-DD``) and modifier kind, cache hits included (``ibiportal.storage.usage``): added to
#: by each worker's flush, never on a request. No address or user agent.
usage_day = Table(
    "usage_day", metadata,
    Column("ibi", Text, primary_key=True),
    Column("day", Text, primary_key=True),
    Column("kind", Text, primary_key=True),
    Column("count", BigInteger, nullable=False),
    Index("usage_day_day", "day"),
)

#: Relative-link activations per item and citing item (``ibiurl.clientinformation.citingitem``
#: with ``linktype=relative``), at most ``usage.CITING_KEPT`` citing items per item.
usage_citing = Table(
    "usage_citing", metadata,
    Column("ibi", Text, primary_key=True),
    Column("citing", Text, primary_key=True),
    Column("count", BigInteger, nullable=False),
)
