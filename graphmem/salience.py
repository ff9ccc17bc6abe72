"""Salience, tagged when a memory is encoded: how much a statement matters beyond its
recency. It slows the memory's decay (graphmem.lifecycle.decay); it does not change recall.

    identity    a statement of who someone is ("Ana is a nurse", "her name is ...")
    preference  a stated taste or constraint (graphmem.retrieval.preferences)
    emotion     the strength of feeling, VADER's compound score (|-1..1|)
    explicit    the speaker marks it as important ("remember that", "important", ...)
    novelty     unlike anything the namespace held (1 - the nearest memory's similarity)

The score is the strongest signal (novelty counted at half weight); tags name those at
0.5 or more.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

from graphmem.errors import missing
from graphmem.retrieval.preferences import states_preference

_EXPLICIT = re.compile(r"\b(important|remember that|don'?t forget|do not forget|never forget|"
                       r"crucial|urgent|keep in mind|make sure)\b", re.IGNORECASE)
_IDENTITY = re.compile(r"\b(?:name is|is called|(?:is|was) (?:a|an|the) [a-z-]+(?: [a-z-]+)?"
                       r"(?:\.|,|$)|(?:is|was) born|identifies as|pronouns)", re.IGNORECASE)


@dataclass(frozen=True)
class Salience:
    score: float
    tags: tuple[str, ...]


class SalienceTagger:
    """Scores statements at encoding; owns its sentiment analyser (loaded on first use)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._analyser: Any = None

    def _sentiment(self, text: str) -> float:
        with self._lock:
            if self._analyser is None:
                try:
                    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
                except ImportError:
                    raise missing("vaderSentiment") from None
                self._analyser = SentimentIntensityAnalyzer()
            return float(self._analyser.polarity_scores(text)["compound"])

    def __call__(self, text: str, *, nearest_similarity: float = 0.0) -> Salience:
        signals = {
            "identity": 1.0 if _IDENTITY.search(text) else 0.0,
            "preference": 1.0 if states_preference(text) else 0.0,
            "emotion": abs(self._sentiment(text)),
            "explicit": 1.0 if _EXPLICIT.search(text) else 0.0,
            "novelty": max(0.0, min(1.0, 1.0 - nearest_similarity)),
        }
        score = max(*(v for k, v in signals.items() if k != "novelty"),
                    0.5 * signals["novelty"])
        return Salience(round(score, 4), tuple(k for k, v in signals.items() if v >= 0.5))
