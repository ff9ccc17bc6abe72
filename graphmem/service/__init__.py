"""The shared service: one process holds the model and the views, agents call it over HTTP.

Owns ``graphmem serve`` (a JSON HTTP API over :class:`graphmem.MemoryGraph`, OpenAPI
documented, bearer-token authenticated, bound to 127.0.0.1 by default) and its clients,
:class:`Client` and :class:`AsyncClient`, which have the methods of ``MemoryGraph`` and
return the same models and raise the same :mod:`graphmem.errors` classes.

May import: the public API (``graphmem.api``, ``graphmem.models``, ``graphmem.errors``),
FastAPI/uvicorn (server side, the ``service`` extra) and httpx (client side). The core
never imports this package. The client side must not import torch or the graph store:
``graphmem.service.client`` is what a CLI call loads when ``GRAPHMEM_SERVER`` is set.

    wire.py         request shapes and the error envelope, shared by both sides
    idempotency.py  replays a retried request's first answer instead of running it twice
    app.py          the FastAPI application
    server.py       token handling and running it (``graphmem serve``)
    client.py       Client / AsyncClient
    commands.py     the ``serve`` CLI command
"""

from __future__ import annotations

from typing import Any

__all__ = ["AsyncClient", "Client"]


def __getattr__(name: str) -> Any:
    # lazy, so that importing graphmem.service does not import httpx
    if name in __all__:
        from graphmem.service import client

        return getattr(client, name)
    raise AttributeError(f"module 'graphmem.service' has no attribute {name!r}")
