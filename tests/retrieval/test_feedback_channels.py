"""The channels added for list questions and long distractors, on a real store: second-hop
search (hop, hop_dense), category members (kinds), whole deposits (deposit), one hit per
day (spread). Each is run alone (weight 1, no classifier)."""

from __future__ import annotations

import pytest

from graphmem.retrieval.config import HYBRID, HYBRID_RRF
from tests.scenes import channel_alone, two_people

NS = "hops"
SCENE = [
    ("ana", "I love pottery, my favourite of all activities.", "2023-05-01"),
    ("ben", "My favourite activities are chess and rowing.", "2023-05-01"),
    ("ana", "The school says favourite activities matter for kids.", "2023-05-02"),
    ("ana", "I finished my first pottery bowl at the studio today.", "2023-05-08"),
    ("ana", "We spent a week in Sweden with the kids.", "2023-06-01"),
    ("ben", "I moved to Toronto for a new job at a bakery.", "2023-07-20"),
    ("ana", "The bakery on the corner closed last month.", "2023-08-02"),
    ("ben", "The weather was grey all week.", "2023-08-03"),
]


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    graph = two_people(tmp_path_factory.mktemp("hops") / "data", NS, SCENE)
    yield graph
    graph.close()


def _texts(graph, question, channel, asker="ben", k=6):
    return [h.text for h in graph.recall(asker, question, k=k, ns=NS, config=channel_alone(channel))]


def _first_hits(graph, question):
    return [h.text for h in graph.recall("ben", question, k=3, ns=NS, config=HYBRID_RRF)]


def test_hop_ranks_beyond_the_first_hits(scene):
    question = "What are Ana's favourite activities?"
    texts = _texts(scene, question, "hop")
    assert texts and not set(texts) & set(_first_hits(scene, question))


def test_hop_dense_ranks_beyond_the_first_hits(scene):
    question = "What are Ana's favourite activities?"
    moved = _texts(scene, question, "hop_dense")
    assert moved and not set(moved) & set(_first_hits(scene, question))


def test_kinds_ranks_the_members_of_the_asked_category_said_by_the_named_agent(scene):
    texts = _texts(scene, "Which countries has Ana visited?", "kinds")
    assert texts and "Sweden" in texts[0]
    assert all("Toronto" not in t for t in texts)  # Ben's words, and no country


def test_deposit_lists_each_deposit_once(scene):
    hits = scene.recall("ben", "pottery", k=20, ns=NS, config=channel_alone("deposit"))
    assert hits
    ids = [h.memory_id for h in hits]
    for hit in hits:  # no memory listed beside one of its deposit's siblings
        siblings = set(scene._views.synced(NS).records[hit.memory_id].affiliated)
        assert not siblings & (set(ids) - {hit.memory_id})


def test_spread_keeps_one_memory_per_day(scene):
    hits = scene.recall("ben", "what happened", k=20, ns=NS, config=channel_alone("spread"))
    days = [h.t.date() for h in hits if h.t is not None]
    assert hits and len(days) == len(set(days))


@pytest.mark.parametrize("candidates", [1, 10])
def test_deposit_finds_the_deposits_an_exhaustive_scan_ranks_first(scene, monkeypatch,
                                                                    candidates):
    from graphmem.retrieval.channels import deposit

    monkeypatch.setattr(deposit, "CANDIDATES", candidates)
    question, depth = "What does Ana like to do?", 3
    view = scene._views.synced(NS)
    owned = view.owned_ids("ben")
    vector = scene.embedder.embed([question])[0]
    groups = {m: [m, *(x for x in view.siblings(m) if x in owned and not view.is_forgotten(x))]
              for m in owned}
    own = {m: float(view.vector(m) @ vector) for m in owned}
    mean = {m: sum(own[x] for x in g) / len(g) for m, g in groups.items()}
    best, covered = [], set()
    for m in sorted(groups, key=lambda m: -mean[m]):
        if m not in covered:
            best.append(view.records[m].text)
            covered.update(groups[m])
    got = [h.text for h in scene.recall("ben", question, k=depth, ns=NS,
                                        config=channel_alone("deposit"))]
    assert got == best[:depth]


