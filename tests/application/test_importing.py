"""``flask items import``: a URLib collection moves in keeping every IBI (issue 34 point 1).

The collection is served by a small OAI-PMH data provider written here from the protocol's text
(OAI-PMH 2.0 §4.5 ``ListRecords``, §3.5 flow control: two records a page, then a resumption
token; ``badResumptionToken`` for one it never gave), on a loopback socket. Its records are in
URLib's shapes: repository names with ``@80``, IBIps of several prefixes, accents, a deleted
item, files in nested folders of a URLib ``col/`` folder, an IBI of this portal's own subsystem.
"""
from __future__ import annotations

import json
import threading
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, quote

import pytest

from ibiportal import create_app

from ibiportal.ibi.history import EDITED, FILE_ADDED, IMPORTED, Actor
from ibiportal.ibi.conversion import convert
from ibiportal.ibi.repository import decode_rep_suffix
from ibiportal.application.minting import Minter
from ibiportal.ibi.subsystem import Subsystem
from ibiportal.storage.database import Storage
from ibiportal.storage.files import FileStore
from ibiportal.storage.history import HistoryStore
from ibiportal.storage.identifiers import IdentifierStore
from ibiportal.web.context import APPLICATION
from tests.servers import loopback_server
from tests.settings_marker import marked_settings

DATA = Path(__file__).resolve().parents[1] / "data" / "import"
INPE_REP, INPE_IBIP = "sid.inpe.br/mtc-m18@80/2009/07.21.13.23", "8JMKD3MGP8W/35MME4E"
KOJA_REP, KOJA_IBIP = "sid.inpe.br/mtc-m21c/2019/02.06.02.41", "8JMKD3MGP3W34R/3SMGTAP"
DELETED_IBIP = "8JMKD3MGP3W34T/47AF772"
OWN_SUFFIX = "2024/01.02.03.04"
PAGE_SIZE = 2


def _dc(*elements: tuple[str, str]) -> str:
    inner = "".join(f"<dc:{name}>{value}</dc:{name}>" for name, value in elements)
    return ('<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" '
            f'xmlns:dc="http://purl.org/dc/elements/1.1/">{inner}</oai_dc:dc>')


def _record(identifier: str, *elements: tuple[str, str], deleted: bool = False) -> str:
    status = ' status="deleted"' if deleted else ""
    header = f"<header{status}><identifier>{identifier}</identifier><datestamp>2026-01-01</datestamp></header>"
    return f"<record>{header}</record>" if deleted else f"<record>{header}<metadata>{_dc(*elements)}</metadata></record>"


