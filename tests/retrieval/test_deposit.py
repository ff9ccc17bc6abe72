"""The deposit channel: each memory scored with its owned siblings, a deposit listed once.

It reads the siblings of the question's neighbours by view rows (a restored view off its
snapshot's columns, without making records) instead of reading each one's record: the
ranking must be the one that way gave, whatever the deposits, owners, forgettings and
changes, in a view read from the store and in one restored from its snapshot.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import view_snapshot as vs
from graphmem.retrieval.channels import CHANNELS, RankContext
from graphmem.retrieval.channels.deposit import CANDIDATES, DECIMALS, group_means, similarities
from graphmem.retrieval.text_index import TextIndex
from graphmem.view import NamespaceView

AGENTS = ("ana", "ben", "cy")
FP = vs.Fingerprint(("step",), 1, "epoch", 1, 10**6)


class _Question:
    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector


def _by_ids(view: NamespaceView, agent: str, vector: np.ndarray, depth: int) -> list[str]:
    """The ranking as the channel made it when it read each memory's record."""
    owned = view.owned_ids(agent)

    def group_of(mid: str) -> list[str]:
        if not view.has_siblings(mid):
            return [mid]
        return [mid, *(x for x in view.records[mid].affiliated
                       if x in owned and x in view.records and not view.is_forgotten(x))]

    seeds = [m for m, _ in view.nearest(vector, depth * CANDIDATES, view.owned_rows(agent))]
    groups = {m: group_of(m) for m in seeds}
    for m in {x for g in list(groups.values()) for x in g} - groups.keys():
        groups[m] = group_of(m)
    own = {m: float((view.vector(m).astype(np.float64) * vector.astype(np.float64)).sum())
           for g in groups.values() for m in g}
    mean = {m: np.round(group_means(np.array([own[x] for x in g]), np.array([0, len(g)])),
                        DECIMALS)[0] for m, g in groups.items()}
    key = {m: (-mean[m], -np.round(own[m], DECIMALS)) for m in groups}
    tied = {k for k, n in Counter(key.values()).items() if n > 1}
    ordered = sorted(groups, key=lambda m: (*key[m], view.records[m].text, view.row_of(m))
                     if key[m] in tied else (*key[m], "", 0))
    listed: list[str] = []
    covered: set[str] = set()
    for m in ordered:
        if m not in covered:
            listed.append(m)
            covered.update(groups[m])
            if len(listed) == depth:
                break
    return listed


def _row(mid, text, seq, owners, forgotten, vector, affiliated):
    return {"id": mid, "text": text, "seq": seq, "owners": sorted(owners),
            "vias": ["witnessed"] * len(owners), "asserted_by": sorted(owners)[:1],
            "forgotten": forgotten, "embedding": vector, "affiliated": sorted(affiliated)}


def _apply(view: NamespaceView, deposits, start: int) -> None:
    """Each deposit's atoms AFFILIATED to one another (ids by number: a later deposit
    may reuse one, as a merge does, and change its siblings)."""
    seq = start
    for atoms in deposits:
        ids = [f"m{n}" for n, *_ in atoms]
        for (_, text, owners, forgotten, vector), mid in zip(atoms, ids):
            seq += 1
            view.upsert(_row(mid, text, seq, owners, forgotten, vector,
                             {x for x in ids if x != mid}))
    view.version = seq


atom = st.tuples(st.integers(0, 30), st.sampled_from(["tea", "kite", "harbour", "the map"]),
                 st.sets(st.sampled_from(AGENTS), min_size=1), st.booleans(),
                 st.lists(st.floats(-1, 1, allow_nan=False, width=32), min_size=4,
                          max_size=4).map(lambda v: [x + 1.5 for x in v]))
deposits = st.lists(st.lists(atom, min_size=1, max_size=4, unique_by=lambda a: a[0]),
                    min_size=1, max_size=12)


def _same(view: NamespaceView, text_index: TextIndex, vector: np.ndarray,
          depth: int) -> None:
    for agent in AGENTS:
        ctx = RankContext(view, text_index, agent, view.owned_ids(agent))
        assert CHANNELS["deposit"].rank(ctx, _Question(vector), depth) == \
            _by_ids(view, agent, vector, depth)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(deposits, deposits, st.integers(0, 2**31), st.integers(1, 6))
