"""Witness replays: a story's speeches deposited by those who heard them, on any design.

Per-witness designs (consensus, nomerge, private) receive every witness's own account
(the speaker's "I said ...", each listener's "X said ..."); the shared-ACL design
receives one deposit per speech with the listeners as its access list. After each act
the store's structure is measured, and at the end the merges are scored against the
replay's ground truth: which accounts tell the same speech.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from itertools import groupby
from pathlib import Path
from typing import Callable, Iterable

from graphmem.api import MemoryGraph
from graphmem.ingestion.hamlet import consensus_deposits, load_play, witness_deposits


@dataclass
class ActRow:
    """The store at the end of one act (cumulative)."""

    act: int
    deposits: int
    entries: int
    multi_owner_share: float
    linked_share: float
    max_owners: int


@dataclass
class MergeScore:
    """Pairwise merge precision and recall of accounts against the ground truth."""

    precision: float
    recall: float
    true_pairs: int
    merged_pairs: int
    correct_pairs: int


@dataclass
class ReplayReport:
    design: str
    ns: str
    acts: list[ActRow]
    merge: MergeScore
    seconds: float
    deposits: int

    def as_dict(self) -> dict:
        return asdict(self)


def score_merges(groups: Iterable[tuple[str, set[str]]]) -> MergeScore:
    """Score (truth, memory ids) per deposit: two deposits are merged if they share a
    memory; they should be if they share a truth id."""
    items = list(groups)
    by_memory: dict[str, list[int]] = defaultdict(list)
    for i, (_, memories) in enumerate(items):
        for mid in memories:
            by_memory[mid].append(i)
    merged = {(a, b) for members in by_memory.values()
              for x, a in enumerate(members) for b in members[x + 1:] if a != b}
    merged = {(min(a, b), max(a, b)) for a, b in merged}
    truth_sizes = Counter(truth for truth, _ in items)
    true_pairs = sum(n * (n - 1) // 2 for n in truth_sizes.values())
    correct = sum(1 for a, b in merged if items[a][0] == items[b][0])
    return MergeScore(precision=correct / len(merged) if merged else 1.0,
                      recall=correct / true_pairs if true_pairs else 1.0,
                      true_pairs=true_pairs, merged_pairs=len(merged), correct_pairs=correct)


def replay_hamlet(g: MemoryGraph, play_path: Path, *, design: str, ns: str | None = None,
                  acts: Iterable[int] | None = None, scenes_per_act: int | None = None,
                  progress: Callable[[str], None] | None = None) -> ReplayReport:
    """Replay Hamlet into ``g`` (opened with ``design``); a fresh namespace per run."""
    play = load_play(play_path)
    ns = ns or f"hamlet-{design}"
    g.drop_namespace(ns)
    for member in play.cast.values():
        g.register_agent(member.id, kind="character", name=member.name, ns=ns)
    stream = consensus_deposits(play) if design == "shared-acl" else witness_deposits(play)
    wanted = set(acts) if acts is not None else None
    deposits = [d for d in stream if wanted is None or d.act in wanted]
    if scenes_per_act is not None:
        deposits = [d for d in deposits if d.scene <= scenes_per_act]
    started = time.perf_counter()
    groups: list[tuple[str, set[str]]] = []
    rows = []
    for act, in_act in groupby(deposits, key=lambda d: d.act):
        for deposit in in_act:
            result = g.remember(deposit.agent, deposit.text, witnesses=sorted(deposit.witnesses),
                                at=deposit.at, place=deposit.place, ns=ns)
            groups.append((deposit.truth, set(result.memory_ids)))
        stats = g.stats(ns=ns)
        rows.append(ActRow(act=act, deposits=len(groups), entries=stats["entries"],
                           multi_owner_share=round(stats["multi_owner_share"], 4),
                           linked_share=round(stats["linked_share"], 4),
                           max_owners=stats["max_owners"]))
        if progress:
            progress(f"{design}: act {act} done, {len(groups)} deposits, "
                     f"{stats['entries']} entries")
    return ReplayReport(design=design, ns=ns, acts=rows, merge=score_merges(groups),
                        seconds=round(time.perf_counter() - started, 1), deposits=len(groups))
