"""Corruption is never silent: a damaged append-only record that still parses makes the
server replay the namespace only up to it; opening refuses such a store, ``graphmem
check`` says what is missing, and ``graphmem repair`` keeps the consistent prefix and
says how many writes it lost."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from graphmem import CorruptDataError, MemoryGraph
from tests.cli import graphmem as run_graphmem

STATEMENTS = [f"The harbour crane number {i} was inspected by the night crew." for i in range(6)]


def graphmem(*args: str) -> subprocess.CompletedProcess:
    return run_graphmem(*args, timeout=300)


def incr_aof(data: Path) -> Path:
    return next((data / "appendonlydir").glob("*.incr.aof"))


def test_a_damaged_write_is_found_on_open_checked_and_repaired(tmp_path, embedder):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        for i, text in enumerate(STATEMENTS):
            g.remember(("ana", "ben")[i % 2], text, ns="port")
    aof = incr_aof(data)
    raw = aof.read_bytes()
    record = b"`expected`=2 `"  # 14 bytes inside the third deposit's record
    assert raw.count(record) == 1
    aof.write_bytes(raw.replace(record, b"`expected`=7 `"))

    with pytest.raises(CorruptDataError, match="4 of its 6 writes are missing.*graphmem repair"):
        MemoryGraph.open(data_dir=data, embedder=embedder)
    checked = graphmem("--data-dir", str(data), "check")
    assert checked.returncode == 1 and "4 of its 6 writes are missing" in checked.stdout

    repaired = graphmem("repair", "--data-dir", str(data))
    assert repaired.returncode == 0, repaired.stderr
    assert "namespace 'port': kept writes 1 to 2, lost 4" in repaired.stdout
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        assert g.check() == []
        g.remember("ana", "The crane was repaired on Friday.", ns="port")
        kept = g.cypher("MATCH (m:Memory {ns: 'port'}) RETURN m.text AS t ORDER BY m.seq")
    assert [r["t"] for r in kept] == [*STATEMENTS[:2], "The crane was repaired on Friday."]
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:  # replays the same again
        assert g.check() == [] and len(g.cypher("MATCH (m:Memory) RETURN m")) == 3
    assert graphmem("--data-dir", str(data), "check").returncode == 0


def test_a_dropped_namespace_leaves_no_journal_entry(embedded_graph):
    embedded_graph.remember("ana", "The tide was high at six.", ns="gone")
    embedded_graph.drop_namespace("gone")
    assert embedded_graph.check() == []
