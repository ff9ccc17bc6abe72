"""The idempotency cache: one run per key, however the retries interleave."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from graphmem.errors import InvalidInput, StoreUnavailable
from graphmem.service.idempotency import IdempotencyCache


def test_concurrent_retries_of_one_key_run_once():
    cache, runs = IdempotencyCache(), []
    started = threading.Event()

    def slow_write():
        runs.append(1)
        started.set()
        time.sleep(0.2)
        return {"deposit": "d-1"}

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: cache.run("k", b"body", slow_write), range(4)))
    assert runs == [1] and answers == [{"deposit": "d-1"}] * 4 and cache.replays == 3


def test_a_failed_call_is_not_remembered():
    cache, calls = IdempotencyCache(), []

    def flaky():
        calls.append(1)
        if len(calls) == 1:
            raise StoreUnavailable("down")
        return "ok"

    with pytest.raises(StoreUnavailable):
        cache.run("k", b"body", flaky)
    assert cache.run("k", b"body", flaky) == "ok" and len(calls) == 2


def test_a_key_reused_for_another_request_is_refused():
    cache = IdempotencyCache()
    cache.run("k", b"one", lambda: 1)
    with pytest.raises(InvalidInput, match="different request"):
        cache.run("k", b"two", lambda: 2)


def test_no_key_always_runs_and_old_keys_are_dropped():
    cache, runs = IdempotencyCache(capacity=2), []
    assert [cache.run(None, b"", lambda: runs.append(1)) for _ in range(2)] == [None, None]
    assert len(runs) == 2
    for key in ("a", "b", "c"):
        cache.run(key, b"x", lambda k=key: k)
    assert cache.run("a", b"x", lambda: "again") == "again"  # "a" was dropped when full


def test_clients_read_the_environment(monkeypatch, tmp_path):
    from graphmem.errors import ConfigError
    from graphmem.service.client import AsyncClient, Client

    monkeypatch.setenv("GRAPHMEM_SERVER", "http://127.0.0.1:1/")
    monkeypatch.setenv("GRAPHMEM_TOKEN", "t")
    assert AsyncClient.from_env().url == "http://127.0.0.1:1"
    monkeypatch.delenv("GRAPHMEM_TOKEN")
    monkeypatch.setenv("GRAPHMEM_TOKEN_FILE", str(tmp_path / "none"))
    with pytest.raises(ConfigError, match="no token"):
        Client.from_env()
