"""The main navigation: every page reachable, the current section marked, Archives for admins."""
from __future__ import annotations

import re

import pytest

CURRENT = re.compile(r'<a href="([^"]+)" aria-current="page">')


@pytest.mark.parametrize(
    ("path", "current"),
    [("/mint", "/mint"), ("/convert", "/convert"), ("/convert/prefixes", "/convert"),
     ("/compose", "/compose"), ("/parse", "/parse"), ("/trace", "/trace"), ("/cite", "/cite"), ("/", None)],
)
def test_the_current_section_is_marked(client, path, current):
    html = client.get(path).get_data(as_text=True)
    assert CURRENT.findall(html) == ([current] if current else [])


def test_archives_link_only_for_administrators(client, runner):
    assert 'href="/admin/archives"' not in client.get("/").get_data(as_text=True)
    runner.invoke(args=["admin", "set-password", "ada", "--password", "a long enough password"])
    client.post("/admin/login", data={"username": "ada", "password": "a long enough password"})
    html = client.get("/admin/archives").get_data(as_text=True)
    assert CURRENT.findall(html) == ["/admin/archives"]
