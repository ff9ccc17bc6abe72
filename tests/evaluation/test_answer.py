"""LLM answering and judging with scripted fake chat models: prompts sent, verdicts parsed."""

from __future__ import annotations

import csv
import dataclasses
import json

import pytest
from langchain_core.language_models.fake_chat_models import (FakeListChatModel,
                                                             GenericFakeChatModel)
from langchain_core.messages import AIMessage

from graphmem.evaluation import prompts
from graphmem.evaluation.answer import answer_and_judge, classify_prefeval, summarise_llm
from graphmem.evaluation.runner import EvalOptions, run_evaluation
from graphmem.ingestion.benchmarks import load_longmemeval, load_personamem
from graphmem.ingestion.benchmarks.model import Question, Unit
from graphmem.llm import RetryPolicy

from .conftest import LONGMEMEVAL, PERSONAMEM

NO_WAIT = RetryPolicy(attempts=2, sleep=lambda seconds: None)


class Recording:
    """A chat model wrapper that keeps every prompt it was sent."""

    def __init__(self, model) -> None:
        self.model, self.prompts = model, []

    def invoke(self, prompt):
        self.prompts.append(prompt)
        return self.model.invoke(prompt)


class Failing:
    """A provider that is down."""

    def __init__(self) -> None:
        self.calls = 0

    def invoke(self, prompt):
        self.calls += 1
        raise ConnectionError("503 service unavailable")


def locomo_unit(category: str = "2", abstention: bool = False) -> tuple[Unit, Question]:
    q = Question(id="conv-26:q0", text="When did Caroline go to the LGBTQ support group?",
                 category=category, evidence=("D1:3",), answer="7 May 2023", asked_at=None,
                 asker=None, abstention=abstention)
    unit = Unit(id="conv-26", benchmark="locomo", agents=("Caroline", "Melanie"), turns=(),
                questions=(q,))
    return unit, q


def test_locomo_answer_then_mem0_judge():
    model = Recording(FakeListChatModel(responses=[
        "On 7 May 2023.", 'The dates agree.\n{"label": "CORRECT"}']))
    unit, question = locomo_unit()
    record = answer_and_judge(model, unit, question, ["Caroline went to a LGBTQ support "
                                                      "group yesterday."], retry=NO_WAIT)
    assert record["answer"] == "On 7 May 2023." and record["correct"] is True
    assert not record["failed"] and record["calls"] == 2 and record["judge"] == "mem0_llm_judge"
    answer_prompt, judge_prompt = model.prompts
    assert answer_prompt.startswith("You are Caroline.")  # asked by speaker_a
    assert "1. Caroline went to a LGBTQ support group yesterday." in answer_prompt
    # mem0's ACCURACY_PROMPT, one user message, curly quotes and all
    assert judge_prompt.startswith("\nYour task is to label an answer to a question as "
                                   "\u2019CORRECT\u2019 or \u2019WRONG\u2019.")
    assert ("Question: When did Caroline go to the LGBTQ support group?\n"
            "Gold answer: 7 May 2023\nGenerated answer: On 7 May 2023.\n") in judge_prompt
    assert record["token_count"] == "whitespace"
    assert record["input_tokens"] == len(answer_prompt.split()) + len(judge_prompt.split())


@pytest.mark.parametrize("verdict, correct, calls", [
    ('{"label": "WRONG"}', False, 2),
    ('```json\n{"label": "CORRECT", "reason": "same date"}\n```', True, 2),
    ('{"label": "correct"}', False, 2),   # mem0 compares with == "CORRECT"
    ('{"label": "PARTIAL"}', False, 2),   # any label but CORRECT is WRONG
])
def test_mem0_label_is_read_as_upstream(verdict, correct, calls):
    model = Recording(FakeListChatModel(responses=["On 7 May 2023.", verdict]))
    unit, question = locomo_unit()
    record = answer_and_judge(model, unit, question, ["m"], retry=NO_WAIT)
    assert record["correct"] is correct and record["calls"] == calls


def test_mem0_label_without_json_is_asked_again_then_fails():
    """A bare CORRECT is no label to mem0 (its json.loads would stop the run)."""
    model = Recording(FakeListChatModel(responses=["On 7 May 2023.", "CORRECT", "CORRECT"]))
    unit, question = locomo_unit()
    record = answer_and_judge(model, unit, question, ["m"], retry=NO_WAIT)
    assert record["failed"] is True and record["correct"] is None
    assert model.prompts[1] == model.prompts[2] and "no JSON" in record["error"]


