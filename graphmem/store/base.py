"""The one interface every backend implements.

Domain code speaks only to :class:`Store`: run a named or literal read, run a write
(one statement, atomic), run several statements in one transaction, ensure the schema,
close. Rows come back as plain dicts of plain Python values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

Row = dict[str, Any]
Params = Mapping[str, Any]
Tracer = Callable[[str, Params], None]


@dataclass(frozen=True)
class Statement:
    """One query with its parameters, as a unit of a transaction."""

    query: str
    params: Params = field(default_factory=dict)


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do, detected once when it is opened."""

    backend: str  # "falkordb" or "neo4j"
    version: str
    multi_statement_rollback: bool = False


@runtime_checkable
class Store(Protocol):
    """A graph database graphmem can keep its memory in."""

    uri: str
    capabilities: Capabilities

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        """Run a read-only query; a write inside it raises ReadOnlyViolation."""

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        """Run one statement that may write; it applies whole or not at all."""

    def transaction(self, statements: Sequence[Statement]) -> list[list[Row]]:
        """Run statements in order as one unit. A crash applies all or none; when
        ``capabilities.multi_statement_rollback`` is False (FalkorDB), a failing statement
        does not undo the others, and the error says so. graphmem's own writes are
        single statements."""

    def ensure_schema(self) -> list[str]:
        """Apply the schema steps not yet recorded; return the names applied now."""

    def schema_steps(self) -> list[str]:
        """Names of the schema steps recorded in the database."""

    def note_version(self, ns: str, version: int) -> None:
        """Record, beside the graph, that namespace ``ns`` reached ``version``: a journal
        a damaged log cannot silently roll back with the graph (``graphmem.integrity``).
        A backend whose own log is checked (Neo4j) may keep nothing."""

    def read_noting(self, ns: str, version: int, query: str,
                    params: Params | None = None) -> list[Row]:
        """``note_version(ns, version)``, then ``read(query, params)``: in one round trip
        where the backend can (after a write, its version and the catch-up read)."""

    def noted_versions(self) -> dict[str, int]:
        """The journal: the last version noted for each namespace."""

    def forget_version(self, ns: str) -> None:
        """Drop ``ns`` from the journal (the namespace was deleted)."""

    def compact_log(self) -> bool:
        """Ask the database to rewrite its log down to what it holds now, after a rewrite
        of many records (``reclaim``, ``reembed``), so that its next start does not replay
        each change; return whether a rewrite was started (or one already runs). A
        backend that checkpoints on its own (Neo4j) does nothing and returns False."""

    def add_tracer(self, tracer: Tracer) -> None:
        """Call ``tracer(query, params)`` before every query from now on."""

    def remove_tracer(self, tracer: Tracer) -> None:
        """Stop calling ``tracer``."""

    def close(self) -> None:
        """Release connections and stop what this store started."""


class TracerMixin:
    """Keeps the tracers of a store and calls them."""

    def _init_tracers(self) -> None:
        self._tracers: list[Tracer] = []

    def add_tracer(self, tracer: Tracer) -> None:
        self._tracers.append(tracer)

    def remove_tracer(self, tracer: Tracer) -> None:
        self._tracers.remove(tracer)

    def _trace(self, query: str, params: Params) -> None:
        for tracer in self._tracers:
            tracer(query, params)
