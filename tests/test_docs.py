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
README = ROOT / "README.md"

#: What a newcomer reads in a minute: what the portal is, the quick start, a screenshot, the
#: layers, links. Everything else is a page of the site.
README_MOST_LINES = 300

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


def test_the_readme_is_a_short_map():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= README_MOST_LINES


def test_the_quick_start_is_the_two_commands_of_a_fresh_machine():
    """The second is what CI runs (.ci/run), nothing less."""
    section = README.read_text(encoding="utf-8").split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["bash bin/serve", "bash bin/test"]
    assert "\nbash bin/test\n" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_file_the_readme_links_to_exists():
    """The site checks its own links; the README is read on the Git host, outside it."""
    text = re.sub(r"```.*?```|`[^`]*`", "", README.read_text(encoding="utf-8"), flags=re.S)
    targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r"\bsrc=\"([^\"]+)\"", text)
    local = {target.split("#", 1)[0] for target in targets if not re.match(r"[a-z]+:", target)}
    assert "docs/index.md" in local
    assert not [target for target in sorted(local) if not (ROOT / target).is_file()]
