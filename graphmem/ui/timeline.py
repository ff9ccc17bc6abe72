"""One page of the timeline, read from the store at every request, and the acts on it.

Each request runs the named queries under ``cypher/ui/`` through ``MemoryGraph.query``,
so a change made by another process shows on the next refresh. The utility of each
memory on the page is ``MemoryGraph.utilities``, the score recall puts on its hits (the
namespace's settings and clock): on one agent's page relevance to that agent's task, as
its recall shows it; on the whole namespace's page to the best owner's task, as
``maintain`` records it.
"""

from __future__ import annotations

import math
import threading
from datetime import datetime, timezone
from typing import Any, cast

import numpy as np

from graphmem.api import MemoryGraph
from graphmem.errors import InvalidInput
from graphmem.lifecycle.summarise import central_statement
from graphmem.models import check_identifier
from graphmem.retrieval.validity import status_of
from graphmem.view import MemoryRecord, NamespaceView

PAGE_SIZE = 100
MAX_PAGE_SIZE = 500
#: what each action button does, by the name the page posts
ACTS = {"pin": MemoryGraph.pin, "unpin": MemoryGraph.unpin,
        "forget": MemoryGraph.forget, "unforget": MemoryGraph.unforget}


class _PageView:
    """The part of a namespace view that ``status_of`` uses, holding only one page's
    memories (and the claims they conflict with)."""

    def __init__(self, records: dict[str, MemoryRecord]) -> None:
        self.records = records


def iso(ms: int | None) -> str | None:
    """Epoch milliseconds as ISO text in UTC (what the page shows)."""
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat(timespec="seconds")


