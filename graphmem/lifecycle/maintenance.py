"""``maintain``: score every memory of a namespace, record the scores where Cypher can
read them, consolidate or prune what falls below the threshold (graphmem.lifecycle.decay)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import numpy as np

from graphmem.consensus import new_id
from graphmem.lifecycle.curation import Curator
from graphmem.lifecycle.decay import (MAINTENANCE, DecaySettings, MaintenanceReport,
                                      Utility, evidence_for, over_capacity,
                                      plan_maintenance, promotions, reconsolidate, utilities)
from graphmem.queries import Queries
from graphmem.store.base import Store
from graphmem.view import NamespaceView
from graphmem.views import Views, now_ms

SCORE_BATCH = 5000


def decay_settings(store: Store, queries: Queries, ns: str) -> DecaySettings:
    rows = store.read(queries["lifecycle/decay_settings"], {"ns": ns})
    return settings_of(rows[0]["decay"] if rows else None)


def settings_of(raw: str | None) -> DecaySettings:
    """The decay settings a namespace keeps as JSON (None or empty: the defaults)."""
    return DecaySettings.model_validate(json.loads(raw or "{}"))


def task_vectors(store: Store, queries: Queries, ns: str,
                 embed: Callable[[Sequence[str]], np.ndarray],
                 agent: str | None = None, *, read: dict[str, str] | None = None
                 ) -> dict[str, np.ndarray]:
    """Each agent's task, embedded (only ``agent``'s when given; ``read``: the tasks the
    caller has read, agent -> task, instead of reading them here)."""
    if read is None:
        read = {r["agent"]: r["task"] for r in store.read(queries["lifecycle/tasks"], {"ns": ns})
                if agent is None or r["agent"] == agent}
    if not read:
        return {}
    return dict(zip(read, embed(list(read.values()))))


def deposit_clock(store: Store, queries: Queries, ns: str) -> dict[str, int]:
    """memory -> when its owners first learned it, on the deposits' own clock."""
    return {r["id"]: int(r["learned"]) for r in store.read(queries["lifecycle/learned_at"],
                                                            {"ns": ns})
            if r["learned"] is not None}


def scoring_clock(store: Store, queries: Queries, ns: str, ids: Sequence[str],
                  settings: DecaySettings, now: int | None) -> tuple[int, dict[str, int]]:
    """(now, learned) for scoring ``ids`` as maintenance would: on the deposit clock,
    when each was first learned and, unless ``now`` is given, the newest deposit's time
    (a scan of the namespace's ownership: deposit-clock namespaces are replays); on the
    wall clock, ``now`` or the wall clock and nothing learned."""
    if settings.clock != "deposit":
        return (now_ms() if now is None else now), {}
    learned = {r["id"]: int(r["learned"]) for r in store.read(
        queries["lifecycle/learned_at_of"], {"ns": ns, "ids": list(ids)})
        if r["learned"] is not None}
    if now is None:
        rows = store.read(queries["lifecycle/deposit_now"], {"ns": ns})
        now = int(rows[0]["now"]) if rows and rows[0]["now"] is not None else now_ms()
    return now, learned


def hit_utilities(store: Store, queries: Queries, view: NamespaceView, ids: Sequence[str],
                  agent: str | None, embed: Callable[[Sequence[str]], np.ndarray],
                  now: int | None, settings: DecaySettings | None = None,
                  tasks: dict[str, str] | None = None) -> dict[str, Utility]:
    """The utility of each hit of ``agent``'s recall, scored as maintenance scores it
    (the namespace's settings and the asker's own task — each read from the store unless
    the caller has just read it: ``settings``, ``tasks`` (agent -> task, empty for none)
    — and clock; ``agent`` None: each memory's best owner's task, as maintenance
    records it)."""
    settings = settings or decay_settings(store, queries, view.ns)
    vectors = task_vectors(store, queries, view.ns, embed, agent=agent, read=tasks)
    now, learned = scoring_clock(store, queries, view.ns, ids, settings, now)
    return utilities(view, list(ids), vectors, settings, now, learned)


