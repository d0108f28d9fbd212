"""The own Archive's answers to ``urlRequest`` (Algorithm 2 of §9) at the edges of the standard."""
from __future__ import annotations

from ibiportal.protocol.pairlist import parse_pair_list

ASK = "?servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175&parsedibiurl.ibi="


def test_a_name_dated_before_1995_gets_the_empty_answer(client, app):
    """Algorithm 2 lines 3-4: an IBI the Archive does not hold gets the empty answer, whatever its date."""
    answer = client.get("/" + app.config["ARCHIVE_SERVICE_IBI"] + ASK + "sid.inpe.br/mtc-m18/1990/01.02.03.04")
    assert (answer.status_code, answer.get_data(as_text=True)) == (200, "")


def test_a_file_path_without_its_slash_is_accepted_as_example_9_11_writes_it(client, app):
    minted = client.post("/api/v1/mint", json={"title": "Own", "target_url": "https://example.org/own"}).get_json()
    service = "/" + app.config["ARCHIVE_SERVICE_IBI"] + ASK + minted["ibip"]
    with_slash = client.get(service + "&parsedibiurl.filepath=/reference.bib")
    without = client.get(service + "&parsedibiurl.filepath=reference.bib")
    assert with_slash.status_code == without.status_code == 200, without.get_data(as_text=True)
    names = lambda answer: parse_pair_list(answer.get_data()).names()  # noqa: E731
    assert names(without) == names(with_slash)


def test_an_own_item_is_found_under_either_spelling_of_port_80_and_answered_with_its_real_name(client, app):
    minted = client.post("/api/v1/mint", json={"title": "Own", "target_url": "https://example.org/own"}).get_json()
    subdomain, word, rest = minted["rep"].split("/", 2)
    assert "@" not in word and "." not in word  # minted on port 80 after August 2010: no port written
    legacy = f"{subdomain}/{word}@80/{rest}"
    answer = client.get("/" + app.config["ARCHIVE_SERVICE_IBI"] + ASK + legacy)
    pairs = parse_pair_list(answer.get_data())
    assert answer.status_code == 200 and parse_pair_list(pairs.get("ibi")).get("rep") == minted["rep"], answer.get_data()
    assert pairs.get("url") == "https://example.org/own"
