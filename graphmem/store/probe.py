"""Whether a freshly started embedded server makes a graph, within a bound.

The FalkorDB module has been seen to hang on the first graph a new server makes: its main
thread waits for the write lock of the module's list of graphs (``Globals_AddGraph``)
that no thread holds, and the server then answers nothing, not even the shutdown signal.
It happened about once in thirty fresh eval stores, and twice in two test runs, on a
loaded machine (the same class of engine deadlock as FalkorDB issue 2129). The library's
first command would wait for ever. So the embedded server, right after it starts, makes
the store's graph (a ``RETURN 1`` on it makes it) with a timeout; a server that does not
answer is killed and started again (graphmem.store.embedded).

Imports nothing of graphmem.
"""

from __future__ import annotations

from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

#: seconds a new server may take to answer on a graph (it takes milliseconds)
PROBE_TIMEOUT_S = 20.0


def answers_on(socket_path: Path, graph: str, timeout_s: float | None = None) -> bool:
    """True when the server on ``socket_path`` answers a query on ``graph`` (making it if
    it is new) within ``timeout_s`` seconds (`PROBE_TIMEOUT_S` by default); False when it
    does not answer."""
    client = redis.Redis(unix_socket_path=str(socket_path),
                         socket_timeout=PROBE_TIMEOUT_S if timeout_s is None else timeout_s,
                         retry=Retry(NoBackoff(), 0))
    try:
        client.execute_command("GRAPH.QUERY", graph, "RETURN 1")
        return True
    except redis.TimeoutError:
        return False
    finally:
        client.close()
