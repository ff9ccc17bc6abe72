"""The detector the write path asks: which current memories does a new statement replace?

Candidates are not the statement's nearest neighbours (a reworded update, "the backend
workstream passes from Maya to Jonas" after "Maya owns the backend workstream", lies far
below any similarity floor) but the memories that claim something of the same anchor,
found through an index of anchors kept beside each namespace view:

* every memory the view adds or changes from the detector's first use on is queued
  (``NamespaceView.on_change``, without replaying what the view held before: at a
  million memories that made every record);
* a queued memory whose wordings were read before (the write path read them as atoms),
  or whose claims were kept with it in the store (``graphmem.supersession.stored``: the
  write path keeps each memory's claims), is indexed at once, by the anchors of its
  state claims;
* the others (memories this process has not indexed: older than its first statement,
  or written without kept claims) are found when a new statement names an anchor, as
  the memories whose wordings hold every word of it (the namespace's BM25 index of
  wordings, which the view's text index keeps anyway); one statement reads at most
  ``READ_PER_STATEMENT`` of them, the latest first, from their kept claims or, without
  them, by parsing (at most ``PARSE_PER_STATEMENT``); an older current claim about a
  crowded anchor is found by a later statement, once the newer ones are read.

A statement is compared with the latest `COMPARED_PER_ANCHOR` indexed states of each of
its anchors (by when they were written), and with events only when it names a value as
given up (the one way an event is replaced). An anchor of a long-lived store can hold
thousands of current claims (a person's name: everything said of them); comparing each
costs time in proportion, on every statement about it. A claim that many later claims
about its anchor did not replace is rarely the one a new statement updates.

Each memory's claim time is when it was stated (the deposit's time), which the write path
tells the detector (``note``); for memories it never saw, their world time when their
claim names no time, else "before now" (a time a claim names is its value, "the launch
is on March 10", not when it was said).

Owns ``SupersessionDetector``. Imports graphmem.text, graphmem.view, graphmem.retrieval
(the BM25 index of wordings) and this package.
"""

from __future__ import annotations

import bisect
import re
import threading
import weakref
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from graphmem.retrieval.bm25 import NO_SLOT, BM25Index
from graphmem.supersession import stored as stored_claims
from graphmem.supersession.claims import Claim, read_claim
from graphmem.supersession.participants import name_copy
from graphmem.supersession.compare import supersedes
from graphmem.text.lexicon import Lexicon, default_lexicon
from graphmem.text.nlp import Parser
from graphmem.view import MemoryRecord, NamespaceView

_WORD = re.compile(r"[a-z0-9]+")
#: claims kept by text; a claim is a few small tuples
CLAIM_CACHE = 200_000
#: memories not yet indexed read for one statement, latest first: an anchor held by
#: thousands of memories ("the harbour" in a large store) would cost minutes of parsing on
#: its first use in a process; the rest are read by later statements about it
READ_PER_STATEMENT = 64
#: of those, memories without kept claims (an import's) parsed for one statement (about
#: 2 ms each): the latest first, the others by later statements
PARSE_PER_STATEMENT = 8
#: states of one anchor a statement is compared with, the latest written first (and as
#: many events, when it names a value as given up)
COMPARED_PER_ANCHOR = 256


class _Pool:
    """The memories of one anchor (id -> row, the order they were written in), kept in
    row order too: the latest are read off its end, not found among all of them (an
    anchor a long-running writer has read can hold a hundred thousand: 7 ms a statement
    to pick the latest 256 by a heap)."""

    __slots__ = ("row_of", "order")

    def __init__(self) -> None:
        self.row_of: dict[str, int] = {}
        self.order: list[tuple[int, str]] = []  # (row, id), sorted

    def add(self, mid: str, row: int) -> None:
        if self.row_of.get(mid) == row:
            return
        self.remove(mid)
        self.row_of[mid] = row
        bisect.insort(self.order, (row, mid))

    def remove(self, mid: str) -> None:
        row = self.row_of.pop(mid, None)
        if row is not None:
            del self.order[bisect.bisect_left(self.order, (row, mid))]

    def latest(self, n: int) -> list[str]:
        """The ``n`` written last."""
        return [mid for _, mid in self.order[-n:]]


