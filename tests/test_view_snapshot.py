"""View snapshots: a restored view ranks exactly as a view read from the store, and a
snapshot of another store, namespace lineage, history or format is never used."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from graphmem import MemoryGraph
from graphmem import view_snapshot as vs
from graphmem.retrieval import bm25
from graphmem.retrieval.bm25 import BM25Index
from tests.scenes import channel_alone

NS = "snap"
FACTS = ["Ana repaired the blue bicycle at the harbour.", "Ben lost three letters at the market.",
         "Ana prefers tea to coffee.", "Ben moved to Toronto in May.",
         "Chloe painted the old mill red.", "Ana and Ben went camping by the river."]


def _fill(graph, facts=FACTS):
    for agent in ("ana", "ben"):
        graph.register_agent(agent, kind="human", name=agent.capitalize(), ns=NS)
    for i, text in enumerate(facts):
        graph.remember("ana" if i % 2 == 0 else "ben", text,
                       witnesses=["ben" if i % 2 == 0 else "ana"], ns=NS)


def _restore(graph):
    return vs.restore(graph._views.store, graph._views.queries, NS)


def _keep(graph):
    view = graph._views.synced(NS)
    vs.keep(graph._views.store, graph._views.queries, view, graph._views.text_index(NS))


def _dir(graph):
    return vs.snapshot_dir(graph._views.store, NS)


@pytest.fixture
def stored(tmp_path):
    g = MemoryGraph.open(data_dir=tmp_path / "data")
    _fill(g)
    g.warm(NS)
    yield g
    g.close()


def test_a_restored_view_ranks_as_the_store_does(stored):
    _keep(stored)
    view, text_index = _restore(stored)
    live = stored._views.synced(NS)
    assert view.version == live.version and len(view) == len(live)
    assert np.array_equal(view._matrix[:len(view)], live._matrix[:len(live)])
    assert {m: (r.text, r.owners, r.affiliated) for m, r in view.records.items()} == \
        {m: (r.text, r.owners, r.affiliated) for m, r in live.records.items()}
    owned = set(view.owned_ids("ana"))
    assert text_index.search("bicycle harbour", 3, owned) == \
        stored._views.text_index(NS).search("bicycle harbour", 3, owned)


def test_a_restored_view_catches_up_and_indexes_new_memories(stored):
    _keep(stored)
    stored.remember("ana", "Ana bought a kite at the station.", witnesses=["ben"], ns=NS)
    view, text_index = _restore(stored)
    stored._views._views[NS] = view
    stored._views._text_indexes[NS] = text_index
    stored._views.synced(NS)
    assert any("kite" in r.text for r in view.records.values())
    assert text_index.search("kite station", 1, set(view.owned_ids("ana")))


def test_a_restored_view_writes_new_vectors_into_the_mapped_room(stored):
    """A new memory's vector goes into the empty rows saved after the snapshot's: the
    mapped vectors are not copied into a larger matrix (4.5 GB at a million)."""
    _keep(stored)
    stored.remember("ana", "Ana bought a kite at the station.", witnesses=["ben"], ns=NS)
    view, _ = _restore(stored)
    mapped, n = view._matrix, len(view)
    assert len(mapped) == n + vs.room(n)
    view.sync(stored._views.store, stored._views.queries, stored._views.state(NS).version)
    assert len(view) == n + 1 and view._matrix is mapped
    live = stored._views.synced(NS)
    assert np.array_equal(view.vector(view.id_at(n)), live.vector(view.id_at(n)))


def test_a_snapshot_holds_the_vectors_once(stored):
    """Releases before 2026-12-03 read a float16 copy of the vectors (``half.npy``); they
    cannot use a snapshot of this layout whatever it holds, so none is written."""
    _keep(stored)
    directory = _dir(stored)
    assert [p.name for p in directory.glob("*.npy") if "vectors" in p.name or "half" in p.name] \
        == [vs.VECTORS_FILE]
    assert len(np.load(directory / vs.VECTORS_FILE)) >= len(stored._views.synced(NS))


def test_the_vectors_are_saved_with_their_room_as_zeros(stored):
    """The vectors file is written, not mapped (a mapped output counted in the process's
    resident memory until it closed): the view's rows, then `room` rows of zeros."""
    _keep(stored)
    live = stored._views.synced(NS)
    n = len(live)
    saved = np.load(_dir(stored) / vs.VECTORS_FILE)
    assert saved.shape == (n + vs.room(n), live._matrix.shape[1])
    assert saved.dtype == live._matrix.dtype
    assert np.array_equal(saved[:n], live._matrix[:n]) and not saved[n:].any()


