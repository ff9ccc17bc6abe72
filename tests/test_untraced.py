"""The containers the garbage collector does not walk behave as the lists, sets and row
lists they replace, and a view of many memories, restored from its snapshot and used,
leaves the collector no more references to follow than a small one does."""

from __future__ import annotations

import gc
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem.untraced as untraced
from graphmem import view_snapshot as vs
from graphmem.retrieval.text_index import TextIndex
from graphmem.untraced import IdList, id_set, row_list
from graphmem.view import NamespaceView


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(st.text(max_size=3), max_size=40), fold=st.integers(1, 7),
       start=st.lists(st.text(max_size=3), max_size=5))
def test_an_id_list_reads_as_the_list_it_replaces(monkeypatch, items, fold, start):
    monkeypatch.setattr(untraced, "FOLD", fold)  # fold often: every path is taken
    ids, plain = IdList(start), list(start)
    for item in items:
        ids.append(item)
        plain.append(item)
        assert len(ids) == len(plain) and ids[-1] == plain[-1]
    assert ids == plain and list(ids) == plain and ids == IdList(plain)
    assert [ids[i] for i in range(-len(plain), len(plain))] == plain + plain if plain else True
    assert ids[1:-1] == plain[1:-1]
    rows = list(range(len(plain)))[::-2] + list(range(len(plain)))
    assert list(ids.at(rows)) == [plain[i] for i in rows]  # the tuple's or the tail's
    assert list(ids.at(row_list(rows))) == [plain[i] for i in rows]
    assert pickle.loads(pickle.dumps(ids)) == plain
    for beyond in (len(plain), -len(plain) - 1):
        with pytest.raises(IndexError):
            ids[beyond]


def test_an_id_list_indexes_with_numpy_integers():
    ids = IdList(["a", "b"])
    ids.append("c")
    assert [ids[i] for i in np.arange(3)] == ["a", "b", "c"]


@settings(max_examples=40, deadline=None)
@given(ops=st.lists(st.tuples(st.booleans(), st.integers(0, 9)), max_size=40))
def test_a_row_list_follows_appends_and_removals_as_a_list_does(ops):
    rows, plain = row_list(), []
    for add, row in ops:
        if add:
            rows.append(row)
            plain.append(row)
        elif row in plain:
            rows.remove(row)
            plain.remove(row)
    assert rows.tolist() == plain
    saved = np.array(rows, dtype=np.int64)
    assert row_list(saved.tobytes()).tolist() == plain


def test_what_replaces_the_lists_and_sets_is_never_walked():
    ids = IdList(f"m{i}" for i in range(10))
    owned = id_set(ids)
    owned["m10"] = None
    gc.collect()
    assert not gc.is_tracked(ids._base)
    assert not gc.is_tracked(owned)
    assert len(gc.get_referents(row_list(range(10)))) <= 1  # its type, not its items
    assert owned.keys() & {"m3", "x"} == {"m3"} and {"m3", "x"} & owned.keys() == {"m3"}


class _Node:
    other: object = None


def _cycles(n: int) -> None:
    for _ in range(n):
        a, b = _Node(), _Node()
        a.other, b.other = b, a


def test_after_each_full_collection_its_survivors_are_frozen_and_new_garbage_still_goes():
    stop = untraced.freeze_survivors()
    try:
        held = [[i] for i in range(10_000)]  # what a view keeps making: lives on
        frozen = gc.get_freeze_count()
        gc.collect()
        assert gc.get_freeze_count() - frozen >= len(held)
        assert not any(item is held[0] for item in gc.get_objects())  # walked no more
        gc.disable()  # the cycles below wait for the collection that is asked for
        try:
            _cycles(500)
            assert gc.collect() >= 1000  # made after the freeze: collected as ever
        finally:
            gc.enable()
        stop()
        frozen = gc.get_freeze_count()
        kept = [[i] for i in range(1_000)]
        gc.collect()
        # stopped: none of them frozen (another thread may free a frozen object meanwhile)
        assert gc.get_freeze_count() < frozen + len(kept)
    finally:
        stop()
        gc.unfreeze()  # the rest of the session as it was


def _restored(tmp_path, n: int) -> tuple[NamespaceView, TextIndex]:
    rng = np.random.default_rng(n)
    view = NamespaceView("ns")
    text_index = TextIndex(view)
    for i in range(n):
        owners = ["ana", "ben"] if i % 3 == 0 else ["ana" if i % 2 else "ben"]
        view.upsert({"id": f"m{i}", "text": f"note {i} about the kite and the harbour",
                     "seq": i + 1, "embedding": rng.standard_normal(4).tolist(),
                     "owners": owners, "vias": ["own"] * len(owners),
                     "asserted_by": owners[:1]})
    view.version = n
    directory = tmp_path / f"snap-{n}"
    fp = vs.Fingerprint(("step",), 1, "epoch", 1, 10**6)
    vs.save(directory, view, text_index, fp)
    restored, restored_text = vs.load(directory, "ns", fp, lambda mid: 10**9)
    for agent in ("ana", "ben"):  # what a recall by each makes
        assert len(restored.owned_ids(agent)) == len(restored.owned_rows(agent))
        restored_text.search("kite harbour", 5, restored.owned_ids(agent), agent)
    restored.upsert({"id": "new", "text": "a new note", "seq": n + 1, "embedding": [1.0] * 4,
                     "owners": ["ana"], "vias": ["own"], "asserted_by": ["ana"]})
    return restored, restored_text


def _references_walked(*roots: object) -> int:
    """References a full collection follows among the tracked objects reachable from
    ``roots`` (modules, classes and functions left out: they are shared by every view)."""
    seen: set[int] = set()
    stack, walked = list(roots), 0
    skip = (type, type(gc), type(_restored))
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, skip) or not gc.is_tracked(obj):
            continue
        seen.add(id(obj))
        referents = gc.get_referents(obj)
        walked += len(referents)
        stack.extend(referents)
    return walked


def test_a_restored_view_leaves_the_collector_little_to_walk_however_large(tmp_path):
    small = _restored(tmp_path, 500)
    large = _restored(tmp_path, 5000)
    gc.collect()
    walked_small, walked_large = _references_walked(*small), _references_walked(*large)
    # before, the ids, owners' rows and ids grew it by about 7 references a memory
    assert walked_large - walked_small < 0.2 * (5000 - 500), (walked_small, walked_large)
