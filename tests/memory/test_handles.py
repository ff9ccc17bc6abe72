"""Every open handle sees the same store: what one process drops, makes strict or names,
another handle honours at its next call."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from graphmem import InvalidInput, MemoryGraph

OTHER = textwrap.dedent("""
    import sys
    from graphmem import MemoryGraph
    data_dir, action = sys.argv[1], sys.argv[2]
    with MemoryGraph.open(data_dir=data_dir) as g:
        if action == "drop":
            g.drop_namespace("port")
        elif action == "strict":
            g.set_strict("port")
        elif action == "name":
            g.register_agent("u1", kind="human", name="Ana", ns="port")
""")


def in_another_process(data_dir, action: str) -> None:
    done = subprocess.run([sys.executable, "-c", OTHER, str(data_dir), action],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_namespace_dropped_elsewhere_is_gone_here_and_writable_again(tmp_path, embedder):
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        g.remember("ana", "The harbour crane broke down on Monday.", ns="port")
        assert g.recall("ana", "What broke down?", ns="port")
        in_another_process(tmp_path / "d", "drop")
        assert g.recall("ana", "What broke down?", ns="port") == []
        result = g.remember("ana", "The harbour crane was repaired on Friday.", ns="port")
        assert result.attempts == 1
        texts = [h.text for h in g.recall("ana", "What happened to the crane?", ns="port")]
    assert texts == ["The harbour crane was repaired on Friday."]


def test_a_namespace_made_strict_elsewhere_is_strict_here(tmp_path, embedder):
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        g.register_agent("ana", ns="port")
        g.remember("ana", "The tide is high at six.", ns="port", witnesses=["ben"])
        in_another_process(tmp_path / "d", "strict")
        with pytest.raises(InvalidInput, match="strict"):
            g.remember("ana", "The tide is low at noon.", ns="port", witnesses=["zed"])
        rows = g.cypher("MATCH (m:Memory {ns: 'port'}) RETURN count(m) AS n")
    assert rows[0]["n"] == 1


def test_a_name_given_elsewhere_is_the_speaker_here(tmp_path, embedder):
    """A statement in the first person is written in the speaker's name: the name the
    agent has when it is written, not the one this handle read first."""
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        g.remember("u1", "I found the boat keys.", ns="port")
        in_another_process(tmp_path / "d", "name")
        g.remember("u1", "I moved to Lisbon in May.", ns="port")
        texts = [r["text"] for r in g.cypher(
            "MATCH (m:Memory {ns: 'port'}) RETURN m.text AS text ORDER BY m.seq")]
    assert texts == ["u1 found the boat keys.", "Ana moved to Lisbon in May."]


def test_a_recall_reads_again_the_names_given_elsewhere(tmp_path, embedder):
    """The names a question is read with (who "Ana" is) follow a registration made by
    another process."""
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        g.remember("u1", "I found the boat keys.", ns="port")
        g.recall("u1", "Who found the keys?", ns="port")
        assert g._writer.agent_name("port", "u1") == "u1"
        in_another_process(tmp_path / "d", "name")
        g.recall("u1", "Who found the keys?", ns="port")
        assert g._writer.agent_name("port", "u1") == "Ana"


def test_the_names_of_a_deposits_witnesses_and_a_questions_agents_are_read_at_once(
        tmp_path, embedder):
    """A handle that knows no names reads all it needs in one round trip, not one an
    agent: the witnesses of a deposit, and every agent a question may name."""
    people = {f"u{i}": name for i, name in enumerate(["Ana", "Ben", "Chloe", "Dev", "Eli"])}
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        for agent, name in people.items():
            g.register_agent(agent, kind="human", name=name, ns="port")
        g.remember("u0", "Ben found the boat keys.", ns="port")
        g.remember("u1", "Chloe lost the map.", ns="port", witnesses=["u2", "u3"])
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        reads = []
        g._views.store.add_tracer(lambda query, params: reads.append(query))
        names = g._writer.queries["memory/agent_names"]
        g.remember("u4", "I saw the map at the pier.", witnesses=["u1", "u2", "u3"], ns="port")
        assert reads.count(names) == 1
        assert g._writer.agent_names("port", ["u1", "u2", "u3", "nobody"]) == {
            "u1": "Ben", "u2": "Chloe", "u3": "Dev", "nobody": "nobody"}
        assert reads.count(names) == 2  # "nobody" was not kept: read again, alone
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        reads = []
        g._views.store.add_tracer(lambda query, params: reads.append(query))
        g.recall("u0", "When did Chloe lose the map?", ns="port")  # reads who is named
        assert reads.count(g._writer.queries["memory/agent_names"]) == 1
        assert g._writer.agent_names("port", list(people)) == people
