"""Answer questions from recalled memories with an LLM and judge them by each benchmark's rule.

    answer_and_judge(chat_model, unit, question, memories) -> record
        LoCoMo       answer; categories 1-4 then mem0's judge: correct when the reply's JSON
                     ``label`` is exactly "CORRECT". Category 5 (adversarial) is scored by
                     LoCoMo's own rule (the answer says "not mentioned" or "no information
                     available") and kept out of ``accuracy``, which mem0's judge skips.
        LongMemEval  answer, then the judge prompt of the question's type (the abstention
                     prompt for ``_abs`` questions): correct when "yes" is in the reply
        PersonaMem   the model picks an option; correct when the options named after
                     ``<final_answer>`` (else anywhere in the reply) are exactly the right one
        PrefEval     answer, then the four checks -> personalised, preference_unaware,
                     hallucinated_preference, inconsistency or unhelpful (`classify_prefeval`);
                     correct = personalised, PrefEval's "preference following accuracy"
    summarise_llm([(category, record), ...]) -> accuracy overall and by category, failed
        questions, tokens, latency, PrefEval error types and personalised rate

The prompts and the reading of each reply follow the upstream files named in
`graphmem.evaluation.prompts`. Where graphmem departs from them, it is here:

* every call goes through `graphmem.llm.invoke_text` and is retried with backoff; when a
  call still fails the question is recorded as failed (``correct`` None, never False) and
  the run goes on. Only mem0's label is re-asked when unreadable (upstream's
  ``json.loads(...)["label"]`` would stop the run); the other judges never reject a reply,
  as upstream: no "yes" is a no, no ``<answer>`` tag is an empty answer, no option is wrong.
* the judges' sampling settings are the chat model's configuration, not set here; upstream
  uses temperature 0 (LongMemEval: max_tokens 10; PrefEval: Claude 3 Sonnet, max_tokens 100;
  mem0: gpt-4o-mini in JSON mode, so its JSON is found here in a reply with text around it).
* PrefEval's hallucination check is asked only when the reply acknowledges a preference;
  upstream asks it always but ignores it otherwise, so the verdicts are the same.

Token counts come from the reply's ``usage_metadata`` when the model gives it, else they
are whitespace-separated words of prompt and reply, and the record says which.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graphmem.evaluation import prompts
from graphmem.evaluation.metrics import mean, percentile
from graphmem.ingestion.benchmarks.model import Question, Unit
from graphmem.llm import (LLMError, LLMOutputInvalid, RetryPolicy, extract_json, invoke_text,
                          message_text)

__all__ = ["answer_and_judge", "classify_prefeval", "summarise_llm"]

T = TypeVar("T")
#: a prompt is a user message, or (role, text) messages as langchain chat models take them
Prompt = str | list[tuple[str, str]]
ERROR_TYPES = ("personalised", "preference_unaware", "hallucinated_preference",
               "inconsistency", "unhelpful")
_IN_PARENS = re.compile(r"\(([a-d])\)")
_BARE_LETTER = re.compile(r"\b([a-d])\b")
_OPTION_HEAD = re.compile(r"\s*\(([a-z])\)", re.IGNORECASE)
_MARKUP = re.compile(r"<[^>]+>")


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


def ask(chat_model: Any, prompt: Prompt, parse: Callable[[str], T], log: CallLog, *,
        retry: RetryPolicy | None = None) -> T:
    """`graphmem.llm.invoke_text`, adding each attempt's time and tokens to ``log``."""
    def observe(reply: Any, seconds: float) -> None:
        log.latency_ms += seconds * 1000
        if reply is not None:
            log.calls += 1
            _count_tokens(log, prompt, reply)

    return invoke_text(chat_model, prompt, parse=parse, retry=retry, observe=observe)


def _count_tokens(log: CallLog, prompt: Prompt, reply: Any) -> None:
    usage = getattr(reply, "usage_metadata", None)
    if isinstance(usage, dict) and "input_tokens" in usage:
        log.input_tokens += int(usage.get("input_tokens") or 0)
        log.output_tokens += int(usage.get("output_tokens") or 0)
        log.token_sources.add("usage_metadata")
        return
    try:
        text = message_text(reply)
    except LLMOutputInvalid:
        text = ""
    sent = prompt if isinstance(prompt, str) else "\n".join(part for _, part in prompt)
    log.input_tokens += len(sent.split())
    log.output_tokens += len(text.split())
    log.token_sources.add("whitespace")


# -- reading replies, as upstream does ----------------------------------------------------

def parse_free_text(text: str) -> str:
    """A non-empty answer."""
    answer = text.strip()
    if not answer:
        raise LLMOutputInvalid("the model gave an empty answer")
    return answer


def parse_mem0_label(text: str) -> bool:
    """mem0: ``json.loads(extract_json(reply))["label"]``; correct only when it is "CORRECT".

    Any other label is WRONG, as upstream. A reply without a JSON object holding ``label``
    is unusable (upstream stops there) and is asked again.
    """
    value = extract_json(text)
    if not isinstance(value, dict) or "label" not in value:
        raise LLMOutputInvalid(f'no JSON object with a "label" in {text[:200]!r}')
    return value["label"] == "CORRECT"


