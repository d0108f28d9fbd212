"""Prefix pairs learnt from Archives' answers (STANDARD.md §7): an answer ``ibi {rep … ibip …}``
proves a subsystem's two prefixes; the pair is kept with the Archive and date as its source and
used by Convert and the home page, which name that source. Over the demo Archives: edition-a
answers for D7N2U8HW/39G4TD2 with both forms, a pair no table knows beforehand."""
from __future__ import annotations

from ibiportal import create_app
from ibiportal.storage.database import Storage
from ibiportal.storage.schema import prefix_pair
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
    assert source.startswith("learnt from the answer of the Archive edition-a.ibiportal.test on ")
    assert source.endswith("ibi {rep ibiportal.test/lab/2011/04.12.08.15 ibip D7N2U8HW/39G4TD2}")
    classified = client.get("/api/v1/classify", query_string={"q": "D7N2U8HW/3J5AC3H"}).get_json()
    assert any("edition-a.ibiportal.test" in note["message"] for note in classified["notes"])
    assert "edition-a.ibiportal.test" in client.get("/convert/prefixes").get_data(as_text=True)

    rows = Storage(database).connection.execute(prefix_pair.select()).all()
    assert [(row.rep_prefix, row.ibip_prefix, row.archive) for row in rows] == [
        ("ibiportal.test/lab", "D7N2U8HW", "edition-a.ibiportal.test")]
    assert rows[0].evidence == "ibi {rep ibiportal.test/lab/2011/04.12.08.15 ibip D7N2U8HW/39G4TD2}"


def test_a_pair_the_table_knows_is_not_learnt_again(tmp_path):
    database = fresh_sqlite(tmp_path / "portal.sqlite")
    client = create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "t"}).test_client()
    assert client.get("/8JMKD3MGP8W/35MME4E", environ_base=CLIENT).status_code == 302  # file 003's known server
    assert Storage(database).connection.execute(prefix_pair.select()).all() == []
