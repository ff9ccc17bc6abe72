"""The memory designs as the kernel sees them, over one MemoryGraph namespace.

=============  ===================================  ======================================
design         graphmem write path                  what the world adds
=============  ===================================  ======================================
consensus      ``consensus`` (merge, link)          —
nomerge        ``nomerge`` (link, no merge)         —
private        ``private`` (one copy per party)     —
two-tier       ``private`` (the interaction tier)   one insight per character and round
                                                    in which it deposited (G-Memory style)
shared-acl     ``shared-acl`` (access list)         —
=============  ===================================  ======================================

Every design gets the same deposits, atomised the same way, so the entries they write
compare. Entries the seeded history created and entries the simulation created are
counted apart (``seeded_ids``, ``sim_ids``); an atom merged into an existing memory
creates no entry. Memory-management actions run the ``worlds/*`` queries, guarded by
the namespace version like every write.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.errors import InvalidInput, StoreError
from graphmem.worlds.actions import Action
from graphmem.worlds.model import WorldState

#: world design -> graphmem write-path design
WORLD_DESIGNS = {"consensus": "consensus", "nomerge": "nomerge", "private": "private",
                 "two-tier": "private", "shared-acl": "shared-acl"}
WORLD_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
RECALL_K = 5
GUARDED_ATTEMPTS = 20


def graph_design(design: str) -> str:
    """The MemoryGraph design a world design opens its graph with."""
    try:
        return WORLD_DESIGNS[design]
    except KeyError:
        raise InvalidInput(f"unknown world design {design!r}; choose one of "
                           f"{', '.join(WORLD_DESIGNS)}") from None


@dataclass
class WorldMemory:
    """Long-term memory of one world run: ``graph`` opened with ``graph_design(design)``."""

    graph: Any  # graphmem.MemoryGraph
    ns: str
    design: str = "consensus"
    recall_k: int = RECALL_K
    seeded_ids: set[str] = field(default_factory=set)
    sim_ids: set[str] = field(default_factory=set)
    calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    recalled_rows: list[int] = field(default_factory=list)
    _round_deposits: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def __post_init__(self) -> None:
        graph_design(self.design)

    # -- setting up ----------------------------------------------------------------

    def register(self, world: WorldState) -> None:
        """Every entity of the world becomes an agent of the namespace (passive ones too:
        environments and carriers own memories)."""
        for e in sorted(world.entities.values(), key=lambda e: e.id):
            self.graph.register_agent(e.id, kind=e.kind, name=e.name, ns=self.ns)

    def seed(self, deposits: Sequence[Mapping[str, Any]]) -> int:
        """Deposit the seeded history (each a dict of remember's arguments); returns the
        number of entries it created."""
        before = len(self.seeded_ids)
        for result in self.graph.remember_many([{**d, "via": "seeded"} for d in deposits],
                                               ns=self.ns):
            self.seeded_ids.update(a.memory_id for a in result.atoms if a.action == "created")
        return len(self.seeded_ids) - before

    # -- the kernel's interface ------------------------------------------------------

    def act(self, action: Action, world: WorldState) -> str:
        """Apply one memory action of ``action.actor``; the result is what it reads next."""
        self.calls[action.kind] += 1
        try:
            return getattr(self, f"_do_{action.kind}")(action, world)
        except InvalidInput as exc:
            return f"refused: {exc}"

    def act_many(self, actions: Sequence[Action], world: WorldState) -> list[str]:
        """Apply memory actions in order; each run of ``remember`` goes through
        ``remember_many`` (one transaction a deposit, statements embedded together)."""
        results: list[str] = []
        i = 0
        while i < len(actions):
            j = i
            while j < len(actions) and actions[j].kind == "remember":
                j += 1
            if j == i:
                results.append(self.act(actions[i], world))
                i += 1
                continue
            results.extend(self._remember_run(list(actions[i:j]), world))
            i = j
        return results

    def _remember_run(self, actions: list[Action], world: WorldState) -> list[str]:
        blank = [a for a in actions if not str(a.args["text"]).strip()]
        if blank:  # refused one by one, so the rest still go in one batch
            return [self.act(a, world) if a in blank else self._remember_run([a], world)[0]
                    for a in actions]
        tier = "interaction" if self.design == "two-tier" else None
        deposits = [self._deposit(a.actor, a.args["text"], a.args.get("round", world.round),
                                  world, witnesses=a.args.get("witnesses", ()), domain=tier,
                                  place=a.args.get("place"))
                    for a in actions]
        self.calls["remember"] += len(actions)
        out = []
        for action, result in zip(actions, self.graph.remember_many(deposits, ns=self.ns)):
            self.sim_ids.update(a.memory_id for a in result.atoms if a.action == "created")
            self._round_deposits[action.actor].append(action.args["text"])
            merged = sum(a.action == "merged" for a in result.atoms)
            out.append(f"remembered {len(result.atoms)} statement(s), {merged} merged")
        return out

    def end_round(self, round: int, world: WorldState) -> None:
        """Write the round's insights (two-tier) and its messages (the conversation graph)."""
        if self.design == "two-tier":
            for agent, texts in sorted(self._round_deposits.items()):
                self._remember(agent, insight_text(world, agent, texts), round, world,
                               domain="insight")
        self._round_deposits.clear()
        pairs: dict[tuple[str, str], int] = defaultdict(int)
        for m in world.messages.values():
            if m.sent_round == round:
                for r in m.recipients:
                    pairs[(m.sender, r)] += 1
        if pairs:
            self.graph.query("worlds/record_messages", {"ns": self.ns, "pairs": [
                {"sender": s, "recipient": r, "count": n, "round": round}
                for (s, r), n in sorted(pairs.items())]}, write=True)

    # -- remember and recall ---------------------------------------------------------

    def _deposit(self, agent: str, text: str, round: int, world: WorldState, *,
                 witnesses: Iterable[str] = (), domain: str | None = None,
                 place: str | None = None) -> dict[str, Any]:
        """remember's arguments: the event's round and place (default: now, and where
        the agent is)."""
        return {"agent": agent, "text": text, "witnesses": sorted(set(witnesses) - {agent}),
                "at": world_time(world, round), "domain": domain,
                "place": place or world.entities[agent].place}

    def _remember(self, agent: str, text: str, round: int, world: WorldState, *,
                  witnesses: Iterable[str] = (), domain: str | None = None,
                  place: str | None = None):
        result = self.graph.remember(**self._deposit(agent, text, round, world,
                                                     witnesses=witnesses, domain=domain,
                                                     place=place),
                                     ns=self.ns)
        self.sim_ids.update(a.memory_id for a in result.atoms if a.action == "created")
        return result

    def _do_remember(self, action: Action, world: WorldState) -> str:
        tier = "interaction" if self.design == "two-tier" else None
        result = self._remember(action.actor, action.args["text"],
                                action.args.get("round", world.round), world,
                                witnesses=action.args.get("witnesses", ()), domain=tier,
                                place=action.args.get("place"))
        self._round_deposits[action.actor].append(action.args["text"])
        merged = sum(a.action == "merged" for a in result.atoms)
        return f"remembered {len(result.atoms)} statement(s), {merged} merged"

    def recall(self, agent: str, query: str, k: int | None = None):
        hits = self.graph.recall(agent, query, k=k or self.recall_k, ns=self.ns)
        self.recalled_rows.append(len(hits))
        return hits

    def _do_recall(self, action: Action, world: WorldState) -> str:
        hits = self.recall(action.actor, action.args["query"], action.args.get("k"))
        return " | ".join(h.text for h in hits) or "nothing recalled"

    # -- memory management ----------------------------------------------------------

    def _target(self, action: Action) -> str:
        """The memory an action names: its id, or the actor's best match for ``query``."""
        if action.args.get("memory"):
            return str(action.args["memory"])
        hits = self.graph.recall(action.actor, action.args["query"], k=1, ns=self.ns)
        if not hits:
            raise InvalidInput(f"{action.actor} has no memory matching "
                               f"{action.args['query']!r}")
        return hits[0].memory_id

    def _guarded(self, name: str, params: dict[str, Any]) -> list[dict]:
        """Run a version-guarded write, catching up and retrying if another moved it."""
        for _ in range(GUARDED_ATTEMPTS):
            version = self.graph.query("memory/namespace_version", {"ns": self.ns})
            expected = int(version[0]["version"]) if version else 0
            rows = self.graph.query(name, {"ns": self.ns, "expected": expected,
                                           "seq": expected + 1, **params}, write=True)
            if rows or self._version() == expected:  # nothing matched: a refusal
                return rows
        raise StoreError(f"{name}: the namespace kept moving; retry later")

    def _version(self) -> int:
        rows = self.graph.query("memory/namespace_version", {"ns": self.ns})
        return int(rows[0]["version"]) if rows else 0

    def _do_forget(self, action: Action, world: WorldState) -> str:
        memory = self._target(action)
        rows = self._guarded("worlds/forget", {"agent": action.actor, "memory": memory})
        if not rows:
            raise InvalidInput(f"{action.actor} does not own memory {memory}")
        return f"forgot {memory} ({rows[0]['owners_left']} owner(s) keep it)"

    def _do_revise(self, action: Action, world: WorldState) -> str:
        memory = self._target(action)
        vector = [float(x) for x in self.graph.embedder.embed([action.args["text"]])[0]]
        rows = self._guarded("worlds/revise", {"agent": action.actor, "memory": memory,
                                               "text": action.args["text"],
                                               "embedding": vector})
        if not rows:
            raise InvalidInput(f"{action.actor} does not own memory {memory}")
        return f"revised {memory}"

    def _affiliated(self, agent: str, memory: str) -> list[dict]:
        return self.graph.query("worlds/affiliated", {"ns": self.ns, "agent": agent,
                                                      "memory": memory})

    def _do_get_affiliated(self, action: Action, world: WorldState) -> str:
        rows = self._affiliated(action.actor, self._target(action))
        return " | ".join(f"{r['id']}: {r['text']}" for r in rows) or "no affiliated memory"

    def _link(self, agent: str, memory: str, other: str, *, add: bool) -> bool:
        name = "worlds/link" if add else "worlds/unlink"
        return bool(self._guarded(name, {"agent": agent, "memory": memory, "other": other}))

    def _do_add_affiliated(self, action: Action, world: WorldState) -> str:
        memory = self._target(action)
        if not self._link(action.actor, memory, action.args["other"], add=True):
            raise InvalidInput(f"{action.actor} must own both {memory} and "
                               f"{action.args['other']}")
        return f"linked {memory} to {action.args['other']}"

    def _do_remove_affiliated(self, action: Action, world: WorldState) -> str:
        memory = self._target(action)
        if not self._link(action.actor, memory, action.args["other"], add=False):
            raise InvalidInput(f"no link between {memory} and {action.args['other']} "
                               f"that {action.actor} owns")
        return f"unlinked {memory} from {action.args['other']}"

    def _do_set_affiliated(self, action: Action, world: WorldState) -> str:
        memory = self._target(action)
        wanted = set(action.args["others"])
        now = {r["id"] for r in self._affiliated(action.actor, memory)}
        for other in sorted(now - wanted):
            self._link(action.actor, memory, other, add=False)
        added = [o for o in sorted(wanted - now) if self._link(action.actor, memory, o, add=True)]
        return f"{memory} now linked to {len(now & wanted) + len(added)} memories"


def world_time(world: WorldState, round: int) -> datetime:
    """Story time of a round: the world's start plus ``round_minutes`` per round."""
    start = world.meta.get("start")
    begin = datetime.fromisoformat(start) if start else WORLD_EPOCH
    return begin + timedelta(minutes=world.meta.get("round_minutes", 60) * round)


def insight_text(world: WorldState, agent: str, texts: list[str]) -> str:
    """A G-Memory style insight, without a model: who the round's deposits were about and
    where, as the depositor would sum it up."""
    names = {e.id: e.name for e in world.entities.values() if e.kind == "character"}
    met = sorted({n for t in texts for cid, n in names.items() if cid != agent and n in t})
    place = world.entities[agent].place or "nowhere"
    who = ", ".join(met) if met else "no one by name"
    return (f"Insight of round {world.round}: at {place} I dealt with {who} "
            f"({len(texts)} exchange{'s' if len(texts) != 1 else ''}).")