def locomo_abstains(answer: str) -> bool:
    """LoCoMo's category 5 rule: the answer says the conversation does not tell."""
    lowered = answer.lower()
    return any(phrase in lowered for phrase in prompts.LOCOMO_ABSTENTION_PHRASES)


def parse_yes_no(text: str) -> bool:
    """LongMemEval: ``'yes' in reply.strip().lower()``."""
    return "yes" in text.strip().lower()


def xml_field(text: str, tag: str) -> str:
    """The stripped text of the first ``<tag>`` ('' when there is none), as PrefEval's
    BeautifulSoup lookup gives it; an unclosed tag runs to the end of the reply."""
    match = re.search(rf"<{tag}\b[^>]*>(.*?)(?:</{tag}\s*>|\Z)", text,
                      re.IGNORECASE | re.DOTALL)
    return _MARKUP.sub("", match.group(1)).strip() if match else ""


def parse_prefeval_answer(text: str) -> str:
    """The ``<answer>`` of a PrefEval check, verbatim."""
    return xml_field(text, "answer")


def parse_prefeval_acknowledgement(text: str) -> tuple[str, str]:
    """(``<answer>``, ``<preference>``) of the acknowledgement check."""
    return xml_field(text, "answer"), xml_field(text, "preference")


def personamem_final_answer(reply: str) -> str:
    """The text after the last ``<final_answer>`` (the whole reply when there is none)."""
    predicted = reply.strip()
    if "<final_answer>" in predicted:
        predicted = predicted.split("<final_answer>")[-1].strip()
    if predicted.endswith("</final_answer>"):
        predicted = predicted[:-len("</final_answer>")].strip()
    return predicted


def personamem_options(text: str) -> set[str]:
    """The option letters a text names: ``(x)`` forms, else bare letters a-d."""
    lowered = text.lower()
    return set(_IN_PARENS.findall(lowered)) or set(_BARE_LETTER.findall(lowered))


def personamem_correct(reply: str, correct_label: str) -> bool:
    """PersonaMem ``extract_answer``: the final answer, else the whole reply, names exactly
    the correct option."""
    correct = correct_label.lower().strip("() ")
    return (personamem_options(personamem_final_answer(reply)) == {correct}
            or personamem_options(reply) == {correct})


def prefeval_flags(*, acknowledge: str, violate: str, hallucinate: str,
                   helpful: str) -> dict[str, bool]:
    """PrefEval's reading of the four ``<answer>`` texts (substring tests, lower-cased)."""
    acknowledges = "yes" in acknowledge.lower()
    return {"violates": "yes" in violate.lower(), "acknowledges": acknowledges,
            "hallucinates": acknowledges and "yes" in hallucinate.lower(),
            "helpful": "no" not in helpful.lower()}


def classify_prefeval(*, violates: bool, acknowledges: bool, hallucinates: bool,
                      helpful: bool) -> str:
    """PrefEval's error type of one reply (get_preference_following_accuracy_generation_task).

    An unhelpful reply is unhelpful whatever else holds. A helpful reply that violates the
    preference is preference-unaware when it acknowledges none, a hallucinated-preference
    violation when the preference it restates is wrong, else an inconsistency. Every other
    reply is personalised: a wrong restatement without a violation is not an error.
    """
    if not helpful:
        return "unhelpful"
    if not violates:
        return "personalised"
    if not acknowledges:
        return "preference_unaware"
    return "hallucinated_preference" if hallucinates else "inconsistency"


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
    answer = ask(model, prompts.ANSWER.format(
        asker=asker, memories=format_memories(memories), question=question.text),
        parse_free_text, log, retry=retry)
    if question.abstention:  # category 5: mem0 does not judge it; LoCoMo's rule does
        return {"answer": answer, "correct": locomo_abstains(answer),
                "judge": "locomo_category5_rule", "in_accuracy": False}
    correct = ask(model, prompts.LOCOMO_JUDGE.format(
        question=question.text, gold_answer=question.answer or "", generated_answer=answer),
        parse_mem0_label, log, retry=retry)
    return {"answer": answer, "correct": correct, "judge": "mem0_llm_judge"}


def _judge_longmemeval(model, unit, question, memories, log, retry) -> dict[str, Any]:
    template = (prompts.LONGMEMEVAL_JUDGE_ABSTENTION if question.abstention
                else prompts.LONGMEMEVAL_JUDGES.get(question.category))
    if template is None:
        raise ValueError(f"LongMemEval question {question.id} has question_type "
                         f"{question.category!r}, which has no judge prompt upstream; "
                         f"known: {', '.join(prompts.LONGMEMEVAL_JUDGES)}")
    answer = ask(model, prompts.ANSWER.format(
        asker="the assistant", memories=format_memories(memories), question=question.text),
        parse_free_text, log, retry=retry)
    correct = ask(model, template.format(question.text, question.answer or "", answer),
                  parse_yes_no, log, retry=retry)
    return {"answer": answer, "correct": correct}


