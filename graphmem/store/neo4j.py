"""Neo4j 5 adapter, through the official ``neo4j`` driver (Bolt).

``read`` runs in a READ access-mode transaction, so the server itself refuses a write
there; ``write`` is one managed write transaction; ``transaction`` runs its statements in
one explicit transaction that is rolled back whole on any failure. Every session of a
store shares one bookmark manager, so on a cluster (``neo4j://`` routes reads to
followers and read replicas) a read always sees this store's earlier writes (causal
consistency; see docs/scaling-out.md). Managed transactions
are retried by the driver on transient errors (deadlocks, leader switches); each retry
starts from scratch, so a retried write is never applied twice. Driver errors are
translated at this boundary into graphmem's (see ``translate``); values come back plain,
in the shape ``falkordb.to_plain`` gives (nodes ``{"_labels": [...], **props}``,
relationships ``{"_type": ..., **props}``, paths as lists of nodes, temporal values as
``datetime`` / ``date`` / ``time`` / ``relativedelta``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence
from urllib.parse import urlsplit, urlunsplit

from graphmem.errors import (
    ConfigError,
    ConstraintViolation,
    QueryFailed,
    ReadOnlyViolation,
    StoreError,
    StoreUnavailable,
    missing,
)
from graphmem.queries import queries_for
from graphmem.store.base import Capabilities, Params, Row, Statement, TracerMixin
from graphmem.store.schema import SchemaStep, apply_missing_steps
from graphmem.store.uri import Target

try:
    import neo4j
    from dateutil.relativedelta import relativedelta
    from neo4j import exceptions as nx
    from neo4j import time as ntime
    from neo4j.graph import Node, Path as GraphPath, Relationship
    from neo4j.spatial import CartesianPoint, WGS84Point
except ImportError as exc:  # pragma: no cover - neo4j is a core dependency today
    raise missing("neo4j") from exc

#: Queries of the adapter itself (tests/cypher/test_cypher_lint.py checks them too).
SERVER_VERSION_QUERY = ("CALL dbms.components() YIELD name, versions, edition "
                        "RETURN versions[0] AS version, edition")
AWAIT_INDEXES_QUERY = "CALL db.awaitIndexes($timeout)"
#: Oldest Neo4j with ``CREATE VECTOR INDEX`` (cypher/schema/memory_embedding.neo4j.cypher).
MIN_VERSION = (5, 15)
_COMPOSE_HINT = "start one with `docker compose up -d` in the graphmem checkout"


def to_plain(value: Any) -> Any:
    """A Neo4j result value as plain Python, shaped like ``falkordb.to_plain``."""
    if isinstance(value, Node):
        return {"_labels": sorted(value.labels), **{k: to_plain(v) for k, v in value.items()}}
    if isinstance(value, Relationship):
        return {"_type": value.type, **{k: to_plain(v) for k, v in value.items()}}
    if isinstance(value, GraphPath):
        return [to_plain(n) for n in value.nodes]
    if isinstance(value, (ntime.DateTime, ntime.Date, ntime.Time)):
        return value.to_native()  # nanoseconds below a microsecond are dropped
    if isinstance(value, ntime.Duration):
        return relativedelta(months=value.months, days=value.days, seconds=value.seconds,
                             microseconds=value.nanoseconds // 1000)
    if isinstance(value, WGS84Point):
        return {"latitude": value.latitude, "longitude": value.longitude}
    if isinstance(value, CartesianPoint):
        return {"x": value.x, "y": value.y, **({"z": value.z} if len(value) == 3 else {})}
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


def translate(exc: Exception, query: str, where: str) -> StoreError:
    """A neo4j driver error as the graphmem error that explains it."""
    first_line = query.strip().splitlines()[0][:120] if query.strip() else ""
    code = getattr(exc, "code", None) or ""
    text = getattr(exc, "message", None) or str(exc)
    if isinstance(exc, nx.AuthError):
        return StoreUnavailable(
            f"Neo4j at {where} refused the credentials ({text}); set GRAPHMEM_USER and "
            "GRAPHMEM_PASSWORD (for docker-compose.yml: neo4j / graphmem-dev)")
    if isinstance(exc, nx.IncompleteCommit):  # the driver does not retry this one
        return StoreUnavailable(
            f"lost Neo4j at {where} while committing ({text}); the transaction was applied "
            "whole or not at all. Check for the write before repeating it.")
    if isinstance(exc, (nx.ServiceUnavailable, nx.SessionExpired, OSError)):
        return StoreUnavailable(
            f"cannot reach Neo4j at {where} ({text}); check the host name and port in "
            f"GRAPHMEM_URI and that the server runs, or {_COMPOSE_HINT}")
    if code.endswith("Database.DatabaseNotFound"):
        return StoreUnavailable(
            f"Neo4j at {where} has no such database ({text}); name an existing one in the "
            "URI path (neo4j://host:7687/neo4j), or leave the path out for the default")
    if code.endswith("Statement.AccessMode") or isinstance(exc, nx.ForbiddenOnReadOnlyDatabase):
        return ReadOnlyViolation(
            f"this query writes, but it was run read-only; pass write=True (CLI: --write). "
            f"query: {first_line}")
    if isinstance(exc, nx.ConstraintError):
        return ConstraintViolation(f"{text}; the write was not applied. query: {first_line}")
    if code.endswith("Schema.ConstraintCreationFailed"):
        return ConstraintViolation(
            f"cannot create a uniqueness constraint: existing nodes repeat a key ({text}); "
            f"remove the duplicates and open the store again. query: {first_line}")
    if isinstance(exc, nx.Neo4jError):
        return QueryFailed(f"Neo4j rejected the query: {text}; nothing was written. "
                           f"query: {first_line}")
    return StoreError(f"Neo4j driver error at {where}: {type(exc).__name__}: {text}. "
                      f"query: {first_line}")


def driver_uri(target: Target) -> str:
    """The URI the driver connects to: no credentials, no database path."""
    parts = urlsplit(target.uri)
    host = f"[{target.host}]" if target.host and ":" in target.host else target.host
    return urlunsplit((parts.scheme.lower(), f"{host}:{target.port}", "", parts.query, ""))


class Neo4jStore(TracerMixin):
    """A graph in a Neo4j 5 database (server, cluster or Aura)."""

    def __init__(self, target: Target, user: str | None = None, password: str | None = None,
                 *, connection_timeout_s: float = 10.0, max_retry_s: float = 30.0) -> None:
        if target.backend != "neo4j":
            raise ConfigError(f"{target.display!r} is not a Neo4j URI (neo4j:// or bolt://)")
        self._init_tracers()
        self._where = driver_uri(target)
        self._database = target.database
        self.uri = self._where + (f"/{target.database}" if target.database else "")
        self.queries = queries_for("neo4j")
        user, password = target.user or user, target.password or password
        # A password without a user means the default admin account, as cypher-shell does.
        auth = (user or "neo4j", password or "") if (user or password) else None
        try:
            self._driver = neo4j.GraphDatabase.driver(
                self._where, auth=auth, connection_timeout=connection_timeout_s,
                connection_acquisition_timeout=connection_timeout_s * 2,
                max_transaction_retry_time=max_retry_s, user_agent="graphmem")
        except (ValueError, nx.ConfigurationError) as exc:
            raise ConfigError(f"the neo4j driver cannot use {self._where}: {exc}") from exc
        # sessions are short (one per call): without shared bookmarks a cluster could
        # route a read to a member that has not applied this store's last write
        self._bookmarks = neo4j.GraphDatabase.bookmark_manager()
        try:
            self.capabilities = self._detect_capabilities()
        except BaseException:
            self._driver.close()
            raise

    def _detect_capabilities(self) -> Capabilities:
        query = SERVER_VERSION_QUERY
        try:
            # An auto-commit query: unlike a managed transaction it is not retried, so
            # a wrong host or port fails within the connection timeout.
            with self._driver.session(database=self._database,
                                      default_access_mode=neo4j.READ_ACCESS) as session:
                rows = [dict(r) for r in session.run(query)]
        except Exception as exc:  # noqa: BLE001 - every driver error is translated
            raise translate(exc, query, self._where) from exc
        version = str(rows[0]["version"]) if rows else "unknown"
        if _version_tuple(version) < MIN_VERSION:
            raise StoreUnavailable(
                f"the server at {self._where} runs Neo4j {version}; graphmem needs Neo4j "
                f"{'.'.join(map(str, MIN_VERSION))} or newer (vector indexes); upgrade, or "
                f"{_COMPOSE_HINT}")
        return Capabilities(backend="neo4j", version=version,
                            multi_statement_rollback=True)

    # -- queries ------------------------------------------------------------------

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        self._trace(query, params or {})
        return self._execute(neo4j.READ_ACCESS, query, _run_one, query, dict(params or {}))

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        self._trace(query, params or {})
        return self._execute(neo4j.WRITE_ACCESS, query, _run_one, query, dict(params or {}))

    def transaction(self, statements: Sequence[Statement]) -> list[list[Row]]:
        for st in statements:  # traced once here, not again on a driver retry
            self._trace(st.query, st.params)
        first = statements[0].query if statements else ""
        return self._execute(neo4j.WRITE_ACCESS, first, _run_all, list(statements))

    def _execute(self, mode: str, query: str, work: Callable[..., Any], *args: Any) -> Any:
        """Run ``work(tx, *args)`` in one managed transaction; ``query`` names it in errors."""
        try:
            with self._driver.session(database=self._database, default_access_mode=mode,
                                      bookmark_manager=self._bookmarks) as session:
                run = session.execute_read if mode == neo4j.READ_ACCESS else session.execute_write
                return run(work, *args)
        except Exception as exc:  # noqa: BLE001 - every driver error is translated
            raise translate(exc, query, self._where) from exc

    # -- schema -------------------------------------------------------------------

    # Neo4j's transaction log is checksummed and replayed by the server itself: a damaged
    # log does not load silently, so no journal is kept beside the graph.
    def note_version(self, ns: str, version: int) -> None:
        return None

    def read_noting(self, ns: str, version: int, query: str,
                    params: Params | None = None) -> list[Row]:
        return self.read(query, params)  # no journal (note_version)

    def noted_versions(self) -> dict[str, int]:
        return {}

    def forget_version(self, ns: str) -> None:
        return None

    def schema_steps(self) -> list[str]:
        # Two processes opening a new database at once may both record a step; a
        # name counts once.
        return list(dict.fromkeys(r["name"] for r in self.read(self.queries["schema/steps"])))

    def ensure_schema(self) -> list[str]:
        applied = apply_missing_steps(self, self._apply)
        if applied:  # vector and full-text indexes fill in the background
            self.read(AWAIT_INDEXES_QUERY, {"timeout": 300})
        return applied

    def _apply(self, step: SchemaStep) -> None:
        text = (self.queries.labelled(step.query, step.label) if step.label
                else self.queries[step.query])
        try:
            self.write(text)  # the .neo4j.cypher DDL says IF NOT EXISTS
        except QueryFailed as exc:
            # An equal index or constraint made under another name (by hand, or by an
            # older release) already does the job.
            if not getattr(exc.__cause__, "code", "").endswith("EquivalentSchemaRuleAlreadyExists"):
                raise

    # -- lifecycle ----------------------------------------------------------------

    def compact_log(self) -> bool:
        """Nothing: Neo4j checkpoints and prunes its transaction logs by its own policy,
        and a start replays only what follows the last checkpoint."""
        return False

    def close(self) -> None:
        self._driver.close()


def _run_one(tx: Any, query: str, params: dict[str, Any]) -> list[Row]:
    return [{k: to_plain(v) for k, v in record.items()} for record in tx.run(query, params)]


def _run_all(tx: Any, statements: list[Statement]) -> list[list[Row]]:
    return [_run_one(tx, st.query, dict(st.params)) for st in statements]


def _version_tuple(version: str) -> tuple[int, ...]:
    """``"5.26.1"`` -> (5, 26, 1); calendar versions (``"2025.01.0"``) sort above 5."""
    out = []
    for part in version.split("."):
        digits = "".join(ch for ch in part.split("-")[0] if ch.isdigit())
        if not digits:
            break
        out.append(int(digits))
    return tuple(out) or (0,)
