"""Case-study graphs and exports of a small namespace on a real store."""

from __future__ import annotations

import csv
import json

import pytest

from graphmem import MemoryGraph
from graphmem.errors import InvalidInput
from graphmem.graphs.data import (
    combined_graph,
    conversation_graph,
    overlap_matrix,
    ownership_graph,
    view_graph,
)
from graphmem.graphs.export import (
    export_rows,
    import_command,
    to_server,
    write_csv,
    write_cypher,
)
from graphmem.graphs.render import heatmap_png, to_html, to_png, write_views
from tests.graphs.conftest import NS, PEOPLE


def test_the_three_views(village):
    talk = conversation_graph(village, NS)
    assert {(e["source"], e["target"], e["weight"]) for e in talk.edges} == {
        ("anna", "ben", 3), ("carl", "dora", 1)}
    assert {n["id"] for n in talk.nodes} == set(PEOPLE)
    owns = ownership_graph(village, NS)
    assert {(e["source"], e["target"]) for e in owns.edges} == {("anna", "ben"), ("carl", "dora")}
    assert all(e["weight"] >= 2 for e in owns.edges)
    both = combined_graph(village, NS)
    memories = [n for n in both.nodes if n["kind"] == "memory"]
    assert len(memories) == village.stats(ns=NS)["entries"]
    assert {n["id"] for n in both.nodes if n["kind"] != "memory"} == {*PEOPLE, "well"}
    assert any(e["type"] == "AFFILIATED" for e in both.edges)
    with pytest.raises(InvalidInput):
        view_graph(village, NS, "gossip")


def test_overlap_heat_map_orders_communities(village):
    order, matrix = overlap_matrix(village, NS)
    assert set(order) == set(PEOPLE)
    pairs = {frozenset(order[i:i + 2]) for i in (0, 2)}
    assert pairs == {frozenset(("anna", "ben")), frozenset(("carl", "dora"))}
    i, j = order.index("anna"), order.index("carl")
    assert matrix[i][j] == 0 and matrix[i][order.index("ben")] > 0


def test_html_and_png_files(village, tmp_path):
    page = to_html(view_graph(village, NS, "combined"), tmp_path / "c.html", title="v <x>")
    text = page.read_text()
    assert "<title>v &lt;x&gt;</title>" in text and "Anna" in text and "<script src" not in text
    assert to_png(conversation_graph(village, NS), tmp_path / "t.png").stat().st_size > 1000
    assert heatmap_png(village, NS, tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"
    written = write_views(village, NS, tmp_path / "all")
    assert len(written) == 7 and all(p.stat().st_size > 0 for p in written)


def test_exports_leave_the_embedding_out(village, tmp_path):
    rows = export_rows(village, NS)
    assert not any("embedding" in r["props"] for r in rows)
    assert any("embedding" in r["props"] for r in export_rows(village, NS, with_embeddings=True))
    statements = write_cypher(rows, tmp_path / "v.cypher").read_text().splitlines()
    assert sum(s.startswith("CREATE (:Memory") for s in statements) == \
        village.stats(ns=NS)["entries"]
    assert any(":MESSAGED" in s for s in statements) and all(s.endswith(";") for s in statements)
    paths = write_csv(rows, tmp_path / "csv")
    names = {p.name for p in paths}
    assert {"nodes_Agent.csv", "nodes_Memory.csv", "rels_OWNS.csv", "rels_MESSAGED.csv"} <= names
    with (tmp_path / "csv" / "rels_OWNS.csv").open() as f:
        header = next(csv.reader(f))
    assert header[0] == ":START_ID(Agent)" and header[-2:] == [":END_ID(Memory)", ":TYPE"]
    with (tmp_path / "csv" / "nodes_Memory.csv").open() as f:
        header = next(csv.reader(f))
    assert "variants:string[]" in header and not any("embedding" in h for h in header)
    assert "--nodes=Agent=nodes_Agent.csv" in import_command(paths)
    json.dumps(rows)  # the dump is plain JSON


def test_copy_into_a_neo4j_server(village, neo4j_server):
    with MemoryGraph.open(uri=neo4j_server["uri"], user=neo4j_server["user"],
                          password=neo4j_server["password"]) as target:
        to_server(village, NS, target)
        assert target.stats(ns=NS)["entries"] == village.stats(ns=NS)["entries"]
        target.drop_namespace(NS)


def test_the_cypher_dump_is_valid_neo4j_cypher(village, tmp_path):
    """Each statement of the file dump passes Neo4j's own Cypher front end (offline)."""
    from graphmem.devtools.cypher_lint import (
        LintQuery,
        LintToolMissing,
        errors_only,
        find_lint_script,
        lint_queries,
    )

    try:
        find_lint_script()
    except LintToolMissing as exc:
        pytest.fail(str(exc), pytrace=False)  # CI installs it; see tests/cypher
    lines = write_cypher(export_rows(village, NS), tmp_path / "v.cypher").read_text().splitlines()
    found = lint_queries([LintQuery(f"dump:{i}", line, ()) for i, line in enumerate(lines)])
    assert errors_only(found) == []
