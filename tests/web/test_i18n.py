"""The portal's language: chosen by ``?lang=``, remembered by a cookie, else ``Accept-Language``,
else English; said in ``<html lang>`` and ``Content-Language``; offered on every page; dates,
numbers and moments written as the language writes them; core messages translated when shown."""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

import pytest
from flask import render_template_string

from ibiportal.i18n import N_, NP_, Recorded, number
from ibiportal.web.i18n import ago_filter, translate

PT = {"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"}
EN = {"Accept-Language": "en-US,en;q=0.9"}
HTML_LANG = re.compile(r'<html lang="([^"]+)">')
SWITCH = re.compile(r'<a href="([^"]+)" lang="([^"]+)" hreflang="[^"]+"( aria-current="true")?>([^<]+)</a>')


def html_lang(response) -> str:
    return HTML_LANG.search(response.get_data(as_text=True)).group(1)


def switch(response) -> dict[str, tuple[str, bool]]:
    """The language switch of a page: tag -> (href, is the current language)."""
    return {tag: (href.replace("&amp;", "&"), bool(current))
            for href, tag, current, _ in SWITCH.findall(response.get_data(as_text=True))}


def test_english_by_default(client):
    response = client.get("/convert")
    assert html_lang(response) == "en"
    assert response.headers["Content-Language"] == "en"
    assert ">Convert</a>" in response.get_data(as_text=True)


@pytest.mark.parametrize(("accept", "expected"), [
    ("pt-BR,pt;q=0.9", "pt-BR"), ("pt", "pt-BR"), ("pt-PT", "pt-BR"), ("fr, pt;q=0.5, en;q=0.3", "pt-BR"),
    ("en-GB", "en"), ("fr, en;q=0.5, pt;q=0.3", "en"), ("fr", "en"), ("*", "en"), ("", "en")])
def test_accept_language_picks_the_language(client, accept, expected):
    response = client.get("/mint", headers={"Accept-Language": accept})
    assert html_lang(response) == expected
    assert response.headers["Content-Language"] == expected


def test_the_portuguese_page_is_in_portuguese(client):
    page = client.get("/convert", headers=PT).get_data(as_text=True)
    assert ">Converter</a>" in page and ">Gerar</a>" in page and "Pular para o conteúdo" in page
    assert ">Convert</a>" not in page


def test_lang_in_the_query_switches_and_a_cookie_remembers_it(client):
    first = client.get("/mint?lang=pt-BR", headers=EN)
    assert html_lang(first) == "pt-BR"
    cookie = first.headers["Set-Cookie"]
    assert cookie.startswith("lang=pt-BR;") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    later = client.get("/convert", headers=EN)  # the cookie outweighs the browser's languages
    assert html_lang(later) == "pt-BR" and "Set-Cookie" not in later.headers
    back = client.get("/convert?lang=en", headers=PT)
    assert html_lang(back) == "en" and back.headers["Set-Cookie"].startswith("lang=en;")
    assert html_lang(client.get("/", headers=PT)) == "en"


def test_an_unknown_lang_is_ignored(client):
    response = client.get("/mint?lang=klingon", headers=PT)
    assert html_lang(response) == "pt-BR" and "Set-Cookie" not in response.headers


def test_every_page_offers_the_switch_keeping_path_and_query(client):
    response = client.get("/convert?ibi=8JMKD3MGP8W/35MMLL8&lang=en", headers=PT)
    assert switch(response) == {
        "en": ("/convert?ibi=8JMKD3MGP8W%2F35MMLL8&lang=en", True),
        "pt-BR": ("/convert?ibi=8JMKD3MGP8W%2F35MMLL8&lang=pt-BR", False),
    }
    followed = client.get(switch(response)["pt-BR"][0])
    assert html_lang(followed) == "pt-BR" and "8JMKD3MGP8W/35MMLL8" in followed.get_data(as_text=True)


