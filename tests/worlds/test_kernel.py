"""The round-barrier kernel on small worlds: order independence, delays, threads, the
scheduled cast, carriers, and the short-term cache."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.errors import InvalidInput
from graphmem.worlds.actions import REPERTOIRE, Action
from graphmem.worlds.kernel import Kernel
from graphmem.worlds.model import Entity, WorldMap, WorldState
from graphmem.worlds.shortterm import CachedPair, ShortTerm

PLACES = ["hall", "garden", "harbour"]
DIST = {"hall": {"garden": 1, "harbour": 3}, "garden": {"hall": 1, "harbour": 2},
        "harbour": {"hall": 3, "garden": 2}}


def small_world(n: int, *, carriers: int = 1) -> WorldState:
    entities = {f"c{i}": Entity(f"c{i}", f"Char {i}", "character", place=PLACES[i % 3])
                for i in range(n)}
    entities.update({p: Entity(p, p.title(), "environment", place=p) for p in PLACES})
    for k in range(carriers):
        entities[f"letter{k}"] = Entity(f"letter{k}", "a letter", "carrier", place="hall",
                                        text=f"meet me at dawn ({k})", holder="c0")
    return WorldState(name="test", round=0, entities=entities, map=WorldMap(PLACES, DIST))


class RandomPolicy:
    """Chooses world actions from the observation's own rng: a pure function of it."""

    def decide(self, obs):
        rng, me, world = obs.rng, obs.actor, obs.world
        others = [c for c in world.awake() if c != me] or [me]
        actions = []
        for _ in range(rng.randint(1, 3)):
            kind = rng.choice(["move", "say", "gesture", "read", "write", "give", "reread",
                               "push_goal", "pop_goal", "set_status", "wait"])
            args = {"move": lambda: {"place": rng.choice(PLACES)},
                    "say": lambda: {"to": rng.sample(others, 1), "text": f"r{obs.round} {me}"},
                    "gesture": lambda: {"to": rng.choice(others), "text": "a nod"},
                    "read": lambda: {"carrier": "letter0"},
                    "write": lambda: {"carrier": "letter0", "text": f"{me} was here"},
                    "give": lambda: {"carrier": "letter0", "to": rng.choice(others)},
                    "reread": lambda: {"with": rng.choice(others)},
                    "push_goal": lambda: {"goal": f"find {rng.choice(others)}"},
                    "pop_goal": dict, "wait": dict,
                    "set_status": lambda: {"key": "mood", "value": rng.choice("ab")}}[kind]()
            actions.append(Action(me, kind, args))
        if obs.round == 2 and rng.random() < 0.2:
            actions.append(Action(me, "leave", {"reason": "done"}))
        return actions


def run(world: WorldState, orders, seed: int) -> tuple[dict, list]:
    kernel = Kernel(world, RandomPolicy(), seed=seed)
    for order in orders:
        awake = kernel.world.awake()
        kernel.step([a for a in order if a in awake])
    return kernel.world.to_dict(), kernel.events


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 10_000), data=st.data())
def test_stepping_order_does_not_change_the_outcome(n, seed, data):
    ids = [f"c{i}" for i in range(n)]
    orders = [data.draw(st.permutations(ids)) for _ in range(4)]
    assert run(small_world(n), orders, seed) == run(small_world(n), [sorted(ids)] * 4, seed)


def test_same_seed_same_run_other_seed_other_run():
    ids = [f"c{i}" for i in range(4)]
    a = run(small_world(4), [ids] * 4, 7)
    assert a == run(small_world(4), [ids] * 4, 7)
    assert a != run(small_world(4), [ids] * 4, 8)


class Scripted:
    def __init__(self, plan):
        self.plan = plan  # (round, actor) -> [Action]

    def decide(self, obs):
        return self.plan.get((obs.round, obs.actor), [])


def test_messages_arrive_next_round_delayed_by_distance_and_are_threaded():
    world = small_world(3)  # c0 hall, c1 garden (1 away), c2 harbour (3 away)
    plan = {(0, "c0"): [Action("c0", "say", {"to": ["c1", "c2"], "text": "hello"})],
            (0, "c1"): [Action("c1", "move", {"place": "harbour"})]}
    kernel = Kernel(world, Scripted(plan), delay_per_unit=1.0)
    delivered = {}
    for r in range(5):
        kernel.step()
        for c, ms in kernel.world.inboxes.items():
            delivered.setdefault(c, []).extend((r, m.text) for m in ms)
    # c1 was 1 away when it was said (its move applied after the decision), c2 3 away
    assert delivered == {"c1": [(2, "hello")], "c2": [(4, "hello")]}
    messages = sorted(kernel.world.messages.values(), key=lambda m: m.seq)
    assert [(m.recipients, m.deliver_round) for m in messages] == [(["c1"], 2), (["c2"], 4)]
    assert [m.text for m in kernel.world.thread("c2", "c0")] == ["hello"]
    assert kernel.world.thread("c1", "c2") == []


