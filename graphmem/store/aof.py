"""The server's append-only file: how large its tail has grown, and rewriting it.

Redis keeps its append-only files as a base (an RDB snapshot of the whole graph) and an
incremental tail of every write since. A start loads the base fast and replays the tail
query by query, which costs far more per byte: measured on the memory benchmark's
stores, the base loaded at about 200 MB/s (100,000 memories: 183 MB in 0.95 s; a
million: 1.8 GB in 8.5-9.5 s) and the tail replayed at 3-5 MB/s (64 MB in 12 s; 211 MB
in 64-98 s). A rewrite (BGREWRITEAOF, from a fork) writes a new base at 5-7 ms per MB of
it (1.3 s and 9.5 s) and empties the tail. Redis rewrites on its own only once the tail
has doubled the base, so a store closed after a few days of writes could take minutes
to open; the embedded server is rewritten before it is stopped when its tail would cost
more to replay than the rewrite (`tail_outweighs_base`). A server that dies instead
(killed, the machine lost) leaves its tail as it was: the embedded server is started
with a lower bound on it (`REWRITE_PERCENT`, `server_options`), and a server started
without it gets it from the next opener (`bound_tail`).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import redis

log = logging.getLogger(__name__)

#: a tail below this replays in about a second: never worth a rewrite on its own
MIN_TAIL_BYTES = 4 * 1024 * 1024
#: a tail this share of the base replays in about as long as the base takes to rewrite
#: (5-7 ms per MB of base against 0.2-0.3 s per MB of tail, above)
TAIL_SHARE = 0.02


#: the server rewrites the file on its own, while it runs, once the tail reaches this
#: percentage of the base (and the file `MIN_TAIL_BYTES`): Redis' auto-aof-rewrite-
#: percentage, whose default (100) lets the tail grow as large as the base, which a start
#: after a crash replays at a few MB/s (at a million memories, minutes). See
#: benchmarks/crash_restart_bench.py for what it costs and what it saves.
REWRITE_PERCENT = 10


def server_options() -> list[str]:
    """The redis-server options that bound the tail while the server runs."""
    return ["--auto-aof-rewrite-percentage", str(REWRITE_PERCENT),
            "--auto-aof-rewrite-min-size", str(MIN_TAIL_BYTES)]


def bound_tail(client: redis.Redis) -> None:
    """Give a running server our bound on its tail if it has a looser one (it was
    started by an earlier release, or by hand): a bound set tighter is kept."""
    running = client.config_get("auto-aof-rewrite-percentage")
    percent = int(running.get("auto-aof-rewrite-percentage") or 0)  # 0: never
    if percent == 0 or percent > REWRITE_PERCENT:
        client.config_set("auto-aof-rewrite-percentage", REWRITE_PERCENT)
    running = client.config_get("auto-aof-rewrite-min-size")
    if int(running.get("auto-aof-rewrite-min-size") or 0) > MIN_TAIL_BYTES:
        client.config_set("auto-aof-rewrite-min-size", MIN_TAIL_BYTES)


def parts(aof_dir: Path) -> tuple[int, int]:
    """The bytes of the base and of the incremental files the manifest in ``aof_dir``
    names; (0, 0) when there is no manifest (or it cannot be read)."""
    base = tail = 0
    for manifest in aof_dir.glob("*.manifest"):
        try:
            lines = manifest.read_text().splitlines()
        except OSError:
            return 0, 0
        for line in lines:
            fields = line.split()
            if len(fields) < 2 or fields[0] != "file":
                continue
            kind = fields[fields.index("type") + 1] if "type" in fields[:-1] else ""
            try:
                size = (aof_dir / fields[1]).stat().st_size
            except OSError:
                continue
            if kind == "b":
                base += size
            elif kind == "i":
                tail += size
    return base, tail


def tail_outweighs_base(aof_dir: Path) -> bool:
    """Whether the next start would replay more than a rewrite now costs: a tail of at
    least `MIN_TAIL_BYTES` and `TAIL_SHARE` of the base."""
    base, tail = parts(aof_dir)
    return tail >= max(MIN_TAIL_BYTES, TAIL_SHARE * base)


def rewrite(client: redis.Redis, where: str, timeout_s: float) -> bool:
    """BGREWRITEAOF on ``client``'s server and wait for it (up to ``timeout_s``; then it
    is logged and left to finish). Return whether a rewrite ran to success; a server
    without an append-only file returns False, one that refuses the command (an ACL) or
    fails the rewrite is logged. Redis errors other than a refusal are raised."""
    if not int(client.info("persistence").get("aof_enabled", 0)):
        return False
    try:
        client.execute_command("BGREWRITEAOF")
    except redis.ResponseError as exc:
        if "already in progress" not in str(exc):
            log.warning("FalkorDB at %s refused BGREWRITEAOF (%s); its append-only file "
                        "keeps every write until it rewrites it itself", where, exc)
            return False
    pause, deadline = 0.01, time.monotonic() + timeout_s
    while True:
        state = client.info("persistence")
        if not (int(state.get("aof_rewrite_in_progress", 0))
                or int(state.get("aof_rewrite_scheduled", 0))):
            break
        if time.monotonic() > deadline:
            log.warning("FalkorDB at %s is still rewriting its append-only file after "
                        "%.0f s; left to finish (do not stop the server until it has)",
                        where, timeout_s)
            return False
        time.sleep(pause)
        pause = min(pause * 2, 1.0)
    if state.get("aof_last_bgrewrite_status") != "ok":
        log.warning("FalkorDB at %s could not rewrite its append-only file (see its "
                    "log); it keeps every write until a rewrite succeeds", where)
        return False
    return True
