"""Reading an Archive's answer (4) for the relation sought (§8.2, Tables 9.4 and 9.5).

An answer is a pair list; for the verbs asked, it offers the wanted URL (``url<relation>``),
says the item was deleted (``state Deleted``), names an IBI that leads toward the URL
(``ibi.nextedition`` for GetLastEdition, or ``ibi<part of the relation>``, §10.2), or none of
these. Pure functions of the answer, the verbs and the user's language preference: the engine
records what they find as the trace's facts.

Before an answer is read for the relation, it is checked (docs/standard-decisions.md): an answer
whose ``ibi`` pair names another item than the IBI asked, or that gives one pair name twice with
two values, is set aside (:func:`set_aside`), never used.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, Message
from ibiportal.ibi.identifier import Identifier, parse_ibi
from ibiportal.ibi.modifiers import GET_FILE_LIST, GET_LAST_EDITION, GET_TRANSLATION, Verb
from ibiportal.ibi.prefixes import pair_proved_by
from ibiportal.ibi.sameness import PrefixPairs, same_item
from ibiportal.protocol.pairlist import PairList, read_answer
from ibiportal.resolver.asking import Reply
from ibiportal.resolver.language import choose_translation
from ibiportal.resolver.trace import RESOLVER, AnswerMeaning, ParseProblem, SetAside, Status, StepKind, TraceStep
from ibiportal.resolver.transport import Failure

_TRANSLATION_PARAMETER = r"\.translation\(([a-z]{2})(?:-([A-Z]{2}))?\)"


@dataclass(frozen=True)
class Reading:
    """What an answer (4) means for the wanted relation."""

    pairs: PairList
    verbs: tuple[Verb, ...]
    relation: str
    url: str | None
    deleted: bool
    onward: tuple[str, tuple[Verb, ...], str] | None  # the IBI, the verbs to ask it with, the pair naming it
    notes: tuple[str, ...]

    @property
    def useful(self) -> bool:
        return self.url is not None or self.deleted or self.onward is not None

    @property
    def meaning(self) -> AnswerMeaning:
        if self.deleted:
            return AnswerMeaning.DELETED
        if self.url is not None:
            return AnswerMeaning.URL
        return AnswerMeaning.NOTHING if self.onward is None else AnswerMeaning.ONWARD

    @property
    def deciding_pair(self) -> str | None:
        """The pair that gives the answer its meaning."""
        if self.deleted:
            return "state"
        if self.url is not None:
            return f"url{self.relation}"
        return None if self.onward is None else self.onward[2]

    @property
    def original(self) -> bool:
        return self.pairs.get(f"state{self.relation}") == "Original"

    @property
    def holds_original(self) -> bool:
        """Whether the answer says its Archive holds the item asked about as the original
        (``state Original``: the state of the empty relation, Table 9.3)."""
        return self.pairs.get("state") == "Original"


def relation_of(verbs: Sequence[Verb]) -> str:
    """The relation of Table 9.5 for a verb list: ``.lastedition.metadata(oai_dc)`` (GetFileList adds nothing)."""
    return "".join(verb.relation for verb in verbs)


def ibi_forms(value: str) -> tuple[str, ...]:
    """The IBIs in a ``formas-de-ibi`` value (Table 9.4): ``rep X ibip Y`` → ``(X, Y)``."""
    words = value.split()
    if len(words) >= 2 and len(words) % 2 == 0 and all(words[i] in ("rep", "ibip") for i in range(0, len(words), 2)):
        return tuple(words[i + 1] for i in range(0, len(words), 2))
    return tuple(words[:1])


@dataclass(frozen=True)
class Verdict:
    """Why an answer is set aside: the reason, the IBI its ``ibi`` pair named (for that reason),
    and a sentence saying it (a message, shown in its reader's language)."""

    reason: SetAside
    message: Message
    answered_ibi: str | None = None


@lru_cache(maxsize=4096)
def _identifier(text: str) -> Identifier | None:
    """``text`` as an IBI, or ``None``; kept, since every answer of a round names the same ones."""
    try:
        return parse_ibi(text)
    except ParseError:
        return None


def other_item(value: str, asked: str, prefix_pairs: PrefixPairs = tuple) -> str | None:
    """The form in an ``ibi`` value (Table 9.4) that names another item than ``asked``, or ``None``.

    Forms compare as IBIs do (:func:`ibiportal.ibi.sameness.same_item`): case-insensitively, and a
    repository name against an IBIp by their dates, then by the known prefix pairs. The table is
    read only when no form names ``asked`` in ``asked``'s own form: an answer ``ibi {rep X ibip Y}``
    to a request about X names X, and its Y is checked by its date alone. A form that is no IBI,
    or that cannot be told apart from ``asked``, names nothing else."""
    wanted = _identifier(asked)
    if wanted is None:
        return None
    forms = [(form, _identifier(form)) for form in ibi_forms(value)]
    readable = [(form, item) for form, item in forms if item is not None]
    named = any(item.form == wanted.form and same_item(wanted, item) for _, item in readable)
    for form, item in readable:
        if item.form == wanted.form or item.date != wanted.date:
            if not same_item(wanted, item):
                return form
        elif not named and same_item(wanted, item, prefix_pairs) is False:
            return form
    return None


def set_aside(pairs: PairList, asked: str | None, prefix_pairs: PrefixPairs = tuple) -> Verdict | None:
    """Why the answer ``pairs`` to a ``urlRequest`` about ``asked`` must not be used, or ``None``.

    * A pair name given twice with two values: Algorithm 2 (MONTARLISTADEURL) writes each name
      once, and Table 6.2 says nothing of which of two values counts, so a reader taking the
      first and another taking the last would follow two answers. The same value twice is read
      once (:meth:`PairList.get` reads the first).
    * An ``ibi`` pair naming another item than ``asked`` (:func:`other_item`): an Archive answers
      about the IBI asked (Table 9.3, ``< "ibi", i >``), so an answer about another item is not an
      answer to this request, whatever URL it offers. An answer without an ``ibi`` pair is not
      checked: nothing in it names an item.
    """
    first: dict[str, str] = {}
    for pair in pairs.pairs:
        value = first.setdefault(pair.name, pair.value)
        if value != pair.value:
            return Verdict(SetAside.REPEATED_NAME, N_(
                "the answer gives %(name)s twice with two values (the second at character %(position)s): Algorithm 2 "
                "gives each name once, so which one is meant cannot be told; the answer is set aside",
                name=pair.name, position=pair.position))
    value = pairs.get("ibi")
    if asked is None or value is None:
        return None
    named = other_item(value, asked, prefix_pairs)
    if named is None:
        return None
    return Verdict(SetAside.OTHER_ITEM, N_(
        "its ibi pair names %(named)s, another item than %(asked)s, the IBI asked: the answer is set aside",
        named=named, asked=asked), named)


def _first_named(verbs: Sequence[Verb]) -> Verb | None:
    return next((verb for verb in verbs if verb.name != GET_FILE_LIST), None)


def read(pairs: PairList, verbs: tuple[Verb, ...], language_preference: str | None) -> Reading:
    """Interpret one non-empty answer for ``verbs``: the URL, Deleted, or an IBI leading on.

    A translation asked without a language (``+``) is chosen among those the answer offers by
    ``language_preference`` (the user's Accept-Language); when none is acceptable, a
    language-less ``url….translation`` is taken, else the original – Example 8.3: "senão deve
    retornar simplesmente a versão do item de informação no seu idioma original"."""
    notes: list[str] = []
    concrete: list[Verb | None] = list(verbs)
    for index, verb in enumerate(concrete):
        if verb.name == GET_TRANSLATION and verb.language is None:
            before_relation = relation_of([known for known in concrete[:index] if known is not None])
            before = re.escape(before_relation)
            pattern = re.compile(r"(?:url|ibi)" + before + _TRANSLATION_PARAMETER)
            offered: list[str] = []
            for name in pairs.names():
                match = pattern.match(name)
                tag = match and (match[1] + (f"-{match[2]}" if match[2] else ""))
                if tag and tag not in offered:
                    offered.append(tag)
            choice = choose_translation(offered, language_preference)
            if offered:
                notes.append(choice.reason)
            if choice.language is not None:
                language, _, country = choice.language.partition("-")
                concrete[index] = Verb(GET_TRANSLATION, language=language, country=country or None)
            elif not any(pairs.get(f"{name}{before_relation}.translation") for name in ("url", "ibi")):
                concrete[index] = None  # Example 8.3: no translation for this reader, the original
    concrete_verbs = tuple(verb for verb in concrete if verb is not None)
    relation = relation_of(concrete_verbs)
    deleted = pairs.get("state") == "Deleted"
    url = pairs.get(f"url{relation}")
    leads_on = None if url is not None or deleted else onward(pairs, verbs, concrete_verbs)
    return Reading(pairs, concrete_verbs, relation, url, deleted, leads_on, tuple(notes))


def onward(pairs: PairList, verbs: tuple[Verb, ...], concrete: tuple[Verb, ...]) -> tuple[str, tuple[Verb, ...], str] | None:
    """The IBI that leads toward the wanted URL (§8.2, §10.2), with the verbs to ask it with."""
    first = _first_named(concrete)
    nextedition = pairs.get("ibi.nextedition")
    if first is not None and first.name == GET_LAST_EDITION and nextedition:
        target = ibi_forms(nextedition)[0]
        return target, verbs, "ibi.nextedition"
    named = [index for index, verb in enumerate(concrete) if verb.name != GET_FILE_LIST]
    file_list = tuple(verb for verb in concrete if verb.name == GET_FILE_LIST)
    for count in range(len(named), 0, -1):
        prefix = relation_of(concrete[: named[count - 1] + 1])
        value = pairs.get(f"ibi{prefix}")
        if value:
            target = ibi_forms(value)[0]
            rest = tuple(verb for verb in concrete[named[count - 1] + 1:] if verb.name != GET_FILE_LIST) + file_list
            return target, rest, f"ibi{prefix}"
    return None


def missing_step(reading: Reading) -> tuple[tuple[Verb, ...], Verb] | None:
    """Where an answer that holds the item stops knowing what the verbs ask (Table 9.5): the
    verbs it knows (it answers ``ibi`` or ``url`` of their relation) and the first one it does
    not; ``None`` when it knows the whole relation but gives no URL for it (a file it does not
    hold, a file list it does not offer)."""
    known: list[Verb] = []
    for verb in reading.verbs:
        if verb.name == GET_FILE_LIST:
            continue
        relation = relation_of([*known, verb])
        if reading.pairs.get(f"url{relation}") is None and reading.pairs.get(f"ibi{relation}") is None:
            return tuple(known), verb
        known.append(verb)
    return None


def read_reply(reply: Reply, arrival: int, wanted: tuple[Verb, ...], hop: int,
               language_preference: str | None, *, prefix_pairs: PrefixPairs = tuple,
               **asked: Any) -> tuple[TraceStep, Reading | None]:
    """The (3)+(4) step of one reply, ``arrival``-th of its round, and what its answer means if
    it is a non-empty pair list that is not set aside (:func:`set_aside`; a failure, an HTTP
    error, a malformed or empty answer means nothing either).
    ``wanted`` are the verbs of the request; ``asked`` the step's facts of the message itself (the
    IBI, verbs and client IPs asked); ``prefix_pairs`` the known prefix pairs, read only if an
    answer's IBI is in the other form alone (:func:`other_item`).
    The step is made once, with every fact (a reference check reads 50,000 replies)."""
    exchange = reply.exchange
    facts: dict[str, Any] = dict(
        relation=relation_of(wanted), hop=hop, archive=reply.endpoint.address, request_url=reply.url,
        http_status=exchange.status, content_type=exchange.content_type, elapsed_ms=reply.elapsed_ms,
        arrival=arrival, raw_answer=None if exchange.body is None else exchange.body.decode("latin-1"),
        notes=exchange.notes, **asked)
    reading = None
    if exchange.failure is not None:
        status = {Failure.TIMEOUT: Status.TIMEOUT, Failure.REFUSED: Status.REFUSED}.get(exchange.failure, Status.TRANSPORT_ERROR)
        facts.update(status=status, error=exchange.error)
    elif exchange.status != 200:
        facts.update(status=Status.HTTP_ERROR)
    else:
        parsed = exchange.pairs if exchange.pairs is not None else read_answer(exchange.body or b"")
        if not isinstance(parsed, PairList):
            facts.update(status=Status.MALFORMED, parse_error=ParseProblem(parsed.message, parsed.position))
        elif not parsed:
            facts.update(status=Status.EMPTY, pairs=())
        elif (verdict := set_aside(parsed, asked.get("ibi"), prefix_pairs)) is not None:
            facts.update(status=Status.SET_ASIDE, pairs=tuple(parsed), set_aside=verdict.reason,
                         answered_ibi=verdict.answered_ibi, error=verdict.message)
        else:
            reading = read(parsed, wanted, language_preference)
            facts.update(status=Status.ANSWERED, pairs=tuple(parsed), notes=exchange.notes + reading.notes,
                         relation=reading.relation, meaning=reading.meaning, deciding_pair=reading.deciding_pair,
                         onward_ibi=None if reading.onward is None else reading.onward[0])
    return TraceStep(3, StepKind.URL_REQUEST, RESOLVER, reply.endpoint.name, "", **facts), reading


@dataclass(frozen=True)
class ProvenPair:
    """A prefix pair an Archive's answer proved (STANDARD.md §7): both prefixes, the Archive that
    answered and the answer's pair that gives both forms of one IBI (``ibi {rep … ibip …}``)."""

    rep_prefix: str
    ibip_prefix: str
    archive: str
    evidence: str


def proven_prefix_pairs(steps: Iterable[TraceStep]) -> tuple[ProvenPair, ...]:
    """The prefix pairs the answers to ``urlRequest`` prove, each once, first proof kept: any
    ``ibi…`` pair whose value gives both forms of one IBI (file 003, Table 9.4). An answer set
    aside proves nothing."""
    proven: dict[tuple[str, str], ProvenPair] = {}
    for step in steps:
        if (step.kind is not StepKind.URL_REQUEST or not step.pairs or step.archive is None
                or step.status is Status.SET_ASIDE):
            continue
        for name, value in step.pairs:
            pair = pair_proved_by(value) if name == "ibi" or name.startswith("ibi.") else None
            if pair is not None and pair not in proven:
                proven[pair] = ProvenPair(*pair, step.archive, f"{name} {{{value.strip('{}')}}}")
    return tuple(proven.values())
