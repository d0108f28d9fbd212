"""The portal in Brazilian Portuguese and English (Flask-Babel, gettext catalogs).

Which language a request gets, first that applies:

1. ``?lang=pt-BR`` or ``?lang=en`` on any page, which a cookie (``lang``, a year) then remembers
   for later pages; not on the resolver's own addresses (``GET /<IBI>…``, the Archive and resolver
   services), whose query belongs to the persistent URL: there the switch goes through
   ``/language?lang=…&next=…``;
2. the remembered choice (the cookie);
3. ``Accept-Language``, any variety of Portuguese or English matching, by the client's order;
4. English.

A response whose making read the language says so (``Content-Language``) and varies by it
(``Vary: Accept-Language, Cookie``), so that no cache hands one language's page to a reader of
the other; a redirect, which never reads it, does not vary. The resolution cache keeps outcomes,
never pages, so it is the same for both.

Dates, numbers and moments are written as the language writes them (the ``date``, ``datetime``,
``number`` and ``ago`` filters); core messages (:class:`ibiportal.i18n.Message`) are translated
when shown (:func:`translate`, the ``translate`` filter).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from urllib.parse import urlencode, urlsplit

from babel.dates import format_timedelta
from flask import Blueprint, Flask, Response, g, has_request_context, redirect, request, url_for
import flask_babel
from flask_babel import Babel, format_date, format_datetime, format_decimal, get_locale, get_translations
from markupsafe import Markup, escape
from werkzeug.datastructures import MultiDict

from ..errors import ParseError
from .. import i18n as core
from ..i18n import LIST_SEPARATOR, N_, NP_, Localized, Message, Recorded
from . import catalogs
from .context import application

DEFAULT = "en"
LANGUAGES = {"en": "English", "pt_BR": "Português"}
"""Each language the portal speaks (its locale) and its name in itself, as the switch shows it."""
TAGS = {"en": "en", "pt_BR": "pt-BR"}
"""Each locale's language tag (BCP 47): ``?lang=``, ``<html lang>``, ``Content-Language``."""
COOKIE = "lang"
COOKIE_SECONDS = 365 * 24 * 3600
QUERY_NOT_OURS = frozenset({"resolve.resolve", "own_archive_service", "registration.answer", "oai.oai"})
"""Endpoints whose query string is the persistent URL's or the protocol's: ``lang`` is not read there."""

DATE_PATTERNS = {"en": "d MMM yyyy", "pt_BR": "dd/MM/yyyy"}
DATETIME_PATTERNS = {"en": "d MMM yyyy, HH:mm:ss 'UTC'", "pt_BR": "dd/MM/yyyy HH:mm:ss 'UTC'"}
"""Times are the portal's, in UTC, and say so (the portal knows no reader's time zone)."""

bp = Blueprint("i18n", __name__)


def locale_of(tag: str | None) -> str | None:
    """The portal's locale for a language tag (``pt-BR``, ``pt_br``, ``pt-PT``, ``en-GB``, ``*``), or
    ``None`` when it speaks no such language."""
    if not tag:
        return None
    primary = tag.replace("_", "-").split("-", 1)[0].strip().lower()
    return {"pt": "pt_BR", "en": "en", "*": DEFAULT}.get(primary)


def asked_in_query() -> str | None:
    """The locale ``?lang=`` asks for, where the query string is the portal's. A query string that
    is not UTF-8 asks for none: werkzeug cannot read it, and the page saying so needs a language."""
    if not has_request_context() or request.endpoint in QUERY_NOT_OURS:
        return None
    return locale_of(next((value for key, value in _query_pairs() if key == "lang"), None))


def form_query() -> MultiDict:
    """The query string without ``lang``, which is the language switch's: the fields of a page's
    GET form, empty when the switch alone was followed (that page is the empty form, not a 400)."""
    return MultiDict([(key, value) for key, value in _query_pairs() if key != "lang"])


def _query_pairs() -> list[tuple[str, str]]:
    """The query string's pairs, or none when werkzeug cannot read them (bytes that are not UTF-8,
    which the error page answering them still shows in a language, with the switch)."""
    try:
        return list(request.args.items(multi=True))
    except UnicodeDecodeError:
        return []


def select_locale() -> str:
    """The request's language (the order of the module docstring); noted on ``g`` for the headers."""
    if not has_request_context():
        return DEFAULT
    chosen = asked_in_query() or locale_of(request.cookies.get(COOKIE))
    if chosen is None:
        chosen = next((locale for locale in (locale_of(tag) for tag, _ in request.accept_languages) if locale),
                      DEFAULT)
    g.language_read = chosen
    return chosen


def current_tag() -> str:
    return TAGS[str(get_locale() or DEFAULT)]


