"""View snapshots: a restored view ranks exactly as a view read from the store, and a
snapshot of another store, namespace lineage, history or format is never used."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from graphmem import MemoryGraph
from graphmem import view_snapshot as vs
from graphmem.retrieval import bm25
from graphmem.retrieval.bm25 import BM25Index
from tests.scenes import channel_alone
from tests.view_snapshot.stores import FACTS, NS, fill, keep, restore, snapshot_dir_of


def test_a_restored_view_ranks_as_the_store_does(stored):
    keep(stored)
    view, text_index = restore(stored)
    live = stored._views.synced(NS)
    assert view.version == live.version and len(view) == len(live)
    assert np.array_equal(view._matrix[:len(view)], live._matrix[:len(live)])
    assert {m: (r.text, r.owners, r.affiliated) for m, r in view.records.items()} == \
        {m: (r.text, r.owners, r.affiliated) for m, r in live.records.items()}
    owned = set(view.owned_ids("ana"))
    assert text_index.search("bicycle harbour", 3, owned) == \
        stored._views.text_index(NS).search("bicycle harbour", 3, owned)


def test_a_restored_view_catches_up_and_indexes_new_memories(stored):
    keep(stored)
    stored.remember("ana", "Ana bought a kite at the station.", witnesses=["ben"], ns=NS)
    view, text_index = restore(stored)
    stored._views._views[NS] = view
    stored._views._text_indexes[NS] = text_index
    stored._views.synced(NS)
    assert any("kite" in r.text for r in view.records.values())
    assert text_index.search("kite station", 1, set(view.owned_ids("ana")))


def test_a_restored_view_writes_new_vectors_into_the_mapped_room(stored):
    """A new memory's vector goes into the empty rows saved after the snapshot's: the
    mapped vectors are not copied into a larger matrix (4.5 GB at a million)."""
    keep(stored)
    stored.remember("ana", "Ana bought a kite at the station.", witnesses=["ben"], ns=NS)
    view, _ = restore(stored)
    mapped, n = view._matrix, len(view)
    assert len(mapped) == n + vs.room(n)
    view.sync(stored._views.store, stored._views.queries, stored._views.state(NS).version)
    assert len(view) == n + 1 and view._matrix is mapped
    live = stored._views.synced(NS)
    assert np.array_equal(view.vector(view.id_at(n)), live.vector(view.id_at(n)))


def test_a_snapshot_holds_the_vectors_once(stored):
    """Releases before 2026-12-03 read a float16 copy of the vectors (``half.npy``); they
    cannot use a snapshot of this layout whatever it holds, so none is written."""
    keep(stored)
    directory = snapshot_dir_of(stored)
    assert [p.name for p in directory.glob("*.npy") if "vectors" in p.name or "half" in p.name] \
        == [vs.VECTORS_FILE]
    assert len(np.load(directory / vs.VECTORS_FILE)) >= len(stored._views.synced(NS))


def test_the_vectors_are_saved_with_their_room_as_zeros(stored):
    """The vectors file is written, not mapped (a mapped output counted in the process's
    resident memory until it closed): the view's rows, then `room` rows of zeros."""
    keep(stored)
    live = stored._views.synced(NS)
    n = len(live)
    saved = np.load(snapshot_dir_of(stored) / vs.VECTORS_FILE)
    assert saved.shape == (n + vs.room(n), live._matrix.shape[1])
    assert saved.dtype == live._matrix.dtype
    assert np.array_equal(saved[:n], live._matrix[:n]) and not saved[n:].any()


def test_saving_a_restored_text_index_makes_none_of_its_rows_terms(stored):
    """A restored BM25 index makes a row's terms when it is first read, and keeps them:
    a save copies the unread rows as they were saved instead of making every one (0.5 GB
    kept after a save at a million memories), and writes the rows read or replaced."""
    keep(stored)
    view, text_index = restore(stored)
    terms_of = text_index.index._terms_of
    assert terms_of._made == {}  # nothing read yet
    first = terms_of[0]  # read: saved again from what it is now
    terms_of[1] = ("replaced",)
    vs.save(snapshot_dir_of(stored), view, text_index, vs.fingerprint(stored._views.store,
                                                         stored._views.queries, NS))
    assert set(terms_of._made) == {0, 1}
    again = restore(stored)[1].index._terms_of
    assert [again[i] for i in range(len(again))] == \
        [first, ("replaced",), *(terms_of[i] for i in range(2, len(terms_of)))]


