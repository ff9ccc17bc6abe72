"""A small timeline in a real embedded store, served on 127.0.0.1 by a real server."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from graphmem import MemoryGraph
from graphmem.ui import Timeline, serve

DEPOSITS = [
    {"agent": "ana", "text": "Ana lives in Berlin.", "at": "2023-03-01"},
    {"agent": "ana", "text": "Ana adopted a grey cat named Miso.", "at": "2023-06-10",
     "witnesses": ["ben"]},
    {"agent": "ana", "text": "Ana lives in Munich.", "at": "2024-02-01"},
    {"agent": "ben", "text": "Ben plays the cello in an orchestra.", "at": "2022-09-05"},
    {"agent": "ana", "text": "Ana switched from Vim to VS Code.", "at": "2024-05-20"},
    {"agent": "ana", "text": "Ana runs every morning along the river.", "at": "2024-08-02"},
    {"agent": "ana", "text": "Ana runs along the river before work.", "at": "2024-09-15"},
]


@pytest.fixture
def store_dir(tmp_path, embedder):
    """An embedded store holding DEPOSITS (closed again: the tests open their handles)."""
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        g.remember_many(DEPOSITS)
    return data


@pytest.fixture
def graph(store_dir, embedder):
    g = MemoryGraph.open(data_dir=store_dir, embedder=embedder)
    yield g
    g.close()


@pytest.fixture
def server(graph):
    running = serve(Timeline(graph, ns="default"), by="tester", page_size=100).start()
    yield running
    running.stop()


class Client:
    """JSON requests to a running timeline server, with its token unless told otherwise."""

    def __init__(self, server) -> None:
        self.base = f"http://127.0.0.1:{server.port}"
        self.token = server.token

    def request(self, method: str, path: str, payload: Any = None, *,
                token: str | None = "default", headers: dict | None = None):
        token = self.token if token == "default" else token
        sep = "&" if "?" in path else "?"
        url = self.base + path + (f"{sep}token={token}" if token is not None else "")
        data = json.dumps(payload).encode() if payload is not None else None
        req = urllib.request.Request(url, data=data, method=method, headers={
            **({"Content-Type": "application/json"} if data is not None else {}),
            **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def json(self, method: str, path: str, payload: Any = None) -> Any:
        status, body = self.request(method, path, payload)
        assert status == 200, body
        return json.loads(body)


@pytest.fixture
def client(server):
    return Client(server)
