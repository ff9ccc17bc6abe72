"""Who knew what, when and from whom, on ``MemoryGraph``: the owners of a memory, what an
agent knew at a time, from whom it learned, which agents share the most, and a
namespace's structure metrics. A mixin of :class:`graphmem.api.MemoryGraph`; each
method runs one named query (``graphmem/cypher/who_knew/``, ``stats/``). May import
graphmem.querying, graphmem.models, graphmem.writer (time parsing) and the retrieval
pipeline's amplification counter."""

from __future__ import annotations

from typing import Any

from graphmem.errors import InvalidInput
from graphmem.models import DEFAULT_NS, check_identifier, to_epoch_ms
from graphmem.querying import Querying
from graphmem.retrieval.pipeline import Amplification
from graphmem.store.base import Row
from graphmem.writer import parse_at


class WhoKnew(Querying):
    """The provenance questions of a ``MemoryGraph`` (see the module docstring)."""

    _amplification: Amplification

    def owners_of(self, text: str, *, ns: str = DEFAULT_NS, limit: int = 100) -> list[Row]:
        """Who owns the memories whose text contains ``text``, how, from whom, since when."""
        check_identifier(ns, "ns")
        return self.query("who_knew/owners_of", {"ns": ns, "text": text, "limit": limit})

    def knew_at(self, agent: str, at: Any, *, ns: str = DEFAULT_NS,
                limit: int = 100) -> list[Row]:
        """What ``agent`` knew at or before ``at`` (world time), latest first."""
        check_identifier(agent, "agent")
        check_identifier(ns, "ns")
        when = parse_at(at)
        if when is None:
            raise InvalidInput("knew_at needs a time")
        return self.query("who_knew/knew_at", {"ns": ns, "agent": agent,
                                               "at": to_epoch_ms(when), "limit": limit})

    def learned_from(self, agent: str, text: str | None = None, *, ns: str = DEFAULT_NS,
                     limit: int = 100) -> list[Row]:
        """From whom ``agent`` learned what it was told (optionally about ``text``)."""
        check_identifier(agent, "agent")
        check_identifier(ns, "ns")
        return self.query("who_knew/learned_from",
                          {"ns": ns, "agent": agent, "text": text, "limit": limit})

    def shared_most(self, *, ns: str = DEFAULT_NS, limit: int = 10) -> list[Row]:
        """Pairs of agents sharing the most memories."""
        check_identifier(ns, "ns")
        return self.query("who_knew/shared_most", {"ns": ns, "limit": limit})

    def stats(self, *, ns: str = DEFAULT_NS) -> dict[str, Any]:
        """Structure metrics of a namespace: entries, multi-owner share, linked share,
        deepest merge, contradictions, and the mean recall amplification of this process."""
        check_identifier(ns, "ns")
        row = self.query("stats/structure", {"ns": ns})[0]
        entries = row["entries"] or 0
        contradictions = self.query("stats/contradictions", {"ns": ns})[0]["contradictions"]
        return {
            "ns": ns,
            "entries": entries,
            "multi_owner_share": (row["multi_owner"] or 0) / entries if entries else 0.0,
            "linked_share": (row["linked"] or 0) / entries if entries else 0.0,
            "max_owners": row["max_owners"] or 0,
            "contradictions": contradictions,
            "recalls": self._amplification.recalls,
            "recall_amplification": self._amplification.mean,
            "pool_amplification": self._amplification.pool_mean,
        }
