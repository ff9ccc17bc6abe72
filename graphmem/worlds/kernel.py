"""The round-barrier kernel: decide against one world state, then apply everything.

A round ``r``:

1. **deliver** — messages due at ``r`` move into their recipients' inboxes;
2. **decide** — every awake character (alive, present) gets the same frozen copy of
   the world and returns its actions; nobody sees another's decision;
3. **apply** — all actions apply in a canonical order: memory reads (``recall``,
   ``get_affiliated``) first, against the store as it was when the round began; then
   world actions; then memory writes; within each phase by actor id and the order the
   actor gave. Moves, messages and carrier changes show in the next round's state.

So the outcome depends on what was decided, never on the order characters were
stepped. ``say`` and ``gesture`` reach a recipient from round ``r + 1 + delay``, where
the delay is the map distance between the two (at the start of the round) times
``delay_per_unit``, rounded; every message is kept in the thread of each
(sender, recipient) pair. Passive targets (carriers) resolve within the acting
character's apply step, reading the carrier as it was at the start of the round.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from graphmem.errors import InvalidInput
from graphmem.worlds.actions import MEMORY_ACTIONS, Action
from graphmem.worlds.model import Message, WorldState
from graphmem.worlds.shortterm import CachedPair, ShortTerm

READS = ("recall", "get_affiliated")


@dataclass(frozen=True)
class Observation:
    """What one character decides on: the frozen world, its inbox, its own rng."""

    actor: str
    round: int
    world: WorldState
    rng: random.Random

    @property
    def me(self):
        return self.world.entities[self.actor]

    @property
    def inbox(self) -> list[Message]:
        return self.world.inboxes.get(self.actor, [])

    @property
    def mind(self) -> ShortTerm:
        return self.world.minds[self.actor]


class Policy(Protocol):
    def decide(self, obs: Observation) -> Sequence[Action]: ...


class Memory(Protocol):
    """Long-term memory as the kernel uses it; see graphmem.worlds.memory."""

    def act(self, action: Action, world: WorldState) -> str: ...

    def end_round(self, round: int, world: WorldState) -> None: ...


def rng_for(seed: int, round: int, actor: str) -> random.Random:
    """A generator private to (seed, round, actor): the same whatever the stepping order."""
    digest = hashlib.sha256(f"{seed}:{round}:{actor}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def phase(action: Action) -> int:
    """Apply order: memory reads, then world actions, then memory writes."""
    if action.kind in READS:
        return 0
    return 2 if action.kind in MEMORY_ACTIONS else 1


@dataclass
class Kernel:
    """Runs a world round by round; ``events`` is the log of everything applied."""

    world: WorldState
    policy: Policy
    memory: Memory | None = None
    seed: int = 0
    delay_per_unit: float = 1.0
    events: list[dict[str, Any]] = field(default_factory=list)
    on_event: Callable[[dict[str, Any]], None] | None = None

    def __post_init__(self) -> None:
        for cid in self.world.characters():
            self.world.minds.setdefault(cid, ShortTerm())

    def run(self, rounds: int, *, after_round: Callable[[int], None] | None = None) -> None:
        """Run ``rounds`` more rounds; ``after_round(r)`` runs after each one."""
        for _ in range(rounds):
            done = self.step()
            if after_round:
                after_round(done)

    def step(self, order: Iterable[str] | None = None) -> int:
        """One round; ``order`` is the stepping order (default: sorted). Returns its number."""
        r = self.world.round
        self._deliver(r)
        frozen = copy.deepcopy(self.world)
        actors = list(order) if order is not None else self.world.awake()
        if sorted(actors) != self.world.awake():
            raise InvalidInput("the stepping order must list every awake character once")
        decided: list[tuple[int, str, int, Action]] = []
        for actor in actors:
            obs = Observation(actor, r, frozen, rng_for(self.seed, r, actor))
            for i, action in enumerate(self.policy.decide(obs)):
                if action.actor != actor:
                    raise InvalidInput(f"{actor} decided an action for {action.actor}")
                decided.append((phase(action), actor, i, action))
        ordered = [d[3] for d in sorted(decided, key=lambda d: d[:3])]
        writes = [a for a in ordered if phase(a) == 2]
        written = iter(self._write(writes, frozen))
        for action in ordered:
            result = next(written) if phase(action) == 2 else self._apply(action, frozen)
            self.world.minds[action.actor].remember_pair(
                CachedPair(r, action.describe(), result))
            self._log({"round": r, **action.to_dict(), "result": result})
        if self.memory is not None:
            self.memory.end_round(r, self.world)
        self.world.round = r + 1
        return r

    # -- phases -------------------------------------------------------------------

    def _deliver(self, r: int) -> None:
        due = sorted((m for m in self.world.in_flight if m.deliver_round <= r),
                     key=lambda m: m.seq)
        self.world.in_flight = [m for m in self.world.in_flight if m.deliver_round > r]
        self.world.inboxes = {}
        for message in due:
            for recipient in message.recipients:
                self.world.inboxes.setdefault(recipient, []).append(message)

    def _log(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        if self.on_event:
            self.on_event(event)

    def _write(self, actions: list[Action], frozen: WorldState) -> list[str]:
        """The round's memory writes, in their canonical order, in one batch when the
        memory takes batches (the same writes, embedded together)."""
        if self.memory is None:
            return ["no long-term memory in this run"] * len(actions)
        many = getattr(self.memory, "act_many", None)
        if many is not None:
            return many(actions, frozen)
        return [self.memory.act(a, frozen) for a in actions]

    def _apply(self, action: Action, frozen: WorldState) -> str:
        if action.kind in MEMORY_ACTIONS:
            if self.memory is None:
                return "no long-term memory in this run"
            return self.memory.act(action, frozen)
        try:
            return getattr(self, f"_do_{action.kind}")(action, frozen)
        except InvalidInput as exc:  # a refused action is a result the actor reads
            return f"refused: {exc}"

    def _do_move(self, action: Action, frozen: WorldState) -> str:
        place = action.args["place"]
        if place not in self.world.map.places:
            raise InvalidInput(f"no place {place!r} on the map")
        self.world.entities[action.actor].place = place
        return f"at {place}"

    def _do_say(self, action: Action, frozen: WorldState) -> str:
        return self._send(action, frozen)

    def _do_gesture(self, action: Action, frozen: WorldState) -> str:
        return self._send(action, frozen)

    def _send(self, action: Action, frozen: WorldState) -> str:
        to = action.args["to"]
        recipients = sorted({to} if isinstance(to, str) else set(to))
        unknown = [c for c in recipients if frozen.entities.get(c) is None
                   or frozen.entities[c].kind != "character"]
        if unknown or not recipients:
            raise InvalidInput(f"no character(s) {unknown} to address")
        here = frozen.entities[action.actor].place
        delivered = []
        for recipient in recipients:  # each recipient at its own distance
            delay = round(self.world.map.distance(here, frozen.entities[recipient].place)
                          * self.delay_per_unit)
            message = Message(seq=self.world.next_seq, kind=action.kind, sender=action.actor,
                              recipients=[recipient], text=action.args["text"],
                              sent_round=frozen.round, deliver_round=frozen.round + 1 + delay,
                              place=here)
            self.world.next_seq += 1
            self.world.messages[message.seq] = message
            self.world.in_flight.append(message)
            self.world.threads.setdefault(message.thread_key(recipient), []).append(message.seq)
            delivered.append(f"{recipient}@{message.deliver_round}")
        return "sent to " + ", ".join(delivered)

    def _carrier(self, action: Action, frozen: WorldState):
        carrier = frozen.entity(action.args["carrier"])
        me = frozen.entities[action.actor]
        if carrier.kind != "carrier":
            raise InvalidInput(f"{carrier.id} is not an information carrier")
        if carrier.holder != me.id and carrier.place != me.place:
            raise InvalidInput(f"{carrier.id} is neither held by {me.id} nor here")
        return carrier

    def _do_read(self, action: Action, frozen: WorldState) -> str:
        return self._carrier(action, frozen).text

    def _do_write(self, action: Action, frozen: WorldState) -> str:
        carrier = self._carrier(action, frozen)
        live = self.world.entities[carrier.id]
        live.text = (live.text + "\n" + action.args["text"]).strip()
        return f"wrote on {carrier.id}"

    def _do_give(self, action: Action, frozen: WorldState) -> str:
        carrier = self._carrier(action, frozen)
        to = action.args["to"]
        if frozen.entities.get(to) is None or frozen.entities[to].place != frozen.entities[
                action.actor].place:
            raise InvalidInput(f"{to} is not here to take {carrier.id}")
        self.world.entities[carrier.id].holder = to
        return f"gave {carrier.id} to {to}"

    def _do_reread(self, action: Action, frozen: WorldState) -> str:
        thread = frozen.thread(action.actor, action.args["with"])
        return " / ".join(f"{m.sender}: {m.text}" for m in thread[-5:]) or "no conversation"

    def _do_push_goal(self, action: Action, frozen: WorldState) -> str:
        self.world.minds[action.actor].push_goal(action.args["goal"])
        return "goal pushed"

    def _do_pop_goal(self, action: Action, frozen: WorldState) -> str:
        return f"dropped {self.world.minds[action.actor].pop_goal()!r}"

    def _do_set_status(self, action: Action, frozen: WorldState) -> str:
        self.world.minds[action.actor].status[str(action.args["key"])] = str(action.args["value"])
        return "status set"

    def _do_wait(self, action: Action, frozen: WorldState) -> str:
        return "waited"

    def _do_leave(self, action: Action, frozen: WorldState) -> str:
        self.world.entities[action.actor].present = False
        return f"left the world ({action.args.get('reason', 'no reason given')})"
