"""Retrying a write whose guard found the namespace moved by another writer."""

from __future__ import annotations

import random
import time
from typing import Callable, TypeVar

from graphmem.errors import WriteConflict

T = TypeVar("T")


def retry_moved_version(attempt: Callable[[int], T | None], *, attempts: int,
                        backoff_ms: float, what: str) -> T:
    """Call ``attempt(n)`` for n = 1, 2, ... until it returns something other than None.

    None means "the namespace moved under me, nothing was written": pause a random
    moment (longer after each failure, so racing writers spread out) and try again. After
    ``attempts`` failures raise ``WriteConflict``.
    """
    for n in range(1, attempts + 1):
        result = attempt(n)
        if result is not None:
            return result
        time.sleep(random.uniform(0, backoff_ms / 1000 * n))
    raise WriteConflict(f"could not apply {what} after {attempts} attempts: other writers "
                        "kept changing the namespace; nothing was written, retry later")
