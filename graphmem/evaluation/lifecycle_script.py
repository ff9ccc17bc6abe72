"""A scripted, seeded project-planning dialogue with its ground truth, for
``graphmem eval lifecycle`` (the long-running-agent paper's 500-turn experiment, LLM-free).

Several agents plan a project. Some turns state facts about *slots* (the launch date,
who owns a workstream, a budget, a tool choice, a meeting day, a head count); later
turns revise them, revert them to an earlier value, or restate the current one; most
turns are noise. Every fact type has several phrasings for a first statement, an
update (some name the old value too: "moved from March 3 to March 10"), a revert and
a question, so a result is not an artefact of one template. The text is generated
here, from these templates and a seed; nothing comes from a benchmark.

Ground truth: each fact turn asserts one (slot, value); at any turn the *current*
value of a slot is the one its latest fact turn asserted, and the *superseded* values
are the others it held before.

Owns: the templates, the generator, the ground truth. Imports only the standard library.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

AGENTS = ("pm", "eng", "design", "finance")
TURN_GAP = timedelta(hours=3)
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)

# kind -> phrasings; {s} the slot's subject, {v} the value, {o} the value it replaces
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "date": {
        "first": ("{S} is on {v}.", "We are planning {s} for {v}.",
                  "{S} is scheduled for {v}.", "Let's lock {s} in for {v}."),
        "update": ("{S} moved to {v}.", "{S} has been pushed to {v}.",
                   "Change of plan: {s} is now on {v}.", "We moved {s} from {o} to {v}."),
        "revert": ("{S} is back on {v}.", "We reverted {s} to {v} after all.",
                   "Scratch the last change, {s} returns to {v}."),
        "ask": ("When is {s}?", "What date did we set for {s}?"),
    },
    "owner": {
        "first": ("{v} owns {s}.", "{S} is led by {v}.", "{v} will take care of {s}.",
                  "We put {v} in charge of {s}."),
        "update": ("{v} is taking over {s}.", "{S} now belongs to {v}.",
                   "From today {v} leads {s} instead.", "{S} passes from {o} to {v}."),
        "revert": ("{v} is back in charge of {s}.", "We handed {s} back to {v}."),
        "ask": ("Who owns {s}?", "Who is in charge of {s}?"),
    },
    "budget": {
        "first": ("{S} is {v}.", "We set aside {v} for {s}.", "{S} was approved at {v}.",
                  "The plan gives {s} {v}."),
        "update": ("{S} was changed to {v}.", "We now have {v} for {s}.",
                   "{S} has been revised to {v}.", "{S} went from {o} to {v}."),
        "revert": ("{S} is restored to {v}.", "We went back to the original {v} for {s}."),
        "ask": ("What is {s}?", "How much money do we have for {s}?"),
    },
    "choice": {
        "first": ("We will use {v} as {s}.", "The team picked {v} for {s}.",
                  "{S} is {v}.", "We settled on {v} for {s}."),
        "update": ("We switched {s} to {v}.", "{S} is now {v}.",
                   "Decision revised: {s} will be {v}.", "We replaced {o} with {v} for {s}."),
        "revert": ("We are going back to {v} for {s}.", "{v} is {s} again."),
        "ask": ("Which one is {s}?", "What did we choose for {s}?"),
    },
    "day": {
        "first": ("{S} happens on {v}.", "We hold {s} every {v}.", "{S} is on {v}."),
        "update": ("{S} moves to {v}.", "From now on {s} is on {v}.",
                   "We shifted {s} from {o} to {v}."),
        "revert": ("{S} is back on {v}.", "We return {s} to {v}."),
        "ask": ("On which day is {s}?", "When do we hold {s}?"),
    },
    "count": {
        "first": ("We have {v} people on {s}.", "{S} has {v} people.",
                  "We staffed {s} with {v} people."),
        "update": ("{S} now has {v} people.", "We are at {v} people on {s} now.",
                   "{S} went from {o} to {v} people."),
        "revert": ("{S} is back to {v} people.", "We returned to {v} people on {s}."),
        "ask": ("How many people are on {s}?", "What is the head count of {s}?"),
    },
}

VALUES: dict[str, tuple[str, ...]] = {
    "date": ("March 3", "March 10", "March 17", "March 24", "April 7", "April 14", "May 5",
             "May 19", "June 2"),
    "owner": ("Maya", "Jonas", "Ravi", "Elena", "Sofia", "Kenji", "Amara", "Lukas"),
    "budget": ("$40,000", "$55,000", "$32,000", "$70,000", "$48,000", "$25,000"),
    "choice": (),  # per slot below
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    "count": ("3", "5", "7", "9", "4", "6", "12"),
}

# (slot id, kind, subject, values for choice slots)
SLOTS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("launch", "date", "the launch", ()),
    ("beta", "date", "the public beta", ()),
    ("review", "date", "the design review", ()),
    ("owner_backend", "owner", "the backend workstream", ()),
    ("owner_onboarding", "owner", "the onboarding flow", ()),
    ("owner_billing", "owner", "the billing integration", ()),
    ("budget_marketing", "budget", "the marketing budget", ()),
    ("budget_cloud", "budget", "the cloud spending limit", ()),
    ("database", "choice", "our main database", ("Postgres", "MySQL", "MongoDB", "SQLite")),
    ("hosting", "choice", "the hosting provider", ("Hetzner", "Vercel", "Render", "Fly")),
    ("sync", "day", "the weekly sync", ()),
    ("qa", "count", "the QA team", ()),
)

NOISE = (
    "Can someone share the notes from the {t} meeting?", "I'll update the {t} slides tonight.",
    "The {t} mockups look much cleaner now.", "Let's keep the {t} discussion short today.",
    "I am still waiting for feedback on the {t} draft.", "Good point about the {t} risks.",
    "Who has the link to the {t} board?", "I added a few comments to the {t} document.",
    "We should write down the open questions about the {t}.",
    "The {t} tickets need better descriptions.", "Thanks, that helps with the {t}.",
    "I will pair with someone on the {t} tomorrow.", "Any blockers on the {t}?",
    "The demo of the {t} went well.", "Let's revisit the {t} after lunch.",
)
NOISE_TOPICS = ("roadmap", "onboarding", "pricing page", "release notes", "support inbox",
                "analytics dashboard", "partner email", "hiring plan", "test plan",
                "landing page", "security review", "customer interviews", "style guide")


@dataclass(frozen=True)
class Turn:
    index: int
    agent: str
    text: str
    at: datetime
    slot: str | None = None  # a fact turn asserts (slot, value)
    value: str | None = None
    move: str = "noise"  # noise, first, update, revert, restate


@dataclass
class Dialogue:
    seed: int
    turns: list[Turn]
    subjects: dict[str, str]  # slot -> subject
    kinds: dict[str, str]  # slot -> kind
    asks: dict[str, tuple[str, ...]] = field(default_factory=dict)  # slot -> questions

    def state(self, upto: int) -> dict[str, tuple[str, set[str]]]:
        """slot -> (current value, superseded values) after turns [0, upto)."""
        out: dict[str, tuple[str, set[str]]] = {}
        for turn in self.turns[:upto]:
            if turn.slot is None:
                continue
            assert turn.value is not None  # a turn with a slot states a value
            current, old = out.get(turn.slot, (turn.value, set()))
            if current != turn.value:
                old = (old | {current}) - {turn.value}
            out[turn.slot] = (turn.value, old)
        return out


def _say(template: str, subject: str, value: str, old: str | None) -> str:
    text = template.format(s=subject, S=subject[0].upper() + subject[1:], v=value, o=old)
    return text[0].upper() + text[1:]


def generate(seed: int, turns: int = 500, fact_share: float = 0.35) -> Dialogue:
    """The dialogue for ``seed``: ``turns`` turns, about ``fact_share`` of them facts."""
    rng = random.Random(seed)
    slots = list(SLOTS)
    rng.shuffle(slots)
    subjects = {s: subj for s, _, subj, _ in slots}
    kinds = {s: kind for s, kind, _, _ in slots}
    values = {s: list(own or VALUES[kind]) for s, kind, _, own in slots}
    history: dict[str, list[str]] = {}
    out: list[Turn] = []
    for i in range(turns):
        agent = rng.choice(AGENTS)
        at = START + i * TURN_GAP
        if rng.random() >= fact_share:
            text = rng.choice(NOISE).format(t=rng.choice(NOISE_TOPICS))
            out.append(Turn(i, agent, text[0].upper() + text[1:], at))
            continue
        unstated = [s for s, *_ in slots if s not in history]
        if unstated and (not history or rng.random() < 0.5):
            slot, move = unstated[0], "first"
        else:
            slot = rng.choice(sorted(history))
            move = rng.choices(("update", "revert", "restate"), (0.55, 0.2, 0.25))[0]
        past = history.setdefault(slot, [])
        current = past[-1] if past else None
        earlier = [v for v in dict.fromkeys(past) if v != current]
        if move == "revert" and not earlier:
            move = "update"
        if move == "first":
            value = rng.choice(values[slot])
        elif move == "update":
            value = rng.choice([v for v in values[slot] if v not in past] or
                               [v for v in values[slot] if v != current])
        elif move == "revert":
            value = rng.choice(earlier)
        else:
            assert current is not None  # restated: it was stated before
            value = current
        kind = "first" if move in ("first", "restate") else move
        template = rng.choice(TEMPLATES[kinds[slot]][kind])
        text = _say(template, subjects[slot], value, current)
        if move == "restate":
            keep = text.startswith(value)  # a name or a product opens the sentence
            text = rng.choice(("Just to confirm: ", "Reminder: ", "As agreed, ")) + (
                text if keep else text[0].lower() + text[1:])
        past.append(value)
        out.append(Turn(i, agent, text, at, slot, value, move))
    asks = {s: tuple(_say(q, subjects[s], "", None) for q in TEMPLATES[kinds[s]]["ask"])
            for s in subjects}
    return Dialogue(seed, out, subjects, kinds, asks)