def current_language() -> str:
    """The request's language as the core's explanations name it: ``pt`` or ``en``."""
    return current_tag().split("-", 1)[0]


def translate(text):
    """A core :class:`~ibiportal.i18n.Message` (or :class:`~ibiportal.i18n.Localized` text) in the
    reader's language, its values too; other text as it is."""
    if isinstance(text, Localized):
        return text.texts.get(current_language(), str.__str__(text))
    if not isinstance(text, Message):
        return text
    template = _template(text)
    if not text.values:
        return template
    return template % {name: _translated_value(value) for name, value in text.values.items()}


def gettext(string: str, **variables) -> str:
    """Flask-Babel's ``gettext``, a core message or ``Localized`` value in the reader's language
    too: the web layer's Python says ``gettext("Copy %(style)s", style=style.short)`` as a
    template does (which ``Message.__html__`` translates), and gets the same words."""
    return flask_babel.gettext(string, **_translated_values(variables))


def ngettext(singular: str, plural: str, num: int, **variables) -> str:
    """Flask-Babel's ``ngettext``, its core values translated (:func:`gettext`)."""
    return flask_babel.ngettext(singular, plural, num, **_translated_values(variables))


def pgettext(context: str, string: str, **variables) -> str:
    """Flask-Babel's ``pgettext``, its core values translated (:func:`gettext`)."""
    return flask_babel.pgettext(context, string, **_translated_values(variables))


def npgettext(context: str, singular: str, plural: str, num: int, **variables) -> str:
    """Flask-Babel's ``npgettext``, its core values translated (:func:`gettext`)."""
    return flask_babel.npgettext(context, singular, plural, num, **_translated_values(variables))


def _translated_values(variables: dict) -> dict:
    return {name: _translated_value(value) for name, value in variables.items()}


def _template(message: Message) -> str:
    """The message's template in the reader's language, its values not slotted in yet: the
    catalog's translation, the form its count asks for when it has a plural."""
    translations = get_translations()
    if message.plural is None:
        return translations.ugettext(message.template)
    return translations.ungettext(message.template, message.plural, message.count)


def _translated_value(value):
    if isinstance(value, tuple):  # a list of values (ibiportal.i18n)
        return LIST_SEPARATOR.join(str(translate(item)) for item in value)
    return translate(value)


def lang_attr(text) -> Markup:
    """`` lang="en"`` for text that stays English on a page in another language: text kept as it
    was recorded (a stored trace's sentence from before its message was kept with it, a transport's
    error), so that screen readers pronounce it right and the language walk knows it is meant."""
    if not text or isinstance(text, (Message, Localized)) or str(get_locale() or DEFAULT) == DEFAULT:
        return Markup("")
    return Markup(' lang="en"')


def said(text) -> Markup:
    """``text`` as the page shows it, escaped: a message in the reader's language; other text as it
    is, in a ``<span lang="en">`` on a page in another language (:func:`lang_attr`)."""
    if isinstance(text, str) and not isinstance(text, (Message, Localized)):
        text = Recorded(text)
    return translate_html(text)


CODE_SPAN = re.compile(r"`([^`<>]+)`")
"""Code quoted in a message between backticks, as Markdown quotes it (`!`, `ibiurl.verblist`)."""


def code_spans(text) -> Markup:
    """Text for a page with the code it quotes between backticks as ``<code>``: a backtick is no
    punctuation a reader of a page knows (the JSON API and the command line keep them). A core
    message is translated first (:func:`translate_html`); markup is kept; any other text (a lazy
    translation too, which passes itself off as markup) is escaped."""
    if text is None:
        return Markup("")
    if isinstance(text, (Message, Localized, Recorded)):
        marked = translate_html(text)
    elif isinstance(text, Markup):
        marked = text
    else:
        marked = escape(str(text))
    return Markup(CODE_SPAN.sub(r"<code>\1</code>", str(marked)))


def translate_html(text):
    """:func:`translate` for a page (the ``translate`` filter): escaped, with the
    :class:`~ibiportal.i18n.Recorded` text inside (a transport's own words, kept as recorded) in a
    ``<span lang="en">`` on a page in another language, so that screen readers pronounce it right
    and the language walks know it is meant. Anything that is not text (``None``, a lazy string)
    as it is."""
    if isinstance(text, Recorded):
        attr = lang_attr(text)
        words = str.__str__(text)  # plain text: escaping a Recorded itself would come back here
        return Markup("<span{}>{}</span>").format(attr, words) if attr else escape(words)
    if isinstance(text, tuple):  # a list of values (ibiportal.i18n)
        return Markup(LIST_SEPARATOR).join(translate_html(item) for item in text)
    if isinstance(text, Localized):
        return escape(translate(text))
    if not isinstance(text, Message):
        return escape(text) if isinstance(text, str) else text
    if not text.values:
        return code_spans(_template(text))
    # Markup's % escapes the values left as they are (so that %(name)s of a plain text is escaped
    # once), and keeps the marked-up ones
    values = {name: translate_html(value) if isinstance(value, (Message, Localized, Recorded, tuple)) else value
              for name, value in text.values.items()}
    return code_spans(Markup(escape(_template(text))) % values)


