"""The gettext catalogs are complete and current: every message of the code (templates and
Python, as ``babel.cfg`` says) is in every language's catalog, translated, never fuzzy, with its
placeholders kept; nothing else is; and a missing or stale compiled catalog is made by the
portal itself. ``bash bin/translations`` fixes the first failures but the translating."""
from __future__ import annotations

import io
import os
import shutil

import pytest
from babel.messages.pofile import write_po
from babel.support import Translations

from ibiportal.web import catalogs

FIX = "run `bash bin/translations` and translate what it lists"


@pytest.fixture(scope="module")
def extracted() -> set:
    return {(message.id, message.context) for message in catalogs.extract() if message.id}


@pytest.fixture(scope="module", params=[path.parent.parent.name for path in catalogs.catalog_paths()])
def catalog(request):
    return catalogs.read(catalogs.SOURCE / request.param / "LC_MESSAGES" / "messages.po")


def test_there_is_a_brazilian_portuguese_catalog():
    assert [path.parent.parent.name for path in catalogs.catalog_paths()] == ["pt_BR"]


def test_every_message_of_the_code_is_in_the_catalog(extracted, catalog):
    present = {(message.id, message.context) for message in catalog if message.id}
    assert sorted(extracted - present, key=str) == [], f"messages missing from the catalog: {FIX}"
    assert sorted(present - extracted, key=str) == [], f"entries no code uses any more: {FIX}"


def test_every_entry_is_translated_and_none_is_fuzzy(catalog):
    assert catalogs.left_to_translate(catalog) == [], f"untranslated or fuzzy entries: {FIX}"
    assert not catalog.fuzzy  # a fuzzy header makes the compiler skip the whole catalog


def test_every_translation_keeps_the_placeholders(catalog):
    problems = [(message.id, [str(error) for error in errors]) for message, errors in catalog.check()]
    assert problems == []


def test_the_catalog_is_written_as_bin_translations_writes_it(catalog):
    """Sorted, without locations or wrapping: what a merge (msgcat) left is rewritten the same way."""
    path = catalogs.SOURCE / catalog.locale_identifier / "LC_MESSAGES" / "messages.po"
    written = io.BytesIO()
    write_po(written, catalog, width=0, no_location=True, sort_output=True, ignore_obsolete=True)
    assert written.getvalue().decode() == path.read_text(encoding="utf-8"), FIX


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A copy of the catalogs, without compiled files, standing for the checkout's."""
    source = tmp_path / "translations"
    shutil.copytree(catalogs.SOURCE, source, ignore=shutil.ignore_patterns("*.mo"))
    monkeypatch.setattr(catalogs, "SOURCE", source)
    return source


def test_a_missing_compiled_catalog_is_made_beside_its_source(checkout, tmp_path):
    assert catalogs.compiled_directory(str(tmp_path / "instance")) == checkout
    translations = Translations.load(str(checkout), ["pt_BR"])
    assert translations.gettext("Convert") == "Converter"


def test_a_stale_compiled_catalog_is_made_again(checkout, tmp_path):
    catalogs.compiled_directory(str(tmp_path / "instance"))
    mo = checkout / "pt_BR" / "LC_MESSAGES" / "messages.mo"
    po = mo.with_suffix(".po")
    po.write_text(po.read_text(encoding="utf-8").replace('msgstr "Converter"', 'msgstr "Converta"'), encoding="utf-8")
    os.utime(po, (mo.stat().st_mtime + 1, mo.stat().st_mtime + 1))
    catalogs.compiled_directory(str(tmp_path / "instance"))
    assert Translations.load(str(checkout), ["pt_BR"]).gettext("Convert") == "Converta"


def test_a_checkout_it_cannot_write_into_compiles_into_the_instance_folder(checkout, tmp_path):
    """(Root writes into read-only folders, so the unwritable place is a folder where the
    compiled file would go: no one can rename a file over it.)"""
    (checkout / "pt_BR" / "LC_MESSAGES" / "messages.mo").mkdir()
    os.utime(checkout / "pt_BR" / "LC_MESSAGES" / "messages.mo", (0, 0))
    target = catalogs.compiled_directory(str(tmp_path / "instance"))
    assert target == tmp_path / "instance" / "translations"
    assert Translations.load(str(target), ["pt_BR"]).gettext("Convert") == "Converter"
