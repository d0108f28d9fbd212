"""The Archive service and the resolver service answer at their IBI in any case (IBIs are
case-insensitive: file 004, Tables 6.1 and 7.1)."""
from __future__ import annotations

import pytest

from ibiportal.protocol.pairlist import parse_pair_list


@pytest.mark.parametrize("spell", [str.lower, str.upper, str.swapcase])
def test_the_own_archive_service_answers_its_ibi_in_any_case(client, app, spell):
    path = "/" + spell(app.config["ARCHIVE_SERVICE_IBI"])
    answer = client.get(path + "?servicesubject=inclusionConfirmationRequest")
    assert (answer.status_code, answer.get_data(as_text=True)) == (200, "confirmation yes")


@pytest.mark.parametrize("spell", [str.lower, str.swapcase])
def test_the_resolver_service_answers_its_ibi_in_any_case(client, app, spell):
    exact = client.get("/" + app.config["RESOLVER_SERVICE_IBI"] + "?servicesubject=exclusionRequest")
    other = client.get("/" + spell(app.config["RESOLVER_SERVICE_IBI"]) + "?servicesubject=exclusionRequest")
    assert other.status_code == exact.status_code and other.mimetype == exact.mimetype == "text/plain"
    assert parse_pair_list(other.get_data()) == parse_pair_list(exact.get_data())
