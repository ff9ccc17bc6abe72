"""Every error graphmem raises, one root and a small tree.

    GraphmemError
    ├── ConfigError              bad URI, bad setting, unknown backend
    ├── InvalidInput             a deposit, query or file the caller must fix
    │   └── BenchmarkDataError   a benchmark file in the wrong schema
    ├── StoreError               anything the graph store reports
    │   ├── StoreUnavailable     server unreachable, refused, or misnamed
    │   ├── DataDirError         data directory not usable (not writable, locked)
    │   ├── ServerBinaryMissing  the embedded redis-server / FalkorDB module is absent
    │   ├── CorruptDataError     the append-only file cannot be loaded
    │   ├── WriteConflict        other writers kept moving the namespace; retry later
    │   └── QueryFailed          a query was rejected; nothing it wrote was kept
    │       ├── ConstraintViolation
    │       └── ReadOnlyViolation
    ├── Unauthorized             a write without a valid signature (or a read without
    │                            the namespace token) where the namespace requires one
    ├── Forbidden                the agent lacks the permission (or was revoked)
    ├── RateLimited              the agent is over its assertion limit for now
    ├── LLMError                 a configured chat model gave no usable answer
    │   ├── LLMCallFailed        the model raised on every attempt
    │   └── LLMOutputInvalid     its answer was not the JSON asked for
    └── MissingDependency        an optional package is not installed

Driver errors are translated into these at the store boundary; each message says what
was wrong and what to do about it.
"""

from __future__ import annotations


class GraphmemError(Exception):
    """Root of every graphmem error."""


class ConfigError(GraphmemError):
    """A setting or URI that graphmem cannot use."""


class InvalidInput(GraphmemError, ValueError):
    """Input the caller must fix; nothing was written."""


class BenchmarkDataError(InvalidInput):
    """A benchmark file that does not follow its official schema."""


class StoreError(GraphmemError):
    """The graph store failed."""


class StoreUnavailable(StoreError):
    """The server could not be reached or refused us."""


class DataDirError(StoreError):
    """The data directory of the embedded store cannot be used."""


class ServerBinaryMissing(StoreError):
    """The embedded server binary or module is not installed."""


class CorruptDataError(StoreError):
    """The store's persistence files are damaged."""


class WriteConflict(StoreError):
    """Every attempt found the namespace moved by another writer; nothing was written."""


class QueryFailed(StoreError):
    """A query was rejected by the database; the write it carried left no trace."""


class ConstraintViolation(QueryFailed):
    """A write broke a uniqueness constraint."""


class ReadOnlyViolation(QueryFailed):
    """A write was attempted through a read-only call."""


class Unauthorized(GraphmemError):
    """The caller's identity could not be verified (a missing, bad or replayed
    signature, or a wrong namespace token); nothing was written."""


class Forbidden(GraphmemError):
    """The agent's namespace permission does not allow the operation (or the agent was
    revoked); trust never overrides it. Nothing was written."""


class RateLimited(GraphmemError):
    """The agent asserted more than its namespace allows in the window; the operation
    was rejected (and logged), not dropped silently. ``retry_after_s`` says when a slot
    frees up."""

    def __init__(self, message: str, retry_after_s: float = 0.0) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class LLMError(GraphmemError):
    """A configured chat model could not give a usable answer."""


class LLMCallFailed(LLMError):
    """The chat model raised on every attempt; check the model, key, or rate limit."""


class LLMOutputInvalid(LLMError, ValueError):
    """The chat model's answer was not the JSON that was asked for."""


class MissingDependency(GraphmemError, ImportError):
    """An optional dependency is missing; the message names the pip command."""


def missing(package: str, extra: str | None = None) -> MissingDependency:
    """Build the error for a lazily imported dependency, with the install hint."""
    hint = f'pip install "graphmem[{extra}]"' if extra else f"pip install {package}"
    return MissingDependency(f"{package} is not installed; run: {hint}")
