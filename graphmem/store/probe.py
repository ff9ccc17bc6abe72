"""Whether a freshly started embedded server makes a graph, within a bound.

The FalkorDB module has been seen to hang on the first graph a new server makes: its main
thread waits on the module's global lock (``Globals_AddGraph``) while every other thread
idles, and the server then answers nothing, not even the shutdown signal. It happened
about once in thirty fresh eval stores, and once in a test run, on a loaded machine (the
same class of engine deadlock as FalkorDB issue 2129). The library's own first command
would wait for ever. So the embedded server, right after it starts, makes and drops a
throwaway graph with a timeout; a server that does not answer is killed and started again
(graphmem.store.embedded).

Imports nothing of graphmem.
"""

from __future__ import annotations

from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

#: the graph the probe makes and drops (a name no store uses)
PROBE_GRAPH = "graphmem_start_probe"
#: seconds a new server may take to make a graph (it takes milliseconds)
PROBE_TIMEOUT_S = 20.0


def makes_a_graph(socket_path: Path, timeout_s: float | None = None) -> bool:
    """True when the server on ``socket_path`` makes and drops a graph within
    ``timeout_s`` seconds (`PROBE_TIMEOUT_S` by default); False when it does not answer."""
    client = redis.Redis(unix_socket_path=str(socket_path),
                         socket_timeout=PROBE_TIMEOUT_S if timeout_s is None else timeout_s,
                         retry=Retry(NoBackoff(), 0))
    try:
        client.execute_command("GRAPH.QUERY", PROBE_GRAPH, "CREATE (:Probe)")
        client.execute_command("GRAPH.DELETE", PROBE_GRAPH)
        return True
    except redis.TimeoutError:
        return False
    finally:
        client.close()