def record_scores(store: Store, queries: Queries, view: NamespaceView, ns: str,
                  scores: dict[str, Utility], now: int) -> set[str]:
    """Record each memory's score where it is still the version ``view`` read (its
    ``seq``); returns the memories recorded."""
    rows = [{"id": m, "seq": view.records[m].seq, "s": u.s, "r": u.r, "e": u.e, "u": u.u}
            for m, u in scores.items()]
    recorded: set[str] = set()
    for lo in range(0, len(rows), SCORE_BATCH):
        written = store.write(queries["lifecycle/record_scores"],
                              {"ns": ns, "rows": rows[lo:lo + SCORE_BATCH], "now": now})
        recorded.update(written[0]["scored"] if written else ())
    return recorded


def maintain(store: Store, queries: Queries, views: Views, curator: Curator,
             embed: Callable[[Sequence[str]], np.ndarray], ns: str,
             now: int | None = None) -> MaintenanceReport:
    """One maintenance pass over ``ns`` (``now``: epoch ms, for tests and replays; on the
    deposit clock it defaults to the newest deposit, else to the wall clock)."""
    settings = decay_settings(store, queries, ns)
    learned = deposit_clock(store, queries, ns) if settings.clock == "deposit" else {}
    if now is None:
        now = max(learned.values(), default=now_ms()) if learned else now_ms()
    view = views.synced(ns)
    read_at = view.version  # every memory the view holds is at or before it
    ids = [m for m, r in view.records.items() if not r.forgotten]
    computed = utilities(view, ids, task_vectors(store, queries, ns, embed), settings, now,
                         learned)
    recorded = record_scores(store, queries, view, ns, computed, now)
    # a memory another writer changed after the view read it was scored as it was: it is
    # neither recorded nor pruned nor consolidated on that score (the next pass reads it)
    scores = {m: u for m, u in computed.items() if m in recorded}
    report = MaintenanceReport(
        scored=len(scores), pinned_kept=sum(view.records[m].pinned for m in ids),
        below_threshold=sum(u.s < settings.threshold for u in scores.values()),
        changed=[m for m in computed if m not in recorded])
    # reconsolidation first: the facts as they stood before this pass's new ones
    strengths = []
    for row in store.read(queries["lifecycle/fact_strengths"], {"ns": ns}):
        if row["id"] in view.records:
            evidence = evidence_for(view, row["id"], int(row["since"]), settings)
            if evidence:
                strength = reconsolidate(float(row["strength"]), evidence,
                                         settings.reconsolidation_rate)
                strengths.append({"id": row["id"], "strength": strength,
                                  "seq": view.records[row["id"]].seq})
    if strengths:
        written = store.write(queries["lifecycle/set_strengths"],
                              {"ns": ns, "rows": strengths, "now": now})
        updated = set(written[0]["updated"]) if written else set()
        report.reconsolidated = {r["id"]: round(r["strength"], 4) for r in strengths
                                 if r["id"] in updated}
    planned = [m for m in promotions(view, settings) if m in scores]
    if planned:
        report.promoted = curator.promote(planned, by=MAINTENANCE, ns=ns, op=new_id("op"),
                                          read_at=read_at)
    groups, pruned = plan_maintenance(view, scores, settings)
    promoted = set(planned)
    groups = [g for g in groups if not promoted & set(g)]
    pruned = [m for m in pruned if m not in promoted]
    for group in groups:
        fact = curator.consolidate(group, by=MAINTENANCE, ns=ns)
        report.consolidated.append({"fact": fact, "sources": group})
    consolidated = {m for g in groups for m in g}
    dropped = consolidated | set(pruned)  # a set: a list here made this pass quadratic
    left = {m: u for m, u in scores.items() if m not in dropped}
    report.over_capacity = over_capacity(view, left, settings)
    pruned = [*pruned, *report.over_capacity]
    if pruned:
        report.pruned = curator.forget_many(pruned, by=MAINTENANCE, ns=ns, op=new_id("op"),
                                            read_at=read_at)
    return report
