"""Atomising deposits: sentence splitting, quotes kept whole, perspective, the LLM atomiser."""

from __future__ import annotations

from tests import fakes

import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.atomise import LLMAtomiser, atomise, quoted_spans, resolve_perspective, split_sentences
from graphmem.errors import GraphmemError
from graphmem.llm import LLMCallFailed, LLMOutputInvalid, RetryPolicy, extract_json

HAMLET = Path(__file__).resolve().parents[2] / "shared" / "data" / "hamlet" / "hamlet.tei.xml"
NO_WAIT = RetryPolicy(attempts=3, base_delay=0.0)


def recording_chat_model(responses: list[str], fail_first: int = 0) -> Any:
    return fakes.recording_chat_model(responses, fail_first, failure=ConnectionError)


# Sentence splitting -------------------------------------------------------------

def test_quoted_speech_stays_one_atom():
    text = 'Hamlet said: "To be, or not to be... that is the question. Whether ’tis nobler in the mind to suffer!"'
    assert atomise(text) == [text]


def test_text_after_a_closing_quote_is_its_own_atom():
    atoms = atomise('Barnardo asked: "Who’s there? Stand and unfold." Then Francisco answered him.')
    assert atoms == ['Barnardo asked: "Who’s there? Stand and unfold."', "Then Francisco answered him."]


def test_curly_quotes_are_kept_whole_too():
    atoms = atomise("“Who is there? Speak.” asked Barnardo on the platform.")
    assert atoms == ["“Who is there? Speak.” asked Barnardo on the platform."]


def test_unclosed_quote_runs_to_the_end():
    text = 'Ophelia said: "My lord. I have remembrances of yours. That I have longed long to redeliver.'
    assert atomise(text) == [text]
    assert quoted_spans(text) == [(14, len(text))]


def test_abbreviations_and_initials_do_not_end_sentences():
    atoms = split_sentences("Dr. Smith met Mr. J. Brown in St. Louis on Monday. They talked for hours about Vol. 2.")
    assert atoms == ["Dr. Smith met Mr. J. Brown in St. Louis on Monday.", "They talked for hours about Vol. 2."]


def test_ellipsis_splits_only_before_a_new_sentence():
    assert split_sentences("He paused... then went on with the story.") == ["He paused... then went on with the story."]
    assert split_sentences("He paused… The room went quiet.") == ["He paused…", "The room went quiet."]


def test_short_fragments_merge_into_a_neighbour():
    assert atomise("Yes. Okay. I went home after the party.", speaker="Caroline") == [
        "Yes. Okay. Caroline went home after the party."
    ]
    assert atomise("I went home after the party. Fine.") == ["I went home after the party. Fine."]
    assert atomise("Barnardo.") == ["Barnardo."]


def test_blank_text_gives_no_atoms_and_bad_type_is_refused():
    assert atomise("  \n ") == []
    with pytest.raises(TypeError, match="needs a str"):
        atomise(None)  # type: ignore[arg-type]


# Perspective --------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("I said it twice.", "Hamlet said it twice."),
    ("My sister saw me.", "Hamlet's sister saw Hamlet."),
    ("I am tired and I have a dog.", "Hamlet is tired and Hamlet has a dog."),
    ("I think I'm right, I do not doubt it.", "Hamlet thinks Hamlet is right, Hamlet does not doubt it."),
    ("I'd gone home. I'd like tea.", "Hamlet had gone home. Hamlet would like tea."),
    ("The fault is mine.", "The fault is Hamlet's."),
    ("Act I was long.", "Act I was long."),
])
def test_first_person_becomes_the_speaker(text, expected):
    assert resolve_perspective(text, "Hamlet") == expected


def test_quoted_speech_is_not_rewritten():
    atoms = atomise('I said: "I will not go, my lord." My sister heard it.', speaker="Hamlet")
    assert atoms == ['Hamlet said: "I will not go, my lord."', "Hamlet's sister heard it."]


