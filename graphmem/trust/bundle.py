"""Authorship in recall (RFC-0011 §8): each hit says who asserted it, in which trust
domain, how far each asserter is trusted there, its confidence, and whether it is
quarantined or unverified; of two hits in conflict, the more credible comes first.

The order rule among hits that contradict each other:
- two claims of the same time (a dispute): the higher confidence first (RFC-0011 §5);
- a current claim and one that was replaced (graphmem.retrieval.validity put the current
  one first): it stays first, unless it is quarantined or unverified and the replaced
  one is not — an agent in quarantine cannot retire an established fact by asserting a
  newer one.
Only the two hits' places are exchanged; every other hit keeps its rank. A supersession
counts as a rivalry whether or not the judge also saw a contradiction.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from graphmem.models import Hit
from graphmem.trust.gate import AgentState
from graphmem.trust.policy import TrustPolicy
from graphmem.view import NamespaceView


def with_authorship(hits: Sequence[Hit], view: NamespaceView,
                    profiles: Mapping[str, AgentState], policy: TrustPolicy) -> list[Hit]:
    """``hits`` with their authorship, conflicting pairs in credible order."""
    out = []
    for hit in hits:
        record = view.records.get(hit.memory_id)
        if record is None:
            out.append(hit)
            continue
        domain = record.domain or policy.default_domain
        scores = {a: profiles.get(a, AgentState(a)).trust(domain, policy)
                  for a in record.asserted_by}
        out.append(hit.model_copy(update={
            "confidence": policy.initial if record.confidence is None else record.confidence,
            "trust_domain": domain, "trust_score": max(scores.values(), default=None),
            "trust_scores": scores, "quarantined": record.quarantined,
            "epistemic": record.epistemic}))
    return credible_order(out, view)


def credible_order(hits: list[Hit], view: NamespaceView) -> list[Hit]:
    """Exchange the places of conflicting hits that the order rule puts the other way."""
    hits = list(hits)
    for _ in range(len(hits)):
        swapped = False
        for i in range(len(hits)):
            for j in range(i + 1, len(hits)):
                if _rivals(hits[i], hits[j], view) and _before(hits[j], hits[i], view):
                    hits[i], hits[j] = hits[j], hits[i]
                    swapped = True
        if not swapped:
            break
    return hits


def _rivals(a: Hit, b: Hit, view: NamespaceView) -> bool:
    """In conflict, or one replaced the other (a supersession needs no contradiction)."""
    ra, rb = view.records.get(a.memory_id), view.records.get(b.memory_id)
    return b.memory_id in a.conflicts or (ra is not None and rb is not None and (
        ra.superseded_by == b.memory_id or rb.superseded_by == a.memory_id))


def _before(a: Hit, b: Hit, view: NamespaceView) -> bool:
    """Should ``a`` rank above ``b`` (two hits in conflict, ``b`` above now)?"""
    ra, rb = view.records.get(a.memory_id), view.records.get(b.memory_id)
    if ra is None or rb is None:
        return False
    doubtful_b = b.quarantined or b.epistemic == "unverified"
    doubtful_a = a.quarantined or a.epistemic == "unverified"
    if rb.superseded_by == a.memory_id or ra.superseded_by == b.memory_id \
            or (ra.valid_until is None) != (rb.valid_until is None):
        # time decides between a current claim and a replaced one (even along a chain
        # of replacements): trust only keeps a doubtful newcomer from winning
        return doubtful_b and not doubtful_a
    return (a.confidence or 0.0) > (b.confidence or 0.0) + 1e-9
