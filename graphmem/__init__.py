"""graphmem: one shared long-term memory for many LLM agents, kept in a graph database.

Everything a user needs is importable from here: ``MemoryGraph``, the settings objects
and their presets, the result types and the error classes.
"""

from graphmem.api import MemoryGraph
from graphmem.embed import Embedder
from graphmem.errors import (BenchmarkDataError, ConfigError, CorruptDataError,
                             DataDirError, GraphmemError, InvalidInput, LLMCallFailed,
                             LLMError, LLMOutputInvalid, MissingDependency, QueryFailed,
                             ReadOnlyViolation, ServerBinaryMissing, StoreError,
                             StoreUnavailable, WriteConflict)
from graphmem.models import AtomOutcome, Hit, RememberResult
from graphmem.retrieval.config import (BM25_ONLY, DENSE_ONLY, HYBRID, HYBRID_RRF, PRESETS,
                                       RecallConfig, preset)
from graphmem.write_config import WriteConfig

__all__ = [
    "BM25_ONLY", "DENSE_ONLY", "HYBRID", "HYBRID_RRF", "PRESETS",
    "AtomOutcome", "BenchmarkDataError", "ConfigError", "CorruptDataError", "DataDirError",
    "Embedder", "GraphmemError", "Hit", "InvalidInput", "LLMCallFailed", "LLMError",
    "LLMOutputInvalid", "MemoryGraph", "MissingDependency", "QueryFailed",
    "ReadOnlyViolation", "RecallConfig", "RememberResult", "ServerBinaryMissing",
    "StoreError", "StoreUnavailable", "WriteConfig", "WriteConflict", "preset",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # The service's clients load httpx only when asked for (graphmem.Client).
    if name in ("Client", "AsyncClient"):
        from graphmem.service import client

        return getattr(client, name)
    raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