def test_responses_vary_by_language_and_redirects_do_not(client):
    page = client.get("/compose", headers=PT)
    assert {"Accept-Language", "Cookie"} <= set(page.vary)
    english = client.get("/8JMKD3MGP8W/35MMLL8", headers=EN)
    portuguese = client.get("/8JMKD3MGP8W/35MMLL8", headers=PT)
    assert english.status_code == portuguese.status_code == 302
    assert english.headers["Location"] == portuguese.headers["Location"]
    assert "Content-Language" not in portuguese.headers and "Accept-Language" not in portuguese.vary


def test_a_cached_alert_is_shown_in_each_readers_language(client):
    """The resolution cache keeps the outcome, not the page: a reader of the other language gets
    the same cached alert in their own."""
    path = "/D7N2U8HW/3GBBQK2"  # deleted from its demo Archive: a stable alert, cached
    client.set_cookie("lang", "pt-BR")  # the same request otherwise (Accept-Language is in the cache key)
    portuguese = client.get(path, headers=EN)
    client.delete_cookie("lang")
    english = client.get(path, headers=EN)
    assert portuguese.status_code == english.status_code == 410
    assert english.headers["X-IBI-Cache"] == "hit"
    assert html_lang(portuguese) == "pt-BR" and html_lang(english) == "en"
    assert ">Rastrear</a>" in portuguese.get_data(as_text=True) and ">Trace</a>" in english.get_data(as_text=True)


def test_the_query_of_a_persistent_url_is_not_the_portals(client):
    """On the resolver's own addresses ``lang`` belongs to the persistent URL: it is not read, and
    the switch goes through /language, which comes back to the same address."""
    response = client.get("/no-such-page?lang=pt-BR", headers=EN)
    assert response.status_code == 404 and html_lang(response) == "en" and "Set-Cookie" not in response.headers
    href = switch(response)["pt-BR"][0]
    assert href == "/language?lang=pt-BR&next=%2Fno-such-page%3Flang%3Dpt-BR"
    back = client.get(href)
    assert back.status_code == 303 and back.headers["Location"] == "/no-such-page?lang=pt-BR"
    assert back.headers["Set-Cookie"].startswith("lang=pt-BR;")
    assert html_lang(client.get("/no-such-page?lang=pt-BR")) == "pt-BR"


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/\\evil.example", "evil"])
def test_the_switch_goes_back_only_to_this_portal(client, target):
    response = client.get("/language", query_string={"lang": "pt-BR", "next": target})
    assert response.status_code == 303 and response.headers["Location"] == "/"


def test_a_core_message_is_shown_in_the_readers_language(client):
    """``identifier longer than 255 characters`` is raised in English by the core (ibi/syntax.py)
    and shown translated, its position too, on the page and in the API."""
    long_ibi = "a" * 300
    page = client.get("/convert", query_string={"ibi": long_ibi}, headers=PT).get_data(as_text=True)
    assert "identificador com mais de 255 caracteres" in page and "identifier longer" not in page
    api = client.get("/api/v1/convert", query_string={"ibi": long_ibi}, headers=PT).get_json()
    assert api["error"]["message"] == "identificador com mais de 255 caracteres" and api["error"]["position"] == 256
    english = client.get("/api/v1/convert", query_string={"ibi": long_ibi}).get_json()
    assert english["error"]["message"] == "identifier longer than 255 characters"


def test_translate_fills_the_translated_template(app):
    message = N_("port %(port)d out of range %(low)d-%(high)d", port=70000, low=1, high=65535)
    assert message == "port 70000 out of range 1-65535"
    with app.test_request_context(headers=PT):
        assert translate(message) == "porta 70000 fora do intervalo 1-65535"
        assert translate("plain text") == "plain text"



def test_numbers_in_a_message_take_the_readers_separators(app):
    """Numbers inside a core message are English in the text (logs, JSON, the CLI) and the
    reader's where a page shows them."""
    message = N_("the text holds %(count)s IBIs; at most %(max_rows)s are checked at once: split it",
                 count=number(12345), max_rows=number(5000))
    assert message == "the text holds 12,345 IBIs; at most 5,000 are checked at once: split it"
    assert str(N_("%(value)s ms", value=number(0.4, 1))) == "0.4 ms"
    with app.test_request_context(headers=PT):
        assert translate(message) == "o texto contém 12.345 IBIs; no máximo 5.000 são verificados de uma vez: divida-o"
        assert translate(N_("%(value)s ms", value=number(0.4, 1))) == "0,4 ms"


