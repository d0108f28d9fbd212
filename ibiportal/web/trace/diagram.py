"""The geometry of the sequence diagram: where each lifeline and arrow goes, in pixels.

The diagram is an ordered list of rows (one per message of :mod:`.sequence`
and one heading per round of the loop fragment). Each row is an HTML label (number, who to
whom, what) next to a strip of inline SVG; the strips stack into one picture. A label may
wrap to several lines, so a row is at least ``ROW`` pixels high but may be taller: the strip
then stretches (CSS) and its ``ROW``-high view box stays centred, while lifelines and the
loop's band reach ``OVERFLOW`` pixels above and below it, so they stay continuous from row
to row. Shapes carry only numbers and class names: every text that comes from a trace is
written by the template, escaped.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field


from ..i18n import gettext, ngettext
from .sequence import BROWSER, RESOLVER, USER, Arrow, SequenceDiagram, Tone

ROW = 44  # px: the height of a row, also in static/css/trace.css (.seq-row)
HEAD = 112  # px: the header with the lifeline names
LANES = {USER: 56, BROWSER: 64, RESOLVER: 76}
ARCHIVE_LANE = 52  # with the 17rem labels, 13 Archives (the faulty demo ones too) fit in 1280 px
NAME_LIMIT = 18
#: Room right of the last lifeline for its name, written slanted at 50°: NAME_LIMIT characters of
#: 12 px text (at most 7.5 px wide each) reach cos 50° of their length to the right.
NAME_ROOM = math.ceil(NAME_LIMIT * 7.5 * math.cos(math.radians(50))) + 4
MID = ROW // 2
OVERFLOW = 200  # px drawn above and below a strip's view box (rows taller than ROW)


@dataclass(frozen=True)
class Shape:
    """One SVG element: its tag and attributes (numbers and class names only)."""

    tag: str
    attrs: dict[str, str]


@dataclass(frozen=True)
class Row:
    kind: str  # "message" or "round"
    who: str
    what: str
    tone: str
    number: int | None = None
    href: str | None = None
    hop: int = 0
    shapes: tuple[Shape, ...] = ()
    tag_x: int | None = None  # where the round's "loop" tag is written (round rows)
    note: bool = False  # the resolver's analysis, on its own lifeline


@dataclass(frozen=True)
class Column:
    x: int
    title: str
    short: str
    address: str | None
    archive: bool


@dataclass
class Diagram:
    width: int
    columns: list[Column]
    rows: list[Row] = field(default_factory=list)
    row_height: int = ROW
    head_height: int = HEAD


def diagram_of(sequence: SequenceDiagram) -> Diagram:
    """Lay out ``sequence``: lifelines left to right, one row per message, a heading per round."""
    xs: dict[str, int] = {}
    columns: list[Column] = []
    left = 0
    for line in sequence.lifelines:
        width = LANES.get(line.key, ARCHIVE_LANE)
        xs[line.key] = left + width // 2
        short = line.title if len(line.title) <= NAME_LIMIT else line.title[: NAME_LIMIT - 1] + "…"
        columns.append(Column(left + width // 2, line.title, short, line.address, line.is_archive))
        left += width
    diagram = Diagram(left + NAME_ROOM, columns)
    band = (xs[RESOLVER] - 10, left + 4)
    starts = {hop.first: hop for hop in sequence.hops}
    in_hop = {index for hop in sequence.hops for index in range(hop.first, hop.last)}
    titles = {line.key: line.title for line in sequence.lifelines}
    for index, message in enumerate(sequence.messages):
        if index in starts:
            hop = starts[index]
            asked = (hop.ibi or "?") + (f" ({hop.verbs})" if hop.verbs else "")
            diagram.rows.append(Row("round", gettext("Round %(round)s: loop over every Archive", round=hop.number),
                                    gettext("about %(ibi)s", ibi=asked),
                                    "round", hop=hop.number, href=f"#hop-{hop.number}",
                                    shapes=_lifelines(xs) + _frame_top(band), tag_x=band[0] + 6))
        shapes = (_band(band) if index in in_hop else ()) + _lifelines(xs) + _message_shapes(message, xs)
        diagram.rows.append(Row("message", _who(message, titles), _what(message), message.tone.value, message.number,
                                _href(message), message.hop, shapes, note=message.is_note))
    return diagram


def _who(message: Arrow, titles: dict[str, str]) -> str:
    if message.is_note:
        return gettext("Resolver: analysis")

    def side(keys: tuple[str, ...]) -> str:
        if len(keys) == 1:
            return titles.get(keys[0], keys[0])
        return ngettext("%(num)s Archive", "%(num)s Archives", len(keys))

    return f"{side(message.senders)} → {side(message.receivers)}"


def _what(message: Arrow) -> str:
    if message.is_note:
        return message.summary
    name = message.name
    if message.number == 3 and len(message.receivers) > 1:  # "Resolver → 12 Archives" says the rest
        return f"{name} · {message.summary.split(' · ', 1)[-1]}"
    if message.tone is Tone.EXPECTED:
        return gettext("%(name)s: %(summary)s (not seen by the resolver)", name=name, summary=message.summary)
    return f"{name} · {message.summary}" if message.summary else name


def _href(message: Arrow) -> str | None:
    if message.number == 7 or message.number == 2:
        return "#summary"
    if message.tone is Tone.EXPECTED:
        return None
    if message.number == 3 and len(message.receivers) > 1 or len(message.senders) > 1:
        return f"#hop-{message.hop}"
    if message.is_note:
        return "#decisions"
    return f"#step-{message.steps[0]}" if message.steps else None


def _lifelines(xs: dict[str, int]) -> tuple[Shape, ...]:
    return tuple(Shape("line", {"class": "life", "x1": str(x), "x2": str(x), "y1": str(-OVERFLOW),
                                "y2": str(ROW + OVERFLOW)}) for x in xs.values())


def _band(band: tuple[int, int]) -> tuple[Shape, ...]:
    left, right = band
    return (Shape("rect", {"class": "band", "x": str(left), "y": str(-OVERFLOW), "width": str(right - left),
                           "height": str(ROW + 2 * OVERFLOW)}),)


def _frame_top(band: tuple[int, int]) -> tuple[Shape, ...]:
    left, right = band
    return (
        Shape("rect", {"class": "band", "x": str(left), "y": str(MID), "width": str(right - left),
                       "height": str(ROW - MID + OVERFLOW)}),
        Shape("line", {"class": "frame", "x1": str(left), "x2": str(right), "y1": str(MID), "y2": str(MID)}),
        Shape("path", {"class": "frame-tag",
                       "d": f"M{left} {MID}h46v10l-6 6h-40z"}),
    )


def _head(x: int, direction: int, tone: str) -> Shape:
    """An arrowhead at ``x`` pointing right (``direction`` 1) or left (-1); open for expected messages."""
    back = x - direction * 9
    if tone == Tone.EXPECTED.value:
        return Shape("polyline", {"class": f"head open {tone}", "points": f"{back},{MID - 5} {x},{MID} {back},{MID + 5}"})
    return Shape("polygon", {"class": f"head {tone}", "points": f"{x},{MID} {back},{MID - 5} {back},{MID + 5}"})


def _message_shapes(message: Arrow, xs: dict[str, int]) -> tuple[Shape, ...]:
    tone = message.tone.value
    senders = [xs[key] for key in message.senders if key in xs]
    receivers = [xs[key] for key in message.receivers if key in xs]
    if not senders or not receivers:
        return ()
    if message.is_note:
        x = senders[0]
        return (Shape("rect", {"class": f"note {tone}", "x": str(x - 7), "y": str(MID - 7), "width": "14",
                               "height": "14", "transform": f"rotate(45 {x} {MID})"}),)
    shapes: list[Shape] = []
    target = receivers[0]
    if len(senders) > 1 or message.tone in (Tone.EMPTY, Tone.SKIPPED):  # gathered: a dot per sender
        far = max(senders, key=lambda x: abs(x - target))
        shapes.append(_line(far, target, tone))
        shapes += [Shape("circle", {"class": f"dot {tone}", "cx": str(x), "cy": str(MID), "r": "3.5"}) for x in senders]
        if message.tone is not Tone.SKIPPED:
            shapes.append(_head(target, 1 if target > far else -1, tone))
        return tuple(shapes)
    origin = senders[0]
    if message.number is None and message.tone is Tone.FAILED:  # no answer: a cross on the Archive's lifeline
        shapes.append(_line(origin, target, tone))
        shapes.append(Shape("path", {"class": f"cross {tone}",
                                     "d": f"M{origin - 6} {MID - 6}l12 12m0 -12l-12 12"}))
        return tuple(shapes)
    far = max(receivers, key=lambda x: abs(x - origin))
    shapes.append(_line(origin, far, tone))
    for x in receivers:
        shapes.append(_head(x, 1 if x > origin else -1, tone))
    if message.number == 3 and message.tone is Tone.FAILED:
        shapes.append(Shape("path", {"class": f"cross {tone}", "d": f"M{far - 6} {MID - 6}l12 12m0 -12l-12 12"}))
    return tuple(shapes)


def _line(x1: int, x2: int, tone: str) -> Shape:
    return Shape("line", {"class": f"msg {tone}", "x1": str(x1), "x2": str(x2), "y1": str(MID), "y2": str(MID)})
