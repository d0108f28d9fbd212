"""A record's date and language on the Cite and item pages, in the page's language; what is not
a well-formed date or a language tag is shown as the record has it."""
from __future__ import annotations

import pytest
from flask import Flask
from flask_babel import Babel

from ibiportal.web.cite.display import language_name, language_tag, record_date


@pytest.fixture(params=["en", "pt_BR"])
def language(request):
    app = Flask(__name__)
    Babel(app, locale_selector=lambda: request.param)
    with app.test_request_context():
        yield request.param


WRITTEN = {
    "en": {"2015-03-10": "10 Mar 2015", "2015-03": "Mar 2015", "pt": "Portuguese", "en-US": "English (United States)"},
    "pt_BR": {"2015-03-10": "10/03/2015", "2015-03": "03/2015", "pt": "português", "en-US": "inglês (Estados Unidos)"},
}


def test_iso_dates_and_language_tags_are_written_in_the_pages_language(language):
    written = WRITTEN[language]
    assert record_date("2015-03-10") == written["2015-03-10"]
    assert record_date("2015-03") == written["2015-03"]
    assert language_name("pt") == written["pt"] and language_name("en-US") == written["en-US"]


@pytest.mark.parametrize("text", ["2019", "2015-02-30", "c. 1990", "10/03/2015", "2015-13", ""])
def test_anything_else_is_shown_as_the_record_has_it(language, text):
    assert record_date(text) == text


@pytest.mark.parametrize("tag", ["xx-not-a-tag", "português", "123"])
def test_an_unknown_language_keeps_its_tag(language, tag):
    assert language_name(tag) == tag


@pytest.mark.parametrize(("language", "tag"), [("pt", "pt"), (" en-US ", "en-US"), ("Portuguese", ""), ("", ""), (None, "")])
def test_a_records_language_is_a_lang_attribute_only_when_it_is_a_tag(language, tag):
    assert language_tag(language) == tag
