"""The profile channel (the asker's own statements of a preference) and the constraints
channel (of a preference or a rule they keep), by similarity.

They find them by view rows (the text index marks each row whose memory states a
preference, or a constraint) instead of intersecting the ids of every preference with
the asker's and reading each one's record: the ranking must be the one that way gave,
whatever the memories, owners, assertions and forgettings; and a text index restored
from a snapshot must mark the same rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem import MemoryGraph
from graphmem.retrieval.channels import CHANNELS, RankContext
from graphmem.retrieval.config import HYBRID
from graphmem.retrieval.similarity import by_similarity
from graphmem.retrieval.text_index import TextIndex
from graphmem.view import NamespaceView
from graphmem import view_snapshot

AGENTS = ("ana", "ben", "cy")
TEXTS = ("Ana prefers tea to coffee.", "Ben loves rowing on the river.",
         "Cy is allergic to peanuts.", "The market opens at nine.",
         "Ana hates crowded trains.", "The bridge was painted red.",
         "Ben only uses wired headphones.", "Cy refuses to fly.")
#: channel -> the text index's set of the memories it ranks
STATED = {"profile": "preferences", "constraints": "constraints"}


class _Question:
    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector


def _by_ids(view: NamespaceView, text_index: TextIndex, agent: str, vector, depth: int,
            channel: str = "profile"):
    """The ranking as the channel made it before it read rows."""
    owned = view.owned_ids(agent)
    records = view.records
    stated = [m for m in getattr(text_index, STATED[channel]) & owned
              if agent in records[m].asserted_by and not records[m].forgotten]
    return by_similarity(view, stated, vector)[:depth]


memories = st.lists(st.tuples(
    st.sampled_from(TEXTS), st.sets(st.sampled_from(AGENTS), min_size=1),
    st.sets(st.sampled_from(AGENTS)), st.booleans(),
    st.lists(st.floats(-1, 1, allow_nan=False, width=32), min_size=8, max_size=8)),
    min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(memories, st.integers(0, 2**31), st.sampled_from(AGENTS), st.integers(1, 12),
       st.sampled_from(sorted(STATED)))
def test_the_rows_rank_as_the_ids_did(rows, seed, agent, depth, channel):
    view = NamespaceView("p")
    text_index = TextIndex(view)
    for i, (text, owners, asserters, forgotten, vector) in enumerate(rows):
        if i % 7 == 6:  # a memory changed later: another wording, other assertions
            view.upsert({"id": f"m{i // 2}", "text": text, "seq": 100 + i,
                         "owners": sorted(owners), "vias": ["witnessed"] * len(owners),
                         "asserted_by": sorted(asserters), "forgotten": forgotten,
                         "embedding": vector})
            continue
        view.upsert({"id": f"m{i}", "text": text, "seq": i, "owners": sorted(owners),
                     "vias": ["witnessed"] * len(owners), "asserted_by": sorted(asserters),
                     "forgotten": forgotten, "embedding": vector})
    query = _Question(np.random.default_rng(seed).standard_normal(8).astype(np.float32))
    ctx = RankContext(view, text_index, agent, view.owned_ids(agent))
    assert CHANNELS[channel].rank(ctx, query, depth) == \
        _by_ids(view, text_index, agent, query.vector, depth, channel)


@pytest.mark.parametrize("channel", sorted(STATED))
def test_a_crowded_view_ranks_as_the_ids_did(channel):
    """Hundreds of memories, some forgotten, owned and asserted at random: every
    agent's ranking is the same, and holds what it should."""
    rng = np.random.default_rng(7)
    view = NamespaceView("p")
    text_index = TextIndex(view)
    for i in range(400):
        owners = sorted(set(rng.choice(AGENTS, size=rng.integers(1, 4)).tolist()))
        view.upsert({"id": f"m{i}", "text": f"{TEXTS[i % len(TEXTS)]} ({i})", "seq": i,
                     "owners": owners, "vias": ["witnessed"] * len(owners),
                     "asserted_by": owners[:1], "forgotten": bool(i % 11 == 0),
                     "embedding": rng.standard_normal(8).tolist()})
    query = _Question(rng.standard_normal(8).astype(np.float32))
    for agent in AGENTS:
        ctx = RankContext(view, text_index, agent, view.owned_ids(agent))
        ranked = CHANNELS[channel].rank(ctx, query, 50)
        assert len(ranked) >= 10
        assert ranked == _by_ids(view, text_index, agent, query.vector, 50, channel)


