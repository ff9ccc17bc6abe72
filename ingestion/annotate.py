"""What the write path learns from each atom besides its words: the entities it
mentions (resolved per namespace) and the time it names (resolved against the deposit's
own date)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Sequence

from graphmem.ingestion.entities import extract_entities_batch
from graphmem.ingestion.entity_resolution import EntityResolver
from graphmem.ingestion.times import normalise_time
from graphmem.ingestion.timespan import TimeSpan


@dataclass(frozen=True)
class Mention:
    """An entity an atom mentions, as stored: id, canonical name, type."""

    id: str
    name: str
    type: str


@dataclass(frozen=True)
class AtomMeaning:
    mentions: tuple[Mention, ...]
    span: TimeSpan | None


def annotate_atoms(atoms: Sequence[str], *, speaker: str | None, reference: datetime | None,
                   resolver: EntityResolver, known_people: Iterable[str] = ()) -> list[AtomMeaning]:
    """Entities and time of each atom. New entities are added to ``resolver``."""
    people = [p for p in known_people if p]
    found = extract_entities_batch(list(atoms), speakers=[speaker] * len(atoms),
                                   known_people=people)
    out = []
    for atom, mentions in zip(atoms, found):
        resolved = {}
        for mention in mentions:
            entity_id = resolver.resolve(mention)
            entity = resolver.entity(entity_id)
            resolved[entity_id] = Mention(entity_id, entity.name, entity.type)
        span = normalise_time(atom, reference) if reference is not None else None
        out.append(AtomMeaning(tuple(resolved.values()), span))
    return out


@dataclass(frozen=True)
class QueryMention:
    """A known entity named in a question, with where it is named."""

    id: str
    start: int
    end: int


def query_entities(query: str, resolver: EntityResolver,
                   known_people: Iterable[str] = ()) -> list[QueryMention]:
    """The known entities a question names, in order (nothing is created)."""
    mentions = extract_entities_batch([query], known_people=[p for p in known_people if p])[0]
    found = []
    for mention in mentions:
        entity_id = resolver.find(mention)
        if entity_id is not None:
            found.append(QueryMention(entity_id, mention.start, mention.end))
    return found


def without_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with the given character spans removed (and spaces tidied)."""
    out, cursor = [], 0
    for start, end in sorted(spans):
        out.append(text[cursor:start])
        cursor = max(cursor, end)
    out.append(text[cursor:])
    return " ".join("".join(out).split())
