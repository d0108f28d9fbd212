"""The documentation: README.md stays a map a newcomer reads in a minute, and the site under docs/
builds with every warning an error (mkdocs.yml's validation: a broken link or anchor, a missing
page, a page left out of the navigation), offline."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: A port nothing listens on: any download the build tried would be refused at once.
NO_NETWORK = "http://127.0.0.1:9"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as `mkdocs build --strict` writes it, from another folder than the checkout (the
    configuration's paths are its own), with every proxy pointing at a closed port."""
    out = tmp_path_factory.mktemp("site")
    environment = {name: value for name, value in os.environ.items() if "proxy" not in name.lower()}
    environment.update({name: NO_NETWORK for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                                      "http_proxy", "https_proxy", "all_proxy")})
    # Material prints a banner about its successor on every build; it says nothing about the site.
    environment["NO_MKDOCS_2_WARNING"] = "1"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(out)],
        cwd=out.parent, env=environment, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    return out


def test_the_site_builds_with_warnings_as_errors(site):
    assert (site / "index.html").is_file()
    assert (site / "search" / "search_index.json").is_file()


def test_the_site_loads_nothing_from_outside_it(site):
    """No font, script, stylesheet or picture from another host: the pages read offline, as the
    portal's own pages do."""
    fetched_from_outside = re.compile(r"<(?:script|link|img|source|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//")
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not fetched_from_outside.search(text), page
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, page
