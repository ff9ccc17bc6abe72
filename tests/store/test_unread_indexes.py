"""graphmem keeps no vector index on memories (nothing reads it: the view ranks in
process, and every write paid for it): a new store has none, and a store made by an
older release loses it when opened. (The full-text index: tests/store/test_contract.py.)"""

from __future__ import annotations

from graphmem import MemoryGraph


def _memory_indexes(graph) -> set[str]:
    rows = graph._views.store.read(
        "CALL db.indexes() YIELD label, properties, types RETURN label, properties, types")
    return {f"{kind}:{prop}" for r in rows if r["label"] == "Memory"
            for prop in r["properties"] for kind in (r["types"].get(prop) or [])}


def test_a_new_store_has_no_vector_index(tmp_path):
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g.remember("ana", "Ana repaired the blue bicycle at the harbour.")
        kinds = _memory_indexes(g)
    assert "VECTOR:embedding" not in kinds, kinds


def test_an_older_store_drops_it_on_open_and_still_recalls(tmp_path):
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        store = g._views.store
        store.write(store.queries["schema/memory_embedding"])
        store.write("MATCH (s:GraphmemSchema {name: 'memory_embedding_vector_dropped'}) DELETE s")
        assert "VECTOR:embedding" in _memory_indexes(g)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        assert "VECTOR:embedding" not in _memory_indexes(g)
        g.remember("ana", "Ana repaired the blue bicycle at the harbour.")
        assert g.recall("ana", "Who repaired the bicycle?")  # recall never needed it


def test_a_new_store_or_one_whose_indexes_were_dropped_by_hand_opens(tmp_path):
    """The drop steps find nothing to drop there; that is done, not an error."""
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g._views.store.write("MATCH (s:GraphmemSchema) WHERE s.name ENDS WITH '_dropped' DELETE s")
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        assert {"memory_embedding_vector_dropped", "memory_text_fulltext_dropped"} <= \
            set(g._views.store.schema_steps())
