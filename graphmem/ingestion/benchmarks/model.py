"""The one shape every benchmark loader returns, and the evaluation harness consumes.

    LoadReport ── units: list[Unit]         what to ingest and ask; one namespace each
              ├── skipped: list[str]        one message per bad record left out (skip_bad=True)
              └── notes: dict[str, int]     repairs and oddities counted while loading

    Unit ── turns: tuple[Turn, ...]         the dialogue to remember, in order
        └── questions: tuple[Question, ...] asked after all turns are in memory

A `Turn.id` is the benchmark's own evidence id (LoCoMo ``D3:1``; LongMemEval
``<session_id>:<index>``; PersonaMem ``<shared_context_id>:<index>``; PrefEval
``pref:<i>`` / ``inter:<i>``), so `Question.evidence` can be checked against the ids of
what a recall returned. The models are frozen dataclasses: plain data, no behaviour
beyond small read-only helpers; `meta` holds the benchmark's extra fields untouched.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Turn:
    """One utterance: who said what, when, in which session."""

    id: str
    speaker: str
    text: str
    at: datetime | None
    session: str
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Question:
    """A question asked after the unit's turns are remembered.

    `evidence` holds turn ids of the same unit; `evidence_sessions` session ids.
    Multiple-choice questions carry `options` (shown to the answerer in this order) and
    `correct_option`, an index into `options`. `abstention` marks questions whose right
    reply is that the conversation does not say.
    """

    id: str
    text: str
    category: str
    evidence: tuple[str, ...]
    answer: str | None
    asked_at: datetime | None
    asker: str | None
    options: tuple[str, ...] = ()
    correct_option: int | None = None
    evidence_sessions: tuple[str, ...] = ()
    abstention: bool = False
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Unit:
    """What gets a fresh memory namespace: a dialogue and the questions asked about it."""

    id: str
    benchmark: str
    agents: tuple[str, ...]
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def turn_ids(self) -> set[str]:
        """The ids of this unit's turns, for checking evidence."""
        return {turn.id for turn in self.turns}


@dataclass
class LoadReport:
    """The units a loader produced, and what it skipped or repaired on the way."""

    units: list[Unit]
    skipped: list[str] = field(default_factory=list)
    notes: Counter[str] = field(default_factory=Counter)

    @property
    def n_turns(self) -> int:
        """Turns over all units."""
        return sum(len(unit.turns) for unit in self.units)

    @property
    def n_questions(self) -> int:
        """Questions over all units."""
        return sum(len(unit.questions) for unit in self.units)

    def questions_per_category(self) -> dict[str, int]:
        """Question counts by category, sorted by category name."""
        counts = Counter(q.category for unit in self.units for q in unit.questions)
        return dict(sorted(counts.items()))

    def summary(self) -> str:
        """One line for a CLI: units, turns, questions, skipped records, repairs."""
        line = (f"{len(self.units)} units, {self.n_turns} turns, {self.n_questions} questions; "
                f"skipped {len(self.skipped)} bad records")
        if self.notes:
            line += "; " + ", ".join(f"{k}={v}" for k, v in sorted(self.notes.items()))
        return line
