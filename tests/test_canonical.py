"""The canonical text of a merged memory keeps every named party."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.canonical import canonical_text, capitalised_names, named_parties, names_read
from graphmem.errors import InvalidInput


def test_named_parties_finds_people_places_and_titles():
    parties = named_parties("Yesterday the Prince of Denmark met Horatio in Elsinore, and Caroline's sister flew to New York.")
    assert {"Prince of Denmark", "Horatio", "Elsinore", "Caroline", "New York"} <= parties
    assert not parties & {"Yesterday", "The", "I"}


def test_a_name_opening_a_sentence_counts_but_a_common_word_does_not():
    assert capitalised_names("Hamlet said it. Then I left. The king wept.") == ["Hamlet"]
    assert capitalised_names('Ophelia said: "Good my lord."') == ["Ophelia"]


def test_named_parties_uses_spacy_entities():
    # "the United Nations" is an ORG for spaCy; the reduction keeps its capitalised run
    assert "United Nations" in named_parties("Delegates of the United Nations met on Monday.")
    assert named_parties("   ") == set()


def test_the_variant_naming_most_parties_wins():
    variants = ["Rosencrantz took Hamlet away.",
                "Claudius ordered Rosencrantz and Guildenstern to take Hamlet to England.",
                "Hamlet was sent off."]
    assert canonical_text(variants) == variants[1]


def test_ties_go_to_the_shortest_variant():
    assert canonical_text(["Hamlet spoke to Horatio at length.", "Hamlet spoke to Horatio."]) == "Hamlet spoke to Horatio."


def test_parties_named_only_elsewhere_are_appended():
    text = canonical_text(["Claudius gave the order to poison the cup.",
                           "The cup was poisoned on the order of the king by Laertes.",
                           "Osric carried the poisoned cup."])
    # one party each: the shortest wording leads, the others are appended in order of appearance
    assert text == "Osric carried the poisoned cup. (also: Claudius, Laertes)"
    assert named_parties(text) >= {"Claudius", "Laertes", "Osric"}


def test_the_party_who_gave_the_order_is_not_lost_to_a_shorter_wording():
    # the shortest-text rule would keep "Polonius was stabbed." and lose who did it
    text = canonical_text(["Polonius was stabbed.", "Hamlet stabbed Polonius through the arras."])
    assert {"Hamlet", "Polonius"} <= named_parties(text)


def test_blank_variants_are_refused():
    with pytest.raises(InvalidInput, match="non-blank"):
        canonical_text(["", "  "])


NAMES = ["Hamlet", "Horatio", "Ophelia", "Claudius", "Gertrude", "Laertes", "Prince of Denmark",
         "New York", "Caroline", "Melanie", "Dr. Smith", "United Nations", "O’Brien", "Jean-Luc"]
VERBS = ["met", "told", "ordered", "saw", "stabbed", "wrote to", "said to", "visited", "thanked"]
FILLER = ["yesterday", "in the garden", "at dawn", "twice", "with a letter", "", "after the play"]


@st.composite
def variant(draw) -> str:
    """A plausible deposited wording: names, verbs, filler, sometimes a quotation or a possessive."""
    clauses = []
    for _ in range(draw(st.integers(1, 3))):
        subject = draw(st.sampled_from(NAMES + ["The king", "She", "I"]))
        obj = draw(st.sampled_from(NAMES + ["the guards", "him"]))
        possessive = draw(st.sampled_from(["", "’s sister", "'s letter"])) if obj in NAMES else ""
        clause = f"{subject} {draw(st.sampled_from(VERBS))} {obj}{possessive} {draw(st.sampled_from(FILLER))}"
        if draw(st.booleans()):
            clause += f': "{draw(st.sampled_from(NAMES))} is here"'
        clauses.append(" ".join(clause.split()) + draw(st.sampled_from([".", "!", "?", ""])))
    return " ".join(clauses)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(variant(), min_size=1, max_size=4))
def test_canonical_text_keeps_the_union_of_named_parties(variants):
    union = set().union(*(named_parties(v) for v in variants))
    assert named_parties(canonical_text(variants)) >= union


def test_a_word_that_only_opens_a_sentence_is_no_party_unless_read_as_a_name():
    # LoCoMo's conv-26 merged these into "... (also: Wow)" and "... (also: Wow Caroline)"
    assert canonical_text(["Sounds great, Mel!", "Wow, Mel, that sounds awesome!"]) == \
        "Sounds great, Mel!"
    assert "also" not in canonical_text(["Wow Caroline, that looks amazing!",
                                         "Wow, Caroline! That's awesome!"])
    assert names_read("Wow Caroline, that looks amazing!") == ["Caroline"]
    assert names_read("Tom hit Jerry.") == ["Tom", "Jerry"]
    assert names_read("Laertes poured the poison.") == ["Laertes"]  # tagged a plural
    assert names_read("Will you come, Ana?") == ["Ana"]
