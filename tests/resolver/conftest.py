"""Fixtures for the resolver: the demo Archives behind the in-process transport, the §10 client."""
from __future__ import annotations

import pytest

from ibiportal.archive.demo import load_demo_archives
from ibiportal.resolver.engine import ClientInfo, Resolver, ResolverSettings
from ibiportal.resolver.local_transport import LocalTransport

#: §10.1 and §10.2: the user behind a proxy, and the browser's language preference.
STANDARD_CLIENT = ClientInfo(("172.16.44.200", "150.163.68.1"), "pt-BR,fr;q=0.8,en;q=0.5,pt;q=0.3")


@pytest.fixture
def standard_client() -> ClientInfo:
    return STANDARD_CLIENT


@pytest.fixture(scope="session")
def demo_archives():
    return load_demo_archives()


@pytest.fixture
def demo_transport(demo_archives):
    return LocalTransport(demo_archives.values())


@pytest.fixture
def demo_resolver(demo_transport):
    """All demo Archives, with short timeouts so the slow one costs 0.3 s, not 30 s."""
    resolver = Resolver(
        demo_transport.endpoints(connect_timeout=0.3, read_timeout=0.3),
        {"local": demo_transport},
        settings=ResolverSettings(deadline=3.0),
    )
    yield resolver
    resolver.close()
