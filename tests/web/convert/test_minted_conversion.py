"""What the portal minted converts both ways: the pair of its own subsystem (and of every subsystem
that has minted here, should the settings change) is in the prefix table, with its source."""
from __future__ import annotations

import re

from ibiportal import create_app
from tests.servers import fresh_sqlite

FORMS = re.compile(r"<dt>(Repository name|IBIp)</dt>\s*<dd>(.*?)</dd>", re.S)


def portal(database, host: str, ip: str):
    return create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                       "MINT_HOST": host, "MINT_IP": ip}).test_client()


def test_an_ibi_minted_minutes_earlier_converts_both_ways_even_after_the_settings_change(tmp_path):
    database = fresh_sqlite(tmp_path / "portal.sqlite")
    first = portal(database, "node.example.org", "192.0.2.10")
    minted = first.post("/api/v1/mint", json={"count": 1}).get_json()[0]
    later = portal(database, "other.example.org", "192.0.2.20")  # a new subsystem, the same storage
    for client in (first, later):
        for text in (minted["ibip"], minted["rep"]):
            shown = dict(FORMS.findall(client.get("/", query_string={"q": text}).get_data(as_text=True)))
            assert minted["rep"] in shown["Repository name"] and minted["ibip"] in shown["IBIp"], text
        conversion = client.get("/api/v1/convert", query_string={"ibi": minted["ibip"]}).get_json()
        assert conversion["rep"] == minted["rep"]
        assert conversion["prefix"]["reference"].startswith("this portal's identification subsystem")
