"""A LangGraph ``BaseStore`` backed by graphmem (the ``langgraph`` extra).

    from graphmem.integrations.langgraph import GraphmemStore
    store = GraphmemStore(graph)                       # graph: a MemoryGraph
    store.put(("memories", "user-1"), "k1", {"text": "Likes green tea."})
    store.search(("memories", "user-1"), query="What does the user drink?")

How LangGraph's key-value model maps onto shared memory:

- A LangGraph namespace (a tuple of labels) is an agent of graphmem namespace ``ns``:
  ``("memories", "user-1")`` is agent ``memories/user-1``.
- ``put`` remembers the value's text (its first string field named in ``text_fields``,
  else the whole value as JSON) as that agent, so equivalent facts merge with what other
  agents know, and records the item (key, value, the memories it became) on a
  ``:StoreItem`` node of its own, apart from the memory graph. ``index=False`` records
  the item without remembering it.
- ``get`` reads the item. ``search`` with a query recalls as each agent under the prefix
  and returns the items whose memories were recalled, with the recall score; without a
  query it lists items, newest first. ``filter`` compares value fields ($eq, $ne, $gt,
  $gte, $lt, $lte).
- ``delete`` forgets the item; the statements it deposited stay in the long-term memory
  (graphmem has no forgetting yet) but no search returns them through this store.

Works on an in-process ``MemoryGraph`` (its item queries write, which the service's
read-only query endpoint does not allow). TTLs are not supported.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from graphmem.errors import InvalidInput, missing

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        PutOp,
        SearchItem,
        SearchOp,
    )
except ImportError:
    raise missing("langgraph", "langgraph") from None

TEXT_FIELDS = ("text", "content", "memory", "data")
_SEP = "/"
_OPS = {"$eq": lambda a, b: a == b, "$ne": lambda a, b: a != b,
        "$gt": lambda a, b: a > b, "$gte": lambda a, b: a >= b,
        "$lt": lambda a, b: a < b, "$lte": lambda a, b: a <= b}


def agent_of(namespace: tuple[str, ...]) -> str:
    """The graphmem agent a LangGraph namespace is: its labels joined by '/'."""
    if not namespace or any(not label or _SEP in label for label in namespace):
        raise InvalidInput(f"namespace {namespace!r}: labels must be non-empty and free of "
                           f"{_SEP!r}")
    return _SEP.join(namespace)


def matches(value: dict[str, Any], filter: dict[str, Any] | None) -> bool:
    """Whether ``value`` passes a LangGraph filter (a field: value or field: {op: value})."""
    for field, wanted in (filter or {}).items():
        have = value.get(field)
        conditions = wanted.items() if isinstance(wanted, dict) and wanted and all(
            k.startswith("$") for k in wanted) else [("$eq", wanted)]
        for op, operand in conditions:
            if op not in _OPS:
                raise InvalidInput(f"filter operator {op!r} is not one of {sorted(_OPS)}")
            try:
                if not _OPS[op](have, operand):
                    return False
            except TypeError:
                return False
    return True


class GraphmemStore(BaseStore):
    """LangGraph's long-term memory store, kept in graphmem namespace ``ns``."""

    def __init__(self, graph: Any, *, ns: str = "langgraph",
                 text_fields: tuple[str, ...] = TEXT_FIELDS) -> None:
        if getattr(graph, "is_async", None) is not None:  # a service client
            raise InvalidInput("GraphmemStore needs an in-process MemoryGraph: the service "
                               "does not run the item writes it makes")
        self.graph, self.ns, self.text_fields = graph, ns, text_fields
        self._lock = threading.Lock()  # a batch's operations run together, not interleaved

    # -- BaseStore --------------------------------------------------------------------

    def batch(self, ops: Iterable[Any]) -> list[Any]:
        with self._lock:
            return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Any]) -> list[Any]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _one(self, op: Any) -> Any:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise InvalidInput(f"unknown store operation {type(op).__name__}")

    # -- operations -------------------------------------------------------------------

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        rows = self._read("langgraph/get_items", ids=[_item_id(namespace, key)])
        return _item(rows[0]) if rows else None

    def _put(self, op: PutOp) -> None:
        item_id = _item_id(op.namespace, op.key)
        if op.value is None:
            self._write("langgraph/delete_item", id=item_id)
            return
        if not isinstance(op.value, dict):
            raise InvalidInput(f"a store value must be a dict, got {type(op.value).__name__}")
        memories: list[str] = []
        if op.index is not False:
            result = self.graph.remember(agent_of(op.namespace), self._text(op.value),
                                         ns=self.ns, context=None)
            memories = result.memory_ids
        self._write("langgraph/put_item", id=item_id, namespace=list(op.namespace),
                    path=agent_of(op.namespace), key=op.key, memories=memories,
                    value=json.dumps(op.value, default=str), now=_now_ms())

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = agent_of(op.namespace_prefix) if op.namespace_prefix else ""
        items = self._read("langgraph/list_items", path=prefix,
                           path_below=f"{prefix}{_SEP}" if prefix else "")
        items = [r for r in items if matches(json.loads(r["value"]), op.filter)]
        chosen: list[tuple[dict, float | None]]
        if not op.query:
            chosen = [(r, None) for r in items]
        else:
            chosen = list(self._ranked(items, op.query, op.limit + op.offset))
        return [_search_item(r, score) for r, score in chosen[op.offset:op.offset + op.limit]]

    def _ranked(self, items: list[dict], query: str, k: int) -> list[tuple[dict, float]]:
        """Items whose memories their namespace's agent recalls for ``query``, best first."""
        by_agent: dict[str, list[dict]] = {}
        for r in items:
            by_agent.setdefault(agent_of(tuple(r["namespace"])), []).append(r)
        scored: dict[str, tuple[dict, float]] = {}
        for agent, rows in by_agent.items():
            hits = self.graph.recall(agent, query, k=max(k, 1), ns=self.ns)
            score_of = {h.memory_id: h.score for h in hits}
            for r in rows:
                best = max((score_of[m] for m in r["memories"] or [] if m in score_of),
                           default=None)
                if best is not None and best > scored.get(r["id"], (None, -1.0))[1]:
                    scored[r["id"]] = (r, best)
        return sorted(scored.values(), key=lambda pair: -pair[1])

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = {tuple(r["namespace"]) for r in self._read("langgraph/namespaces")}
        for condition in op.match_conditions or ():
            found = {ns for ns in found if _matches_path(ns, condition.match_type,
                                                         tuple(condition.path))}
        if op.max_depth is not None:
            found = {ns[:op.max_depth] for ns in found}
        return sorted(found)[op.offset:op.offset + op.limit]

    # -- helpers ----------------------------------------------------------------------

    def _text(self, value: dict[str, Any]) -> str:
        for field in self.text_fields:
            if isinstance(value.get(field), str) and value[field].strip():
                return value[field]
        return json.dumps(value, default=str, sort_keys=True)

    def _read(self, name: str, **params: Any) -> list[dict]:
        return self.graph.query(name, {"ns": self.ns, **params})

    def _write(self, name: str, **params: Any) -> list[dict]:
        return self.graph.query(name, {"ns": self.ns, **params}, write=True)


def _item_id(namespace: tuple[str, ...], key: str) -> str:
    if not isinstance(key, str) or not key:
        raise InvalidInput("a store key must be a non-empty string")
    return json.dumps([*namespace, key])  # unambiguous, whatever the labels contain


def _fields(row: dict) -> dict[str, Any]:
    return dict(namespace=tuple(row["namespace"]), key=row["key"], value=json.loads(row["value"]),
                created_at=_time(row["created_at"]), updated_at=_time(row["updated_at"]))


def _item(row: dict) -> Item:
    return Item(**_fields(row))


def _search_item(row: dict, score: float | None) -> SearchItem:
    return SearchItem(**_fields(row), score=score)


def _matches_path(namespace: tuple[str, ...], kind: str, path: tuple[str, ...]) -> bool:
    part = namespace[:len(path)] if kind == "prefix" else namespace[-len(path):] if path else ()
    return len(namespace) >= len(path) and all(p in ("*", n) for p, n in zip(path, part))


def _now_ms() -> int:
    return int(time.time() * 1000)


def _time(ms: int | None) -> datetime:
    return datetime.fromtimestamp((ms or 0) / 1000, tz=UTC)
