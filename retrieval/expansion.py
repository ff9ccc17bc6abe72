"""Query expansion from a namespace's own vocabulary, by embedding similarity.

A question and the memory that answers it often share no word: "What pets does Ana
have?" against "Ana's kitten chased the dog". The expansion channel adds, for each
content word of the question, the words of the namespace's memories whose embeddings
are nearest to it ("pets" -> dog, cat, kitty, pup) and searches BM25 with them.
Only words that occur in the namespace are candidates, so every expansion can match.

`Vocabulary` follows a `NamespaceView` like the text index does: words are collected
as memories arrive and embedded in one batch on the next expansion (or on
`MemoryGraph.warm`), so a write never waits for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from graphmem.view import MemoryRecord, NamespaceView, one_blas_thread

from .tokenize import STOPWORDS

__all__ = ["Vocabulary", "content_words"]

_WORD = re.compile(r"[a-z]{3,}")


def content_words(text: str, *, leave_out: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The distinct lower-case words of ``text`` that carry meaning, in order of first use."""
    words = (w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and w not in leave_out)
    return list(dict.fromkeys(words))


class Vocabulary:
    """The content words of a namespace's memories, with their embeddings."""

    def __init__(self, view: NamespaceView, embed: Callable[[Sequence[str]], np.ndarray]) -> None:
        self._embed = embed
        self.words: list[str] = []
        self._row: dict[str, int] = {}  # word -> row of its embedding
        self._known: set[str] = set()
        self._pending: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)  # rows past len(words) are spare
        view.on_change(self._update)

    def __len__(self) -> int:
        return len(self._known)

    def _update(self, record: MemoryRecord) -> None:
        for word in content_words(" ".join(record.variants or [record.text])):
            if word not in self._known:
                self._known.add(word)
                self._pending.append(word)

    def catch_up(self) -> None:
        """Embed the words that arrived since the last call."""
        if not self._pending:
            return
        vectors = np.asarray(self._embed(self._pending), dtype=np.float32)
        used = len(self.words)
        if used + len(vectors) > len(self._matrix):  # grow by doubling: no copy per word
            grown = np.zeros((max(2 * len(self._matrix), used + len(vectors), 64), vectors.shape[1]),
                             dtype=np.float32)
            if used:
                grown[:used] = self._matrix[:used]
            self._matrix = grown
        self._matrix[used:used + len(vectors)] = vectors
        for word in self._pending:
            self._row[word] = len(self.words)
            self.words.append(word)
        self._pending = []

    def unknown(self, words: Sequence[str]) -> list[str]:
        """Those of ``words`` that no memory of the namespace uses (yet)."""
        return [w for w in words if w not in self._known]

    def expand(self, words: Sequence[str], *, per_word: int, min_similarity: float,
               embedded: Mapping[str, np.ndarray] | None = None) -> list[str]:
        """For each of ``words``, up to ``per_word`` vocabulary words at cosine similarity
        ``min_similarity`` or more, nearest first; never one of ``words`` itself.

        ``embedded`` may hold the vectors of words outside the vocabulary, embedded by the
        caller together with the question (one model call instead of two)."""
        self.catch_up()
        if not words or not self.words or per_word <= 0:
            return []
        queries = self._vectors(words, embedded or {})
        with one_blas_thread():
            similarity = self._matrix[:len(self.words)] @ queries.T
        given = set(words)
        chosen: list[str] = []
        window = min(per_word + len(given), len(self.words))
        for column in similarity.T:
            nearest = np.argpartition(-column, window - 1)[:window]
            taken = 0
            for row in nearest[np.argsort(-column[nearest], kind="stable")]:
                word = self.words[row]
                if column[row] < min_similarity or taken == per_word:
                    break
                if word in given:
                    continue
                taken += 1
                if word not in chosen:
                    chosen.append(word)
        return chosen

    def _vectors(self, words: Sequence[str], embedded: Mapping[str, np.ndarray]) -> np.ndarray:
        """Embeddings of ``words``: looked up in the vocabulary or ``embedded``, else embedded."""
        unknown = [w for w in words if w not in self._row and w not in embedded]
        if unknown:
            embedded = {**embedded, **dict(zip(unknown, np.asarray(self._embed(unknown), dtype=np.float32)))}
        return np.stack([self._matrix[self._row[w]] if w in self._row else embedded[w] for w in words])
