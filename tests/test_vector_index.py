"""The index of a large view: probing every list and rescoring every candidate is the
exact search; a share of the lists finds the neighbours of clustered rows; it follows new
and re-embedded rows, is trained again when re-embedded rows pile up, and survives a
snapshot."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem import MemoryGraph
from graphmem import vector_index as vi
from graphmem import view_snapshot as vs
from graphmem import view_search
from graphmem.ingestion.benchmarks.locomo import load_locomo
from graphmem.retrieval.text_index import TextIndex
from graphmem.view import NamespaceView


def _unit(x):
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def _view(vectors):
    view = NamespaceView("ivf")
    for i, v in enumerate(vectors):
        view.upsert({"id": f"m{i}", "text": f"memory {i}", "embedding": v, "seq": 1,
                     "owners": ["ana"] if i % 3 else ["ana", "ben"], "vias": ["own"] * 2})
    return view


def _clustered(rng, n, centres=12, dim=16):
    middles = _unit(rng.standard_normal((centres, dim)))
    return _unit(middles[rng.integers(0, centres, n)] + 0.15 * rng.standard_normal((n, dim)))


def _same(got, want):
    """The same memories in the same order, scores equal to float32 rounding (a
    product over a few rows sums in another order than one over all)."""
    assert [m for m, _ in got] == [m for m, _ in want]
    assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(20, 400))
def test_probing_every_list_and_rescoring_every_candidate_is_the_exact_search(seed, n):
    rng = np.random.default_rng(seed)
    view = _view(_clustered(rng, n))
    view._coarse = vi.CoarseIndex.train(view._matrix[:n], seed=seed)
    scope = view.owned_rows("ben")
    query = _unit(rng.standard_normal(16))
    share, margin = vi.PROBE_SHARE, view_search.RESCORE_MARGIN
    try:
        vi.PROBE_SHARE, view_search.RESCORE_MARGIN = 1.0, n
        _same(view.nearest_ivf(query, 5), view.nearest_exact(query, 5))
        _same(view.nearest_ivf(query, 5, scope), view.nearest_exact(query, 5, scope))
    finally:
        vi.PROBE_SHARE, view_search.RESCORE_MARGIN = share, margin


def test_a_share_of_the_lists_finds_the_neighbours_of_real_sentences(shared_data, embedder):
    """Real turns embedded as memories are: the index's candidates, rescored, hold the
    exact neighbours, in the whole view and in one agent's rows. (Isotropic noise around
    a few centres, as `_clustered` makes, is no stand-in here: its neighbours are all
    about equally near, and codes of four bits a part lose them where real sentences
    keep them.)"""
    turns = []
    for path in sorted((shared_data / "locomo").glob("conv-*.json")):
        turns += [turn.text for turn in load_locomo(path, skip_bad=True).units[0].turns]
    texts = sorted({t for t in turns if len(t) >= 20})
    order = np.random.default_rng(3).permutation(len(texts))
    vectors = embedder.embed([texts[i] for i in order[:3100]])
    view = _view(vectors[:3000])
    scope = view.owned_rows("ben")
    for rows in (None, scope):
        found = [len({m for m, _ in view.nearest_ivf(q, 10, rows)} &
                     {m for m, _ in view.nearest_exact(q, 10, rows)}) for q in vectors[3000:]]
        assert np.mean(found) / 10 >= 0.95
    assert vi.PROBE_SHARE * view._coarse.index.nlist < view._coarse.index.nlist / 2


def test_the_scope_is_kept():
    rng = np.random.default_rng(6)
    view = _view(_clustered(rng, 2000))
    scope = view.owned_rows("ben")
    for q in _clustered(rng, 20):
        hits = view.nearest_ivf(q, 10, scope)
        assert hits and all(view.owns("ben", m) for m, _ in hits)


def test_new_and_re_embedded_rows_are_found():
    rng = np.random.default_rng(4)
    view = _view(_clustered(rng, 500))
    view.nearest_ivf(_unit(rng.standard_normal(16)), 3)  # makes the lists
    target = _unit(rng.standard_normal(16))
    view.upsert({"id": "new", "text": "new", "embedding": target, "seq": 2, "owners": ["ana"],
                 "vias": ["own"]})
    assert view.nearest_ivf(target, 1)[0][0] == "new"
    other = _unit(rng.standard_normal(16))
    view.upsert({"id": "m7", "text": "memory 7", "embedding": other, "seq": 3,
                 "owners": ["ana"], "vias": ["own"]})
    assert view.nearest_ivf(other, 1)[0][0] == "m7"
    assert [m for m, _ in view.nearest_ivf(other, 5)].count("m7") == 1  # its old code too


def test_the_index_is_trained_again_when_re_embedded_rows_pile_up():
    rng = np.random.default_rng(8)
    view = _view(_clustered(rng, 400))
    view.nearest_ivf(_unit(rng.standard_normal(16)), 3)
    first = view._coarse
    moved = _clustered(rng, int(vi.REBUILD_SHARE * 400) + 2)
    for i, vector in enumerate(moved):
        view.upsert({"id": f"m{i}", "text": f"memory {i}", "embedding": vector, "seq": 2,
                     "owners": ["ana"], "vias": ["own"]})
    assert first.stale_share > vi.REBUILD_SHARE
    view.nearest_ivf(moved[0], 3)
    assert view._coarse is not first and view._coarse.index.ntotal == len(view)


def test_the_lists_are_kept_in_the_snapshot(tmp_path):
    rng = np.random.default_rng(5)
    view = _view(_clustered(rng, 600))
    view.version = 1
    view.nearest_ivf(_unit(rng.standard_normal(16)), 3)
    fp = vs.Fingerprint(("s",), 1, "e", 1, 1)
    vs.save(tmp_path / "s", view, None, fp)
    restored, _ = vs.load(tmp_path / "s", "ivf", fp, lambda mid: 1)
    assert restored._coarse.size == view._coarse.size
    assert restored._coarse.index.ntotal == view._coarse.index.ntotal
    query = _unit(rng.standard_normal(16))
    _same(restored.nearest_ivf(query, 5), view.nearest_ivf(query, 5))


def test_a_store_past_the_threshold_recalls_through_the_lists(tmp_path, monkeypatch):
    facts = [f"Ana repaired bicycle number {i} at the harbour." for i in range(18)] + \
        ["Ben moved to Toronto in May.", "Chloe painted the old mill red."]
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g.register_agent("ana", kind="human", ns="big")
        for text in facts:
            g.remember("ana", text, ns="big")
        exact = [h.memory_id for h in g.recall("ana", "Where did Ben move?", ns="big")]
        monkeypatch.setattr(vi, "IVF_ABOVE", 4)
        # every list probed: at 20 rows a quarter of the lists holds fewer rows than the
        # channels ask for; the path through the index is what is tested here
        monkeypatch.setattr(vi, "PROBE_SHARE", 1.0)
        monkeypatch.setattr("graphmem.view_search.IVF_SCOPE_MIN", 0)
        during = [h.memory_id for h in g.recall("ana", "Where did Ben move?", ns="big")]
        assert g._views.synced("big").index_ready(wait=None)  # trained on a thread
        listed = [h.memory_id for h in g.recall("ana", "Where did Ben move?", ns="big")]
        assert g._views.synced("big")._coarse is not None
    assert exact and during == exact and listed == exact


def test_a_scope_that_grows_is_searched_as_it_is_now(monkeypatch):
    """The index keeps a scope's bitmap while the view hands out the same rows; a memory
    the agent comes to own is in its next search."""
    monkeypatch.setattr(vi, "PROBE_SHARE", 1.0)
    rng = np.random.default_rng(9)
    view = _view(_clustered(rng, 600))
    target = _unit(rng.standard_normal(16))
    assert all(m != "new" for m, _ in view.nearest_ivf(target, 3, view.owned_rows("ben")))
    view.upsert({"id": "new", "text": "new", "embedding": target, "seq": 2,
                 "owners": ["ben"], "vias": ["own"]})
    assert view.nearest_ivf(target, 1, view.owned_rows("ben"))[0][0] == "new"


def test_a_view_past_the_threshold_scans_exactly_until_its_thread_has_trained(monkeypatch):
    monkeypatch.setattr(vi, "IVF_ABOVE", 100)
    monkeypatch.setattr(view_search, "IVF_SCOPE_MIN", 0)
    monkeypatch.setattr(vi, "PROBE_SHARE", 1.0)
    rng = np.random.default_rng(12)
    view = _view(_clustered(rng, 800))
    query = _unit(rng.standard_normal(16))
    exact = view.nearest_exact(query, 5)
    _same(view.nearest(query, 5), exact)  # served at once, while the thread trains
    assert view._training is not None or view._coarse is not None
    assert view.index_ready(wait=None) and view._training is None
    assert view._coarse.index.ntotal == len(view)
    _same(view.nearest(query, 5), exact)


def test_rows_added_and_re_embedded_while_the_thread_trains_are_found(monkeypatch):
    monkeypatch.setattr(vi, "PROBE_SHARE", 1.0)
    rng = np.random.default_rng(13)
    view = _view(_clustered(rng, 700))
    assert not view.index_ready()  # starts the thread
    moved, new = _unit(rng.standard_normal(16)), _unit(rng.standard_normal(16))
    view.upsert({"id": "m5", "text": "memory 5", "embedding": moved, "seq": 2,
                 "owners": ["ana"], "vias": ["own"]})
    view.upsert({"id": "new", "text": "new", "embedding": new, "seq": 2,
                 "owners": ["ana"], "vias": ["own"]})
    assert view.index_ready(wait=None)
    assert view.nearest_ivf(moved, 1)[0][0] == "m5"
    assert view.nearest_ivf(new, 1)[0][0] == "new"
    assert view._coarse.size == len(view)


def test_a_stale_index_serves_while_its_successor_trains():
    rng = np.random.default_rng(14)
    view = _view(_clustered(rng, 400))
    assert view.index_ready(wait=None)
    first = view._coarse
    for i, vector in enumerate(_clustered(rng, int(vi.REBUILD_SHARE * 400) + 2)):
        view.upsert({"id": f"m{i}", "text": f"memory {i}", "embedding": vector, "seq": 2,
                     "owners": ["ana"], "vias": ["own"]})
    assert view.index_ready()  # the stale index still serves
    assert view._coarse is first or view._training is None
    assert view.index_ready(wait=None) and view._coarse is not first
    assert view._coarse.stale_share == 0.0


def test_an_index_of_the_older_kind_serves_while_one_of_this_kind_trains(tmp_path):
    """A snapshot of an earlier release holds an ``IndexIVFPQ`` (its codes scanned one at
    a time): it still answers, restored, and is trained again, on a thread."""
    import faiss

    rng = np.random.default_rng(15)
    view = _view(_clustered(rng, 400))
    view.version = 1
    older = faiss.IndexIVFPQ(faiss.IndexFlatIP(16), 16, 40, 2, 4, faiss.METRIC_INNER_PRODUCT)
    older.train(view._matrix[:400])
    view._coarse = vi.CoarseIndex(older, 0)
    view._coarse.add(0, view._matrix[:400])
    fp = vs.Fingerprint(("s",), 1, "e", 1, 1)
    vs.save(tmp_path / "s", view, TextIndex(view), fp)
    restored, _ = vs.load(tmp_path / "s", "ivf", fp, lambda mid: 10**9)
    assert isinstance(restored._coarse.index, faiss.IndexIVFPQ) and restored._coarse.outdated
    query = view._matrix[7]
    assert restored.index_ready()  # the older index serves meanwhile
    assert restored.nearest_ivf(query, 1)[0][0] == "m7"
    assert restored.index_ready(wait=None)
    assert isinstance(restored._coarse.index, faiss.IndexIVFPQFastScan)
    assert not restored._coarse.outdated
    assert restored.nearest_ivf(query, 1)[0][0] == "m7"


def test_training_that_fails_raises_when_the_index_is_taken():
    training = vi.Training(np.zeros((4, 16), dtype=np.float32))  # too few rows to train
    assert training.wait(30)
    try:
        training.take(np.zeros((4, 16), dtype=np.float32), 4)
    except ValueError as exc:
        assert "at least 16 rows" in str(exc)
    else:
        raise AssertionError("a failed training must not give an index")


def test_an_index_trained_after_the_snapshot_is_saved_on_close(tmp_path, monkeypatch):
    """The next process restores the index with the view instead of training it again
    (at a million memories: minutes)."""
    monkeypatch.setattr("graphmem.view_search.IVF_SCOPE_MIN", 0)
    monkeypatch.setattr(vs, "SAVE_AFTER_ROWS", 3)
    facts = [f"Ana repaired bicycle number {i} at the harbour." for i in range(18)]
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:  # small: no index yet
        g.register_agent("ana", kind="human", ns="big")
        for text in facts:
            g.remember("ana", text, ns="big")
    monkeypatch.setattr(vi, "IVF_ABOVE", 4)
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g.recall("ana", "Which bicycle did Ana repair?", ns="big")  # restored; trains
        view = g._views.synced("big")
        assert view.index_ready(wait=None)
        trained = view._coarse.index.ntotal
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        restored, _ = vs.restore(g._views.store, g._views.queries, "big")
        assert restored._coarse is not None and restored._coarse.index.ntotal == trained
