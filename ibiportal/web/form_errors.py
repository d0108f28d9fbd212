"""Showing core errors on Flask-WTF forms: every form error next to its field."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import Field

from ..errors import ParseError
from .i18n import error_text


def labelled(message: str, field: Field) -> str:
    """``message`` with the core's name for the field (``target_url must be …``) replaced by the
    label people see next to it (``Target URL must be …``): the form speaks its own words."""
    name = field.name
    if message.startswith(name) and message[len(name):len(name) + 1] in (" ", ":", ""):
        return field.label.text + message[len(name):]
    return message


def add_error(field: Field, message: str) -> None:
    """Add ``message`` to the errors shown next to ``field``."""
    field.errors = [*field.errors, message]


def show_error(form: FlaskForm, exc: ParseError, default_field: str | None = None) -> None:
    """Show a core ParseError next to the field it names, else next to ``default_field``
    (an error in a part of an IBI goes next to the IBI), else above the form; each of a
    :class:`~ibiportal.errors.FieldErrors` next to its own field."""
    for error in exc.errors:
        field = getattr(form, error.field or "", None) or getattr(form, default_field or "", None)
        if field is None:
            form.form_errors.append(error_text(error))
        else:
            add_error(field, labelled(error_text(error), field))
