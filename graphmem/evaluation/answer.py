"""Answer questions from recalled memories with an LLM and judge them by each benchmark's rule.

    answer_and_judge(chat_model, unit, question, memories) -> record
        LoCoMo       answer, then the LoCoMo judge: CORRECT / WRONG
        LongMemEval  answer, then the judge prompt of the question's type ("yes" in reply)
        PersonaMem   the model picks an option; correct when it is ``correct_answer``
        PrefEval     answer, then four checks -> one of personalised, preference_unaware,
                     hallucinated_preference, inconsistency, unhelpful; correct = personalised
    summarise_llm([(category, record), ...]) -> accuracy overall and by category, failed
        questions, tokens, latency, PrefEval error types and personalised rate

Every call is retried with backoff (`graphmem.llm.RetryPolicy`); when a call still fails,
the question is recorded as failed — ``correct`` is None, never False — and the run goes on.
Token counts come from the reply's ``usage_metadata`` when the model gives it, else they
are whitespace-separated words of prompt and reply, and the record says which.
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graphmem.evaluation import prompts
from graphmem.evaluation.metrics import mean, percentile
from graphmem.ingestion.benchmarks.model import Question, Unit
from graphmem.llm import (LLMCallFailed, LLMError, LLMOutputInvalid, RetryPolicy, extract_json,
                          message_text)

__all__ = ["answer_and_judge", "classify_prefeval", "summarise_llm"]

T = TypeVar("T")
ERROR_TYPES = ("personalised", "preference_unaware", "hallucinated_preference",
               "inconsistency", "unhelpful")
_XML_ANSWER = re.compile(r"<answer>\s*\[?\s*(yes|no)\b", re.IGNORECASE)
_XML_PREFERENCE = re.compile(r"<preference>(.*?)</preference>", re.IGNORECASE | re.DOTALL)
_FINAL = re.compile(r"<final_answer>\s*:?\s*\(?\s*([a-z])\s*\)?", re.IGNORECASE)
_LABEL = re.compile(r"\(\s*([a-z])\s*\)", re.IGNORECASE)


@dataclass
class CallLog:
    """Tokens and time spent on the calls for one question."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    token_sources: set[str] = field(default_factory=set)

    def as_dict(self) -> dict[str, Any]:
        source = "/".join(sorted(self.token_sources)) or "none"
        return {"calls": self.calls, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "token_count": source,
                "latency_ms": self.latency_ms}


def invoke_parsed(chat_model: Any, prompt: str, parse: Callable[[str], T], log: CallLog, *,
                  retry: RetryPolicy | None = None) -> T:
    """Send ``prompt``; return ``parse(reply text)``, retrying as `graphmem.llm.invoke_json`.

    Failed calls wait with backoff before the next attempt; unusable replies are retried
    at once. Raises `LLMCallFailed` or `LLMOutputInvalid` after the last attempt.
    """
    retry = retry or RetryPolicy()
    last: Exception | None = None
    failures = 0
    for attempt in range(1, retry.attempts + 1):
        start = time.perf_counter()
        try:
            reply = chat_model.invoke(prompt)
        except Exception as exc:  # noqa: BLE001 - any provider error is retried
            log.latency_ms += (time.perf_counter() - start) * 1000
            last = exc
            if attempt < retry.attempts:
                retry.sleep(retry.delay(failures))
            failures += 1
            continue
        log.latency_ms += (time.perf_counter() - start) * 1000
        log.calls += 1
        text = message_text(reply)
        _count_tokens(log, prompt, text, getattr(reply, "usage_metadata", None))
        try:
            return parse(text)
        except (LLMOutputInvalid, ValueError, TypeError) as exc:
            last = exc
    if isinstance(last, (LLMOutputInvalid, ValueError, TypeError)):
        raise LLMOutputInvalid(f"after {retry.attempts} attempts no usable answer: {last}")
    raise LLMCallFailed(f"the chat model failed on all {retry.attempts} attempts; last error: "
                        f"{last!r}")


def _count_tokens(log: CallLog, prompt: str, text: str, usage: Any) -> None:
    if isinstance(usage, dict) and "input_tokens" in usage:
        log.input_tokens += int(usage.get("input_tokens") or 0)
        log.output_tokens += int(usage.get("output_tokens") or 0)
        log.token_sources.add("usage_metadata")
    else:
        log.input_tokens += len(prompt.split())
        log.output_tokens += len(text.split())
        log.token_sources.add("whitespace")


