"""The action repertoire: what a character may do in a round, and what each needs.

World actions change the world state; memory actions go to the character's long-term
memory (graphmem) through the run's memory design. The six discretionary
memory-management actions are ``forget``, ``revise``, ``add_affiliated``,
``remove_affiliated``, ``set_affiliated`` and ``get_affiliated``. A memory is named by
its id (as a recall returned it) or, id-free, by ``query``: the asker's best match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import InvalidInput

#: action -> (required arguments, optional arguments)
WORLD_ACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "move": (("place",), ()),
    "say": (("to", "text"), ()),
    "gesture": (("to", "text"), ()),
    "read": (("carrier",), ()),
    "write": (("carrier", "text"), ()),
    "give": (("carrier", "to"), ()),
    "reread": (("with",), ()),
    "push_goal": (("goal",), ()),
    "pop_goal": ((), ()),
    "set_status": (("key", "value"), ()),
    "wait": ((), ()),
    "leave": ((), ("reason",)),
}
MEMORY_ACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # round, place: when and where the remembered event happened (default: now, here)
    "remember": (("text",), ("witnesses", "round", "place")),
    "recall": (("query",), ("k",)),
    "forget": ((), ("memory", "query")),
    "revise": (("text",), ("memory", "query")),
    "add_affiliated": (("other",), ("memory", "query")),
    "remove_affiliated": (("other",), ("memory", "query")),
    "set_affiliated": (("others",), ("memory", "query")),
    "get_affiliated": ((), ("memory", "query")),
}
MANAGEMENT = ("forget", "revise", "add_affiliated", "remove_affiliated", "set_affiliated",
              "get_affiliated")
REPERTOIRE = {**WORLD_ACTIONS, **MEMORY_ACTIONS}


@dataclass(frozen=True)
class Action:
    """One action a character decided on: ``Action("hamlet", "say", {"to": [...], ...})``."""

    actor: str
    kind: str
    args: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_action(self.kind, self.args)

    def describe(self) -> str:
        """A short line for the cache and the log."""
        shown = ", ".join(f"{k}={_short(v)}" for k, v in sorted(self.args.items()))
        return f"{self.kind}({shown})"

    def to_dict(self) -> dict[str, Any]:
        return {"actor": self.actor, "kind": self.kind, "args": dict(self.args)}


def _short(value: Any, limit: int = 60) -> str:
    text = ",".join(value) if isinstance(value, list) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_action(kind: str, args: dict[str, Any]) -> None:
    """Refuse an unknown action, a missing argument or an unexpected one."""
    if kind not in REPERTOIRE:
        raise InvalidInput(f"unknown action {kind!r}; the repertoire is "
                           f"{', '.join(sorted(REPERTOIRE))}")
    required, optional = REPERTOIRE[kind]
    missing = [a for a in required if a not in args]
    extra = sorted(set(args) - set(required) - set(optional))
    if missing or extra:
        raise InvalidInput(f"action {kind!r} needs {list(required)} (optional "
                           f"{list(optional)}); missing {missing}, unexpected {extra}")
    if kind in MANAGEMENT and "memory" not in args and "query" not in args:
        raise InvalidInput(f"action {kind!r} names its memory by 'memory' (an id) or "
                           "'query' (the best match among the actor's memories)")
    if kind in ("say", "gesture", "give") and not isinstance(args["to"], (list, str)):
        raise InvalidInput(f"action {kind!r}: 'to' is a character id or a list of them")
