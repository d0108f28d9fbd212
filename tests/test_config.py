"""Settings from ``IBIPORTAL_*`` environment variables: parsed once, refused with a message
naming the variable and the value when they make no sense."""
from __future__ import annotations

import re

import pytest

from ibiportal.config import DEFAULTS, from_environment


def test_the_archive_read_timeout_is_seconds_and_defaults_to_5():
    assert DEFAULTS["ARCHIVE_READ_TIMEOUT"] == 5.0
    assert from_environment({"IBIPORTAL_ARCHIVE_READ_TIMEOUT": "0.5"})["ARCHIVE_READ_TIMEOUT"] == 0.5
    assert from_environment({"IBIPORTAL_ARCHIVE_READ_TIMEOUT": "12"})["ARCHIVE_READ_TIMEOUT"] == 12.0


@pytest.mark.parametrize("value", ["0", "-1", "five", "nan", "inf", "1e999"])
def test_an_archive_read_timeout_that_is_not_a_positive_number_is_refused(value):
    with pytest.raises(ValueError) as refused:
        from_environment({"IBIPORTAL_ARCHIVE_READ_TIMEOUT": value})
    assert str(refused.value) == ("IBIPORTAL_ARCHIVE_READ_TIMEOUT must be a number of seconds greater than 0, "
                                  f"like 5 or 0.5, not {value!r}")


def test_the_outage_settings_are_whole_seconds_with_their_defaults():
    assert DEFAULTS["OUTAGE_STALE_SECONDS"] == 60 and DEFAULTS["OUTAGE_RETRY_AFTER"] == 5
    settings = from_environment({"IBIPORTAL_OUTAGE_STALE_SECONDS": "0", "IBIPORTAL_OUTAGE_RETRY_AFTER": "30"})
    assert settings["OUTAGE_STALE_SECONDS"] == 0 and settings["OUTAGE_RETRY_AFTER"] == 30


@pytest.mark.parametrize(("name", "value", "message"), [
    ("IBIPORTAL_OUTAGE_STALE_SECONDS", "-1", "IBIPORTAL_OUTAGE_STALE_SECONDS must be a whole number, not '-1'"),
    ("IBIPORTAL_OUTAGE_STALE_SECONDS", "1.5", "IBIPORTAL_OUTAGE_STALE_SECONDS must be a whole number, not '1.5'"),
    ("IBIPORTAL_OUTAGE_RETRY_AFTER", "soon", "IBIPORTAL_OUTAGE_RETRY_AFTER must be a whole number, not 'soon'"),
    ("IBIPORTAL_OUTAGE_RETRY_AFTER", "0", "IBIPORTAL_OUTAGE_RETRY_AFTER must be 1 or more seconds: "
                                         "Retry-After: 0 asks for a retry at once"),
])
def test_outage_settings_that_make_no_sense_are_refused(name, value, message):
    with pytest.raises(ValueError) as refused:
        from_environment({name: value})
    assert str(refused.value) == message


def test_the_metrics_and_log_settings_with_their_defaults():
    assert (DEFAULTS["METRICS"], DEFAULTS["METRICS_ALLOW"], DEFAULTS["LOG_FORMAT"]) == (True, ["127.0.0.0/8", "::1"], "text")
    settings = from_environment({"IBIPORTAL_METRICS": "off", "IBIPORTAL_METRICS_ALLOW": " 10.0.0.0/8, 192.0.2.7 ,",
                                 "IBIPORTAL_LOG_FORMAT": "JSON"})
    assert settings == {"METRICS": False, "METRICS_ALLOW": ["10.0.0.0/8", "192.0.2.7"], "LOG_FORMAT": "json"}


