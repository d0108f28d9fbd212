"""The target checker with mocked servers (responses): HEAD first, GET where HEAD is refused,
redirects followed a bounded number of times (a permanent one makes the target moved), the
address policy on every hop, and one request per second per host, paced by an injected clock
and sleeper (nothing sleeps)."""
from __future__ import annotations

import socket

import pytest
import responses

from ibiportal.resolver.http_transport import HttpTransport
from ibiportal.ibi.target_check import TargetOutcome
from ibiportal.resolver.target_probe import MAX_REDIRECTS, HostPacer, TargetChecker

TARGET = "http://repository.example/item/42"


class FakeTime:
    """A clock that only the sleeper moves, and a record of every sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def public_dns(host, port, *args, **kwargs):
    """Every name resolves to a public address, but the one that names the metadata service."""
    address = "169.254.169.254" if host == "metadata.example" else "150.163.34.243"
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]


@pytest.fixture
def time_():
    return FakeTime()


@pytest.fixture
def checker(time_):
    transport = HttpTransport(getaddrinfo=public_dns, user_agent="IBI-Portal-target-check")
    yield TargetChecker(transport, HostPacer(1.0, time_.clock, time_.sleep))
    transport.close()


def methods(calls) -> list[tuple[str, str]]:
    return [(call.request.method, call.request.url) for call in calls]


@responses.activate
def test_a_head_answered_is_enough(checker):
    responses.head(TARGET, status=200)
    probe = checker.check(TARGET)
    assert (probe.outcome, probe.status, probe.location) == (TargetOutcome.WORKING, 200, None)
    assert methods(responses.calls) == [("HEAD", TARGET)]
    assert responses.calls[0].request.headers["User-Agent"] == "IBI-Portal-target-check"


@pytest.mark.parametrize("refusal", [405, 501, 403])
@responses.activate
def test_get_where_head_is_refused(checker, refusal):
    responses.head(TARGET, status=refusal)
    responses.get(TARGET, status=200, body=b"%PDF" * 1000)
    probe = checker.check(TARGET)
    assert (probe.outcome, probe.status) == (TargetOutcome.WORKING, 200)
    assert methods(responses.calls) == [("HEAD", TARGET), ("GET", TARGET)]


@responses.activate
def test_a_dead_target_fails_with_its_status_and_no_get_after_a_server_error(checker):
    responses.head(TARGET, status=503)
    probe = checker.check(TARGET)
    assert (probe.outcome, probe.status, probe.detail) == (TargetOutcome.FAILED, 503, "HTTP 503")
    assert methods(responses.calls) == [("HEAD", TARGET)]


@responses.activate
def test_a_get_that_also_fails_is_a_failure(checker):
    responses.head(TARGET, status=404)
    responses.get(TARGET, status=404)
    probe = checker.check(TARGET)
    assert (probe.outcome, probe.status, probe.detail) == (TargetOutcome.FAILED, 404, "HTTP 404")


@responses.activate
def test_a_permanent_redirect_is_a_move_with_where_it_led(checker):
    responses.head(TARGET, status=301, headers={"Location": "https://repository.example/items/42"})
    responses.head("https://repository.example/items/42", status=302, headers={"Location": "/items/42/landing"})
    responses.head("https://repository.example/items/42/landing", status=200)
    probe = checker.check(TARGET)
    assert (probe.outcome, probe.status, probe.redirect_status, probe.location) == (
        TargetOutcome.MOVED, 200, 301, "https://repository.example/items/42/landing")


@responses.activate
def test_temporary_redirects_are_how_sites_work(checker):
    responses.head(TARGET, status=302, headers={"Location": "/login?next=/item/42"})
    responses.head("http://repository.example/login?next=/item/42", status=200)
    probe = checker.check(TARGET)
    assert (probe.outcome, probe.location) == (TargetOutcome.WORKING, "http://repository.example/login?next=/item/42")


@responses.activate
def test_redirects_are_followed_a_bounded_number_of_times(checker):
    for hop in range(MAX_REDIRECTS + 2):
        responses.head(f"http://repository.example/hop/{hop}", status=307,
                       headers={"Location": f"/hop/{hop + 1}"})
    probe = checker.check("http://repository.example/hop/0")
    assert probe.outcome is TargetOutcome.FAILED and probe.detail == f"more than {MAX_REDIRECTS} redirects"
    assert len(responses.calls) == MAX_REDIRECTS + 1


@responses.activate
def test_a_redirect_elsewhere_than_http_or_without_location_fails(checker):
    responses.head(TARGET, status=301, headers={"Location": "file:///etc/passwd"})
    assert "file: is not http or https" in checker.check(TARGET).detail
    responses.head("http://repository.example/b", status=302)
    assert checker.check("http://repository.example/b").detail == "HTTP 302 redirects without a Location"


@responses.activate
def test_the_address_policy_holds_on_every_hop(checker):
    responses.head(TARGET, status=302, headers={"Location": "http://metadata.example/latest/"})
    probe = checker.check(TARGET)
    assert probe.outcome is TargetOutcome.FAILED and "169.254.169.254 is a link-local address" in probe.detail
    assert methods(responses.calls) == [("HEAD", TARGET)]  # nothing was sent there


@responses.activate
def test_one_request_per_second_per_host(checker, time_):
    for path in ("a", "b", "c"):
        responses.head(f"http://repository.example/{path}", status=405)
        responses.get(f"http://repository.example/{path}", status=200)
    responses.head("http://other.example/a", status=200)
    sent_at: list[tuple[float, str]] = []
    responses.calls  # noqa: B018 - the list is read below
    original = checker.transport.probe

    def timed(url, method, timeouts):
        sent_at.append((time_.now, url))
        return original(url, method, timeouts)

    checker.transport.probe = timed
    for url in ("http://repository.example/a", "http://other.example/a", "http://repository.example/b",
                "http://repository.example/c"):
        assert checker.check(url).outcome is TargetOutcome.WORKING
    by_host = [at for at, url in sent_at if "repository.example" in url]
    assert len(by_host) == 6  # HEAD and GET of each
    assert all(later - earlier >= 1.0 for earlier, later in zip(by_host, by_host[1:]))
    assert [at for at, url in sent_at if "other.example" in url] == [1001.0]  # not held up by the other host
    assert sum(time_.sleeps) == pytest.approx(5.0)


def test_the_pacer_reserves_slots_per_host(time_):
    pacer = HostPacer(1.0, time_.clock, time_.sleep)
    pacer.wait("http://a.example/1")
    pacer.wait("http://B.example:8080/1")
    pacer.wait("http://A.EXAMPLE/2")
    assert time_.sleeps == [1.0]