def error_text(error: ParseError) -> str:
    """A core error as a reader sees it: its message translated, and where it is."""
    if error.position is None:
        return translate(error.message)
    return gettext("%(message)s (at character %(position)s)", message=translate(error.message),
                   position=error.position)


@dataclass(frozen=True)
class LanguageLink:
    tag: str
    name: str
    href: str
    current: bool


def language_links() -> list[LanguageLink]:
    """The switch: this page in each language, its path and query kept."""
    here = current_tag()
    links = []
    for locale, name in LANGUAGES.items():
        tag = TAGS[locale]
        if request.endpoint in QUERY_NOT_OURS or request.endpoint is None:
            href = url_for("i18n.switch_language") + "?" + urlencode({"lang": tag, "next": _here()})
        else:
            query = [(key, value) for key, value in _query_pairs() if key != "lang"]
            href = request.script_root + request.path + "?" + urlencode(query + [("lang", tag)])
        links.append(LanguageLink(tag, name, href, tag == here))
    return links


def _here() -> str:
    raw = request.environ.get("RAW_URI") or request.environ.get("REQUEST_URI")
    return raw or (request.full_path if request.query_string else request.path)


@bp.get("/language")
def switch_language():
    """``?lang=…&next=<path>``: remember the language (the cookie, set after the request like any
    ``?lang=``) and go back to ``next``, a path on this portal (anything else goes home)."""
    target = request.args.get("next", "/")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target[1:2] in ("/", "\\"):
        target = "/"
    return redirect(target, code=303)


def remember_and_label(response: Response) -> Response:
    """The ``lang`` cookie for a ``?lang=`` choice; ``Content-Language`` and ``Vary`` when the
    response was made in a language."""
    asked = asked_in_query()
    if asked is not None and locale_of(request.cookies.get(COOKIE)) != asked:
        response.set_cookie(COOKIE, TAGS[asked], max_age=COOKIE_SECONDS, samesite="Lax", httponly=True,
                            secure=request.is_secure)
    read = g.get("language_read")
    if read is not None:  # a citation says its own language (resolve/negotiation.py)
        response.headers.setdefault("Content-Language", TAGS[read])
        response.vary.update(("Accept-Language", "Cookie"))
    return response


