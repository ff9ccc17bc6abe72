"""The schema as named, idempotent steps, each recorded in the database when applied.

A step is ``(name, query name, label or None)``. ``ensure_schema`` runs the steps not yet
recorded in ``(:GraphmemSchema {name})`` nodes, in order; running it twice changes
nothing. ``SCHEMA_VERSION`` is the number of steps this release knows.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.queries import LABELS


@dataclass(frozen=True)
class SchemaStep:
    name: str
    query: str
    label: str | None = None


STEPS: tuple[SchemaStep, ...] = (
    *(SchemaStep(f"unique_{label.lower()}_ns_id", "schema/unique_ns_id", label) for label in LABELS),
    SchemaStep("memory_embedding_vector", "schema/memory_embedding"),
    SchemaStep("memory_text_fulltext", "schema/memory_text"),
    SchemaStep("memory_seq_range", "schema/memory_seq"),
)
SCHEMA_VERSION = len(STEPS)
EMBEDDING_DIMENSION = 384  # fixed in cypher/schema/memory_embedding.*.cypher
