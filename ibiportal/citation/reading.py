"""How a creator written without a comma was read, in words, for the person who wrote it.

``Family, Given`` is unambiguous; ``Maria da Silva`` is read by :func:`parse_name`'s rules
(the last word is the family name, connectives and particles go by their kind), which is
usually right but not always what the author meant (``da Silva`` as one family name). When
such a name has a connective or a particle, the reading is shown, so it is never silent.
"""
from __future__ import annotations

from ..i18n import N_, Message
from .names import CONNECTIVES, PARTICLES, parse_name


def comma_less_reading(text: str) -> Message | None:
    """A note saying how a comma-less personal name with a connective or particle was read,
    else ``None`` (a comma says it all; an organisation is kept whole)."""
    text = " ".join(text.split())
    if "," in text:
        return None
    name = parse_name(text)
    words = text.split()
    if name.is_organisation or not any(word.lower() in CONNECTIVES | PARTICLES for word in words[:-1]):
        return None
    reading = f"{name.surname}, {name.given}" if name.given else name.surname
    return N_("“%(name)s” has no comma, so it was read as family name “%(family)s”, given names “%(given)s” "
              "(%(reading)s). To file it otherwise, write it as “Family, Given”.",
              name=text, family=name.surname, given=name.given or "", reading=reading)
