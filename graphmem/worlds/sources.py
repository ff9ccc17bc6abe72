"""The four worlds by name: where their source lies and how each is sedimented.

One table for the command line, the benchmark and the notebooks, so that a world is
read the same way everywhere. Paths are relative to the project root (the data lives
beside the project, in ``../shared/data``).
"""

from __future__ import annotations

from pathlib import Path

from graphmem.errors import InvalidInput
from graphmem.worlds.hamlet import sediment_hamlet
from graphmem.worlds.incidents import sediment_incidents
from graphmem.worlds.novel import sediment_novel
from graphmem.worlds.script import Sediment

DATA = Path("../shared/data")
WORLDS = {"hamlet": DATA / "hamlet" / "hamlet.tei.xml",
          "hongloumeng": DATA / "chinese_novels" / "hongloumeng.chapters_001-040.jsonl",
          "sanguoyanyi": DATA / "chinese_novels" / "sanguoyanyi.chapters_001-040.jsonl",
          "russia_ukraine": DATA / "russia_ukraine" / "events_2022.csv"}
#: rounds the held-out part is spread over by default (the paper's horizons)
HORIZONS = {"hamlet": 40, "hongloumeng": 80, "sanguoyanyi": 80, "russia_ukraine": 40}


def sediment_world(name: str, data: Path | None = None, horizon: int | None = None) -> Sediment:
    """Sediment world ``name`` from ``data`` (default: its file under ``../shared/data``)."""
    if name not in WORLDS:
        raise InvalidInput(f"unknown world {name!r}; choose one of {', '.join(WORLDS)}")
    path = Path(data) if data else WORLDS[name]
    if not path.exists():
        raise InvalidInput(f"{path} not found; pass --data")
    rounds = horizon or HORIZONS[name]
    if name == "hamlet":
        return sediment_hamlet(path, horizon=rounds)
    if name == "russia_ukraine":
        return sediment_incidents(path, horizon=rounds, name=name)
    return sediment_novel(path, horizon=rounds, name=name)
