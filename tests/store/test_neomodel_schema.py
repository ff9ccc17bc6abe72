"""The neomodel classes imply the schema graphmem creates on Neo4j, within neomodel's limits.

neomodel's own ``install_labels`` is run with its query runner swapped for a recorder,
so the Cypher compared is exactly what neomodel would send; graphmem's side is the DDL
of its schema steps (cypher/schema/*.neo4j.cypher). Both are read into the same rule
tuples. neomodel cannot express a rule over several properties (composite uniqueness
on (ns, id), composite indexes), which is the one stated gap.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("neomodel", reason="neomodel is the optional extra graphmem[neomodel]")

from neomodel.sync_.schema import SchemaManager  # noqa: E402

from graphmem.queries import LABELS, queries_for  # noqa: E402
from graphmem.store import neomodel_schema  # noqa: E402
from graphmem.store.schema import STEPS  # noqa: E402

NEO4J_FULLTEXT_DEFAULTS = ("standard-no-stop-words", False)  # Neo4j 5 server defaults


class NewestServer:
    """What neomodel asks of the connection here: whether a feature's version is met."""

    def version_is_higher_than(self, version: str) -> bool:
        return True


class RecordingRunner:
    """Keeps the Cypher neomodel sends instead of sending it."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def cypher_query(self, query: str, *args, **kwargs):
        self.queries.append(query)
        return [], []


def read_rule(ddl: str) -> tuple | None:
    """One CREATE INDEX / CONSTRAINT statement as a comparable tuple (names ignored);
    None for a step that drops what older stores had."""
    text = " ".join(line for line in ddl.replace("`", "").splitlines()
                    if not line.lstrip().startswith("//"))
    text = " ".join(text.split()).rstrip(";")
    if text.startswith("DROP "):
        return None
    if m := re.search(r"CREATE CONSTRAINT .*FOR \(\w+:(\w+)\) REQUIRE \(?([\w., ]+?)\)? IS UNIQUE", text):
        return ("unique", m[1], tuple(p.split(".")[1].strip() for p in m[2].split(",")))
    if m := re.search(r"CREATE VECTOR INDEX .*FOR \(\w+:(\w+)\) ON \(?\w+\.(\w+)\)?"
                      r".*vector\.dimensions: (\d+).*vector\.similarity_function: '(\w+)'", text):
        return ("vector", m[1], m[2], int(m[3]), m[4])
    if m := re.search(r"CREATE FULLTEXT INDEX .*FOR \(\w+:(\w+)\) ON EACH \[([\w., ]+)\](.*)", text):
        analyzer = re.search(r"fulltext\.analyzer: '([\w-]+)'", m[3])
        eventual = re.search(r"fulltext\.eventually_consistent: (\w+)", m[3])
        return ("fulltext", m[1], tuple(p.split(".")[1].strip() for p in m[2].split(",")),
                analyzer[1] if analyzer else NEO4J_FULLTEXT_DEFAULTS[0],
                eventual[1].lower() == "true" if eventual else NEO4J_FULLTEXT_DEFAULTS[1])
    if m := re.search(r"CREATE (?:RANGE )?INDEX .*FOR \(\w+:(\w+)\) ON \(([\w., ]+)\)", text):
        return ("range", m[1], tuple(p.split(".")[1].strip() for p in m[2].split(",")))
    raise AssertionError(f"cannot read this DDL, extend read_rule: {text}")


@pytest.fixture(scope="module")
def neomodel_rules() -> set[tuple]:
    runner = RecordingRunner()
    manager = SchemaManager(NewestServer(), runner)
    for cls in neomodel_schema.NODE_CLASSES:
        manager.install_labels(cls)
    return {read_rule(q) for q in runner.queries}


@pytest.fixture(scope="module")
def store_rules() -> set[tuple]:
    queries = queries_for("neo4j")
    rules = {read_rule(queries.labelled(s.query, s.label) if s.label else queries[s.query])
             for s in STEPS}
    return rules - {None}


def test_neomodel_adds_nothing_graphmem_does_not_create(neomodel_rules, store_rules):
    # empty since graphmem keeps no single-property index (no vector or full-text one)
    assert neomodel_rules <= store_rules


def test_only_composite_rules_are_beyond_neomodel(neomodel_rules, store_rules):
    beyond = store_rules - neomodel_rules
    assert {("unique", label, ("ns", "id")) for label in LABELS} <= beyond
    single = [rule for rule in beyond if not (isinstance(rule[2], tuple) and len(rule[2]) > 1)]
    assert not single, f"declare these in graphmem/store/neomodel_schema.py: {single}"


def test_one_class_per_label_with_required_ns_and_id():
    assert tuple(cls.__label__ for cls in neomodel_schema.NODE_CLASSES) == LABELS
    for cls in neomodel_schema.NODE_CLASSES:
        props = cls.defined_properties(aliases=False, rels=False)
        by_db_name = {p.get_db_property_name(name): p for name, p in props.items()}
        assert by_db_name["ns"].required and by_db_name["id"].required, cls.__name__
        # A single-property unique index would be stricter than (ns, id) and wrong.
        assert not [n for n, p in props.items() if p.unique_index], cls.__name__


def test_relationship_types_of_the_data_model():
    declared = {(cls.__label__, rel.definition["relation_type"], rel.definition["direction"])
                for cls in neomodel_schema.NODE_CLASSES
                for rel in cls.defined_properties(aliases=False, properties=False).values()}
    outgoing = {(label, rel_type) for label, rel_type, direction in declared if direction == 1}
    assert outgoing == {("Agent", "OWNS"), ("Agent", "TRUSTS"), ("Memory", "AFFILIATED"),
                        ("Memory", "CONTRADICTS"), ("Memory", "MENTIONS")}