def test_without_a_speaker_the_perspective_is_kept():
    assert atomise("I said I was tired.") == ["I said I was tired."]


def test_a_lower_case_speaker_name_does_not_hide_sentence_ends():
    text = "I painted the hull. I mended a torn sail. Then I slept."
    assert atomise(text, speaker="ana") == [
        "ana painted the hull.", "ana mended a torn sail.", "Then ana slept."]
    assert len(atomise(text, speaker="ana")) == len(atomise(text, speaker="Ana")) == 3


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["I went home.", "I'm tired now.", "My sister sang loudly.",
                                 "Then I slept well.", "Ben cooked dinner."]),
                min_size=1, max_size=6).map(" ".join))
def test_the_case_of_the_speakers_name_never_changes_the_split(text):
    lower = atomise(text, speaker="ana")
    upper = atomise(text, speaker="Ana")
    assert [a.replace("Ana", "ana") for a in upper] == lower


def test_two_witnesses_of_one_speech_read_alike():
    mine = atomise('I said: "Get thee to a nunnery."', speaker="Hamlet")
    heard = atomise('Hamlet said: "Get thee to a nunnery."', speaker="Ophelia")
    assert mine == heard == ['Hamlet said: "Get thee to a nunnery."']


# Invariants -----------------------------------------------------------------------

prose = st.lists(
    st.one_of(
        st.sampled_from(["I", "my", "me", "Dr.", "Mr.", "J.", "said", "went", "home", "...", "…",
                         "Hamlet", "the", "King", "no", "5", "p.m.", "etc."]),
        st.from_regex(r"[A-Za-z]{1,8}[.!?]?", fullmatch=True),
        st.from_regex(r'"[A-Za-z .!?]{0,30}"', fullmatch=True),
    ),
    min_size=1, max_size=30,
).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(prose)
def test_atomising_without_a_speaker_keeps_every_word_in_order(text):
    atoms = atomise(text)
    assert " ".join(atoms).split() == text.split()
    assert all(atom.strip() for atom in atoms)


@settings(max_examples=200, deadline=None)
@given(prose)
def test_quotations_survive_verbatim_and_unsplit(text):
    atoms = atomise(text, speaker="Horatio")
    flat = " ".join(text.split())
    for start, end in quoted_spans(flat):
        quote = " ".join(flat[start:end].split())
        assert any(quote in atom for atom in atoms), quote


@settings(max_examples=200, deadline=None)
@given(prose)
def test_atomising_an_atom_gives_it_back(text):
    for atom in atomise(text):
        assert atomise(atom) == [atom]


# Real data and speed ------------------------------------------------------------------

def hamlet_speeches(limit: int) -> list[tuple[str, str]]:
    if not HAMLET.exists():
        pytest.skip(f"Hamlet TEI not found at {HAMLET}")
    ns = "{http://www.tei-c.org/ns/1.0}"
    out = []
    for sp in ET.parse(HAMLET).getroot().iter(f"{ns}sp"):
        speaker = re.sub(r"_Ham$", "", sp.get("who", "#").split()[0].lstrip("#"))
        text = " ".join(" ".join(" ".join(c.itertext()) for c in sp if c.tag in (f"{ns}l", f"{ns}p")).split())
        if text:
            out.append((speaker, text.replace('"', "")))
        if len(out) == limit:
            break
    return out


def test_every_hamlet_speech_deposit_is_one_atom_and_fast():
    speeches = hamlet_speeches(400)
    start = time.perf_counter()
    results = [atomise(f'I said: "{text}"', speaker=speaker) for speaker, text in speeches]
    per_deposit_ms = (time.perf_counter() - start) / len(speeches) * 1000
    for (speaker, text), atoms in zip(speeches, results):
        assert atoms == [f'{speaker} said: "{text}"']
    assert per_deposit_ms < 5, f"{per_deposit_ms:.2f} ms per deposit (target ~1 ms)"


