"""Is the store whole? The checks ``MemoryGraph.open`` runs, ``graphmem check`` prints and
``graphmem repair`` settles.

Every guarded write advances its namespace's version in the graph and, once applied,
notes the new version in a journal beside the graph (``Store.note_version``). When a
damaged append-only record still parses, the server replays it wrongly: that write
applies no more, the version stops there, and every later guarded write is skipped — the
graph alone looks whole. The journal's entries are replayed unconditionally, so it still
says how far the namespace had got: a journal ahead of the graph means lost writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.queries import Queries
from graphmem.store.base import Store


@dataclass(frozen=True)
class Problem:
    """One way a namespace's graph and records disagree."""

    ns: str
    version: int  # the namespace's version in the graph (0: not in the graph)
    lost: int  # writes the journal saw applied that the graph does not hold
    detail: str

    def __str__(self) -> str:
        return f"namespace {self.ns!r}: {self.detail}"


def check_store(store: Store, queries: Queries) -> list[Problem]:
    """Every disagreement between the namespaces' versions, their memories and log
    entries, and the version journal; empty when the store is whole."""
    # the journal first: a write notes it after the graph, so a write landing between the
    # two reads can leave the graph ahead of the journal read, never behind it
    journal = store.noted_versions()
    rows = {r["ns"]: r for r in store.read(queries["admin/namespace_versions"])}
    problems = []
    for ns, row in sorted(rows.items()):
        version = int(row["version"] or 0)
        beyond = max(int(row["memory_seq"] or 0), int(row["op_seq"] or 0))
        if beyond > version:
            problems.append(Problem(ns, version, 0, f"its records carry write {beyond}, "
                                    f"beyond the namespace's version {version}"))
    for ns, noted in sorted(journal.items()):
        version = int(rows[ns]["version"] or 0) if ns in rows else 0
        if noted > version:
            problems.append(Problem(
                ns, version, noted - version,
                f"{noted - version} of its {noted} writes are missing: the graph stops at "
                f"version {version} (the append-only file is damaged at the write after it)"))
    return problems


def settle(store: Store, problems: list[Problem]) -> list[str]:
    """Accept what the graph holds as the namespaces' history (the longest prefix that
    replays consistently): the journal is set back to each namespace's version. Returns
    one line per namespace saying what was kept and what was lost."""
    lines = []
    for problem in problems:
        if problem.lost:
            if problem.version:
                store.note_version(problem.ns, problem.version)
            else:
                store.forget_version(problem.ns)
            lines.append(f"namespace {problem.ns!r}: kept writes 1 to {problem.version}, "
                         f"lost {problem.lost}")
        else:
            lines.append(f"{problem} (not repaired: check the namespace by hand)")
    return lines