def test_saving_a_restored_text_index_makes_none_of_its_rows_terms(stored):
    """A restored BM25 index makes a row's terms when it is first read, and keeps them:
    a save copies the unread rows as they were saved instead of making every one (0.5 GB
    kept after a save at a million memories), and writes the rows read or replaced."""
    _keep(stored)
    view, text_index = _restore(stored)
    terms_of = text_index.index._terms_of
    assert terms_of._made == {}  # nothing read yet
    first = terms_of[0]  # read: saved again from what it is now
    terms_of[1] = ("replaced",)
    vs.save(_dir(stored), view, text_index, vs.fingerprint(stored._views.store,
                                                         stored._views.queries, NS))
    assert set(terms_of._made) == {0, 1}
    again = _restore(stored)[1].index._terms_of
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
    _keep(stored)
    directory = _dir(stored)
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True)
    dead = int(finished.stdout)
    left = [directory.with_name(f".{directory.name}.{dead}.{end}") for end in ("tmp", "old")]
    live = directory.with_name(f".{directory.name}.{os.getppid()}.tmp")
    other = directory.with_name(f".{directory.name}x.{dead}.tmp")  # another snapshot's
    for path in (*left, live, other):
        path.mkdir()
        (path / "vectors.npy").write_bytes(b"half written")
    _keep(stored)
    assert not any(path.exists() for path in left)
    assert live.exists() and other.exists()
    assert _restore(stored) is not None


def test_a_dropped_and_recreated_namespace_is_another_lineage(stored):
    _keep(stored)
    stored.drop_namespace(NS)
    _fill(stored, FACTS[:3])
    assert _restore(stored) is None


def test_another_store_never_uses_the_snapshot(stored, tmp_path, monkeypatch):
    _keep(stored)
    monkeypatch.setenv("GRAPHMEM_SNAPSHOT_DIR", str(tmp_path / "shared-snapshots"))
    _keep(stored)
    with MemoryGraph.open(data_dir=tmp_path / "other") as other:
        _fill(other)
        other.warm(NS)
        assert _restore(other) is None


def test_another_format_or_a_damaged_file_is_ignored(stored):
    _keep(stored)
    directory = _dir(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "format": vs.FORMAT + 1}))
    assert _restore(stored) is None
    (directory / vs.META_FILE).write_text(json.dumps(meta))
    assert _restore(stored) is not None
    (directory / vs.STATE_FILE).write_bytes(b"not a snapshot")
    assert _restore(stored) is None


def test_a_snapshot_read_under_other_preference_rules_is_ignored(stored):
    """Which memories state a preference or a constraint is read once, when the view
    indexes them, and saved: a snapshot whose sets were read under other cue lists
    would rank the profile and constraints channels by the old rules."""
    _keep(stored)
    directory = _dir(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    assert meta["layout"]["text_rules"]
    other = {**meta["layout"], "text_rules": "0" * 16}
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": other}))
    assert _restore(stored) is None
    (directory / vs.META_FILE).write_text(json.dumps(meta))
    assert _restore(stored) is not None


def test_a_snapshot_ahead_of_the_store_or_of_another_history_is_ignored(stored):
    _keep(stored)
    directory = _dir(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "version": meta["version"] + 5}))
    assert _restore(stored) is None
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "probe": {"id": "gone", "seq": 1}}))
    assert _restore(stored) is None


def test_a_state_that_would_run_code_is_refused(stored):
    import pickle

    _keep(stored)
    directory = _dir(stored)

    class Boom:
        def __reduce__(self):
            return (print, ("ran",))

    (directory / vs.STATE_FILE).write_bytes(pickle.dumps({"view": Boom(), "text": None}))
    assert _restore(stored) is None


def test_a_reopened_store_starts_from_the_snapshot_and_recalls_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 3)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        _fill(g)
        g.warm(NS)
        before = [h.memory_id for h in g.recall("ana", "Where is the bicycle?", ns=NS)]
        directory = _dir(g)
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
        _fill(g)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        # the first read saves the view before the recall builds its text index
        before = [h.memory_id for h in g.recall("ana", "Where is the bicycle?", ns=NS)]
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        view, text_index = _restore(g)
        assert text_index is not None and len(view) == len(FACTS)
        after = [h.memory_id for h in g.recall("ana", "Where is the bicycle?", ns=NS)]
        assert g._views._text_indexes[NS] is not None
    assert after == before


