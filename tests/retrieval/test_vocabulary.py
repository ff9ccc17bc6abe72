"""The vocabulary the expand channel reads: which words it keeps, how it embeds them and
which are nearest a question's words (exactly, against a full sort)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.embed import Embedder
from graphmem.retrieval.vocabulary import Vocabulary, content_words


def test_content_words_are_long_lowercase_words_without_stopwords_or_names():
    text = "What ACTIVITIES does Melanie partake in, and who's at the 3pm pottery-class?"
    assert content_words(text) == ["activities", "melanie", "partake", "pottery", "class"]
    assert content_words(text, {"melanie"}) == ["activities", "partake", "pottery", "class"]


def test_words_wait_until_embedded_and_a_failed_embedding_loses_none():
    vocabulary = Vocabulary()
    vocabulary.note(["I went camping", "Camping and swimming"])
    assert vocabulary.waiting == ["went", "camping", "swimming"] and vocabulary.words == []

    def broken(texts):
        raise RuntimeError("model gone")

    with pytest.raises(RuntimeError):
        vocabulary.catch_up(broken)
    assert vocabulary.waiting == ["went", "camping", "swimming"]
    assert vocabulary.catch_up(Embedder().embed) == 3
    assert vocabulary.words == ["went", "camping", "swimming"] and not vocabulary.waiting
    vocabulary.note(["camping tents"])  # only the new word waits
    assert vocabulary.waiting == ["tents"] and len(vocabulary) == 4


def test_a_vector_count_that_does_not_match_the_words_is_refused():
    vocabulary = Vocabulary()
    vocabulary.note(["pottery class"])
    with pytest.raises(ValueError, match="2 words embedded as 1 vectors"):
        vocabulary.catch_up(lambda texts: np.ones((1, 4), dtype=np.float32))
    assert vocabulary.waiting == ["pottery", "class"]


def test_the_nearest_words_of_a_real_model_are_the_related_ones():
    embedder = Embedder()
    vocabulary = Vocabulary()
    vocabulary.note(["pottery class, camping trip, swimming lessons",
                     "mortgage invoice, tax receipt, spreadsheet"])
    vocabulary.catch_up(embedder.embed)
    [near] = vocabulary.neighbours(embedder.embed(["hobbies"]), 4, skip={"camping"})
    words = [w for w, _ in near]
    assert "camping" not in words and len(words) == 4
    assert not {"mortgage", "invoice", "receipt", "spreadsheet"} & set(words[:2])
    cosines = [c for _, c in near]
    assert cosines == sorted(cosines, reverse=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 3), st.integers(1, 50), st.integers(0, 2**31 - 1),
       st.integers(0, 5))
def test_neighbours_are_exactly_the_head_of_a_full_sort(words, questions, n, seed, skipped):
    rng = np.random.default_rng(seed)
    vocabulary = Vocabulary()
    names = [f"word{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(words)]
    vocabulary.note(names)

    def embed(texts):
        v = rng.normal(size=(len(texts), 8)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    vocabulary.catch_up(embed)
    asked = embed(["q"] * questions)
    skip = set(names[:skipped])
    cosines = asked @ vocabulary.vectors.T
    for row, near in zip(cosines, vocabulary.neighbours(asked, n, skip=skip)):
        order = [j for j in np.lexsort((np.arange(len(row)), -row)) if names[j] not in skip]
        assert [w for w, _ in near] == [names[j] for j in order[:n]]
        assert [c for _, c in near] == [float(row[j]) for j in order[:n]]


def test_a_restored_vocabulary_is_the_saved_one_and_grows_past_a_read_only_map():
    embedder = Embedder()
    vocabulary = Vocabulary()
    vocabulary.note(["pottery class tonight"])
    vocabulary.catch_up(embedder.embed)
    vocabulary.note(["camping trip"])
    words, waiting, vectors = vocabulary.state()
    frozen = np.array(vectors)
    frozen.flags.writeable = False
    again = Vocabulary.restored(words, waiting, frozen)
    assert again.words == words and again.waiting == ["camping", "trip"]
    again.catch_up(embedder.embed)
    vocabulary.catch_up(embedder.embed)
    assert again.words == vocabulary.words
    assert np.allclose(again.vectors, vocabulary.vectors, atol=1e-6)
    with pytest.raises(ValueError, match="disagree"):
        Vocabulary.restored(["a", "b"], [], frozen[:1])