@dataclass
class _Index:
    """The anchors of one namespace's memories (see the module docstring): of each
    anchor, the memories whose states claim it and those whose events do, by row (the
    order they were written in)."""

    states: dict[str, _Pool] = field(default_factory=dict)
    events: dict[str, _Pool] = field(default_factory=dict)
    anchors_of: dict[str, frozenset[str]] = field(default_factory=dict)
    fresh: set[str] = field(default_factory=set)  # changed, not yet indexed
    stated: dict[str, int] = field(default_factory=dict)  # id -> when it was stated (ms)
    # anchor -> (lo, hi): the slots of `words` in which every memory holding the anchor's
    # words is indexed (`_read_unread` need not walk them again); for that words index
    done: dict[str, tuple[int, int]] = field(default_factory=dict)
    words: weakref.ref[BM25Index] | None = None


@dataclass(frozen=True)
class Replacement:
    """``earlier`` holds until ``until`` (epoch ms), replaced by ``later``; and why."""

    earlier: str
    later: str
    until: int
    reason: str

    def row(self) -> dict:
        """The write statement's ``supersede`` row."""
        return {"id": self.earlier, "valid_until": self.until, "by": self.later}


class SupersessionDetector:
    """Finds the current memories a new statement replaces (module docstring).

    One per write path; safe to share between threads (one lock around its indexes).
    """

    def __init__(self, *, parser: Parser | None = None, lexicon: Lexicon | None = None) -> None:
        self._parser = parser or Parser(full=True)
        self._lexicon = lexicon
        # text -> its claim, packed (`stored.pack`: not walked by the garbage collector)
        self._claims: dict[str, stored_claims.Packed] = {}
        self._indexes: weakref.WeakKeyDictionary[NamespaceView, _Index] = \
            weakref.WeakKeyDictionary()
        self._lock = threading.RLock()

    @property
    def lexicon(self) -> Lexicon:
        if self._lexicon is None:
            self._lexicon = default_lexicon()
        return self._lexicon

    @property
    def parser(self) -> Parser:
        """The full parser the detector reads with (the judge's, when they share it)."""
        return self._parser

    def parse_ahead(self, texts: Sequence[str]) -> None:
        """Parse ``texts`` and the copies the detector reads of those it has not read, in
        one batch of its parser, which keeps them: the write path's entity pass reads the
        same parses instead of making its own (the full pipeline's entities and tags are
        the entity pipeline's), and a copy that is its text (no name inside a sentence:
        about half of LoCoMo's statements) is parsed once for both."""
        with self._lock:
            copies = [name_copy(t)[0] for t in texts if t not in self._claims]
        self._parser.parse_many([*texts, *copies])

    # -- claims ---------------------------------------------------------------------

    def claims(self, texts: Iterable[str]) -> list[Claim]:
        """The claim of each text, parsing (in one batch) those not read before."""
        texts = list(texts)
        with self._lock:
            found = {t: stored_claims.unpack(self._claims[t]) for t in dict.fromkeys(texts)
                     if t in self._claims}
            missing = [t for t in dict.fromkeys(texts) if t not in found]
            if missing:
                copies = [name_copy(t) for t in missing]
                docs = self._parser.parse_many([c for c, _ in copies])
                for text, doc, (_, names) in zip(missing, docs, copies):
                    found[text] = read_claim(doc, self.lexicon, names)
                keep = missing
                if len(self._claims) + len(missing) > CLAIM_CACHE:
                    self._claims.clear()  # the cache is full: start again, with every
                    # text of this call (the write path asks `kept` for them next)
                    keep = list(found)
                self._claims.update((t, stored_claims.pack(found[t])) for t in keep)
            return [found[t] for t in texts]

    def claim(self, text: str) -> Claim:
        return self.claims([text])[0]

    def claims_of(self, record: MemoryRecord) -> list[Claim]:
        """The claims of a memory's wordings: those kept with it, else read."""
        wordings = record.variants or [record.text]
        self._learn(record, wordings)
        return self.claims(wordings)

    def _learn(self, record: MemoryRecord, wordings: list[str]) -> bool:
        """Take the claims kept with ``record`` for the wordings not read yet; True when
        every wording's claim is known then."""
        with self._lock:
            missing = [w for w in wordings if w not in self._claims]
            if missing and record.claims:
                kept = stored_claims.decode_packed(record.claims)
                if len(self._claims) + len(kept) > CLAIM_CACHE:
                    self._claims.clear()
                    missing = wordings
                for wording in missing:
                    if wording in kept:
                        self._claims[wording] = kept[wording]
                missing = [w for w in missing if w not in kept]
            return not missing

    def kept(self, wordings: Iterable[str], record: MemoryRecord | None = None) -> str | None:
        """The claims to keep with a memory of ``wordings`` (`stored.encode`), if every
        one was read or kept with ``record`` (the memory as stored, if it exists; none
        is parsed for this); else None."""
        wordings = list(dict.fromkeys(wordings))
        with self._lock:
            if record is not None:
                self._learn(record, wordings)
            if not all(w in self._claims for w in wordings):
                return None
            return stored_claims.encode_packed({w: self._claims[w] for w in wordings})

    def to_keep(self, rows: Sequence[Mapping]) -> list[dict[str, str]]:
        """Of stored memories (``id``, ``text``, ``variants``, ``claims`` as stored), those
        whose kept claims are missing or were read another way (another release), each
        with the claims to keep now (``id``, ``claims``); their wordings are parsed in one
        batch."""
        stale = [(r["id"], words) for r in rows
                 for words in [list(dict.fromkeys(r.get("variants") or [r["text"]]))]
                 if not set(words) <= stored_claims.decode_packed(r.get("claims")).keys()]
        read = dict(zip((w for _, words in stale for w in words),
                        self.claims(w for _, words in stale for w in words)))
        return [{"id": mid, "claims": stored_claims.encode({w: read[w] for w in words})}
                for mid, words in stale]

    def is_event(self, text: str) -> bool:
        """An action or an utterance: true once it happened, never replaced."""
        return self.claim(text).kind in ("event", "utterance")

    # -- the index ------------------------------------------------------------------

    def _index(self, view: NamespaceView) -> _Index:
        index = self._indexes.get(view)
        if index is None:
            index = self._indexes[view] = _Index()
            view.on_change(lambda record: index.fresh.add(record.id), replay=False)
        return index

    def note(self, view: NamespaceView, memory_id: str, stated: int) -> None:
        """``memory_id`` (new, or merged into) was stated at ``stated`` (epoch ms)."""
        with self._lock:
            index = self._index(view)
            index.stated[memory_id] = max(stated, index.stated.get(memory_id, stated))

    def _catch_up(self, view: NamespaceView, index: _Index) -> None:
        """Index the changed memories whose claims are known; the others are found by
        their words when a statement names one of their anchors (`_read_unread`)."""
        for mid in index.fresh:
            self._drop(index, mid)
            record = view.records.get(mid)
            if record is not None and self._learn(record, record.variants or [record.text]):
                self._add(index, record)
            elif record is not None:  # left out of the index: walks must find it again
                _undo_done(index, mid)
        index.fresh.clear()

    def _read_unread(self, view: NamespaceView, index: _Index, anchors: frozenset[str],
                     words: BM25Index) -> None:
        """Read and index the memories not indexed yet whose wordings hold every word of
        one of ``anchors``: at most `READ_PER_STATEMENT`, the latest first. The slots of
        ``words`` a walk for an anchor passed over with every memory there indexed are
        not walked again (`_Index.done`): a walk over the memories an anchor holds cost
        about a microsecond each (40 ms at 50,000), on every statement naming it, once a
        long-running writer had read them all."""
        if index.words is None or index.words() is not words:  # another index's slots
            index.words, index.done = weakref.ref(words), {}
        top = words.slots
        found = {anchor: words.containing(anchor, READ_PER_STATEMENT,
                                          lambda mid: mid in index.anchors_of,
                                          done=index.done.get(anchor))
                 for anchor in anchors}
        wanted = dict.fromkeys(m for ids in found.values() for m in ids)
        records = sorted((view.records[m] for m in wanted if m in view.records),
                         key=lambda r: (r.t is not None, r.t or 0, r.seq),
                         reverse=True)[:READ_PER_STATEMENT]
        unknown = [r for r in records if not self._learn(r, r.variants or [r.text])]
        self.claims(w for r in unknown[:PARSE_PER_STATEMENT] for w in (r.variants or [r.text]))
        later = {r.id for r in unknown[PARSE_PER_STATEMENT:]}  # still unread: found again
        for record in records:
            if record.id not in later:
                self._add(index, record)
        for anchor, ids in found.items():
            if all(m in index.anchors_of or m not in view.records for m in ids):
                _mark_done(index, words, anchor, ids, top)

    def _add(self, index: _Index, record: MemoryRecord) -> None:
        claims = self.claims(record.variants or [record.text])
        anchors = []
        for kind, pool in (("state", index.states), ("event", index.events)):
            for anchor in {a for c in claims if c.kind == kind for a in c.anchors}:
                pool.setdefault(anchor, _Pool()).add(record.id, record.row)
                anchors.append(anchor)
        index.anchors_of[record.id] = frozenset(anchors)

    def _drop(self, index: _Index, mid: str) -> None:
        for anchor in index.anchors_of.pop(mid, ()):
            for pools in (index.states, index.events):
                if anchor in pools:
                    pools[anchor].remove(mid)

    @staticmethod
    def _latest(pools: dict[str, _Pool], anchors: frozenset[str]) -> set[str]:
        """Of each anchor, the `COMPARED_PER_ANCHOR` memories of ``pools`` written last."""
        return {mid for anchor in anchors if anchor in pools
                for mid in pools[anchor].latest(COMPARED_PER_ANCHOR)}

    # -- the question -----------------------------------------------------------------

    def replaced(self, text: str, memory_id: str, view: NamespaceView, *, stated: int,
                 words: BM25Index, exclude: Iterable[str] = ()) -> list[Replacement]:
        """What the statement ``text`` (becoming or merged into ``memory_id``, stated at
        ``stated``) does to the current memories of ``view``: each one it replaces, or,
        for a statement older than a memory that replaces it, that one memory.
        ``words``: the BM25 index of the view's wordings (``TextIndex.words``)."""
        claim = self.claim(text)
        if claim.kind != "state" or not claim.anchors:
            return []
        with self._lock:
            index = self._index(view)
            self._catch_up(view, index)
            self._read_unread(view, index, claim.anchors, words)
            candidates = self._latest(index.states, claim.anchors)
            if any(p.replaced for p in claim.participants):  # rule 1b: an event replaced
                candidates |= self._latest(index.events, claim.anchors)
        skip = set(exclude) | {memory_id}
        out: list[Replacement] = []
        newer: list[Replacement] = []
        for mid in sorted(candidates - skip):
            record = view.records.get(mid)
            if record is None or record.forgotten or record.valid_until is not None:
                continue
            when = self._stated(index, record)
            for old in self.claims_of(record):
                if when is None or when < stated:
                    reason = supersedes(claim, old, self.lexicon)
                    if reason:
                        out.append(Replacement(mid, memory_id, stated, reason))
                        break
                elif when > stated:
                    reason = supersedes(old, claim, self.lexicon)
                    if reason:
                        newer.append(Replacement(memory_id, mid, when, reason))
                        break
        if newer:  # stated after the fact: it held only until the earliest replacement
            out.append(min(newer, key=lambda r: r.until))
        return out

    def _stated(self, index: _Index, record: MemoryRecord) -> int | None:
        if record.id in index.stated:
            return index.stated[record.id]
        claims = self.claims_of(record)
        if any(c.values("time") for c in claims):
            return None  # its world time is its value, not when it was said
        return record.t


