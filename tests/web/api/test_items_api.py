"""``/api/v1/items/<ibi>``: an own item read, changed and deleted, each change seen at once by
the resolver (its cache included)."""
from __future__ import annotations

import pytest

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


def mint(client, **fields) -> dict:
    response = client.post("/api/v1/mint", json=fields)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def resolved(client, path: str):
    return client.get("/" + path, environ_base=CLIENT)


def test_an_item_is_read_in_either_form(client):
    item = mint(client, title="Relatório", target_url="https://example.org/r", creators=["Banon, Gerald"], language="pt")
    for form in (item["rep"], item["ibip"], item["ibip"].lower()):
        body = client.get(f"/api/v1/items/{form}").get_json()
        assert (body["rep"], body["ibip"], body["state"]) == (item["rep"], item["ibip"], "Original")
        assert body["target_url"] == body["url"] == "https://example.org/r"
        assert body["metadata"]["title"] == "Relatório" and body["metadata"]["creators"] == ["Banon, Gerald"]
        assert body["relations"] == {"previous_edition": None, "next_edition": None, "translation_of": None,
                                     "translations": []}
        assert body["persistent_url"].endswith("/" + item["ibip"])


def test_an_unknown_or_malformed_ibi_is_refused(client):
    unknown = client.get("/api/v1/items/8JMKD3MGP8W/34PGRBS")
    assert unknown.status_code == 404 and "not an item of this portal" in unknown.get_json()["error"]["message"]
    bad = client.get("/api/v1/items/not-an-ibi")
    assert bad.status_code == 400 and bad.get_json()["error"]["message"]


def test_changes_need_a_token_and_change_nothing_without_one(client):
    item = mint(client, target_url="https://example.org/old")
    for method in (client.patch, client.delete):
        for headers in ({}, {"Authorization": "Bearer nope"}):
            response = method(f"/api/v1/items/{item['ibip']}", json={"target_url": "https://evil.example/"},
                              headers=headers)
            assert response.status_code == 401 and response.get_json()["error"]["field"] == "Authorization"
    body = client.get(f"/api/v1/items/{item['ibip']}").get_json()
    assert body["target_url"] == "https://example.org/old" and body["state"] == "Original"


def test_a_new_target_url_is_resolved_at_once_though_the_old_one_was_cached(client, auth):
    item = mint(client, target_url="https://example.org/old")
    assert resolved(client, item["ibip"]).headers["Location"] == "https://example.org/old"
    assert resolved(client, item["ibip"]).headers["Location"] == "https://example.org/old"  # now from the cache
    changed = client.patch(f"/api/v1/items/{item['rep']}", json={"target_url": "https://example.org/new"}, headers=auth)
    assert changed.status_code == 200 and changed.get_json()["target_url"] == "https://example.org/new"
    assert changed.get_json()["updated_at"]
    for form in (item["ibip"], item["rep"]):
        assert resolved(client, form).headers["Location"] == "https://example.org/new"


def test_only_the_fields_given_change_and_null_clears_one(client, auth):
    item = mint(client, title="Old", creators=["A, B"], date="2020", publisher="INPE", target_url="https://example.org/x")
    body = client.patch(f"/api/v1/items/{item['ibip']}", json={"title": "New", "publisher": None}, headers=auth).get_json()
    metadata = body["metadata"]
    assert (metadata["title"], metadata["creators"], metadata["date"], metadata["publisher"]) == ("New", ["A, B"], "2020", None)
    assert body["target_url"] == "https://example.org/x"
    xml = client.get(f"/archive/items/{item['ibip']}/oai_dc.xml").get_data(as_text=True)
    assert "<dc:title>New</dc:title>" in xml


