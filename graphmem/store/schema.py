"""The schema as named, idempotent steps, each recorded in the database when applied.

A step is ``(name, query name, label or None)``. ``ensure_schema`` runs the steps not yet
recorded in ``(:GraphmemSchema {name})`` nodes, in order; running it twice changes
nothing. ``SCHEMA_VERSION`` is the number of steps this release knows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from graphmem.queries import LABELS


@dataclass(frozen=True)
class SchemaStep:
    name: str
    query: str
    label: str | None = None


STEPS: tuple[SchemaStep, ...] = (
    *(SchemaStep(f"unique_{label.lower()}_ns_id", "schema/unique_ns_id", label) for label in LABELS),
    # was "memory_embedding_vector": an HNSW index on Memory.embedding that nothing read
    # (the view ranks in process, graphmem.vector_index) and every write paid for (a
    # one-memory write at 20k memories: p50 15.5 ms with it, 7.9 ms without); dropped
    SchemaStep("memory_embedding_vector_dropped", "schema/drop_memory_embedding"),
    # was "memory_text_fulltext": a full-text index on Memory.text that nothing read and
    # every property update paid for; stores that have it drop it here
    SchemaStep("memory_text_fulltext_dropped", "schema/drop_memory_text"),
    SchemaStep("memory_seq_range", "schema/memory_seq"),
)
SCHEMA_VERSION = len(STEPS)
EMBEDDING_DIMENSION = 384  # all-MiniLM-L6-v2's


def apply_missing_steps(store, apply_step: Callable[[SchemaStep], None]) -> list[str]:
    """Run ``apply_step`` for each step not yet recorded in ``store``, then record it."""
    done = set(store.schema_steps())
    applied = []
    for step in STEPS:
        if step.name in done:
            continue
        apply_step(step)
        store.write(store.queries["schema/record_step"],
                    {"name": step.name, "applied_at": int(time.time() * 1000)})
        applied.append(step.name)
    return applied