@pytest.mark.parametrize("answer, correct", [
    ("Not mentioned in the conversation", True),
    ("There is no information available about that.", True),
    ("She never said.", False),           # LoCoMo's rule looks for the two phrases only
    ("self-care is important", False),
])
def test_locomo_category5_is_scored_by_locomos_rule_and_left_out_of_accuracy(answer, correct):
    model = Recording(FakeListChatModel(responses=[answer]))
    unit, question = locomo_unit("5", abstention=True)
    record = answer_and_judge(model, unit, question, [], retry=NO_WAIT)
    assert record["correct"] is correct and record["calls"] == 1  # no judge call
    assert record["judge"] == "locomo_category5_rule" and record["in_accuracy"] is False
    assert "(no memories recalled)" in model.prompts[0]
    summary = summarise_llm([("5", record), ("2", {"correct": False, "failed": False})])
    assert summary["accuracy"] == 0.0 and summary["not_in_accuracy"] == 1
    assert summary["by_category"]["5"] == {"n": 1, "accuracy": float(correct)}


def test_failed_calls_mark_the_question_failed_not_wrong():
    model = Failing()
    unit, question = locomo_unit()
    record = answer_and_judge(model, unit, question, ["x"], retry=NO_WAIT)
    assert record["failed"] is True and record["correct"] is None
    assert "503" in record["error"] and model.calls == 2
    assert record["calls"] == 0 and record["latency_ms"] >= 0.0
    summary = summarise_llm([("2", record), ("2", {"correct": True, "failed": False,
                                                  "latency_ms": 1.0})])
    assert summary["failed"] == 1 and summary["answered"] == 1 and summary["accuracy"] == 1.0
    assert "not_in_accuracy" not in summary


def longmemeval_units():
    units = load_longmemeval(LONGMEMEVAL).units
    by_type = {u.questions[0].category: u for u in units if not u.questions[0].abstention}
    return by_type, next(u for u in units if u.questions[0].abstention)


@pytest.mark.parametrize("question_type, template", [
    ("single-session-user", prompts.LONGMEMEVAL_JUDGE_DEFAULT),
    ("multi-session", prompts.LONGMEMEVAL_JUDGE_DEFAULT),
    ("single-session-assistant", prompts.LONGMEMEVAL_JUDGE_DEFAULT),
    ("temporal-reasoning", prompts.LONGMEMEVAL_JUDGE_TEMPORAL),
    ("knowledge-update", prompts.LONGMEMEVAL_JUDGE_KNOWLEDGE_UPDATE),
    ("single-session-preference", prompts.LONGMEMEVAL_JUDGE_PREFERENCE),
])
def test_longmemeval_sends_the_question_types_prompt(question_type, template):
    unit = longmemeval_units()[0]["single-session-user"]  # the fixture's multi-session is _abs
    question = dataclasses.replace(unit.questions[0], category=question_type)
    model = Recording(FakeListChatModel(responses=["three days", "Yes."]))
    record = answer_and_judge(model, unit, question, ["m"], retry=NO_WAIT)
    assert record["correct"] is True
    # get_anscheck_prompt's template.format(question, answer, response), one user message
    assert model.prompts[1] == template.format(question.text, question.answer, "three days")


@pytest.mark.parametrize("reply, correct", [
    ("yes", True), ("Yes.", True), (" YES ", True), ("no", False), ("No.", False),
    ("I cannot tell", False),            # no 'yes' is a no; never asked again
    ("Eyes on the answer: no", True),    # upstream's substring test, quirks included
])
def test_longmemeval_verdict_is_yes_in_reply(reply, correct):
    unit = longmemeval_units()[0]["single-session-user"]
    model = Recording(FakeListChatModel(responses=["Business Administration", reply]))
    record = answer_and_judge(model, unit, unit.questions[0], ["m"], retry=NO_WAIT)
    assert record["correct"] is correct and record["calls"] == 2


