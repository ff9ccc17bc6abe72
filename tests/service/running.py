"""Helpers for tests that need a real ``graphmem serve`` process."""

from __future__ import annotations

import pytest


def needs(*modules: str) -> None:
    """Skip the calling test, with the reason, when an optional package is absent."""
    extras = {"fastapi": "service", "uvicorn": "service"}
    for name in modules:
        pytest.importorskip(name, reason=f"{name} is not installed: pip install "
                                         f"\"graphmem[{extras.get(name, name)}]\"")
