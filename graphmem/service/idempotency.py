"""Run a write once per idempotency key, however often a client retries it.

A client sends a fresh key with each call and the same key with each retry of that call.
The first request with a key runs; a retry that arrives while it runs waits for it; a
retry that arrives after it finished gets the stored answer. A call that failed stores
nothing (a failed write leaves nothing behind), so its retry runs again. Keys are kept
for ``ttl`` seconds, at most ``capacity`` of them, oldest dropped first.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import InvalidInput


@dataclass
class _Entry:
    fingerprint: str
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    ok: bool = False
    at: float = field(default_factory=time.monotonic)


class IdempotencyCache:
    """Answers of completed writes by key, and the writes still running."""

    def __init__(self, capacity: int = 50_000, ttl: float = 3600.0) -> None:
        self.capacity = capacity
        self.ttl = ttl
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self.replays = 0  # answers served from the cache (retries that did not run again)

    def run(self, key: str | None, request: bytes, call: Callable[[], Any]) -> Any:
        """``call()`` once per ``key``; ``request`` (the route and body) must match."""
        if not key:
            return call()
        fingerprint = hashlib.sha256(request).hexdigest()
        while True:
            entry, mine = self._claim(key, fingerprint)
            if mine:
                return self._run_claimed(key, entry, call)
            entry.done.wait()
            if entry.ok:
                with self._lock:
                    self.replays += 1
                return entry.result
            # the first attempt failed and was dropped: try to claim the key again

    def _claim(self, key: str, fingerprint: str) -> tuple[_Entry, bool]:
        with self._lock:
            self._expire()
            entry = self._entries.get(key)
            if entry is not None:
                if entry.fingerprint != fingerprint:
                    raise InvalidInput(f"idempotency key {key!r} was used for a different "
                                       "request; send a fresh key with each new call")
                return entry, False
            entry = self._entries[key] = _Entry(fingerprint)
            return entry, True

    def _run_claimed(self, key: str, entry: _Entry, call: Callable[[], Any]) -> Any:
        try:
            entry.result = call()
            entry.ok = True
            return entry.result
        finally:
            if not entry.ok:
                with self._lock:
                    self._entries.pop(key, None)
            entry.done.set()

    def _expire(self) -> None:
        now = time.monotonic()
        while self._entries:
            key, oldest = next(iter(self._entries.items()))
            stale = now - oldest.at > self.ttl and oldest.done.is_set()
            if not stale and len(self._entries) < self.capacity:
                break
            if not oldest.done.is_set():  # full of running calls: let the dict grow
                break
            del self._entries[key]
