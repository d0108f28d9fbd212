"""The Trace page, its comparison and the trace history in Brazilian Portuguese: the decisions in
words, each exchange's status, the sequence diagram and every Archive's details, rendered from
stored traces of a found item, a not-found one and one whose Archives failed (the faulty demo
Archives: one answers garbage, one never in time)."""
from __future__ import annotations

import re

import pytest
from lxml import html as lxml_html

from ibiportal.ibi.ibip import ibip_prefix
from ibiportal.storage.database import Storage
from ibiportal.storage.traces import TraceStore
from tests.reliability.faulty_archives import RawArchive, include, says_nothing

CLIENT = {"REMOTE_ADDR": "172.16.44.200"}
PT = {"Accept-Language": "pt-BR"}
EN = {"Accept-Language": "en"}
FOUND = "http://urlib.net/8JMKD3MGP8W/35MMLL8"
FAULTY = "http://urlib.net/D7N2U8HW/3SNU8PS"


def traced(client, url: str, **fields) -> str:
    """POST the Trace form; the permalink's path."""
    response = client.post("/trace", data={"archives": "demo", "url": url, **fields}, environ_base=CLIENT)
    assert response.status_code == 303
    return response.headers["Location"]


def page(app, path: str, headers: dict) -> str:
    """``path`` in one language, from a client with no remembered choice."""
    response = app.test_client().get(path, headers=headers, environ_base=CLIENT)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def words(html: str, *, keep_english: bool = False) -> str:
    """The page's visible words, one space apart; without code, raw answers and what is marked as
    English on purpose (``lang="en"``) unless ``keep_english``."""
    document = lxml_html.fromstring(html)
    dropped = "//head|//script|//style|//code|//pre" + ("" if keep_english else '|//*[@lang="en"]')
    for element in document.xpath(dropped):
        if element.getparent() is not None:
            element.drop_tree()
    return re.sub(r"\s+", " ", document.text_content())


def test_a_found_trace_in_portuguese(app, client):
    path = traced(client, FOUND)
    text = words(page(app, path, PT))
    assert "O resolvedor responde 302 Encontrado e envia o navegador para:" in text
    # The decisions, in order.
    assert re.search(r"Rodada 1: consultou \d+ Arquivos sobre 8JMKD3MGP8W/35MMLL8 em paralelo \(urlRequest, "
                     r"Tabela 8\.9\)\.", text)
    assert re.search(r"mtc-m16c após \d+(,\d+)? ms: a resposta tem url, a URL pedida\.", text)
    assert re.search(r"Escolheu a resposta de mtc-m16c, a primeira utilizável a chegar \(\d+(,\d+)? ms\)\.", text)
    assert "Enviou o agradecimento (Tabela 8.11) a mtc-m16c, o Arquivo que deu a URL." in text
    assert "mtc-m16c respondeu notice {acknowledgment received}." in text
    assert "Redirecionar o navegador para http://mtc-m16c.sid.inpe.br/" in text
    assert "Respostas vazias, portanto o IBI não está lá:" in text
    # Each exchange: its status, the resolver's verdict, its details.
    assert "com resposta" in text and "sem o item" in text and "não aguardado" in text
    assert "Resolvedor: A resposta tem url, a URL pedida." in text
    assert "Pares lidos" in text and "a URL pedida" in text and "Agradecimento (5) e aviso (6)" in text
    # The sequence diagram: the figure's own message names, its legend.
    assert "Solicitar URL" in text and "lista de URL" in text and "Agradecer" in text
    assert "o navegador segue o redirecionamento para mtc-m16c.sid.inpe.br (não visto pelo resolvedor)" in text
    assert "resposta escolhida, URL" in text and "não visto pelo resolvedor" in text
    # None of it left in English.
    for english in ("The resolver answers", "Round 1: asked", "the first usable one to arrive", "the URL asked for",
                    "Sent the acknowledgment", "Empty answers, so", "Parsed pairs", "Raw answer", "chosen answer, URL",
                    "Every Archive has a lifeline", "details of this decision"):
        assert english not in text, english


def test_the_same_trace_in_english_says_it_in_english(app, client):
    path = traced(client, FOUND)
    text = words(page(app, path, EN))
    assert "The resolver answers 302 Found and sends the browser to:" in text
    assert re.search(r"Chose the answer of mtc-m16c, the first usable one to arrive \(\d+(\.\d+)? ms\)\.", text)
    assert "Redirect the browser to http://mtc-m16c.sid.inpe.br/" in text


