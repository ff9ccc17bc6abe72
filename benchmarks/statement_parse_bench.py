"""The spaCy cost of one statement on the write path: the entity pass and the claims
the supersession detector reads, parsed apart (the entity pipeline on the statement,
then the full one on its placeholder copy) or together (`SupersessionDetector.parse_ahead`:
one batch of the full pipeline, which the entity pass then reads).

    python benchmarks/statement_parse_bench.py [--conversations 2] [--limit 600]

Statements are LoCoMo turns of ``../shared/data`` cut into atoms as ``remember`` cuts
them; the two ways take turns statement by statement, each with its own parsers (every
statement is new to both), and the median per statement is printed for the statements
whose copy is the statement itself and for the others.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from graphmem.atomise import atomise
from graphmem.supersession.detector import SupersessionDetector
from graphmem.supersession.participants import name_copy
from graphmem.text.entities import extract_entities_batch
from graphmem.text.nlp import Parser
from shared_data import SHARED_DATA

DATA = SHARED_DATA / "locomo"


def statements(conversations: int, limit: int) -> list[str]:
    out: list[str] = []
    for path in sorted(DATA.glob("conv-*.json"))[:conversations]:
        conversation = json.loads(path.read_text())
        for key, turns in conversation.items():
            if key.startswith("session_") and isinstance(turns, list):
                for turn in turns:
                    out += atomise(turn["text"], speaker=turn["speaker"])
    return list(dict.fromkeys(out))[:limit]


def apart(text: str, entities: Parser, detector: SupersessionDetector) -> None:
    extract_entities_batch([text], parser=entities)
    detector.claims([text])


def together(text: str, detector: SupersessionDetector) -> None:
    detector.parse_ahead([text])
    extract_entities_batch([text], parser=detector.parser)
    detector.claims([text])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--limit", type=int, default=600)
    args = parser.parse_args()
    texts = statements(args.conversations, args.limit)
    entities, old, new = Parser(), SupersessionDetector(), SupersessionDetector()
    together(texts[0], new), apart(texts[0], entities, old)  # load the pipelines
    times: dict[str, dict[bool, list[float]]] = {"apart": {True: [], False: []},
                                                 "together": {True: [], False: []}}
    for text in texts[1:]:
        same = name_copy(text)[0] == text
        for way in ("apart", "together"):
            started = time.perf_counter()
            apart(text, entities, old) if way == "apart" else together(text, new)
            times[way][same].append((time.perf_counter() - started) * 1000)
    print(f"{len(texts) - 1} statements, {len(times['apart'][True])} whose copy is the "
          "statement itself\n")
    print("| statements | apart, median ms | together, median ms | together / apart |")
    print("|---|---:|---:|---:|")
    for label, key in (("copy is the statement", True), ("copy differs", False)):
        a, t = statistics.median(times["apart"][key]), statistics.median(times["together"][key])
        print(f"| {label} | {a:.2f} | {t:.2f} | {t / a:.2f} |")
    a = statistics.median(times["apart"][True] + times["apart"][False])
    t = statistics.median(times["together"][True] + times["together"][False])
    print(f"| all | {a:.2f} | {t:.2f} | {t / a:.2f} |")


if __name__ == "__main__":
    main()
