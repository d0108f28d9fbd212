"""What building one more app costs a test process: its templates compiled once per process,
and its URL builders compiled when first used.

Templates. Flask gives every app its own Jinja environment, and an environment compiles each template the
first time it renders it: about 0.1 s of CPU per template, 0.3–0.6 s for a test's first page. The
suite builds an app for most tests (a fresh database each), so it compiled the same templates
some two thousand times. Jinja's own bytecode cache (``jinja2.BytecodeCache``) keeps a compiled
template and gives it to any environment asking for the same file with the same source text
(Jinja checks the source's checksum on every load: an edited template is compiled again).

Only what an environment compiles *with* can differ between two apps of one process: its
extensions (``{% trans %}``, ``{% do %}``), its syntax settings and the two policies read while
compiling (``{% trans %}`` blocks trimmed or not). They are part of the key,
so an environment set up differently compiles its own. What a template does at run time –
filters, globals, translations, autoescaping decided per file name – is read from the rendering
environment, never from the compiled code, so each app still renders with its own.

URL builders. werkzeug compiles two Python functions for every URL rule as the rule is added
(``Rule.compile``: one builds the rule's URL, the other the URL with unknown arguments appended
as a query), 990 of them per app: about 0.1 s of CPU, nine tenths of ``create_app``. A test calls
``url_for`` for a few dozen rules at most. Here each function is compiled the first time it
builds a URL, by werkzeug's own code, from the same rule: the URLs are the same, built later.
"""
from __future__ import annotations

from collections.abc import Callable

from flask import Flask
from jinja2 import BytecodeCache, Environment
from jinja2.bccache import Bucket
from werkzeug.routing import Rule

_COMPILE_SETTINGS = ("block_start_string", "block_end_string", "variable_start_string",
                     "variable_end_string", "comment_start_string", "comment_end_string",
                     "line_statement_prefix", "line_comment_prefix", "trim_blocks", "lstrip_blocks",
                     "newline_sequence", "keep_trailing_newline", "optimized", "is_async", "newstyle_gettext")
#: The policies read while compiling (the others – JSON, urlize – are read as a template renders).
_COMPILE_POLICIES = ("compiler.ascii_str", "ext.i18n.trimmed")


class ProcessBytecodeCache(BytecodeCache):
    """Compiled templates in memory, keyed by file and by how the environment compiles."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def get_bucket(self, environment: Environment, name: str, filename: str | None, source: str) -> Bucket:
        compiles_with = repr((sorted(environment.extensions), [getattr(environment, key, None) for key in _COMPILE_SETTINGS],
                              [environment.policies.get(key) for key in _COMPILE_POLICIES]))
        bucket = Bucket(environment, self.get_cache_key(name, filename) + self.get_source_checksum(compiles_with),
                        self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


def share_compiled_templates() -> None:
    """Every Flask app created in this process from now on takes its compiled templates from one
    cache (``Flask.jinja_options`` is read when an app first builds its environment)."""
    Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": ProcessBytecodeCache()}


_COMPILE_BUILDER = Rule._compile_builder


def _builder_compiled_when_used(rule: Rule, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
    """What ``Rule._compile_builder`` returns (a function ``Rule.compile`` binds to the rule),
    compiling werkzeug's own builder on its first call."""
    compiled: list[Callable[..., tuple[str, str]]] = []

    def build(*args, **kwargs) -> tuple[str, str]:
        if not compiled:
            compiled.append(_COMPILE_BUILDER(rule, append_unknown))
        return compiled[0](*args, **kwargs)

    return build


def compile_url_builders_when_used() -> None:
    """Every rule added in this process from now on compiles its URL builders on first use."""
    Rule._compile_builder = _builder_compiled_when_used
