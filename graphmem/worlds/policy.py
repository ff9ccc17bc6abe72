"""The deterministic policy: characters follow the held-out rest of the source.

Each round a character, in this order:

1. remembers every message that reached it (``Hamlet said: "..."``, its own account,
   no witnesses: sharing comes only from the memory design);
2. on its first beat at a place, pushes the goal of acting there and recalls what it
   knows about what it is about to say (the first clause of its line);
3. for each of its beats this round: reads the carrier that holds the line, if it has
   one at hand; says the line to the listeners the source puts on stage; remembers
   ``I said: "..."``;
4. moves to the place of its next beat when that is elsewhere (dropping the goal);
5. leaves the world when the source has nothing more for it and nothing is on its way
   to it (it keeps its memories).

Everything it decides is read off the frozen world and the script, so it is a pure
function of (world, round, actor).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from graphmem.worlds.actions import Action
from graphmem.worlds.kernel import Observation
from graphmem.worlds.script import Beat

CLAUSE = re.compile(r"^(.{12,120}?)[.;:!?,](\s|$)")


def first_clause(text: str, limit: int = 120) -> str:
    """The first clause of a line, as a recall query."""
    found = CLAUSE.match(text)
    return (found.group(1) if found else text[:limit]).strip()


class ScriptPolicy:
    """Follow ``script`` (beats by round); ``recall`` on entering a scene."""

    def __init__(self, script: Sequence[Beat], *, recall: bool = True) -> None:
        self.recall = recall
        self.by_actor: dict[str, list[Beat]] = defaultdict(list)
        for beat in sorted(script, key=lambda b: (b.round, b.speech)):
            self.by_actor[beat.speaker].append(beat)
        # where each character is needed, by round: as speaker or listener
        self.needed: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for beat in script:
            for agent in (beat.speaker, *beat.listeners):
                self.needed[agent].append((beat.round, beat.place))
        for rows in self.needed.values():
            rows.sort()

    def decide(self, obs: Observation) -> list[Action]:
        me, r, world = obs.actor, obs.round, obs.world
        names = {e.id: e.name for e in world.entities.values()}
        actions = [self._heard(me, m, names) for m in obs.inbox]
        mine = [b for b in self.by_actor.get(me, []) if b.round == r]
        here = world.entities[me].place
        if mine and self._arrived(me, r, mine[0].place):
            actions.append(Action(me, "push_goal", {"goal": f"play my part at {mine[0].place}"}))
            if self.recall:
                actions.append(Action(me, "recall", {"query": first_clause(mine[0].text)}))
        for beat in mine:
            actions.extend(self._speak(me, beat, world))
        upcoming = [p for rr, p in self.needed.get(me, []) if rr > r]
        if upcoming and upcoming[0] != here:
            if obs.mind.goal:
                actions.append(Action(me, "pop_goal"))
            actions.append(Action(me, "move", {"place": upcoming[0]}))
        if not upcoming and not mine and not self._awaiting(me, world):
            actions.append(Action(me, "leave", {"reason": "the source has no more for me"}))
        return actions or [Action(me, "wait")]

    def _arrived(self, me: str, r: int, place: str) -> bool:
        """Whether round ``r`` is the first round ``me`` is needed at ``place`` in a row."""
        before = [p for rr, p in self.needed.get(me, []) if rr < r]
        return not before or before[-1] != place

    @staticmethod
    def _heard(me: str, message, names: dict[str, str]) -> Action:
        verb = "said" if message.kind == "say" else "gestured"
        # the memory is of the moment it was said, where it was said (it reached the
        # listener later): the speaker's own account of it then merges with it
        return Action(me, "remember",
                      {"text": f'{names.get(message.sender, message.sender)} {verb}: '
                               f'"{message.text}"', "round": message.sent_round,
                       "place": message.place})

    @staticmethod
    def _speak(me: str, beat: Beat, world) -> list[Action]:
        actions = []
        for carrier in world.entities.values():
            if (carrier.kind == "carrier" and carrier.text == beat.text
                    and (carrier.holder == me or carrier.place == world.entities[me].place)):
                actions.append(Action(me, "read", {"carrier": carrier.id}))
        listeners = [a for a in beat.listeners
                     if a in world.entities and world.entities[a].kind == "character"]
        if listeners:
            actions.append(Action(me, "say", {"to": listeners, "text": beat.text}))
        actions.append(Action(me, "remember", {"text": f'I said: "{beat.text}"'}))
        return actions

    @staticmethod
    def _awaiting(me: str, world) -> bool:
        return any(me in m.recipients for m in world.in_flight)