def test_a_handle_that_read_many_changed_memories_saves_them_on_close(tmp_path, monkeypatch):
    """Merges add no memory but change them: a handle that read as many changes as
    `SAVE_AFTER_ROWS` saves its view on close, so the next process need not read them."""
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 3)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        _fill(g)
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
        _fill(g)
        g.warm(NS)  # the first read, the whole view: saved at once
        directory = _dir(g)
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
        _fill(g)
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


def test_a_snapshot_an_earlier_release_saved_is_saved_again_on_close(tmp_path, monkeypatch):
    """A process of an earlier release that saves the snapshot leaves out the sibling
    columns: this one makes them on load and writes them back on close, read or not."""
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 3)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        _fill(g, [" ".join(FACTS[:3]), " ".join(FACTS[3:])])  # one deposit of 3 atoms each
        g.warm(NS)
        directory = _dir(g)
    assert all((directory / name).exists() for name in vs.snapshot_columns.SIBLING_FILES)
    for name in vs.snapshot_columns.SIBLING_FILES:
        (directory / name).unlink()
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        view = g._views.synced(NS)
        assert vs.incomplete(view)
        siblings = {m: view.siblings(m) for m in view._ids}
    assert all((directory / name).exists() for name in vs.snapshot_columns.SIBLING_FILES)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        view = g._views.synced(NS)
        assert not vs.incomplete(view)
        assert {m: view.siblings(m) for m in view._ids} == siblings
    assert sorted(len(of) for of in siblings.values()) == [2] * len(FACTS)


def test_a_snapshot_of_the_layout_before_the_row_columns_is_upgraded_not_read_again(stored):
    from graphmem.view_snapshot import upgrade

    stored.remember("ana", "Ana fixed the kettle. Then she walked to the lighthouse.",
                    at="8 May 2023", ns=NS)
    first = stored.recall("ana", "Ana repaired the bicycle", k=1, ns=NS)[0].memory_id
    stored.forget(first, by="ana", ns=NS)
    _keep(stored)
    directory = _dir(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    # as the release before the row columns wrote it: no column files, nor in the layout
    for column in directory.glob("view.row.*.npy"):
        column.unlink()
    old = {**meta["layout"], "view": [a for a in meta["layout"]["view"]
                                      if a not in upgrade.ADDED]}
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": {**old,
                                                                         "record": ["x"]}}))
    assert _restore(stored) is None  # another difference besides: ignored, not upgraded
    assert not list(directory.glob("view.row.*.npy"))
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": old}))
    view, _ = _restore(stored)
    seen = {m: (view.is_forgotten(m), view.time_of(m), view.has_siblings(m))
            for m in view._ids}  # from the columns, before any record is made
    assert seen == {m: (r.forgotten, r.t, bool(r.affiliated)) for m, r in view.records.items()}
    assert seen[first][0] and any(t for _, t, _ in seen.values()) and \
        any(linked for _, _, linked in seen.values())  # each column has something to say
    assert json.loads((directory / vs.META_FILE).read_text())["layout"] == meta["layout"]


