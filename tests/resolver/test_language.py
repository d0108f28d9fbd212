"""Accept-Language q-values choosing a translation (STANDARD.md §4)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ibiportal.resolver.language import choose_translation, parse_accept_language

HEADER = "pt-BR,fr;q=0.8,en;q=0.5,pt;q=0.3"  # §10.1


def test_parse_orders_by_q():
    assert [(r.range, r.q) for r in parse_accept_language(HEADER)] == [("pt-br", 1.0), ("fr", 0.8), ("en", 0.5), ("pt", 0.3)]


def test_choice_follows_q_values():
    assert choose_translation(["en", "fr"], HEADER).language == "fr"
    assert choose_translation(["en", "pt"], HEADER).language == "pt"  # pt matches the pt-BR range at q=1
    assert choose_translation(["en", "pt-BR"], HEADER).language == "pt-BR"
    assert choose_translation(["en", "de"], "de;q=0,en;q=0.1").language == "en"


def test_no_match_takes_first_offered_and_says_so():
    choice = choose_translation(["de", "it"], HEADER)
    assert choice.language == "de" and "taking the first offered" in choice.reason
    assert choose_translation([], HEADER).language is None


@given(st.text(max_size=60), st.lists(st.sampled_from(["en", "fr", "pt", "pt-BR", "de"]), min_size=1, unique=True))
def test_never_raises_and_picks_an_offered_language(header, offered):
    assert choose_translation(offered, header).language in offered
