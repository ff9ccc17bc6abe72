"""An in-process view of one namespace's memories, kept in step with the store.

The graph store is the source of truth. Ranking 100,000 memories by cosine similarity
or BM25 through Cypher costs tens of milliseconds a query; doing it in-process over a
matrix costs a few. So each process keeps, per namespace, the memories' embeddings,
texts, owners and neighbours, and catches up by sequence number: every write advances
the namespace version and stamps what it touched with it (``m.seq``), so
``changed_since`` returns exactly what this view has not seen. Writes are guarded by
that version, so a view that is behind can never make a write land on a stale plan.
Searching the vectors (`nearest`) is `graphmem.view_search`'s part of the view, and
reading an agent's rows and ids `graphmem.view_owners`'s.
"""

from __future__ import annotations

from array import array
from bisect import insort
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from graphmem import vector_index
from graphmem.embed import DIMENSION
from graphmem.errors import QueryFailed
from graphmem.text.entity_resolution import Entity, EntityResolver
from graphmem.store.base import Row, Store
from graphmem.untraced import IdList, id_set, row_list
from graphmem.view_owners import NO_ROWS as _NO_ROWS, OwnerRows, SortedRows
from graphmem.view_rows import NO_TIME, RowColumns
from graphmem.view_search import VectorSearch


#: memories read from the store per page of a catch-up (a first read of a large
#: namespace in one reply held several gigabytes of parsed rows at 100,000 memories)
SYNC_PAGE = 5000


def arc_key(t: int, recorded_at: int | None, memory_id: str) -> tuple[int, int, str]:
    """Where a memory stands on a timeline (an entity's StoryArc): by its time, then by
    when it was recorded, then by id. The turns of one session, dated by the session
    alone, stand in the order they were told; the statements of one deposit, recorded
    together, by id, which a deposit hands out in the order it writes them
    (`consensus.deposit_ids`). `memory/timeline.cypher` orders a stored arc the same way."""
    return (int(t), int(recorded_at or 0), memory_id)


@dataclass
class MemoryRecord:
    """What the view knows of one memory."""

    id: str
    row: int
    text: str
    seq: int
    t: int | None = None
    place: str | None = None
    owners: dict[str, str] = field(default_factory=dict)  # agent -> via
    affiliated: set[str] = field(default_factory=set)
    conflicts: set[str] = field(default_factory=set)
    asserted_by: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    forgotten: bool = False
    pinned: bool = False
    recorded_at: int | None = None  # when the system learned it (epoch ms)
    kind: str = "episodic"
    salience: float = 0.0
    valid_until: int | None = None  # a later claim replaced this one from then on
    superseded_by: str | None = None
    mentions: set[str] = field(default_factory=set)  # entity ids
    context: str | None = None  # what the first deposit answered (indexed, not the text)
    #: the context each owner's own deposit answered (None: it had none)
    owner_contexts: dict[str, str | None] = field(default_factory=dict)
    # -- trust (graphmem.trust): None/empty in a store older than it
    confidence: float | None = None
    asserted_from: list[str] = field(default_factory=list)  # told_by of each assertion
    quarantined: bool = False
    domain: str | None = None
    epistemic: str = "asserted"  # or "unverified" (its sole asserter was revoked)
    #: what each wording claims, as the write path read it (graphmem.supersession.stored)
    claims: str | None = None


Listener = Callable[[MemoryRecord], None]
#: what a snapshot reads siblings with: (rows, held row of an id) -> (of, sibling, rows
#: it cannot answer: read their records)
SavedSiblings = Callable[[np.ndarray, Callable[[str], int]],
                         tuple[np.ndarray, np.ndarray, np.ndarray]]


