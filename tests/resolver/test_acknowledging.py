"""The URL goes out once the acknowledgment (5) is sent, not once the notice (6) came (§8.2,
STANDARD.md §7): over real loopback sockets, through the resolver's libcurl transport, to a
scripted Archive that takes its time over the notice. The notices still awaited are bounded
per Archive, and one that is dropped or does not come is counted, logged and recorded."""
from __future__ import annotations

import logging
import threading
import time

import pytest

from ibiportal.resolver.acknowledging import PendingNotices
from ibiportal.resolver.curl_transport import CurlTransport
from ibiportal.resolver.engine import Asked, ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.trace import AcknowledgmentOutcome, Status
from ibiportal.resolver.transport import ArchiveEndpoint, Route
from tests.scripted_archive import Answer, ArchiveRequest

ITEM = "8JMKD3MGP8W/35MMLL8"
SERVICE_IBI = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"
CLIENT = ClientInfo(("203.0.113.7",))

#: How long the Archive takes to answer the acknowledgment; the resolution's deadline and the
#: Archive's read timeout leave it time to come.
NOTICE_SECONDS = 2.0
SETTINGS = ResolverSettings(deadline=NOTICE_SECONDS * 3)

#: The redirect must come within this: a quarter of the notice's delay (0.5 s), many times what a
#: resolution over loopback takes even on a loaded machine, yet far from waiting for the notice.
REDIRECT_WITHIN = NOTICE_SECONDS / 4


class SlowNoticeArchive:
    """Holds ITEM; answers the acknowledgment after ``NOTICE_SECONDS`` (or with HTTP 500)."""

    def __init__(self, notice: str | Answer = "notice {acknowledgment received}\r\n") -> None:
        self.notice = notice
        self.noticed = threading.Event()  # set once a notice has been answered

    def __call__(self, request: ArchiveRequest) -> Answer | str:
        if request.subject == "acknowledgment":
            time.sleep(NOTICE_SECONDS)
            self.noticed.set()
            return self.notice
        return (
            "archiveaddress 127.0.0.1\r\n"
            f"ibi {{rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43 ibip {ITEM}}}\r\n"
            f"ibi.archiveservice {{rep {SERVICE_IBI}}}\r\n"
            "url http://127.0.0.1/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/item.pdf\r\n"
            "contenttype Data\r\nstate Original\r\ntimestamp 2009-07-21T14:43:00Z\r\n"
            "urlkey 1427244889-0000000000000001\r\n"
        )


@pytest.fixture
def curl():
    transport = CurlTransport(allow_private=True)
    yield transport
    transport.close()


def resolver_for(archive, curl, notices: PendingNotices | None) -> Resolver:
    endpoint = ArchiveEndpoint(f"127.0.0.1:{archive.port}", SERVICE_IBI, "slow-notice", Route.HTTP,
                               connect_timeout=1.0, read_timeout=NOTICE_SECONDS * 2)
    return Resolver([endpoint], {Route.HTTP: curl}, settings=SETTINGS, notices=notices)


def test_the_redirect_goes_out_without_waiting_for_a_slow_notice(scripted_archive, curl):
    script = SlowNoticeArchive()
    archive = scripted_archive(script)
    notices = PendingNotices(4)
    resolver = resolver_for(archive, curl, notices)
    started = time.monotonic()
    resolution = resolver.resolve(Asked.parse(f"http://urlib.net/{ITEM}"), CLIENT)
    elapsed = time.monotonic() - started
    assert resolution.found and not script.noticed.is_set()  # returned while the Archive still held the notice
    assert elapsed < REDIRECT_WITHIN, f"the redirect took {elapsed:.2f} s"
    (notice,) = resolution.trace.numbered(6)
    assert notice.acknowledgment is AcknowledgmentOutcome.PENDING
    assert notice.decision.startswith("acknowledgment pending")
    assert archive.wait_for("acknowledgment", 1) == 1  # (5) was sent, before or as the URL went out
    assert notices.pending(resolver.archives[0]) == 1

    arrived = resolution.pending_notice.result(timeout=NOTICE_SECONDS * 3)
    assert arrived.acknowledgment is AcknowledgmentOutcome.NOTICE and arrived.number == 6
    assert arrived.pairs == (("notice", "acknowledgment received"),)
    assert arrived.decision == "notice {acknowledgment received}"
    assert notices.pending(resolver.archives[0]) == 0 and (notices.dropped, notices.failed) == (0, 0)


def test_without_pending_notices_the_engine_waits_for_the_notice(scripted_archive, curl):
    archive = scripted_archive(SlowNoticeArchive())
    resolution = resolver_for(archive, curl, None).resolve(Asked.parse(f"http://urlib.net/{ITEM}"), CLIENT)
    (notice,) = resolution.trace.numbered(6)
    assert notice.acknowledgment is AcknowledgmentOutcome.NOTICE and resolution.pending_notice is None


def test_beyond_the_bound_per_archive_an_acknowledgment_is_dropped_counted_and_logged(scripted_archive, curl, caplog):
    archive = scripted_archive(SlowNoticeArchive())
    notices = PendingNotices(1)
    resolver = resolver_for(archive, curl, notices)
    first = resolver.resolve(Asked.parse(f"http://urlib.net/{ITEM}"), CLIENT)
    with caplog.at_level(logging.INFO, logger="ibiportal.resolver.acknowledging"):
        second = resolver.resolve(Asked.parse(f"http://urlib.net/{ITEM}"), CLIENT)
    assert first.pending_notice is not None and second.found  # the reader is redirected all the same
    (unsent,) = second.trace.numbered(5)
    assert unsent.status is Status.NOT_SENT and "1 acknowledgments to slow-notice still await their notice" in unsent.error
    assert second.acknowledgment_url is None and second.pending_notice is None and not second.trace.numbered(6)
    assert notices.dropped == 1 and "acknowledgment dropped" in caplog.text
    first.pending_notice.result(timeout=NOTICE_SECONDS * 3)
    assert archive.count("acknowledgment") == 1
    third = resolver.resolve(Asked.parse(f"http://urlib.net/{ITEM}"), CLIENT)  # the place is free again
    assert third.pending_notice is not None


def test_a_notice_that_does_not_come_is_counted_logged_and_recorded(scripted_archive, curl, caplog):
    archive = scripted_archive(SlowNoticeArchive(Answer(status=500)))
    notices = PendingNotices(4)
    resolution = resolver_for(archive, curl, notices).resolve(Asked.parse(f"http://urlib.net/{ITEM}"), CLIENT)
    with caplog.at_level(logging.INFO, logger="ibiportal.resolver.acknowledging"):
        arrived = resolution.pending_notice.result(timeout=NOTICE_SECONDS * 3)
    assert arrived.acknowledgment is not AcknowledgmentOutcome.NOTICE and arrived.http_status == 500
    assert notices.failed == 1 and "no notice from slow-notice after an acknowledgment" in caplog.text


def test_the_bound_is_a_positive_number():
    with pytest.raises(ValueError, match="at least one pending notice"):
        PendingNotices(0)
