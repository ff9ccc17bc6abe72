"""The harness on real data slices, a real embedded store and real embeddings."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from graphmem.errors import InvalidInput
from graphmem.evaluation import runner
from graphmem.evaluation.ingest import CONTEXT_TURNS, ingest_unit, namespace_for, previous_turns
from graphmem.evaluation.runner import EvalOptions, run_evaluation
from graphmem.ingestion.benchmarks import load_locomo
from graphmem.ingestion.benchmarks.model import Turn
from graphmem.models import MAX_TEXT_CHARS

from .conftest import LONGMEMEVAL, PERSONAMEM


@pytest.fixture(scope="module")
def locomo_run(locomo_slice, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "locomo"
    options = EvalOptions(benchmark="locomo", data=str(locomo_slice), out=str(out),
                          progress=False)
    return options, run_evaluation(options)


def test_ingestion_follows_the_protocol(locomo_slice, embedded_graph):
    """Both speakers own every turn, deposited at its session time; ids map back."""
    unit = load_locomo(locomo_slice).units[0]
    first = unit.turns[:6]
    ns = namespace_for("locomo", unit.id)
    turn_map, empty = ingest_unit(embedded_graph, unit.__class__(
        id=unit.id, benchmark=unit.benchmark, agents=unit.agents, turns=first, questions=()), ns)
    assert empty == 0 and set(turn_map.memories_of_turn) == {t.id for t in first}
    speaker_b = unit.agents[1]
    hits = embedded_graph.recall(speaker_b, first[2].text, k=5, ns=ns)
    # the turn's own memory is recalled by a channel that weighs its words; replies to it
    # (whose context is this turn) share its words and may rank above it
    own = [h for h in hits if first[2].id in turn_map.turns_of_memory[h.memory_id]]
    assert own and min(own[0].channels.values()) <= 5, "the turn's memory is found by its own words"
    assert set(own[0].owners) == set(unit.agents)  # depositor + witness
    # "yesterday", said in the session of 8 May 2023: `at` was the session time
    assert "yesterday" in first[2].text
    assert own[0].t.replace(tzinfo=None) == datetime(2023, 5, 7)
    replies = [h for h in hits if first[3].id in turn_map.turns_of_memory[h.memory_id]]
    assert all(first[2].text not in h.text for h in replies), "context is never the text"
    agents = embedded_graph.cypher("MATCH (a:Agent {ns: $ns}) RETURN a.id AS id, a.kind AS kind",
                                   {"ns": ns})
    assert {(a["id"], a["kind"]) for a in agents} == {(s, "human") for s in unit.agents}


def test_locomo_results_shape_and_scores(locomo_run):
    options, results = locomo_run
    assert results["benchmark"] == "locomo" and results["questions"] == 20
    assert set(results["systems"]) == {"graphmem", "bm25", "dense", "rrf"}
    for summary in results["systems"].values():
        overall = summary["overall"]
        assert overall["n"] == 20
        assert {"recall_all@1", "recall_all@10", "recall_any@20", "ndcg_any@5"} <= set(overall)
        assert all(0 <= overall[m] <= 1 for m in overall if m != "n")
        assert overall["recall_all@1"] <= overall["recall_all@10"] <= overall["recall_all@20"]
        assert set(summary["by_category"]) == {"1", "2", "3", "4", "5"}
        assert summary["latency_ms"]["p50"] <= summary["latency_ms"]["p95"]
    # an easy single-turn question: each system finds D1:3 in its top 10
    record = json.loads((options.out_path / "units.jsonl").read_text().splitlines()[0])
    question = record["questions"][0]
    assert question["evidence"] == ["D1:3"]
    assert all("D1:3" in s["turns"][:10] for s in question["systems"].values())
    assert all(t.startswith(("D1:", "D2:")) for s in question["systems"].values()
               for t in s["turns"])
    assert record["turns"] == 35 and record["memories"] > 0
    markdown = (options.out_path / "results.md").read_text()
    assert "| graphmem |" in markdown and "5 adversarial" in markdown
    assert (options.out_path / "recall_all_at_10_by_category.png").stat().st_size > 1000
    on_disk = json.loads((options.out_path / "results.json").read_text())
    assert on_disk["systems"]["bm25"]["overall"] == results["systems"]["bm25"]["overall"]


def test_rerun_skips_finished_units_and_refuses_other_settings(locomo_run, monkeypatch):
    options, results = locomo_run

    def must_not_run(*args, **kwargs):
        raise AssertionError("a finished unit was evaluated again")

    monkeypatch.setattr(runner, "evaluate_unit", must_not_run)
    again = run_evaluation(options)
    assert again["systems"]["graphmem"]["overall"] == results["systems"]["graphmem"]["overall"]
    assert len((options.out_path / "units.jsonl").read_text().splitlines()) == 1
    changed = EvalOptions(**{**vars(options), "ks": (3,)})
    with pytest.raises(InvalidInput, match="other settings \\(ks differ"):
        run_evaluation(changed)


@pytest.mark.slow
def test_prefeval_same_seed_same_numbers(shared_data, tmp_path):
    def run(out, limit):
        options = EvalOptions(benchmark="prefeval", data=str(shared_data / "prefeval"),
                              out=str(tmp_path / out), limit=limit, distractors=10, seed=7,
                              topics=("travel_restaurant",), progress=False)
        run_evaluation(options)
        return options, [json.loads(line) for line in
                         (options.out_path / "units.jsonl").read_text().splitlines()]

    options, first = run("a", 2)
    _, again = run("b", 1)
    results = json.loads((options.out_path / "results.json").read_text())
    assert results["questions"] == 2
    assert results["systems"]["graphmem"]["by_distractors"].keys() == {"10"}
    assert set(results["systems"]["graphmem"]["by_category"]) == {"travel_restaurant"}
    assert "choice_accuracy" in results["systems"]["dense"]["overall"]
    assert [r["turns"] for r in first] == [21, 21]  # preference + 10 exchanges
    assert all(q["evidence"] == ["pref:0"] for r in first for q in r["questions"])

    def without_latency(record):
        return [{name: {k: v for k, v in s.items() if k != "latency_ms"}
                 for name, s in q["systems"].items()} for q in record["questions"]]

    # the same seed: the same distractors, option order, rankings and choices
    assert without_latency(again[0]) == without_latency(first[0])
    assert again[0]["questions"][0]["correct_option"] == first[0]["questions"][0]["correct_option"]


def test_longmemeval_fixture_levels_and_abstention(tmp_path):
    options = EvalOptions(benchmark="longmemeval", data=str(LONGMEMEVAL), out=str(tmp_path / "r"),
                          systems=("graphmem", "bm25"), progress=False)
    results = run_evaluation(options)
    assert results["questions"] == 6 and results["scored_questions"] == 5  # _abs left out
    overall = results["systems"]["graphmem"]["overall"]
    assert {"session_recall_all@5", "session_ndcg_any@10", "recall_all@50",
            "ndcg_any@5"} <= set(overall)
    assert "temporal-reasoning" in results["systems"]["bm25"]["by_category"]


def test_personamem_fixture_is_a_labelled_choice_proxy(tmp_path):
    options = EvalOptions(benchmark="personamem", data=str(PERSONAMEM), out=str(tmp_path / "r"),
                          systems=("graphmem", "dense"), limit=2, progress=False)
    results = run_evaluation(options)
    assert results["questions"] == 2 and "retrieval-only proxy" in results["label"]
    for summary in results["systems"].values():
        assert set(summary["overall"]) == {"n", "choice_accuracy"}
        assert 0 <= summary["overall"]["choice_accuracy"] <= 1
    assert "retrieval-only proxy" in (tmp_path / "r" / "results.md").read_text()


def test_a_write_while_asking_breaks_the_protocol(locomo_small, tmp_path, monkeypatch):
    from graphmem.errors import StoreError
    from graphmem.evaluation.systems import GraphmemSystem

    original = GraphmemSystem.retrieve

    def retrieve_and_write(self, asker, query, k):
        self.graph.remember(asker, "A note taken while answering.", ns=self.ns)
        return original(self, asker, query, k)

    monkeypatch.setattr(GraphmemSystem, "retrieve", retrieve_and_write)
    options = EvalOptions(benchmark="locomo", data=str(locomo_small), out=str(tmp_path / "r"),
                          systems=("graphmem",), progress=False)
    with pytest.raises(StoreError, match="memory changed while questions were asked"):
        run_evaluation(options)
    assert not (tmp_path / "r" / "units.jsonl").exists()  # nothing recorded for that unit


def _turn(tid: str, session: str, text: str) -> Turn:
    return Turn(id=tid, speaker="a", text=text, at=None, session=session)


def test_context_is_the_turns_before_in_the_same_session():
    turns = [_turn("1", "s1", "I took the kids to the museum."),
             _turn("2", "s1", "What were they stoked about?"),
             _turn("3", "s1", "   "),
             _turn("4", "s1", "The dinosaurs!"),
             _turn("5", "s2", "Hi again.")]
    context = previous_turns(turns)
    assert CONTEXT_TURNS == 2
    assert "1" not in context and "5" not in context  # a session's first turn has none
    assert context["2"] == "I took the kids to the museum."
    # blank turns are passed over; the window keeps the newest, oldest first
    assert context["4"] == "I took the kids to the museum. What were they stoked about?"
    assert previous_turns(turns, window=1)["4"] == "What were they stoked about?"
    with pytest.raises(ValueError, match="at least 1"):
        previous_turns(turns, window=0)


def test_a_long_context_keeps_its_end():
    turns = [_turn("1", "s", "x" * MAX_TEXT_CHARS), _turn("2", "s", "newest words"),
             _turn("3", "s", "reply")]
    context = previous_turns(turns)["3"]
    assert len(context) == MAX_TEXT_CHARS and context.endswith("newest words")
