"""The plain baselines recall is compared with: BM25, dense cosine, and their RRF.

They run over the same documents (e.g. LoCoMo turns) with no graph, no owners and no
classifier, so that an evaluation can say how much the memory graph adds.

    BM25Baseline   rank_bm25.BM25Okapi over graphmem's tokenizer (the issue's baseline)
    DenseBaseline  exact cosine over unit-normalised embeddings of a model passed in
    RRFBaseline    equal-weight reciprocal rank fusion (k = 60) of the two

All three have `search(query, k) -> list[id]`, best first, and `search_many(queries, k)`
(the dense one embeds the queries in one batch).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from graphmem.errors import InvalidInput, missing

from .fusion import fuse_rankings
from .tokenize import tokenize

__all__ = ["Baseline", "BM25Baseline", "DenseBaseline", "RRFBaseline"]

Doc = tuple[str, str]


class Baseline(Protocol):
    """Anything that ranks document ids for a query."""

    def search(self, query: str, k: int = 10) -> list[str]: ...

    def search_many(self, queries: Sequence[str], k: int = 10) -> list[list[str]]: ...


class BM25Baseline:
    """BM25Okapi (rank-bm25, k1 = 1.5, b = 0.75) over (id, text) documents.

    Documents that share no term with the query are not returned, so a search may
    give fewer than k ids.
    """

    def __init__(self, docs: Sequence[Doc], *, tokenizer: Callable[[str], list[str]] = tokenize) -> None:
        try:
            from rank_bm25 import BM25Okapi
        except ImportError:
            raise missing("rank-bm25") from None
        self._ids = _check_docs(docs)
        self._tokenize = tokenizer
        # rank-bm25 divides by the corpus length; an empty document still counts as one.
        self._bm25 = BM25Okapi([tokenizer(text) for _, text in docs])

    def search(self, query: str, k: int = 10) -> list[str]:
        """The ids of the k best-scoring documents, best first (ties by input order)."""
        _check_k(k)
        terms = self._tokenize(query)
        if not terms:
            return []
        scores = self._bm25.get_scores(terms)
        order = np.argsort(-scores, kind="stable")[:k]
        return [self._ids[i] for i in order if scores[i] > 0]

    def search_many(self, queries: Sequence[str], k: int = 10) -> list[list[str]]:
        """`search` for each query."""
        return [self.search(query, k) for query in queries]


class DenseBaseline:
    """Exact cosine similarity between the query and every document embedding.

    `model` is loaded once by the caller and may be a sentence-transformers model
    (`encode`) or anything with `embed(texts) -> array` such as graphmem's Embedder.
    Embeddings are L2-normalised here, whatever the model returns.
    """

    def __init__(self, docs: Sequence[Doc], model: Any, *, batch_size: int = 64) -> None:
        self._ids = _check_docs(docs)
        self._embed = _embedding_function(model, batch_size)
        self._matrix = _normalise(self._embed([text for _, text in docs]))

    def search(self, query: str, k: int = 10) -> list[str]:
        """The ids of the k most similar documents, best first (ties by input order)."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int = 10) -> list[list[str]]:
        """`search` for each query, embedding all queries in one batch."""
        _check_k(k)
        if not queries:
            return []
        scores = _normalise(self._embed(list(queries))) @ self._matrix.T
        orders = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return [[self._ids[i] for i in order] for order in orders]


class RRFBaseline:
    """Reciprocal rank fusion of a BM25 and a dense baseline, equal weights."""

    def __init__(self, bm25: Baseline, dense: Baseline, *, rrf_k: int = 60, depth: int = 50) -> None:
        if depth <= 0:
            raise InvalidInput(f"depth must be a positive number of candidates, got {depth}")
        self._channels = {"bm25": bm25, "dense": dense}
        self._rrf_k, self._depth = rrf_k, depth

    def search(self, query: str, k: int = 10) -> list[str]:
        """Fuse each channel's top `depth` ids and keep the k best."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int = 10) -> list[list[str]]:
        """`search` for each query, each channel answering all queries at once."""
        _check_k(k)
        depth = max(self._depth, k)
        per_channel = {name: channel.search_many(queries, depth) for name, channel in self._channels.items()}
        return [
            [hit.id for hit in fuse_rankings({name: ranked[i] for name, ranked in per_channel.items()},
                                             k=self._rrf_k, limit=k)]
            for i in range(len(queries))
        ]


def _embedding_function(model: Any, batch_size: int) -> Callable[[list[str]], np.ndarray]:
    if hasattr(model, "encode"):
        return lambda texts: np.asarray(
            model.encode(texts, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False),
            dtype=np.float32,
        )
    if hasattr(model, "embed"):
        return lambda texts: np.asarray(model.embed(texts), dtype=np.float32)
    raise InvalidInput(f"model must have encode() or embed(), got {type(model).__name__}")


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _check_docs(docs: Sequence[Doc]) -> list[str]:
    if not docs:
        raise InvalidInput("a baseline needs at least one document")
    ids = [doc_id for doc_id, _ in docs]
    if len(set(ids)) != len(ids):
        raise InvalidInput("document ids must be unique")
    return ids


def _check_k(k: int) -> None:
    if k <= 0:
        raise InvalidInput(f"k must be a positive number of results, got {k}")