class Timeline:
    """The timeline of one namespace of ``graph`` (one request at a time: the page is
    for a person, and a ``MemoryGraph`` handle's store client is not built for racing)."""

    def __init__(self, graph: MemoryGraph, *, ns: str, model_summary: bool = False) -> None:
        self.graph = graph
        #: the graph consolidates with a chat model's summary (GRAPHMEM_LLM_FOR): the
        #: preview then shows the extractive wording the model's answer falls back to
        self.model_summary = model_summary
        self.ns = check_identifier(ns, "ns")
        self._lock = threading.Lock()

    def prepare(self) -> None:
        """Do now what the first act and the first page would wait for: load the
        namespace into the handle's view (the curation API checks memories against it)
        and embed the agents' tasks (the first embedding loads the model)."""
        self.graph.warm(self.ns)
        self.graph.utilities([], ns=self.ns)

    # -- reading --------------------------------------------------------------------

    def agents(self) -> list[str]:
        with self._lock:
            return [r["id"] for r in self.graph.query("ui/agents", {"ns": self.ns})]

    def page(self, *, agent: str | None = None, page: int = 1,
             size: int = PAGE_SIZE) -> dict[str, Any]:
        """Page ``page`` (from 1) of ``size`` memories in time order, with the count of
        pages; a page past the last is the last."""
        if agent is not None:
            check_identifier(agent, "agent")
        if not 1 <= size <= MAX_PAGE_SIZE:
            raise InvalidInput(f"size must be between 1 and {MAX_PAGE_SIZE}, got {size}")
        if page < 1:
            raise InvalidInput(f"page must be 1 or more, got {page}")
        with self._lock:
            params = {"ns": self.ns, "agent": agent}
            total = self.graph.query("ui/timeline_count", params)[0]["total"]
            pages = max(1, math.ceil(total / size))
            page = min(page, pages)
            rows = self.graph.query("ui/timeline_page",
                                    {**params, "skip": (page - 1) * size, "limit": size})
            scores = self.graph.utilities([r["id"] for r in rows], agent=agent, ns=self.ns)
            items = self._items(rows, scores)
        return {"ns": self.ns, "agent": agent, "page": page, "pages": pages, "size": size,
                "total": total, "items": items}

    def _items(self, rows: list[dict[str, Any]],
               scores: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
        records: dict[str, MemoryRecord] = {}
        for i, row in enumerate(rows):
            conflicts = [c for c in row["conflicts"] if c.get("id") is not None]
            records[row["id"]] = MemoryRecord(
                id=row["id"], row=i, text=row["text"], seq=0, t=row["t"],
                owners={o: "" for o in row["owners"]}, recorded_at=row["recorded_at"],
                pinned=bool(row["pinned"]), forgotten=bool(row["forgotten"]),
                kind=row["kind"] or "episodic", valid_until=row["valid_until"],
                superseded_by=row["superseded_by"], salience=float(row["salience"] or 0.0),
                conflicts={c["id"] for c in conflicts})
            for c in conflicts:  # status_of reads whether each conflicting claim was replaced
                records.setdefault(c["id"], MemoryRecord(
                    id=c["id"], row=-1, text=c["text"] or "", seq=0,
                    superseded_by=c["superseded_by"]))
        view = cast(NamespaceView, _PageView(records))
        return [{
            "id": row["id"], "text": row["text"], "t": iso(row["t"]),
            "recorded_at": iso(row["recorded_at"]), "kind": row["kind"] or "episodic",
            "pinned": bool(row["pinned"]), "forgotten": bool(row["forgotten"]),
            "status": status_of(records[row["id"]], view),
            "salience": records[row["id"]].salience,
            "valid_until": iso(row["valid_until"]), "superseded_by": row["superseded_by"],
            "owners": sorted(row["owners"]),
            "conflicts": [{"id": c["id"], "text": c["text"]} for c in row["conflicts"]
                          if c.get("id") is not None],
            "consolidated_into": row["consolidated_into"],
            "utility": scores[row["id"]],
        } for row in rows]

    # -- acting ---------------------------------------------------------------------

    def act(self, action: object, memory_id: object, *, by: object) -> None:
        """``pin``, ``unpin``, ``forget`` or ``unforget`` one memory, as ``by`` (the
        values as a request brought them: checked here)."""
        if not isinstance(action, str) or action not in ACTS:
            raise InvalidInput(f"unknown action {action!r}; expected one of {sorted(ACTS)}")
        memory_id, by = check_identifier(memory_id, "id"), check_identifier(by, "by")
        with self._lock:
            ACTS[action](self.graph, memory_id, by=by, ns=self.ns)

    def preview(self, memory_ids: object) -> dict[str, Any]:
        """What consolidating ``memory_ids`` would make: the fact's text (the statement
        ``MemoryGraph.consolidate`` keeps without a chat model), its owners and time;
        writes nothing."""
        ids = self._distinct_ids(memory_ids)
        with self._lock:
            rows = {r["id"]: r for r in self.graph.query("ui/memories",
                                                         {"ns": self.ns, "ids": ids})}
        missing = [m for m in ids if m not in rows]
        if missing:
            raise InvalidInput(f"no memory {missing[0]!r} in namespace {self.ns!r}")
        chosen = [rows[m] for m in ids]
        vectors = np.stack([np.asarray(r["embedding"], dtype=np.float32) for r in chosen])
        times = [r["t"] for r in chosen if r["t"] is not None]
        return {"text": central_statement([r["text"] for r in chosen], vectors),
                "sources": [{"id": r["id"], "text": r["text"]} for r in chosen],
                "owners": sorted({o for r in chosen for o in r["owners"]}),
                "t": iso(max(times)) if times else None,
                "model_summary": self.model_summary}

    def consolidate(self, memory_ids: object, *, by: object) -> str:
        ids, by = self._distinct_ids(memory_ids), check_identifier(by, "by")
        with self._lock:
            return self.graph.consolidate(ids, by=by, ns=self.ns)

    @staticmethod
    def _distinct_ids(memory_ids: object) -> list[str]:
        if not isinstance(memory_ids, (list, tuple)):
            raise InvalidInput("memory_ids must be a list of memory ids")
        ids = list(dict.fromkeys(check_identifier(m, "memory_ids[]") for m in memory_ids))
        if len(ids) < 2:
            raise InvalidInput("consolidate needs at least two different memories")
        return ids