def test_a_restored_text_index_marks_the_same_rows(tmp_path):
    ns = "prof"
    with MemoryGraph.open(data_dir=tmp_path / "d") as g:
        for agent in ("ana", "ben"):
            g.register_agent(agent, kind="human", name=agent.capitalize(), ns=ns)
        for i, text in enumerate(TEXTS):
            g.remember("ana" if i % 2 == 0 else "ben", text, ns=ns)
        view = g._views.synced(ns)
        live = g._views.text_index(ns)
        view_snapshot.keep(g._views.store, g._views.queries, view, live)
        restored_view, restored = view_snapshot.restore(g._views.store, g._views.queries, ns)
        for agent in ("ana", "ben"):
            for rows_of in ("preference_rows", "constraint_rows"):
                stated = getattr(live, rows_of)(view.asserted_rows(agent))
                assert len(stated) >= 1
                assert np.array_equal(
                    getattr(restored, rows_of)(restored_view.asserted_rows(agent)), stated)
        # a question in the first person reads the wider set, one about Ana the narrower
        for question, channel in (("What drink would you suggest for me?", "constraints"),
                                  ("What drink would Ana like best?", "profile")):
            hits = g.recall("ana", question, k=3, ns=ns, config=HYBRID, explain=True)
            assert any("tea" in h.text and channel in h.channels for h in hits)


def test_the_constraints_channel_holds_a_rule_the_profile_misses(tmp_path):
    """ "I only use wired peripherals" states no taste the profile's cues read, but a rule
    the asker keeps: the constraints channel ranks it for a question it shares no word
    with; the profile channel ranks nothing. With the shipped config a question about the
    asker gives profile's weight to the constraints channel; a question about a named
    person keeps the profile, and the constraints channel does not run for it."""
    ns = "rules"
    said = ["I only use wired peripherals because of interference.",
            "I love the smell of fresh coffee in the morning.",
            "The printer on the third floor jams every Monday.",
            "Our office moved to the harbour district last spring."]
    with MemoryGraph.open(data_dir=tmp_path / "d") as g:
        g.register_agent("ana", kind="human", name="Ana", ns=ns)
        for text in said:
            g.remember("ana", text, ns=ns)
        ctx = RankContext(g._views.synced(ns), g._views.text_index(ns), "ana",
                          g._views.synced(ns).owned_ids("ana"))
        query = _Question(g.embedder.embed_one("Which keyboard and mouse should I buy?"))
        assert not any("wired" in g._views.synced(ns).records[m].text
                       for m in CHANNELS["profile"].rank(ctx, query, 5))
        assert "wired" in g._views.synced(ns).records[
            CHANNELS["constraints"].rank(ctx, query, 5)[0]].text
        mine = g.recall("ana", "Which keyboard and mouse should I buy?", k=2, ns=ns,
                        explain=True)
        assert "wired peripherals" in mine[0].text and "constraints" in mine[0].channels
        assert all("profile" not in h.channels for h in mine)
        assert mine[0].explain["about_asker"] and mine[0].explain["weights"]["profile"] == 0
        hers = g.recall("ana", "Which drink does Ana love in the morning?", k=4, ns=ns,
                        explain=True)
        assert any("coffee" in h.text and "profile" in h.channels for h in hers)
        assert all("constraints" not in h.channels for h in hers)
        assert not hers[0].explain["about_asker"]
