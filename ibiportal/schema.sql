-- IBI Portal storage. Every statement is idempotent: applied on the first connection to a file in each process.

-- Algorithm 4's GLOBAL last-date-for-suffix, per identification subsystem, persisted so
-- that no restart, second worker or clock step backwards issues a date twice (STANDARD.md §1.3).
-- last_reading and clock_offset make the subsystem's clock monotonic across processes: a
-- reading earlier than the last one means the system clock stepped back, and the step is
-- added to the offset (see ibiportal/minting.py).
CREATE TABLE IF NOT EXISTS subsystem_clock (
    subsystem TEXT PRIMARY KEY,
    last_date TEXT NOT NULL,         -- exact decimal Unix time, as text
    last_reading TEXT NOT NULL,      -- the (offset) clock reading of the last request
    clock_offset TEXT NOT NULL       -- seconds added to the system clock
);

-- Identifiers minted by the portal: the items of its own Archive.
CREATE TABLE IF NOT EXISTS minted_item (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    rep TEXT NOT NULL UNIQUE,
    ibip TEXT NOT NULL UNIQUE,
    date TEXT NOT NULL,              -- exact decimal Unix time of the suffix
    utc TEXT NOT NULL,
    subsystem TEXT NOT NULL,
    title TEXT,
    target_url TEXT,
    creators TEXT,                   -- JSON list of names
    item_date TEXT,
    language TEXT,
    created_at TEXT NOT NULL,
    -- what a reference needs (ibiportal.storage.Bibliographic); a database made before these
    -- columns existed gets them from Storage._add_missing_columns
    item_type TEXT,                  -- ibiportal.citation.ItemType slug, e.g. "doctoral thesis"
    publisher TEXT,
    place TEXT,
    extent TEXT,                     -- pages: "39", or as written
    degree TEXT,                     -- a thesis's degree, e.g. "Doutorado em Computação Aplicada"
    report_number TEXT               -- a report's number or INPE's document-type code ("NTC")
);

-- Links from a minted item to other IBIs: its next edition, its translations.
CREATE TABLE IF NOT EXISTS item_link (
    ibi TEXT NOT NULL,               -- the minted item's IBIp
    relation TEXT NOT NULL,          -- "nextedition" or "translation"
    language TEXT NOT NULL DEFAULT '', -- for a translation: its language[-COUNTRY]
    target TEXT NOT NULL,            -- the linked IBI, as given (normalized)
    PRIMARY KEY (ibi, relation, language)
);

-- Prefix pairs added by administrators or learnt from Archive answers (STANDARD.md §1.4);
-- the standard's own pairs are seeded in code, not here.
CREATE TABLE IF NOT EXISTS prefix_pair (
    rep_prefix TEXT NOT NULL,
    ibip_prefix TEXT NOT NULL,
    source TEXT NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (rep_prefix, ibip_prefix)
);

-- Resolution traces: what the resolver sent and got, kept for a bounded number of
-- resolutions so that support staff can open the trace a redirect points to.
CREATE TABLE IF NOT EXISTS trace (
    id TEXT PRIMARY KEY,             -- unguessable token, the permalink
    created_at TEXT NOT NULL,
    persistent_url TEXT NOT NULL,
    outcome TEXT NOT NULL,           -- "found" or the alert reason
    body TEXT NOT NULL               -- JSON of the Resolution
);
CREATE INDEX IF NOT EXISTS trace_created_at ON trace (created_at);

-- Registered Archives (file 003 §7.1-§7.2). An Archive is registered by an
-- administrator with its archive-service IBI and a registration key (Table 7.1); it is
-- included or excluded by its own inclusionRequest / exclusionRequest (Table 7.2).
CREATE TABLE IF NOT EXISTS archive (
    service_ibi TEXT PRIMARY KEY,    -- the archive-service IBI, normalized (ibi.parse_ibi)
    key_hash TEXT NOT NULL,          -- scrypt$n$r$p$salt$digest of the key; never the key
    included INTEGER NOT NULL DEFAULT 0,
    address TEXT,                    -- archiveaddress of the last inclusion (it may change)
    ip TEXT,                         -- archiveip
    platform_version TEXT,           -- archiveplatformversion
    admin_email TEXT,                -- archiveadmemailaddress
    last_confirmation TEXT,          -- "successful" or "unsuccessful" (status.confirmation)
    registered_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Each Archive's history: registered, included, excluded, refused (wrong key, address not
-- allowed), with the reason; bounded per Archive (storage.ARCHIVE_HISTORY_LIMIT).
CREATE TABLE IF NOT EXISTS archive_event (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    service_ibi TEXT NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS archive_event_service_ibi ON archive_event (service_ibi, id);

-- Administrators of the portal: the Archives pages and adding prefix pairs sit
-- behind a login. The password hash is set with `flask admin set-password`; never the password.
CREATE TABLE IF NOT EXISTS admin_account (
    username TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,     -- werkzeug.security scrypt hash
    updated_at TEXT NOT NULL
);

-- Generation of what resolutions can answer: bumped in the same transaction as every
-- change to the Archive set (an Archive included, excluded or removed) and to the own Archive's
-- links (a next edition or a translation added). Every worker process keeps its own cache of
-- redirects (ibiportal/resolver/cache.py) and compares this number on each lookup.
CREATE TABLE IF NOT EXISTS resolution_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),  -- a single row
    value INTEGER NOT NULL
);
INSERT OR IGNORE INTO resolution_generation (id, value) VALUES (1, 0);