def test_the_bm25_layout_names_what_a_snapshot_saves_not_what_speeds_searches():
    """A snapshot whose layout differs is read again from the store (ten minutes at a
    million memories), so an attribute added to the BM25 index must be either saved (and
    the layout changed on purpose) or declared derived, kept for speed and made again:
    the masks a search by rows keeps are derived, and once they were not declared so
    every snapshot was ignored."""
    index = BM25Index()
    index.add("m", "a lake trip", 0)
    index.search("lake", rows=np.array([0], dtype=np.int64))  # keeps a mask
    assert index._masks and set(bm25.DERIVED) <= set(index.__dict__)
    assert vs._layout()["bm25"] == sorted(
        ["k1", "b", "_tokenize", "_postings", "_df", "_slot_of", "_ids", "_terms_of",
         "_lengths", "_live", "_keys", "_slot_of_key", "_total_length"])


def test_a_save_removes_what_a_killed_save_left_not_a_live_one(stored):
    """A process killed while it saved a snapshot leaves its temporary directory (1.7 GB
    at a million memories); the next save removes it, and leaves a live process's."""
    keep(stored)
    directory = snapshot_dir_of(stored)
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True)
    dead = int(finished.stdout)
    left = [directory.with_name(f".{directory.name}.{dead}.{end}") for end in ("tmp", "old")]
    live = directory.with_name(f".{directory.name}.{os.getppid()}.tmp")
    other = directory.with_name(f".{directory.name}x.{dead}.tmp")  # another snapshot's
    for path in (*left, live, other):
        path.mkdir()
        (path / "vectors.npy").write_bytes(b"half written")
    keep(stored)
    assert not any(path.exists() for path in left)
    assert live.exists() and other.exists()
    assert restore(stored) is not None


def test_a_dropped_and_recreated_namespace_is_another_lineage(stored):
    keep(stored)
    stored.drop_namespace(NS)
    fill(stored, FACTS[:3])
    assert restore(stored) is None


def test_another_store_never_uses_the_snapshot(stored, tmp_path, monkeypatch):
    keep(stored)
    monkeypatch.setenv("GRAPHMEM_SNAPSHOT_DIR", str(tmp_path / "shared-snapshots"))
    keep(stored)
    with MemoryGraph.open(data_dir=tmp_path / "other") as other:
        fill(other)
        other.warm(NS)
        assert restore(other) is None


def test_another_format_or_a_damaged_file_is_ignored(stored):
    keep(stored)
    directory = snapshot_dir_of(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "format": vs.FORMAT + 1}))
    assert restore(stored) is None
    (directory / vs.META_FILE).write_text(json.dumps(meta))
    assert restore(stored) is not None
    (directory / vs.STATE_FILE).write_bytes(b"not a snapshot")
    assert restore(stored) is None


def test_a_snapshot_read_under_other_preference_rules_is_ignored(stored):
    """Which memories state a preference or a constraint is read once, when the view
    indexes them, and saved: a snapshot whose sets were read under other cue lists
    would rank the profile and constraints channels by the old rules."""
    keep(stored)
    directory = snapshot_dir_of(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    assert meta["layout"]["text_rules"]
    other = {**meta["layout"], "text_rules": "0" * 16}
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": other}))
    assert restore(stored) is None
    (directory / vs.META_FILE).write_text(json.dumps(meta))
    assert restore(stored) is not None


def test_a_snapshot_ahead_of_the_store_or_of_another_history_is_ignored(stored):
    keep(stored)
    directory = snapshot_dir_of(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "version": meta["version"] + 5}))
    assert restore(stored) is None
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "probe": {"id": "gone", "seq": 1}}))
    assert restore(stored) is None


def test_a_state_that_would_run_code_is_refused(stored):
    import pickle

    keep(stored)
    directory = snapshot_dir_of(stored)

    class Boom:
        def __reduce__(self):
            return (print, ("ran",))

    (directory / vs.STATE_FILE).write_bytes(pickle.dumps({"view": Boom(), "text": None}))
    assert restore(stored) is None


def test_a_reopened_store_starts_from_the_snapshot_and_recalls_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 3)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        fill(g)
        g.warm(NS)
        before = [h.memory_id for h in g.recall("ana", "Where is the bicycle?", ns=NS)]
        directory = snapshot_dir_of(g)
    assert (directory / vs.META_FILE).exists()  # written on close
    read = []
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g._views.store.add_tracer(lambda query, params: read.append(query))
        after = [h.memory_id for h in g.recall("ana", "Where is the bicycle?", ns=NS)]
    assert after == before
    # caught up from the snapshot's version: nothing was read again
    assert read and g._views.queries["memory/changed_since"] not in read


def test_the_text_index_a_first_recall_builds_is_saved_on_close(tmp_path, monkeypatch):
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 3)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        fill(g)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        # the first read saves the view before the recall builds its text index
        before = [h.memory_id for h in g.recall("ana", "Where is the bicycle?", ns=NS)]
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        view, text_index = restore(g)
        assert text_index is not None and len(view) == len(FACTS)
        after = [h.memory_id for h in g.recall("ana", "Where is the bicycle?", ns=NS)]
        assert g._views._text_indexes[NS] is not None
    assert after == before


