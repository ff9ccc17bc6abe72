"""Typed settings, read from arguments first and the environment second.

Environment: GRAPHMEM_URI, GRAPHMEM_DATA, GRAPHMEM_USER, GRAPHMEM_PASSWORD,
GRAPHMEM_GRAPH, GRAPHMEM_FSYNC, GRAPHMEM_REDIS_SERVER, GRAPHMEM_FALKORDB_MODULE,
GRAPHMEM_LOCK_TIMEOUT.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphmem.errors import ConfigError

DEFAULT_DATA_DIR = "graphmem-data"


class StoreSettings(BaseModel):
    """Where the graph lives and how to reach it.

    ``uri`` None means the embedded FalkorDB server in ``data_dir``.
    """

    model_config = ConfigDict(frozen=True)

    uri: str | None = None
    #: a replica of the FalkorDB server ``uri`` names, for reads (graphmem.store.replica)
    read_uri: str | None = None
    data_dir: Path = Path(DEFAULT_DATA_DIR)
    user: str | None = None
    password: str | None = None
    graph: str = "graphmem"
    fsync: Literal["always", "everysec", "no"] = "always"
    redis_server: Path | None = None
    falkordb_module: Path | None = None
    start_timeout_s: float = Field(default=20.0, gt=0)
    lock_timeout_s: float = Field(default=60.0, gt=0)

    @classmethod
    def from_env(cls, **overrides: object) -> "StoreSettings":
        """Settings from the environment, with explicit non-None overrides on top."""
        env = os.environ
        values: dict[str, object] = {
            "uri": env.get("GRAPHMEM_URI") or None,
            "read_uri": env.get("GRAPHMEM_READ_URI") or None,
            "data_dir": env.get("GRAPHMEM_DATA") or DEFAULT_DATA_DIR,
            "user": env.get("GRAPHMEM_USER") or None,
            "password": env.get("GRAPHMEM_PASSWORD") or None,
            "graph": env.get("GRAPHMEM_GRAPH") or "graphmem",
            "fsync": env.get("GRAPHMEM_FSYNC") or "always",
            "redis_server": env.get("GRAPHMEM_REDIS_SERVER") or None,
            "falkordb_module": env.get("GRAPHMEM_FALKORDB_MODULE") or None,
            "lock_timeout_s": env.get("GRAPHMEM_LOCK_TIMEOUT") or 60.0,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise ConfigError(_describe(exc, overrides)) from None


#: the environment variable behind each setting, named in errors
ENV_NAMES = {"uri": "GRAPHMEM_URI", "data_dir": "GRAPHMEM_DATA", "user": "GRAPHMEM_USER",
             "password": "GRAPHMEM_PASSWORD", "graph": "GRAPHMEM_GRAPH",
             "fsync": "GRAPHMEM_FSYNC", "redis_server": "GRAPHMEM_REDIS_SERVER",
             "falkordb_module": "GRAPHMEM_FALKORDB_MODULE",
             "lock_timeout_s": "GRAPHMEM_LOCK_TIMEOUT"}


def _describe(exc: ValidationError, overrides: dict[str, object]) -> str:
    problems = []
    for err in exc.errors():
        field = str(err["loc"][0]) if err["loc"] else "settings"
        source = (f"the argument {field}" if overrides.get(field) is not None
                  else f"{ENV_NAMES[field]}" if field in ENV_NAMES else field)
        problems.append(f"{source} = {err.get('input')!r}: {err['msg']}")
    return "invalid store settings: " + "; ".join(problems)
