"""Speed and accuracy of entity extraction and time normalisation on LoCoMo turns.

    python benchmarks/meaning_bench.py [--data ../shared/data] [--limit 2000] [--json out.json]

Reports: entity extraction ms/text (batched and one by one; CPU and wall time, since
the machine may be shared), mentions by type, resolver entities per conversation; time
normalisation ms/text, how many turns name a time, by granularity, compared with
``dateparser.search.search_dates`` on a sample; and accuracy on hand-labelled turns
(labels below are keyed by conversation and dia_id; no LoCoMo text is copied here).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from graphmem.text.entities import EntityResolver, extract_entities, extract_entities_batch, name_key
from graphmem.text.nlp import load_pipeline
from graphmem.text.times import normalise_time, parse_when
from shared_data import SHARED_DATA


# Hand-labelled time spans: (conversation, dia_id, start, end) with end exclusive; None, None
# when the turn names no single resolvable time. The first 40 are a random sample (seed 11)
# of turns with a time-like word; the last three are known hard cases (habitual, generic).
TIME_LABELS = [
    ("conv-48", "D2:22", None, None), ("conv-50", "D20:4", None, None),
    ("conv-48", "D6:10", "2022-01-01", "2023-01-01"), ("conv-48", "D2:7", "2023-01-26", "2023-01-27"),
    ("conv-48", "D27:1", "2023-09-09", "2023-09-11"), ("conv-41", "D26:2", None, None),
    ("conv-41", "D25:2", "2023-07-15", "2023-07-17"), ("conv-48", "D29:5", "2023-09-10", "2023-09-11"),
    ("conv-48", "D12:1", "2023-03-27", "2023-04-03"), ("conv-41", "D25:7", None, None),
    ("conv-30", "D11:5", None, None), ("conv-48", "D1:6", "2022-01-01", "2023-01-01"),
    ("conv-43", "D7:6", "2023-09-01", "2023-10-01"), ("conv-41", "D9:4", "2023-03-20", "2023-03-27"),
    ("conv-30", "D8:15", "2023-05-01", "2023-06-01"), ("conv-50", "D8:5", "2023-07-01", "2023-08-01"),
    ("conv-26", "D11:4", "2023-08-11", "2023-08-12"), ("conv-47", "D16:1", "2022-06-27", "2022-07-04"),
    ("conv-41", "D13:17", "2023-05-03", "2023-05-04"), ("conv-26", "D5:13", "2023-07-01", "2023-08-01"),
    ("conv-50", "D6:1", None, None), ("conv-26", "D16:2", "2023-08-07", "2023-09-04"),
    ("conv-26", "D15:11", "2023-09-01", "2023-10-01"), ("conv-26", "D10:7", "2023-07-15", "2023-07-17"),
    ("conv-42", "D17:11", None, None), ("conv-26", "D9:2", "2023-07-15", "2023-07-17"),
    ("conv-48", "D6:8", "2022-06-01", "2022-09-01"), ("conv-43", "D18:3", "2023-11-13", "2023-11-20"),
    ("conv-47", "D30:2", "2022-11-01", "2022-11-02"), ("conv-41", "D28:8", "2023-08-04", "2023-08-05"),
    ("conv-50", "D1:2", None, None), ("conv-42", "D16:6", "2022-07-01", "2022-08-01"),
    ("conv-43", "D3:19", "2023-08-01", "2023-09-01"), ("conv-48", "D24:13", "2023-09-01", "2023-10-01"),
    ("conv-26", "D3:1", "2023-05-29", "2023-06-05"), ("conv-30", "D5:15", "2018-01-01", "2022-01-01"),
    ("conv-48", "D4:3", "2023-01-23", "2023-01-30"), ("conv-42", "D28:2", None, None),
    ("conv-47", "D20:1", "2022-08-19", "2022-08-20"), ("conv-50", "D15:12", "2023-08-21", "2023-08-22"),
    ("conv-47", "D16:9", "2022-07-11", "2022-07-12"), ("conv-43", "D8:24", None, None),
    ("conv-50", "D20:5", None, None),
]

# Hand-labelled entities (name -> type) of a random sample (seed 8) of turns with a
# capitalised word that is neither sentence-initial nor a speaker's name.
ENTITY_LABELS = {
    ("conv-43", "D8:16"): {"Harry Potter and the Philosopher's Stone": "work"},
    ("conv-47", "D19:6"): {}, ("conv-47", "D20:10"): {},
    ("conv-41", "D8:16"): {"England": "place"},
    ("conv-42", "D23:17"): {"Inception": "work", "Cyberpunk 2077": "work"},
    ("conv-26", "D9:2"): {"Melanie": "person", "LGBTQ": "group"},
    ("conv-26", "D15:16"): {"Summer Sounds": "work"},
    ("conv-41", "D17:2"): {"John": "person", "Max": "person"},
    ("conv-43", "D12:20"): {"Wolves": "organisation", "LeBron": "person"},
    ("conv-48", "D22:19"): {"Luna": "person"},
    ("conv-43", "D1:18"): {"London": "place", "Harry Potter": "work", "Potter": "work"},
    ("conv-47", "D28:25"): {"Super Mario": "work", "The Legend of Zelda": "work"},
    ("conv-50", "D24:6"): {"Calvin": "person", "Frank": "person"},
    ("conv-26", "D7:9"): {"Mel": "person"},
    ("conv-48", "D11:6"): {}, ("conv-48", "D18:1"): {}, ("conv-48", "D10:3"): {},
    ("conv-47", "D23:3"): {"John": "person", "Samantha": "person", "McGee": "organisation"},
    ("conv-48", "D19:8"): {"Zelda BOTW": "work", "Switch": "thing", "Animal Crossing: New Horizons": "work"},
    ("conv-50", "D6:12"): {"Cal": "person", "Tokyo": "place"},
    ("conv-42", "D23:7"): {"Catan": "work"},
    ("conv-47", "D29:1"): {"James": "person", "Fortnite": "work"},
    ("conv-26", "D16:5"): {"LGBTQ+": "group"}, ("conv-48", "D17:6"): {"Deb": "person"},
    ("conv-43", "D9:2"): {"Tim": "person"}, ("conv-26", "D5:1"): {"LGBTQ+": "group"},
    ("conv-43", "D22:1"): {"John": "person", "Harry Potter": "work"},
    ("conv-48", "D24:11"): {}, ("conv-47", "D30:14"): {"FIFA 23": "work"}, ("conv-48", "D15:7"): {},
}


def load_turns(data: Path) -> list[dict]:
    """Every LoCoMo turn with its conversation, speakers and session date."""
    turns = []
    for path in sorted((data / "locomo").glob("conv-*.json")):
        conversation = json.loads(path.read_text())
        conversation = conversation.get("conversation", conversation)
        speakers = [conversation["speaker_a"], conversation["speaker_b"]]
        for key, session in conversation.items():
            if re.fullmatch(r"session_\d+", key) and isinstance(session, list):
                when = parse_when(conversation[f"{key}_date_time"])
                turns += [{"conv": path.stem, "dia_id": turn["dia_id"], "text": turn["text"],
                           "speaker": turn["speaker"], "speakers": speakers, "when": when}
                          for turn in session]
    return turns


def timed(function, *args, **kwargs):
    """(result, wall seconds, CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def measure_entities(turns: list[dict]) -> dict:
    """Extraction speed and output over turns, and resolution per conversation."""
    load_pipeline()
    extract_entities_batch([turn["text"] for turn in turns[:50]])  # warm up
    texts = [turn["text"] for turn in turns]
    mentions, wall, cpu = timed(extract_entities_batch, texts, known_people=[])
    _, single_wall, single_cpu = timed(lambda: [extract_entities(text) for text in texts[:200]])
    resolved: dict[str, EntityResolver] = {}
    for turn, found in zip(turns, mentions):
        resolver = resolved.setdefault(turn["conv"], EntityResolver(namespace=turn["conv"]))
        for mention in found:
            resolver.resolve(mention)
    return {
        "texts": len(texts),
        "batched_ms_per_text": {"wall": 1000 * wall / len(texts), "cpu": 1000 * cpu / len(texts)},
        "single_ms_per_text": {"wall": 1000 * single_wall / 200, "cpu": 1000 * single_cpu / 200},
        "mentions_by_type": dict(Counter(m.type for found in mentions for m in found)),
        "turns_with_entities": sum(1 for found in mentions if found),
        "entities_per_conversation": {conv: len(r.entities()) for conv, r in resolved.items()},
        "suggested_merges": {conv: [(m.absorbed, m.into, m.reason) for m in r.suggest_merges()]
                             for conv, r in resolved.items()},
    }


def measure_times(turns: list[dict], sample: int) -> dict:
    """Normalisation speed and coverage, and dateparser's search_dates on a sample."""
    spans, wall, cpu = timed(lambda: [normalise_time(t["text"], t["when"]) for t in turns])
    from dateparser.search import search_dates

    subset = turns[:sample]
    found, search_wall, _ = timed(lambda: [search_dates(t["text"], languages=["en"], settings={
        "RELATIVE_BASE": t["when"], "PREFER_DATES_FROM": "past"}) for t in subset])
    return {
        "texts": len(turns),
        "ms_per_text": {"wall": 1000 * wall / len(turns), "cpu": 1000 * cpu / len(turns)},
        "turns_with_time": sum(1 for span in spans if span),
        "by_granularity": dict(Counter(span.granularity for span in spans if span)),
        "search_dates": {
            "texts": len(subset), "ms_per_text": 1000 * search_wall / len(subset),
            "turns_with_hit": sum(1 for hit in found if hit),
            "ours_on_same_turns": sum(1 for span in spans[:sample] if span),
            "example_hits": [pair[0] for hit in found if hit for pair in hit][:25],
        },
    }


def score_times(turns: list[dict]) -> dict:
    """Exact-span accuracy on the hand-labelled turns."""
    index = {(t["conv"], t["dia_id"]): t for t in turns}
    wrong = []
    for conv, dia_id, start, end in TIME_LABELS:
        turn = index[(conv, dia_id)]
        span = normalise_time(turn["text"], turn["when"])
        got = (span.start.date().isoformat(), span.end.date().isoformat()) if span else (None, None)
        if got != (start, end):
            wrong.append({"turn": f"{conv} {dia_id}", "expected": [start, end], "got": list(got)})
    return {"labelled": len(TIME_LABELS), "exact": len(TIME_LABELS) - len(wrong), "wrong": wrong}


def score_entities(turns: list[dict]) -> dict:
    """Name precision/recall and type accuracy on the hand-labelled turns."""
    index = {(t["conv"], t["dia_id"]): t for t in turns}
    keys = list(ENTITY_LABELS)
    results = {}
    for mode in ("text only", "with speakers known"):
        found = extract_entities_batch([index[key]["text"] for key in keys], known_people=[]) \
            if mode == "text only" else [extract_entities(index[key]["text"], known_people=index[key]["speakers"])
                                         for key in keys]
        tp = fp = fn = typed = 0
        misses = []
        for key, mentions in zip(keys, found):
            gold = {name_key(name): kind for name, kind in ENTITY_LABELS[key].items()}
            got = {name_key(m.name): m.type for m in mentions}
            tp += len(gold.keys() & got.keys())
            fp += len(got.keys() - gold.keys())
            fn += len(gold.keys() - got.keys())
            typed += sum(1 for name in gold.keys() & got.keys() if gold[name] == got[name])
            if gold.keys() != got.keys():
                misses.append({"turn": " ".join(key), "missed": sorted(gold.keys() - got.keys()),
                               "extra": sorted(got.keys() - gold.keys())})
        results[mode] = {"gold": tp + fn, "found": tp + fp, "precision": tp / max(1, tp + fp),
                         "recall": tp / max(1, tp + fn), "type_accuracy": typed / max(1, tp),
                         "differences": misses}
    return results


def main() -> None:
    """Run every measurement and print (and optionally save) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--limit", type=int, default=2000, help="turns for the entity timing")
    parser.add_argument("--search-sample", type=int, default=300)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    turns = load_turns(args.data)
    report = {
        "when": datetime.now().isoformat(timespec="seconds"), "load_average": os.getloadavg(),
        "cpus": os.cpu_count(), "turns": len(turns),
        "times": measure_times(turns, args.search_sample), "time_accuracy": score_times(turns),
        "entities": measure_entities(turns[:args.limit]), "entity_accuracy": score_entities(turns),
    }
    text = json.dumps(report, indent=2, default=str)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
