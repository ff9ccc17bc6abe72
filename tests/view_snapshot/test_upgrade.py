"""Snapshots an earlier release wrote: each is upgraded to this release's layout as it is
read (`graphmem.view_snapshot.upgrade`), not read from the store again, and answers as
the live view does."""

from __future__ import annotations

import json

import numpy as np

from graphmem import MemoryGraph
from graphmem import view_snapshot as vs
from tests.scenes import channel_alone
from tests.view_snapshot.stores import FACTS, NS, fill, keep, restore, snapshot_dir_of



def test_a_snapshot_an_earlier_release_saved_is_saved_again_on_close(tmp_path, monkeypatch):
    """A process of an earlier release that saves the snapshot leaves out the sibling
    columns: this one makes them on load and writes them back on close, read or not."""
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 3)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        fill(g, [" ".join(FACTS[:3]), " ".join(FACTS[3:])])  # one deposit of 3 atoms each
        g.warm(NS)
        directory = snapshot_dir_of(g)
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
    keep(stored)
    directory = snapshot_dir_of(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    # as the release before the row columns wrote it: no column files, nor in the layout
    for column in directory.glob("view.row.*.npy"):
        column.unlink()
    old = {**meta["layout"], "view": [a for a in meta["layout"]["view"]
                                      if a not in upgrade.ADDED]}
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": {**old,
                                                                         "record": ["x"]}}))
    assert restore(stored) is None  # another difference besides: ignored, not upgraded
    assert not list(directory.glob("view.row.*.npy"))
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": old}))
    view, _ = restore(stored)
    seen = {m: (view.is_forgotten(m), view.time_of(m), view.has_siblings(m))
            for m in view._ids}  # from the columns, before any record is made
    assert seen == {m: (r.forgotten, r.t, bool(r.affiliated)) for m, r in view.records.items()}
    assert seen[first][0] and any(t for _, t, _ in seen.values()) and \
        any(linked for _, _, linked in seen.values())  # each column has something to say
    assert json.loads((directory / vs.META_FILE).read_text())["layout"] == meta["layout"]


def test_a_snapshot_before_the_document_keys_is_upgraded_not_read_again(stored):
    from graphmem.view_snapshot import upgrade

    keep(stored)
    directory = snapshot_dir_of(stored)
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
    view, text_index = restore(stored)
    assert {k: np.load(k) for k in keys}.keys() == saved.keys()
    assert all(np.array_equal(np.load(k), saved[k]) for k in keys)  # as the index keyed them
    live = stored._views.text_index(NS)
    for agent in ("ana", "ben"):
        rows = view.owned_rows(agent)
        assert text_index.search_words("bicycle Toronto tea", 3, rows=rows) == \
            live.search_words("bicycle Toronto tea", 3, set(view.owned_ids(agent))) != []


def test_a_snapshot_before_the_vocabulary_is_upgraded_not_read_again(stored):
    from graphmem.view_snapshot import columns

    question = "Which trips and outdoor hobbies are there?"
    live = [h.memory_id for h in stored.recall("ana", question, k=4, ns=NS,
                                               config=channel_alone("expand"))]
    keep(stored)
    directory = snapshot_dir_of(stored)
    meta = json.loads((directory / vs.META_FILE).read_text())
    # as the release before the vocabulary wrote it: no vocabulary files, nor in the layout
    for name in directory.glob(f"{columns.VOCABULARY_FILE}.*"):
        name.unlink()
    old = {**meta["layout"], "text_index": [a for a in meta["layout"]["text_index"]
                                            if a != columns.VOCABULARY]}
    (directory / vs.META_FILE).write_text(json.dumps({**meta, "layout": old}))
    view, text_index = restore(stored)
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
    keep(stored)
    live = stored._views.synced(NS)
    directory = snapshot_dir_of(stored)
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
    view, _ = restore(stored)
    assert json.loads((directory / vs.META_FILE).read_text())["layout"] == meta["layout"]
    assert {e: view.arc(e) for e in entities} == {e: live.arc(e) for e in entities}
    words = ("fence", "bread", "kitchen", "vet")
    ben = max(entities, key=lambda e: len(live.arc(e)))
    along = [(t, next((w for w in words if w in live.records[mid].text), None))
             for t, _, mid in view.arc(ben)]
    assert [w for _, w in along if w] == list(words)
    assert len({t for t, w in along if w}) == 1  # one day
