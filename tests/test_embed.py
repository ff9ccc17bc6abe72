"""The embedder: unit vectors from the packaged model, now or on its own thread."""

from __future__ import annotations

import threading

import numpy as np


def test_embed_soon_gives_what_embed_gives_computed_on_another_thread(embedder):
    texts = ["Where did Ana leave the spare key?", "The harbour opens at six."]
    seen: list[str] = []
    original = embedder._encode

    def noting(batch):
        seen.append(threading.current_thread().name)
        return original(batch)

    embedder._encode = noting
    try:
        soon = embedder.embed_soon([f"{t} (soon)" for t in texts]).result(timeout=60)
    finally:
        del embedder._encode
    direct = original([f"{t} (soon)" for t in texts])  # the model, on this thread
    assert soon.shape == (2, embedder.dimension) and np.allclose(soon, direct, atol=1e-6)
    assert np.allclose(np.linalg.norm(soon, axis=1), 1.0, atol=1e-5)
    assert seen and all(name.startswith("graphmem-embed-soon") for name in seen)
