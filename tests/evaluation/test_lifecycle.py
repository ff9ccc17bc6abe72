"""``graphmem eval lifecycle``: the scripted dialogue, its ground truth, the metrics on
hand-checked contexts, and a short real run (real store, real embeddings)."""

from __future__ import annotations

from collections import Counter

from click.testing import CliRunner

from graphmem import MemoryGraph
from graphmem.cli import cli
from graphmem.evaluation.lifecycle import (STRATEGIES, LifecycleOptions, judge_coverage,
                                           render_markdown, run_seed, score_context)
from graphmem.evaluation.lifecycle_script import START, Dialogue, Turn, generate


def tiny() -> Dialogue:
    """March 3, noise, moved to March 10, Maya owns billing, back to March 3."""
    turns = [Turn(0, "pm", "The launch is on March 3.", START, "launch", "March 3", "first"),
             Turn(1, "eng", "Any blockers on the roadmap?", START),
             Turn(2, "pm", "The launch moved to March 10.", START, "launch", "March 10",
                  "update"),
             Turn(3, "pm", "Maya owns billing.", START, "billing", "Maya", "first"),
             Turn(4, "pm", "The launch is back on March 3.", START, "launch", "March 3",
                  "revert")]
    return Dialogue(0, turns, {"launch": "the launch", "billing": "billing"},
                    {"launch": "date", "billing": "owner"},
                    {"launch": ("When is the launch?",), "billing": ("Who owns billing?",)})


def test_ground_truth_follows_updates_and_reverts():
    d = tiny()
    assert d.state(3) == {"launch": ("March 10", {"March 3"})}
    assert d.state(5) == {"launch": ("March 3", {"March 10"}), "billing": ("Maya", set())}


def test_metrics_on_hand_checked_contexts():
    d = tiny()
    stale_first = score_context([{0}, {2}], d, "launch", "March 10", {"March 3"})
    assert stale_first == {"recall": 1.0, "contradiction": 1.0, "pairs": 1, "above": 0}
    current_first = score_context([{2}, {1}, {0}], d, "launch", "March 10", {"March 3"})
    assert current_first == {"recall": 1.0, "contradiction": 0.0, "pairs": 1, "above": 1}
    stale_only = score_context([{1}, {0}], d, "launch", "March 10", {"March 3"})
    assert stale_only == {"recall": 0.0, "contradiction": 1.0, "pairs": 1, "above": 0}
    neither = score_context([{1}, {3}], d, "launch", "March 10", {"March 3"})
    assert neither == {"recall": 0.0, "contradiction": 0.0, "pairs": 0, "above": 0}
    # after the revert, the first statement is current again and March 10 is stale
    reverted = score_context([{0, 4}, {2}], d, "launch", "March 3", {"March 10"})
    assert reverted == {"recall": 1.0, "contradiction": 0.0, "pairs": 1, "above": 1}


def test_judge_coverage_counts_each_revision_once(embedder):
    coverage = judge_coverage([tiny()], embedder.embed)
    assert list(coverage) == ["date"]  # the update and the revert of the launch
    counts = coverage["date"]
    assert counts["pairs"] == 2
    assert counts["contradiction"] + counts["different"] + counts["equivalent"] == 2


def test_the_script_is_seeded_varied_and_says_its_values():
    a, b = generate(7, 300), generate(8, 300)
    assert [t.text for t in a.turns] == [t.text for t in generate(7, 300).turns]
    assert [t.text for t in a.turns] != [t.text for t in b.turns]
    moves = Counter(t.move for t in a.turns)
    assert moves["update"] > 20 and moves["revert"] > 3 and moves["noise"] > 150
    facts = [t for t in a.turns if t.slot]
    assert all(t.value in t.text for t in facts)
    # many phrasings per kind of fact, not one template
    openings = {t.text.split()[0] for t in facts if t.move == "update"}
    assert len(openings) >= 5
    assert len({t.slot for t in facts}) >= 8


def test_a_short_run_measures_every_strategy_and_supersession(tmp_path, embedder):
    dialogue = generate(4, 40)
    options = LifecycleOptions(out=str(tmp_path / "out"), seeds=(4,), turns=40, every=20)
    with MemoryGraph.open(data_dir=tmp_path / "data", embedder=embedder) as graph:
        checkpoints = run_seed(dialogue, graph, options, embedder)
    assert [c["turn"] for c in checkpoints] == [20, 40]
    last = checkpoints[-1]
    assert last["slots"] == len(dialogue.state(40)) > 0
    assert last["superseded_values"] > 0  # the script revised something by turn 40
    for name in STRATEGIES:
        m = last["strategies"][name]
        assert m["questions"] == last["slots"]
        assert 0.0 <= m["recall"] <= 1.0 and 0.0 <= m["contradiction"] <= 1.0
        assert m["latency_ms"]["p50"] is not None
    assert last["strategies"]["window"]["store_size"] == 10
    assert last["strategies"]["rag"]["store_size"] == 40
    assert 0 < last["strategies"]["graphmem"]["store_size"] <= 40
    assert last["strategies"]["rag"]["stale_pairs"] > 0  # stale values were retrieved
    assert last["write_path"]["stale_marked"] is not None
    assert last["maintenance"]["scored"] > 0
    results = {"settings": options.__dict__ | {"seeds": [4]}, "seeds": {"4": checkpoints},
               "summary": {}}
    assert "| 40 | graphmem |" in render_markdown(results)


def test_cli_refuses_bad_options(tmp_path):
    result = CliRunner().invoke(cli, ["eval", "lifecycle", "--out", str(tmp_path),
                                      "--seeds", "one"])
    assert result.exit_code == 1 and "--seeds" in result.output
    result = CliRunner().invoke(cli, ["eval", "lifecycle", "--out", str(tmp_path),
                                      "--turns", "10", "--every", "20"])
    assert result.exit_code == 1 and "--every" in result.output
