"""The detector on the write path, with a real embedded store and real embeddings."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, strategies as st

from graphmem import MemoryGraph, WriteConfig
from graphmem.supersession.detector import _Pool

T0 = datetime(2023, 3, 1, tzinfo=timezone.utc)


def record(g: MemoryGraph, mid: str) -> dict:
    return g.cypher("MATCH (m:Memory {id: $m}) RETURN m.valid_until AS until, "
                    "m.superseded_by AS by", {"m": mid})[0]


def one(g: MemoryGraph, agent: str, text: str, at: datetime) -> str:
    return g.remember(agent, text, at=at).memory_ids[0]


def test_a_move_replaces_where_ana_lived_and_recall_ranks_the_current_first(embedded_graph):
    g = embedded_graph
    berlin = one(g, "ana", "Ana lives in Berlin.", T0)
    munich = one(g, "ana", "Ana moved to Munich.", T0 + timedelta(days=400))
    assert record(g, berlin) == {"until": int((T0 + timedelta(days=400)).timestamp() * 1000),
                                 "by": munich}
    hits = g.recall("ana", "Where does Ana live?", k=2)
    assert [h.memory_id for h in hits] == [munich, berlin]
    assert [h.status for h in hits] == ["current", "superseded"]


def test_a_reworded_update_far_from_the_old_wording_is_found(embedded_graph):
    g = embedded_graph
    old = one(g, "pm", "Maya owns the backend workstream.", T0)
    new = one(g, "pm", "The backend workstream passes from Maya to Jonas.", T0 + timedelta(hours=3))
    assert record(g, old)["by"] == new
    assert record(g, new)["until"] is None


def test_events_an_hour_apart_both_stay_true(embedded_graph):
    g = embedded_graph
    first = one(g, "ana", "Tom hit Jerry.", T0)
    second = one(g, "ana", "Jerry hit Tom.", T0 + timedelta(hours=1))
    assert record(g, first) == {"until": None, "by": None}
    assert record(g, second) == {"until": None, "by": None}
    assert all(h.status == "current" for h in g.recall("ana", "Who hit whom?"))


def test_a_statement_older_than_its_replacement_holds_only_until_then(embedded_graph):
    g = embedded_graph
    later = one(g, "ana", "Ana lives in Munich.", T0 + timedelta(days=400))
    earlier = one(g, "ana", "Ana lives in Berlin.", T0)
    assert record(g, earlier)["by"] == later
    assert record(g, later) == {"until": None, "by": None}


def test_memories_of_an_earlier_process_are_read_when_named(tmp_path, embedder):
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        old = one(g, "ana", "The hosting provider is Hetzner.", T0)
        one(g, "ana", "The cat sleeps in the garden.", T0)
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        new = one(g, "ana", "We switched the hosting provider to Vercel.", T0 + timedelta(days=2))
        assert record(g, old)["by"] == new


def test_without_the_detector_the_judges_contradictions_decide(tmp_path, embedder):
    config = WriteConfig(supersession=False)
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder, write_config=config) as g:
        old = one(g, "ana", "Ana lives in Berlin.", T0)
        new = one(g, "ana", "Ana lives in Munich.", T0 + timedelta(days=400))
        assert record(g, old)["by"] == new


def test_one_statement_parses_a_bounded_number_of_unread_memories(monkeypatch):
    """A crowded anchor in a store this process never read: the newest are read first,
    the rest by later statements, and a replaced claim is still found."""
    from graphmem.retrieval.text_index import TextIndex
    from graphmem.supersession import detector as module
    from graphmem.view import NamespaceView

    monkeypatch.setattr(module, "READ_PER_STATEMENT", 5)
    view = NamespaceView("crowd")
    rows = [{"id": f"m{i}", "text": f"Ben found a kite at the harbour on day {i}.", "seq": i,
             "t": 1_000 + i, "owners": ["ben"], "vias": ["witnessed"],
             "embedding": [0.0] * 384} for i in range(12)]
    rows.append({"id": "old", "text": "The harbour is open until 6 pm.", "seq": 0, "t": 1,
                 "owners": ["ben"], "vias": ["witnessed"], "embedding": [0.0] * 384})
    for row in rows:
        view.upsert(row)
    words = TextIndex(view).words
    found = module.SupersessionDetector()
    parsed: list[int] = []
    original = found.claims

    def counting(texts):
        texts = list(texts)
        parsed.append(sum(t not in found._claims for t in dict.fromkeys(texts)))
        return original(texts)

    monkeypatch.setattr(found, "claims", counting)
    replaced = []
    for n in range(4):
        replaced += found.replaced("The harbour is open until 8 pm.", f"new{n}", view,
                                   stated=10_000 + n, words=words)
        assert max(parsed[1:] or [0]) <= 5  # the statement itself, then 5 at most a call
        parsed.clear()
    assert "old" in {r.earlier for r in replaced}


def _count_walks(monkeypatch, words) -> list[int]:
    """The memories each walk of ``words`` (`BM25Index.containing`) looks at, in order."""
    walked: list[int] = []
    real = words.containing

    def counting(text, limit, skip, *, done=None):
        seen = [0]

        def counted(mid):
            seen[0] += 1
            return skip(mid)

        got = real(text, limit, counted, done=done)
        walked.append(seen[0])
        return got

    monkeypatch.setattr(words, "containing", counting)
    return walked


def test_memories_read_for_an_anchor_are_not_walked_again(monkeypatch):
    """Once every memory holding an anchor's words is read, a later statement naming it
    walks none of them (it walked them all, a microsecond each, on every statement); a
    memory that arrives unread afterwards is still found and read."""
    from graphmem.retrieval.text_index import TextIndex
    from graphmem.supersession import detector as module
    from graphmem.view import NamespaceView

    monkeypatch.setattr(module, "READ_PER_STATEMENT", 5)
    view = NamespaceView("crowd")
    for i in range(12):
        view.upsert({"id": f"m{i}", "text": f"Ben found a kite at the harbour on day {i}.",
                     "seq": i, "t": 1_000 + i, "owners": ["ben"], "vias": ["witnessed"],
                     "embedding": [0.0] * 384})
    words = TextIndex(view).words
    found = module.SupersessionDetector()
    walked = _count_walks(monkeypatch, words)
    for n in range(4):  # 5 a statement, the latest first: all 12 read by the third
        found.replaced("The harbour is open until 8 pm.", f"new{n}", view,
                       stated=10_000 + n, words=words)
    assert walked == [5, 5, 2, 0]  # without the marks: 5, 10, 12, 12
    view.upsert({"id": "late", "text": "The harbour is open until 6 pm.", "seq": 20,
                 "t": 900, "owners": ["ben"], "vias": ["witnessed"],
                 "embedding": [0.0] * 384})  # no claims kept: not indexed on arrival
    replaced = found.replaced("The harbour is open until 9 pm.", "new9", view,
                              stated=20_000, words=words)
    assert "late" in {r.earlier for r in replaced}


def test_a_memory_left_unread_undoes_only_the_marks_over_it(monkeypatch):
    """A memory that changes and whose claims are not known (a merge into an imported
    memory, the claims read earlier since dropped) is left out of the index: the walks
    over its slot are made again and find it, those of other anchors are not."""
    from graphmem.retrieval.text_index import TextIndex
    from graphmem.supersession import detector as module
    from graphmem.view import NamespaceView

    monkeypatch.setattr(module, "READ_PER_STATEMENT", 5)
    view = NamespaceView("crowd")

    def memory(mid, text, seq, owners=("ben",)):
        view.upsert({"id": mid, "text": text, "seq": seq, "t": 1_000 + seq,
                     "owners": list(owners), "vias": ["witnessed"] * len(owners),
                     "embedding": [0.0] * 384})

    for i in range(12):
        memory(f"m{i}", f"Ben found a kite at the harbour on day {i}.", i)
    words = TextIndex(view).words
    found = module.SupersessionDetector()
    walked = _count_walks(monkeypatch, words)

    def harbour(n):
        walked.clear()
        found.replaced("The harbour is open until 8 pm.", f"new{n}", view,
                       stated=10_000 + n, words=words)
        return sum(walked)

    assert [harbour(n) for n in range(4)] == [5, 5, 2, 0]
    memory("bakery", "The bakery sells rye bread.", 30)  # another anchor's, unread
    assert harbour(4) == 0  # before: every mark undone, 12 walked again
    index = found._index(view)
    found._claims.clear()  # what a full claim cache does
    memory("m3", "Ben found a kite at the harbour on day 3.", 3, owners=("ben", "cy"))
    assert harbour(5) > 0  # changed, its claims unknown: out of the index, walked to
    assert "m3" in index.anchors_of  # found by the walk and read again
    assert harbour(6) == 0


def test_a_new_process_reads_only_the_memories_a_statement_names(tmp_path, embedder):
    """Opening a store from its snapshot, the detector makes no record of memories that
    share no anchor with the statement (it made every one: gigabytes at a million)."""
    from graphmem import view_snapshot

    texts = [f"Ben found a kite at the market on day {i}." for i in range(300)]
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        g.register_agent("ben", kind="human")
        old = one(g, "ben", "The harbour is open until 6 pm.", T0)
        rows = [{"id": f"bulk-{i}", "text": t, "t": 1_600_000_000_000 + i, "owners": ["ben"],
                 "embedding": [float(x) for x in v]}
                for i, (t, v) in enumerate(zip(texts, embedder.embed(texts)))]
        g.query("bulk/load_memories", {"ns": "default", "seq": 2, "rows": rows}, write=True)
        g.query("bulk/set_version", {"ns": "default", "version": 2}, write=True)
        view = g._views.synced("default")
        view_snapshot.keep(g._views.store, g._views.queries, view, g._views.text_index("default"))
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        new = one(g, "ben", "The harbour is now open until 8 pm.", T0 + timedelta(days=3))
        assert record(g, old)["by"] == new
        made = g._views.synced("default").records._made
        assert len(made) < 100, f"{len(made)} of 301 records made"


def _opening_hours(view, hours):
    """``view`` with memory m{i} saying the harbour is open until hours[i] pm (written in
    that order, no claims kept: as a bulk import leaves them)."""
    for i, hour in enumerate(hours):
        view.upsert({"id": f"m{i}", "text": f"The harbour is open until {hour} pm.",
                     "seq": i, "t": 1_000 + i, "owners": ["ben"], "vias": ["witnessed"],
                     "embedding": [0.0] * 384})
    return view


def test_a_statement_is_compared_with_the_latest_states_of_its_anchor(monkeypatch):
    """Twelve current claims of one anchor (a store whose claims were never compared):
    a statement about it is compared with the latest `COMPARED_PER_ANCHOR` only."""
    from graphmem.retrieval.text_index import TextIndex
    from graphmem.supersession import detector as module
    from graphmem.view import NamespaceView

    monkeypatch.setattr(module, "COMPARED_PER_ANCHOR", 5)
    view = _opening_hours(NamespaceView("crowd"), [i % 6 + 1 for i in range(12)])
    found = module.SupersessionDetector()
    compared: list[str] = []
    original = module.supersedes

    def counting(later, earlier, lexicon):
        compared.append(earlier)
        return original(later, earlier, lexicon)

    monkeypatch.setattr(module, "supersedes", counting)
    replaced = found.replaced("The harbour is open until 11 pm.", "new", view,
                              stated=10_000, words=TextIndex(view).words)
    assert {r.earlier for r in replaced} == {f"m{i}" for i in range(7, 12)}
    assert len(compared) == 5


def test_claims_asked_for_when_the_cache_fills_are_all_answered_and_kept(monkeypatch):
    """A batch of known and new texts that fills the claim cache: the cache starts again
    and every text of the batch still gets its claim (it raised KeyError), and the claims
    to keep with each (the write path asks next: the known ones were dropped, and their
    memories stored without claims), and nothing older."""
    from graphmem.supersession import detector as module

    monkeypatch.setattr(module, "CLAIM_CACHE", 3)
    found = module.SupersessionDetector()
    known = ["Ana lives in Berlin.", "Ben owns the bakery."]
    found.claims(known + ["Eve paints the fence."])
    batch = known + ["Chloe sold the kite.", "Dmitri moved to Oslo."]
    claims = found.claims(batch)
    assert [c.predicate for c in claims] == ["live", "own", "sell", "move"]
    assert all(found.kept([text]) for text in batch)
    assert set(found._claims) == set(batch)


def test_one_statement_parses_few_memories_without_kept_claims(monkeypatch):
    """An import's memories keep no claims: a statement parses the latest
    `PARSE_PER_STATEMENT` of those it reads, and later statements the others."""
    from graphmem.retrieval.text_index import TextIndex
    from graphmem.supersession import detector as module
    from graphmem.view import NamespaceView

    monkeypatch.setattr(module, "PARSE_PER_STATEMENT", 3)
    view = _opening_hours(NamespaceView("import"), [i + 1 for i in range(7)])
    words = TextIndex(view).words
    found = module.SupersessionDetector()
    found.claim("The harbour is open until 11 pm.")
    first = found.replaced("The harbour is open until 11 pm.", "new", view, stated=10_000,
                           words=words)
    assert {r.earlier for r in first} == {"m6", "m5", "m4"}  # the latest three
    assert len(found._claims) == 1 + 3
    second = found.replaced("The harbour is open until 11 pm.", "new", view, stated=10_001,
                            words=words, exclude={"m6", "m5", "m4"})
    assert {r.earlier for r in second} == {"m3", "m2", "m1"}


def test_a_date_reverted_with_a_verb_the_tagger_reads_as_a_noun_is_replaced(embedded_graph):
    g = embedded_graph
    old = one(g, "pm", "The public beta is on April 3.", T0)
    new = one(g, "pm", "The public beta returns to April 7.", T0 + timedelta(days=1))
    assert record(g, old)["by"] == new


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 30), st.integers(0, 60))),
       st.integers(1, 10))
def test_an_anchors_latest_memories_are_those_with_the_highest_rows(steps, n):
    """A pool's latest are its n members of the highest rows, whatever the order they
    were added, moved (added again at another row) and removed in."""
    pool, rows = _Pool(), {}
    for add, memory, row in steps:
        mid = f"m{memory}"
        if add:
            pool.add(mid, row)
            rows[mid] = row
        else:
            pool.remove(mid)
            rows.pop(mid, None)
    want = sorted(rows, key=lambda m: (rows[m], m))[-n:]
    assert pool.latest(n) == want
    assert pool.row_of == rows and len(pool.order) == len(rows)
