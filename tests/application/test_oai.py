"""The OAI-PMH data provider as a use case: the response dated by the caller's clock, over storage."""
from __future__ import annotations

from datetime import datetime, timezone

from ibiportal.application.oai import OaiDataProvider, ProviderSettings
from ibiportal.storage.database import Storage
from ibiportal.storage.oai_items import OaiItems
from tests.oai_schemas import assert_valid

OAI = "{http://www.openarchives.org/OAI/2.0/}"
SETTINGS = ProviderSettings("archive.inpe.br", "https://archive.inpe.br/oai", "https://urlib.net", ("urlib@inpe.br",))
NOW = datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=timezone.utc)


def test_an_empty_archive_identifies_itself_as_of_now_and_lists_nothing(new_database):
    storage = Storage(new_database())
    provider = OaiDataProvider(OaiItems(storage), SETTINGS)
    identify = assert_valid(provider.answer([("verb", "Identify")], NOW))
    assert identify.findtext(f"{OAI}responseDate") == "2026-03-04T05:06:07Z"
    assert identify.findtext(f"{OAI}Identify/{OAI}earliestDatestamp") == "2026-03-04T05:06:07Z"
    assert identify.findtext(f"{OAI}Identify/{OAI}baseURL") == "https://archive.inpe.br/oai"
    empty = assert_valid(provider.answer([("verb", "ListRecords"), ("metadataPrefix", "oai_dc")], NOW))
    assert empty.find(f"{OAI}error").get("code") == "noRecordsMatch"
    request = empty.find(f"{OAI}request")  # noRecordsMatch is no syntax error: the arguments are echoed
    assert dict(request.attrib) == {"verb": "ListRecords", "metadataPrefix": "oai_dc"}
    storage.close()
