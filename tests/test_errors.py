"""The exception family: every error raised on purpose is of a kind that says its HTTP status, and
one handler (web/errors.py) answers each kind with that status and its message, as the API's JSON
or the error page; an error of no kind is a defect."""
from __future__ import annotations

import pytest
from flask import Blueprint

from ibiportal import create_app
from ibiportal.application.copies import CopyConflict, CopyNotFound
from ibiportal.application.files import FileNotHeld, FileTooLarge, UploadRefused
from ibiportal.application.idempotent_minting import KeyReused
from ibiportal.application.items import ItemDeleted, ItemNotFound, ItemReleased
from ibiportal.application.registry import AlreadyRegistered
from ibiportal.application.releasing import ReleaseRefused
from ibiportal.errors import Conflict, Gone, IbiError, Invalid, NotFound, ParseError, Refused, TooLarge
from ibiportal.i18n import N_
from ibiportal.storage.tokens import TokenNameTaken
from tests.servers import fresh_sqlite

KINDS = [
    (ItemNotFound("no item 8JMKD3MGP8W/35MMLL8 here"), NotFound, 404, "ibi"),
    (ItemDeleted("8JMKD3MGP8W/35MMLL8 was deleted"), Gone, 410, "ibi"),
    (ItemReleased("8JMKD3MGP8W/35MMLL8 moved"), Gone, 410, "ibi"),
    (FileNotHeld("8JMKD3MGP8W/35MMLL8", "a.pdf"), NotFound, 404, None),
    (FileTooLarge(10, 11), Refused, 413, None),
    (UploadRefused("no such type"), Invalid, 400, None),
    (CopyConflict("that IBI is this Archive's own"), Conflict, 409, "ibi"),
    (CopyNotFound("no copy"), NotFound, 404, "ibi"),
    (KeyReused("the key was used for another request"), Refused, 422, "Idempotency-Key"),
    (ReleaseRefused(N_("the successor answered nothing")), Conflict, 409, "successor"),
    (AlreadyRegistered("J8LNKB5R7W/3FUQHC5"), Conflict, 409, None),
    (TokenNameTaken("writer"), Conflict, 409, None),
    (ParseError("bad character", 3, "ibi"), Invalid, 400, "ibi"),
    (TooLarge("more than 1 MB", None, "text"), Invalid, 413, "text"),
]


@pytest.fixture(scope="module")
def raising(tmp_path_factory):
    """A portal with a route raising each error above, one page and one API route."""
    app = create_app({"TESTING": True, "DATABASE": fresh_sqlite(tmp_path_factory.mktemp("errors") / "p.sqlite"),
                      "SECRET_KEY": "t"})
    app.testing = False  # errors reach the handlers as in production
    page, api = Blueprint("raising_page", __name__), Blueprint("raising_api", __name__, url_prefix="/api/v1")
    for blueprint in (page, api):
        @blueprint.get("/raise/<index>")
        def raise_one(index: str):
            raise KINDS[int(index)][0] if index != "defect" else IbiError("a defect")
    app.register_blueprint(page)
    app.register_blueprint(api)
    return app.test_client()


@pytest.mark.parametrize("index", range(len(KINDS)), ids=[type(kind[0]).__name__ for kind in KINDS])
def test_each_error_is_answered_by_its_kinds_status_with_its_message(raising, index):
    error, kind, status, field = KINDS[index]
    assert isinstance(error, kind) and error.status == status
    answer = raising.get(f"/api/v1/raise/{index}")
    body = answer.get_json()["error"]
    assert answer.status_code == status and body.get("field") == field
    assert body["message"] == (error.message if isinstance(error, ParseError) else str(error.args[0]))
    page = raising.get(f"/raise/{index}", headers={"Accept": "text/html"})
    assert page.status_code == status and "text/html" in page.content_type


def test_an_error_of_no_kind_is_a_defect_answered_500_without_its_words(raising):
    answer = raising.get("/api/v1/raise/defect")
    assert answer.status_code == 500 and "a defect" not in answer.get_data(as_text=True)
