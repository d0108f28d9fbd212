"""The resolver's fixtures (the demo Archives behind the in-process transport, the §10 client):
the Trace page's modules draw what those resolutions recorded."""
from tests.resolver.conftest import demo_archives, demo_resolver, demo_transport, standard_client  # noqa: F401