def test_failing_archives_in_portuguese(app, client):
    """Garbage and a timeout: the statuses, the parse error's frame and the failure events."""
    path = traced(client, FAULTY, include_faulty="y")
    html = page(app, path, PT)
    text = words(html)
    assert "ilegível" in text and "tempo esgotado" in text
    assert re.search(r"garbled após \d+(,\d+)? ms: a resposta não é uma lista de pares \(Tabela 6\.2\) no caractere \d+:", text)
    assert "não usada." in text
    assert re.search(r"slow após \d+(,\d+)? ms: sem resposta \(timeout\): ", text)
    assert "Onde a resposta deixa de ser uma lista de pares" in html
    assert "Não é uma lista de pares (Tabela 6.2):" in text
    for english in ("not a pair list", "not used", "no answer before", "Where the answer stops"):
        assert english not in text, english


def test_a_comparison_in_portuguese(app, client):
    first = traced(client, FOUND).rsplit("/", 1)[1]
    second = traced(client, FOUND, previous=first)
    text = words(page(app, second, PT))
    assert "Comparado com a execução anterior" in text
    assert re.search(r"Mesmo resultado: redirecionamento para http://mtc-m16c\.sid\.inpe\.br/\S+\.", text)
    assert re.search(r"\d+(,\d+)? ms antes, \d+(,\d+)? ms agora;", text)
    assert "com resposta" in text and "redirect to" not in text


def test_a_not_found_trace_in_portuguese(app, client):
    """The alert and the diagnosis come from the stored trace, kept as messages: Portuguese too."""
    path = traced(client, "http://urlib.net/8JMKD3MGP8W/34PGRBS")
    text = words(page(app, path, PT))
    assert re.search(r"O resolvedor responde 404 Não encontrado com o alerta Não encontrado \(not-found\): não "
                     r"encontrado: os \d+ Arquivos que responderam não têm este IBI", text)
    assert re.search(r"Alerta em vez de uma URL: Não encontrado: os \d+ Arquivos", text)
    assert "Por que não foi encontrado" in text and "nenhum: todos os Arquivos consultados responderam" in text
    assert "the Archive(s) that answered" not in words(page(app, path, PT), keep_english=True)


def test_failing_archives_in_the_diagnosis_and_the_alert_in_portuguese(app, client):
    path = traced(client, FAULTY, include_faulty="y")
    text = words(page(app, path, PT), keep_english=True)
    assert re.search(r"garbled respondeu uma lista de pares malformada \(", text)
    limit = r"nenhuma resposta em \d+ s, o limite dos Arquivos de demonstração respondidos dentro do portal " \
            r"\(este Arquivo de demonstração leva 30 s\)"
    assert re.search(rf"slow falhou \(tempo esgotado: {limit}\)", text)
    assert re.search(rf"não respondeu a tempo \({limit}\), após \d+(,\d)? ms", text)
    assert re.search(r": respondeu algo que não é uma lista de pares \(Tabela 6\.2\), após \d+(,\d+)? ms", text)
    for english in ("answered a malformed pair list", "answered something that is not", "did not answer in time",
                    "gave no answer before the deadline", "this demo Archive takes"):
        assert english not in text, english


def test_a_trace_stored_before_its_messages_were_kept_shows_its_english_marked_so(app, client):
    """A stored trace without the messages' records (kept before they were) still reads: its alert
    and next steps in the English they were stored in, marked lang="en" on a Portuguese page."""
    trace_id = traced(client, "http://urlib.net/8JMKD3MGP8W/34PGRBS").rsplit("/", 1)[1]
    storage = Storage(app.config["DATABASE"])
    store = TraceStore(storage)
    body = store.load_trace(trace_id)
    assert "message_i18n" in body["alert"]
    del body["alert"]["message_i18n"]
    del body["diagnosis"]["next_step_details"]
    store.save_trace("older-trace", body["persistent_url"], "not-found", body, 100, 10_000_000)
    storage.close()
    html = page(app, "/trace/older-trace", PT)
    english = lxml_html.fromstring(html).xpath('//*[@lang="en"]')
    assert any(element.text_content().startswith("not found: the ") for element in english)
    assert any(element.text_content().startswith("No Archive at 150.163.34.243") for element in english)
    assert "Por que não foi encontrado" in html