def test_longmemeval_abstention_prompt_and_unknown_types():
    abstaining = longmemeval_units()[1]
    question = abstaining.questions[0]
    model = Recording(FakeListChatModel(responses=["I don't know", "no"]))
    record = answer_and_judge(model, abstaining, question, [], retry=NO_WAIT)
    assert record["correct"] is False
    assert model.prompts[1] == prompts.LONGMEMEVAL_JUDGE_ABSTENTION.format(
        question.text, question.answer, "I don't know")

    unit = longmemeval_units()[0]["single-session-user"]
    odd = dataclasses.replace(unit.questions[0], category="multi-hop")
    with pytest.raises(ValueError, match="no judge prompt upstream"):
        answer_and_judge(Failing(), unit, odd, [], retry=NO_WAIT)


def personamem_first():
    unit = load_personamem(PERSONAMEM).units[0]
    with PERSONAMEM.open(newline="", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    return unit, unit.questions[0], row  # correct option (c)


def test_personamem_sends_upstreams_user_message_and_reads_usage_tokens():
    unit, question, row = personamem_first()
    reply = AIMessage(content="Reasoning... <final_answer>(c)",
                      usage_metadata={"input_tokens": 120, "output_tokens": 9,
                                      "total_tokens": 129})
    model = Recording(GenericFakeChatModel(messages=iter([reply])))
    record = answer_and_judge(model, unit, question, ["The user likes therapy."],
                              retry=NO_WAIT)
    assert record["choice"] == 2 and record["correct"] is True and record["answer"] == "(c)"
    (memories_role, memories), (user_role, user_message) = model.prompts[0]
    assert (memories_role, user_role) == ("system", "human")
    assert "1. The user likes therapy." in memories
    # query_llm: question + '\n\n' + instructions + '\n\n' + all_options (the CSV cell)
    assert user_message == (row["user_question_or_message"] + "\n\n"
                            + prompts.PERSONAMEM_INSTRUCTION + "\n\n" + row["all_options"])
    assert (record["input_tokens"], record["output_tokens"]) == (120, 9)
    assert record["token_count"] == "usage_metadata"


@pytest.mark.parametrize("reply, correct, choice", [
    ("<final_answer>(c)</final_answer>", True, 2),
    ("(a) fits less than (c). <final_answer> (c)", True, 2),  # only the final answer counts
    ("<final_answer> c", True, 2),                            # bare letters when no (x)
    ("The answer is (c)", True, 2),                           # no token: the whole reply
    ("Either (a) or (c).", False, None),                      # two options named
    ("<final_answer>(b)", False, 1),
    ("I can't choose.", False, None),                         # no option: wrong, not retried
])
def test_personamem_answer_is_extracted_as_upstream(reply, correct, choice):
    unit, question, _ = personamem_first()
    model = Recording(FakeListChatModel(responses=[reply]))
    record = answer_and_judge(model, unit, question, [], retry=NO_WAIT)
    assert record["correct"] is correct and record["choice"] == choice
    assert record["calls"] == 1 and not record["failed"]


def prefeval_unit() -> tuple[Unit, Question]:
    q = Question(id="p:q", text="Can you suggest a dinner spot?", category="travel_restaurant",
                 evidence=("pref:0",), answer=None, asked_at=None, asker="user",
                 meta={"preference": "I avoid spicy food."})
    return Unit(id="p", benchmark="prefeval", agents=("user", "assistant"), turns=(),
                questions=(q,)), q


def test_prefeval_checks_are_sent_as_upstream():
    model = Recording(FakeListChatModel(responses=[
        "Since you avoid spicy food, try the Lebanese grill.",
        "<preference>Since you avoid spicy food</preference>\n<answer>Yes</answer>",
        "<explanation>respects it</explanation>\n<answer>No</answer>",
        "<explanation>same</explanation>\n<answer>No</answer>",
        "<explanation>concrete</explanation>\n<answer>Yes</answer>"]))
    unit, question = prefeval_unit()
    record = answer_and_judge(model, unit, question, ["user: I avoid spicy food."],
                              retry=NO_WAIT)
    assert record["error_type"] == "personalised" and record["correct"] is True
    assert record["checks"]["restatement"] == "Since you avoid spicy food"
    answer_prompt, *checks = model.prompts
    assert "1. user: I avoid spicy food." in answer_prompt
    # upstream order acknow, violate, hallucinate, helpful; each a system + user message
    assert [m[0][1] for m in checks] == [prompts.PREFEVAL_JUDGE_SYSTEM] * 4
    acknow, violate, hallucinate, helpful = (m[1][1] for m in checks)
    assert "Assistant response: Since you avoid spicy food, try" in acknow
    assert "User's preference: I avoid spicy food." in violate
    assert ('Original user preference: "I avoid spicy food." \n'
            'Assistant\'s restatement: "Since you avoid spicy food" \n') in hallucinate
    assert helpful.startswith(prompts.PREFEVAL_HELPFULNESS.split("{question}")[0])
    summary = summarise_llm([("travel_restaurant", record)])
    assert summary["personalised_rate"] == 1.0
    assert summary["error_types"]["personalised"] == 1


def test_prefeval_skips_the_hallucination_check_without_acknowledgement():
    model = Recording(FakeListChatModel(responses=[
        "Try the Sichuan place.", "<preference></preference><answer>No</answer>",
        "<answer>Yes</answer>", "<answer>Yes</answer>"]))
    unit, question = prefeval_unit()
    record = answer_and_judge(model, unit, question, [], retry=NO_WAIT)
    assert record["calls"] == 4 and record["error_type"] == "preference_unaware"
    assert record["checks"]["answers"]["hallucinate"] == ""


def test_prefeval_reply_without_answer_tag_reads_as_empty_not_retried():
    """BeautifulSoup finds no <answer>: '' has no 'yes' (no violation) and no 'no' (helpful)."""
    model = Recording(FakeListChatModel(responses=[
        "Try the grill.", "none", "violates: yes", "I think it is fine"]))
    unit, question = prefeval_unit()
    record = answer_and_judge(model, unit, question, [], retry=NO_WAIT)
    assert record["calls"] == 4 and record["error_type"] == "personalised"
    assert record["checks"]["answers"] == {"acknow": "", "violate": "", "hallucinate": "",
                                           "helpful": ""}


@pytest.mark.parametrize("checks, expected", [
    # get_preference_following_accuracy_generation_task.analyze_errors
    ({"violates": True, "acknowledges": False, "hallucinates": False, "helpful": True},
     "preference_unaware"),
    ({"violates": True, "acknowledges": True, "hallucinates": False, "helpful": True},
     "inconsistency"),
    ({"violates": True, "acknowledges": True, "hallucinates": True, "helpful": True},
     "hallucinated_preference"),
    ({"violates": False, "acknowledges": True, "hallucinates": True, "helpful": True},
     "personalised"),      # a wrong restatement without a violation is no error upstream
    ({"violates": True, "acknowledges": False, "hallucinates": False, "helpful": False},
     "unhelpful"),         # unhelpful wins over every violation
    ({"violates": False, "acknowledges": False, "hallucinates": False, "helpful": False},
     "unhelpful"),
    ({"violates": False, "acknowledges": False, "hallucinates": False, "helpful": True},
     "personalised"),
])
def test_prefeval_error_types(checks, expected):
    assert classify_prefeval(**checks) == expected


@pytest.mark.slow
def test_run_with_llm_records_answers_and_keeps_retrieval(locomo_small, tmp_path):
    """Through the runner: 3 questions, the second one's calls all fail."""
    replies = iter(["7 May 2023", '{"label": "CORRECT"}', "In 2022", '{"label": "WRONG"}'])

    class Scripted:
        def __init__(self):
            self.prompts = []

        def invoke(self, prompt):
            self.prompts.append(prompt)
            if len(self.prompts) in (3, 4, 5):  # the second question's answer, 3 attempts
                raise TimeoutError("read timed out")
            return AIMessage(content=next(replies))

    model = Scripted()
    options = EvalOptions(benchmark="locomo", data=str(locomo_small), out=str(tmp_path / "r"),
                          systems=("graphmem",), progress=False, llm="tests:scripted")
    results = run_evaluation(options, chat_model=model,
                             retry=RetryPolicy(attempts=3, sleep=lambda seconds: None))
    llm_summary = results["systems"]["graphmem"]["llm"]
    assert llm_summary["failed"] == 1 and llm_summary["answered"] == 2
    assert llm_summary["accuracy"] == 0.5  # one CORRECT, one WRONG; the failure not counted
    rows = json.loads((tmp_path / "r" / "units.jsonl").read_text())["questions"]
    assert [r["llm"]["failed"] for r in rows] == [False, True, False]
    assert results["systems"]["graphmem"]["overall"]["n"] == 3  # retrieval scores intact
    assert "Gold answer: 7 May 2023" in model.prompts[1]
    assert "With an LLM" in (tmp_path / "r" / "results.md").read_text()
