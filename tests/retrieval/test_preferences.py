"""Which statements state a preference."""

from __future__ import annotations

import pytest

from graphmem.retrieval.preferences import states_preference


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
