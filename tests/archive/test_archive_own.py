"""The own Archive answers every relation it holds (file 003 §9, Algorithm 2, Table 9.5), so
each of Table 8.2's 14 modifier forms resolves on the portal when its items exist, and a
missing one is named in the alert."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ibiportal import create_app
from ibiportal.archive.model import IbiForms, Item, ItemState, Metadata
from ibiportal.archive.own import own_relations
from ibiportal.archive.relation import Relation

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


@pytest.fixture
def app(new_database):
    """The portal, minting on a 1 ms grid: four items need not wait four seconds for their dates."""
    return create_app({"TESTING": True, "DATABASE": new_database(), "SECRET_KEY": "test", "GRANULARITY": "0.001"})


def mint(client, **fields) -> str:
    response = client.post("/api/v1/mint", json=fields)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["ibip"]


@pytest.fixture
def editions(client) -> dict[str, str]:
    """An English original X with a Portuguese translation T; their second editions X2 and T2
    (T2 translates X2 and follows T)."""
    x = mint(client, language="en", target_url="https://example.org/x")
    t = mint(client, language="pt", translation_of=x, target_url="https://example.org/t")
    x2 = mint(client, language="en", previous_edition=x, target_url="https://example.org/x2")
    t2 = mint(client, language="pt", translation_of=x2, previous_edition=t, target_url="https://example.org/t2")
    return {"x": x, "t": t, "x2": x2, "t2": t2}


def metadata_of(ibip: str) -> str:
    return f"http://localhost/archive/items/{ibip}/oai_dc.xml"


# Table 8.2, in its order, with what each form designates for X.
TABLE_8_2 = [
    (":", lambda e: metadata_of(e["x"])),
    (":+", lambda e: metadata_of(e["x"])),
    ("!", lambda e: "https://example.org/x2"),
    ("!+(pt)", lambda e: "https://example.org/t2"),
    ("!:", lambda e: metadata_of(e["x2"])),
    ("!+(pt):", lambda e: metadata_of(e["t2"])),
    ("!:+", lambda e: metadata_of(e["x2"])),
    ("!+(pt):+", lambda e: metadata_of(e["t2"])),
    ("+(pt)", lambda e: "https://example.org/t"),
    ("+(pt)!", lambda e: "https://example.org/t2"),
    ("+(pt):", lambda e: metadata_of(e["t"])),
    ("+(pt)!:", lambda e: metadata_of(e["t2"])),
    ("+(pt):+", lambda e: metadata_of(e["t"])),
    ("+(pt)!:+", lambda e: metadata_of(e["t2"])),
]


@pytest.mark.parametrize(("modifier", "expected"), TABLE_8_2, ids=[form for form, _ in TABLE_8_2])
def test_every_modifier_form_of_table_8_2_resolves(client, editions, modifier, expected):
    response = client.get(f"/{editions['x']}{modifier}", environ_base=CLIENT)
    assert response.status_code == 302, response.get_data(as_text=True)
    assert response.headers["Location"] == expected(editions)


@pytest.mark.parametrize("modifier", [":(oai_dc)", "!:(oai_dc)", "+(pt):(oai_dc)", "+(pt)!:(oai_dc)+"])
def test_oai_dc_metadata_resolve_in_every_composition(client, editions, modifier):
    response = client.get(f"/{editions['x']}{modifier}", environ_base=CLIENT)
    assert response.status_code == 302 and response.headers["Location"].endswith("/oai_dc.xml")


def test_a_plain_translation_follows_the_browsers_language(client, editions):
    portuguese = client.get(f"/{editions['x']}+", environ_base=CLIENT, headers={"Accept-Language": "pt-BR,pt;q=0.9"})
    assert portuguese.headers["Location"] == "https://example.org/t"
    english = client.get(f"/{editions['x']}+", environ_base=CLIENT, headers={"Accept-Language": "en"})
    assert english.headers["Location"] == "https://example.org/x"


def test_the_original_answers_as_the_translation_into_its_language(client, editions):
    # §8.1 "por extensão de linguagem": +(en) of the Portuguese translation is the English original.
    response = client.get(f"/{editions['t']}+(en)", environ_base=CLIENT)
    assert response.headers["Location"] == "https://example.org/x"


def alert_message(client, path: str) -> str:
    """The alert of a resolution that must end in a 404, as the JSON a client asks for."""
    response = client.get(path, environ_base=CLIENT, headers={"Accept": "application/json"})
    assert response.status_code == 404
    return response.get_json()["alert"]["message"]


def test_a_missing_translation_is_named_as_such(client, editions):
    message = alert_message(client, f"/{editions['x']}+(de)")
    assert message.startswith("translation does not exist: portal holds")
    assert "translation into German" in message and "url.translation(de)" in message


def test_an_item_without_language_or_translation_says_which_translation_is_missing(client):
    plain = mint(client, target_url="https://example.org/p")
    message = alert_message(client, f"/{plain}!+(pt):")
    # its last edition is itself (ibi.lastedition, followed): that has no Portuguese translation
    assert message.startswith("translation does not exist: portal holds")
    assert "no translation into Portuguese of the item" in message and "url.translation(pt)" in message


def test_a_missing_file_is_not_called_a_missing_ibi(client):
    plain = mint(client, target_url="https://example.org/p")
    assert alert_message(client, f"/{plain}/nothing.pdf").startswith(f"no URL: portal holds {plain}")


def test_the_relations_are_table_9_5s_compositions_for_the_items_languages():
    moment = datetime(2009, 2, 16, 17, 46, tzinfo=timezone.utc)
    item = Item(IbiForms(ibip="8JMKD3MGP8W/34PGRBS"), ItemState.ORIGINAL, moment, language="en",
                translations=(("pt", IbiForms(ibip="8JMKD3MGP8W/34PGRE5")),),
                metadata=Metadata("http://portal.test/m", ItemState.ORIGINAL, moment, oai_dc_url="http://portal.test/m"))
    relations = own_relations(item)
    assert len(relations) == len(set(relations)) == (2 + 3 * 3) * 7  # t: bare, en, pt; m: free, oai_dc, BibINPE
    assert Relation() in relations
    for text in (".lastedition.translation(pt).metadata(oai_dc).translation", ".translation(en).lastedition",
                 ".metadata.translation", ".translation.metadata"):
        assert Relation.parse(text) in relations
    for relation in relations:
        assert Relation.parse(str(relation)) == relation  # every one follows Table 9.5