def test_the_rows_rank_as_the_records_did(tmp_path_factory, before, after, seed, depth):
    vector = np.random.default_rng(seed).standard_normal(4).astype(np.float32)
    view = NamespaceView("d")
    text_index = TextIndex(view)
    _apply(view, before, 0)
    _same(view, text_index, vector, depth)
    directory = tmp_path_factory.mktemp("snap") / "s"
    vs.save(directory, view, text_index, FP)
    restored, restored_text = vs.load(directory, "d", FP, lambda mid: 10**9)
    _same(restored, restored_text, vector, depth)
    restored.records.trim(0)
    for changed in (view, restored):  # the same changes on both
        _apply(changed, after, 100)
    _same(view, text_index, vector, depth)
    _same(restored, restored_text, vector, depth)


def test_a_crowded_restored_view_ranks_as_the_records_did(tmp_path):
    """Hundreds of deposits of one to four atoms, some forgotten, owned at random: every
    agent's ranking is the same before and after the view is saved and restored, lists
    memories of deposits of several atoms, and makes no record to do it."""
    rng = np.random.default_rng(5)
    view = NamespaceView("d")
    atoms, n = [], 0
    for _ in range(150):
        owners = set(rng.choice(AGENTS, size=rng.integers(1, 4)).tolist())
        atoms.append([(n + i, f"note {n + i}", owners, bool(rng.random() < 0.1),
                       rng.standard_normal(4).tolist()) for i in range(rng.integers(1, 5))])
        n += len(atoms[-1])
    _apply(view, atoms, 0)
    vs.save(tmp_path / "s", view, TextIndex(view), FP)
    restored, restored_text = vs.load(tmp_path / "s", "d", FP, lambda mid: 10**9)
    vector = rng.standard_normal(4).astype(np.float32)
    for agent in AGENTS:
        ctx = RankContext(restored, restored_text, agent, restored.owned_ids(agent))
        ranked = CHANNELS["deposit"].rank(ctx, _Question(vector), 20)
        assert len(ranked) == 20
        assert any(view.has_siblings(m) for m in ranked)
        assert restored.records._made == {}
        assert ranked == _by_ids(view, agent, vector, 20)


@settings(max_examples=200, deadline=None)
@given(groups=st.lists(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=12),
                       min_size=1, max_size=8), seed=st.integers(0, 2**16))
def test_a_deposits_mean_does_not_depend_on_the_order_of_its_members(groups, seed):
    """A view read afresh holds a deposit's atoms in other rows than one kept in step:
    the mean (and so the ranking) must be the same whichever comes first."""
    rng = np.random.default_rng(seed)
    starts = np.concatenate([[0], np.cumsum([len(g) for g in groups])])
    means = group_means(np.concatenate([np.array(g) for g in groups]), starts)
    shuffled = group_means(np.concatenate([rng.permutation(g) for g in groups]), starts)
    assert means.tolist() == shuffled.tolist()
    exact = [math.fsum(g) / len(g) for g in groups]
    assert np.allclose(means, exact, rtol=0, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 40), st.data())
def test_a_similarity_is_its_row_s_alone_whatever_rows_it_is_scored_with(seed, n, data):
    """The means that order deposits are summed from these: a value that moved with the
    rows scored beside it would order the same deposits differently in two views."""
    rng = np.random.default_rng(seed)
    view = NamespaceView("s")
    for i in range(n):
        view.upsert(_row(f"m{i}", "note", i + 1, {"ana"}, False,
                         rng.standard_normal(48).astype(np.float32).tolist(), set()))
    vector = rng.standard_normal(48).astype(np.float32)
    rows = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3 * n)),
                    dtype=np.int64)
    together = similarities(view, rows, vector)
    alone = [similarities(view, rows[i:i + 1], vector)[0] for i in range(len(rows))]
    assert together.tolist() == alone
    exact = [math.fsum(float(a) * float(b) for a, b in zip(view.vectors_at(rows[i:i + 1])[0],
                                                           vector)) for i in range(len(rows))]
    assert np.allclose(together, exact, rtol=0, atol=1e-12)