def test_a_snapshot_before_the_document_keys_is_upgraded_not_read_again(stored):
    from graphmem.view_snapshot import upgrade

    _keep(stored)
    directory = _dir(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    # as the release before the keys wrote it: no key files, nor in the layout
    keys = sorted(directory.glob("text.*.keys.npy"))
    assert [k.name for k in keys] == ["text.index.keys.npy", "text.words.keys.npy"]
    saved = {k: np.load(k) for k in keys}
    for k in keys:
        k.unlink()
    old = {**meta["layout"], "bm25": [a for a in meta["layout"]["bm25"]
                                      if a not in upgrade.BM25_ADDED]}
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": old}))
    view, text_index = _restore(stored)
    assert {k: np.load(k) for k in keys}.keys() == saved.keys()
    assert all(np.array_equal(np.load(k), saved[k]) for k in keys)  # as the index keyed them
    live = stored._views.text_index(NS)
    for agent in ("ana", "ben"):
        rows = view.owned_rows(agent)
        assert text_index.search_words("bicycle Toronto tea", 3, rows=rows) == \
            live.search_words("bicycle Toronto tea", 3, set(view.owned_ids(agent))) != []


def test_the_vocabulary_is_saved_with_its_vectors_and_its_waiting_words(stored):
    question = "Which trips and outdoor hobbies are there?"
    before = [h.memory_id for h in stored.recall("ana", question, k=4, ns=NS,
                                                 config=channel_alone("expand"))]
    stored.remember("ana", "Ana took up kayaking on weekends.", witnesses=["ben"], ns=NS)
    _keep(stored)  # the new words not embedded yet: saved waiting
    live = stored._views.text_index(NS).vocabulary
    _, text_index = _restore(stored)
    restored = text_index.vocabulary
    assert restored.words == live.words and restored.waiting == live.waiting == \
        ["took", "kayaking", "weekends"]
    assert np.array_equal(restored.vectors, live.vectors) and len(live.vectors) > 10
    stored._views._text_indexes[NS] = text_index
    after = [h.memory_id for h in stored.recall("ana", question, k=5, ns=NS,
                                                config=channel_alone("expand"))]
    assert not restored.waiting and "kayaking" in restored.words
    assert set(before) <= set(after) and len(after) == 5


def test_a_snapshot_before_the_vocabulary_is_upgraded_not_read_again(stored):
    from graphmem.view_snapshot import columns

    question = "Which trips and outdoor hobbies are there?"
    live = [h.memory_id for h in stored.recall("ana", question, k=4, ns=NS,
                                               config=channel_alone("expand"))]
    _keep(stored)
    directory = _dir(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    # as the release before the vocabulary wrote it: no vocabulary files, nor in the layout
    for name in directory.glob(f"{columns.VOCABULARY_FILE}.*"):
        name.unlink()
    old = {**meta["layout"], "text_index": [a for a in meta["layout"]["text_index"]
                                            if a != columns.VOCABULARY]}
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": old}))
    view, text_index = _restore(stored)
    vocabulary = text_index.vocabulary
    assert not vocabulary.words and {"bicycle", "toronto", "camping"} <= set(vocabulary.waiting)
    assert json.loads((directory / vs.META_FILE).read_text())["layout"] == meta["layout"]
    stored._views._views[NS] = view
    stored._views._text_indexes[NS] = text_index
    again = [h.memory_id for h in stored.recall("ana", question, k=4, ns=NS,
                                                config=channel_alone("expand"))]
    assert again == live and not vocabulary.waiting  # embedded by the first question


def test_a_snapshot_of_the_timelines_by_id_is_upgraded_not_read_again(stored):
    """Until the twenty-sixth session the view's timelines (`_arcs`) ordered the memories
    of one time by id; `_timelines` orders them by when they were recorded. A snapshot of
    the old layout gets the new column from its own: the restored timelines are the
    live view's, the memories of one day in the order they were told."""
    from graphmem.view_snapshot import upgrade
    from graphmem.view_snapshot.lazy import write_json_column

    told = ["Ben mended the fence.", "Ben baked bread for the neighbours.",
            "Ben repainted the kitchen door.", "Ben walked the dog to the vet."]
    for text in told:
        stored.remember("ben", text, at="8 May 2023", ns=NS)
    _keep(stored)
    live = stored._views.synced(NS)
    directory = _dir(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    # as the release before wrote it: (t, id) items in that order, named `_arcs`
    entities = list(live._timelines)
    write_json_column(directory, "view._arcs",
                      [sorted([t, mid] for t, _, mid in live.arc(e)) for e in entities])
    (directory / "view._arcs.keys.json").write_text(json.dumps(entities))
    for name in directory.glob("view._timelines.*"):
        name.unlink()
    old = {**meta["layout"], "view": sorted(
        {*meta["layout"]["view"]} - {upgrade.TIMELINES} | {upgrade.OLD_TIMELINES})}
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": old}))
    view, _ = _restore(stored)
    assert json.loads((directory / vs.META_FILE).read_text())["layout"] == meta["layout"]
    assert {e: view.arc(e) for e in entities} == {e: live.arc(e) for e in entities}
    words = ("fence", "bread", "kitchen", "vet")
    ben = max(entities, key=lambda e: len(live.arc(e)))
    along = [(t, next((w for w in words if w in live.records[mid].text), None))
             for t, _, mid in view.arc(ben)]
    assert [w for _, w in along if w] == list(words)
    assert len({t for t, w in along if w}) == 1  # one day
