"""Category members from WordNet: the members of the category a question asks about."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.retrieval.categories import MAX_MEMBERS, category_members, members_of


def test_countries_expand_to_country_names():
    members = category_members("Which countries has Ana visited?")
    assert {"sweden", "canada", "france"} <= set(members)


def test_sports_expand_to_kinds_of_sport():
    assert {"swimming", "skiing"} <= set(members_of("sports"))


def test_a_leaf_noun_and_a_question_word_are_no_category():
    assert members_of("pets") == []  # WordNet lists no kinds of pet
    assert category_members("What did she do?") == []


def test_the_asked_noun_itself_is_not_a_member():
    assert "country" not in members_of("countries")


@settings(max_examples=30, deadline=None)
@given(st.text(alphabet="abcdefghij XYZ?", max_size=40))
def test_members_are_bounded_single_words(text):
    members = category_members(text)
    assert len(members) <= MAX_MEMBERS
    assert all(m.isalpha() for m in members)
