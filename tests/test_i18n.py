"""The core's translatable messages: English text that keeps its catalog entry and values."""
from __future__ import annotations

import json
import pickle

import pytest

from ibiportal.errors import ParseError
from ibiportal.i18n import Message, N_
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