class OaiProvider:
    """``ListRecords`` in ``oai_dc`` over ``records``, :data:`PAGE_SIZE` a page; ``failing``: pages
    answered 503 (a source gone in the middle of a harvest)."""

    def __init__(self, records: list[str]):
        self.records = records
        self.failing: set[int] = set()
        self.asked: list[dict] = []

    def __call__(self, environ, start_response):
        query = {name: values[0] for name, values in parse_qs(environ["QUERY_STRING"]).items()}
        self.asked.append(query)
        if query.get("verb") != "ListRecords":
            return self._answer(start_response, '<error code="badVerb">only ListRecords</error>')
        token = query.get("resumptionToken")
        if token is None and query.get("metadataPrefix") != "oai_dc":
            return self._answer(start_response, '<error code="cannotDisseminateFormat">oai_dc only</error>')
        page = 0 if token is None else int(token.removeprefix("page-")) if token.startswith("page-") else -1
        if page < 0 or page * PAGE_SIZE >= max(len(self.records), 1) and page:
            return self._answer(start_response, '<error code="badResumptionToken">not given</error>')
        if page in self.failing:
            start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
            return [b"down"]
        shown = self.records[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
        more = (page + 1) * PAGE_SIZE < len(self.records)
        token_element = (f'<resumptionToken completeListSize="{len(self.records)}" cursor="{page * PAGE_SIZE}">'
                         f'{f"page-{page + 1}" if more else ""}</resumptionToken>') if page or more else ""
        return self._answer(start_response, f"<ListRecords>{''.join(shown)}{token_element}</ListRecords>")

    @staticmethod
    def _answer(start_response, body: str):
        start_response("200 OK", [("Content-Type", "text/xml; charset=utf-8")])
        return [('<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
                 '<responseDate>2026-01-01T00:00:00Z</responseDate><request>http://127.0.0.1/oai</request>'
                 f"{body}</OAI-PMH>").encode("utf-8")]


@pytest.fixture
def app(database_setting, request):
    """The portal on SQLite, then on PostgreSQL (several nodes share its subsystem clock)."""
    return create_app({"TESTING": True, "DATABASE": database_setting, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                       **marked_settings(request)})


@pytest.fixture
def own(app) -> Subsystem:
    return app.extensions[APPLICATION].subsystem


@pytest.fixture
def collection(own) -> list[str]:
    own_rep = f"{own.rep_prefix}/{OWN_SUFFIX}"
    return [
        _record(f"oai:urlib.net:{INPE_REP}", ("title", "Análise de séries temporais: ação e reação"),
                ("creator", "Conceição, João"), ("creator", "Souza, Maria"), ("date", "2009"), ("type", "Tese"),
                ("description", "Tese (Doutorado em Computação Aplicada)"), ("language", "pt"),
                ("identifier", f"http://urlib.net/ibi/{INPE_IBIP}")),
        _record(f"oai:urlib.net:{KOJA_IBIP}", ("title", "On methods for in-flight alignment"),
                ("creator", "Koja, Rian"), ("date", "2019"), ("language", "en"),
                ("identifier", f"http://mtc-m21c.sid.inpe.br/col/{KOJA_REP}/doc/publicacao.pdf")),
        _record(f"oai:urlib.net:{DELETED_IBIP}", deleted=True),
        _record("oai:example.org:item-17", ("title", "A record without an IBI"), ("identifier", "INPE-14466-TDI/1147")),
        _record(f"oai:urlib.net:{own_rep}", ("title", "An item this portal's subsystem named"), ("date", "2024")),
        _record("oai:urlib.net:8JMKD3MGP3W34T/47E2TRB", ("title", "A date that is not one"), ("date", "31/02/2022")),
        _record("oai:urlib.net:8JMKD3MGPEW34M/49SPD9L", ("title", "A prefix nobody here knows")),
    ]


@pytest.fixture
def provider(collection):
    provider = OaiProvider(collection)
    server = loopback_server(provider)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    provider.url = f"http://127.0.0.1:{server.server_port}/oai"
    yield provider
    server.shutdown()
    server.server_close()


@pytest.fixture
def col(tmp_path) -> Path:
    """A URLib Archive's ``col/`` folder, as it is on disk."""
    item = tmp_path / "col" / INPE_REP
    (item / "doc" / "anexos").mkdir(parents=True)
    (item / "doc" / "publicacao.pdf").write_bytes(b"%PDF-1.4 a thesis")
    (item / "doc" / "anexos" / "dados de observação.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (item / "service").mkdir()
    (item / "service" / "reference").write_text("the old Archive's bookkeeping", encoding="utf-8")
    return tmp_path / "col"


def _import(runner, *args: str):
    return runner.invoke(args=["items", "import", *args])


def _store(app) -> Storage:
    return Storage(app.config["DATABASE"])


def _outcomes(output: str) -> dict[str, str]:
    """``{record: outcome}`` of the lines before the totals."""
    rows = [line.split("\t") for line in output.strip().splitlines()[:-1]]
    return {row[1]: row[0] for row in rows}


def test_a_harvest_keeps_every_ibi_attaches_files_and_reports_each_record(app, runner, provider, col, own, tmp_path):
    report = tmp_path / "report.jsonl"
    result = _import(runner, provider.url, "--files", str(col), "--report", str(report))
    assert result.exit_code == 1, result.output  # one record failed
    lines = result.output.strip().splitlines()
    assert lines[-1] == ("totals: 7 records: 4 created, 0 updated, 0 unchanged, 0 conflict, 2 skipped, 1 failed")
    outcomes = _outcomes(result.output)
    own_rep = f"{own.rep_prefix}/{OWN_SUFFIX}"
    assert outcomes == {
        f"oai:urlib.net:{INPE_REP}": "created", f"oai:urlib.net:{KOJA_IBIP}": "created",
        f"oai:urlib.net:{DELETED_IBIP}": "created", "oai:example.org:item-17": "skipped",
        f"oai:urlib.net:{own_rep}": "created", "oai:urlib.net:8JMKD3MGP3W34T/47E2TRB": "failed",
        "oai:urlib.net:8JMKD3MGPEW34M/49SPD9L": "skipped",
    }
    assert [query.get("resumptionToken") for query in provider.asked] == [None, "page-1", "page-2", "page-3"]
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 7
    by_record = {row["record"]: row for row in rows}
    assert "not a calendar date" in by_record["oai:urlib.net:8JMKD3MGP3W34T/47E2TRB"]["reason"]
    assert "--prefix-pair" in by_record["oai:urlib.net:8JMKD3MGPEW34M/49SPD9L"]["reason"]
    assert by_record["oai:urlib.net:8JMKD3MGPEW34M/49SPD9L"]["ibip"] == "8JMKD3MGPEW34M/49SPD9L"
    assert "no IBI in the record" in by_record["oai:example.org:item-17"]["reason"]

    storage = _store(app)
    store = IdentifierStore(storage)
    inpe = store.find_minted(rep=INPE_REP)
    assert (inpe.rep, inpe.ibip, inpe.utc) == (INPE_REP, INPE_IBIP, "2009-07-21T13:23:00Z")
    assert inpe.title == "Análise de séries temporais: ação e reação"
    assert inpe.creators == ("Conceição, João", "Souza, Maria")
    assert inpe.bibliographic.item_type == "doctoral thesis" and inpe.bibliographic.degree == "Doutorado em Computação Aplicada"
    koja = store.find_minted(ibip=KOJA_IBIP)
    assert koja.rep == KOJA_REP  # the other form from INPE's prefix pair
    assert store.find_minted(ibip=DELETED_IBIP).deleted
    files = FileStore(storage).files(INPE_IBIP)
    assert [(stored.path, stored.size) for stored in files] == [
        ("anexos/dados de observação.csv", 8), ("publicacao.pdf", len(b"%PDF-1.4 a thesis"))]
    history = HistoryStore(storage).entries(INPE_IBIP)
    assert [entry.action for entry in history] == [IMPORTED, FILE_ADDED, FILE_ADDED]
    assert str(history[0].actor) == f"import {provider.url}"
    assert history[0].details["published"] == INPE_REP
    storage.close()
    # the links of the old Archive go on working here
    answer = app.test_client().get(f"/{INPE_IBIP}/publicacao.pdf", follow_redirects=True)
    assert answer.data == b"%PDF-1.4 a thesis", answer.status
    answer = app.test_client().get(f"/{INPE_REP}/anexos/{quote('dados de observação.csv')}",
                                     follow_redirects=True)
    assert answer.data == b"a,b\n1,2\n", answer.status


def test_a_second_run_changes_nothing(app, runner, provider, col):
    _import(runner, provider.url, "--files", str(col))
    result = _import(runner, provider.url, "--files", str(col))
    assert result.output.strip().splitlines()[-1] == (
        "totals: 7 records: 0 created, 0 updated, 4 unchanged, 0 conflict, 2 skipped, 1 failed")


def test_other_data_is_a_conflict_left_alone_unless_update(app, runner, provider, col):
    _import(runner, provider.url, "--files", str(col))
    provider.records[0] = provider.records[0].replace("ação e reação", "segunda edição")
    (col / INPE_REP / "doc" / "publicacao.pdf").write_bytes(b"%PDF-1.4 corrected")
    result = _import(runner, provider.url, "--files", str(col))
    line = next(line for line in result.output.splitlines() if INPE_REP in line.split("\t")[1])
    assert line.startswith("conflict\t") and "title, publicacao.pdf" in line
    storage = _store(app)
    assert IdentifierStore(storage).find_minted(rep=INPE_REP).title.endswith("ação e reação")

    result = _import(runner, provider.url, "--files", str(col), "--update")
    assert _outcomes(result.output)[f"oai:urlib.net:{INPE_REP}"] == "updated"
    assert IdentifierStore(storage).find_minted(rep=INPE_REP).title == "Análise de séries temporais: segunda edição"
    assert FileStore(storage).find(INPE_IBIP, "publicacao.pdf").size == len(b"%PDF-1.4 corrected")
    edited = [entry for entry in HistoryStore(storage).entries(INPE_IBIP) if entry.action == EDITED]
    assert edited[0].details["changes"] == [{"field": "title", "old": "Análise de séries temporais: ação e reação",
                                             "new": "Análise de séries temporais: segunda edição"}]
    storage.close()


def test_a_dry_run_writes_nothing_and_says_what_would_happen(app, runner, provider, col, tmp_path):
    result = _import(runner, provider.url, "--files", str(col), "--dry-run")
    assert result.output.strip().splitlines()[-1] == (
        "totals (dry run, nothing written): 7 records: 4 created, 0 updated, 0 unchanged, 0 conflict, 2 skipped, 1 failed")
    storage = _store(app)
    assert IdentifierStore(storage).minted_items() == []
    assert FileStore(storage).files(INPE_IBIP) == []
    storage.close()


def test_an_own_ibi_moves_the_distributor_past_its_date(app, runner, provider, own):
    own_rep = f"{own.rep_prefix}/{OWN_SUFFIX}"
    imported = decode_rep_suffix(OWN_SUFFIX)
    _import(runner, provider.url)
    storage = _store(app)
    store = IdentifierStore(storage)
    item = store.find_minted(rep=own_rep)
    assert item.ibip == convert(own_rep, [(own.rep_prefix, own.ibip_prefix)]).ibip
    # a node whose clock reads a year before the imported date: it still issues a later one
    early = Minter(store, own, clock=lambda: imported - Decimal(365 * 86400), sleep=lambda _: None)
    minted = early.mint(actor=Actor("command", "test"))
    assert minted.date > imported and minted.rep != own_rep
    storage.close()


def test_a_source_that_stops_loses_nothing_and_a_second_run_goes_on(app, runner, provider):
    provider.failing = {2}
    result = _import(runner, provider.url)
    assert result.exit_code == 1
    assert "could not be reached" in result.output or "HTTP 503" in result.output
    assert result.output.strip().splitlines()[-1].startswith("totals: 4 records: 3 created")
    provider.failing = set()
    result = _import(runner, provider.url)
    outcomes = _outcomes(result.output)
    assert outcomes[f"oai:urlib.net:{INPE_REP}"] == "unchanged"
    assert outcomes["oai:urlib.net:8JMKD3MGPEW34M/49SPD9L"] == "skipped"
    assert list(outcomes.values()).count("created") == 1  # the own-prefix item of page 3


@pytest.mark.settings(MAX_FILE_BYTES=10)
def test_a_file_over_the_limit_fails_its_item_whole_and_nothing_else(app, runner, provider, col):
    result = _import(runner, provider.url, "--files", str(col))
    assert _outcomes(result.output)[f"oai:urlib.net:{INPE_REP}"] == "failed"
    assert "more than the 10 a file may have" in result.output
    storage = _store(app)
    assert IdentifierStore(storage).find_minted(rep=INPE_REP) is None  # neither the item nor a file
    assert IdentifierStore(storage).find_minted(ibip=KOJA_IBIP) is not None
    storage.close()


def test_a_bibtex_source_and_a_prefix_pair_given(app, runner):
    result = _import(runner, str(DATA / "urlib.bib"))
    outcomes = list(_outcomes(result.output).values())
    assert outcomes == ["created", "skipped", "skipped"]
    assert "8JMKD3MGPEW34M/49SPD9L is not known" in result.output
    # an administrator who knows the pair gives it (this pair is the test's, not a published one)
    result = _import(runner, str(DATA / "urlib.bib"), "--prefix-pair", "sibgrapi.sid.inpe.br/banon@80=8JMKD3MGPEW34M")
    assert list(_outcomes(result.output).values()) == ["unchanged", "created", "skipped"]
    storage = _store(app)
    koja = IdentifierStore(storage).find_minted(ibip=KOJA_IBIP)
    assert (koja.rep, koja.bibliographic.place) == (KOJA_REP, "São José dos Campos")
    assert ("sibgrapi.sid.inpe.br/banon@80", "8JMKD3MGPEW34M") in IdentifierStore(storage).prefix_pairs()
    storage.close()


def test_ris_and_csv_sources(app, runner):
    result = _import(runner, str(DATA / "urlib.ris"))
    assert list(_outcomes(result.output).values()) == ["created", "created"]
    result = _import(runner, str(DATA / "urlib.csv"))
    assert list(_outcomes(result.output).values()) == ["created", "created", "skipped"]
    storage = _store(app)
    tathu = IdentifierStore(storage).find_minted(ibip=DELETED_IBIP)
    assert tathu.rep == "sid.inpe.br/mtc-m21d/2022/07.20.15.45" and tathu.bibliographic.item_type == "report"
    robledo = IdentifierStore(storage).find_minted(ibip="8JMKD3MGP3W34R/3UGHFGH")
    assert robledo.creators == ("Robledo Asencio, J. C.",) and robledo.language == "pt"
    storage.close()


def test_a_source_that_is_neither_is_refused(runner, tmp_path):
    result = _import(runner, str(tmp_path / "collection.xml"))
    assert result.exit_code == 2 and "OAI-PMH base URL" in result.output


def test_a_csv_names_its_files_and_an_ibip_finds_its_folder_spelt_with_80(app, runner, col, tmp_path):
    source = tmp_path / "collection.csv"
    source.write_text(
        "ibi,title,files\n"
        f"{INPE_IBIP},Análise,publicacao.pdf\n"  # the IBIp only: its folder on disk is …/mtc-m18@80/…
        f"http://urlib.net/ibi/{INPE_IBIP},The same item again,\n"
        f"{KOJA_IBIP},On methods,publicacao.pdf\n",  # no folder for it under col/
        encoding="utf-8")
    result = _import(runner, str(source), "--files", str(col))
    outcomes = list(_outcomes(result.output).values())
    assert outcomes == ["created", "skipped", "failed"]
    assert "the source gave this IBI already, in line 2" in result.output
    assert "no folder" in result.output
    storage = _store(app)
    assert [stored.path for stored in FileStore(storage).files(INPE_IBIP)] == ["publicacao.pdf"]
    assert IdentifierStore(storage).find_minted(ibip=KOJA_IBIP) is None
    storage.close()
    # the same item named by its repository name with @80 is the same IBI, not a conflict
    source.write_text(f"ibi,title\n{INPE_REP},Análise\n", encoding="utf-8")
    assert list(_outcomes(_import(runner, str(source)).output).values()) == ["unchanged"]
