"""``flask archives register --generate`` and ``flask archives check``.

The other ``archives`` subcommands are tested with the resolver service in
``test_registration_service.py``. The check runs over real sockets against demo Archives served
by ``ArchiveHTTPServer`` on loopback, in an app that allows private Archives.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ibiportal import create_app
from ibiportal.protocol.messages import RegistrationKey
from ibiportal.storage.database import Storage
from ibiportal.storage.registry import ArchiveStore
from tests.servers import fresh_sqlite

SERVICE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"  # Example 7.2


@pytest.fixture
def private_runner(tmp_path):
    """A CLI runner whose app may contact loopback Archives (IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1)."""
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path / "cli.sqlite"), "SECRET_KEY": "test",
                      "ALLOW_PRIVATE_ARCHIVES": True})
    return app.test_cli_runner()


def test_register_generate_prints_the_key_once_and_stores_its_hash(app, runner):
    result = runner.invoke(args=["archives", "register", SERVICE_IBI, "--generate"])
    assert result.exit_code == 0, result.output
    key = re.search(r"Registration key: (\d{15}-\d{15})\n", result.output).group(1)
    assert "will not be shown again" in result.output
    archive = ArchiveStore(Storage(app.config["DATABASE"])).find_archive(SERVICE_IBI)
    assert archive.key_hash.matches(RegistrationKey(key))
    files = b"".join(path.read_bytes() for path in Path(app.config["DATABASE"]).parent.glob("test.sqlite*"))
    assert key.encode() not in files and key[:15].encode() not in files
    for args in (["list"], ["history", SERVICE_IBI]):
        assert key not in runner.invoke(args=["archives", *args]).output


def test_register_with_key_and_generate_is_refused(runner):
    result = runner.invoke(args=["archives", "register", SERVICE_IBI, "--key", "1234567890", "--generate"])
    assert result.exit_code == 2 and "give either --key or --generate, not both" in result.output


def test_check_good_archive_over_real_sockets_exits_0(private_runner, serve_demo_archive):
    base = serve_demo_archive("mtc-m16c").base_url
    result = private_runner.invoke(args=["archives", "check", base, "--ibi", "8JMKD3MGP8W/35MMLL8"])
    assert result.exit_code == 0, result.output
    marks = re.findall(r"^([✓✗–]) (\S+)", result.output, re.M)
    assert len(marks) == 10 and {mark for mark, _ in marks} == {"✓"}
    assert "10 passed, 0 failed, 0 skipped" in result.output


def test_check_garbled_archive_names_the_failures_and_exits_1(private_runner, serve_demo_archive):
    base = serve_demo_archive("garbled").base_url
    result = private_runner.invoke(args=["archives", "check", base])
    assert result.exit_code == 1
    marks = dict((rule, mark) for mark, rule in re.findall(r"^([✓✗–]) (\S+)", result.output, re.M))
    assert marks["grammar"] == marks["confirmation"] == marks["unknown-ibi"] == "✗"
    assert marks["content-type"] == marks["ascii"] == "✓" and marks["known-ibi"] == "–"
    assert "line break inside the braced value opened at character 43" in result.output
    assert "| ibi {rep ibiportal.test/lab/2019/02.14.20.10 ibip D7N2U8HW/3SNU8PS" in result.output  # the evidence


def test_check_loopback_is_refused_without_allow_private(runner, serve_demo_archive):
    base = serve_demo_archive("mtc-m16c").base_url
    result = runner.invoke(args=["archives", "check", base])
    assert result.exit_code == 1
    assert "No answer at all: refused to contact 127.0.0.1" in result.output
    assert "IBIPORTAL_ALLOW_PRIVATE_ARCHIVES=1" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["mtc-m16c.sid.inpe.br/x"], "error: mtc-m16c.sid.inpe.br/x: an Archive service address starts with http://"),
        (["http://mtc-m16c.sid.inpe.br/8JMKD3MGP8W/35MMLL8", "--ibi", "nope"], "error: --ibi: known IBI:"),
    ],
)
def test_check_bad_input_exits_2_before_sending_anything(runner, args, message):
    result = runner.invoke(args=["archives", "check", *args])
    assert result.exit_code == 2 and message in result.output
