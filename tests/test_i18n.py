"""The core's translatable messages: English text that keeps its catalog entry and values."""
from __future__ import annotations

import json
import pickle

import pytest

from ibiportal.errors import ParseError
from ibiportal.i18n import NP_, Message, N_, from_record, to_record
from ibiportal.ibi.syntax import check_text


def test_a_message_is_its_english_text_and_keeps_template_and_values():
    message = N_("identifier longer than %(limit)d characters", limit=255)
    assert message == "identifier longer than 255 characters" and isinstance(message, str)
    assert message.template == "identifier longer than %(limit)d characters" and dict(message.values) == {"limit": 255}
    assert json.dumps({"message": message}) == '{"message": "identifier longer than 255 characters"}'


def test_without_values_the_template_is_taken_as_it_is():
    assert N_("100% sure") == "100% sure"


def test_a_message_survives_pickling_with_its_entry():
    message = pickle.loads(pickle.dumps(N_("port %(port)d out of range", port=0)))
    assert isinstance(message, Message) and message.template == "port %(port)d out of range" and message == "port 0 out of range"


def test_core_errors_carry_messages():
    with pytest.raises(ParseError) as raised:
        check_text("x" * 300)
    assert isinstance(raised.value.message, Message) and raised.value.position == 256
    assert str(raised.value) == "identifier longer than 255 characters (at character 256)"


def test_a_plural_message_is_english_for_its_count_and_keeps_both_forms():
    one = NP_("%(count)s answer in ASCII only.", "%(count)s answers in ASCII only.", 1)
    many = NP_("%(count)s answer in ASCII only.", "%(count)s answers in ASCII only.", 3)
    assert (one, many) == ("1 answer in ASCII only.", "3 answers in ASCII only.")
    assert (many.template, many.plural, many.count, dict(many.values)) == (
        "%(count)s answer in ASCII only.", "%(count)s answers in ASCII only.", 3, {"count": 3})
    kept = from_record(str(many), json.loads(json.dumps(to_record(many))))
    copied = pickle.loads(pickle.dumps(many))
    for again in (kept, copied):
        assert again == many and (again.plural, again.count) == (many.plural, 3)


def test_outside_a_page_a_message_writes_its_english_escaped():
    """``__html__`` (Jinja's autoescape, Markup's %) before the web layer sets the reader's language."""
    assert N_("name %(name)s has no value", name="<a>").__html__() == "name &lt;a&gt; has no value"