def test_the_question_s_neighbours_are_searched_once_for_every_channel_that_reads_them(
        scene, monkeypatch):
    from graphmem.view import NamespaceView

    widths: list[int] = []
    search = NamespaceView.nearest_rows

    def counted(view, vector, k, rows=None):
        widths.append(k)
        return search(view, vector, k, rows)

    monkeypatch.setattr(NamespaceView, "nearest_rows", counted)
    channels = ("dense", "deposit", "spread")
    config = HYBRID.model_copy(update={
        "classify": False, "channels": channels, "weights": dict.fromkeys(channels, 1.0),
        "depth": 4, "kind_weights": {k: dict.fromkeys(channels, 1.0) for k in HYBRID.kind_weights}})
    scene.recall("ben", "What does Ana like to do?", k=3, ns=NS, config=config)
    assert widths == [40]  # 10 x depth for deposit and spread, dense reads its head


def test_dense_reads_the_head_of_the_widest_search_as_a_search_of_its_own_depth(scene):
    from graphmem.retrieval.channels import CHANNELS, RankContext
    from graphmem.retrieval.query import parse_query

    view = scene._views.synced(NS)
    query = parse_query("What does Ana like to do?", view=view, agent="ben", config=HYBRID,
                        embed_soon=scene.embedder.embed_soon, agent_names=dict)
    alone = RankContext(view, scene._views.text_index(NS), "ben", view.owned_ids("ben"))
    widened = RankContext(view, scene._views.text_index(NS), "ben", view.owned_ids("ben"))
    widened.widen(40)
    assert CHANNELS["dense"].rank(widened, query, 3) == CHANNELS["dense"].rank(alone, query, 3)
    assert widened.near.searched == 40 and alone.near.searched == 3


def test_hop_ranks_as_a_search_among_the_asker_s_memories_less_the_first_hits(scene):
    from graphmem.retrieval.channels import CHANNELS, RankContext
    from graphmem.retrieval.feedback import expansion_terms, first_hits
    from graphmem.retrieval.query import parse_query

    view, text_index = scene._views.synced(NS), scene._views.text_index(NS)
    question = "What are Ana's favourite activities?"
    query = parse_query(question, view=view, agent="ben", config=HYBRID,
                        embed_soon=scene.embedder.embed_soon, agent_names=dict)
    for depth in (1, 2, 4):
        ctx = RankContext(view, text_index, "ben", view.owned_ids("ben"))
        seeds = first_hits(ctx, query)
        words = " ".join([question, *expansion_terms(ctx, query, seeds)])
        expected = text_index.search_words(words, depth, set(ctx.owned) - set(seeds))
        assert CHANNELS["hop"].rank(ctx, query, depth) == expected


def test_hop_reads_the_question_s_words_and_what_fits_of_the_first_hits_words(scene,
                                                                              monkeypatch):
    """With a budget of postings smaller than the search's (a store of a million memories,
    scaled down), hop searches by the question's words and the rarest words of its first
    hits that fit, and by nothing it left out."""
    from graphmem.retrieval.bm25 import within_budget
    from graphmem.retrieval.channels import CHANNELS, RankContext, hop
    from graphmem.retrieval.feedback import expansion_terms, first_hits
    from graphmem.retrieval.query import parse_query

    view, text_index = scene._views.synced(NS), scene._views.text_index(NS)
    words = text_index.words
    question = "What did Ana make at the studio?"
    query = parse_query(question, view=view, agent="ben", config=HYBRID,
                        embed_soon=scene.embedder.embed_soon, agent_names=dict)
    ctx = RankContext(view, text_index, "ben", view.owned_ids("ben"))
    seeds = first_hits(ctx, query)
    every = words.terms(" ".join([question, *expansion_terms(ctx, query, seeds)]))
    asked = words.terms(question)
    df = words.document_frequency
    # room for the rarest of the words it adds, not for them all
    budget = sum(map(df, asked)) + min(df(t) for t in every if t not in asked)
    monkeypatch.setattr(hop, "POSTINGS", budget)
    kept = within_budget(words, every, budget, asked)
    assert asked.keys() < kept.keys() < every.keys()  # the bound binds here
    expected = [m for m, _ in words.search_terms(kept, 6 + len(seeds), rows=ctx.owned_rows())
                if m not in seeds][:6]
    assert CHANNELS["hop"].rank(ctx, query, 6) == expected
    # and what it left out would have found more
    assert expected != [m for m, _ in words.search_terms(every, 6 + len(seeds),
                                                          rows=ctx.owned_rows())
                        if m not in seeds][:6]