def test_a_page_marks_recorded_english_and_escapes_the_rest(app):
    """The translate filter: escaped; a transport's own words (Recorded) inside a translated
    message marked lang="en" on a Portuguese page; a list's items each translated."""
    message = N_("Not sent: %(why)s.", why=(N_("No request got an HTTP answer."),
                                            N_("the %(request)s request got no answer (%(problem)s)", request="<known>",
                                               problem=Recorded("Connection refused"))))
    with app.test_request_context(headers=PT):
        page = render_template_string("{{ m|translate }}", m=message)
        assert page == ('Não enviada: Nenhuma requisição teve resposta HTTP.; a requisição “&lt;known&gt;” ficou sem '
                        'resposta (<span lang="en">Connection refused</span>).')
        assert render_template_string("{{ m|translate }}", m=N_("name %(name)s has no value", name=repr("a<b"))) == (
            "o nome &#39;a&lt;b&#39; não tem valor")
    with app.test_request_context(headers=EN):  # English on an English page needs no mark
        assert "<span" not in render_template_string("{{ m|translate }}", m=message)


def test_a_message_a_template_forgets_to_translate_is_translated_anyway(app):
    """A core message written as it is, or given to ``_()`` as a value, is in the reader's
    language (``Message.__html__``): "Copiar INPE (English)" came from a template without the filter."""
    style = N_("INPE (English)")
    with app.test_request_context(headers=PT):
        assert render_template_string("{{ m }}", m=style) == "INPE (inglês)"
        assert render_template_string("{{ _('Copy %(what)s', what=m) }}", m=style) == "Copiar INPE (inglês)"
        assert render_template_string("{{ m }}", m=Recorded("a <b>")) == '<span lang="en">a &lt;b&gt;</span>'
    with app.test_request_context(headers=EN):
        assert render_template_string("{{ _('Copy %(what)s', what=m) }}", m=style) == "Copy INPE (English)"


def test_the_web_layers_gettext_translates_core_values_too(app):
    """A view's ``gettext`` (``ibiportal.web.i18n``) with a core message or number as a value: the
    reader's words, as in a template."""
    from ibiportal.i18n import decimal
    from ibiportal.web.i18n import gettext, ngettext
    with app.test_request_context(headers=PT):
        assert gettext("Copy %(style)s", style=N_("INPE (English)")) == "Copiar INPE (inglês)"
        assert gettext("%(value)s ms", value=decimal(0.3)) == "0,3 ms"
        assert ngettext("%(num)s trace", "%(num)s traces", 2) == "2 rastreamentos"


def test_code_a_message_quotes_between_backticks_is_code_on_a_page(app):
    """The JSON and the command line keep the backticks; a page shows the span as code, escaped."""
    message = N_("%(value)s may not follow the IBI: a modifier (`!`, `+`, `:`), a file path `/…` or a query `?…` may "
                 "(Table 8.1)", value="`<8>`")
    with app.test_request_context(headers=PT):
        page = render_template_string("{{ m|translate }}", m=message)
        assert "`" not in page and "<code>&lt;8&gt;</code> não pode vir depois do IBI" in page
        assert "<code>!</code>, <code>+</code>, <code>:</code>" in page
        assert render_template_string("{{ t|code_spans }}", t="say `<x>` or `y`") == (
            "say <code>&lt;x&gt;</code> or <code>y</code>")


def test_a_count_chooses_its_words_in_each_language(app):
    message = NP_("not found: the Archive that answered does not hold this IBI",
                  "not found: the %(count)s Archives that answered do not hold this IBI", 12)
    assert message == "not found: the 12 Archives that answered do not hold this IBI"
    with app.test_request_context(headers=PT):
        assert translate(message) == "não encontrado: os 12 Arquivos que responderam não têm este IBI"
        one = NP_("not found: the Archive that answered does not hold this IBI",
                  "not found: the %(count)s Archives that answered do not hold this IBI", 1)
        assert render_template_string("{{ m }}", m=one) == "não encontrado: o Arquivo que respondeu não tem este IBI"


