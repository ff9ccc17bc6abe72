"""Claims that replaced one another, ordered by when each held.

A memory superseded by a later claim (``valid_until``, ``superseded_by``, set on write
when two claims conflict and one holds from a later time) stays recallable: "where did
Ana live in 2023?" must still find Berlin. The rule: of a claim and the one that replaced
it, the one true at the question's time ranks first — now, unless the question names a
time. A hit's ``status`` says what it is: ``current``, ``superseded`` (a later claim
replaced it) or ``disputed`` (in conflict with a claim of the same time).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from graphmem.view import MemoryRecord, NamespaceView

Status = Literal["current", "superseded", "disputed"]


def status_of(record: MemoryRecord, view: NamespaceView) -> Status:
    if record.valid_until is not None:
        return "superseded"
    replaced = {c for c in record.conflicts
                if c in view.records and view.records[c].superseded_by == record.id}
    return "disputed" if record.conflicts - replaced else "current"


def holds_during(record: MemoryRecord, start: int, end: int) -> bool:
    """Whether the claim held at some moment of [start, end)."""
    since = record.t if record.t is not None else start
    until = record.valid_until if record.valid_until is not None else end
    return since < end and until > start


def order_by_validity(ids: Sequence[str], view: NamespaceView, agent: str,
                      span: tuple[int, int] | None = None) -> list[str]:
    """``ids`` (best first) with each replaced claim after the claim that replaced it,
    unless only the replaced one held during ``span`` (the question's time); a current
    claim the asker owns is brought in beside a replaced one that is listed without it."""
    out = list(ids)
    for mid in list(out):
        record = view.records[mid]
        # about now: the claim that holds now, at the end of the chain of replacements
        later = _replacement(mid, view, agent, follow=span is None)
        if later is None:
            continue
        first, second = mid, later  # the claim true at the question's time goes first
        if span is None or not (holds_during(record, *span) and
                                not holds_during(view.records[later], *span)):
            first, second = later, mid
        if second not in out:  # only the claim that goes first is listed: nothing to order
            continue
        if first not in out:
            out.insert(out.index(second), first)
        elif out.index(first) > out.index(second):
            out.remove(first)
            out.insert(out.index(second), first)
    return out


def _replacement(mid: str, view: NamespaceView, agent: str, *, follow: bool) -> str | None:
    """The claim the asker owns that replaced ``mid`` (and, with ``follow``, the one
    that replaced that, and so on: A replaced by B, B by C gives C)."""
    found, seen = None, {mid}
    later = view.records[mid].superseded_by
    while later is not None and later not in seen and later in view.records \
            and view.owns(agent, later):
        # a forgotten link (pruned by maintenance) is passed through, not the chain's end
        if not view.records[later].forgotten:
            found = later
            if not follow:
                break
        seen.add(later)
        later = view.records[later].superseded_by
    return found
