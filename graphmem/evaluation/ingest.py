"""Put one benchmark unit into memory through the normal write path, and map it back.

Every turn is deposited with ``MemoryGraph.remember`` by its speaker, with every other
agent of the unit as a witness (so both LoCoMo speakers, or PrefEval's user and assistant,
own what was said in front of them), at the turn's time, with the `CONTEXT_TURNS` turns
before it in the same session as its ``context`` (indexed for search, not remembered).
The memory ids each turn's `RememberResult` returned are kept: `TurnMap` inverts them,
so a recalled memory stands for every turn that produced it.

Embedding the atoms one deposit at a time is most of the cost of ingestion, so turns go
through ``remember_many``, which embeds a batch's statements together and then remembers
each deposit in order exactly as ``remember`` does.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from graphmem.ingestion.benchmarks.model import Turn, Unit
from graphmem.models import MAX_TEXT_CHARS

__all__ = ["CONTEXT_TURNS", "TurnMap", "agent_kind", "ingest_unit", "namespace_for",
           "previous_turns"]

_NS_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_KINDS = {"assistant": "ai", "system": "service"}


@dataclass
class TurnMap:
    """Which memories each turn produced, and which turns each memory stands for."""

    memories_of_turn: dict[str, list[str]] = field(default_factory=dict)
    turns_of_memory: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    session_of: dict[str, str] = field(default_factory=dict)
    text_of: dict[str, str] = field(default_factory=dict)

    def add(self, turn: Turn, memory_ids: Iterable[str]) -> None:
        """Record that ``turn`` produced ``memory_ids``."""
        ids = list(dict.fromkeys(memory_ids))
        self.memories_of_turn[turn.id] = ids
        self.session_of[turn.id] = turn.session
        self.text_of[turn.id] = turn.text
        for memory_id in ids:
            if turn.id not in self.turns_of_memory[memory_id]:
                self.turns_of_memory[memory_id].append(turn.id)


def namespace_for(benchmark: str, unit_id: str) -> str:
    """``eval-<benchmark>-<unit id>`` with characters outside [A-Za-z0-9_.-] as '-'."""
    return _NS_UNSAFE.sub("-", f"eval-{benchmark}-{unit_id}")[:200]


def agent_kind(benchmark: str, agent: str) -> str:
    """LoCoMo speakers and every 'user' are humans; assistants are ai; 'system' a service."""
    if benchmark == "locomo":
        return "human"
    return _KINDS.get(agent, "human")


#: How many turns before a turn, in its session, are passed as its ``context``. Chosen on
#: LoCoMo conv-26/30 (recall_all@10: 0.692 with one turn, 0.735 with two, 0.738 with
#: three; two is the smaller window within noise of the best) and checked on the other
#: six (0.677, 0.711, 0.704). A reply often answers the turn before last ("They were
#: stoked!" after "What were they stoked about?" after "I took the kids to the museum").
CONTEXT_TURNS = 2


def previous_turns(turns: Sequence[Turn], window: int = CONTEXT_TURNS) -> dict[str, str]:
    """Turn id -> the text of up to ``window`` turns before it in the same session,
    oldest first (what it answers). Blank turns are left out; a session's first turn
    has no context."""
    if window < 1:
        raise ValueError(f"window must be at least 1 turn, got {window}")
    out: dict[str, str] = {}
    recent: list[Turn] = []
    for turn in turns:
        if recent and recent[-1].session != turn.session:
            recent = []
        if recent:
            # the newest words count most: a long context keeps its end
            out[turn.id] = " ".join(t.text for t in recent)[-MAX_TEXT_CHARS:]
        if turn.text.strip():
            recent = [*recent, turn][-window:]
    return out


def ingest_unit(graph, unit: Unit, ns: str, *, progress: Callable[[int], None] | None = None,
                batch: int = 128) -> tuple[TurnMap, int]:
    """Register the unit's agents and deposit every turn; returns (TurnMap, empty turns).

    Turns go through ``MemoryGraph.remember_many`` — ``remember`` one deposit at a time,
    with each batch's statements embedded together first — in order. Turns whose text is
    blank are not deposited (``remember`` refuses empty text) and are counted; a question
    whose evidence is such a turn can then never be found.
    """
    speakers = list(dict.fromkeys([*unit.agents, *(t.speaker for t in unit.turns)]))
    for agent in speakers:
        graph.register_agent(agent, kind=agent_kind(unit.benchmark, agent), name=agent, ns=ns)
    turn_map = TurnMap()
    kept = [turn for turn in unit.turns if turn.text.strip()]
    for turn in unit.turns:
        if not turn.text.strip():
            turn_map.add(turn, ())
    previous = previous_turns(unit.turns)
    for start in range(0, len(kept), batch):
        chunk = kept[start:start + batch]
        pieces = [(turn, piece) for turn in chunk for piece in text_pieces(turn.text)]
        deposits = [{"agent": turn.speaker, "text": piece, "at": turn.at,
                     "witnesses": [a for a in speakers if a != turn.speaker],
                     "context": previous.get(turn.id)} for turn, piece in pieces]
        memories: dict[str, list[str]] = {}
        for (turn, _), result in zip(pieces, graph.remember_many(deposits, ns=ns, batch=batch)):
            memories.setdefault(turn.id, []).extend(result.memory_ids)
        for turn in chunk:
            turn_map.add(turn, memories[turn.id])
        if progress:
            progress(len(chunk))
    return turn_map, len(unit.turns) - len(kept)


_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def text_pieces(text: str, limit: int = MAX_TEXT_CHARS) -> list[str]:
    """``text`` as deposits of at most ``limit`` characters: whole when it fits, else cut
    between sentences (between words inside a longer sentence; a longer word is cut),
    so that one oversized turn does not stop an evaluation."""
    text = text.strip()
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        for part in _cut(sentence, limit):
            if current and len(current) + 1 + len(part) > limit:
                pieces.append(current)
                current = part
            else:
                current = f"{current} {part}" if current else part
    return [*pieces, current] if current else pieces


def _cut(sentence: str, limit: int) -> list[str]:
    if len(sentence) <= limit:
        return [sentence]
    words: list[str] = []
    for word in sentence.split():
        words.extend(word[i:i + limit] for i in range(0, len(word), limit))
    return words
