"""The gettext catalogs: extracted from the code, kept up to date, compiled.

English is the source language; each other language has one catalog,
``ibiportal/translations/<locale>/LC_MESSAGES/messages.po`` (committed), and its compiled
``messages.mo`` (not committed: made by ``bash bin/translations``, and by the application itself
when it is missing or older than its ``.po``, so a fresh checkout served by ``flask run`` or
gunicorn speaks every language at once).

The ``.po`` files are written for merging: no source locations (they moved with every edit
elsewhere), entries sorted by their English text, one line each, a fixed template date, no
obsolete or fuzzy entries (a new message is untranslated until someone translates it, never
pre-filled with a near miss).

``python -m ibiportal.web.catalogs`` (what ``bin/translations`` runs) extracts, updates every
catalog, compiles it and lists what is left to translate.
"""
from __future__ import annotations

import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from .. import ROOT

SOURCE = ROOT / "ibiportal" / "translations"
"""Where each language's ``.po`` lives (``<locale>/LC_MESSAGES/messages.po``)."""
MAPPING = ROOT / "babel.cfg"
"""Which files hold messages, and how to read them (pybabel's mapping file)."""
KEYWORDS = {**DEFAULT_KEYWORDS, "lazy_gettext": None, "lazy_ngettext": (1, 2), "lazy_pgettext": ((1, "c"), 2),
            "NP_": (1, 2)}
"""``_``/``gettext``/``ngettext``/``N_`` (pybabel's defaults), Flask-Babel's lazy forms and the
core's plural messages (``NP_``, ``ibiportal.i18n``)."""
TEMPLATE_DATE = datetime(2026, 11, 24, tzinfo=timezone.utc)
"""The template's creation date written into every catalog: fixed, so that it never conflicts."""


def catalog_paths() -> list[Path]:
    """Every language's ``.po`` file."""
    return sorted(SOURCE.glob("*/LC_MESSAGES/messages.po"))


def extract() -> Catalog:
    """Every message of the code (``babel.cfg``), as a template catalog."""
    with MAPPING.open(encoding="utf-8") as mapping:
        method_map, options_map = parse_mapping_cfg(mapping, str(MAPPING))
    template = Catalog(project="IBI Portal", creation_date=TEMPLATE_DATE, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
            ROOT, method_map, options_map, keywords=KEYWORDS):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def read(path: Path) -> Catalog:
    with path.open("rb") as po:
        return read_po(po)


def write(path: Path, catalog: Catalog) -> None:
    """``catalog`` in the merge-friendly form of the module docstring, replacing ``path`` whole."""
    _replace(path, lambda out: write_po(out, catalog, width=0, no_location=True, sort_output=True,
                                        ignore_obsolete=True))


def update(path: Path, template: Catalog) -> Catalog:
    """The catalog at ``path`` brought up to ``template``: new messages added untranslated, gone
    ones dropped, translations kept."""
    catalog = read(path)
    catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
    catalog.creation_date = TEMPLATE_DATE
    write(path, catalog)
    return catalog


def compile_catalog(po: Path, mo: Path) -> None:
    """``po`` compiled to ``mo`` (its fuzzy and untranslated entries left out: they show English)."""
    catalog = read(po)
    mo.parent.mkdir(parents=True, exist_ok=True)
    _replace(mo, lambda out: write_mo(out, catalog))


def compiled_directory(instance_path: str) -> Path:
    """A translations directory whose ``.mo`` files are current, compiling the missing or stale ones.

    Beside the ``.po`` files when the checkout is writable; otherwise (an installation owned by
    another user) in the instance folder. Every worker may do this at once: each ``.mo`` is
    written to a temporary file and renamed over the old one.
    """
    try:
        _compile_stale(SOURCE)
        return SOURCE
    except OSError:
        target = Path(instance_path) / "translations"
        _compile_stale(target)
        return target


def _compile_stale(target: Path) -> None:
    for po in catalog_paths():
        mo = target / po.relative_to(SOURCE).with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            compile_catalog(po, mo)


def _replace(path: Path, write_to) -> None:
    """Write through ``write_to`` into a temporary file beside ``path``, then rename it over ``path``."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            write_to(out)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def left_to_translate(catalog: Catalog) -> list[str]:
    """The English text of every entry without a translation (or only a fuzzy one)."""
    return [message.id if isinstance(message.id, str) else message.id[0]
            for message in catalog
            if message.id and (message.fuzzy or not all(message.string if isinstance(message.string, tuple)
                                                         else (message.string,)))]


def main() -> int:
    template = extract()
    for po in catalog_paths():
        catalog = update(po, template)
        compile_catalog(po, po.with_suffix(".mo"))
        missing = left_to_translate(catalog)
        print(f"{po.relative_to(ROOT)}: {len(catalog)} entries, {len(missing)} to translate")
        for text in missing:
            print(f"  to translate: {text!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
