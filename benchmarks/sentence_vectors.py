"""Real sentences embedded as graphmem embeds memories, for the vector-index benchmarks.

    python benchmarks/sentence_vectors.py --out DIR [--data ../shared/data] [--limit N]

Every sentence of the evaluation data (LoCoMo turns, PrefEval's preferences, questions and
conversations, Hamlet's speeches, the Russia-Ukraine incident descriptions): each text is
cut at sentence ends, sentences of fewer than 20 characters are left out, and repeats are
kept once, in a fixed order. They are embedded with the project's embedder
(all-MiniLM-L6-v2) and written as ``DIR/v000.npy``, ``v001.npy``, ... (blocks of 10,000
unit vectors, float32), which `ivf_bench.py --vectors DIR` and `hnsw_rescore_bench.py`
read. The vectors stay outside the repository (the data keeps its own licences).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterator

import numpy as np

from shared_data import SHARED_DATA

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
MIN_CHARS = 20
BLOCK = 10_000


def _strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value, in document order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def texts(data: Path) -> Iterator[str]:
    """The data's texts, data set by data set, files in name order."""
    for path in sorted((data / "locomo").glob("*.json")):
        yield from _strings(json.loads(path.read_text()))
    for path in sorted((data / "prefeval").rglob("*.json")):
        yield from _strings(json.loads(path.read_text()))
    for path in sorted((data / "hamlet").glob("*.xml")):
        yield from (t for t in ET.parse(path).getroot().itertext() if t.strip())
    for path in sorted((data / "russia_ukraine").glob("*.csv")):
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                yield from (row.get("title") or "", row.get("brief description") or "")


def sentences(data: Path) -> list[str]:
    """The distinct sentences of at least `MIN_CHARS` characters, first seen first."""
    seen: dict[str, None] = {}
    for text in texts(data):
        for part in _SENTENCE_END.split(text):
            part = " ".join(part.split())
            if len(part) >= MIN_CHARS:
                seen.setdefault(part, None)
    return list(seen)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data", type=Path,
                        default=SHARED_DATA)
    parser.add_argument("--limit", type=int, help="embed only the first N sentences")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        parser.error(f"no data directory at {args.data}: pass --data (the shared data)")
    from graphmem.embed import Embedder

    found = sentences(args.data)[: args.limit]
    print(f"{len(found)} sentences", file=sys.stderr, flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    embedder = Embedder(cache_size=0)
    for block, lo in enumerate(range(0, len(found), BLOCK)):
        vectors = np.asarray(embedder.embed(found[lo:lo + BLOCK]), dtype=np.float32)
        np.save(args.out / f"v{block:03d}.npy", vectors, allow_pickle=False)
        print(f"v{block:03d}.npy: {len(vectors)} vectors", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
