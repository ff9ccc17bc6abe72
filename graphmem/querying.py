"""Raw and named Cypher on ``MemoryGraph``: run a query, run one of the named files under
``graphmem/cypher/``, list their names, trace what runs. A mixin of
:class:`graphmem.api.MemoryGraph` (and the base of its other mixins, which run named
queries); it holds no state of its own. May import graphmem.errors and graphmem.store's
protocol; nothing else of graphmem."""

from __future__ import annotations

from contextlib import contextmanager
from difflib import get_close_matches
from typing import Any, Iterator, Mapping

from graphmem.errors import InvalidInput
from graphmem.queries import Queries
from graphmem.store.base import Row, Store, Tracer


class Querying:
    """The Cypher methods of a ``MemoryGraph`` (see the module docstring)."""

    _store: Store
    _queries: Queries

    def cypher(self, query: str, params: Mapping[str, Any] | None = None, *,
               write: bool = False) -> list[Row]:
        """Run Cypher and return rows as dicts; read-only unless ``write=True``."""
        run = self._store.write if write else self._store.read
        return run(query, dict(params or {}))

    def query(self, name: str, params: Mapping[str, Any] | None = None, *,
              write: bool = False) -> list[Row]:
        """Run a named query from ``graphmem/cypher/`` (e.g. ``"who_knew/owners_of"``)."""
        if name not in self._queries:
            close = get_close_matches(name, self._queries.names(), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InvalidInput(f"no query named {name!r}{hint} (the names are the .cypher "
                               "files under graphmem/cypher/, without the suffix)")
        return self.cypher(self._queries[name], params, write=write)

    def query_names(self) -> list[str]:
        """The names of every query in ``graphmem/cypher/`` for this backend."""
        return self._queries.names()

    @contextmanager
    def tracer(self, tracer: Tracer = print) -> Iterator[None]:
        """Within the block, call ``tracer(query, params)`` for every query run."""
        self._store.add_tracer(tracer)
        try:
            yield
        finally:
            self._store.remove_tracer(tracer)
