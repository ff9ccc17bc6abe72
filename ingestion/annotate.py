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


def query_entities(query: str, resolver: EntityResolver,
                   known_people: Iterable[str] = ()) -> list[str]:
    """Ids of the known entities a question names (nothing is created)."""
    mentions = extract_entities_batch([query], known_people=[p for p in known_people if p])[0]
    ids = [resolver.find(m) for m in mentions]
    return list(dict.fromkeys(i for i in ids if i is not None))
