"""Alerts for a relation the own Archive does not have name that whole relation (§8.2, Table 9.5).

The own Archive filters its answer by the verb list (FILTRARLISTADEURL, Example 9.3): asked
``GetMetadata GetTranslation(pt)`` it answers only the pairs of ``.metadata.translation(pt)``, so
its answer says nothing of ``.metadata`` alone. The metadata exist; the translation is missing.
"""
from __future__ import annotations

import pytest

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}


@pytest.mark.parametrize(("modifiers", "relation", "english", "portuguese"), [
    (":+(pt)", ".metadata.translation(pt)", "translation does not exist", "tradução não existe"),
    # ``!`` is followed first (ibi.lastedition, §10.2); the last edition lacks the rest.
    ("!:+(pt)", ".metadata.translation(pt)", "translation does not exist", "tradução não existe"),
    ("!:(oai_dc)+(pt)", ".metadata(oai_dc).translation(pt)", "translation does not exist", "tradução não existe"),
])
def test_a_missing_translation_of_existing_metadata_is_called_a_missing_translation(
        client, modifiers, relation, english, portuguese):
    minted = client.post("/api/v1/mint", json={"title": "Own", "target_url": "https://example.org/own",
                                               "language": "en"}).get_json()
    assert client.get("/" + minted["ibip"] + modifiers.replace("+(pt)", ""), environ_base=CLIENT).status_code == 302
    for language, words in (("en", english), ("pt-BR", portuguese)):
        answer = client.get("/" + minted["ibip"] + modifiers, environ_base=CLIENT,
                            headers={"Accept": "text/plain", "Accept-Language": language})
        text = answer.get_data(as_text=True)
        assert answer.status_code == 404 and "translation-does-not-exist" in text, text
        assert words in text and "metadata do not exist" not in text and "metadados não existem" not in text
        assert f"url{relation}" in text and f"ibi{relation}" in text, text


def test_a_translation_in_no_language_without_an_original_url_names_the_translation(client):
    """``+`` with no language the Archive offers falls back to the original (Example 8.3); mtc-m16c's
    answer to ``GetTranslation`` has no url at all, so the alert is about the translation and the
    original, never about a file (no file was asked)."""
    for language, words in (("en", "neither the translation asked for nor the original"),
                            ("pt-BR", "nem a tradução pedida nem o original")):
        answer = client.get("/8JMKD3MGP8W/35MMLL8+", environ_base=CLIENT,
                            headers={"Accept": "text/plain", "Accept-Language": language})
        text = answer.get_data(as_text=True)
        assert answer.status_code == 404 and words in text, text
        assert "file" not in text and "arquivo que" not in text, text


def test_a_percent_encoded_ibi_resolves_like_the_decoded_url(client):
    plain = client.get("/8JMKD3MGP8W/35MMLL8", environ_base=CLIENT)
    encoded = client.get("/%38JMKD3MGP8W/35MMLL8", environ_base=CLIENT)
    assert (encoded.status_code, encoded.headers["Location"]) == (302, plain.headers["Location"])


@pytest.mark.parametrize("query", ["d", "a=b=c"])
def test_the_items_own_query_pairs_reach_the_item(client, query):
    response = client.get(f"/8JMKD3MGP8W/35MMLL8?{query}", environ_base=CLIENT)
    assert response.status_code == 302 and response.headers["Location"].endswith("?" + query)


@pytest.mark.parametrize("name", ["€.txt", "中.txt"])
def test_a_file_name_beyond_iso_8859_1_is_asked_for_not_a_500(client, name):
    """It was a 500 building the urlRequest (§6.1 had no ``%hh`` for ``€``): now its UTF-8 bytes."""
    from urllib.parse import quote
    response = client.get(f"/8JMKD3MGP8W/35MMLL8/{quote(name)}", environ_base=CLIENT,  # as a browser sends it
                          headers={"Accept": "text/plain"})
    text = response.get_data(as_text=True)
    assert response.status_code == 404 and "relation-does-not-exist" in text, text
