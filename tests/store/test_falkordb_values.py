"""FalkorDB result values become plain Python, quickly for the common case of vectors."""

from __future__ import annotations

from falkordb import Edge, Node
from hypothesis import given
from hypothesis import strategies as st

from graphmem.store.falkordb import to_plain


def test_nodes_and_edges_inside_lists_and_maps_become_dicts():
    agent = Node(node_id=1, labels=["Agent"], properties={"id": "ana", "ns": "t"})
    owns = Edge(1, "OWNS", 2, edge_id=3, properties={"via": "told"})
    assert to_plain([agent, {"o": [owns]}]) == [
        {"_labels": ["Agent"], "id": "ana", "ns": "t"},
        {"o": [{"_type": "OWNS", "via": "told"}]},
    ]


def test_a_list_of_floats_with_one_node_still_converts_the_node():
    agent = Node(node_id=1, labels=["Agent"], properties={"id": "ana"})
    assert to_plain([0.5, agent]) == [0.5, {"_labels": ["Agent"], "id": "ana"}]


@given(st.lists(st.floats(allow_nan=False), max_size=400))
def test_an_embedding_comes_back_equal(vector):
    assert to_plain(vector) == vector
