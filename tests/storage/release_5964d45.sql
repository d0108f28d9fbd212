-- A database written by the release at commit 5964d45 (its ibiportal/storage.py and schema.sql,
-- which made the tables itself): three minted items linked as next edition and translation, a
-- prefix pair, an administrator, an included Archive with its history, a trace. sqlite3's iterdump.
BEGIN TRANSACTION;
CREATE TABLE admin_account (
    username TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,     -- werkzeug.security scrypt hash
    updated_at TEXT NOT NULL
);
INSERT INTO "admin_account" VALUES('ada','scrypt:32768:8:1$IllkUkLcvA3Dmy7q$7fb9723d4cb8a93b311b9ecd880135f1584083405379043145066d4b901bf2cce8466481962c0e0d2936980a147a7bfbb97aad769c09a32e6e8e3a81f915f64f','2026-11-22T18:10:39.477565Z');
CREATE TABLE archive (
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
INSERT INTO "archive" VALUES('sid.inpe.br/mtc-m21/2012/06.05.15.34.39','scrypt$16384$8$1$06878e3b605c80461d0d879f63b46db6$40acaf65b75ededce780e601f92e41650ea1d63a59528866c1a9e8a7d126c9a0',1,'mtc-m21.sid.inpe.br','150.163.34.248','URLib 2.1','adm@example.org','successful','2026-11-01T12:00:00.000000Z','2026-11-01T12:00:00.000000Z');
CREATE TABLE archive_event (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    service_ibi TEXT NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
INSERT INTO "archive_event" VALUES(1,'sid.inpe.br/mtc-m21/2012/06.05.15.34.39','2026-11-01T12:00:00.000000Z','registered','registered by an administrator');
INSERT INTO "archive_event" VALUES(2,'sid.inpe.br/mtc-m21/2012/06.05.15.34.39','2026-11-01T12:00:00.000000Z','included','at mtc-m21.sid.inpe.br (150.163.34.248), confirmation successful: confirmation yes');
CREATE TABLE item_link (
    ibi TEXT NOT NULL,               -- the minted item's IBIp
    relation TEXT NOT NULL,          -- "nextedition" or "translation"
    language TEXT NOT NULL DEFAULT '', -- for a translation: its language[-COUNTRY]
    target TEXT NOT NULL,            -- the linked IBI, as given (normalized)
    PRIMARY KEY (ibi, relation, language)
);
INSERT INTO "item_link" VALUES('8JMKD3MGP8W/34PGRBS','nextedition','','8JMKD3MGP8W/34PGRE5');
INSERT INTO "item_link" VALUES('8JMKD3MGP8W/34PGRBS','translation','en','8JMKD3MGP8W/34PGRGB');
CREATE TABLE minted_item (
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
    created_at TEXT NOT NULL
);
INSERT INTO "minted_item" VALUES(1,'sid.inpe.br/mtc-m18/2009/02.16.17.46','8JMKD3MGP8W/34PGRBS','1234806360','2009-02-16T17:46:00Z','sid.inpe.br/mtc-m18 8JMKD3MGP8W','Relatório técnico','https://example.org/a','["Banon, Gerald"]','2009','pt','2026-11-22T18:10:39.179478Z');
INSERT INTO "minted_item" VALUES(2,'sid.inpe.br/mtc-m18/2009/02.16.17.47','8JMKD3MGP8W/34PGRE5','1234806420','2009-02-16T17:47:00Z','sid.inpe.br/mtc-m18 8JMKD3MGP8W','Second edition',NULL,'[]',NULL,NULL,'2026-11-22T18:10:39.183257Z');
INSERT INTO "minted_item" VALUES(3,'sid.inpe.br/mtc-m18/2009/02.16.17.48','8JMKD3MGP8W/34PGRGB','1234806480','2009-02-16T17:48:00Z','sid.inpe.br/mtc-m18 8JMKD3MGP8W','Translation',NULL,'[]',NULL,'en','2026-11-22T18:10:39.192106Z');
CREATE TABLE prefix_pair (
    rep_prefix TEXT NOT NULL,
    ibip_prefix TEXT NOT NULL,
    source TEXT NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (rep_prefix, ibip_prefix)
);
INSERT INTO "prefix_pair" VALUES('dpi.inpe.br/banon','J8LNKAN8PW','administrator ada','2026-11-22T18:10:39.203050Z');
CREATE TABLE resolution_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),  -- a single row
    value INTEGER NOT NULL
);
INSERT INTO "resolution_generation" VALUES(1,3);
CREATE TABLE subsystem_clock (
    subsystem TEXT PRIMARY KEY,
    last_date TEXT NOT NULL,         -- exact decimal Unix time, as text
    last_reading TEXT NOT NULL,      -- the (offset) clock reading of the last request
    clock_offset TEXT NOT NULL       -- seconds added to the system clock
);
INSERT INTO "subsystem_clock" VALUES('sid.inpe.br/mtc-m18 8JMKD3MGP8W','1234806480','1234806480.75','0');
CREATE TABLE trace (
    id TEXT PRIMARY KEY,             -- unguessable token, the permalink
    created_at TEXT NOT NULL,
    persistent_url TEXT NOT NULL,
    outcome TEXT NOT NULL,           -- "found" or the alert reason
    body TEXT NOT NULL               -- JSON of the Resolution
);
INSERT INTO "trace" VALUES('ReleaseTrace1','2026-11-22T18:10:39.567655Z','http://urlib.net/8JMKD3MGP8W/34PGRBS','found','{"persistent_url": "http://urlib.net/8JMKD3MGP8W/34PGRBS", "note": "a\u00e7\u00facar"}');
CREATE INDEX trace_created_at ON trace (created_at);
CREATE INDEX archive_event_service_ibi ON archive_event (service_ibi, id);
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('minted_item',3);
INSERT INTO "sqlite_sequence" VALUES('archive_event',2);
COMMIT;
