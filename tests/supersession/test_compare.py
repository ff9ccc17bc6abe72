"""The supersession rule on real parses, and its invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.supersession import Claim, Participant, supersedes


@pytest.mark.parametrize("earlier, later", [
    ("Ana lives in Berlin.", "Ana lives in Munich."),
    ("Ana lives in Berlin.", "Ana moved to Munich."),
    ("Ana lives in Berlin.", "Ana no longer lives in Berlin."),
    ("Maya owns the backend workstream.", "Jonas is taking over the backend workstream."),
    ("The launch is on March 3.", "We moved the launch from March 3 to March 10."),
    ("We use Postgres for the main database.", "We switched the main database to MySQL."),
])
def test_a_later_state_of_the_same_thing_replaces_the_earlier(claim_of, lexicon, earlier, later):
    assert supersedes(claim_of(later), claim_of(earlier), lexicon)


@pytest.mark.parametrize("earlier, later", [
    ("Tom hit Jerry.", "Jerry hit Tom."),                 # events both happened
    ("Alice said hello to Bob.", "Alice said goodbye to Bob."),  # utterances too
    ("Ana lives in Berlin.", "Ben lives in Berlin."),      # about Ana and Ben, not Berlin
    ("Ana lives in Berlin.", "Ana works in Munich."),      # another attribute
    ("The launch is on March 10.", "Just to confirm: the launch is on March 10."),  # same value
    ("The billing integration is led by Lukas.", "The onboarding flow now belongs to Lukas."),
])
def test_events_restatements_and_other_attributes_replace_nothing(claim_of, lexicon,
                                                                    earlier, later):
    assert supersedes(claim_of(later), claim_of(earlier), lexicon) is None


KEYS = st.sampled_from(["ana", "berlin", "munich", "the launch", "march 3", "5", "maya"])
TYPES = st.sampled_from(["name", "thing", "time", "number", "bare", "indefinite"])
PARTICIPANTS = st.builds(Participant, key=KEYS, type=TYPES,
                         role=st.sampled_from(["subj", "obj", "to", "in", "from"]),
                         replaced=st.booleans())
CLAIMS = st.builds(Claim, kind=st.sampled_from(["state", "event", "utterance", "none"]),
                   predicate=st.sampled_from(["live", "be", "move", "own", "hit"]),
                   verb_class=st.sampled_from(["stative", "copula", "motion", "possession",
                                               "contact"]),
                   classes=st.frozensets(st.sampled_from(["stative", "possession", "social",
                                                          "motion", "contact"])),
                   participants=st.lists(PARTICIPANTS, max_size=4).map(tuple),
                   negated=st.booleans(), changes=st.booleans())


@settings(max_examples=300, deadline=None)
@given(CLAIMS)
def test_a_claim_never_replaces_itself(lexicon, claim):
    assert supersedes(claim, claim, lexicon) is None


@settings(max_examples=300, deadline=None)
@given(CLAIMS, CLAIMS)
def test_only_a_state_replaces_and_only_what_shares_an_anchor(lexicon, later, earlier):
    if supersedes(later, earlier, lexicon):
        assert later.kind == "state"
        assert earlier.kind in ("state", "event")
        assert later.anchors & earlier.anchors


@settings(max_examples=300, deadline=None)
@given(CLAIMS, CLAIMS)
def test_an_utterance_neither_replaces_nor_is_replaced(lexicon, a, b):
    if "utterance" in (a.kind, b.kind):
        assert supersedes(a, b, lexicon) is None


@settings(max_examples=300, deadline=None)
@given(CLAIMS, CLAIMS)
def test_a_negated_claim_replaces_only_the_same_values(lexicon, later, earlier):
    if later.negated and supersedes(later, earlier, lexicon) and earlier.kind == "state":
        types = later.value_types() | earlier.value_types()
        assert all(later.values(t) == earlier.values(t) for t in types)


def test_a_persons_common_noun_values_are_not_compared(claim_of, lexicon):
    earlier = claim_of("Melanie is proud of the garden.")
    later = claim_of("Melanie is proud of the band.")
    assert supersedes(later, earlier, lexicon) is None


def test_a_change_that_names_what_it_gives_up_replaces_only_that(claim_of, lexicon):
    lives = claim_of("Ana lives in Munich.")
    editor = claim_of("Ana uses Vim.")
    switch = claim_of("Ana switched from Vim to VS Code.")
    assert supersedes(switch, lives, lexicon) is None
    assert supersedes(switch, editor, lexicon) is not None
