"""The benchmark scripts run on a small slice of the real data.

Nothing else imports them, so a change to what they read breaks them without any other
test noticing: `ivf_bench.py` failed for sessions after the view's row columns came.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.benchmarks import scripts


def test_sentence_vectors_feed_the_index_benchmark(tmp_path, shared_data):
    out = tmp_path / "vectors"
    scripts.run("sentence_vectors.py", "--out", str(out), "--data", str(shared_data),
                 "--limit", "600", cwd=tmp_path)
    blocks = sorted(out.glob("v*.npy"))
    assert [b.name for b in blocks] == ["v000.npy"]
    vectors = np.load(blocks[0])
    assert vectors.shape == (600, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert len({v.tobytes() for v in vectors}) == 600  # each sentence once
    report = json.loads(scripts.run("ivf_bench.py", "--vectors", str(out), "--queries", "40",
                                     cwd=tmp_path))
    assert report["rows"] == 560 and report["queries"] == 40
    assert 0 < report["agent_rows"] < 560
    recalls = [side["recall@10_report"] for row in report["settings"].values()
               for side in row.values()]
    assert len(recalls) == 20 and all(0.0 <= r <= 1.0 for r in recalls)
    # a quarter of the lists over real sentences finds most of the whole view's
    # neighbours (an agent's tenth here is 56 rows: too few to say anything)
    shipped = report["settings"]["share 0.25, margin 190"]
    assert shipped["all"]["recall@10_report"] >= 0.9, report["settings"]


def test_the_snapshot_save_benchmark_saves_a_stores_view_aside(tmp_path):
    scripts.run("memory_bench.py", "--sizes", "300", "--ops", "0", "--template-vectors",
                "--data-dir", str(tmp_path / "data"), "--json", cwd=tmp_path)
    store = tmp_path / "data" / "size-300"
    kept = sorted(p.relative_to(store) for p in store.rglob("*") if "snap" in str(p))
    report = json.loads(scripts.run("snapshot_save_bench.py", "--data-dir", str(store),
                                     "--ns", "bench-300", "--json", cwd=tmp_path))
    assert report["memories"] == 300 and report["save_s"] >= 0
    assert report["written_mb_on_disk"] >= 0 and report["peak_over_before_mb"] >= 0
    assert report["after"]["rss_mb"] > 0 and report["slowest_steps_s"] is not None
    # saved aside: the store's own snapshot is as it was
    assert sorted(p.relative_to(store) for p in store.rglob("*") if "snap" in str(p)) == kept
    empty = scripts.completed("snapshot_save_bench.py", "--data-dir", str(store), "--ns",
                              "nobody", cwd=tmp_path)
    assert empty.returncode != 0 and "holds no memories" in empty.stderr


def test_memory_bench_refuses_more_askers_than_agents(tmp_path):
    done = scripts.completed("memory_bench.py", "--sizes", "300", "--askers", "21", cwd=tmp_path)
    assert done.returncode == 2 and "--askers takes 0 (all) to 20 agents, got 21" in done.stderr


def test_memory_bench_runs_on_a_small_store(tmp_path):
    report = json.loads(scripts.run("memory_bench.py", "--sizes", "300", "--ops", "10",
                                     "--template-vectors", "--deposit-atoms", "3", "--freeze",
                                     "--askers", "2",
                                     "--data-dir", str(tmp_path / "data"), "--json", cwd=tmp_path))
    (run,) = report
    assert run["memories"] == 300 and run["ops"] == 10 and run["askers"] == 2
    for op in ("remember", "recall", "recall, a list question naming an agent"):
        latency = run["latency_ms"][op]
        assert 0 < latency["p50"] <= latency["p95"] <= latency["max"]
    # memory is read before the close; the peak with the close (a snapshot save) apart
    assert 0 < run["rss_mb"] <= run["peak_rss_mb"] <= run["peak_rss_mb_with_close"]
    assert run["close_s"] >= 0


def test_the_exact_scan_benchmark_runs_on_scopes_smaller_than_its_candidates(tmp_path):
    report = json.loads(scripts.run("scan_bench.py", "--rows", "2000", "--scopes", "200,1000",
                                     "--queries", "5", cwd=tmp_path))
    # the half-precision copy scored first finds the single-precision scan's top k
    assert report["sizes"]["all 2000"]["same_top_k"] == "5/5"
    assert report["sizes"]["scope 200"]["same_top_k"] == "5/5"


def test_the_cold_start_benchmark_measures_a_snapshot(tmp_path):
    report = json.loads(scripts.run("cold_start_bench.py", "--size", "5000", "--writes", "5",
                                     "--synthetic-vectors", cwd=tmp_path))
    assert report["same_hits"] is True and report["snapshot_mb"] > 0
    assert report["first_recall_from_snapshot_s"] > 0
    # the fill's tail (tens of MB) is bounded by the server's own rewrites, and what is
    # left of it by the last close's
    assert report["aof_tail_mb"] < report["aof_base_mb"]
    assert report["aof_tail_mb_after_last_close"] < 4
    assert report["start_and_first_recall_after_rewrite_s"] > 0
    assert report["same_hits_after_restarts"] is True


def test_the_crash_restart_benchmark_loses_nothing_under_either_setting(tmp_path):
    report = json.loads(scripts.run("crash_restart_bench.py", "--size", "2000", "--writes",
                                    "60", "--percents", "10", cwd=tmp_path))
    rows = report["settings"]
    assert [r["rewrite_percent"] for r in rows] == [100, 10]
    assert all(r["every_memory_kept"] and r["hits"] == 10 for r in rows)
    assert all(r["open_after_crash_s"] > 0 for r in rows) and rows[0]["open_vs_redis_default"] == 1


def test_the_cold_start_benchmark_says_when_a_store_is_too_small(tmp_path):
    done = scripts.completed("cold_start_bench.py", "--size", "300", cwd=tmp_path)
    assert done.returncode == 2
    assert "too small to measure" in done.stderr and "5000" in done.stderr


#: the other benchmark scripts on small inputs, and a line of what each prints
SMALL_RUNS = [
    ("ann_bench.py", ["--size", "300", "--queries", "5", "--synthetic-vectors"], '"scopes"'),
    ("first_read_bench.py", ["--size", "300"], "| page | first read s |"),
    ("lifecycle_bench.py", ["--sizes", "300"], "| memories | maintain s |"),
    ("log_compaction_bench.py", ["--size", "300", "--starts", "1"], "| reclaim | reclaim s |"),
    ("store_bench.py", ["--sizes", "300", "--ops", "10"], "| nodes | operation |"),
    ("statement_parse_bench.py", ["--limit", "20"], "| statements |"),
    ("meaning_bench.py", ["--limit", "20"], '"turns"'),
]


@pytest.mark.parametrize("script,args,shows", SMALL_RUNS, ids=[r[0] for r in SMALL_RUNS])
def test_a_benchmark_script_runs_on_a_small_input(tmp_path, shared_data, script, args, shows):
    assert shows in scripts.run(script, *args, cwd=tmp_path)


def test_the_hnsw_benchmark_runs_on_real_sentences(tmp_path, shared_data):
    out = tmp_path / "vectors"
    scripts.run("sentence_vectors.py", "--out", str(out), "--data", str(shared_data),
                 "--limit", "500", cwd=tmp_path)
    report = json.loads(scripts.run("hnsw_rescore_bench.py", "--vectors", str(out), "--queries",
                                     "10", cwd=tmp_path))
    assert report["rows"] == 490 and report["queries"] == 10
    assert 0.0 <= report["whole"]["fetch_10"]["recall@10"] <= 1.0


def test_a_channel_left_out_is_left_out_of_the_gates_table_too(monkeypatch):
    monkeypatch.syspath_prepend(str(scripts.ROOT / "benchmarks"))
    from memory_bench import without_channel

    from graphmem.retrieval.config import HYBRID

    assert HYBRID.route is not None and HYBRID.route.weights["deposit"] > 0
    lacking = without_channel("deposit")
    assert lacking.route is not None and lacking.route.weights["deposit"] == 0.0
    assert all(t["deposit"] == 0.0 for t in (lacking.weights, *lacking.kind_weights.values()))
    assert lacking.route.model_copy(update={"weights": None}) == HYBRID.route.model_copy(
        update={"weights": None})
