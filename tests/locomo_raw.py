"""A LoCoMo conversation as its file holds it: the speakers and each session's turns
(text as spoken, no image captions; the benchmark loader adds those)."""

from __future__ import annotations

import json
import re
from pathlib import Path


def conversation(shared_data: Path, name: str) -> tuple[list[str], list[list[dict]]]:
    """(speakers, sessions) of ``locomo/<name>.json``: each session its turns in order,
    each turn a dict with ``speaker`` and ``text``."""
    raw = json.loads((shared_data / "locomo" / f"{name}.json").read_text())
    sessions = [turns for key, turns in raw.items() if re.fullmatch(r"session_\d+", key)]
    return [raw["speaker_a"], raw["speaker_b"]], sessions


def turns(sessions: list[list[dict]]) -> list[dict]:
    """Every turn of the sessions, in order."""
    return [turn for session in sessions for turn in session]
