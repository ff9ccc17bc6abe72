"""Several processes depositing equivalent statements at once: one record, every owner."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from graphmem import MemoryGraph

WORKER = textwrap.dedent("""
    import sys, time
    from graphmem import MemoryGraph
    data_dir, agent, start_at = sys.argv[1], sys.argv[2], float(sys.argv[3])
    g = MemoryGraph.open(data_dir=data_dir)
    g.embedder.embed(["warm up"])
    statements = [
        "The east gate of the harbour was left open on Sunday night.",
        "A red van was parked next to the old lighthouse.",
        "Someone took three boxes of fish from the cold store.",
    ]
    while time.time() < start_at:
        time.sleep(0.005)
    for text in statements:
        g.remember(agent, text, ns="race")
    g.close()
""")


def test_racing_processes_end_with_one_record_per_statement_and_all_owners(tmp_path):
    import time

    data_dir = tmp_path / "data"
    MemoryGraph.open(data_dir=data_dir).close()
    agents = ["ana", "ben", "cy", "dee"]
    start_at = time.time() + 25  # every worker has loaded its model by then
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(data_dir), a, str(start_at)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for a in agents]
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
