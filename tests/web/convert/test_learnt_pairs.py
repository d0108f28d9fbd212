"""Prefix pairs Archives' answers report (STANDARD.md §7): an answer ``ibi {rep … ibip …}`` claims a
subsystem's two prefixes; the pair is kept as a suggestion with the Archive and date as its source,
used by Convert and the home page only where no fact knows either prefix (and named as a claim),
never over a seeded, administrator's or user-supplied pair, until an administrator confirms or
rejects it. Over the demo Archives: edition-a answers for D7N2U8HW/39G4TD2 with both forms, a pair
no table knows beforehand."""
from __future__ import annotations

import re

import pytest

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.storage.schema import prefix_pair
from tests.admin_session import log_in_as
from tests.servers import fresh_sqlite

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


def test_a_pair_an_archive_proved_is_kept_with_its_source_and_used(tmp_path):
    database = fresh_sqlite(tmp_path / "portal.sqlite")
    client = create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "t"}).test_client()
    before = client.get("/api/v1/convert", query_string={"ibi": "D7N2U8HW/3J5AC3H"}).get_json()
    assert before["rep"] is None and "prefix unknown" in before["warnings"][0]

    assert client.get("/D7N2U8HW/39G4TD2", environ_base=CLIENT).status_code == 302

    after = client.get("/api/v1/convert", query_string={"ibi": "D7N2U8HW/3J5AC3H"}).get_json()
    assert after["rep"] == "ibiportal.test/lab/2015/03.10.14.22"
    source = after["prefix"]["reference"]
    assert source.startswith("reported by the Archive edition-a.ibiportal.test on ")
    assert source.endswith("ibi {rep ibiportal.test/lab/2011/04.12.08.15 ibip D7N2U8HW/39G4TD2}")
    assert any("reported by an Archive and no administrator has confirmed it" in warning for warning in after["warnings"])
    classified = client.get("/api/v1/classify", query_string={"q": "D7N2U8HW/3J5AC3H"}).get_json()
    assert any("edition-a.ibiportal.test" in note["message"] for note in classified["notes"])
    assert "edition-a.ibiportal.test" in client.get("/convert/prefixes").get_data(as_text=True)

    rows = Storage(database).connection.execute(prefix_pair.select()).all()
    assert [(row.rep_prefix, row.ibip_prefix, row.archive, row.status) for row in rows] == [
        ("ibiportal.test/lab", "D7N2U8HW", "edition-a.ibiportal.test", "suggested")]
    assert rows[0].evidence == "ibi {rep ibiportal.test/lab/2011/04.12.08.15 ibip D7N2U8HW/39G4TD2}"


def test_a_pair_the_table_knows_is_not_learnt_again(tmp_path):
    database = fresh_sqlite(tmp_path / "portal.sqlite")
    client = create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "t"}).test_client()
    assert client.get("/8JMKD3MGP8W/35MME4E", environ_base=CLIENT).status_code == 302  # file 003's known server
    assert Storage(database).connection.execute(prefix_pair.select()).all() == []


#: What a hostile (or mistaken) Archive answered: its own host paired with INPE's IBIp prefix.
EVIL = ("evil.example.com/x", "8JMKD3MGP8W", "evil.example.com",
        "ibi {rep evil.example.com/x/2009/07.21.13.23 ibip 8JMKD3MGP8W/35MME4E}")
#: A claim on prefixes no fact knows: a host and IBIp prefix of nobody's table.
GAP = ("lab.example.org/rep", "D7N2U8HW", "edition-a.ibiportal.test",
       "ibi {rep lab.example.org/rep/2011/04.12.08.15 ibip D7N2U8HW/39G4TD2}")


@pytest.fixture()
def claimed(tmp_path):
    """A portal whose table holds the two claims above, as resolutions would have left them."""
    database = fresh_sqlite(tmp_path / "portal.sqlite")
    app = create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False})
    storage = Storage(database)
    for claim in (EVIL, GAP):
        assert IdentifierStore(storage).learn_prefix_pair(*claim)
    storage.close()
    return app


def convert(client, **query) -> dict:
    return client.get("/api/v1/convert", query_string=query).get_json()


def test_an_archives_claim_never_rewrites_a_known_servers_pair(claimed):
    client = claimed.test_client()
    inpe = convert(client, ibi="8JMKD3MGP8W/35MME4E")
    assert inpe["rep"] == "sid.inpe.br/mtc-m18@80/2009/07.21.13.23" and not any("reported" in w for w in inpe["warnings"])
    evil = convert(client, ibi="evil.example.com/x/2009/07.21.13.23")
    assert evil["ibip"] is None and "prefix unknown" in evil["warnings"][0]  # the claim is not used at all
    classified = client.get("/api/v1/classify", query_string={"q": "8JMKD3MGP8W/35MME4E"}).get_json()
    assert "evil.example.com" not in str(classified)