def _judge_personamem(model, unit, question, memories, log, retry) -> dict[str, Any]:
    # str() of the option list is the CSV's all_options cell, which upstream sends as is
    options = str(list(question.options))
    reply = ask(model, [
        ("system", prompts.PERSONAMEM_MEMORIES.format(memories=format_memories(memories))),
        ("human", prompts.PERSONAMEM_QUESTION.format(question=question.text, options=options)),
    ], str, log, retry=retry)
    named = personamem_options(personamem_final_answer(reply))
    choice = ord(named.pop()) - ord("a") if len(named) == 1 else None
    correct = personamem_correct(reply, _option_label(question))
    return {"answer": personamem_final_answer(reply), "choice": choice, "correct": correct}


def _option_label(question: Question) -> str:
    """``"(c)"`` for the correct option: its own ``(x)`` head, else its position."""
    index = question.correct_option
    if index is None:
        raise ValueError("a PersonaMem question without a correct option cannot be judged")
    head = _OPTION_HEAD.match(question.options[index])
    return f"({head.group(1).lower() if head else chr(ord('a') + index)})"


def _judge_prefeval(model, unit, question, memories, log, retry) -> dict[str, Any]:
    preference = question.meta.get("preference", "")
    answer = ask(model, prompts.PREFEVAL_ANSWER.format(
        memories=format_memories(memories), question=question.text),
        parse_free_text, log, retry=retry)

    def check(template: str, parse: Callable[[str], T], **fields: str) -> T:
        messages = [("system", prompts.PREFEVAL_JUDGE_SYSTEM),
                    ("human", template.format(**fields))]
        return ask(model, messages, parse, log, retry=retry)

    acknowledge, restatement = check(prompts.PREFEVAL_ACKNOWLEDGEMENT,
                                     parse_prefeval_acknowledgement,
                                     question=question.text, response=answer)
    violate = check(prompts.PREFEVAL_VIOLATION, parse_prefeval_answer,
                    preference=preference, question=question.text, response=answer)
    hallucinate = ""
    if "yes" in acknowledge.lower():
        hallucinate = check(prompts.PREFEVAL_HALLUCINATION, parse_prefeval_answer,
                            preference=preference, restatement=restatement)
    helpful = check(prompts.PREFEVAL_HELPFULNESS, parse_prefeval_answer,
                    question=question.text, response=answer)
    flags = prefeval_flags(acknowledge=acknowledge, violate=violate, hallucinate=hallucinate,
                           helpful=helpful)
    error_type = classify_prefeval(**flags)
    return {"answer": answer, "error_type": error_type, "correct": error_type == "personalised",
            "checks": {**flags, "restatement": restatement,
                       "answers": {"acknow": acknowledge, "violate": violate,
                                   "hallucinate": hallucinate, "helpful": helpful}}}


_JUDGES: dict[str, Callable[..., dict[str, Any]]] = {
    "locomo": _judge_locomo, "longmemeval": _judge_longmemeval,
    "personamem": _judge_personamem, "prefeval": _judge_prefeval,
}


def summarise_llm(rows: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Accuracy over answered questions (failed ones are counted apart, not as wrong).

    Records marked ``in_accuracy: False`` (LoCoMo category 5) count in their category but
    not in the overall ``accuracy``, as in mem0's LoCoMo numbers.
    """
    answered = [(cat, r) for cat, r in rows if not r.get("failed")]
    scored = [r for _, r in answered if r.get("in_accuracy", True)]
    by_cat: dict[str, list[float]] = defaultdict(list)
    for cat, r in answered:
        by_cat[cat].append(float(bool(r["correct"])))
    latencies = [r.get("latency_ms", 0.0) for _, r in rows]
    sources = sorted({r.get("token_count", "none") for _, r in rows})
    summary: dict[str, Any] = {
        "accuracy": mean(float(bool(r["correct"])) for r in scored),
        "answered": len(answered), "failed": len(rows) - len(answered),
        "by_category": {cat: {"n": len(v), "accuracy": mean(v)} for cat, v in sorted(by_cat.items())},
        "tokens": {"input": sum(r.get("input_tokens", 0) for _, r in rows),
                   "output": sum(r.get("output_tokens", 0) for _, r in rows),
                   "counted_by": "/".join(sources)},
        "latency_ms_per_question": {"p50": percentile(latencies, 50),
                                    "p95": percentile(latencies, 95)},
    }
    if len(scored) < len(answered):
        summary["not_in_accuracy"] = len(answered) - len(scored)
    types = Counter(r["error_type"] for _, r in answered if "error_type" in r)
    if types:
        summary["error_types"] = {t: types.get(t, 0) for t in ERROR_TYPES}
        summary["personalised_rate"] = types.get("personalised", 0) / len(answered)
    return summary
