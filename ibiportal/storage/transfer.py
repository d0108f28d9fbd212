"""Moving a portal's data between databases (SQLite and PostgreSQL alike): every table of the
schema, written and read generically, so that a table added by a migration is moved too.

The format, ``ibiportal-export`` version 1, is JSON Lines (UTF-8), one JSON object a line:

1. the header: ``{"format": "ibiportal-export", "version": 1, "schema": "<revision>",
   "tables": [<every table>]}``; the schema revision is the migration the data was written at;
2. one line per row: ``{"table": "<name>", "row": {"<column>": <value>, …}}``, text and numbers
   as JSON, binary columns (files' chunks) as ``{"base64": "…"}``;
3. the end: ``{"end": true, "rows": <rows written>}`` – a file cut short has none, and is refused.

An import goes into an empty database at the same schema revision, in one transaction (all or
nothing). It keeps every identifier's row and the subsystem clock, so minting goes on after the
last date issued and never issues an IBI again; PostgreSQL's id sequences are moved past the
imported ids.
"""
from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import Integer, LargeBinary, Table, func, inspect, select, text

from ..errors import IbiError
from ..ibi.media_types import bare_media_type
from .database import Storage
from .schema import SCHEMA_REVISION, metadata

FORMAT = "ibiportal-export"
VERSION = 1
#: Rows a fresh ``db upgrade`` writes (the Archive set's generation, 0): an import replaces them.
SEEDED_TABLES = frozenset({"resolution_generation"})
#: Columns whose values mean something only in the database that wrote them (a PostgreSQL
#: transaction id): not exported, the importing database fills them as it does for its own rows.
LOCAL_COLUMNS = frozenset({("resolution_change", "xact")})
#: Columns whose imported values are brought to what the portal itself writes: a file's type is
#: kept bare (``media_types``), whatever the export says (an export is JSON anyone can edit), so that
#: a type no upload could have given is never stored, listed or served.
NORMALISED_COLUMNS = {("item_file", "content_type"): bare_media_type}
_BATCH = 200


class TransferRefused(IbiError):
    """The file or the database does not allow the transfer; the message says why."""


def tables() -> list[Table]:
    return list(metadata.sorted_tables)


def export_lines(storage: Storage) -> Iterator[str]:
    """The database's data as the lines of the module docstring (without line ends)."""
    missing = set(inspect(storage.connection).get_table_names()) - {"alembic_version"} - set(metadata.tables)
    if missing:  # a table the schema does not describe would be left behind
        raise TransferRefused(f"the database has tables this version does not know: {', '.join(sorted(missing))}")
    yield json.dumps({"format": FORMAT, "version": VERSION, "schema": SCHEMA_REVISION,
                      "tables": [table.name for table in tables()]})
    count = 0
    for table in tables():
        rows = storage.connection.execute(select(table).order_by(*table.primary_key.columns))
        for row in rows.mappings():
            count += 1
            kept = {name: _to_json(value) for name, value in row.items() if (table.name, name) not in LOCAL_COLUMNS}
            yield json.dumps({"table": table.name, "row": kept}, ensure_ascii=False)
    yield json.dumps({"end": True, "rows": count})


def import_lines(storage: Storage, lines: Iterable[str]) -> dict[str, int]:
    """Load an export into this (empty) database in one transaction; the rows loaded per table."""
    records = _records(lines)
    header = next(records, None)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise TransferRefused(f"this is not an {FORMAT} file (its first line is not the header)")
    if header.get("version") != VERSION:
        raise TransferRefused(f"this file is format version {header.get('version')}; this portal reads version {VERSION}")
    if header.get("schema") != SCHEMA_REVISION:
        raise TransferRefused(f"the data was exported at schema revision {header.get('schema')}, this portal is at "
                              f"{SCHEMA_REVISION}: export it again from a portal of this version (after its db upgrade)")
    known = {table.name: table for table in tables()}
    counts = {name: 0 for name in known}
    with storage.write_transaction() as conn:
        for table in known.values():
            if table.name in SEEDED_TABLES:
                conn.execute(table.delete())
            elif conn.execute(select(func.count()).select_from(table)).scalar_one():
                raise TransferRefused(f"the database is not empty (table {table.name} has rows): import into a "
                                      "new database, made with db upgrade")
        pending: dict[str, list[dict]] = {}
        ended = None
        for number, record in enumerate(records, start=2):
            if record.get("end"):
                ended = record
                break
            table = known.get(record.get("table"))
            if table is None:
                raise TransferRefused(f"line {number} names table {record.get('table')!r}, which this schema does not have")
            row = record.get("row")
            unknown = set(row) - set(table.c.keys()) if isinstance(row, dict) else {"(no row)"}
            if unknown:
                raise TransferRefused(f"line {number}: table {table.name} has no column {', '.join(sorted(unknown))}")
            pending.setdefault(table.name, []).append(
                {name: _from_json(table, name, value) for name, value in row.items()})
            counts[table.name] += 1
            if len(pending[table.name]) >= _BATCH:
                conn.execute(table.insert(), pending.pop(table.name))
        if ended is None or ended.get("rows") != sum(counts.values()):
            raise TransferRefused("the file ends early (no end line, or fewer rows than it says): nothing was imported")
        for name, rows in pending.items():
            conn.execute(known[name].insert(), rows)
        if storage.dialect == "postgresql":
            _move_sequences(conn)
    return counts


def _records(lines: Iterable[str]) -> Iterator[dict]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise TransferRefused(f"line {number} is not JSON ({error.msg}): is this an {FORMAT} file?") from error
        if not isinstance(record, dict):
            raise TransferRefused(f"line {number} is not a JSON object: is this an {FORMAT} file?")
        yield record


def _move_sequences(conn) -> None:
    """Each serial id's sequence past the largest id imported (explicit ids do not advance it)."""
    for table in tables():
        key = list(table.primary_key.columns)
        if len(key) == 1 and isinstance(key[0].type, Integer) and key[0].autoincrement in (True, "auto"):
            conn.execute(text(
                f"SELECT setval(pg_get_serial_sequence('{table.name}', '{key[0].name}'), "
                f"COALESCE((SELECT MAX({key[0].name}) FROM {table.name}), 0) + 1, false)"))


def _to_json(value: Any) -> Any:
    if isinstance(value, (bytes, memoryview)):
        return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def _from_json(table: Table, name: str, value: Any) -> Any:
    if isinstance(table.c[name].type, LargeBinary) and isinstance(value, dict):
        return base64.b64decode(value["base64"])
    normalise = NORMALISED_COLUMNS.get((table.name, name))
    return normalise(value) if normalise is not None and isinstance(value, str) else value