# -- parsers of replies ------------------------------------------------------------------

def parse_free_text(text: str) -> str:
    """A non-empty answer."""
    answer = text.strip()
    if not answer:
        raise LLMOutputInvalid("the model gave an empty answer")
    return answer


def parse_locomo_label(text: str) -> bool:
    """CORRECT -> True, WRONG -> False, from the JSON ``label`` or a bare word."""
    try:
        value = extract_json(text)
        label = str(value.get("label", "")) if isinstance(value, dict) else ""
    except LLMOutputInvalid:
        label = ""
    if not label:
        found = {w for w in ("CORRECT", "WRONG") if w in text.upper()}
        if len(found) != 1:
            raise LLMOutputInvalid(f"no CORRECT/WRONG label in {text[:200]!r}")
        label = found.pop()
    label = label.strip().upper()
    if label not in ("CORRECT", "WRONG"):
        raise LLMOutputInvalid(f"label {label!r} is neither CORRECT nor WRONG")
    return label == "CORRECT"


def parse_yes_no(text: str) -> bool:
    """LongMemEval's rule: correct when 'yes' appears in the reply."""
    return "yes" in text.lower()


def parse_xml_yes_no(text: str) -> bool:
    """PrefEval's ``<answer>Yes</answer>``."""
    match = _XML_ANSWER.search(text)
    if not match:
        raise LLMOutputInvalid(f"no <answer>Yes/No</answer> in {text[:200]!r}")
    return match.group(1).lower() == "yes"


def parse_acknowledgement(text: str) -> tuple[bool, str]:
    """(acknowledged, the quoted preference sentence or '')."""
    quoted = _XML_PREFERENCE.search(text)
    return parse_xml_yes_no(text), (quoted.group(1).strip() if quoted else "")


def parse_option_label(text: str) -> str:
    """The letter after ``<final_answer>``, else the last ``(x)`` in the reply."""
    match = _FINAL.search(text)
    if match:
        return match.group(1).lower()
    labels = _LABEL.findall(text)
    if not labels:
        raise LLMOutputInvalid(f"no option label such as (a) in {text[:200]!r}")
    return labels[-1].lower()


# -- per-benchmark protocols ---------------------------------------------------------------

def format_memories(memories: Sequence[str]) -> str:
    """Numbered memories, best first."""
    if not memories:
        return "(no memories recalled)"
    return "\n".join(f"{i}. {text}" for i, text in enumerate(memories, start=1))


def answer_and_judge(chat_model: Any, unit: Unit, question: Question, memories: Sequence[str],
                     *, retry: RetryPolicy | None = None) -> dict[str, Any]:
    """Answer ``question`` from ``memories`` and judge it; never raises for LLM failures."""
    log = CallLog()
    record: dict[str, Any] = {"answer": None, "correct": None, "failed": False}
    judge = _JUDGES[unit.benchmark]
    try:
        record.update(judge(chat_model, unit, question, memories, log, retry))
    except LLMError as exc:
        record.update(failed=True, correct=None, error=str(exc)[:500])
    record.update(log.as_dict())
    return record


def _judge_locomo(model, unit, question, memories, log, retry) -> dict[str, Any]:
    asker = question.asker or unit.agents[0]
    answer = invoke_parsed(model, prompts.ANSWER.format(
        asker=asker, memories=format_memories(memories), question=question.text),
        parse_free_text, log, retry=retry)
    gold = prompts.LOCOMO_ABSTENTION_GOLD if question.abstention else (question.answer or "")
    correct = invoke_parsed(model, prompts.LOCOMO_JUDGE.format(
        question=question.text, gold=gold, response=answer), parse_locomo_label, log, retry=retry)
    return {"answer": answer, "correct": correct}


def _judge_longmemeval(model, unit, question, memories, log, retry) -> dict[str, Any]:
    answer = invoke_parsed(model, prompts.ANSWER.format(
        asker="the assistant", memories=format_memories(memories), question=question.text),
        parse_free_text, log, retry=retry)
    template = (prompts.LONGMEMEVAL_JUDGE_ABSTENTION if question.abstention
                else prompts.LONGMEMEVAL_JUDGES.get(question.category,
                                                    prompts.LONGMEMEVAL_JUDGE_DEFAULT))
    correct = invoke_parsed(model, template.format(
        question=question.text, gold=question.answer or "", response=answer),
        parse_yes_no, log, retry=retry)
    return {"answer": answer, "correct": correct}


