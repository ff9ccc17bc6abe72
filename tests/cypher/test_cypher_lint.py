"""Every Neo4j-dialect query passes Neo4j's own Cypher front end (offline, via node).

Neo4j cannot run here, so this is the check that a query written and tested on FalkorDB
also parses and type-checks as Neo4j 5 Cypher. The tool is installed by scripts/setup
where Node.js 20+ is present; without it these tests skip with the reason, except in CI
(``CI`` set), where the tool must be there and its absence fails them.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from graphmem.devtools.cypher_lint import (
    Diagnostic,
    LintQuery,
    LintToolMissing,
    errors_only,
    find_lint_script,
    lint_queries,
    neo4j_queries,
)
from graphmem.queries import LABELS, query_files
from graphmem.store.neo4j import AWAIT_INDEXES_QUERY, SERVER_VERSION_QUERY

BROKEN = {
    "syntax": LintQuery("syntax", "MATCH (m:Memory {ns: $ns}\nRETURN m", ("ns",)),
    "undefined_variable": LintQuery("undefined_variable", "MATCH (m:Memory)\nRETURN n.id AS id", ()),
    "undeclared_parameter": LintQuery("undeclared_parameter", "MATCH (m:Memory {ns: $ns}) RETURN m", ()),
    "falkordb_procedure": LintQuery(
        "falkordb_procedure",
        "CALL db.idx.fulltext.queryNodes('Memory', $q) YIELD node RETURN node", ("q",)),
    "plugin_function": LintQuery("plugin_function", "RETURN apoc.coll.sum([1, 2]) AS s", ()),
    "falkordb_function": LintQuery(
        "falkordb_function", "MATCH (m:Memory) SET m.embedding = vecf32($v)", ("v",)),
}
CLEAN = LintQuery(
    "vector_search",
    "CALL db.index.vector.queryNodes('memory_embedding', $k, $vector) YIELD node, score\n"
    "WHERE node.ns = $ns RETURN node.id AS id, score",
    ("k", "vector", "ns"))


# Queries the Neo4j adapter runs from code rather than from cypher/.
ADAPTER_QUERIES = [
    LintQuery("store/neo4j.py:SERVER_VERSION_QUERY", SERVER_VERSION_QUERY, ()),
    LintQuery("store/neo4j.py:AWAIT_INDEXES_QUERY", AWAIT_INDEXES_QUERY, ("timeout",)),
]
SAMPLE = "sample:"  # prefix of the hand-written samples above, apart from the repo's queries


@pytest.fixture(scope="module")
def findings() -> tuple[list[LintQuery], list[Diagnostic]]:
    """The repo's Neo4j queries and the samples, linted in one node process."""
    try:
        find_lint_script()
    except LintToolMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(str(exc), pytrace=False)
        pytest.skip(str(exc))
    ours = neo4j_queries() + ADAPTER_QUERIES
    samples = [replace(q, name=SAMPLE + q.name) for q in [*BROKEN.values(), CLEAN]]
    return ours, lint_queries(ours + samples)


def test_every_neo4j_query_passes_the_lint(findings):
    queries, found = findings
    names = {q.name for q in queries}
    assert "schema/record_step" in names and f"schema/unique_ns_id[{LABELS[0]}]" in names
    ours = [d for d in found if not d.name.startswith(SAMPLE)]
    for d in ours:  # deprecations and the like: shown in pytest's warnings summary
        if d.severity == "warning":
            warnings.warn(f"Cypher lint: {d}", UserWarning, stacklevel=1)
    errors = errors_only(ours)
    assert not errors, "Neo4j rejects these queries:\n" + "\n".join(map(str, errors))


def sample_errors(found: list[Diagnostic], name: str) -> list[str]:
    return [f"{d.line}: {d.message}" for d in errors_only(found) if d.name == SAMPLE + name]


@pytest.mark.parametrize("sample, expected", [
    ("syntax", "2: Invalid input 'RETURN'"),
    ("undefined_variable", "2: Variable `n` not defined"),
    ("undeclared_parameter", "1: Parameter $ns is not defined"),
    ("falkordb_procedure", "1: Procedure db.idx.fulltext.queryNodes is not present"),
    ("plugin_function", "1: Function apoc.coll.sum is not present"),
    ("falkordb_function", "1: Function vecf32 is not present"),
])
def test_lint_catches_broken_query(findings, sample, expected):
    errors = sample_errors(findings[1], sample)
    assert any(e.startswith(expected) for e in errors), errors


def test_lint_accepts_neo4j_vector_procedure(findings):
    assert sample_errors(findings[1], CLEAN.name) == []


def test_neo4j_queries_picks_shared_and_neo4j_variants(tmp_path: Path):
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "get.cypher").write_text("MATCH (m:Memory {id: $id}) RETURN m")
    (tmp_path / "memory" / "search.neo4j.cypher").write_text("RETURN $q AS q")
    (tmp_path / "memory" / "search.falkordb.cypher").write_text("RETURN $q AS q, 1 AS f")
    (tmp_path / "memory" / "one.neo4j.cypher").write_text("MATCH (n:{label}) RETURN n")
    queries = neo4j_queries(query_files(tmp_path))
    assert [(q.name, q.params) for q in queries if "[" not in q.name] == [
        ("memory/get", ("id",)), ("memory/search", ("q",))]
    labelled = [q for q in queries if q.name.startswith("memory/one[")]
    assert [q.text for q in labelled] == [f"MATCH (n:{label}) RETURN n" for label in LABELS]