@pytest.mark.parametrize(("name", "value", "message"), [
    ("IBIPORTAL_METRICS_ALLOW", "10.0.0.0/33", "IBIPORTAL_METRICS_ALLOW must list IP addresses or networks (such as "
     "127.0.0.1 or 10.0.0.0/8), separated by commas; '10.0.0.0/33' is neither"),
    ("IBIPORTAL_METRICS_ALLOW", "localhost", "; 'localhost' is neither"),
    ("IBIPORTAL_LOG_FORMAT", "xml", "IBIPORTAL_LOG_FORMAT must be text or json, not 'xml'"),
    ("IBIPORTAL_METRICS", "maybe", "IBIPORTAL_METRICS must be 1 or 0 (on or off), not 'maybe'"),
])
def test_metrics_and_log_settings_that_make_no_sense_are_refused(name, value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        from_environment({name: value})


def test_the_oai_repository_identifier_is_a_domain_name_and_defaults_to_the_portals_host():
    assert DEFAULTS["OAI_REPOSITORY_ID"] == ""  # empty: the host of the portal's address (web.oai)
    assert from_environment({"IBIPORTAL_OAI_REPOSITORY_ID": "urlib.net"})["OAI_REPOSITORY_ID"] == "urlib.net"
    for value in ("urlib.net:8080", "oai:urlib.net", "urlib net", "localhost"):
        with pytest.raises(ValueError) as refused:
            from_environment({"IBIPORTAL_OAI_REPOSITORY_ID": value})
        assert str(refused.value) == ("IBIPORTAL_OAI_REPOSITORY_ID must be a domain name such as urlib.net "
                                      f"(the oai-identifier scheme's repositoryIdentifier), not {value!r}")


def test_the_parsing_deadline_is_seconds_and_the_text_budget_a_limit():
    assert DEFAULTS["PARSE_SECONDS"] == 10.0 and DEFAULTS["RATELIMIT_TEXT"] == "5120/minute"
    settings = from_environment({"IBIPORTAL_PARSE_SECONDS": "2.5", "IBIPORTAL_RATELIMIT_TEXT": "2048/minute"})
    assert (settings["PARSE_SECONDS"], settings["RATELIMIT_TEXT"]) == (2.5, "2048/minute")
    with pytest.raises(ValueError, match="IBIPORTAL_PARSE_SECONDS must be a number of seconds greater than 0"):
        from_environment({"IBIPORTAL_PARSE_SECONDS": "0"})


def test_settings_are_one_typed_frozen_object_read_once():
    from dataclasses import FrozenInstanceError, fields

    from ibiportal.config import Settings
    settings = Settings.from_environment({"IBIPORTAL_TRACE_RETENTION": "5", "IBIPORTAL_DEMO_ARCHIVES": "off",
                                          "IBIPORTAL_TRUSTED_PROXIES": "203.0.113.7, 198.51.100.0/24",
                                          "IBIPORTAL_SECURE_COOKIES": "0", "IBIPORTAL_PARSE_SECONDS": "2.5"})
    assert (settings.trace_retention, settings.demo_archives, settings.session_cookie_secure) == (5, False, False)
    assert settings.trusted_proxies == ("203.0.113.7", "198.51.100.0/24") and settings.parse_seconds == 2.5
    assert settings.workers >= 1 and settings.log_format == "text"  # the rest are defaults
    with pytest.raises(FrozenInstanceError):
        settings.trace_retention = 6
    assert settings.flask_changes() == {"TRACE_RETENTION": 5, "DEMO_ARCHIVES": False, "SESSION_COOKIE_SECURE": False,
                                        "TRUSTED_PROXIES": ["203.0.113.7", "198.51.100.0/24"], "PARSE_SECONDS": 2.5}
    entries = fields(Settings)
    variables = [entry.metadata["env"] or f"IBIPORTAL_{entry.name.upper()}" for entry in entries]
    assert len(set(variables)) == len(entries) and all(entry.metadata["doc"] for entry in entries)


def test_the_hosts_served_are_those_set_else_this_machines_without_a_portal_url():
    """Flask's TRUSTED_HOSTS and the cached-hit layer both take them from here."""
    from ibiportal.config import Settings
    served = Settings.from_environment
    assert served({"IBIPORTAL_BIND": "192.0.2.5:8000,[2001:db8::1]:8000"}).served_hosts == (
        "localhost", "127.0.0.1", "::1", "[::1]", "192.0.2.5", "2001:db8::1")
    assert served({"IBIPORTAL_TRUSTED_HOSTS": "portal.example"}).served_hosts == ("portal.example",)
    assert served({"IBIPORTAL_PORTAL_URL": "https://ibi.example.org"}).served_hosts is None  # any: the address is set


def test_the_documented_table_lists_every_setting_with_its_default():
    from ibiportal.config import settings_table
    table = settings_table().splitlines()
    assert table[0] == "| variable | meaning | default |"
    assert "| `IBIPORTAL_SECURE_COOKIES` | session cookie only over HTTPS" in "\n".join(table)
    assert any(row.startswith("| `IBIPORTAL_TRACE_RETENTION` |") and row.endswith("| `1000` |") for row in table)
    assert any(row.startswith("| `IBIPORTAL_METRICS_ALLOW` |") and row.endswith("| `127.0.0.0/8,::1` |") for row in table)


def test_the_configuration_page_shows_the_table_the_declarations_make():
    from pathlib import Path

    from ibiportal.config import settings_table
    page = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text()
    assert settings_table() in page, "docs/configuration.md is behind ibiportal/config.py: run bash bin/settings-table"


def test_the_target_and_usage_settings_with_their_defaults():
    assert (DEFAULTS["TARGET_FAILURES"], DEFAULTS["TARGET_RECHECK_HOURS"], DEFAULTS["USAGE"],
            DEFAULTS["USAGE_FLUSH_SECONDS"]) == (3, 24.0, True, 5.0)
    settings = from_environment({"IBIPORTAL_TARGET_FAILURES": "5", "IBIPORTAL_TARGET_RECHECK_HOURS": "0",
                                 "IBIPORTAL_USAGE": "no", "IBIPORTAL_USAGE_FLUSH_SECONDS": "0.5"})
    assert settings == {"TARGET_FAILURES": 5, "TARGET_RECHECK_HOURS": 0.0, "USAGE": False, "USAGE_FLUSH_SECONDS": 0.5}


@pytest.mark.parametrize(("name", "value", "message"), [
    ("IBIPORTAL_TARGET_FAILURES", "0", "IBIPORTAL_TARGET_FAILURES must be a whole number of at least 1, not '0'"),
    ("IBIPORTAL_TARGET_FAILURES", "three", "IBIPORTAL_TARGET_FAILURES must be a whole number of at least 1"),
    ("IBIPORTAL_TARGET_RECHECK_HOURS", "-1", "IBIPORTAL_TARGET_RECHECK_HOURS must be a number of hours, 0 or more"),
    ("IBIPORTAL_USAGE_FLUSH_SECONDS", "0", "IBIPORTAL_USAGE_FLUSH_SECONDS must be a number of seconds greater than 0"),
    ("IBIPORTAL_USAGE", "sometimes", "IBIPORTAL_USAGE must be 1 or 0 (on or off), not 'sometimes'"),
])
def test_target_and_usage_settings_that_make_no_sense_are_refused(name, value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        from_environment({name: value})
