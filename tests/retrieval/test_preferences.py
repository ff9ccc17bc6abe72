"""Which statements state a preference."""

from __future__ import annotations

import pytest

from graphmem.retrieval.preferences import states_constraint, states_preference


@pytest.mark.parametrize("text", [
    "I prefer window seats on long flights.",
    "user has a strong aversion to crowded places",
    "Mel loves pottery and hates early mornings.",
    "I can't stand spicy food.",
    "My favourite band is Portishead.",
    "I'm allergic to cats.",
    "We have been vegan for two years.",
    "I like hiking in the rain.",
])
def test_statements_of_taste(text):
    assert states_preference(text)


@pytest.mark.parametrize("text", [
    "The meeting moved to Thursday.",
    "It looks like rain tomorrow.",
    "What is the city like in winter?",
    "She took the train to Lyon.",
    "def fibonacci(n): return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)",
])
def test_other_statements(text):
    assert not states_preference(text)


@pytest.mark.parametrize("text", [
    "I only use wired peripherals.",
    "I am not comfortable with heights.",
    "I refuse to fly with budget airlines.",
    "I have a strong stance against fast fashion.",
    "I don’t eat anything with refined sugar.",
    "I exclusively watch films with subtitles.",
    "She has a fear of deep water.",
    "I have no interest in team sports.",
])
def test_rules_one_keeps_are_constraints_not_preferences(text):
    assert states_constraint(text)
    assert not states_preference(text)


@pytest.mark.parametrize("text", [
    "I prefer window seats on long flights.",
    "Mel loves pottery and hates early mornings.",
])
def test_every_preference_is_a_constraint_too(text):
    assert states_preference(text) and states_constraint(text)


@pytest.mark.parametrize("text", [
    "The meeting moved to Thursday.",
    "She took the train to Lyon.",
    "The team played against Leeds.",
    "We talked about the weather for an hour.",
])
def test_other_statements_are_no_constraints(text):
    assert not states_constraint(text)
