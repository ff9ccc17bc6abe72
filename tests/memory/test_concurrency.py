"""Several processes depositing equivalent statements at once: one record, every owner."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from graphmem import MemoryGraph

WORKER = textwrap.dedent("""
    import pathlib, sys, time
    from graphmem import MemoryGraph
    data_dir, agent, barrier = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    g = MemoryGraph.open(data_dir=data_dir)
    g.embedder.embed(["warm up"])
    statements = [
        "The east gate of the harbour was left open on Sunday night.",
        "A red van was parked next to the old lighthouse.",
        "Someone took three boxes of fish from the cold store.",
    ]
    (barrier / f"ready-{agent}").touch()
    while not (barrier / "go").exists():  # every worker starts writing at once
        time.sleep(0.002)
    for text in statements:
        g.remember(agent, text, ns="race")
    g.close()
""")


@pytest.mark.slow
def test_racing_processes_end_with_one_record_per_statement_and_all_owners(tmp_path):
    data_dir, barrier = tmp_path / "data", tmp_path / "barrier"
    barrier.mkdir()
    MemoryGraph.open(data_dir=data_dir).close()
    agents = ["ana", "ben", "cy", "dee"]
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(data_dir), a, str(barrier)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for a in agents]
    deadline = time.time() + 300
    while len(list(barrier.glob("ready-*"))) < len(agents):
        failed = [p for p in procs if p.poll() not in (None, 0)]
        assert not failed, failed[0].communicate()[1].decode()[-2000:]
        assert time.time() < deadline, "workers did not get ready within 300 s"
        time.sleep(0.05)
    (barrier / "go").touch()
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()[-2000:]
    with MemoryGraph.open(data_dir=data_dir) as g:
        rows = g.cypher(
            "MATCH (m:Memory {ns: 'race'}) OPTIONAL MATCH (a:Agent)-[:OWNS]->(m) "
            "RETURN m.text AS text, collect(a.id) AS owners")
    assert len(rows) == 3, [r["text"] for r in rows]
    for row in rows:
        assert sorted(row["owners"]) == agents
