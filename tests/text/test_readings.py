"""Readings: roles from the dependency parse, names through placeholders, differences."""

from __future__ import annotations

import pytest

from graphmem.text import readings
from graphmem.text.lexicon import default_lexicon


@pytest.fixture(scope="module")
def lexicon():
    return default_lexicon()


def roles(text, lexicon):
    return readings.read_texts([text], lexicon)[0].roles


def test_passive_reads_as_its_active(lexicon):
    active = roles("Omar thanked Jerry.", lexicon)
    assert active == roles("Jerry was thanked by Omar.", lexicon)
    assert active[("thank", "subj")] == {"omar"} and active[("thank", "obj")] == {"jerry"}


def test_lower_case_names_read_like_capitalised_ones(lexicon):
    assert roles("omar thanked jerry.", lexicon) == roles("Omar thanked Jerry.", lexicon)


def test_placeholders_depend_on_the_words_not_their_case(lexicon):
    low, _ = readings.placeholder_copy("omar thanked jerry in dublin.", lexicon)
    title, names = readings.placeholder_copy("Omar thanked Jerry in Dublin.", lexicon)
    assert low == title == "Alice thanked Bob in Carol."
    assert sorted(names.values()) == ["dublin", "jerry", "omar"]


def test_recipients_of_to_and_of_the_dative_are_one_role(lexicon):
    assert roles("Sam gave the book to Lily.", lexicon)[("give", "to")] == {"lily"}
    assert roles("Sam gave Lily the book.", lexicon)[("give", "to")] == {"lily"}


@pytest.mark.parametrize("a, b, kind", [
    ("Omar thanked Priya.", "Priya thanked Omar.", "roles"),
    ("The shop is open.", "The shop is closed.", "antonym"),
    ("It was hot.", "It was warm.", "scale"),
    ("She took aspirin.", "She took ibuprofen.", "kind"),
])
def test_compare_names_the_difference(lexicon, a, b, kind):
    ra, rb = readings.read_texts([a, b], lexicon)
    found = readings.compare(ra, rb, lexicon)
    assert found is not None and found.kind == kind and found.reason


def test_same_content_ignores_voice_tense_and_synonyms(lexicon):
    ra, rb = readings.read_texts(["The kids have eaten the cake.", "The cake was eaten by the children."], lexicon)
    assert readings.compare(ra, rb, lexicon) is None
    assert readings.same_content(ra, rb, lexicon)


def test_a_name_named_again_after_every_placeholder_is_taken_keeps_its_own(lexicon):
    many = [f"Zq{chr(97 + i)}x" for i in range(len(readings.PLACEHOLDERS) + 3)]
    text = " met ".join(many) + f". {many[0]} left."
    copy, names = readings.placeholder_copy(text, lexicon)
    assert copy.count(readings.PLACEHOLDERS[0]) == 2
    assert set(names.values()) <= {m.lower() for m in many}


def test_a_name_repeated_after_the_placeholders_ran_out_keeps_its_placeholder():
    lexicon = default_lexicon()
    names = "Then Ben Cyd Dov Eli Fay Gus Hal Ida Jo Kai Lu Mo Zed Ben"
    copy, at = readings.placeholder_copy(names, lexicon)  # once raised IndexError (PrefEval)
    words = copy.split()
    assert words[1] == words[-1] == "Alice"
    assert words[-2] == "zed" and "zed" not in at.values()  # past the twelve: as written