def _judge_personamem(model, unit, question, memories, log, retry) -> dict[str, Any]:
    label = invoke_parsed(model, prompts.PERSONAMEM_CHOICE.format(
        memories=format_memories(memories), question=question.text,
        options="\n".join(question.options)), parse_option_label, log, retry=retry)
    chosen = ord(label) - ord("a")
    return {"answer": f"({label})", "choice": chosen,
            "correct": chosen == question.correct_option}


def _judge_prefeval(model, unit, question, memories, log, retry) -> dict[str, Any]:
    preference = question.meta.get("preference", "")
    answer = invoke_parsed(model, prompts.PREFEVAL_ANSWER.format(
        memories=format_memories(memories), question=question.text),
        parse_free_text, log, retry=retry)
    fields = {"preference": preference, "question": question.text, "response": answer}
    violates = invoke_parsed(model, prompts.PREFEVAL_VIOLATION.format(**fields),
                             parse_xml_yes_no, log, retry=retry)
    acknowledges, restatement = invoke_parsed(
        model, prompts.PREFEVAL_ACKNOWLEDGEMENT.format(**fields), parse_acknowledgement, log,
        retry=retry)
    hallucinates = False
    if acknowledges and restatement:
        hallucinates = invoke_parsed(model, prompts.PREFEVAL_HALLUCINATION.format(
            preference=preference, restatement=restatement), parse_xml_yes_no, log, retry=retry)
    helpful = invoke_parsed(model, prompts.PREFEVAL_HELPFULNESS.format(**fields),
                            parse_xml_yes_no, log, retry=retry)
    error_type = classify_prefeval(violates=violates, acknowledges=acknowledges,
                                   hallucinates=hallucinates, helpful=helpful)
    return {"answer": answer, "error_type": error_type, "correct": error_type == "personalised",
            "checks": {"violates": violates, "acknowledges": acknowledges,
                       "restatement": restatement, "hallucinates": hallucinates,
                       "helpful": helpful}}


def classify_prefeval(*, violates: bool, acknowledges: bool, hallucinates: bool,
                      helpful: bool) -> str:
    """PrefEval's error type of one reply.

    An acknowledged but wrong preference is a hallucination; a violation without any
    acknowledgement is preference-unaware, with one an inconsistency; a reply that keeps
    the preference but gives nothing of substance is unhelpful; else personalised.
    """
    if acknowledges and hallucinates:
        return "hallucinated_preference"
    if violates:
        return "inconsistency" if acknowledges else "preference_unaware"
    if not helpful:
        return "unhelpful"
    return "personalised"


_JUDGES: dict[str, Callable[..., dict[str, Any]]] = {
    "locomo": _judge_locomo, "longmemeval": _judge_longmemeval,
    "personamem": _judge_personamem, "prefeval": _judge_prefeval,
}


def summarise_llm(rows: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Accuracy over answered questions (failed ones are counted apart, not as wrong)."""
    answered = [(cat, r) for cat, r in rows if not r.get("failed")]
    by_cat: dict[str, list[float]] = defaultdict(list)
    for cat, r in answered:
        by_cat[cat].append(float(bool(r["correct"])))
    latencies = [r.get("latency_ms", 0.0) for _, r in rows]
    sources = sorted({r.get("token_count", "none") for _, r in rows})
    summary: dict[str, Any] = {
        "accuracy": mean(float(bool(r["correct"])) for _, r in answered),
        "answered": len(answered), "failed": len(rows) - len(answered),
        "by_category": {cat: {"n": len(v), "accuracy": mean(v)} for cat, v in sorted(by_cat.items())},
        "tokens": {"input": sum(r.get("input_tokens", 0) for _, r in rows),
                   "output": sum(r.get("output_tokens", 0) for _, r in rows),
                   "counted_by": "/".join(sources)},
        "latency_ms_per_question": {"p50": percentile(latencies, 50),
                                    "p95": percentile(latencies, 95)},
    }
    types = Counter(r["error_type"] for _, r in answered if "error_type" in r)
    if types:
        summary["error_types"] = {t: types.get(t, 0) for t in ERROR_TYPES}
        summary["personalised_rate"] = types.get("personalised", 0) / len(answered)
    return summary
