"""Where the benchmark scripts read the evaluation data by default: ``shared/data`` beside
the repository (``../shared/data`` from its root), wherever a script is started from."""

from __future__ import annotations

from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
