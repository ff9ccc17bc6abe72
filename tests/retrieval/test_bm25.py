"""The in-process BM25 index and its tokenizer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.errors import InvalidInput
from graphmem.retrieval import row_masks
from graphmem.retrieval.bm25 import NO_SLOT, BM25Index, _summed, _top_order, within_budget
from graphmem.retrieval.tokenize import stem_word, tokenize

WORDS = ["paint", "painting", "lake", "sunrise", "group", "support", "dog", "dogs", "2022", "trip", "camp"]
texts = st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(" ".join)
corpora = st.lists(texts, min_size=1, max_size=25)
KEPT_MASKS = (row_masks.MASKS, row_masks.MASK_CHANGES)


def reference_scores(docs: list[str], query: str, k1: float = 1.5, b: float = 0.75) -> dict[int, float]:
    """Plain-Python Okapi BM25 with Lucene idf, the definition the index must match."""
    toks = [tokenize(d) for d in docs]
    n, avg = len(toks), sum(map(len, toks)) / len(toks) or 1.0
    scores: dict[int, float] = {}
    q = tokenize(query)
    for term in set(q):
        df = sum(term in t for t in toks)
        if df == 0:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for i, t in enumerate(toks):
            tf = t.count(term)
            if tf:
                s = q.count(term) * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(t) / avg))
                scores[i] = scores.get(i, 0.0) + s
    return scores


def build(docs: list[str]) -> BM25Index:
    index = BM25Index()
    index.add_many((f"d{i}", text) for i, text in enumerate(docs))
    return index


@given(corpora, texts)
def test_scores_match_the_reference_definition(docs, query):
    got = dict(build(docs).search(query, k=len(docs)))
    want = {f"d{i}": s for i, s in reference_scores(docs, query).items()}
    assert got.keys() == want.keys()
    for doc_id, score in want.items():
        assert got[doc_id] == pytest.approx(score)


# a positive weight below about 1e-300 makes a product that underflows to 0 one way and
# not the other (the score is weighted before or after its factors meet): out of range
@given(corpora, st.dictionaries(st.sampled_from(WORDS),
                                st.one_of(st.floats(-1.0, 0.0), st.floats(1e-9, 3.0)),
                                max_size=6))
def test_weighted_terms_score_each_term_times_its_weight(docs, weights):
    """search_terms: each term's score as one query word's, times its weight; a weight of
    0 or less leaves the term out."""
    index = build(docs)
    terms: dict[str, float] = {}
    for word, weight in weights.items():  # two words with one stem: the last weight counts
        terms[tokenize(word)[0]] = weight
    want: dict[str, float] = {}
    for term, weight in terms.items():
        if weight <= 0:
            continue
        for doc_id, score in index.search(term, k=len(docs)):
            want[doc_id] = want.get(doc_id, 0.0) + weight * score
    got = dict(index.search_terms(terms, k=len(docs)))
    assert got.keys() == {d for d, s in want.items() if s > 0}
    for doc_id, score in got.items():
        assert score == pytest.approx(want[doc_id])


@given(corpora, texts)
def test_a_text_s_terms_weighted_by_their_counts_are_its_search(docs, query):
    index = build(docs)
    assert index.terms(query) == {t: tokenize(query).count(t) for t in tokenize(query)}
    assert index.search_terms(index.terms(query), k=len(docs)) == index.search(query, k=len(docs))


@given(corpora, st.dictionaries(st.sampled_from(WORDS), st.floats(0.1, 3.0), max_size=8),
       st.data())
def test_a_budget_keeps_the_question_s_terms_and_fills_up_with_the_others(docs, words, data):
    """within_budget: every term of ``always``, the others in their order, each left out
    only if it would not fit beside what was kept (or matches nothing), and what was kept
    beside ``always`` fits."""
    index = build(docs)
    weights = {tokenize(w)[0]: x for w, x in words.items()}
    always = set(data.draw(st.lists(st.sampled_from(sorted(weights) or ["none"]), max_size=3)))
    budget = data.draw(st.integers(0, 3 * len(docs)))
    kept = within_budget(index, weights, budget, always)
    assert list(kept) == [t for t in weights if t in kept]  # in their order, as given
    assert all(kept[t] == weights[t] for t in kept)
    assert always & weights.keys() <= kept.keys()
    df = index.document_frequency
    spent = sum(df(t) for t in kept)
    fixed = sum(df(t) for t in always & weights.keys())
    assert spent <= max(budget, fixed)
    for term in weights.keys() - kept.keys():
        assert df(term) == 0 or spent + df(term) > budget
    if sum(df(t) for t in weights) <= budget:
        assert kept == {t: x for t, x in weights.items() if df(t) or t in always}


@given(corpora, texts, st.integers(1, 30))
def test_results_are_sorted_deterministic_and_capped(docs, query, k):
    index = build(docs)
    hits = index.search(query, k=k)
    assert len(hits) <= k
    assert all(a[1] >= b[1] for a, b in zip(hits, hits[1:]))
    assert hits == index.search(query, k=k)


@given(corpora, texts, st.data())
def test_allowed_is_the_filtered_full_ranking(docs, query, data):
    index = build(docs)
    ids = [f"d{i}" for i in range(len(docs))]
    allowed = data.draw(st.sets(st.sampled_from(ids + ["not-indexed"])))
    k = data.draw(st.integers(1, 10))
    full = index.search(query, k=len(docs))
    want = [hit for hit in full if hit[0] in allowed][:k]
    assert index.search(query, k=k, allowed=allowed) == want
    assert index.search(query, k=k, allowed=sorted(allowed)) == want


@settings(max_examples=80, deadline=None)
@given(corpora, texts, st.data())
def test_rows_rank_as_the_ids_they_key(docs, query, data):
    """A search among documents named by key (rows) finds what the same documents named
    by id find, scores included, however documents were added, removed and re-added."""
    index = BM25Index()
    key_of = {f"d{i}": 3 * i + 1 for i in range(len(docs))}  # keys need not be slots
    for i, text in enumerate(docs):
        index.add(f"d{i}", text, key_of[f"d{i}"])
    index.add("unkeyed", " ".join(WORDS))  # no key: no rows admit it
    for j, text in enumerate(data.draw(st.lists(texts, max_size=5))):
        key_of[f"e{j}"] = 1000 + j
        index.add(f"e{j}", text, key_of[f"e{j}"])
    for again in data.draw(st.lists(st.sampled_from(sorted(key_of)), max_size=3, unique=True)):
        index.remove(again)  # its key names no document until it is added again
        if data.draw(st.booleans()):
            index.add(again, data.draw(texts), key_of[again])
    rows = np.array(sorted(data.draw(st.sets(st.sampled_from(list(key_of.values()) + [7, 5000])))),
                    dtype=np.int64)
    k = data.draw(st.integers(1, 10))
    allowed = {d for d, key in key_of.items() if key in set(rows.tolist()) and d in index}
    assert index.search(query, k=k, rows=rows) == index.search(query, k=k, allowed=allowed)
    # documents named by id besides (an unkeyed one among them), and some taken away
    ids = sorted(key_of) + ["unkeyed", "never-added"]
    plus, minus = (data.draw(st.sets(st.sampled_from(ids))) for _ in range(2))
    assert index.search(query, k=k, rows=rows, plus=plus, minus=minus) == \
        index.search(query, k=k, allowed=(allowed - minus) | plus)


operations = st.lists(st.tuples(st.sampled_from(["add", "remove", "grow", "search", "search"]),
                                 st.integers(0, 40), texts, st.integers(0, 3)),
                      min_size=10, max_size=60)


@settings(max_examples=150, deadline=None)
@given(operations, st.integers(1, 8), st.sampled_from([2, 4096]), st.data())
def test_kept_masks_follow_adds_and_removes(steps, masks, changes, data):
    """Searches by the same rows arrays, between adds, removes and re-adds (the index
    keeps their masks and catches them up), and by arrays that extend them, find what
    the ids they key find, whatever the number of masks kept and of changes they catch
    up with."""
    index = BM25Index()
    row_masks.MASKS, row_masks.MASK_CHANGES = masks, changes  # restored below
    try:
        pool = [np.array(sorted(data.draw(st.sets(st.integers(0, 20), min_size=4))), dtype=np.int64)
                for _ in range(3)]
        pool.append(np.array([9, 3, 30, 1], dtype=np.int64))  # not sorted: made every time
        key_of: dict[str, int] = {}
        for action, number, text, which in steps:
            doc = f"d{number}"
            if action == "add" and doc not in index:
                if key_of.get(doc, number) not in {key_of[d] for d in key_of if d in index}:
                    key_of[doc] = number
                    index.add(doc, text, number)
            elif action == "remove" and doc in index:
                index.remove(doc)
            elif action == "grow":  # a new array: the rows before and more after them
                rows = pool[which]
                after = np.arange(int(rows[-1]) + 1, int(rows[-1]) + 2 + number % 4)
                pool[which] = np.concatenate([rows, after if number % 2 else after[::-1]])
            elif action == "search":
                rows = pool[which]
                keyed = set(rows.tolist())
                allowed = {d for d, key in key_of.items() if key in keyed and d in index}
                assert index.search(text or "lake", k=5, rows=rows) == \
                    index.search(text or "lake", k=5, allowed=allowed)
    finally:
        row_masks.MASKS, row_masks.MASK_CHANGES = KEPT_MASKS


def test_rows_not_in_order_are_searched_afresh():
    """Rows that extend kept ones by rows out of order are not caught up by looking keys
    up in them (which needs order): a document added later under such a key is found."""
    index = BM25Index()
    index.add("a", "lake trip", 1)
    before = np.array([1, 2], dtype=np.int64)
    assert [d for d, _ in index.search("lake", rows=before)] == ["a"]
    after = np.array([1, 2, 9, 7], dtype=np.int64)
    assert [d for d, _ in index.search("lake", rows=after)] == ["a"]
    index.add("b", "lake camp", 7)
    assert sorted(d for d, _ in index.search("lake", rows=after)) == ["a", "b"]


def test_a_key_names_one_live_document():
    index = BM25Index()
    index.add("a", "lake trip", 4)
    with pytest.raises(InvalidInput, match="already names document 'a'"):
        index.add("b", "lake camp", 4)
    with pytest.raises(InvalidInput, match="from 0 to"):
        index.add("b", "lake camp", -7)
    index.remove("a")
    index.add("b", "lake camp", 4)  # free again once its document is gone
    assert index.search("lake", rows=np.array([4]))[0][0] == "b"
    assert index.search("lake", rows=np.array([3, 5, 10**9])) == []
    with pytest.raises(InvalidInput, match="not both"):
        index.search("lake", allowed={"b"}, rows=np.array([4]))


@settings(max_examples=50)
@given(corpora, texts, st.data())
def test_removing_a_doc_equals_never_adding_it(docs, query, data):
    gone = data.draw(st.integers(0, len(docs) - 1))
    index = build(docs)
    index.remove(f"d{gone}")
    fresh = BM25Index()
    fresh.add_many((f"d{i}", t) for i, t in enumerate(docs) if i != gone)
    got, want = index.search(query, k=30), fresh.search(query, k=30)
    assert [h[0] for h in got] == [h[0] for h in want]
    assert dict(got) == pytest.approx(dict(want))
    assert f"d{gone}" not in index and len(index) == len(docs) - 1


#: documents no query shares a word with: among them a query's postings are few, and
#: its matches are summed from the postings themselves (bm25.SPARSE_SHARE)
FILLER = ["zebra quartz"] * 600


@settings(max_examples=80, deadline=None)
@given(corpora, texts, st.data())
def test_few_matches_in_a_large_index_score_and_rank_as_defined(docs, query, data):
    """Whether the matches are summed from the postings (few of them in a large index)
    or over an array as long as the index, scores follow the definition and removed
    documents are gone."""
    everything = FILLER + docs
    removed = data.draw(st.sets(st.integers(0, len(docs) - 1)))
    index = build(everything)
    for i in removed:
        index.remove(f"d{len(FILLER) + i}")
    kept = [t for i, t in enumerate(docs) if i not in removed]
    names = [f"d{len(FILLER) + i}" for i in range(len(docs)) if i not in removed]
    want = {names[i - len(FILLER)]: s for i, s in reference_scores(FILLER + kept, query).items()
            if i >= len(FILLER)}
    got = index.search(query, k=len(everything))
    assert dict(got).keys() == want.keys()
    assert dict(got) == pytest.approx(want)
    order = sorted(want, key=lambda m: (-round(want[m], 9), int(m[1:])))
    assert [m for m, _ in got] == order


@settings(max_examples=60, deadline=None)
@given(corpora, texts, st.data())
def test_containing_is_every_document_with_all_the_terms_latest_first(docs, text, data):
    index = build(docs)
    removed = data.draw(st.sets(st.integers(0, len(docs) - 1)))
    for i in removed:
        index.remove(f"d{i}")
    skipped = data.draw(st.sets(st.integers(0, len(docs) - 1)))
    limit = data.draw(st.integers(1, 30))
    terms = set(tokenize(text))
    want = [f"d{i}" for i in reversed(range(len(docs)))
            if terms and terms <= set(tokenize(docs[i])) and i not in removed | skipped]
    got = index.containing(text, limit, lambda doc: int(doc[1:]) in skipped)
    assert got == want[:limit]
    # slots named done are not looked at (d{i} is at slot i: added in order)
    lo = data.draw(st.integers(0, len(docs)))
    hi = data.draw(st.integers(lo, len(docs)))
    outside = [d for d in want if not lo <= int(d[1:]) < hi]
    assert index.containing(text, limit, lambda doc: int(doc[1:]) in skipped,
                            done=(lo, hi)) == outside[:limit]
    assert index.slots == len(docs)
    assert [index.slot(f"d{i}") for i in range(len(docs))] == \
        [NO_SLOT if i in removed else i for i in range(len(docs))]


def test_scores_update_as_documents_arrive():
    index = BM25Index()
    index.add("a", "we went camping at the lake")
    first = index.search("lake camping", k=5)
    index.add("b", "the lake was cold")
    index.add("c", "a lake, a lake, another lake")
    hits = dict(index.search("lake camping", k=5))
    assert set(hits) == {"a", "b", "c"}
    assert hits["a"] != first[0][1]  # idf and average length moved with the new documents
    assert max(hits, key=hits.get) == "a"  # the only doc with both terms


def test_readding_after_remove_and_errors():
    index = BM25Index()
    index.add("a", "old text about dogs")
    with pytest.raises(InvalidInput, match="already indexed"):
        index.add("a", "again")
    index.remove("a")
    index.add("a", "new text about cats")
    assert index.search("dogs") == []
    assert index.search("cats")[0][0] == "a"
    with pytest.raises(InvalidInput, match="not in the index"):
        index.remove("zzz")
    with pytest.raises(InvalidInput, match="k must be"):
        index.search("cats", k=0)
    with pytest.raises(InvalidInput, match="k1"):
        BM25Index(b=2.0)


def test_empty_index_and_stopword_query_return_nothing():
    assert BM25Index().search("anything") == []
    assert build(["the dog"]).search("the of and") == []


def test_large_allowed_scope_over_many_docs():
    index = BM25Index()
    index.add_many((f"d{i}", f"note {i % 7} about topic{i % 13}") for i in range(3000))
    allowed = {f"d{i}" for i in range(0, 3000, 2)}
    hits = index.search("topic5 note", k=10, allowed=allowed)
    assert len(hits) == 10 and all(h[0] in allowed for h in hits)
    assert all(int(h[0][1:]) % 13 == 5 for h in hits)
    few = [f"d{i}" for i in (5, 18, 31, 44, 7)]  # a small scope is looked up id by id
    assert index.search("topic5 note", k=10, allowed=few) == [
        hit for hit in index.search("topic5 note", k=3000) if hit[0] in few
    ]


@pytest.mark.parametrize(
    ("words", "stem"),
    [
        ("paintings painted painting paints", "paint"),
        ("make making makes", "make"),
        ("hopping hops", "hop"),
        ("ponies pony", "poni"),
        ("agreed agree", "agree"),
    ],
)
def test_light_stemmer_conflates_inflections(words, stem):
    assert {stem_word(w) for w in words.split()} == {stem}


def test_tokenizer_keeps_numbers_and_unicode_and_drops_stopwords():
    assert tokenize("On 7 May 2023, Caroline's trip to São Paulo!") == [
        "7", "may", "2023", "caroline", "trip", "são", "paulo",
    ]
    assert tokenize("3pm, mp3s and the 1990s") == ["3pm", "mp3s", "1990s"]
    assert tokenize("") == []


def test_cjk_runs_become_character_bigrams():
    assert tokenize("曹操大怒") == ["曹操", "操大", "大怒"]
    assert tokenize("刘备 in 2022年") == ["刘备", "2022", "年"]
    index = BM25Index()
    index.add_many([("a", "曹操大怒，引兵而去"), ("b", "刘备与关羽、张飞结义")])
    assert index.search("关羽在哪里", k=1)[0][0] == "b"


@given(st.text(max_size=60))
def test_tokenize_is_lowercase_and_total(text):
    for term in tokenize(text):
        assert term == term.lower() and term and " " not in term


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 600),
       size=st.sampled_from([50, 70_000, 300_000]), distinct=st.sampled_from([3, 40, 0]))
def test_the_top_k_is_the_full_sorts_head_whether_the_cut_is_sampled_or_not(
        seed, k, size, distinct):
    """The k best (score, then earlier slot), the same as sorting every match, for lists
    long enough to be cut from a sample, with few distinct scores (wide ties) or none."""
    rng = np.random.default_rng(seed)
    scores = (rng.integers(1, distinct + 1, size).astype(np.float64) if distinct
              else rng.gamma(2.0, 1.0, size))
    slots = np.sort(rng.choice(10 * size, size, replace=False))
    expected = np.lexsort((slots, -scores))[:k]
    assert _top_order(scores, slots, k).tolist() == expected.tolist()


@given(st.lists(st.dictionaries(st.integers(0, 40), st.floats(0.001, 50), min_size=1),
                min_size=1, max_size=8))
def test_sums_over_the_postings_equal_the_sums_over_an_array_to_the_last_bit(terms):
    """The two ways `_score` adds a document's term scores (over its postings when they
    are few, over an array as long as the index otherwise) give the same floats, so a
    document scores the same whichever way its search took."""
    parts_slots = [np.array(sorted(t), dtype=np.int64) for t in terms]
    parts_scores = [np.array([t[s] for s in sorted(t)]) for t in terms]
    slots, sums = _summed(parts_slots, parts_scores)
    dense = np.bincount(np.concatenate(parts_slots), weights=np.concatenate(parts_scores))
    assert slots.tolist() == np.flatnonzero(dense).tolist()
    assert sums.tolist() == dense[slots].tolist()


#: a few words most documents hold and many each few hold: a search among one document
#: sums its few postings; the same document among all of them, over an array
SKEWED = st.lists(st.tuples(st.lists(st.sampled_from(["harbour", "river", "market"]), min_size=1,
                                     max_size=6),
                            st.lists(st.sampled_from([f"rare{i}" for i in range(12)]), max_size=1)
                            ).map(lambda t: " ".join(t[0] + t[1])), min_size=300, max_size=500)


@settings(max_examples=30, deadline=None)
@given(SKEWED, st.data())
def test_a_document_scores_the_same_in_a_narrow_search_and_a_wide_one(docs, data):
    index = BM25Index()
    for i, text in enumerate(docs):
        index.add(f"d{i}", text, i)
    query = " ".join(["harbour", "river", "market", data.draw(st.sampled_from(docs))])
    wide = dict(index.search(query, k=len(docs)))
    for row in range(len(docs)):  # each document alone: its few postings summed
        narrow = index.search(query, k=1, rows=np.array([row], dtype=np.int64))
        assert all(wide[doc] == score for doc, score in narrow)
