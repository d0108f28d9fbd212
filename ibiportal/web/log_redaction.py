"""Registration keys never reach a log (STANDARD.md §3: keys are secrets).

An Archive sends its registration key (Table 7.1) in the query string of every
``inclusionRequest`` and ``exclusionRequest`` (Table 7.2, Examples 7.2 and 7.3), so any log
line holding a request URL – an access log with ``%(r)s`` or ``%(q)s``, werkzeug's request
lines, an error message quoting a URL – would hold the key. The portal's own code never logs
one; this module is the second line: a :class:`logging.Filter` that rewrites the value of
every query pair whose name ends in ``key`` (``registrationkey``, also written
``RegistrationKey`` or ``registration%6Bey``; ``urlkey`` goes too, harmlessly) to
``[redacted]``, in the message, its arguments and any traceback text.

Where it is installed:

* gunicorn: :class:`RedactingGunicornLogger`, by ``logger_class =
  "ibiportal.web.log_redaction.RedactingGunicornLogger"`` in ``gunicorn.conf.py`` (or
  ``--logger-class`` on the command line): its error and access logs are filtered whatever
  ``access_log_format`` says.
* werkzeug (``flask run``, the test servers) and the app's own loggers: :func:`install`.
"""
from __future__ import annotations

import logging
import re
from urllib.parse import unquote

from gunicorn.glogging import Logger as GunicornLogger

from ibiportal.config import ACCESS_LOG_FORMAT

REDACTED = "[redacted]"
#: A log record's attribute saying its writer blanked the keys already (:mod:`.access_log`).
REDACTED_ALREADY = "ibiportal_redacted"

#: A ``name=value`` pair in a URL-ish text: after ``?``, ``&``, ``;``, whitespace, a quote or a
#: bracket; the value runs to the next ``&``, whitespace, quote or bracket.
_PAIR = re.compile(r"(?P<lead>^|[?&;\s\"'(\[{,])(?P<name>[^=&;?\s\"'<>]+)=(?P<value>[^&\s\"'<>)\]}]*)")

#: The loggers :func:`install` filters besides the app's: werkzeug's request lines, and urllib3's
#: (at DEBUG it writes every request URL it sends: the own Archive's ``inclusionRequest`` to an
#: outside resolver carries its key).
LOGGERS = ("werkzeug", "urllib3.connectionpool")


def _is_secret(name: str) -> bool:
    return unquote(name).strip().casefold().endswith("key")


def redact(text: str) -> str:
    """``text`` with the value of every ``…key=value`` query pair replaced by ``[redacted]``."""
    if "=" not in text:
        return text
    return _PAIR.sub(
        lambda m: m.group(0) if not _is_secret(m["name"]) or not m["value"]
        or m.string.startswith(REDACTED, m.start("value"))  # blanked already (a logger's filter, then its handler's)
        else f"{m['lead']}{m['name']}={REDACTED}",
        text,
    )


class RedactKeys(logging.Filter):
    """Rewrites a record so that no registration key survives in its final text."""

    _traceback = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, REDACTED_ALREADY, False):  # an access line whose client fields were blanked (.access_log)
            return True
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = self._traceback.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


_FILTER = RedactKeys()


def install(app_logger: logging.Logger) -> None:
    """Filter ``app_logger`` (e.g. ``app.logger``) and werkzeug's logger (request lines)."""
    for logger in (app_logger, *(logging.getLogger(name) for name in LOGGERS)):
        logger.addFilter(_FILTER)


class RedactingGunicornLogger(GunicornLogger):
    """gunicorn's logger with :class:`RedactKeys` on its error and access logs; with
    ``IBIPORTAL_LOG_FORMAT=json``, both written as JSON lines (:mod:`.log_format`)."""

    def __init__(self, cfg) -> None:  # type: ignore[no-untyped-def]
        super().__init__(cfg)
        self.error_log.addFilter(_FILTER)
        self.access_log.addFilter(_FILTER)

    def setup(self, cfg) -> None:  # type: ignore[no-untyped-def]
        super().setup(cfg)
        from ibiportal.config import Settings

        from .log_format import JsonLines

        self.json = Settings.from_environment().log_format == "json"
        if self.json:
            for handler in (*self.error_log.handlers, *self.access_log.handlers):
                handler.setFormatter(JsonLines())

    def access(self, resp, req, environ, request_time) -> None:  # type: ignore[no-untyped-def]
        if not self.access_log_enabled:
            return
        if not self.json:
            if self.cfg.access_log_format != ACCESS_LOG_FORMAT:  # another format: gunicorn's, filtered whole
                super().access(resp, req, environ, request_time)
                return
            from .access_log import access_line  # the portal's own line, written field by field

            self.access_log.info("%s", access_line(resp, req, environ, request_time), extra={REDACTED_ALREADY: True})
            return
        from .log_format import access_fields

        fields = access_fields(resp, environ, request_time)
        self.access_log.info("%s %s %s", fields["method"], fields["path"], fields["status"], extra={"fields": fields})