@pytest.mark.parametrize(("headers", "expected"), [(PT, "1 byte|1.000 bytes|1,5 KiB|100,0 MiB"),
                                                   (EN, "1 byte|1,000 bytes|1.5 KiB|100.0 MiB")])
def test_sizes_as_the_language_writes_them(app, headers, expected):
    with app.test_request_context(headers=headers):
        assert render_template_string("{{ 1|size }}|{{ 1000|size }}|{{ 1536|size }}|{{ n|size }}",
                                      n=100 * 1024 * 1024) == expected


def test_the_home_box_hint_comes_in_the_readers_language(client):
    """``/api/v1/classify``'s sentences follow the language, as the API's errors do; the script
    that shows them gets its own words, plurals in both forms, from the page."""
    typo = client.get("/api/v1/classify", query_string={"q": "sid.inpe.br/mtc-m18@80/2009/13.16.17.46"}, headers=PT)
    answer = typo.get_json()
    assert answer["error"]["message"] == "mês 13 fora do intervalo 01-12" and answer["error"]["position"] == 29
    assert answer["description"] == "não é um IBI nem uma URL persistente"
    read = client.get("/api/v1/classify", query_string={"q": "IBI: <8JMKD3MGP8W/35MMLL8>."}, headers=PT).get_json()
    assert read["notes"][0]["message"].startswith("o rótulo `IBI:` de uma referência impressa não faz parte do IBI")
    english = client.get("/api/v1/classify", query_string={"q": "sid.inpe.br/mtc-m18@80/2009/13.16.17.46"}).get_json()
    assert english["error"]["message"] == "month 13 out of range 01-12"
    page = client.get("/", headers=PT).get_data(as_text=True)
    assert "Lido como %(ibi)s: %(count)s coisa em volta deixada de lado." in page
    assert "Lido como %(ibi)s: %(count)s coisas em volta deixadas de lado." in page


MOMENT = datetime(2026, 11, 4, 7, 5, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize(("headers", "expected"), [
    (PT, "04/11/2026|04/11/2026 07:05:09 UTC|1.234,5|4.004,0|1.234.567"),
    (EN, "4 Nov 2026|4 Nov 2026, 07:05:09 UTC|1,234.5|4,004.0|1,234,567"),
])
def test_dates_and_numbers_as_the_language_writes_them(app, headers, expected):
    with app.test_request_context(headers=headers):
        text = render_template_string("{{ d|date }}|{{ m|datetime }}|{{ 1234.5|number }}|{{ 4004|number(1) }}|"
                                      "{{ 1234567|number }}", d=date(2026, 11, 4), m=MOMENT)
    assert text == expected


def test_iso_texts_and_naive_datetimes_are_utc(app):
    with app.test_request_context(headers=PT):
        assert render_template_string("{{ '2026-11-24T07:10:05.987505Z'|datetime }}") == "24/11/2026 07:10:05 UTC"
        assert render_template_string("{{ m|date }}", m=datetime(2026, 11, 24, 23, 59)) == "24/11/2026"


@pytest.mark.parametrize(("headers", "before", "human"), [
    (PT, timedelta(minutes=5), "há 5 minutos"), (EN, timedelta(minutes=5), "5 minutes ago"),
    (EN, timedelta(hours=-2), "in 2 hours"), (PT, timedelta(days=3), "há 3 dias"), (PT, timedelta(0), "agora mesmo"),
])
def test_a_moment_is_told_humanly_with_the_exact_time_in_its_title(app, headers, before, human):
    with app.test_request_context(headers=headers):
        markup = ago_filter(MOMENT, now=MOMENT + before)
        exact = render_template_string("{{ m|datetime }}", m=MOMENT)
    assert markup == f'<time datetime="2026-11-04T07:05:09Z" title="{exact}">{human}</time>'