def test_a_handle_that_read_many_changed_memories_saves_them_on_close(tmp_path, monkeypatch):
    """Merges add no memory but change them: a handle that read as many changes as
    `SAVE_AFTER_ROWS` saves its view on close, so the next process need not read them."""
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 3)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        fill(g)
        g.warm(NS)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g.register_agent("chloe", kind="human", name="Chloe", ns=NS)
        merged = [g.remember("chloe", text, ns=NS).atoms[0].action for text in FACTS[:4]]
        assert merged == ["merged"] * 4
        assert len(g._views.synced(NS)) == len(FACTS)
    read = []
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g._views.store.add_tracer(lambda query, params: read.append(query))
        hits = g.recall("chloe", "Where did Ben move?", ns=NS)
    assert hits  # chloe owns what she re-asserted
    assert read and g._views.queries["memory/changed_since"] not in read


def test_a_short_catch_up_is_saved_on_close_and_a_long_one_at_once(tmp_path, monkeypatch):
    """A catch-up short beside the view leaves the snapshot to the close: the save, which
    writes the whole view, would cost the recall waiting for it more than the read did.
    One long beside the view is saved at once."""
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 1)
    monkeypatch.setattr(vs, "SAVE_IN_SYNC_SHARE", 0.5)
    more = [f"{name} found a {thing} at the {place}." for name, thing, place in (
        ("Dora", "compass", "pier"), ("Eli", "lantern", "barn"), ("Fay", "ladder", "mill"),
        ("Gus", "kettle", "quay"), ("Hal", "rope", "forge"), ("Ivy", "map", "chapel"),
        ("Jon", "drum", "school"), ("Kit", "bell", "tower"), ("Lou", "key", "garden"),
        ("Max", "coin", "bridge"))]

    def saved_version():
        return json.loads((directory / vs.META_FILE).read_text())["version"]

    def write_elsewhere(texts):  # another handle, which saves no snapshot of its own
        monkeypatch.setenv("GRAPHMEM_VIEW_SNAPSHOTS", "0")
        with MemoryGraph.open(data_dir=tmp_path / "data") as writer:
            for text in texts:
                writer.remember("ana", text, witnesses=["ben"], ns=NS)
        monkeypatch.delenv("GRAPHMEM_VIEW_SNAPSHOTS")

    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        fill(g)
        g.warm(NS)  # the first read, the whole view: saved at once
        directory = snapshot_dir_of(g)
        first = saved_version()
        write_elsewhere(more[:2])
        assert len(g._views.synced(NS)) == len(FACTS) + 2  # read 2 of 8: not yet
        assert saved_version() == first
    assert saved_version() > first  # on close
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g.warm(NS)
        second = saved_version()
        write_elsewhere(more[2:])
        assert len(g._views.synced(NS)) == len(FACTS) + len(more)  # read 8 of 16: at once
        assert saved_version() > second


def test_a_reclaim_of_many_memories_saves_the_view_on_close(tmp_path, monkeypatch):
    """`reclaim` applies each batch to the view it holds instead of reading the memories
    back: they count as memories read do, so the next process starts from the snapshot
    (a reclaim of a million memories left it behind by all of them)."""
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 3)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        fill(g)
        g.warm(NS)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g.cypher("MATCH (m:Memory {ns: $ns}) SET m.claims = NULL", {"ns": NS},
                 write=True)  # as an import leaves them; the view does not notice
        memories = len(g._views.synced(NS))
        assert g.reclaim() == {NS: memories}
    read = []
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g._views.store.add_tracer(lambda query, params: read.append(query))
        assert g.recall("ana", "Where is the bicycle?", ns=NS)
        view = g._views.synced(NS)
        assert len(view) == memories and all(r.claims for r in view.records.values())
    assert read and g._views.queries["memory/changed_since"] not in read


def test_the_vocabulary_is_saved_with_its_vectors_and_its_waiting_words(stored):
    question = "Which trips and outdoor hobbies are there?"
    before = [h.memory_id for h in stored.recall("ana", question, k=4, ns=NS,
                                                 config=channel_alone("expand"))]
    stored.remember("ana", "Ana took up kayaking on weekends.", witnesses=["ben"], ns=NS)
    keep(stored)  # the new words not embedded yet: saved waiting
    live = stored._views.text_index(NS).vocabulary
    _, text_index = restore(stored)
    restored = text_index.vocabulary
    assert restored.words == live.words and restored.waiting == live.waiting == \
        ["took", "kayaking", "weekends"]
    assert np.array_equal(restored.vectors, live.vectors) and len(live.vectors) > 10
    stored._views._text_indexes[NS] = text_index
    after = [h.memory_id for h in stored.recall("ana", question, k=5, ns=NS,
                                                config=channel_alone("expand"))]
    assert not restored.waiting and "kayaking" in restored.words
    assert set(before) <= set(after) and len(after) == 5