def test_hamlet_speech_as_prose_splits_into_sentences():
    speeches = [t for _, t in hamlet_speeches(400) if t.count(". ") >= 3]
    atoms = atomise(speeches[0])
    assert len(atoms) >= 2
    assert " ".join(atoms).split() == speeches[0].split()


# LLM atomiser --------------------------------------------------------------------------

def test_llm_atomiser_parses_the_models_list_and_sends_the_speaker():
    model = recording_chat_model(['```json\n["Caroline went to the support group.", "Caroline felt accepted."]\n```'])
    atomiser = LLMAtomiser(model, retry=NO_WAIT)
    atoms = atomiser("I went to the support group and felt accepted.", speaker="Caroline")
    assert atoms == ["Caroline went to the support group.", "Caroline felt accepted."]
    assert len(model.prompts) == 1
    assert "I went to the support group and felt accepted." in model.prompts[0]
    assert "told by Caroline" in model.prompts[0]
    assert atomiser.fallbacks == []


def test_llm_atomiser_resolves_first_person_the_model_left():
    model = recording_chat_model(['["I went home."]'])
    assert LLMAtomiser(model, retry=NO_WAIT)("I went home.", speaker="Ann") == ["Ann went home."]


def test_llm_atomiser_falls_back_on_unparseable_output_and_records_it():
    model = recording_chat_model(["Sure! Here are the statements: none", "[]", '[42]'])
    atomiser = LLMAtomiser(model, retry=NO_WAIT)
    text = "I said hello. Then I left the room quietly."
    assert atomiser(text, speaker="Ann") == atomise(text, speaker="Ann")
    assert len(model.prompts) == 3
    assert len(atomiser.fallbacks) == 1 and atomiser.fallbacks[0]["text"] == text


def test_llm_atomiser_rejects_atoms_that_rewrite_a_quotation():
    text = 'Hamlet said: "Get thee to a nunnery." Ophelia wept bitterly.'
    model = recording_chat_model(['["Hamlet told Ophelia to go to a nunnery.", "Ophelia wept bitterly."]'])
    atomiser = LLMAtomiser(model, retry=RetryPolicy(attempts=1))
    assert atomiser(text) == ['Hamlet said: "Get thee to a nunnery."', "Ophelia wept bitterly."]
    assert "not kept verbatim" in atomiser.fallbacks[0]["reason"]


def test_llm_calls_retry_with_exponential_backoff_then_raise_a_graphmem_error():
    waits: list[float] = []
    model = recording_chat_model(['["unused"]'], fail_first=10)
    atomiser = LLMAtomiser(model, retry=RetryPolicy(attempts=4, base_delay=0.5, max_delay=1.5, sleep=waits.append))
    with pytest.raises(LLMCallFailed, match="all 4 attempts") as info:
        atomiser("I went home.")
    assert isinstance(info.value, GraphmemError)
    assert waits == [0.5, 1.0, 1.5]
    assert len(model.prompts) == 4


def test_llm_call_recovers_after_a_transient_failure():
    waits: list[float] = []
    model = recording_chat_model(['["Ann went home."]'], fail_first=1)
    atomiser = LLMAtomiser(model, retry=RetryPolicy(base_delay=0.25, sleep=waits.append))
    assert atomiser("I went home.", speaker="Ann") == ["Ann went home."]
    assert waits == [0.25]


@pytest.mark.parametrize(("reply", "value"), [
    ('["a", "b"]', ["a", "b"]),
    ('Here you go:\n```json\n{"equivalent": true}\n```\nAnything else?', {"equivalent": True}),
    ('Sure. ["Ann went home."] Hope that helps.', ["Ann went home."]),
])
def test_json_is_found_in_chatty_replies(reply, value):
    assert extract_json(reply) == value


def test_a_reply_without_json_is_invalid_output():
    with pytest.raises(LLMOutputInvalid, match="no JSON"):
        extract_json("I cannot help with that.")
    with pytest.raises(ValueError, match="at least 1"):
        RetryPolicy(attempts=0)
