"""Option choice by retrieved memories, and the baselines' document cache (real embeddings)."""

from __future__ import annotations

import numpy as np

from graphmem.embed import Embedder
from graphmem.evaluation.systems import DocumentCache, choose_option, strip_label

EMBEDDER = Embedder()


class Counting:
    """The real embedder, counting the texts it was asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        return EMBEDDER.embed(list(texts))


def test_choice_follows_the_retrieved_memory():
    options = ("(a) Try the steakhouse downtown.", "(b) The vegan bistro on Elm Street is great.",
               "(c) A barbecue joint.", "(d) The seafood shack.")
    memories = ["user: I am vegan and never eat animal products."]
    assert choose_option(options, memories, EMBEDDER) == 1
    assert choose_option(options, [], EMBEDDER) is None
    assert strip_label("(c) A barbecue joint.") == "A barbecue joint."


def test_document_cache_embeds_documents_once_and_queries_always():
    counting = Counting()
    cache = DocumentCache(counting)
    cache.add_documents(["a cat sat", "a dog ran"])
    cache.add_documents(["a dog ran", "rain fell"])
    assert counting.texts == ["a cat sat", "a dog ran", "rain fell"]
    first = cache.embed(["which pet sat?", "a cat sat"])
    second = cache.embed(["which pet sat?"])
    assert counting.texts[3:] == ["which pet sat?", "which pet sat?"]
    assert np.allclose(first[0], second[0])
    assert np.allclose(first[1], EMBEDDER.embed(["a cat sat"])[0])
