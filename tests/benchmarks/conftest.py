from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmarks.slices import CONVERSATIONS, SESSIONS, first_sessions


@pytest.fixture(scope="module")
def locomo_slice(tmp_path_factory, shared_data) -> Path:
    out = tmp_path_factory.mktemp("locomo")
    for name in CONVERSATIONS:
        whole = json.loads((shared_data / "locomo" / f"{name}.json").read_text())
        (out / f"{name}.json").write_text(json.dumps(first_sessions(whole, SESSIONS)))
    return out
