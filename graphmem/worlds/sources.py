"""The four worlds by name: where their source lies and how each is sedimented.

One table for the command line, the benchmark and the notebooks, so that a world is
read the same way everywhere. A world's file is found under `shared_data()`: the
directory ``$GRAPHMEM_SHARED_DATA`` names, else ``shared/data`` beside this checkout
(where the evaluation data lies next to the project: the same wherever a command is
started from), else ``../shared/data`` from the working directory (an installed copy).
"""

from __future__ import annotations

import os
from pathlib import Path

from graphmem.errors import InvalidInput
from graphmem.worlds.hamlet import sediment_hamlet
from graphmem.worlds.incidents import sediment_incidents
from graphmem.worlds.novel import sediment_novel
from graphmem.worlds.script import Sediment

#: the environment variable that names the evaluation data's directory
DATA_ENV = "GRAPHMEM_SHARED_DATA"
#: each world's source, relative to that directory
WORLDS = {"hamlet": Path("hamlet/hamlet.tei.xml"),
          "hongloumeng": Path("chinese_novels/hongloumeng.chapters_001-040.jsonl"),
          "sanguoyanyi": Path("chinese_novels/sanguoyanyi.chapters_001-040.jsonl"),
          "russia_ukraine": Path("russia_ukraine/events_2022.csv")}
#: rounds the held-out part is spread over by default (the paper's horizons)
HORIZONS = {"hamlet": 40, "hongloumeng": 80, "sanguoyanyi": 80, "russia_ukraine": 40}


def shared_data() -> Path:
    """The directory the worlds' sources are read from by default (see the module)."""
    named = os.environ.get(DATA_ENV)
    if named:
        return Path(named)
    beside = Path(__file__).resolve().parents[3] / "shared" / "data"
    return beside if beside.is_dir() else Path("../shared/data")


def world_source(name: str) -> Path:
    """Where world ``name``'s source is read from by default."""
    if name not in WORLDS:
        raise InvalidInput(f"unknown world {name!r}; choose one of {', '.join(WORLDS)}")
    return shared_data() / WORLDS[name]


def sediment_world(name: str, data: Path | None = None, horizon: int | None = None) -> Sediment:
    """Sediment world ``name`` from ``data`` (default: `world_source`)."""
    path = Path(data) if data else world_source(name)
    if not path.exists():
        raise InvalidInput(f"{path} not found; pass --data FILE, or set {DATA_ENV} to the "
                           f"directory that holds {WORLDS[name]}")
    rounds = horizon or HORIZONS[name]
    if name == "hamlet":
        return sediment_hamlet(path, horizon=rounds)
    if name == "russia_ukraine":
        return sediment_incidents(path, horizon=rounds, name=name)
    return sediment_novel(path, horizon=rounds, name=name)