def test_inbox_holds_a_message_in_its_delivery_round():
    world = small_world(2)
    world.entities["c1"].place = "hall"
    plan = {(0, "c0"): [Action("c0", "say", {"to": "c1", "text": "now"})]}
    got = {}

    class Watch(Scripted):
        def decide(self, obs):
            got[(obs.round, obs.actor)] = [m.text for m in obs.inbox]
            return super().decide(obs)

    kernel = Kernel(world, Watch(plan))
    for _ in range(3):
        kernel.step()
    assert got[(0, "c1")] == [] and got[(1, "c1")] == ["now"] and got[(2, "c1")] == []


def test_only_awake_characters_are_scheduled():
    world = small_world(3)
    world.entities["c1"].alive = False
    world.entities["c2"].present = False
    asked = []

    class Log:
        def decide(self, obs):
            asked.append(obs.actor)
            return [Action(obs.actor, "leave")] if obs.round == 0 else []

    kernel = Kernel(world, Log())
    kernel.step()
    kernel.step()
    assert asked == ["c0"]  # environments, carriers, the dead and the absent never decide
    assert kernel.world.awake() == []
    with pytest.raises(InvalidInput):
        Kernel(small_world(2), Log()).step(["c0"])  # an order must list every awake one


def test_effects_show_next_round_and_carriers_resolve_in_the_apply_step():
    world = small_world(2)
    world.entities["c1"].place = "hall"
    plan = {(0, "c0"): [Action("c0", "write", {"carrier": "letter0", "text": "PS"}),
                        Action("c0", "move", {"place": "garden"})],
            (0, "c1"): [Action("c1", "read", {"carrier": "letter0"})],
            (1, "c1"): [Action("c1", "read", {"carrier": "letter0"})]}
    kernel = Kernel(world, Scripted(plan))
    kernel.step()
    kernel.step()
    reads = [e["result"] for e in kernel.events if e["kind"] == "read"]
    assert reads == ["meet me at dawn (0)", "meet me at dawn (0)\nPS"]
    assert kernel.world.entities["c0"].place == "garden"


def test_refused_actions_are_results_not_crashes():
    world = small_world(2)  # c1 is in the garden, the letter in the hall held by c0
    plan = {(0, "c1"): [Action("c1", "read", {"carrier": "letter0"}),
                        Action("c1", "move", {"place": "moon"})]}
    kernel = Kernel(world, Scripted(plan))
    kernel.step()
    assert all(e["result"].startswith("refused") for e in kernel.events)


def test_bad_actions_are_refused_when_built():
    with pytest.raises(InvalidInput, match="unknown action"):
        Action("c0", "fly")
    with pytest.raises(InvalidInput, match="missing"):
        Action("c0", "say", {"to": ["c1"]})
    with pytest.raises(InvalidInput, match="'memory'"):
        Action("c0", "forget")
    assert {"remember", "recall", "forget", "revise", "add_affiliated", "remove_affiliated",
            "set_affiliated", "get_affiliated"} <= set(REPERTOIRE)


def test_world_state_round_trips_through_json():
    kernel = Kernel(small_world(4), RandomPolicy(), seed=3)
    for _ in range(3):
        kernel.step()
    data = json.loads(json.dumps(kernel.world.to_dict()))
    assert WorldState.from_dict(data).to_dict() == kernel.world.to_dict()


def pairs(n):
    return [CachedPair(i, f"act{i}", "about the king" if i % 3 == 0 else "about fish")
            for i in range(n)]


def test_cache_keeps_twenty_pairs_fifo():
    mind = ShortTerm()
    evicted = [mind.remember_pair(p) for p in pairs(25)]
    assert len(mind.cache) == 20 and [p.round for p in mind.cache] == list(range(5, 25))
    assert [e.round for e in evicted if e] == [0, 1, 2, 3, 4]


def test_relevance_eviction_keeps_what_the_goal_is_about():
    mind = ShortTerm(eviction="relevance", capacity=4, goals=["the king"])
    for p in pairs(6):
        mind.remember_pair(p)
    assert [p.round for p in mind.cache] == [0, 3, 4, 5]  # the king pairs stay


def test_hybrid_eviction_weighs_recency_and_relevance():
    mind = ShortTerm(eviction="hybrid", capacity=4, goals=["the king"])
    for p in pairs(6):
        mind.remember_pair(p)
    assert len(mind.cache) == 4 and mind.cache[-1].round == 5
    assert 3 in [p.round for p in mind.cache]  # relevant and recent
    with pytest.raises(InvalidInput):
        ShortTerm(eviction="lru")
