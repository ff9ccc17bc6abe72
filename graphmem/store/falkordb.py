"""FalkorDB adapter: the embedded server (Unix socket) or a FalkorDB server over TCP.

One Cypher query is atomic in FalkorDB: if it fails, nothing it wrote is kept. FalkorDB
has no multi-statement transactions, so ``transaction`` runs its statements inside one
MULTI/EXEC block (no other client interleaves) and reports ``multi_statement_rollback``
False; graphmem's own writes are single statements.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any, Sequence

import redis
from falkordb import Edge, FalkorDB, Node, Path as GraphPath
from falkordb.query_result import QueryResult
from redis.backoff import NoBackoff
from redis.retry import Retry

from graphmem.errors import (
    ConstraintViolation,
    InvalidInput,
    QueryFailed,
    ReadOnlyViolation,
    StoreError,
    StoreUnavailable,
)
from graphmem.queries import queries_for
from graphmem.store import aof
from graphmem.store.base import Capabilities, Params, Row, Statement, TracerMixin
from graphmem.store.embedded import EmbeddedServer
from graphmem.store.schema import SchemaStep, apply_missing_steps
from graphmem.store.uri import parse_uri, redact_uri

log = logging.getLogger(__name__)

_INT64 = (-(2**63), 2**63 - 1)


def to_plain(value: Any) -> Any:
    """A FalkorDB result value as plain Python (nodes and edges become dicts)."""
    if isinstance(value, Node):
        return {"_labels": list(value.labels or []), **{k: to_plain(v) for k, v in value.properties.items()}}
    if isinstance(value, Edge):
        return {"_type": value.relation, **{k: to_plain(v) for k, v in value.properties.items()}}
    if isinstance(value, GraphPath):
        return [to_plain(n) for n in value.nodes()]
    if isinstance(value, list):
        # embeddings: hundreds of floats, nothing to convert (the common case by far)
        if all(type(v) is float for v in value):
            return value
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


def translate(exc: Exception, query: str, where: str,
              server: EmbeddedServer | None = None) -> StoreError:
    """A redis / FalkorDB error as the graphmem error that explains it.

    ``server``, the embedded server if there is one, is asked why a connection dropped.
    """
    text = str(exc)
    first_line = query.strip().splitlines()[0][:120] if query.strip() else ""
    if isinstance(exc, (redis.ConnectionError, redis.TimeoutError, ConnectionError)):
        # The reply was lost, so whether the statement ran is unknown; FalkorDB applies
        # one statement whole or not at all, so it is either fully there or absent.
        reason = server.exit_reason() if server is not None else None
        return StoreUnavailable(
            f"lost the FalkorDB server at {where} ({text.rstrip('.')}); the statement "
            "was applied whole or not at all. "
            + (f"Cause: {reason}; " if reason else "Check that the server runs, ")
            + "reopen the store and check for the write before repeating it."
        )
    if "unique constraint violation" in text:
        return ConstraintViolation(f"{text}; the write was not applied. query: {first_line}")
    if "is to be executed only on read-only queries" in text or "read-only" in text.lower():
        return ReadOnlyViolation(
            f"this query writes, but it was run read-only; pass write=True (CLI: --write). "
            f"query: {first_line}"
        )
    return QueryFailed(f"FalkorDB rejected the query: {text}; nothing was written. query: {first_line}")


class FalkorDBStore(TracerMixin):
    """A graph in a FalkorDB server, embedded or remote."""

    def __init__(
        self,
        *,
        graph: str = "graphmem",
        socket_path: str | None = None,
        host: str | None = None,
        port: int | None = None,
        username: str | None = None,
        password: str | None = None,
        server: EmbeddedServer | None = None,
        uri: str = "",
        tls: bool | None = None,
    ) -> None:
        self._init_tracers()
        self._server = server
        self.uri = redact_uri(uri)
        self._where = socket_path or f"{host}:{port}"
        self.queries = queries_for("falkordb")
        if tls is None:
            tls = bool(uri) and not socket_path and parse_uri(uri).tls
        # No automatic retry: re-sending a write whose reply was lost could apply it twice.
        no_retry = Retry(NoBackoff(), 0)
        try:
            if socket_path:
                self._db = FalkorDB(unix_socket_path=socket_path, retry=no_retry)
            else:
                self._db = FalkorDB(host=host, port=port, username=username,
                                    password=password, ssl=tls, socket_connect_timeout=5,
                                    socket_keepalive=True,
                                    retry=no_retry)
            modules = self._db.connection.execute_command("MODULE", "LIST")
        except redis.AuthenticationError as exc:
            raise StoreUnavailable(
                f"FalkorDB at {self._where} refused the credentials ({exc}); set the "
                "user and password in the URI or GRAPHMEM_USER / GRAPHMEM_PASSWORD") from exc
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise StoreUnavailable(
                f"cannot reach FalkorDB at {self._where}: {str(exc).rstrip('.')}. Check "
                "the host name and port and that the server runs, or unset GRAPHMEM_URI "
                "to use the embedded store."
            ) from exc
        except redis.ResponseError as exc:
            self._db.connection.close()
            raise StoreUnavailable(
                f"the server at {self._where} refused MODULE LIST ({exc}); it is not a "
                "FalkorDB server we can use. Point GRAPHMEM_URI at a FalkorDB server."
            ) from exc
        version = _graph_module_version(modules)
        if version is None:
            self._db.connection.close()
            raise StoreUnavailable(
                f"the server at {self._where} answers but has no FalkorDB module loaded; "
                "point GRAPHMEM_URI at a FalkorDB server, or load the module there "
                "(redis-server --loadmodule /path/to/falkordb.so)"
            )
        self._graph = self._db.select_graph(graph)
        self.graph_name = graph
        self.capabilities = Capabilities(backend="falkordb", version=version)

    # -- queries ------------------------------------------------------------------

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        return self._run(query, params or {}, read_only=True)

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        return self._run(query, params or {}, read_only=False)

    def transaction(self, statements: Sequence[Statement]) -> list[list[Row]]:
        """Run the statements in one MULTI/EXEC block: no other client interleaves, and
        a crash applies all or none of them. A statement that fails does not undo the
        others (FalkorDB cannot); the error says so."""
        if len(statements) == 1:
            return [self.write(statements[0].query, statements[0].params)]
        for st in statements:
            check_params(st.params)
        pipe = self._db.connection.pipeline(transaction=True)
        for st in statements:
            self._queue(pipe, st.query, st.params, read_only=False)
        try:
            raw = pipe.execute(raise_on_error=False)
        except Exception as exc:  # noqa: BLE001 - translated below
            raise translate(exc, statements[0].query, self._where, self._server) from exc
        failed = [(i, reply) for i, reply in enumerate(raw) if isinstance(reply, Exception)]
        if failed:
            raise _partial_failure(failed, statements, self._where)
        return [self._reply_rows(reply) for reply in raw]

    def _queue(self, pipe: Any, query: str, params: Params, *, read_only: bool) -> None:
        """Queue one query on a pipeline, as the driver would send it (compact replies,
        parameters in the query's header): read them back with `_reply_rows`."""
        self._trace(query, params)
        header = self._graph._build_params_header(dict(params)) if params else ""
        pipe.execute_command("GRAPH.RO_QUERY" if read_only else "GRAPH.QUERY",
                             self.graph_name, header + query, "--compact")

    def _reply_rows(self, reply: Any) -> list[Row]:
        return _rows(QueryResult(self._graph, reply))

    def _run(self, query: str, params: Params, *, read_only: bool) -> list[Row]:
        check_params(params)
        self._trace(query, params)
        try:
            if read_only:
                result = self._graph.ro_query(query, dict(params))
            else:
                result = self._graph.query(query, dict(params))
        except redis.ResponseError as exc:
            if read_only and "empty key" in str(exc):
                return []  # the graph does not exist until its first write
            raise translate(exc, query, self._where, self._server) from exc
        except Exception as exc:  # noqa: BLE001 - every driver error is translated
            raise translate(exc, query, self._where, self._server) from exc
        return _rows(result)

    # -- schema -------------------------------------------------------------------

    # -- the version journal: a hash beside the graph, replayed unconditionally --------

    @property
    def _journal(self) -> str:
        return f"graphmem:{self.graph_name}:versions"

    def note_version(self, ns: str, version: int) -> None:
        try:
            self._db.connection.hset(self._journal, ns, version)
        except redis.RedisError as exc:
            raise translate(exc, f"HSET {self._journal}", self._where) from exc

    def read_noting(self, ns: str, version: int, query: str,
                    params: Params | None = None) -> list[Row]:
        """The journal's HSET and the read pipelined on one connection: one round trip,
        in that order (the note is made before the read is answered, as two calls would)."""
        params = params or {}
        check_params(params)
        pipe = self._db.connection.pipeline(transaction=False)
        pipe.hset(self._journal, ns, version)
        self._queue(pipe, query, params, read_only=True)
        try:
            noted, reply = pipe.execute(raise_on_error=False)
        except Exception as exc:  # noqa: BLE001 - every driver error is translated
            raise translate(exc, query, self._where, self._server) from exc
        if isinstance(noted, Exception):
            raise translate(noted, f"HSET {self._journal}", self._where)
        if isinstance(reply, Exception):
            if "empty key" in str(reply):
                return []
            raise translate(reply, query, self._where, self._server)
        return self._reply_rows(reply)

    def noted_versions(self) -> dict[str, int]:
        try:
            raw = self._db.connection.hgetall(self._journal)
        except redis.RedisError as exc:
            raise translate(exc, f"HGETALL {self._journal}", self._where) from exc
        return {_text(k): int(v) for k, v in raw.items()}

    def forget_version(self, ns: str) -> None:
        try:
            self._db.connection.hdel(self._journal, ns)
        except redis.RedisError as exc:
            raise translate(exc, f"HDEL {self._journal}", self._where) from exc

    def schema_steps(self) -> list[str]:
        return [r["name"] for r in self.read(self.queries["schema/steps"])]

    def ensure_schema(self) -> list[str]:
        return apply_missing_steps(self, self._apply)

    def _apply(self, step: SchemaStep) -> None:
        text = (self.queries.labelled(step.query, step.label) if step.label
                else self.queries[step.query])
        try:
            self.write(text)
        except QueryFailed as exc:
            # done before (by hand, or an older release): a create of what exists, a
            # drop of what is gone
            if not any(done in str(exc) for done in ("already indexed", "already exists",
                                                      "no such index")):
                raise
        if step.label:
            self._ensure_unique(step.label)

    def _ensure_unique(self, label: str) -> None:
        conn = self._db.connection
        try:
            conn.execute_command("GRAPH.CONSTRAINT", "CREATE", self.graph_name, "UNIQUE",
                                 "NODE", label, "PROPERTIES", "2", "ns", "id")
        except redis.ResponseError as exc:
            if "already exists" not in str(exc):
                raise translate(exc, f"GRAPH.CONSTRAINT CREATE {label}", self._where) from exc
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # constraints are built in the background
            rows = self.read("CALL db.constraints() YIELD label, status RETURN label, status")
            status = [r["status"] for r in rows if r["label"] == label]
            if status and status[0] == "OPERATIONAL":
                return
            if status and status[0] == "FAILED":
                raise ConstraintViolation(
                    f"cannot enforce unique (ns, id) on :{label}: existing nodes repeat a "
                    "key; remove the duplicates and open the store again")
            time.sleep(0.05)
        raise StoreError(f"the uniqueness constraint on :{label} did not become operational")

    def replication(self) -> dict[str, Any]:
        """The server's ``INFO replication`` (role, offsets, link): what reading from a
        replica needs (``graphmem.store.replica``)."""
        try:
            return self._db.connection.info("replication")
        except redis.RedisError as exc:
            raise translate(exc, "INFO replication", self._where, self._server) from exc

    def compact_log(self, timeout_s: float = 3600.0) -> bool:
        """BGREWRITEAOF when the server keeps an append-only file, and wait for it (up to
        ``timeout_s``; then it is logged and left to finish): the server rewrites the
        file from a fork, serving queries meanwhile, and a shutdown would kill an
        unfinished rewrite. Its automatic rewrite waits until the file has
        doubled, and a start replays every write since (a reclaim of a million memories
        left 650 MB to replay, 82 s at every start). A server that refuses the command (an
        ACL) or fails the rewrite is logged and left as it is (`graphmem.store.aof`)."""
        try:
            return aof.rewrite(self._db.connection, self._where, timeout_s)
        except redis.RedisError as exc:
            raise translate(exc, "BGREWRITEAOF", self._where, self._server) from exc

    # -- lifecycle ----------------------------------------------------------------

    def close(self) -> None:
        try:
            self._db.connection.close()
        finally:
            if self._server is not None:
                self._server.release()
                self._server = None

    @property
    def server(self) -> EmbeddedServer | None:
        """The embedded server this store leases, if it is embedded."""
        return self._server


def _partial_failure(failed: list[tuple[int, Exception]], statements: Sequence[Statement],
                     where: str) -> StoreError:
    """The error for a MULTI block in which some statements failed and the rest ran."""
    index, exc = failed[0]
    cause = translate(exc, statements[index].query, where)
    applied = len(statements) - len(failed)
    return type(cause)(
        f"statement {index + 1} of {len(statements)} in the transaction failed "
        f"({str(exc).strip()}); the {applied} other statement(s) were applied, because "
        "FalkorDB cannot roll a transaction back (capabilities.multi_statement_rollback "
        f"is False). Put the writes in one statement to make them all-or-nothing. query: "
        f"{statements[index].query.strip().splitlines()[0][:120]}"
    )


def check_params(params: Params) -> None:
    """Refuse parameter values FalkorDB cannot take exactly, before anything is sent.

    The client writes parameters as Cypher text: other types would arrive garbled
    (``str(obj)``), NaN does not parse, and an int beyond 64 bits is silently clipped.
    """
    for name, value in params.items():
        problem = _param_problem(value)
        if problem:
            raise InvalidInput(
                f"query parameter {name!r} {problem}; pass None, bool, int (64-bit), "
                "finite float, str, or lists / string-keyed maps of those")


def _param_problem(value: Any) -> str | None:
    if value is None or isinstance(value, (bool, str)):
        return None
    if isinstance(value, int):
        return None if _INT64[0] <= value <= _INT64[1] else f"is {value}, beyond 64 bits"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"is {value}, not a finite number"
    if isinstance(value, (list, tuple)):
        return next((p for p in map(_param_problem, value) if p), None)
    if isinstance(value, dict):
        if not all(isinstance(k, str) and k and "`" not in k for k in value):
            return "has a map key that is not a non-empty string without backticks"
        return next((p for p in map(_param_problem, value.values()) if p), None)
    return f"is a {type(value).__name__}"


def _graph_module_version(modules: list) -> str | None:
    for module in modules:
        info = dict(zip(module[::2], module[1::2])) if isinstance(module, list) else module
        name = info.get(b"name") or info.get("name")
        if isinstance(name, bytes):
            name = name.decode()
        if name == "graph":
            ver = info.get(b"ver") or info.get("ver")
            if isinstance(ver, int):  # 41603 -> 4.16.3
                return f"{ver // 10000}.{ver // 100 % 100}.{ver % 100}"
            return str(ver)
    return None


def _rows(result: Any) -> list[Row]:
    header = [h[1] if isinstance(h, (list, tuple)) else h for h in (result.header or [])]
    header = [h.decode() if isinstance(h, bytes) else h for h in header]
    return [dict(zip(header, (to_plain(v) for v in row))) for row in result.result_set]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
