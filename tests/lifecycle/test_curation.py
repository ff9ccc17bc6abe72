"""Curation: pin, forget, correct, delete and consolidate, each logged with who did it,
each seen by every handle at its next call."""

from __future__ import annotations

import json

import pytest

from graphmem import InvalidInput, MemoryGraph


def ops(g: MemoryGraph, memory: str) -> list[tuple[str, str]]:
    rows = g.cypher("MATCH (o:OpLog {memory: $m}) RETURN o.op AS op, o.agent AS by "
                    "ORDER BY o.seq", {"m": memory})
    return [(r["op"], r["by"]) for r in rows]


def test_pin_and_forget_are_logged_and_forget_is_undone(graph):
    mid = graph.remember("ana", "The east gate was left open.", witnesses=["ben"]).memory_ids[0]
    graph.pin(mid, by="ines")
    graph.forget(mid, by="ines")
    assert graph.recall("ben", "Was the east gate open?") == []
    graph.unforget(mid, by="ines")
    assert graph.recall("ben", "Was the east gate open?")[0].memory_id == mid
    assert ops(graph, mid) == [("pin", "ines"), ("forget", "ines"), ("unforget", "ines")]
    row = graph.cypher("MATCH (m:Memory {id: $m}) RETURN m.pinned AS p", {"m": mid})
    assert row == [{"p": True}]


def test_another_handle_sees_a_forget_at_its_next_call(tmp_path, embedder):
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as one, \
            MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as two:
        mid = one.remember("ana", "The east gate was left open.").memory_ids[0]
        assert two.recall("ana", "east gate")
        one.forget(mid, by="ines")
        assert two.recall("ana", "east gate") == []


def test_a_correction_supersedes_the_old_wording_for_every_owner(graph):
    old = graph.remember("ana", "The ship carries 40 crates.", witnesses=["ben"]).memory_ids[0]
    new = graph.correct(old, "The ship carries 39 crates.", by="ines")
    hits = graph.recall("ben", "How many crates does the ship carry?", k=2)
    assert [h.memory_id for h in hits] == [new, old]
    assert [h.status for h in hits] == ["current", "superseded"]
    assert sorted(hits[0].owners) == ["ana", "ben"]
    assert ops(graph, old) == [("correct", "ines")]


def test_delete_erases_the_text_everywhere_and_leaves_a_tombstone(graph):
    secret = "Ana's door code is 4471."
    result = graph.remember("ana", secret + " The meeting is on Friday.",
                            context="What is the code?")
    mid = next(a.memory_id for a in result.atoms if "4471" in a.text)
    graph.delete(mid, by="ines")
    nodes = graph.cypher("MATCH (n) RETURN [k IN keys(n) WHERE k <> 'embedding' | n[k]] AS v")
    edges = graph.cypher("MATCH ()-[r]->() RETURN [k IN keys(r) | r[k]] AS v")
    # the words, not the digits: ids and epoch-ms times may hold "4471" by chance
    assert "door code" not in json.dumps([r["v"] for r in nodes + edges], default=str)
    assert all("4471" not in h.text for h in graph.recall("ana", "door code 4471"))
    assert ops(graph, mid)[-1] == ("delete", "ines")
    assert graph.recall("ana", "When is the meeting?")[0].text == "The meeting is on Friday."


def test_consolidation_makes_one_fact_owned_by_all(graph):
    a = graph.remember("ana", "The crane broke on Monday.").memory_ids[0]
    b = graph.remember("ben", "The harbour crane was broken on Monday morning.").memory_ids[0]
    fact = graph.consolidate([a, b], by="ines")
    rows = graph.cypher("MATCH (f:Memory {id: $f})-[:CONSOLIDATED_FROM]->(s) "
                        "RETURN f.kind AS kind, collect(s.id) AS sources", {"f": fact})
    assert rows[0]["kind"] == "semantic" and sorted(rows[0]["sources"]) == sorted([a, b])
    for agent in ("ana", "ben"):
        assert [h.memory_id for h in graph.recall(agent, "What broke on Monday?")] == [fact]


def test_curation_refuses_what_it_cannot_do(graph):
    mid = graph.remember("ana", "The east gate was left open.").memory_ids[0]
    with pytest.raises(InvalidInput, match="no memory 'm-nope'"):
        graph.pin("m-nope", by="ines")
    with pytest.raises(InvalidInput, match="by"):
        graph.forget(mid, by=" ines")
    with pytest.raises(InvalidInput, match="empty"):
        graph.correct(mid, "  ", by="ines")
    with pytest.raises(InvalidInput, match="at least two"):
        graph.consolidate([mid, mid], by="ines")


def test_the_command_line_twins_log_the_curator(tmp_path):
    import subprocess
    import sys

    def graphmem(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "from graphmem.cli import main; main()",
                               "--data-dir", str(tmp_path / "d"), *args],
                              capture_output=True, text=True, timeout=300)

    with MemoryGraph.open(data_dir=tmp_path / "d") as g:
        mid = g.remember("ana", "The east gate was left open.").memory_ids[0]
    assert graphmem("forget", mid, "--by", "ines").returncode == 0
    fixed = graphmem("correct", mid, "The east gate was shut.", "--by", "ines")
    assert fixed.returncode == 0, fixed.stderr
    bad = graphmem("pin", "m-nope", "--by", "ines")
    assert bad.returncode == 1 and "no memory 'm-nope'" in bad.stderr
    with MemoryGraph.open(data_dir=tmp_path / "d") as g:
        assert ops(g, mid) == [("forget", "ines"), ("correct", "ines")]
        assert g.recall("ana", "east gate")[0].memory_id == fixed.stdout.strip()


def test_with_a_chat_model_the_consolidated_fact_is_its_summary(tmp_path, monkeypatch, embedder):
    import textwrap

    (tmp_path / "summaries.py").write_text(textwrap.dedent("""
        from langchain_core.language_models.fake_chat_models import FakeListChatModel

        def make():
            return FakeListChatModel(responses=[
                '{"fact": "The harbour crane was broken on Monday."}', *['not json'] * 10])
    """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRAPHMEM_LLM", "summaries:make")
    monkeypatch.setenv("GRAPHMEM_LLM_FOR", "consolidate")
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        a = g.remember("ana", "The crane broke on Monday.").memory_ids[0]
        b = g.remember("ben", "Repairs to the harbour crane began on Tuesday.").memory_ids[0]
        fact = g.consolidate([a, b], by="ines")
        c = g.remember("cy", "The ferry was late on Friday.").memory_ids[0]
        d = g.remember("dee", "The ferry captain blamed the fog.").memory_ids[0]
        fallback = g.consolidate([c, d], by="ines")  # unusable answer: the central statement
        texts = g.cypher("MATCH (m:Memory) WHERE m.id IN [$f, $g] RETURN m.id AS id, m.text AS t",
                         {"f": fact, "g": fallback})
    by_id = {r["id"]: r["t"] for r in texts}
    assert by_id[fact] == "The harbour crane was broken on Monday."
    assert by_id[fallback] in {"The ferry was late on Friday.", "The ferry captain blamed the fog."}
