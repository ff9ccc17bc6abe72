"""A clock to hand ``MemoryGraph.open(clock=...)`` when time should not be the wall's:
tests that must not sleep, and simulations and replays that run on their own time."""

from __future__ import annotations

import time


class ManualClock:
    """Epoch milliseconds that move only when told to."""

    def __init__(self, start_ms: int | None = None) -> None:
        self.now = int(time.time() * 1000) if start_ms is None else int(start_ms)

    def __call__(self) -> int:
        return self.now

    def advance(self, *, ms: int = 0, seconds: float = 0, minutes: float = 0,
                hours: float = 0, days: float = 0) -> int:
        """Move on by the sum of the amounts given; returns the new time."""
        self.now += int(ms + 1000 * (seconds + 60 * minutes + 3600 * hours + 86400 * days))
        return self.now
