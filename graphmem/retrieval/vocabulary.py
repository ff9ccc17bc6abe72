"""A namespace's vocabulary, embedded word by word: the words its memories use that are
nearest a question's words.

LoCoMo's list questions ("What activities does Melanie partake in?") share few words with
their evidence ("I'm off to pottery class"); the nearest words of the memories' own
vocabulary to "activities" (hobby, class, camping...) do. The ``expand`` channel
(`graphmem.retrieval.channels.expand`) searches the memories' wordings by the question's
content words and those neighbours.

    content_words(text, names)          the words a question or memory is searched by:
                                        lowercase a-z words over 3 letters, no stopword,
                                        none of ``names``
    Vocabulary.note(texts)              a memory's wordings: its new words wait to be
                                        embedded (no model here)
    Vocabulary.catch_up(embed)          embed the waiting words with ``embed``
    Vocabulary.neighbours(vectors, n)   each question word's ``n`` nearest words, by cosine

The words are never removed (a forgotten memory's words only find nothing). Imports
graphmem.retrieval.tokenize and nothing else of graphmem; `TextIndex` holds one, and
view snapshots save it (`graphmem.view_snapshot.columns`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence

import numpy as np

from graphmem.retrieval.tokenize import STOPWORDS

__all__ = ["Vocabulary", "content_words"]

_WORD = re.compile(r"[a-z]+")
#: words embedded at a time when catching up (a large vocabulary read from an earlier
#: snapshot is embedded in batches, not in one call)
EMBED_BATCH = 512


def content_words(text: str, names: Collection[str] = ()) -> list[str]:
    """The content words of ``text`` in order (repeats kept): lowercase a-z words longer
    than 3 letters, not stopwords, not in ``names`` (lowercase)."""
    return [w for w in _WORD.findall(text.lower())
            if len(w) > 3 and w not in STOPWORDS and w not in names]


class Vocabulary:
    """The content words of a namespace's memories, each with its unit vector once
    `catch_up` has embedded it."""

    def __init__(self) -> None:
        self.words: list[str] = []  # embedded, in the order they were
        self.waiting: list[str] = []  # noted, not embedded yet
        self._row_of: dict[str, int] = {}  # word -> its row (embedded or waiting)
        self._vectors = np.zeros((0, 0), dtype=np.float32)  # rows beyond len(words) unused

    def __len__(self) -> int:
        return len(self.words) + len(self.waiting)

    def __contains__(self, word: object) -> bool:
        return word in self._row_of

    def note(self, texts: Iterable[str]) -> None:
        """The words of ``texts`` this vocabulary lacks wait for `catch_up`."""
        for text in texts:
            for word in content_words(text):
                if word not in self._row_of:
                    self._row_of[word] = len(self)
                    self.waiting.append(word)

    def catch_up(self, embed: Callable[[Sequence[str]], np.ndarray]) -> int:
        """Embed the waiting words (``embed``: texts -> unit vectors, as
        `graphmem.embed.Embedder.embed`); returns how many were embedded. A failed call
        leaves the words waiting."""
        done = 0
        while self.waiting:
            batch = self.waiting[:EMBED_BATCH]
            vectors = np.asarray(embed(batch), dtype=np.float32)
            if vectors.shape[0] != len(batch):
                raise ValueError(f"{len(batch)} words embedded as {vectors.shape[0]} vectors")
            self._append(vectors)
            self.words.extend(batch)
            del self.waiting[:len(batch)]
            done += len(batch)
        return done

    def _append(self, vectors: np.ndarray) -> None:
        n, width = len(self.words), vectors.shape[1]
        if self._vectors.shape[1] not in (0, width):
            raise ValueError(f"word vectors of {width} dimensions, the vocabulary's have "
                             f"{self._vectors.shape[1]}: embed with one model")
        if n + len(vectors) > len(self._vectors) or not self._vectors.flags.writeable:
            grown = np.zeros((max(n + len(vectors), 2 * n, 256), width), dtype=np.float32)
            if n:
                grown[:n] = self._vectors[:n]
            self._vectors = grown
        self._vectors[n:n + len(vectors)] = vectors

    @property
    def vectors(self) -> np.ndarray:
        """The embedded words' vectors, a row each in `words` order (read only)."""
        view = self._vectors[:len(self.words)]
        view.flags.writeable = False
        return view

    def neighbours(self, vectors: np.ndarray, n: int,
                   skip: Collection[str] = ()) -> list[list[tuple[str, float]]]:
        """For each row of ``vectors`` (unit vectors of a question's words), the ``n``
        embedded words nearest it with their cosines, nearest first (ties by the order
        the words came); ``skip``: words never returned (the agents' names)."""
        embedded = self.vectors
        if len(embedded) == 0 or len(vectors) == 0 or n <= 0:
            return [[] for _ in range(len(vectors))]
        cosines = np.asarray(vectors, dtype=np.float32) @ embedded.T
        skipped = [self._row_of[w] for w in skip
                   if self._row_of.get(w, len(embedded)) < len(embedded)]
        if skipped:
            cosines[:, skipped] = -np.inf
        n = min(n, len(embedded) - len(skipped))
        out = []
        for row in cosines:
            head = np.argpartition(-row, n - 1)[:n] if n < len(row) else np.arange(len(row))
            head = head[np.lexsort((head, -row[head]))]
            out.append([(self.words[j], float(row[j])) for j in head])
        return out

    # -- what a snapshot keeps

    def state(self) -> tuple[list[str], list[str], np.ndarray]:
        """The embedded words, the waiting ones and the embedded words' vectors."""
        return list(self.words), list(self.waiting), self.vectors

    @classmethod
    def restored(cls, words: list[str], waiting: list[str],
                 vectors: np.ndarray) -> Vocabulary:
        """A vocabulary from its `state` (``vectors`` may be a read-only map: it is
        copied at the first word embedded after)."""
        if len(vectors) != len(words) or len(set(words) | set(waiting)) != len(words) + len(waiting):
            raise ValueError("a vocabulary's words and vectors disagree")
        vocabulary = cls()
        vocabulary.words, vocabulary.waiting = list(words), list(waiting)
        vocabulary._row_of = {w: i for i, w in enumerate([*words, *waiting])}
        vocabulary._vectors = vectors if len(vectors) else np.zeros((0, 0), dtype=np.float32)
        return vocabulary
