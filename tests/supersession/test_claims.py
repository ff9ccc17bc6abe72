"""State or event, anchors and values, read from real parses."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("text, kind", [
    ("Ana lives in Berlin.", "state"),              # verb.stative
    ("Maya owns the backend workstream.", "state"),  # verb.possession
    ("The launch is on March 3.", "state"),         # copula
    ("The review is scheduled for May 5.", "state"),  # passive, present: resultative
    ("Ana moved to Munich.", "state"),              # verb.motion with a goal: a change of state
    ("We use Postgres for the main database.", "state"),  # present: habitual
    ("Tom hit Jerry.", "event"),                    # verb.contact, past
    ("Alice said hello to Bob.", "utterance"),      # verb.communication
    ("Where does Ana live?", "none"),               # a question claims nothing
])
def test_kind_comes_from_the_predicate_and_its_aspect(claim_of, text, kind):
    assert claim_of(text).kind == kind


def test_anchor_is_the_definite_thing_and_the_person_its_value(claim_of):
    claim = claim_of("The billing integration is led by Lukas.")
    assert claim.anchors == {"billing integration"}
    assert claim.values("name") == {"lukas"}


def test_a_claim_without_things_is_about_its_names(claim_of):
    assert claim_of("Ana lives in Berlin.").anchors == {"ana", "berlin"}


def test_the_value_given_up_is_marked_replaced(claim_of):
    claim = claim_of("We moved the launch from March 3 to March 10.")
    assert claim.values("time") == {"march 10"}
    assert claim.replaced_values("time") == {"march 3"}
    assert claim.changes


def test_amounts_of_money_and_counts_are_typed(claim_of):
    assert claim_of("The marketing budget is $40,000.").values("money") == {"40000"}
    assert claim_of("The QA team has five people.").values("number") == {"5"}


def test_subordinate_clauses_are_not_the_claim(claim_of):
    claim = claim_of("Just to confirm: the launch is on March 10.")
    assert claim.predicate == "be" and claim.values("time") == {"march 10"}


def test_negation_is_read(claim_of):
    assert claim_of("Ana no longer lives in Berlin.").negated
    assert not claim_of("Ana lives in Berlin.").negated


@pytest.mark.parametrize("text, kind", [
    ("We put Maya in charge of the backend workstream.", "state"),  # caused change of state
    ("The team picked Vercel for the hosting provider.", "state"),  # a way to choose
    ("Tom hit Jerry on the head.", "event"),                         # contact, no object placed
])
def test_placing_and_choosing_hold_but_hitting_happens(claim_of, text, kind):
    assert claim_of(text).kind == kind


def test_a_product_named_like_a_verb_is_read_as_a_name(lexicon):
    from graphmem.supersession.claims import read_claim
    from graphmem.supersession.participants import name_copy
    from graphmem.text.nlp import Parser

    text = "We are going back to Render for the hosting provider."
    copy, names = name_copy(text)
    assert "Render" not in copy and list(names.values()) == ["render"]
    claim = read_claim(Parser(full=True).parse(copy), lexicon, names)
    assert claim.values("name") == {"render"} and claim.anchors == {"hosting provider"}
    assert name_copy("The launch moved to March 10.") == ("The launch moved to March 10.", {})


@pytest.mark.parametrize("text, predicate, subject, value", [
    # the tagger reads "beta returns" / "beta moves" as one plural noun phrase
    ("The public beta returns to April 7.", "return", "public beta", "april 7"),
    ("Scratch the last change, the public beta returns to April 7.", "return", "public beta",
     "april 7"),
    ("The public beta moves to April 7.", "move", "public beta", "april 7"),
    ("The beta returns next week.", "return", "beta", "next week"),
    ("Our beta returns next week.", "return", "beta", "next week"),
])
def test_a_verb_tagged_as_a_plural_noun_is_read_as_the_verb(claim_of, text, predicate,
                                                             subject, value):
    claim = claim_of(text)
    assert (claim.kind, claim.predicate) == ("state", predicate)
    assert claim.roles_of(subject) == {"subj"}
    assert value in claim.values("time")


def test_a_plural_noun_a_verb_governs_stays_a_noun(claim_of):
    assert claim_of("Our tax returns are due in May.").anchors == {"tax return"}
    claim = claim_of("The team reviewed the tax returns from 2022.")
    assert claim.predicate == "review" and claim.roles_of("tax return") == {"obj"}


def test_names_after_the_reread_verb_keep_their_placeholders(claim_of):
    claim = claim_of("The public beta returns to Lukas next week.")
    assert claim.values("name") == {"lukas"} and claim.roles_of("lukas") == {"to"}


def test_a_fragment_without_a_definite_subject_is_not_reread(claim_of):
    # "any fun plans": a noun phrase on its own, not "fun" that plans
    assert claim_of("Any fun plans for the summer.").kind == "none"