@pytest.mark.parametrize(("change", "field"), [
    ({"target_url": "ftp://example.org/x"}, "target_url"),
    ({"degree": "Doutorado"}, "degree"),  # a degree needs a thesis type
    ({"colour": "red"}, "colour"),
    ({"count": 2}, "count"),
    ({"translation_of": "8JMKD3MGP8W/34PGRBS", "language": "pt"}, "translation_of"),
    ({"previous_edition": "8JMKD3MGP8W/34PGRBS"}, "previous_edition"),
])
def test_a_bad_change_is_refused_naming_the_field_and_nothing_changes(client, auth, change, field):
    item = mint(client, title="Kept", target_url="https://example.org/kept")
    response = client.patch(f"/api/v1/items/{item['ibip']}", json=change, headers=auth)
    assert response.status_code == 400 and response.get_json()["error"]["field"] == field
    body = client.get(f"/api/v1/items/{item['ibip']}").get_json()
    assert (body["metadata"]["title"], body["target_url"], body["updated_at"]) == ("Kept", "https://example.org/kept", None)


def test_a_change_names_every_field_at_fault_at_once(client, auth):
    item = mint(client, title="Kept")
    response = client.patch(f"/api/v1/items/{item['ibip']}", json={"date": "2024-02-30", "language": "english",
                                                                    "previous_edition": "not an IBI"}, headers=auth)
    assert response.status_code == 400
    assert [error["field"] for error in response.get_json()["error"]["errors"]] == ["date", "language", "previous_edition"]


def test_an_edition_linked_later_is_followed_and_unlinked_again(client, auth):
    first = mint(client, target_url="https://example.org/v1")
    second = mint(client, target_url="https://example.org/v2")
    assert resolved(client, first["ibip"] + "!").headers["Location"] == "https://example.org/v1"
    linked = client.patch(f"/api/v1/items/{second['ibip']}", json={"previous_edition": first["rep"]}, headers=auth)
    assert linked.get_json()["relations"]["previous_edition"] == first["ibip"]
    assert client.get(f"/api/v1/items/{first['ibip']}").get_json()["relations"]["next_edition"] == second["ibip"]
    assert resolved(client, first["ibip"] + "!").headers["Location"] == "https://example.org/v2"
    client.patch(f"/api/v1/items/{second['ibip']}", json={"previous_edition": None}, headers=auth)
    assert resolved(client, first["ibip"] + "!").headers["Location"] == "https://example.org/v1"


def test_a_circle_of_editions_and_a_second_next_edition_are_refused(client, auth):
    first = mint(client)
    second = mint(client, previous_edition=first["ibip"])
    third = mint(client)
    circle = client.patch(f"/api/v1/items/{first['ibip']}", json={"previous_edition": second["ibip"]}, headers=auth)
    assert circle.status_code == 400 and "later edition" in circle.get_json()["error"]["message"]
    taken = client.patch(f"/api/v1/items/{third['ibip']}", json={"previous_edition": first["ibip"]}, headers=auth)
    assert taken.status_code == 400 and "already has a next edition" in taken.get_json()["error"]["message"]
    itself = client.patch(f"/api/v1/items/{third['ibip']}", json={"previous_edition": third["rep"]}, headers=auth)
    assert itself.status_code == 400 and "this item itself" in itself.get_json()["error"]["message"]


def test_a_translation_linked_later_moves_with_its_language(client, auth):
    original = mint(client, language="en")
    translation = mint(client, language="pt")
    no_language = client.patch(f"/api/v1/items/{translation['ibip']}",
                               json={"translation_of": original["ibip"], "language": None}, headers=auth)
    assert no_language.status_code == 400 and no_language.get_json()["error"]["field"] == "language"
    client.patch(f"/api/v1/items/{translation['ibip']}", json={"translation_of": original["ibip"]}, headers=auth)
    assert client.get(f"/api/v1/items/{original['ibip']}").get_json()["relations"]["translations"] == [
        {"language": "pt", "ibi": translation["ibip"]}]
    unsaid = client.patch(f"/api/v1/items/{translation['ibip']}", json={"language": None}, headers=auth)
    assert unsaid.status_code == 400 and unsaid.get_json()["error"]["field"] == "language"  # a translation kept
    moved = client.patch(f"/api/v1/items/{translation['ibip']}", json={"language": "pt-BR"}, headers=auth).get_json()
    assert moved["relations"]["translation_of"] == {"ibi": original["ibip"], "language": "pt-BR"}
    assert client.get(f"/api/v1/items/{original['ibip']}").get_json()["relations"]["translations"] == [
        {"language": "pt-BR", "ibi": translation["ibip"]}]


