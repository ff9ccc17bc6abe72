"""An in-process BM25 index that grows one memory at a time and searches owner-scoped.

Memories arrive one deposit at a time, so the index keeps, per term, growable numpy
arrays of (document slot, term frequency) and scores a query by touching only the
postings of its terms. Statistics (N, average length, document frequency) are read at
query time, so an add costs only its own terms; nothing is rebuilt.

Scoring is Okapi BM25 with Lucene's non-negative idf, log(1 + (N - df + 0.5)/(df + 0.5)),
k1 = 1.5 and b = 0.75 by default (the defaults of rank-bm25 and bm25s). Owner scoping:
`allowed` is applied after scoring, the cheaper way round — a small scope is looked up
id by id; a large one is not converted at all: the matches are walked in score order
and checked against the set until k are found, so a scope of 50k ids costs about
k / (its share of the index) lookups. Pass a set (or frozenset) for that case; any other
collection is copied into one.

A caller that numbers its documents (a view's rows: `add`'s ``key``, one live document a
key) can scope a search by those numbers instead (``rows``): the keys' slots are looked
up in an array, and each term's postings are filtered by them before they are scored, so
an owner of a tenth of a million memories costs about a tenth of the scoring and no id
is looked up.

A query term repeated in the query counts as often as it appears (as in rank-bm25).
Not thread-safe: share one index between threads only behind a lock.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Set as AbstractSet

import numpy as np

from graphmem.errors import InvalidInput
from graphmem.untraced import IdList

from .row_masks import NO_KEY, NO_SLOT, RowMasks
from .tokenize import tokenize

__all__ = ["BM25Index", "DERIVED", "POSTINGS", "within_budget"]

_INITIAL_CAPACITY = 4

#: attributes kept for speed alone, made again as searches need them: a snapshot neither
#: saves them nor counts them in its layout (`graphmem.view_snapshot`)
DERIVED = frozenset({"_masks"})

# NO_KEY, the key of a document added without one (no ``rows`` admits it), and NO_SLOT,
# the slot of a key that names no live document, are `row_masks`', which reads them too


class _Postings:
    """Growable arrays of (slot, tf) for one term, doubling on demand."""

    __slots__ = ("slots", "tfs", "size")

    def __init__(self) -> None:
        self.slots = np.empty(_INITIAL_CAPACITY, dtype=np.int64)
        self.tfs = np.empty(_INITIAL_CAPACITY, dtype=np.float64)
        self.size = 0

    def append(self, slot: int, tf: int) -> None:
        if self.size == len(self.slots):
            self.slots = np.resize(self.slots, 2 * self.size)
            self.tfs = np.resize(self.tfs, 2 * self.size)
        self.slots[self.size] = slot
        self.tfs[self.size] = tf
        self.size += 1


class BM25Index:
    """Incremental BM25 over (doc_id, text); `search` can be limited to allowed ids.

    >>> index = BM25Index()
    >>> index.add("m1", "Melanie painted a sunrise by the lake")
    >>> index.add("m2", "Caroline went to a support group")
    >>> index.search("who painted the lake?", k=1)[0][0]
    'm1'
    """

    def __init__(
        self,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        tokenizer: Callable[[str], list[str]] = tokenize,
    ) -> None:
        if k1 < 0 or not 0 <= b <= 1:
            raise InvalidInput(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1, self.b = k1, b
        self._tokenize = tokenizer
        self._postings: dict[str, _Postings] = {}
        self._df: dict[str, int] = {}
        self._slot_of: dict[str, int] = {}
        self._ids = IdList()  # by slot (`graphmem.untraced`)
        self._terms_of: list[tuple[str, ...]] = []
        self._lengths = np.zeros(_INITIAL_CAPACITY, dtype=np.float64)
        self._live = np.zeros(_INITIAL_CAPACITY, dtype=bool)
        # by slot, its key; by key, its live slot (int32: 8 MB less a million documents)
        self._keys = np.full(_INITIAL_CAPACITY, NO_KEY, dtype=np.int32)
        self._slot_of_key = np.full(0, NO_SLOT, dtype=np.int32)
        self._total_length = 0.0
        # the masks of the ``rows`` arrays searched last (`_admitted`)
        self._masks = RowMasks()

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot_of

    def add(self, doc_id: str, text: str, key: int = NO_KEY) -> None:
        """Index one document; an id already present is an error (remove it first).
        ``key``: the caller's number for it (>= 0; no other live document's), which
        `search`'s ``rows`` select by; `NO_KEY`: none (no ``rows`` admits it)."""
        if doc_id in self._slot_of:
            raise InvalidInput(f"document {doc_id!r} is already indexed; remove it before re-adding")
        if key != NO_KEY:
            if not 0 <= key < 2**31:
                raise InvalidInput(f"a document's key is a number from 0 to 2**31 - 1 (or "
                                   f"NO_KEY), got {key}")
            if key < len(self._slot_of_key) and self._slot_of_key[key] != NO_SLOT:
                raise InvalidInput(f"key {key} already names document "
                                   f"{self._ids[self._slot_of_key[key]]!r}; remove it first")
        terms = self._tokenize(text)
        slot = len(self._ids)
        self._ensure_capacity(slot + 1)
        counts: dict[str, int] = {}
        for term in terms:
            counts[term] = counts.get(term, 0) + 1
        for term, tf in counts.items():
            postings = self._postings.get(term)
            if postings is None:
                postings = self._postings[term] = _Postings()
            postings.append(slot, tf)
            self._df[term] = self._df.get(term, 0) + 1
        self._ids.append(doc_id)
        self._terms_of.append(tuple(counts))
        self._slot_of[doc_id] = slot
        self._lengths[slot] = len(terms)
        self._live[slot] = True
        self._keys[slot] = key
        if key != NO_KEY:
            if key >= len(self._slot_of_key):
                self._slot_of_key = _grown(self._slot_of_key, key + 1, NO_SLOT)
            self._slot_of_key[key] = slot
        self._total_length += len(terms)
        self._masks.note(slot)

    def add_many(self, docs: Iterable[tuple[str, str]]) -> None:
        """Index (doc_id, text) pairs in order."""
        for doc_id, text in docs:
            self.add(doc_id, text)

    def remove(self, doc_id: str) -> None:
        """Drop a document from scoring and statistics (its postings stay, masked)."""
        slot = self._slot_of.pop(doc_id, None)
        if slot is None:
            raise InvalidInput(f"document {doc_id!r} is not in the index")
        self._live[slot] = False
        self._total_length -= self._lengths[slot]
        key = int(self._keys[slot])
        if key != NO_KEY:
            self._slot_of_key[key] = NO_SLOT
        for term in self._terms_of[slot]:
            self._df[term] -= 1
        self._terms_of[slot] = ()
        self._masks.note(slot)

    def document_frequency(self, term: str) -> int:
        """How many live documents hold ``term`` (a term as the tokenizer makes it)."""
        return self._df.get(term, 0)

    def idf(self, term: str) -> float:
        """The term's idf as `search` scores it (0 for a term no document holds)."""
        df = self._df.get(term, 0)
        n = len(self._slot_of)
        return float(np.log1p((n - df + 0.5) / (df + 0.5))) if df and n else 0.0

    def search(
        self, query: str, k: int = 10, allowed: Collection[str] | None = None,
        rows: np.ndarray | None = None, *, plus: Iterable[str] = (),
        minus: Iterable[str] = (),
    ) -> list[tuple[str, float]]:
        """The k best (doc_id, score) for the query, best first; only `allowed` ids if given,
        or only the documents whose key (`add`) is in ``rows`` (int64), not both. With
        ``rows``, the documents ``plus`` names are searched too and those ``minus`` names
        are not (ids; unknown ones are ignored).

        Documents sharing no term with the query are never returned. Ties are broken by
        insertion order, so results are deterministic.
        """
        return self._search(self.terms(query), k, allowed, rows, plus, minus)

    def terms(self, text: str) -> dict[str, int]:
        """``text``'s terms as a search reads them, each with how often it occurs, in
        the order they first occur (`search_terms` with these weights is `search`)."""
        return _count(self._tokenize(text))

    def search_terms(
        self, weights: Mapping[str, float], k: int = 10,
        allowed: Collection[str] | None = None, rows: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """As `search`, for terms (as the tokenizer makes them) each given a weight: a
        term's BM25 score counts ``weight`` times, where `search` counts it as often as
        the query repeats it (a term weighted 2 scores as that term written twice).
        Terms weighted 0 or less are left out."""
        kept = {term: float(w) for term, w in weights.items() if w > 0}
        return self._search(kept, k, allowed, rows, (), ())

    def _search(self, weights: Mapping[str, float], k: int,
                allowed: Collection[str] | None, rows: np.ndarray | None,
                plus: Iterable[str], minus: Iterable[str]) -> list[tuple[str, float]]:
        if k <= 0:
            raise InvalidInput(f"k must be a positive number of results, got {k}")
        if allowed is not None and rows is not None:
            raise InvalidInput("search takes allowed ids or rows, not both: pass the one "
                               "that names the documents to search among")
        if not self._slot_of:
            return []
        within = None if rows is None else self._admitted(rows, plus, minus)
        slots, scores = self._score(weights, within)
        if slots.size == 0:
            return []
        if allowed is not None:
            return self._top_allowed(slots, scores, k, allowed)
        return self._pairs(slots, scores, _top_order(scores, slots, k))

    @property
    def slots(self) -> int:
        """Slots made so far: a document added from now on takes slot `slots` or later
        (a changed document is removed and added again, at a new slot)."""
        return len(self._ids)

    def slot(self, doc_id: str) -> int:
        """The slot of a live document (`NO_SLOT` for one not indexed)."""
        return self._slot_of.get(doc_id, NO_SLOT)

    def containing(self, text: str, limit: int, skip: Callable[[str], bool], *,
                   done: tuple[int, int] | None = None) -> list[str]:
        """Up to ``limit`` ids of the documents that hold every term of ``text`` (none if
        it has no term), the latest indexed first, less those ``skip`` says and those in
        the slots ``done`` names (lo, hi: the slots from lo to before hi, which the caller
        knows it would skip; not looked at, so a walk past many skipped documents is
        not repeated)."""
        lists: list[np.ndarray] = []
        for term in set(self._tokenize(text)):
            postings = self._postings.get(term)
            if postings is None:
                return []
            lists.append(postings.slots[: postings.size])
        # postings are sorted: the shortest list's slots are looked up in the longer
        # ones (a sort of every list, intersect1d's way, cost 8 ms a statement at a
        # million memories, where a name's list holds hundreds of thousands)
        lists.sort(key=len)
        slots = lists[0] if lists else np.empty(0, dtype=np.int64)
        if done is not None and slots.size:
            lo, hi = done
            slots = np.concatenate([slots[: np.searchsorted(slots, lo)],
                                    slots[np.searchsorted(slots, hi):]])
        for longer in lists[1:]:
            if not slots.size:
                break
            at = np.minimum(np.searchsorted(longer, slots), longer.size - 1)
            slots = slots[longer[at] == slots]
        found: list[str] = []
        # postings are in slot order (a document's slot is its place in the index)
        for slot in slots[::-1]:
            doc_id = self._ids[slot]
            if self._live[slot] and not skip(doc_id):
                found.append(doc_id)
                if len(found) == limit:
                    break
        return found

    def _score(self, weights: Mapping[str, float],
               within: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Slots that match any query term (``weights``: each term's count in the query,
        or its weight; among those ``within`` admits, a mask by slot, if given), and their
        BM25 scores."""
        n = len(self._slot_of)
        avg_length = self._total_length / n if self._total_length > 0 else 1.0
        parts_slots, parts_scores = [], []
        for term, query_tf in weights.items():
            postings = self._postings.get(term)
            df = self._df.get(term, 0)
            if postings is None or df == 0:
                continue
            idf = np.log1p((n - df + 0.5) / (df + 0.5))
            slots = postings.slots[: postings.size]
            tfs = postings.tfs[: postings.size]
            if within is not None:
                admitted = within[slots]
                slots, tfs = slots[admitted], tfs[admitted]
                if not slots.size:
                    continue
            # tf (k1 + 1) / (tf + k1 (1 - b + b len / avg)), in place: a common term at a
            # million memories has hundreds of thousands of postings, and each temporary
            # array is a pass over them
            score = self._lengths[slots]
            score *= self.k1 * self.b / avg_length
            score += self.k1 * (1.0 - self.b)
            score += tfs
            np.divide(tfs, score, out=score)
            score *= query_tf * idf * (self.k1 + 1.0)
            parts_slots.append(slots)
            parts_scores.append(score)
        if not parts_slots:
            return np.empty(0, dtype=np.int64), np.empty(0)
        if len(parts_slots) == 1:  # one matching term: its postings are the matches
            slots, scores = parts_slots[0], parts_scores[0]
        elif sum(map(len, parts_slots)) * SPARSE_SHARE <= len(self._ids):
            slots, scores = _summed(parts_slots, parts_scores)
        else:
            # Every BM25 term score is > 0 (idf > 0, tf >= 1), so non-zero means matched.
            dense = np.bincount(
                np.concatenate(parts_slots),
                weights=np.concatenate(parts_scores),
                minlength=len(self._ids),
            )
            matched = np.flatnonzero((dense > 0) & self._live[: len(self._ids)])
            return matched, dense[matched]
        live = self._live[slots]
        return slots[live], scores[live]

    def _top_allowed(
        self, slots: np.ndarray, scores: np.ndarray, k: int, allowed: Collection[str]
    ) -> list[tuple[str, float]]:
        """Top k among allowed ids, by the cheaper of two ways.

        Looking up every allowed id costs len(allowed); walking the matches in score order
        costs about k / (allowed share of the index) set lookups. Walk when that is less.
        """
        if len(allowed) ** 2 <= k * len(self._slot_of) or len(allowed) <= k:
            wanted = np.array(
                sorted({self._slot_of[i] for i in allowed if i in self._slot_of}), dtype=np.int64
            )
            positions = np.minimum(np.searchsorted(slots, wanted), slots.size - 1)
            positions = positions[slots[positions] == wanted]
            sub_slots, sub_scores = slots[positions], scores[positions]
            return self._pairs(sub_slots, sub_scores, _top_order(sub_scores, sub_slots, k))
        # a set, a dict or a dict's keys (an owner's ids) answers `in` as it is: a copy
        # of an owner's hundred thousand ids cost more than the search
        allowed_set = allowed if isinstance(allowed, (AbstractSet, Mapping)) else set(allowed)
        found: list[tuple[str, float]] = []
        # deep enough that the allowed share of it is about twice k: each widening sorts
        # every match again (a million at a million memories)
        window = max(4 * k, 2 * k * len(self._slot_of) // max(1, len(allowed)))
        done = 0
        while done < slots.size and len(found) < k:
            order = _top_order(scores, slots, min(window, slots.size))
            for position in order[done:]:
                doc_id = self._ids[slots[position]]
                if doc_id in allowed_set:
                    found.append((doc_id, float(scores[position])))
                    if len(found) == k:
                        break
            done = len(order)
            window *= 4
        return found

    def _admitted(self, rows: np.ndarray, plus: Iterable[str] = (),
                  minus: Iterable[str] = ()) -> np.ndarray:
        """A mask by slot of the live documents whose key is in ``rows`` or whose id is in
        ``plus``, less those whose id is in ``minus`` (read only: it may be kept for the
        next search by the same ``rows``: `graphmem.retrieval.row_masks`)."""
        mask = self._masks.mask(rows, self._slot_of_key, self._keys, self._live,
                                len(self._lengths))
        if plus or minus:
            mask = mask.copy()
            for ids, admit in ((minus, False), (plus, True)):
                for doc_id in ids:
                    slot = self._slot_of.get(doc_id)
                    if slot is not None:
                        mask[slot] = admit
        return mask

    def _pairs(self, slots: np.ndarray, scores: np.ndarray, order: np.ndarray) -> list[tuple[str, float]]:
        return [(self._ids[slots[i]], float(scores[i])) for i in order]

    def _ensure_capacity(self, size: int) -> None:
        if size > len(self._lengths):
            capacity = max(size, 2 * len(self._lengths))
            self._lengths = np.resize(self._lengths, capacity)
            self._live = _grown(self._live, capacity, False)
            self._keys = _grown(self._keys, capacity, NO_KEY)


def _grown(array: np.ndarray, size: int, fill: int) -> np.ndarray:
    """``array`` lengthened to at least ``size`` (doubling), new places ``fill``."""
    grown = np.full(max(size, 2 * len(array)), fill, dtype=array.dtype)
    grown[: len(array)] = array
    return grown


#: matches are summed over the postings themselves (sorted, not spread over an array as
#: long as the index) when the postings are fewer than the index's documents over this:
#: at a million memories the array and its passes cost 3-5 ms a search, however few match
SPARSE_SHARE = 16


def _summed(parts_slots: list[np.ndarray], parts_scores: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each slot that occurs in the postings, ascending, with its term scores summed in
    term order, one after another, as ``np.bincount`` adds them over an array as long as
    the index: the same sums to the last bit, whichever way a search takes
    (``np.add.reduceat`` sums a run pairwise, and differed in the last bit)."""
    slots = np.concatenate(parts_slots)
    scores = np.concatenate(parts_scores)
    order = np.argsort(slots, kind="stable")  # runs of sorted postings: a merge
    slots, scores = slots[order], scores[order]
    first = np.concatenate(([True], slots[1:] != slots[:-1]))
    return slots[first], np.bincount(np.cumsum(first) - 1, weights=scores)


#: the most postings a channel's search of many terms reads (`within_budget`): the
#: question's own terms always, then the terms it adds (hop's words of the first hits,
#: expand's nearest words) while they fit. A search's cost is its postings: at a million
#: generated statements (a few dozen words, each in tens of thousands of them) hop's ten
#: terms read half a million and expand's 25-30 two and a half million (33 ms); a store of
#: real text spreads its words thinner. No unit of the benchmarks (LoCoMo conversations,
#: PrefEval at 300 distractors) comes near it, so their figures are the unbounded searches'.
POSTINGS = 200_000


def within_budget(index: BM25Index, weights: Mapping[str, float], postings: int,
                  always: Collection[str]) -> dict[str, float]:
    """``weights`` (in their order) less the terms beyond a budget of ``postings``: the
    terms of ``always`` whatever they cost, then the others by weight x idf, highest
    first (ties by term), each kept if it still fits."""
    kept = {t for t in weights if t in always}
    spent = sum(index.document_frequency(t) for t in kept)
    rest = sorted((t for t in weights if t not in kept),
                  key=lambda t: (-weights[t] * index.idf(t), t))
    for term in rest:
        df = index.document_frequency(term)
        if df and spent + df <= postings:
            kept.add(term)
            spent += df
    return {t: w for t, w in weights.items() if t in kept}


def _count(terms: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for term in terms:
        counts[term] = counts.get(term, 0) + 1
    return counts


def _top_order(scores: np.ndarray, slots: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k best scores, best first; equal scores by earlier slot."""
    if k < scores.size:
        # Take everything scoring at least the k-th best so ties at the cut are kept whole.
        candidates = np.flatnonzero(scores >= _cut(scores, k))
    else:
        candidates = np.arange(scores.size)
    order = np.lexsort((slots[candidates], -scores[candidates]))
    return candidates[order][:k]


#: a list of more scores than this finds its cut from a sample first
SAMPLED_ABOVE = 65_536
_SAMPLE = 8192


def _cut(scores: np.ndarray, k: int) -> float:
    """A score no higher than the k-th best, above which lie at most a few times k.

    The k-th best of hundreds of thousands of matches (every common term at a million
    memories) costs a partition of them all: 3 ms. A strided sample's 4k-th best (scaled)
    is usually a little below it; counting the scores above it checks that (at least k
    lie above: then the k-th best is at least it) and that the cut keeps few (at most
    16k, so that a wide tie below the k-th does not flood the sort), or that the cut is
    the k-th best itself, tied wide (fewer than k strictly above: the sort then takes
    the whole tie, as it does for an exact cut). Otherwise, and for short lists, the
    exact k-th best.
    """
    if scores.size > SAMPLED_ABOVE:
        sample = scores[:: scores.size // _SAMPLE]
        rank = 4 * k * sample.size // scores.size + 1
        if rank < sample.size:
            cut = np.partition(sample, sample.size - rank)[sample.size - rank]
            at_least = np.count_nonzero(scores >= cut)
            if k <= at_least <= 16 * k:
                return float(cut)
            # a wide tie at the cut: if fewer than k lie above it, it is the k-th best
            if at_least >= k and np.count_nonzero(scores > cut) < k:
                return float(cut)
    return float(np.partition(scores, scores.size - k)[scores.size - k])
