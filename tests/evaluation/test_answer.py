"""LLM answering and judging with scripted fake chat models: prompts sent, verdicts parsed."""

from __future__ import annotations

import json

import pytest
from langchain_core.language_models.fake_chat_models import (FakeListChatModel,
                                                             GenericFakeChatModel)
from langchain_core.messages import AIMessage

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


def test_locomo_answer_then_judge():
    model = Recording(FakeListChatModel(responses=[
        "On 7 May 2023.", 'The dates agree. {"label": "CORRECT"}']))
    unit, question = locomo_unit()
    record = answer_and_judge(model, unit, question, ["Caroline went to a LGBTQ support "
                                                      "group yesterday."], retry=NO_WAIT)
    assert record["answer"] == "On 7 May 2023." and record["correct"] is True
    assert not record["failed"] and record["calls"] == 2
    answer_prompt, judge_prompt = model.prompts
    assert answer_prompt.startswith("You are Caroline.")  # asked by speaker_a
    assert "1. Caroline went to a LGBTQ support group yesterday." in answer_prompt
    assert "Gold answer: 7 May 2023" in judge_prompt
    assert "Generated answer: On 7 May 2023." in judge_prompt
    assert record["token_count"] == "whitespace"
    assert record["input_tokens"] == len(answer_prompt.split()) + len(judge_prompt.split())


def test_locomo_adversarial_is_judged_against_abstention_and_bad_labels_retried():
    model = Recording(FakeListChatModel(responses=[
        "She never said.", "I am not sure", '{"label": "WRONG"}']))
    unit, question = locomo_unit("5", abstention=True)
    record = answer_and_judge(model, unit, question, [], retry=NO_WAIT)
    assert record["correct"] is False and record["calls"] == 3
    assert "(no memories recalled)" in model.prompts[0]
    assert "Gold answer: Not mentioned in the conversation" in model.prompts[1]
    assert model.prompts[1] == model.prompts[2]  # an unusable verdict is asked again


def test_failed_calls_mark_the_question_failed_not_wrong():
    model = Failing()
    unit, question = locomo_unit()
    record = answer_and_judge(model, unit, question, ["x"], retry=NO_WAIT)
    assert record["failed"] is True and record["correct"] is None
    assert "503" in record["error"] and model.calls == 2
    summary = summarise_llm([("2", record), ("2", {"correct": True, "failed": False,
                                                  "latency_ms": 1.0})])
    assert summary["failed"] == 1 and summary["answered"] == 1 and summary["accuracy"] == 1.0


def test_longmemeval_uses_the_question_types_judge_prompt():
    units = load_longmemeval(LONGMEMEVAL).units
    by_type = {u.questions[0].category: u for u in units if not u.questions[0].abstention}
    model = Recording(FakeListChatModel(responses=["three days", "Yes."]))
    unit = by_type["temporal-reasoning"]
    record = answer_and_judge(model, unit, unit.questions[0], ["m"], retry=NO_WAIT)
    assert record["correct"] is True
    assert "do not penalize off-by-one errors" in model.prompts[1]
    assert f"Correct Answer: {unit.questions[0].answer}" in model.prompts[1]

    abstaining = next(u for u in units if u.questions[0].abstention)
    model = Recording(FakeListChatModel(responses=["I don't know", "no"]))
    record = answer_and_judge(model, abstaining, abstaining.questions[0], [], retry=NO_WAIT)
    assert record["correct"] is False
    assert "correctly identify the question as unanswerable" in model.prompts[1]


def test_personamem_option_match_and_usage_tokens():
    unit = load_personamem(PERSONAMEM).units[0]
    question = unit.questions[0]  # correct option (c)
    reply = AIMessage(content="Reasoning... <final_answer>(c)",
                      usage_metadata={"input_tokens": 120, "output_tokens": 9,
                                      "total_tokens": 129})
    model = Recording(GenericFakeChatModel(messages=iter([reply])))
    record = answer_and_judge(model, unit, question, ["The user likes therapy."],
                              retry=NO_WAIT)
    assert record["choice"] == 2 and record["correct"] is True
    assert question.options[0] in model.prompts[0] and "<final_answer>" in model.prompts[0]
    assert (record["input_tokens"], record["output_tokens"]) == (120, 9)
    assert record["token_count"] == "usage_metadata"


def prefeval_unit() -> tuple[Unit, Question]:
    q = Question(id="p:q", text="Can you suggest a dinner spot?", category="travel_restaurant",
                 evidence=("pref:0",), answer=None, asked_at=None, asker="user",
                 meta={"preference": "I avoid spicy food."})
    return Unit(id="p", benchmark="prefeval", agents=("user", "assistant"), turns=(),
                questions=(q,)), q


def test_prefeval_four_checks_give_the_error_type():
    model = Recording(FakeListChatModel(responses=[
        "Since you avoid spicy food, try the Lebanese grill.",
        "<explanation>respects it</explanation><answer>No</answer>",
        "<preference>Since you avoid spicy food</preference><answer>Yes</answer>",
        "<explanation>same</explanation><answer>No</answer>",
        "<explanation>concrete</explanation><answer>Yes</answer>"]))
    unit, question = prefeval_unit()
    record = answer_and_judge(model, unit, question, ["user: I avoid spicy food."],
                              retry=NO_WAIT)
    assert record["error_type"] == "personalised" and record["correct"] is True
    assert "User's preference: I avoid spicy food." in model.prompts[1]
    assert 'Assistant\'s restatement: "Since you avoid spicy food"' in model.prompts[3]
    summary = summarise_llm([("travel_restaurant", record)])
    assert summary["personalised_rate"] == 1.0
    assert summary["error_types"]["personalised"] == 1


@pytest.mark.parametrize("checks, expected", [
    ({"violates": True, "acknowledges": False, "hallucinates": False, "helpful": True},
     "preference_unaware"),
    ({"violates": True, "acknowledges": True, "hallucinates": False, "helpful": True},
     "inconsistency"),
    ({"violates": False, "acknowledges": True, "hallucinates": True, "helpful": True},
     "hallucinated_preference"),
    ({"violates": False, "acknowledges": False, "hallucinates": False, "helpful": False},
     "unhelpful"),
])
def test_prefeval_error_types(checks, expected):
    assert classify_prefeval(**checks) == expected


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
