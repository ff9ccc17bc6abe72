"""The in-process namespace view: exact nearest neighbours at any size, owner sets that
follow every sync."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.view import NamespaceView


def _row(mid: str, vector: np.ndarray, owners: list[str], seq: int = 1) -> dict:
    return {"id": mid, "text": mid, "seq": seq, "embedding": vector,
            "owners": owners, "vias": ["witnessed"] * len(owners)}


def _view(vectors: np.ndarray, owners_of=lambda i: ["a"]) -> NamespaceView:
    view = NamespaceView("test")
    for i, vector in enumerate(vectors):
        view.upsert(_row(f"m{i}", vector, owners_of(i)))
    return view


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    vectors = rng.standard_normal((n, 384)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 40),
       scope=st.sampled_from([None, "a", "b", "c"]))
def test_the_exact_scan_finds_the_nearest_by_cosine(seed, k, scope):
    """Every row, or an agent's: all of them, a third (scored in one pass over every
    row) or a tenth (its rows gathered first)."""
    rng = np.random.default_rng(seed)
    base = _unit(rng, 300)
    # near-duplicates of a few memories: ties a coarse scan could get wrong
    noise = 0.01 * rng.standard_normal((100, 384)).astype(np.float32)
    vectors = np.vstack([base, base[:100] + noise])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    view = _view(vectors, owners_of=lambda i: ["a"] + (["b"] if i % 3 == 0 else [])
                 + (["c"] if i % 10 == 0 else []))
    query = vectors[int(rng.integers(0, len(vectors)))]
    rows = np.arange(len(vectors)) if scope is None else view.owned_rows(scope)
    cosines = vectors[rows].astype(np.float64) @ query.astype(np.float64)
    expected = rows[np.argsort(-cosines, kind="stable")[:k]]
    found = view.nearest_exact(query, k, None if scope is None else rows)
    assert [view.row_of(mid) for mid, _ in found] == expected.tolist()
    assert [s for _, s in found] == pytest.approx(sorted(cosines, reverse=True)[:k], abs=1e-5)


def test_owner_sets_follow_a_merge_and_an_unmerge():
    rng = np.random.default_rng(0)
    view = _view(_unit(rng, 3))
    assert set(view.owned_ids("a")) == {"m0", "m1", "m2"}
    assert set(view.owned_ids("b")) == set()
    vector = view.vector("m1").copy()
    view.upsert(_row("m1", vector, ["a", "b"], seq=2))  # b merged in
    assert set(view.owned_ids("b")) == {"m1"}
    assert view.nearest(vector, 1, view.owned_rows("b"))[0][0] == "m1"
    view.upsert(_row("m1", vector, ["a"], seq=3))  # unmerged again
    assert set(view.owned_ids("b")) == set()
    assert view.nearest(vector, 1, view.owned_rows("b")) == []
    assert "m1" in view.owned_ids("a")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 11), st.sets(st.sampled_from("abc")),
                          st.sets(st.sampled_from("abc")), st.booleans()),
                min_size=1, max_size=50))
def test_owned_and_asserted_rows_follow_every_change(changes):
    """After any sequence of upserts, each agent's owned and asserted rows are exactly the
    memories whose latest owners and asserted_by name it (a merge adds one, an unmerge
    removes one), whether they were read between the changes or not (a sorted copy read
    before is extended by the rows that came after it, or made again)."""
    rng = np.random.default_rng(1)
    vectors = _unit(rng, 12)
    view = NamespaceView("test")
    owned: dict[str, set[str]] = {}
    asserted: dict[str, set[str]] = {}
    for seq, (i, owners, asserters, read) in enumerate(changes, start=1):
        row = _row(f"m{i}", vectors[i], sorted(owners | asserters) or ["a"], seq=seq)
        view.upsert({**row, "asserted_by": sorted(asserters)})
        owned[f"m{i}"], asserted[f"m{i}"] = set(row["owners"]), asserters
        if read:
            for agent in "abc":
                view.owned_rows(agent), view.asserted_rows(agent)
    for agent in "abc":
        for rows, latest in ((view.owned_rows(agent), owned), (view.asserted_rows(agent), asserted)):
            expected = sorted(view.records[m].row for m, who in latest.items() if agent in who)
            assert rows.tolist() == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.booleans(), st.none() | st.integers(0, 10**12),
                          st.sets(st.integers(0, 7), max_size=2), st.booleans()),
                min_size=1, max_size=40))
def test_row_columns_say_what_the_records_say(changes):
    """Forgotten, time and has-siblings by row follow every upsert and every applied
    change, as the records do."""
    vectors = _unit(np.random.default_rng(2), 8)
    view = NamespaceView("test")
    for seq, (i, forgotten, t, siblings, applied) in enumerate(changes, start=1):
        mid = f"m{i}"
        if applied and mid in view.records:
            view.apply([mid], seq, forgotten=forgotten, t=t)
        else:
            view.upsert({**_row(mid, vectors[i], ["a"], seq=seq), "forgotten": forgotten,
                         "t": t, "affiliated": [f"m{j}" for j in siblings if j != i]})
    for mid, record in view.records.items():
        assert view.row_of(mid) == record.row
        assert (view.is_forgotten(mid), view.time_of(mid), view.has_siblings(mid)) == \
            (record.forgotten, record.t, bool(record.affiliated))
    rows = view.owned_rows("a")
    times, timed = view.times_at(rows)
    assert [(view.id_at(r), t) for r, t in zip(timed.tolist(), times.tolist())] == \
        [(view.id_at(r), view.records[view.id_at(r)].t) for r in rows.tolist()
         if view.records[view.id_at(r)].t is not None]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), copies=st.integers(2, 6), k=st.integers(1, 60),
       wider=st.integers(1, 200))
def test_equal_scores_come_in_storage_order_whatever_the_width(seed, copies, k, wider):
    """Memories of the same text have the same vector: a narrow search and a wider one
    (a recall widens its search for the channels that run) put them in one order."""
    rng = np.random.default_rng(seed)
    vectors = _unit(rng, 120)
    at = rng.choice(120, size=copies, replace=False)
    vectors[at] = vectors[at[0]]  # the same statement stored several times
    view = _view(vectors)
    query = vectors[at[0]] + 0.3 * _unit(rng, 1)[0]
    query /= np.linalg.norm(query)
    narrow = [view.row_of(m) for m, _ in view.nearest_exact(query, k)]
    wide = [view.row_of(m) for m, _ in view.nearest_exact(query, k + wider)]
    assert wide[:len(narrow)] == narrow
    tied = [r for r in wide if r in set(at.tolist())]
    assert tied == sorted(tied)