def _undo_done(index: _Index, memory_id: str) -> None:
    """Forget the marks whose slots hold ``memory_id``, a memory left out of the index
    (a merge changed it, and its claims were neither kept with it nor read here since):
    the walks of those anchors must pass it again. A memory the words index does not
    hold now takes, when it comes, a slot above every mark; the marks of other anchors
    stand (clearing them all, each such memory made every crowded anchor be walked
    again, as before they were kept: a store imported without claims meets one on
    every merge into an imported memory)."""
    words = index.words() if index.words is not None else None
    slot = NO_SLOT if words is None else words.slot(memory_id)
    if slot != NO_SLOT:
        index.done = {anchor: (lo, hi) for anchor, (lo, hi) in index.done.items()
                      if not lo <= slot < hi}


def _mark_done(index: _Index, words: BM25Index, anchor: str, found: list[str],
               top: int) -> None:
    """After a walk for ``anchor`` below slot ``top`` found ``found`` (latest first) and
    every one of them is indexed now: the slots it passed over are done. A walk that
    stopped short of its limit passed over every slot below ``top``; one that reached
    it, those from its last find up (the slots it skipped as done lie among them, or
    below its last find, where they are forgotten)."""
    if len(found) < READ_PER_STATEMENT:
        index.done[anchor] = (0, top)
        return
    lowest = words.slot(found[-1])
    if lowest != NO_SLOT:
        index.done[anchor] = (lowest, top)