def test_a_deleted_item_keeps_its_tombstone_and_the_resolver_answers_410(client, auth):
    item = mint(client, title="Gone", target_url="https://example.org/gone")
    assert resolved(client, item["ibip"]).status_code == 302  # cached now
    deleted = client.delete(f"/api/v1/items/{item['rep']}", headers=auth)
    assert deleted.status_code == 200
    body = deleted.get_json()
    assert body["state"] == "Deleted" and body["deleted_at"] and body["url"] is None
    assert body["metadata"]["title"] == "Gone" and body["target_url"] == "https://example.org/gone"
    for form in (item["ibip"], item["rep"], item["ibip"] + ":"):
        assert resolved(client, form).status_code == 410
    again = client.delete(f"/api/v1/items/{item['ibip']}", headers=auth)
    assert again.status_code == 410 and "was deleted" in again.get_json()["error"]["message"]
    assert client.patch(f"/api/v1/items/{item['ibip']}", json={"title": "Back"}, headers=auth).status_code == 410
    assert client.get(f"/api/v1/items/{item['ibip']}").get_json()["state"] == "Deleted"


def test_the_archive_answers_a_deleted_item_with_ibi_state_and_timestamp_only(client, app, auth):
    item = mint(client, target_url="https://example.org/x")
    client.delete(f"/api/v1/items/{item['ibip']}", headers=auth)
    service = "/" + app.config["ARCHIVE_SERVICE_IBI"]
    answer = client.get(f"{service}?servicesubject=urlRequest&clientinformation.ipaddress=1.2.3.4"
                        f"&parsedibiurl.ibi={item['ibip']}").get_data(as_text=True)
    names = [line.split(" ", 1)[0] for line in answer.strip().split("\r\n")]
    assert names == ["archiveaddress", "ibi", "ibi.archiveservice", "ibi.platformsoftware", "state", "timestamp"]
    assert "state Deleted" in answer


def test_a_change_reaches_the_cached_resolutions_of_the_items_linked_to_it(client, auth):
    original = mint(client, language="en", target_url="https://example.org/x")
    translation = mint(client, language="pt", translation_of=original["ibip"], target_url="https://example.org/t")
    second = mint(client, previous_edition=original["ibip"], target_url="https://example.org/x2")
    for path, url in ((original["ibip"] + "+(pt)", "https://example.org/t"), (original["ibip"] + "!", "https://example.org/x2"),
                      (translation["ibip"] + "+(en)", "https://example.org/x")):
        assert resolved(client, path).headers["Location"] == url
        assert resolved(client, path).headers["Location"] == url  # cached
    client.patch(f"/api/v1/items/{translation['ibip']}", json={"target_url": "https://example.org/t-new"}, headers=auth)
    assert resolved(client, original["ibip"] + "+(pt)").headers["Location"] == "https://example.org/t-new"
    client.patch(f"/api/v1/items/{second['ibip']}", json={"target_url": "https://example.org/x2-new"}, headers=auth)
    assert resolved(client, original["ibip"] + "!").headers["Location"] == "https://example.org/x2-new"
    client.patch(f"/api/v1/items/{original['ibip']}", json={"target_url": "https://example.org/x-new"}, headers=auth)
    assert resolved(client, translation["ibip"] + "+(en)").headers["Location"] == "https://example.org/x-new"
    client.delete(f"/api/v1/items/{translation['ibip']}", headers=auth)
    assert resolved(client, original["ibip"] + "+(pt)").status_code == 410
