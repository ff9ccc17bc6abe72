"""The ranking channels, one module each, found by the registry below.

A channel module defines ``CHANNEL``, an object with a ``name``, an ``order`` (its place
in the default channel list) and ``rank(ctx, query, depth)`` returning owned memory ids,
best first; one that reads the question's nearest memories says how many per place
asked for in ``neighbours`` (they are searched once for all). Adding a channel is
adding a module here; ``RecallConfig`` accepts every registered name and gives a new
channel weight 0 until a preset or the user weights it.
"""

from __future__ import annotations

import importlib
import pkgutil

from graphmem.retrieval.channels.base import Channel, RankContext, neighbours_read

__all__ = ["CHANNELS", "Channel", "RankContext", "channel", "neighbours_read"]


def _discover() -> dict[str, Channel]:
    found: list[Channel] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.append(module.CHANNEL)
    return {c.name: c for c in sorted(found, key=lambda c: c.order)}


#: every channel by name, in default order
CHANNELS: dict[str, Channel] = _discover()


def channel(name: str) -> Channel:
    return CHANNELS[name]
