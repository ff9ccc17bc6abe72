"""One real service for the whole test session (starting it loads the model: seconds).

Each test works in a namespace of its own, so they do not see each other's memories.
"""

from __future__ import annotations

import pytest

from tests.service.running import needs


@pytest.fixture(scope="session")
def service(tmp_path_factory):
    needs("fastapi", "uvicorn")
    from graphmem.service.spawn import spawned_service

    with spawned_service(tmp_path_factory.mktemp("service") / "data") as running:
        yield running


@pytest.fixture(scope="session")
def client(service):
    from graphmem.service.client import Client

    with Client(service.url, service.token) as c:
        yield c
