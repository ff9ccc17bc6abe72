"""Query expansion from a namespace's own vocabulary, with the real embedder."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.embed import default_embedder
from graphmem.retrieval.expansion import Vocabulary, content_words
from graphmem.view import NamespaceView


@pytest.fixture(scope="module")
def embedder():
    return default_embedder()


def view_of(texts: list[str], embedder) -> NamespaceView:
    view = NamespaceView("t")
    for i, text in enumerate(texts):
        view.upsert({"id": f"m{i}", "text": text, "seq": i + 1,
                     "embedding": embedder.embed([text])[0].tolist(), "owners": ["ana"]})
    return view


def test_content_words_are_lower_case_distinct_and_meaningful():
    assert content_words("What PETS does Ana have? Pets, pets!") == ["pets", "ana"]
    assert content_words("What pets does Ana have?", leave_out={"ana"}) == ["pets"]
    assert content_words("Is it an ox?") == []


def test_a_category_word_reaches_its_instances_in_the_namespace(embedder):
    view = view_of(["Ana adopted a kitten last spring.", "Ana walks the dog every morning.",
                    "The invoice is due on Friday."], embedder)
    vocabulary = Vocabulary(view, embedder.embed)
    found = vocabulary.expand(["pets"], per_word=5, min_similarity=0.5)
    assert "kitten" in found or "dog" in found
    assert not {"invoice", "friday", "due"} & set(found)
    assert set(found) <= set(vocabulary.words)


def test_words_arriving_later_are_expanded_to_without_rebuilding(embedder):
    view = view_of(["The invoice is due on Friday."], embedder)
    vocabulary = Vocabulary(view, embedder.embed)
    assert "puppy" not in vocabulary.expand(["pets"], per_word=5, min_similarity=0.5)
    view.upsert({"id": "late", "text": "Ana brought home a puppy.", "seq": 9,
                 "embedding": embedder.embed(["Ana brought home a puppy."])[0].tolist()})
    assert "puppy" in vocabulary.expand(["pets"], per_word=5, min_similarity=0.5)


@settings(max_examples=25, deadline=None)
@given(per_word=st.integers(0, 4), min_similarity=st.floats(-1.0, 1.0),
       words=st.lists(st.sampled_from(["pets", "dog", "money", "travel", "kitten", "zebra"]),
                      min_size=1, max_size=3, unique=True))
def test_expansion_keeps_its_bounds(embedder, per_word, min_similarity, words):
    view = view_of(["Ana adopted a kitten and a dog.", "Ben paid the invoice in cash.",
                    "They flew to Lisbon for a holiday."], embedder)
    vocabulary = Vocabulary(view, embedder.embed)
    found = vocabulary.expand(words, per_word=per_word, min_similarity=min_similarity)
    assert len(found) == len(set(found)) <= per_word * len(words)
    assert not set(found) & set(words)
    assert set(found) <= set(vocabulary.words)
    if found:
        vectors = embedder.embed(found)
        best = (vectors @ embedder.embed(words).T).max(axis=1)
        assert (best >= min_similarity - 1e-4).all()


def test_every_word_keeps_its_own_vector_as_the_vocabulary_grows(embedder):
    view = view_of([], embedder)
    vocabulary = Vocabulary(view, embedder.embed)
    texts = [f"Ana visited {place} with a {thing}." for place, thing in
             zip(["Lisbon", "Porto", "Braga", "Faro", "Evora", "Sintra", "Tomar", "Viseu"] * 12,
                 ["map", "kite", "camera", "violin", "tent", "bicycle", "notebook", "scarf"] * 12)]
    for i, text in enumerate(texts):  # one word or none at a time: many small growths
        made_up = "zq" + chr(97 + i // 26) + chr(97 + i % 26)  # a new word each time
        view.upsert({"id": f"g{i}", "text": f"{text} The {made_up} was sunny.",
                     "seq": i + 1, "embedding": embedder.embed([text])[0].tolist()})
        vocabulary.catch_up()
    assert len(vocabulary.words) == len(vocabulary) > 64
    stored = vocabulary._matrix[:len(vocabulary.words)]
    assert abs(stored - embedder.embed(vocabulary.words)).max() < 1e-5


def test_words_the_caller_embedded_are_not_embedded_again(embedder):
    view = view_of(["Ana adopted a kitten and a dog."], embedder)
    calls: list[list[str]] = []

    def counted(texts):
        calls.append(list(texts))
        return embedder.embed(texts)

    vocabulary = Vocabulary(view, counted)
    vocabulary.catch_up()
    calls.clear()
    assert vocabulary.unknown(["pets", "kitten"]) == ["pets"]
    found = vocabulary.expand(["pets", "kitten"], per_word=3, min_similarity=0.3,
                              embedded={"pets": embedder.embed(["pets"])[0]})
    assert found and calls == []
    vocabulary.expand(["pets"], per_word=3, min_similarity=0.3)
    assert calls == [["pets"]]  # without the caller's vector, the word is embedded here