def test_a_claim_fills_a_gap_but_gives_way_to_a_host_the_user_types(claimed):
    client = claimed.test_client()
    gap = convert(client, ibi="D7N2U8HW/3J5AC3H")
    assert gap["rep"] == "lab.example.org/rep/2015/03.10.14.22"
    assert gap["prefix"]["reference"].startswith("reported by the Archive edition-a.ibiportal.test on ")
    typed = convert(client, ibi="D7N2U8HW/3J5AC3H", host="repo.example.net")
    assert typed["rep"] == "example.net/repo/2015/03.10.14.22" and typed["prefix"]["source"] == "user"


def test_a_claim_gives_way_to_an_import_operators_pair(claimed):
    with claimed.app_context():
        from ibiportal.web.context import application
        table = application().known_prefix_pairs([("given.example.org/rep", "D7N2U8HW")])
    assert ("given.example.org/rep", "D7N2U8HW") in [pair[:2] for pair in table]
    assert ("lab.example.org/rep", "D7N2U8HW") not in [pair[:2] for pair in table]


def test_reported_pairs_are_listed_apart_and_an_administrator_confirms_or_rejects_them(claimed):
    client = claimed.test_client()
    page = client.get("/convert/prefixes").get_data(as_text=True)
    reported = page[page.index('id="reported-title"'):]
    assert "the Archive evil.example.com" in reported and "not used" in reported
    assert "the Archive edition-a.ibiportal.test" in reported and "awaiting confirmation; used" in reported
    assert "Confirm" not in reported  # the buttons are the administrator's
    anonymous = client.post("/convert/prefixes/decision", data={"rep_prefix": GAP[0], "ibip_prefix": GAP[1], "confirm": "1"})
    assert anonymous.status_code in (302, 303, 401, 403) and "login" in anonymous.headers.get("Location", "login")

    log_in_as(client, "alice")
    assert "Confirm" in client.get("/convert/prefixes").get_data(as_text=True)
    done = client.post("/convert/prefixes/decision", data={"rep_prefix": GAP[0], "ibip_prefix": GAP[1], "confirm": "1"},
                       follow_redirects=True)
    assert "Confirmed lab.example.org/rep = D7N2U8HW." in done.get_data(as_text=True)
    confirmed = convert(client, ibi="D7N2U8HW/3J5AC3H")
    assert confirmed["prefix"]["reference"].startswith("confirmed by administrator alice; reported by the Archive")
    assert not any("reported by an Archive" in w for w in confirmed["warnings"])
    typed = convert(client, ibi="D7N2U8HW/3J5AC3H", host="repo.example.net")
    assert typed["rep"] == "lab.example.org/rep/2015/03.10.14.22"  # now a fact, as an administrator's pair is

    client.post("/convert/prefixes/decision", data={"rep_prefix": EVIL[0], "ibip_prefix": EVIL[1], "reject": "1"})
    rows = {row.rep_prefix: row for row in Storage(claimed.config["DATABASE"]).connection.execute(prefix_pair.select())}
    assert (rows[EVIL[0]].status, rows[GAP[0]].status) == ("rejected", "confirmed")
    assert rows[EVIL[0]].source.startswith("rejected by administrator alice; reported by the Archive evil.example.com")
    assert not IdentifierStore(Storage(claimed.config["DATABASE"])).learn_prefix_pair(*EVIL)  # not learnt again
    again = client.post("/convert/prefixes/decision", data={"rep_prefix": EVIL[0], "ibip_prefix": EVIL[1], "confirm": "1"},
                        follow_redirects=True)
    assert "awaits no decision" in again.get_data(as_text=True)
    assert re.search(r"rejected by an administrator", client.get("/convert/prefixes").get_data(as_text=True))


def test_the_cli_lists_claims_as_suggested_and_an_administrator_rejects_or_confirms_them(claimed):
    runner = claimed.test_cli_runner()
    listed = runner.invoke(args=["ibi", "prefix-pair"]).output.splitlines()
    assert f"{GAP[0]}\t{GAP[1]}\tsuggested" in listed and not any(line.startswith(EVIL[0]) for line in listed)
    assert runner.invoke(args=["ibi", "prefix-pair", EVIL[0], EVIL[1], "--reject"]).output == f"rejected {EVIL[0]} = {EVIL[1]}\n"
    assert runner.invoke(args=["ibi", "prefix-pair", EVIL[0], EVIL[1], "--reject"]).exit_code == 2  # decided already
    assert runner.invoke(args=["ibi", "prefix-pair", GAP[0], GAP[1]]).output == f"added {GAP[0]} = {GAP[1]}\n"
    assert f"{GAP[0]}\t{GAP[1]}" in runner.invoke(args=["ibi", "prefix-pair"]).output.splitlines()  # a fact now
