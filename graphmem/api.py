"""The public entry point: :class:`MemoryGraph`."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

from graphmem.queries import queries_for
from graphmem.settings import StoreSettings
from graphmem.store import Store, open_store
from graphmem.store.base import Row, Tracer
from graphmem.store.schema import SCHEMA_VERSION


class MemoryGraph:
    """Shared long-term memory for many agents, kept in a graph database.

    Open it with :meth:`open`; close it (or use ``with``) to stop what it started.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.queries = queries_for(store.capabilities.backend)

    @classmethod
    def open(cls, uri: str | None = None, data_dir: str | Path | None = None,
             **settings: Any) -> "MemoryGraph":
        """Open the store ``uri`` names (default: the embedded store in ``data_dir``).

        Arguments left None come from the environment (GRAPHMEM_URI, GRAPHMEM_DATA, ...).
        The schema is brought up to date on open.
        """
        config = StoreSettings.from_env(uri=uri, data_dir=data_dir, **settings)
        store = open_store(config)
        try:
            store.ensure_schema()
        except BaseException:
            store.close()
            raise
        return cls(store)

    # -- raw Cypher ---------------------------------------------------------------

    def cypher(self, query: str, params: Mapping[str, Any] | None = None, *,
               write: bool = False) -> list[Row]:
        """Run Cypher and return rows as dicts; read-only unless ``write=True``."""
        run = self.store.write if write else self.store.read
        return run(query, dict(params or {}))

    def query(self, name: str, params: Mapping[str, Any] | None = None, *,
              write: bool = False) -> list[Row]:
        """Run a named query from ``cypher/`` (e.g. ``"who_knew/owners_of"``)."""
        return self.cypher(self.queries[name], params, write=write)

    @contextmanager
    def tracer(self, tracer: Tracer = print) -> Iterator[None]:
        """Within the block, call ``tracer(query, params)`` for every query run."""
        self.store.add_tracer(tracer)
        try:
            yield
        finally:
            self.store.remove_tracer(tracer)

    # -- status -------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """Backend, URI, node counts by label, edge counts by type, schema version."""
        caps = self.store.capabilities
        return {
            "backend": caps.backend,
            "version": caps.version,
            "uri": self.store.uri,
            "schema_version": len(self.store.schema_steps()),
            "schema_version_expected": SCHEMA_VERSION,
            "nodes": {r["label"]: r["count"] for r in self.query("admin/label_counts")},
            "edges": {r["type"]: r["count"] for r in self.query("admin/relationship_counts")},
        }

    # -- lifecycle ----------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; the embedded server stops when its last user closes."""
        self.store.close()

    def __enter__(self) -> "MemoryGraph":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
