"""The judge prompts are pinned to the upstream text they were checked against.

A judge prompt is part of a benchmark's protocol: a changed word makes the numbers
incomparable with published ones. Each digest below is of the template as copied from the
upstream file named beside it (compared character by character when it was copied); a
failing test means the template no longer matches upstream. Change a digest only after
comparing with upstream again, and update the citation in `graphmem.evaluation.prompts`.
"""

from __future__ import annotations

import hashlib

import pytest

from graphmem.evaluation import prompts

UPSTREAM = {
    # xiaowu0162/LongMemEval src/evaluation/evaluate_qa.py @ f466efe0
    "LONGMEMEVAL_JUDGE_DEFAULT": "fba020ba3d57982e",
    "LONGMEMEVAL_JUDGE_TEMPORAL": "8d33a5fdd83afeeb",
    "LONGMEMEVAL_JUDGE_KNOWLEDGE_UPDATE": "183a9b3a6197ec62",
    "LONGMEMEVAL_JUDGE_PREFERENCE": "741ee3bcbea7ff5e",
    "LONGMEMEVAL_JUDGE_ABSTENTION": "5c0b365a1e1d06db",
    # mem0ai/mem0 evaluation/metrics/llm_judge.py ACCURACY_PROMPT @ 2352a441
    "LOCOMO_JUDGE": "62395dd312a631df",
    # bowen-upenn/PersonaMem inference.py query_llm @ 2f465738
    "PERSONAMEM_INSTRUCTION": "7209bb4eacd76d1b",
    # zhucaroline18/OwnPrefEval (PrefEval) @ 5f3d3cd9: generation_task/
    # llm_based_evaluation_errortypes.py, error_type/check_hallucination.txt, check_helpful.txt
    # (the last two with their fields renamed: {restatement}, {response})
    "PREFEVAL_JUDGE_SYSTEM": "e4eefa754e8da84a",
    "PREFEVAL_HALLUCINATION": "9dbb6224d6db7a63",
    "PREFEVAL_HELPFULNESS": "f9d17a900060025e",
}


@pytest.mark.parametrize("name", sorted(UPSTREAM))
def test_judge_prompt_matches_upstream(name):
    text = getattr(prompts, name)
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == UPSTREAM[name]


def test_longmemeval_has_a_prompt_for_each_upstream_question_type():
    assert set(prompts.LONGMEMEVAL_JUDGES) == {
        "single-session-user", "single-session-assistant", "multi-session",
        "temporal-reasoning", "knowledge-update", "single-session-preference"}


def test_templates_take_exactly_the_fields_answer_fills():
    filled = {
        prompts.LOCOMO_JUDGE.format(question="Q?", gold_answer="G", generated_answer="R"),
        prompts.PREFEVAL_HALLUCINATION.format(preference="P", restatement="R"),
        prompts.PREFEVAL_HELPFULNESS.format(question="Q?", response="R"),
        prompts.PREFEVAL_VIOLATION.format(preference="P", question="Q?", response="R"),
        prompts.PREFEVAL_ACKNOWLEDGEMENT.format(question="Q?", response="R"),
        prompts.PERSONAMEM_QUESTION.format(question="Q?", options="['(a) x']"),
        *(t.format("Q?", "G", "R") for t in prompts.LONGMEMEVAL_JUDGES.values()),
        prompts.LONGMEMEVAL_JUDGE_ABSTENTION.format("Q?", "G", "R"),
    }
    assert all("{" not in text and "}" not in text for text in filled)