def test_the_alert_page_in_portuguese(app):
    text = words(page_any(app, "/8JMKD3MGP8W/34PGRBS", PT))
    assert re.search(r"não encontrado: os \d+ Arquivos que responderam não têm este IBI", text)
    assert "Motivo: Não encontrado (not-found)." in text
    assert "the Archive(s) that answered" not in text


def page_any(app, path: str, headers: dict) -> str:
    """``path`` in one language, whatever its status (the resolver's alert is a 404)."""
    return app.test_client().get(path, headers=headers, environ_base=CLIENT).get_data(as_text=True)


def test_a_missing_relation_and_a_chosen_translation_in_portuguese(app, client):
    """The alert names what is missing in the core's own Portuguese words (Table 8.2's), and the
    note on a chosen translation is Portuguese too."""
    missing = words(page(app, traced(client, "http://urlib.net/8JMKD3MGP8W/35MMLL8+(de)"), PT), keep_english=True)
    assert ("a tradução não existe: mtc-m16c tem 8JMKD3MGP8W/35MMLL8, mas não tem tradução em alemão do item "
            "8JMKD3MGP8W/35MMLL8 (sua resposta não tem url") in missing
    chosen = words(page(app, traced(client, "http://urlib.net/D7N2U8HW/3J5AC3H+", accept_language="pt-BR,en;q=0.5"),
                        PT), keep_english=True)
    assert "Tradução (pt) escolhida pelo Accept-Language q=1 entre en, pt." in chosen
    assert "chosen by Accept-Language" not in chosen


def test_the_history_names_outcomes_in_portuguese(app, client):
    traced(client, FOUND)
    traced(client, "http://urlib.net/8JMKD3MGP8W/34PGRBS")
    html = page(app, "/trace/history", PT)
    badges = [re.sub(r"\s+", " ", badge.text_content()) for badge in
              lxml_html.fromstring(html).xpath('//td[@class="outcome-cell"]/span')]
    assert badges == ["Não encontrado", "Redirecionado"]
    assert '<option value="not-found">Não encontrado (not-found)</option>' in html


@pytest.mark.settings(ARCHIVE_READ_TIMEOUT=0.5, ALLOW_PRIVATE_ARCHIVES=True)
def test_an_archive_that_times_out_over_a_real_socket_in_portuguese(app):
    """libcurl's read timeout, worded by the portal, on the alert page and the stored trace's page
    (the Archive at the IBIp's address accepts and never answers; the read timeout is 0.5 s)."""
    with RawArchive(says_nothing) as silent:
        include(app.config["DATABASE"], silent.address, "8JMKD3MGP8W/3B8S6GL")
        response = app.test_client().get(f"/{ibip_prefix('127.0.0.1')}/34PGRBS", headers=PT, environ_base=CLIENT)
    assert response.status_code == 404
    alert = words(response.get_data(as_text=True), keep_english=True)
    assert "tempo de leitura esgotado: o Arquivo não enviou resposta em 0,5 s" in alert
    trace = re.search(r'href="(/trace/[^"]+)"', response.get_data(as_text=True))[1]
    text = words(page(app, trace, PT), keep_english=True)
    assert re.search(r"não respondeu a tempo \(tempo de leitura esgotado: o Arquivo não enviou resposta em 0,5 s\), "
                     r"após \d+(,\d+)? ms", text)
    assert "read timeout" not in text and "sent no answer" not in text


@pytest.mark.settings(ALLOW_PRIVATE_ARCHIVES=True)
def test_an_archive_refusing_the_connection_in_portuguese_marks_libcurls_words(app, client):
    """libcurl's own words for a refused connection stay English inside the portal's Portuguese
    sentence: on the trace's alert they are marked ``lang="en"``, and its markup is never shown as
    text (the alert's sentence was escaped twice, and read ``<span lang="en">``)."""
    include(app.config["DATABASE"], "127.0.0.1:9")  # discard: nothing listens on this machine
    path = traced(client, "http://urlib.net/8JMKD3MGP8W/34PGRBS", archives="live")
    html = page(app, path, PT)
    assert "&lt;span" not in html
    alert = lxml_html.fromstring(html).xpath('//p[@class="alert-message"]')[0]
    assert "não foi possível conectar (" in alert.text_content()
    marked = [element.text_content() for element in alert.xpath('.//*[@lang="en"]')]
    assert any(text.startswith("Failed to connect to 127.0.0.1") for text in marked), marked