class NamespaceView(VectorSearch, OwnerRows):
    """Embeddings, owners and links of one namespace, synced from the store."""

    def __init__(self, ns: str) -> None:
        self.ns = ns
        self.version = -1  # namespace version this view reflects
        self.records: dict[str, MemoryRecord] = {}
        # by row; this and the owners' rows and ids are kept where the garbage collector
        # does not walk them (`graphmem.untraced`)
        self._ids = IdList()
        self._matrix = np.zeros((64, DIMENSION), dtype=np.float32)  # resized by 1st vector
        self._owned: dict[str, array] = {}  # agent -> rows (int64) of what it owns
        self._owned_cache: dict[str, SortedRows] = {}
        self._owned_ids: dict[str, dict[str, None]] = {}  # kept in step, never rebuilt
        self._asserted: dict[str, array] = {}  # agent -> rows of what it asserted
        self._asserted_cache: dict[str, SortedRows] = {}
        # counts the rows ever taken out of an agent's owned or asserted ones (before
        # they are): a sorted copy made before is then not extended (`_sorted_rows`)
        self._rows_removed = 0
        self._listeners: list[Listener] = []
        # (agent, place) -> (t, recorded_at, pos, memory id) of the agent's latest memory
        # at that place: the greatest such key, so that it does not depend on the order
        # the view read the memories in (a view read afresh reads them by their last
        # change, a view kept in step by the order they were written and touched)
        self._latest_at_place: dict[tuple[str, str], tuple[int, int, int, str]] = {}
        self.resolver = EntityResolver(namespace=ns)
        self._mentioned_by: dict[str, set[str]] = {}  # entity id -> memory ids
        # entity id -> its timeline, [(t, recorded_at, memory id)] in that order (`arc`)
        self._timelines: dict[str, list[tuple[int, int, str]]] = {}
        # an index of the vectors, made when the view outgrows an exact scan, and the
        # one being trained on a thread meanwhile (or to replace a stale one)
        self._coarse: vector_index.CoarseIndex | None = None
        self._training: vector_index.Training | None = None
        # forgotten, time and has-siblings by row: what rankings read of many memories
        # without making their records (`graphmem.view_rows`)
        self._columns = RowColumns()
        # a view restored from a snapshot: the rows of the memories it held then, read
        # without making their records (None: every record is made, read its row)
        self._positions: Mapping[str, int] | None = None
        # and the AFFILIATED siblings of those whose record it has not made, as saved
        # (None: read them off the records; see `sibling_rows`)
        self._saved_sibling_rows: SavedSiblings | None = None

    # -- keeping in step ----------------------------------------------------------

    def on_change(self, listener: Listener, *, replay: bool = True) -> None:
        """Call ``listener(record)`` for every memory added or changed from now on, and
        (``replay``) for every memory the view holds now (each record is then made: a
        listener that can find older memories otherwise need not)."""
        self._listeners.append(listener)
        for record in self.records.values() if replay else ():
            listener(record)

    def sync(self, store: Store, queries, version: int, *, note: bool = False) -> int:
        """Catch up with the store, which is at namespace ``version``, a page of
        ``SYNC_PAGE`` memories at a time (a memory changed meanwhile moves to a later
        sequence, which a later page reads); returns how many memories were read.
        ``note``: the caller's write moved the namespace to ``version``; the journal
        notes it with the first page's read (``Store.read_noting``)."""
        if version <= self.version:
            if note:
                store.note_version(self.ns, version)
            return 0
        read = 0
        since = max(self.version, 0)
        params = {"ns": self.ns, "vsince": since, "since": since, "page": SYNC_PAGE,
                  "after_seq": -1, "after_pos": -1, "after_id": ""}
        newest, previous = version, None
        query = queries["memory/changed_since"]
        while True:
            first = previous is None
            rows = store.read_noting(self.ns, version, query, params) if note and first \
                else store.read(query, params)
            for row in rows:
                self.upsert(row)
            read += len(rows)
            if rows:  # in seq order: the last is the newest
                newest = max(newest, int(rows[-1]["seq"]))
            if len(rows) < SYNC_PAGE:
                break
            last = rows[-1]
            cursor = (int(last["seq"]), int(last.get("pos") or 0), last["id"])
            if cursor == previous:
                raise QueryFailed(f"catching up {self.ns!r} read the same page twice at "
                                  f"{cursor}: memory/changed_since does not move past its "
                                  "cursor; the view keeps its version and reads again")
            params.update(since=cursor[0], after_seq=cursor[0], after_pos=cursor[1],
                          after_id=cursor[2])
            previous = cursor
        self.version = newest
        return read

    def upsert(self, row: Row) -> MemoryRecord:
        """Add or refresh one memory from a ``changed_since`` row (a row without an
        embedding leaves the vector this view holds: it did not change)."""
        mid = row["id"]
        record = self.records.get(mid)
        if record is None:
            record = MemoryRecord(id=mid, row=len(self._ids), text=row["text"], seq=row["seq"])
            self._append_vector(row["embedding"] if row.get("embedding") is not None
                                else [0.0] * self._matrix.shape[1])
            self._ids.append(mid)
            self.records[mid] = record
        elif row.get("embedding") is not None:
            self._matrix[record.row] = np.asarray(row["embedding"], dtype=np.float32)
            if self._coarse is not None and record.row < self._coarse.size:  # re-embedded
                self._coarse.add(record.row, self._matrix[record.row:record.row + 1])
            if self._training is not None:
                self._training.changed.add(record.row)
        elif row.get("deleted"):  # erased for privacy: nothing of it stays in memory
            self._matrix[record.row] = 0.0
        record.text = row["text"]
        record.seq = int(row["seq"])
        record.t = row.get("t")
        record.place = row.get("place")
        asserted_by = list(row.get("asserted_by") or [])
        for agent in set(asserted_by) - set(record.asserted_by):
            self._asserted.setdefault(agent, row_list()).append(record.row)
        for agent in set(record.asserted_by) - set(asserted_by):
            self._rows_removed += 1
            self._asserted[agent].remove(record.row)
            self._asserted_cache.pop(agent, None)
        record.asserted_by = asserted_by
        record.variants = list(row.get("variants") or [record.text])
        record.forgotten = bool(row.get("forgotten"))
        record.pinned = bool(row.get("pinned"))
        record.recorded_at = row.get("recorded_at")
        record.kind = row.get("kind") or "episodic"
        record.salience = float(row.get("salience") or 0.0)
        record.valid_until = row.get("valid_until")
        record.superseded_by = row.get("superseded_by")
        record.context = row.get("context")
        record.confidence = row.get("confidence")
        record.asserted_from = list(row.get("asserted_from") or [])
        record.quarantined = bool(row.get("quarantined"))
        record.domain = row.get("domain")
        record.epistemic = row.get("epistemic") or "asserted"
        record.claims = row.get("claims")
        owners = dict(zip(row.get("owners") or [], row.get("vias") or []))
        record.owner_contexts = _owner_contexts(row, record.context)
        for agent in owners.keys() - record.owners.keys():
            self._owned.setdefault(agent, row_list()).append(record.row)
            if agent not in self._owned_ids:
                self._owned_ids[agent] = id_set()
            kept = self._made_owned_ids(agent)
            if kept is not None:
                kept[mid] = None
        for agent in record.owners.keys() - owners.keys():  # an unmerge moved it away
            self._rows_removed += 1
            self._owned[agent].remove(record.row)
            kept = self._made_owned_ids(agent)
            if kept is not None:
                kept.pop(mid, None)
            self._owned_cache.pop(agent, None)
        record.owners = owners
        if record.place is not None and record.t is not None:
            for agent in owners:
                key = (agent, record.place)
                rank = (int(record.t), int(record.recorded_at or 0), int(row.get("pos") or 0), mid)
                if key not in self._latest_at_place or self._latest_at_place[key] < rank:
                    self._latest_at_place[key] = rank
        record.affiliated = set(row.get("affiliated") or [])
        record.conflicts = set(row.get("conflicts") or [])
        self._index_mentions(record, [m for m in row.get("mentions") or [] if m.get("id")])
        self.records[mid] = record  # changed: a restored view keeps it (RecordDict.trim)
        self._note(record)
        for listener in self._listeners:
            listener(record)
        return record

    def apply(self, memory_ids: Iterable[str], seq: int, **fields: object) -> int:
        """Set ``fields`` on the records of ``memory_ids`` (those this view has) as a
        write at ``seq`` set them in the store: for a writer that knows exactly what its
        statement changed, instead of reading every changed memory back. Returns how
        many records it changed."""
        changed = 0
        for mid in memory_ids:
            record = self.records.get(mid)
            if record is None:
                continue
            changed += 1
            for name, value in fields.items():
                setattr(record, name, value)
            record.seq = seq
            self.records[mid] = record  # changed: a restored view keeps it
            self._note(record)
            for listener in self._listeners:
                listener(record)
        return changed

    def _note(self, record: MemoryRecord) -> None:
        self._columns.note(record.row, forgotten=record.forgotten, t=record.t,
                           linked=bool(record.affiliated))

    def _index_mentions(self, record: MemoryRecord, mentions: list[dict]) -> None:
        for m in mentions:
            self.resolver.know(Entity(m["id"], m.get("name") or m["id"], m.get("type") or "unknown",
                                      tuple(m.get("aliases") or ())))
        now = {m["id"] for m in mentions}
        for entity_id in record.mentions | now:
            arc = self._timelines.setdefault(entity_id, [])
            stale = [item for item in arc if item[-1] == record.id]
            for item in stale:
                arc.remove(item)
            if entity_id in now and record.t is not None:
                insort(arc, arc_key(record.t, record.recorded_at, record.id))
            members = self._mentioned_by.setdefault(entity_id, set())
            (members.add if entity_id in now else members.discard)(record.id)
        record.mentions = now

    def mentions_of(self, memory_id: str) -> set[str]:
        record = self.records.get(memory_id)
        return record.mentions if record else set()

    def mentioning(self, entity_id: str) -> set[str]:
        """Ids of the memories that mention an entity."""
        return self._mentioned_by.get(entity_id, set())

    def arc(self, entity_id: str) -> list[tuple[int, int, str]]:
        """An entity's timeline: (t, recorded_at, memory id) of each memory, in that order
        (`arc_key`)."""
        return self._timelines.get(entity_id, [])

    def aliases_of(self, entity_id: str) -> tuple[str, ...]:
        try:
            return self.resolver.entity(entity_id).aliases
        except KeyError:
            return ()

    def _append_vector(self, vector: Sequence[float]) -> None:
        n = len(self._ids)
        if n == 0 and len(vector) != self._matrix.shape[1]:  # another embedding model
            self._matrix = np.zeros((64, len(vector)), dtype=np.float32)
        if n == len(self._matrix):
            self._matrix = _grown(self._matrix, n)
        self._matrix[n] = np.asarray(vector, dtype=np.float32)

    # -- reading ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._ids)

    def id_at(self, row: int) -> str:
        return self._ids[row]

    def row_of(self, memory_id: str) -> int:
        """The memory's row (KeyError if the view does not hold it), without making its
        record where it need not."""
        if self._positions is not None:
            row = self._positions.get(memory_id)
            if row is not None:
                return row
        return self.records[memory_id].row

    def is_forgotten(self, memory_id: str) -> bool:
        return bool(self._columns.forgotten[self.row_of(memory_id)])

    def time_of(self, memory_id: str) -> int | None:
        """The memory's time (epoch ms), None if it has none."""
        return self.time_at(self.row_of(memory_id))

    def time_at(self, row: int) -> int | None:
        """The time (epoch ms) of the memory at ``row``, None if it has none."""
        return self._columns.time(row)

    def times_at(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(times, rows) of those of ``rows`` whose memory has a time, in their order."""
        times = self._columns.t[rows]
        keep = times != NO_TIME
        return times[keep], rows[keep]

    def has_siblings(self, memory_id: str) -> bool:
        """Whether the memory has AFFILIATED siblings (owned by anyone, forgotten or not)."""
        return bool(self._columns.linked[self.row_of(memory_id)])

    def siblings(self, memory_id: str) -> list[str]:
        """Ids of the memory's AFFILIATED siblings the view holds (owned by anyone,
        forgotten or not), in row order."""
        _, found = self.sibling_rows(np.array([self.row_of(memory_id)], dtype=np.int64))
        return [self._ids[row] for row in np.sort(found).tolist()]

    def sibling_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The AFFILIATED siblings the view holds of the memories at ``rows`` (int64), as
        pairs of rows (of, sibling): two arrays, in no particular order.

        A recall reads the siblings of a thousand memories and more (the deposit channel);
        a view restored from a snapshot reads those of the memories whose record it has
        not made off the snapshot's columns, as their records hold them (making a record
        decodes all of it: 1,200 of them were most of a recall's 66 ms at 100,000
        memories cut into deposits of three)."""
        linked = rows[self._columns.linked[rows]]
        saved = self._saved_sibling_rows
        if saved is None:
            of, found, rest = _NO_ROWS, _NO_ROWS, linked
        else:
            of, found, rest = saved(linked, self._held_row)
        if not len(rest):
            return of, found
        records = self.records
        more = [(row, self.row_of(x)) for row in rest.tolist()
                for x in records[self._ids[row]].affiliated if x in records]
        pairs = np.array(more, dtype=np.int64).reshape(-1, 2)
        return np.concatenate([of, pairs[:, 0]]), np.concatenate([found, pairs[:, 1]])

    def _held_row(self, memory_id: str) -> int:
        """The memory's row, -1 if the view does not hold it."""
        return self.row_of(memory_id) if memory_id in self.records else -1

    def vector(self, memory_id: str) -> np.ndarray:
        return self._matrix[self.row_of(memory_id)]

    def vectors(self, memory_ids: Sequence[str]) -> np.ndarray:
        """The vectors of ``memory_ids``, one row each, in their order (a copy)."""
        return self.vectors_at(np.fromiter((self.row_of(m) for m in memory_ids),
                                           dtype=np.int64, count=len(memory_ids)))

    def vectors_at(self, rows: np.ndarray) -> np.ndarray:
        """The vectors at ``rows``, in their order (a copy)."""
        return self._matrix[rows]

    def live_rows(self, rows: np.ndarray) -> np.ndarray:
        """Those of ``rows`` whose memory is not forgotten, in their order."""
        return rows[~self.forgotten_at(rows)]

    def forgotten_at(self, rows: np.ndarray) -> np.ndarray:
        """Whether the memory at each of ``rows`` is forgotten (a bool array)."""
        return self._columns.forgotten[rows]

    def latest_at_place(self, agent: str, place: str) -> tuple[int, str] | None:
        """(t, id) of the latest memory ``agent`` owns at ``place``, if any: the greatest
        t, then the latest written (recorded_at, then place in its deposit)."""
        latest = self._latest_at_place.get((agent, place))
        return None if latest is None else (latest[0], latest[3])


def _grown(matrix: np.ndarray, n: int) -> np.ndarray:
    grown = np.zeros((2 * len(matrix), matrix.shape[1]), dtype=matrix.dtype)
    grown[:n] = matrix[:n]
    return grown


def _owner_contexts(row: Row, first: str | None) -> dict[str, str | None]:
    """Each owner's own deposit's context. A store written before deposits kept their
    context knows only the first one: every owner then gets that (as it always did)."""
    contexts = {d["id"]: d.get("context") for d in row.get("deposits") or [] if d.get("id")}
    kept = any(c is not None for c in contexts.values())
    pairs = zip(row.get("owners") or [], row.get("owner_deposits") or [])
    return {agent: (contexts.get(deposit) if kept else first) for agent, deposit in pairs}
