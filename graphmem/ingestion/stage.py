"""Who is on stage: a small state machine driven by a play's stage directions.

The TEI play (Folger/DraCor encoding) marks every entrance and exit with ``who=``
references; this module turns them, in document order, into the set of characters
present. It knows nothing about XML: the parser feeds it character ids.

Rules, each one read off the Hamlet TEI:

- A scene starts with an empty stage (every scene of Hamlet opens with an entrance and
  closes with an exit; the dead are carried off between scenes).
- An exit removes exactly the ids it names. Naming a group (``PLAYERS``) also removes the
  members that joined *through* the group (a player who spoke while the troupe was on
  stage), but not a member brought on by an entrance of its own: in 2.2 "Polonius and
  Players exit" while the First Player, who entered by name, stays for Hamlet's request.
  Naming a member whose group is on stage (``ATTENDANTS.0`` for "some Attendants") leaves
  the group on stage: the rest of it stays.
- The dead leave: a business direction saying someone "dies" removes its ``who``; one
  saying someone "kills" a person removes the victim, found as the named person in the
  text (Polonius behind the arras). A corpse carried on ("the corpse of Ophelia") does not
  enter.
- A speaker who is not on stage enters unannounced, and stays until an exit or the end
  of the scene, unless the speech is marked as a voice from off (``type="location"``:
  "within", "beneath"): then the speaker is present for that speech only.
- Directions without ``who`` (not in Hamlet's TEI, common in other encodings): an entrance
  brings on the characters it names; "exeunt", "all" or "they" clear the stage, "all but
  X" or "manet X" keep X, and a bare "Exit" takes off the current (or last) speaker.
"""

from __future__ import annotations

import re

CHARACTER_SEPARATOR = "."


class StageState:
    """The characters present in one scene, updated direction by direction."""

    def __init__(self) -> None:
        self._present: dict[str, None] = {}  # ordered set: order of arrival
        self._named: set[str] = set()  # brought on by an entrance naming them

    @property
    def present(self) -> frozenset[str]:
        """The ids on stage now."""
        return frozenset(self._present)

    def enter(self, agents: list[str]) -> None:
        """Bring the named characters on."""
        for agent in agents:
            self._present[agent] = None
            self._named.add(agent)

    def exit(self, agents: list[str]) -> None:
        """Take the named characters off, with members who came on through a group."""
        for agent in agents:
            self._present.pop(agent, None)
            prefix = agent + CHARACTER_SEPARATOR
            for member in [a for a in self._present if a.startswith(prefix)]:
                if member not in self._named:
                    del self._present[member]

    def remove_dead(self, agents: list[str]) -> None:
        """The dead no longer witness anything."""
        for agent in agents:
            self._present.pop(agent, None)

    def join_speaker(self, agent: str) -> None:
        """A speaker not yet on stage comes on unannounced (or out of its group)."""
        if agent not in self._present:
            self._present[agent] = None


def dead_in(direction: str, who: list[str], names: dict[str, str]) -> list[str]:
    """Ids that a business direction kills: all of ``who`` for "dies", the victim for "kills"."""
    if re.search(r"\bdies\b", direction, re.IGNORECASE):
        return list(who)
    victims = re.search(r"\bkills\b(.*)", direction, re.IGNORECASE)
    if victims:
        return [a for a in who if names.get(a) and names[a] in victims.group(1)]
    return []


def corpses_in(direction: str, who: list[str], names: dict[str, str]) -> list[str]:
    """Ids an entrance brings on as a corpse ("the corpse of Ophelia")."""
    return [a for a in who if names.get(a) and re.search(
        r"\bcorpse of\s+" + re.escape(names[a].split()[-1]), direction)]


def named_in(text: str, names: dict[str, str]) -> list[str]:
    """Agents whose display name, or its last word, occurs in a direction's text."""
    return [a for a, name in names.items()
            if re.search(rf"\b(?:{re.escape(name)}|{re.escape(name.split()[-1])})\b", text)]


def leaving_without_who(text: str, state: StageState, names: dict[str, str],
                        speakers: list[str]) -> list[str]:
    """Who an exit without ``who`` takes off: "all but X"/"manet X" keep X, "exeunt" or
    "all" clear the stage, a bare "Exit" takes the current (or last) speaker."""
    present = sorted(state.present)
    kept = re.search(r"\b(?:all but|manet|manent)\b(.*)", text, re.IGNORECASE)
    if kept:
        stay = set(named_in(kept.group(1), {a: names[a] for a in present}))
        return [a for a in present if a not in stay]
    if re.search(r"\b(?:exeunt|all|they)\b", text, re.IGNORECASE):
        return present
    return list(speakers)
