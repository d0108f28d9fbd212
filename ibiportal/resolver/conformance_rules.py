"""The conformance check's rules: what file 003 requires of an Archive service's answers,
each rule citing its source, and the judges that give each rule its verdict from the probes."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ibiportal.errors import ParseError
from ibiportal.i18n import N_, NP_, Message, number
from ibiportal.protocol.messages import CONTENT_TYPES, ITEM_STATES, check_key
from ibiportal.protocol.pairlist import PairList, UnreadableAnswer, read_answer
from ibiportal.protocol.status import ACKNOWLEDGMENT_NOTICE
from ibiportal.resolver.conformance_probes import CHECK_TIMEOUTS, Probe
from ibiportal.resolver.transport import Failure, Timeouts

_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})")
_IBI_FORMS = re.compile(r"rep [^ ]+( ibip [^ ]+)?|ibip [^ ]+")


class Verdict(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    # The resolver's address policy refused to contact the Archive: nothing was sent, so a rule
    # judged on its answers neither passed nor failed; "failed" would blame the Archive.
    NOT_CHECKED = "not-checked"


@dataclass(frozen=True)
class Quote:
    """Words of the standard in its own Portuguese, and what they say in English (shown beside
    them to English readers only: a Portuguese reader reads the standard's words themselves)."""

    text: str
    english: str


@dataclass(frozen=True)
class Rule:
    """One requirement of the standard: an id, what it asks, where it says so and, where it
    helps, its very words."""

    rule_id: str
    title: str
    source: str
    quote: Quote | None = None


RULES: tuple[Rule, ...] = (
    Rule("confirmation", N_("Answers inclusionConfirmationRequest with 'confirmation yes'"),
         N_("file 003 §7.2 (Example 7.4, message 4), §9.1, §9.2 Algorithm 1 lines 2-4")),
    Rule("unknown-ibi", N_("Answers urlRequest about an IBI it does not hold with the empty answer"),
         N_("file 003 §9.2 Algorithm 2 lines 1-4, whose procedure gives the empty answer \"\""),
         Quote("CRIARPARSTATE", "create the state pair")),
    Rule("known-ibi", N_("Answers urlRequest about an IBI it holds with a URL list"),
         N_("file 003 §9.2 Algorithm 2, Table 9.3, Table 9.4; Example 9.2")),
    Rule("acknowledgment", N_("Answers acknowledgment with 'notice {acknowledgment received}'"),
         N_("file 003 §8.2 (Table 8.11, Example 8.9), §9.1, §9.2 Algorithm 1 lines 19-21")),
    Rule("http-status", N_("Every answer has HTTP status 200"),
         N_("file 003 §6 (requests and answers are HTTP messages); the resolver uses no other answer")),
    Rule("content-type", N_("Every answer is Content-Type text/plain"),
         N_("file 003 §6.2"),
         Quote("gerada com o Content-Type assumindo o valor text/plain",
               "generated with the Content-Type taking the value text/plain")),
    Rule("ascii", N_("Every answer is ASCII only (other characters written as percent codes)"),
         N_("file 003 §6.2, Table 6.2 rule caractere")),
    Rule("grammar", N_("Every answer is a pair list"),
         N_("file 003 §6.2, Table 6.2, rule"),
         Quote("lista-de-pares", "pair list")),
    Rule("urlkey", N_("Each URL list has a fresh urlkey shaped as Table 7.1 (recommended)"),
         N_("file 003 §9.2 Algorithm 2 line 19, Table 9.3 (urlkey: rule chave of Table 7.1)"),
         Quote("essa chave deveria ser trocada a cada resposta", "this key should be changed with every answer")),
    Rule("timing", N_("Every answer arrives within the resolver's timeouts"),
         N_("file 003 §8.2 (the resolver asks every Archive and selects among the answers); this resolver waits "
            "%(connect)s s to connect and %(read)s s for an answer",
            connect=number(CHECK_TIMEOUTS.connect), read=number(CHECK_TIMEOUTS.read))),
)
_RULES = {rule.rule_id: rule for rule in RULES}


@dataclass(frozen=True)
class RuleResult:
    """A rule's verdict, why, and the requests it was judged on."""

    rule_id: str
    title: str
    source: str
    outcome: Verdict
    detail: str
    evidence: tuple[Probe, ...] = ()
    quote: Quote | None = None

    @property
    def passed(self) -> bool:
        return self.outcome is Verdict.PASSED

    @property
    def failed(self) -> bool:
        return self.outcome is Verdict.FAILED

    @property
    def duration_ms(self) -> float:
        return sum(probe.duration_ms for probe in self.evidence)


def _result(rule_id: str, outcome: Verdict, detail: str, evidence: Iterable[Probe] = ()) -> RuleResult:
    rule = _RULES[rule_id]
    return RuleResult(rule.rule_id, rule.title, rule.source, outcome, detail, tuple(evidence), rule.quote)


def judge_constant_answer(rule_id: str, probe: Probe, expected: PairList) -> RuleResult:
    """Algorithm 1 answers these subjects with a constant pair list, and nothing else."""
    if probe.exchange is None:
        return _result(rule_id, Verdict.SKIPPED, _not_sent(probe), [probe])
    answer = probe.answer()
    wanted = expected.serialize(" ")
    if isinstance(answer, str):
        return _result(rule_id, Verdict.FAILED, N_("Expected '%(wanted)s'; %(answer)s.", wanted=wanted, answer=answer),
                       [probe])
    if answer != expected:
        if answer:
            got = N_("Expected '%(wanted)s', got '%(got)s'.", wanted=wanted, got=answer.serialize(" ")[:200])
        else:
            got = N_("Expected '%(wanted)s', got the empty answer.", wanted=wanted)
        return _result(rule_id, Verdict.FAILED, got, [probe])
    return _result(rule_id, Verdict.PASSED, f"'{wanted}'.", [probe])


def judge_unknown_ibi(probe: Probe, ibi: str) -> RuleResult:
    if probe.exchange is None:
        return _result("unknown-ibi", Verdict.SKIPPED, _not_sent(probe), [probe])
    answer = probe.answer()
    if isinstance(answer, str):
        return _result("unknown-ibi", Verdict.FAILED, N_("Asked about %(ibi)s (invented); %(answer)s.", ibi=ibi,
                                                          answer=answer), [probe])
    if answer:
        names = ", ".join(answer.names()[:8])
        return _result("unknown-ibi", Verdict.FAILED,
                       NP_("Asked about %(ibi)s, an IBI invented for this check, the Archive answered %(count)s "
                           "pair (%(names)s) instead of the empty answer.",
                           "Asked about %(ibi)s, an IBI invented for this check, the Archive answered %(count)s "
                           "pairs (%(names)s) instead of the empty answer.", len(answer), ibi=ibi,
                           count=number(len(answer)), names=names), [probe])
    return _result("unknown-ibi", Verdict.PASSED, N_("Empty answer about %(ibi)s, an IBI invented for this check.", ibi=ibi),
                   [probe])


def judge_known_ibi(probes: Sequence[Probe], ibi: str | None) -> RuleResult:
    if not probes:
        return _result("known-ibi", Verdict.SKIPPED,
                       N_("No known IBI given: give the IBI of an item this Archive holds."))
    probe = probes[0]
    if probe.exchange is None:
        return _result("known-ibi", Verdict.SKIPPED, _not_sent(probe), [probe])
    answer = probe.answer()
    if isinstance(answer, str):
        return _result("known-ibi", Verdict.FAILED, N_("Asked about %(ibi)s; %(answer)s.", ibi=ibi, answer=answer),
                       [probe])
    if not answer:
        return _result("known-ibi", Verdict.FAILED,
                       N_("The answer about %(ibi)s is empty: the Archive says it does not hold it.", ibi=ibi), [probe])
    problems = url_list_problems(answer)
    if problems:
        return _result("known-ibi", Verdict.FAILED, _problems(problems), [probe])
    if answer.get("state") == "Deleted":
        return _result("known-ibi", Verdict.PASSED,
                       N_("A URL list saying %(ibi)s was Deleted (Algorithm 2 lines 11-15): no URL to follow.", ibi=ibi),
                       [probe])
    return _result("known-ibi", Verdict.PASSED,
                   f"url {answer.text('url')} ({answer.get('contenttype')}, {answer.get('state')}, "
                   f"{answer.get('timestamp')}).", [probe])


def url_list_problems(answer: PairList) -> list[Message]:
    """What a non-empty answer to ``urlRequest`` lacks or gets wrong (Algorithm 2, Table 9.3).

    Always ``archiveaddress``, ``ibi.archiveservice`` and ``ibi.platformsoftware``
    (lines 6-10); for a Deleted item ``ibi``, ``state`` and ``timestamp`` (lines 11-15); else
    ``urlkey`` (line 19) and, for the empty relation every Archive supports, ``url``,
    ``contenttype``, ``state`` and ``timestamp`` (lines 21-32).
    """
    problems: list[Message] = []

    def need(name: str, valid: Callable[[str], bool] = bool, what: str = "") -> None:
        value = answer.get(name)
        if value is None:
            problems.append(N_("no %(name)s pair", name=name))
        elif not valid(value):
            problems.append(N_("%(name)s %(value)r is not %(what)s", name=name, value=value[:80], what=what))

    need("archiveaddress")
    need("ibi.archiveservice", _IBI_FORMS.fullmatch, N_("'rep …', 'ibip …' or 'rep … ibip …' (Table 9.4)"))
    need("ibi.platformsoftware", lambda v: v == "" or bool(_IBI_FORMS.fullmatch(v)), N_("IBI forms or {} (Table 9.3)"))
    if answer.get("state") == "Deleted":
        need("ibi", _IBI_FORMS.fullmatch, N_("IBI forms (Table 9.4)"))
        need("timestamp", _TIMESTAMP.fullmatch, N_("an ISO 8601 date and time"))
        return problems
    need("urlkey", _is_key, N_("a key of Table 7.1"))
    need("url", lambda v: v.lower().startswith(("http://", "https://")), N_("an http URL"))
    need("contenttype", lambda v: v in CONTENT_TYPES, N_("one of %(values)s", values=", ".join(CONTENT_TYPES)))
    need("state", lambda v: v in ITEM_STATES, N_("one of %(values)s", values=", ".join(ITEM_STATES + ("Deleted",))))
    need("timestamp", _TIMESTAMP.fullmatch, N_("an ISO 8601 date and time"))
    return problems


def _is_key(text: str) -> bool:
    try:
        check_key(text, "urlkey")
    except ParseError:
        return False
    return True


def judge_acknowledgment(probe: Probe | None, known_ibi: str | None) -> RuleResult:
    if probe is None:
        why = (N_("No known IBI given: an acknowledgment repeats the url and urlkey of an answer (Table 8.11).")
               if not known_ibi else
               N_("Not sent: the answer about the known IBI has no URL to acknowledge (see known-ibi)."))
        return _result("acknowledgment", Verdict.SKIPPED, why)
    return judge_constant_answer("acknowledgment", probe, ACKNOWLEDGMENT_NOTICE)


def _answered(probes: Iterable[Probe]) -> list[Probe]:
    return [probe for probe in probes if probe.answered]


def _per_answer(rule_id: str, probes: Sequence[Probe], problem: Callable[[Probe], Message | None],
                ok: Callable[[int], Message]) -> RuleResult:
    """A rule every HTTP answer must meet: failed with each offender named, else passed."""
    answered = _answered(probes)
    if not answered:
        return _result(rule_id, Verdict.SKIPPED, N_("No request got an HTTP answer."), probes)
    failures = [(probe, problem(probe)) for probe in answered]
    failures = [(probe, text) for probe, text in failures if text]
    if failures:
        return _result(rule_id, Verdict.FAILED, _problems([_about(probe, text) for probe, text in failures]),
                       [probe for probe, _ in failures])
    return _result(rule_id, Verdict.PASSED, ok(len(answered)), answered)


def judge_http_status(probes: Sequence[Probe]) -> RuleResult:
    return _per_answer("http-status", probes,
                       lambda p: None if p.status == 200 else N_("HTTP status %(status)s", status=p.status),
                       lambda count: NP_("%(count)s answer with HTTP status 200.", "%(count)s answers with HTTP status 200.", count))


def judge_content_type(probes: Sequence[Probe]) -> RuleResult:
    def problem(probe: Probe) -> Message | None:
        media = (probe.content_type or "").split(";")[0].strip().lower()
        if media == "text/plain":
            return None
        return Message("Content-Type %(type)s", {"type": probe.content_type}) if probe.content_type else N_("no Content-Type")

    return _per_answer("content-type", probes, problem,
                       lambda count: NP_("%(count)s answer with Content-Type text/plain.",
                                         "%(count)s answers with Content-Type text/plain.", count))


def judge_ascii(probes: Sequence[Probe]) -> RuleResult:
    def problem(probe: Probe) -> Message | None:
        body = probe.body
        index = next((i for i, byte in enumerate(body) if byte > 0x7F), None)
        if index is None:
            return None
        return N_("byte 0x%(byte)s at character %(position)s (write it %(code)s)", byte=f"{body[index]:02X}",
                  position=index + 1, code=f"%{body[index]:02x}")

    return _per_answer("ascii", probes, problem, lambda count: NP_("%(count)s answer in ASCII only.",
                                                                     "%(count)s answers in ASCII only.", count))


def judge_grammar(probes: Sequence[Probe]) -> RuleResult:
    def problem(probe: Probe) -> Message | None:
        answer = read_answer(probe.body)
        return answer.explanation if isinstance(answer, UnreadableAnswer) else None

    return _per_answer("grammar", probes, problem,
                       lambda count: NP_("%(count)s answer read as a pair list.", "%(count)s answers read as pair lists.",
                                         count))


def judge_urlkey(probes: Sequence[Probe]) -> RuleResult:
    if not probes:
        return _result("urlkey", Verdict.SKIPPED, N_("No known IBI given: only a URL list carries a urlkey."))
    unsent = next((probe for probe in probes if probe.exchange is None), None)
    if unsent is not None:
        return _result("urlkey", Verdict.SKIPPED, _not_sent(unsent), probes)
    answers = [probe.answer() for probe in probes]
    unread = [_about(probe, answer) for probe, answer in zip(probes, answers) if isinstance(answer, str)]
    if unread:
        return _result("urlkey", Verdict.FAILED, _problems(unread), probes)
    if any(answer.get("state") == "Deleted" or not answer for answer in answers):
        return _result("urlkey", Verdict.SKIPPED,
                       N_("No URL list to look at (the known IBI is Deleted or not held)."), probes)
    keys = [answer.get("urlkey") for answer in answers]
    if None in keys:
        missing = tuple(probe.name for probe, key in zip(probes, keys) if key is None)
        return _result("urlkey", Verdict.FAILED, N_("No urlkey in the answer: %(requests)s.", requests=missing), probes)
    for probe, key in zip(probes, keys):
        try:
            check_key(key, "urlkey")
        except ParseError as error:
            return _result("urlkey", Verdict.FAILED, Message("%(request)s: urlkey %(key)r: %(problem)s.", {
                "request": probe.name, "key": key[:60], "problem": error.message}), probes)
    if keys[0] == keys[1]:
        return _result("urlkey", Verdict.FAILED,
                       N_("The same urlkey %(key)s in two answers: it should change with each answer.", key=keys[0]),
                       probes)
    return _result("urlkey", Verdict.PASSED,
                   N_("Two answers, two keys: %(first)s then %(second)s.", first=keys[0], second=keys[1]), probes)


def judge_timing(probes: Sequence[Probe], timeouts: Timeouts) -> RuleResult:
    reached = [probe for probe in probes
               if probe.answered or (probe.exchange is not None and probe.exchange.failure is Failure.TIMEOUT)]
    if not reached:
        return _result("timing", Verdict.SKIPPED, N_("No request reached the Archive."), probes)
    times = tuple(Message("%(request)s %(time)s", {"request": probe.name, "time": format_ms(probe.duration_ms)})
                  for probe in reached)
    late = [probe for probe in reached if probe.exchange is not None and probe.exchange.failure is Failure.TIMEOUT]
    if late:
        names = tuple(probe.name for probe in late)
        return _result("timing", Verdict.FAILED,
                       N_("No answer in time to: %(requests)s (limits: %(connect)s s to connect, %(read)s s to answer). "
                          "Times: %(times)s.", requests=names, connect=number(timeouts.connect),
                          read=number(timeouts.read), times=times), reached)
    slowest = max(probe.duration_ms for probe in reached)
    return _result("timing", Verdict.PASSED,
                   N_("Slowest answer %(slowest)s. Times: %(times)s.", slowest=format_ms(slowest), times=times), reached)


def format_ms(milliseconds: float) -> Message:
    """``0.4 ms``, ``12 ms`` (``0,4 ms`` where a Portuguese page shows it): a tenth of a
    millisecond only where it says something."""
    return Message("%(value)s ms", {"value": number(milliseconds, 1 if milliseconds < 10 else 0)})


def _not_sent(probe: Probe) -> Message:
    return N_("Not sent: %(why)s.", why=probe.not_sent)


def _problems(problems: Sequence[Message]) -> Message:
    """Problems as one sentence: ``a; b.``."""
    return Message("%(problems)s.", {"problems": tuple(problems)})


def _about(probe: Probe, problem: Message) -> Message:
    """One request's problem, the request named: ``known IBI: HTTP status 500``."""
    return Message("%(request)s: %(problem)s", {"request": probe.name, "problem": problem})
