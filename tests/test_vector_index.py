"""Inverted lists: a query scans the nearest lists, finds the rows an exact scan finds on
clustered data, follows new and re-embedded rows, and survives a snapshot."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem import MemoryGraph
from graphmem import vector_index as vi
from graphmem import view_snapshot as vs
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
def test_scanning_every_list_is_the_exact_search(seed, n):
    rng = np.random.default_rng(seed)
    view = _view(_clustered(rng, n))
    view._coarse = vi.CoarseIndex.train(view._half[:n], seed=seed)
    scope = view.owned_rows("ben")
    query = _unit(rng.standard_normal(16))
    every = vi.SCAN_FRACTION
    try:
        vi.SCAN_FRACTION = 1.0
        _same(view.nearest_ivf(query, 5), view.nearest_exact(query, 5))
        _same(view.nearest_ivf(query, 5, scope), view.nearest_exact(query, 5, scope))
    finally:
        vi.SCAN_FRACTION = every


def test_a_fraction_of_the_lists_finds_the_neighbours_of_clustered_rows(monkeypatch):
    monkeypatch.setattr(vi, "MIN_SCAN", 0)  # the fraction alone, at this small size
    monkeypatch.setattr(vi, "SCAN_FRACTION", 0.25)
    rng = np.random.default_rng(3)
    view = _view(_clustered(rng, 3000))
    queries = _clustered(rng, 50)
    found = [len({m for m, _ in view.nearest_ivf(q, 10)} & {m for m, _ in view.nearest_exact(q, 10)})
             for q in queries]
    scanned = len(view._coarse.search(queries[0], None, len(view), view._half)[0])
    assert np.mean(found) / 10 >= 0.95 and scanned < len(view) / 2


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


def test_the_lists_are_kept_in_the_snapshot(tmp_path):
    rng = np.random.default_rng(5)
    view = _view(_clustered(rng, 600))
    view.version = 1
    view.nearest_ivf(_unit(rng.standard_normal(16)), 3)
    fp = vs.Fingerprint(("s",), 1, "e", 1, 1)
    vs.save(tmp_path / "s", view, None, fp)
    restored, _ = vs.load(tmp_path / "s", "ivf", fp, lambda mid: 1)
    assert np.array_equal(restored._coarse.centroids, view._coarse.centroids)
    query = _unit(rng.standard_normal(16))
    _same(restored.nearest_ivf(query, 5), view.nearest_ivf(query, 5))


def test_a_store_past_the_threshold_recalls_through_the_lists(tmp_path, monkeypatch):
    facts = [f"Ana repaired bicycle number {i} at the harbour." for i in range(12)] + \
        ["Ben moved to Toronto in May.", "Chloe painted the old mill red."]
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        g.register_agent("ana", kind="human", ns="big")
        for text in facts:
            g.remember("ana", text, ns="big")
        exact = [h.memory_id for h in g.recall("ana", "Where did Ben move?", ns="big")]
        monkeypatch.setattr(vi, "IVF_ABOVE", 4)
        monkeypatch.setattr("graphmem.view.IVF_SCOPE_MIN", 0)
        listed = [h.memory_id for h in g.recall("ana", "Where did Ben move?", ns="big")]
        assert g._views.synced("big")._coarse is not None
    assert exact and listed == exact
