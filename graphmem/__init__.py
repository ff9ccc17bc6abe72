"""graphmem: one shared long-term memory for many LLM agents, kept in a graph database."""

from graphmem.api import MemoryGraph
from graphmem.errors import GraphmemError

__all__ = ["GraphmemError", "MemoryGraph"]
__version__ = "0.1.0"
