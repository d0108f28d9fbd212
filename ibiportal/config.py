"""Configuration from ``IBIPORTAL_*`` environment variables, with working defaults.

The defaults give a *demo* identification subsystem (see ``DEMO_SUBSYSTEM``): identifiers
minted with it are well-formed but name a server that is not a real URLib subsystem, and the
UI says so.
"""
from __future__ import annotations

import os
from collections.abc import Mapping

DEMO_MINT_HOST = "demo.ibiportal.invalid"
DEMO_MINT_IP = "192.0.2.1"  # TEST-NET-1 (RFC 5737): documentation-only address


def from_environment(environ: Mapping[str, str] | None = None) -> dict:
    """Read the portal's settings from the environment (``os.environ`` by default)."""
    env = os.environ if environ is None else environ
    settings: dict = {}
    names = {
        "IBIPORTAL_DATABASE": "DATABASE",
        "IBIPORTAL_SECRET_KEY": "SECRET_KEY",
        "IBIPORTAL_MINT_HOST": "MINT_HOST",
        "IBIPORTAL_MINT_PORT": "MINT_PORT",
        "IBIPORTAL_MINT_IP": "MINT_IP",
        "IBIPORTAL_MINT_IBIP_PORT": "MINT_IBIP_PORT",
        "IBIPORTAL_GRANULARITY": "GRANULARITY",
        "IBIPORTAL_RESOLVER_BASE": "RESOLVER_BASE",
    }
    for env_name, key in names.items():
        if env.get(env_name):
            settings[key] = env[env_name]
    for key in ("MINT_PORT", "MINT_IBIP_PORT"):
        if key in settings:
            settings[key] = int(settings[key])
    return settings


DEFAULTS: dict = {
    "SECRET_KEY": "dev-only-change-me",
    "MINT_HOST": DEMO_MINT_HOST,
    "MINT_PORT": 80,
    "MINT_IP": DEMO_MINT_IP,
    "MINT_IBIP_PORT": 800,
    "GRANULARITY": "1",
    # Base of the persistent URLs the portal hands out; empty = the portal's own address.
    "RESOLVER_BASE": "",
}
