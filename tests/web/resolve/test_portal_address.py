"""The portal's address: IBIPORTAL_PORTAL_URL, else the address the request came to, believed
only for IBIPORTAL_TRUSTED_HOSTS, so a forged Host poisons neither links nor cached redirects."""
from __future__ import annotations

import pytest

from ibiportal import create_app
from ibiportal.config import bind_hosts, from_environment


def mint(client, **request) -> str:
    return client.post("/api/v1/mint", json={"title": "Here"}, **request).get_json()["ibip"]


def test_own_items_link_to_the_address_the_request_came_to(client):
    ibip = mint(client)
    assert client.get(f"/{ibip}").headers["Location"] == f"http://localhost/archive/items/{ibip}"
    other = client.get(f"/{ibip}", base_url="http://127.0.0.1:8080")
    assert other.headers["Location"] == f"http://127.0.0.1:8080/archive/items/{ibip}"


def test_demo_archive_links_follow_the_address_too(client):
    location = client.get("/D7N2U8HW/39G4TD2!", base_url="http://127.0.0.1:8080").headers.get("Location", "")
    assert location.startswith("http://127.0.0.1:8080/demo/archives/")


@pytest.mark.parametrize("accept", ["text/html", "application/json"])
def test_a_forged_host_is_refused_and_poisons_no_cached_redirect(client, accept):
    ibip = mint(client)
    forged = client.get(f"/{ibip}", headers={"Host": "evil.example", "Accept": accept})
    assert forged.status_code == 400
    assert "IBIPORTAL_TRUSTED_HOSTS" in forged.get_data(as_text=True) and "evil.example/" not in forged.get_data(as_text=True)
    for _ in range(2):  # the second answer comes from the cache
        assert client.get(f"/{ibip}").headers["Location"] == f"http://localhost/archive/items/{ibip}"


def test_with_a_portal_url_links_use_it(new_database):
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "k",
                      "PORTAL_URL": "https://ibi.example.org/"})
    client = app.test_client()
    ibip = mint(client)
    assert client.get(f"/{ibip}", base_url="http://10.0.0.5").headers["Location"] == \
        f"https://ibi.example.org/archive/items/{ibip}"


def test_trusted_hosts_come_from_the_environment_or_the_loopback_names_and_the_bind_address(new_database):
    assert from_environment({"IBIPORTAL_TRUSTED_HOSTS": "portal.example, .inpe.br"})["TRUSTED_HOSTS"] == [
        "portal.example", ".inpe.br"]
    app = create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "k",
                      "BIND": "192.0.2.5:8000,[2001:db8::1]:8000"})
    assert {"localhost", "127.0.0.1", "::1", "192.0.2.5", "2001:db8::1"} <= set(app.config["TRUSTED_HOSTS"])
    assert app.test_client().get("/", base_url="http://192.0.2.5:8000").status_code == 200


def test_bind_hosts():
    assert bind_hosts("127.0.0.1:8000") == ["127.0.0.1"]
    assert bind_hosts("0.0.0.0:8000, unix:/run/ibi.sock, [::1]:80, portal.lan:8000") == ["::1", "portal.lan"]
