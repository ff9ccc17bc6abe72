"""The typed statement parameters match the query files, for every backend."""

from __future__ import annotations

import pytest

from graphmem.queries import query_files
from graphmem.statements import DepositRows, UnmergeRows


@pytest.mark.parametrize("rows, name", [(DepositRows, "memory/apply_deposit"),
                                        (UnmergeRows, "memory/unmerge")])
def test_fields_are_exactly_the_query_parameters(rows, name):
    variants = [q for q in query_files() if q.name == name]
    assert {q.backend for q in variants} == {"falkordb", "neo4j"}
    for query in variants:
        assert rows.parameter_names() == set(query.parameters), query.path
