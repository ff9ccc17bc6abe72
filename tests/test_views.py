"""The views of one handle: a large read takes the objects it made out of the garbage
collector's generations, and dropping the namespace gives them back."""

from __future__ import annotations

import gc

from graphmem import MemoryGraph
from graphmem import views as views_module


def test_a_large_read_is_kept_out_of_collections_until_its_namespace_is_dropped(
        tmp_path, monkeypatch):
    monkeypatch.setattr(views_module, "SETTLE_AFTER_ROWS", 3)
    gc.unfreeze()
    try:
        with MemoryGraph.open(data_dir=tmp_path / "d") as g:
            for text in ("Ana repaired the bicycle.", "Ben lost the map.", "Chloe sold a kite."):
                g.remember("ana", text, ns="big")
        with MemoryGraph.open(data_dir=tmp_path / "d") as g:
            assert g.recall("ana", "Who lost the map?", ns="big")  # reads the namespace
            assert gc.get_freeze_count() == 0
            g.recall("ana", "Who sold a kite?", ns="big")
            assert gc.get_freeze_count() > 0  # at its next catch-up
            g.remember("ana", "Dmitri found the spare key.", ns="small")
            frozen = gc.get_freeze_count()
            g.drop_namespace("big")
            g.recall("ana", "Who found the key?", ns="small")
            assert gc.get_freeze_count() < frozen
    finally:
        gc.unfreeze()
