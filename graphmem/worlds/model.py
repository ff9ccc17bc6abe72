"""The world a kernel runs: who is in it, where, and the messages between them.

Only characters are scheduled. Environments (places) and information carriers (letters,
orders, reports) are passive: they own memories and a carrier holds text a character
can read. A dead or absent character stays in the world, unscheduled, and keeps its
memories.

Everything here is plain data that round-trips through JSON (``to_dict`` /
``from_dict``), which is what a checkpoint stores.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.worlds.shortterm import ShortTerm

KINDS = ("character", "environment", "carrier")


@dataclass
class Entity:
    """One member of the world: a character, an environment or a carrier.

    ``place`` is where it is (an environment's place is itself); ``holder`` is the
    character carrying a carrier, if any; ``text`` is what a carrier says.
    """

    id: str
    name: str
    kind: str
    place: str | None = None
    alive: bool = True
    present: bool = True
    text: str = ""
    holder: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InvalidInput(f"entity {self.id!r} has kind {self.kind!r}; "
                               f"expected one of {', '.join(KINDS)}")

    @property
    def schedulable(self) -> bool:
        """Characters alive and present are the only ones that decide each round."""
        return self.kind == "character" and self.alive and self.present


@dataclass
class WorldMap:
    """Places and the distance between each pair (symmetric, 0 to itself)."""

    places: list[str]
    distances: dict[str, dict[str, int]] = field(default_factory=dict)

    def distance(self, a: str | None, b: str | None) -> int:
        """Distance between two places; unknown or unplaced ends are the farthest."""
        if a is None or b is None:
            return self.farthest
        if a == b:
            return 0
        return self.distances.get(a, {}).get(b, self.farthest)

    @property
    def farthest(self) -> int:
        return max((d for row in self.distances.values() for d in row.values()), default=1)


@dataclass
class Message:
    """A ``say`` or ``gesture`` from one character to others, in flight or delivered."""

    seq: int
    kind: str
    sender: str
    recipients: list[str]
    text: str
    sent_round: int
    deliver_round: int
    place: str | None = None

    def thread_key(self, recipient: str) -> str:
        """Conversation threads are per pair of parties, either can reread them."""
        return "|".join(sorted((self.sender, recipient)))


@dataclass
class WorldState:
    """The whole mutable state of a world between two rounds."""

    name: str
    round: int
    entities: dict[str, Entity]
    map: WorldMap
    in_flight: list[Message] = field(default_factory=list)
    inboxes: dict[str, list[Message]] = field(default_factory=dict)
    threads: dict[str, list[int]] = field(default_factory=dict)  # pair -> message seqs
    messages: dict[int, Message] = field(default_factory=dict)  # every message sent
    minds: dict[str, ShortTerm] = field(default_factory=dict)
    next_seq: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    def characters(self) -> list[str]:
        """Ids of every character, dead or alive, sorted."""
        return sorted(e.id for e in self.entities.values() if e.kind == "character")

    def awake(self) -> list[str]:
        """Ids of the characters scheduled this round, sorted."""
        return sorted(e.id for e in self.entities.values() if e.schedulable)

    def entity(self, entity_id: str) -> Entity:
        try:
            return self.entities[entity_id]
        except KeyError:
            raise InvalidInput(f"world {self.name!r} has no entity {entity_id!r}") from None

    def present_at(self, place: str | None) -> list[str]:
        """Characters alive and present at ``place``, sorted."""
        return sorted(e.id for e in self.entities.values()
                      if e.schedulable and e.place == place)

    def thread(self, a: str, b: str) -> list[Message]:
        """The conversation between ``a`` and ``b``, oldest first."""
        return [self.messages[s] for s in self.threads.get("|".join(sorted((a, b))), [])]

    # -- JSON ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "round": self.round, "next_seq": self.next_seq,
            "meta": self.meta,
            "entities": [asdict(e) for e in sorted(self.entities.values(), key=lambda e: e.id)],
            "map": asdict(self.map),
            "in_flight": [asdict(m) for m in self.in_flight],
            "inboxes": {k: [m.seq for m in v] for k, v in sorted(self.inboxes.items())},
            "threads": dict(sorted(self.threads.items())),
            "messages": [asdict(m) for _, m in sorted(self.messages.items())],
            "minds": {k: v.to_dict() for k, v in sorted(self.minds.items())},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WorldState:
        messages = {m["seq"]: Message(**m) for m in data.get("messages", [])}
        return cls(
            name=data["name"], round=data["round"], next_seq=data.get("next_seq", 0),
            meta=data.get("meta", {}),
            entities={e["id"]: Entity(**e) for e in data["entities"]},
            map=WorldMap(**data["map"]),
            in_flight=[Message(**m) for m in data.get("in_flight", [])],
            inboxes={k: [messages[s] for s in v] for k, v in data.get("inboxes", {}).items()},
            threads={k: list(v) for k, v in data.get("threads", {}).items()},
            messages=messages,
            minds={k: ShortTerm.from_dict(v) for k, v in data.get("minds", {}).items()},
        )