def _moment(value) -> datetime:
    """A datetime (naive ones are UTC, as the portal stores them) from a datetime or an ISO 8601 text."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if isinstance(value, datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value


def date_filter(value) -> str:
    """``24/11/2026`` in Portuguese, ``24 Nov 2026`` in English."""
    if value is None:
        return ""
    if isinstance(value, str):
        value = _moment(value)
    if isinstance(value, datetime):
        value = value.astimezone(timezone.utc).date()
    return format_date(value, DATE_PATTERNS[str(get_locale())])


def datetime_filter(value) -> str:
    """``24/11/2026 07:10:05 UTC`` in Portuguese, ``24 Nov 2026, 07:10:05 UTC`` in English."""
    if value is None:
        return ""
    return format_datetime(_moment(value), DATETIME_PATTERNS[str(get_locale())])


def iso_filter(value) -> str:
    """``2026-11-24T07:10:05Z``: a ``<time datetime>`` value (HTML's global date and time string),
    to the second, as the pages show times; storage keeps microseconds, which no reader needs."""
    if value is None:
        return ""
    return _moment(value).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def number_filter(value, decimals: int | None = None) -> str:
    """``1.234,5`` in Portuguese, ``1,234.5`` in English; ``decimals`` fixes how many are shown."""
    if value is None:
        return ""
    if decimals is None:
        return format_decimal(value)
    return format_decimal(value, format="#,##0" + ("." + "0" * decimals if decimals else ""))


def size_filter(size: int | None) -> str:
    """A file's size as people read it, with the language's decimal sign: bytes below a KiB, else
    KiB or MiB with one decimal (``100,0 MiB`` in Portuguese, ``100.0 MiB`` in English)."""
    if size is None:
        return ""
    if size < 1024:
        return get_translations().ungettext("%(num)s byte", "%(num)s bytes", size) % {"num": format_decimal(size)}
    if size < 1024 * 1024:
        return f"{number_filter(size / 1024, 1)} KiB"
    return f"{number_filter(size / (1024 * 1024), 1)} MiB"


def ago_filter(value, now: datetime | None = None) -> Markup:
    """``<time>`` saying how long ago (or in how long) ``value`` is, humanly ("5 minutes ago",
    "há 5 minutos"), with the exact time in its title and machine-readable in ``datetime``; ``now``
    by default on the application's one clock."""
    if value is None:
        return Markup("")
    moment = _moment(value)
    delta = moment - (now or application().clock())
    if abs(delta) < timedelta(seconds=1):
        human = gettext("just now")
    else:
        human = format_timedelta(delta, add_direction=True, locale=get_locale())
    exact = format_datetime(moment, DATETIME_PATTERNS[str(get_locale())])
    return Markup('<time datetime="{}" title="{}">{}</time>').format(iso_filter(moment), exact, human)


SCRIPT_TEXTS = (
    N_("Copied"), N_("Copy failed"), N_("Show"), N_("Hide"),
    N_("Step %(number)s"), N_("Query pairs"), N_("pair %(number)s: %(problem)s"),
    N_("%(message)s (at character %(position)s)"), N_("Not updated: %(message)s"),
    N_("Not updated. %(label)s: %(message)s"), N_("Updated: %(meaning)s"),
    N_("the server answered %(status)s"), N_("Type an IBI to see its persistent URL."),
    N_("The preview is unavailable right now; the Compose button still works."),
    N_("Scroll sideways to see it all"),
    # the home page's box (home.js)
    N_("Not recognised yet: %(message)s"), N_("Looks like %(description)s."),
    N_("Looks like %(description)s — IBIp %(other)s."), N_("Looks like %(description)s — repository name %(other)s."),
    NP_("Read as %(ibi)s: %(count)s thing around it set aside.", "Read as %(ibi)s: %(count)s things around it set aside.", 1,
        ibi=""),  # (the values only make the English text: the script gives its own)
    N_("Press Look up for what to do with it."),
    NP_("This looks like a reference: %(count)s IBI found", "This looks like a reference: %(count)s IBIs found", 1),
    # an item's upload (upload.js)
    N_("%(name)s has %(size)s; this portal keeps files of at most %(limit)s. Nothing was sent."),
    N_("%(sent)s of %(total)s sent (%(percent)s)"), N_("Stored."),
    N_("The portal refused the file (HTTP %(status)s). Nothing was stored."),
    N_("The upload was interrupted: nothing was stored. Try again."), N_("Upload cancelled: nothing was stored."),
    N_("Sending %(name)s (%(size)s)…"),
    # the registration key as it is typed (key-check.js)
    NP_("%(count)s digit so far: the first number needs 10 or more (Table 7.1).",
        "%(count)s digits so far: the first number needs 10 or more (Table 7.1).", 1),
    NP_("%(count)s digit after the '-' so far: the second number needs 10 or more (Table 7.1).",
        "%(count)s digits after the '-' so far: the second number needs 10 or more (Table 7.1).", 1),
)
"""What the portal's scripts write themselves (static/js), given to them translated in the page
(``<body data-portal-text>``, read by ``portalText`` and ``portalPlural`` in portal.js): a script
has no catalog of its own. A text whose words follow a number gives both its forms, each under its
English (``portalPlural`` picks one by the page language's plural rule)."""


def script_texts() -> dict[str, str]:
    texts = {}
    translations = get_translations()
    for text in SCRIPT_TEXTS:
        if text.plural is None:
            texts[text.template] = translations.ugettext(text.template)
        else:
            texts[text.template] = translations.ungettext(text.template, text.plural, 1)
            texts[text.plural] = translations.ungettext(text.template, text.plural, 2)
    return texts


def template_context() -> dict:
    return {"html_lang": current_tag(), "language_links": language_links, "script_texts": script_texts}


def init_app(app: Flask) -> None:
    """Flask-Babel with the catalogs compiled (when missing or stale), the selection, the headers,
    the switch and the filters."""
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(catalogs.compiled_directory(app.instance_path))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    Babel(app, locale_selector=select_locale)
    app.jinja_env.policies["ext.i18n.trimmed"] = True  # as babel.cfg extracts {% trans %} blocks
    app.jinja_env.filters.update(date=date_filter, datetime=datetime_filter, iso=iso_filter, number=number_filter, size=size_filter,
                                 ago=ago_filter, translate=translate_html, code_spans=code_spans,
                                 lang_attr=lang_attr, said=said)
    app.context_processor(template_context)
    app.after_request(remember_and_label)
    app.register_blueprint(bp)
    core.html_of = translate_html  # a core message a template writes as it is is translated too
