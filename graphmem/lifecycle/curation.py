"""Curation: a person (or an authorised agent) steering what is remembered.

Every act is one statement guarded by the namespace version (so every handle's view
catches up with it) and logged in the operation log with who did it:

    pin / unpin          a pinned memory is kept by maintenance whatever its utility
    forget / unforget    out of recall (reversible; the memory stays for audit)
    correct              a new wording supersedes the old one from now on
    delete               a privacy request: text, wordings, context and vector erased,
                         with the deposit texts and log payloads quoting them; a tombstone
    consolidate          several memories become one semantic fact: a chat model's summary
                         when one is configured, else the most central statement; every
                         wording kept as a variant
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from graphmem.consensus import new_id
from graphmem.lifecycle.summarise import central_statement
from graphmem.errors import InvalidInput
from graphmem.models import MAX_TEXT_CHARS, check_identifier
from graphmem.queries import Queries
from graphmem.store.base import Store
from graphmem.views import Views, now_ms


class Curator:
    """The curation acts on one store, for one ``MemoryGraph``."""

    def __init__(self, store: Store, queries: Queries, views: Views,
                 embed: Callable[[Sequence[str]], np.ndarray],
                 summarise: Callable[[Sequence[str], np.ndarray], str] = central_statement
                 ) -> None:
        self._store, self._queries, self._views, self._embed = store, queries, views, embed
        self._summarise = summarise

    def set_pinned(self, memory_id: str, value: bool, *, by: str, ns: str) -> None:
        self._act("curation/pin", "pin" if value else "unpin", memory_id, by, ns,
                  {"value": value})

    def set_forgotten(self, memory_id: str, value: bool, *, by: str, ns: str) -> None:
        self._act("curation/forget", "forget" if value else "unforget", memory_id, by, ns,
                  {"value": value})

    def forget_many(self, memory_ids: Sequence[str], *, by: str, ns: str, op: str,
                    read_at: int) -> list[str]:
        """Forget many memories in one write (maintenance's pruning); pinned ones stay, and
        so do those changed after ``read_at`` (the version of the view the pass read).
        Returns the memories forgotten."""
        return self._guarded_many("curation/forget_many", "forgotten", memory_ids, by=by,
                                  ns=ns, op=op, read_at=read_at, forgotten=True)

    def promote(self, memory_ids: Sequence[str], *, by: str, ns: str, op: str,
                read_at: int) -> list[str]:
        """Make episodes semantic facts in one write (maintenance's promotion), those
        unchanged since ``read_at``; returns the memories promoted."""
        return self._guarded_many("lifecycle/promote", "promoted", memory_ids, by=by, ns=ns,
                                  op=op, read_at=read_at, kind="semantic")

    def _guarded_many(self, query: str, column: str, memory_ids: Sequence[str], *, by: str,
                      ns: str, op: str, read_at: int, **fields: object) -> list[str]:
        """Run one of maintenance's many-memory acts; the view learns exactly the memories
        the statement changed (its ``column``)."""
        rows = self._views.guarded(
            ns, query, {"memories": list(memory_ids), "by": by, "op": op, "read_at": read_at},
            local=lambda view, seq, rows: view.apply(rows[0][column], seq, **fields))
        return list(rows[0][column])

    def delete(self, memory_id: str, *, by: str, ns: str) -> None:
        self._act("curation/delete", "delete", memory_id, by, ns, {})

    def correct(self, memory_id: str, text: str, *, by: str, ns: str) -> str:
        text = _checked_text(text)
        new = new_id("m")
        embedding = [float(x) for x in self._embed([text])[0]]
        self._act("curation/correct", "correct", memory_id, by, ns,
                  {"text": text, "new": new, "embedding": embedding})
        return new

    def consolidate(self, memory_ids: Sequence[str], *, by: str, ns: str) -> str:
        ids = list(dict.fromkeys(check_identifier(m, "memory_ids[]") for m in memory_ids))
        if len(ids) < 2:
            raise InvalidInput("consolidate needs at least two different memories")
        check_identifier(by, "by")
        view = self._views.synced(ns)
        missing = [m for m in ids if m not in view.records]
        if missing:
            raise InvalidInput(f"no memory {missing[0]!r} in namespace {ns!r}")
        records = [view.records[m] for m in ids]
        vectors = view.vectors(ids)
        variants = list(dict.fromkeys(v for r in records for v in (r.variants or [r.text])))
        text = _checked_text(self._summarise([r.text for r in records], vectors))
        fact = new_id("m")
        params: dict[str, Any] = {"new": fact, "text": text, "variants": variants,
                  "asserted_by": list(dict.fromkeys(a for r in records for a in r.asserted_by)),
                  "t": max((r.t for r in records if r.t is not None), default=now_ms()),
                  "embedding": [float(x) for x in self._embed([text])[0]],
                  "sources": ids, "payload": json.dumps({"sources": ids})}
        self._guarded(ns, "curation/consolidate", {**params, "by": by, "op": new_id("op")})
        return fact

    def _act(self, query: str, act: str, memory_id: str, by: str, ns: str,
             extra: dict[str, Any]) -> None:
        check_identifier(memory_id, "memory_id")
        check_identifier(by, "by")
        if memory_id not in self._views.synced(ns).records:
            raise InvalidInput(f"no memory {memory_id!r} in namespace {ns!r}")
        self._guarded(ns, query, {"memory": memory_id, "by": by, "act": act,
                                  "op": new_id("op"), **extra})

    def run(self, ns: str, query: str, params: dict[str, Any], *, sync: bool = True) -> None:
        """Any guarded statement (``query`` takes ns, expected, seq, now); ``sync=False``
        leaves catching the view up to the caller (a bulk rewrite that drops it after)."""
        self._guarded(ns, query, params, sync=sync)

    def _guarded(self, ns: str, query: str, params: dict[str, Any], *,
                 sync: bool = True) -> None:
        self._views.guarded(ns, query, params, sync=sync)


def _checked_text(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("the corrected text is empty; give the right wording")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(f"the corrected text is longer than {MAX_TEXT_CHARS:,} characters")
    return text.strip()
