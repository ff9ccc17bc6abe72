"""What the write path learns from each atom besides its words: the entities it
mentions (resolved per namespace) and the time it names (resolved against the deposit's
own date)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Sequence

from graphmem.text.entities import extract_entities_batch
from graphmem.text.entity_resolution import EntityResolver, abbreviation_rule, name_key
from graphmem.text.nlp import Parser
from graphmem.text.times import normalise_time
from graphmem.text.timespan import TimeSpan


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
                   resolver: EntityResolver, known_people: Iterable[str] = (),
                   parser: Parser | None = None) -> list[AtomMeaning]:
    """Entities and time of each atom. New entities are added to ``resolver``."""
    people = [p for p in known_people if p]
    found = extract_entities_batch(list(atoms), speakers=[speaker] * len(atoms),
                                   known_people=people, parser=parser)
    out = []
    for atom, mentions in zip(atoms, found):
        resolved = {}
        for mention in mentions:
            full = known_full_name(mention.name, mention.type, people, resolver)
            if full is not None:
                resolver.resolve(full, type="person")  # "Mel" then joins Melanie, not a new entity
            entity_id = resolver.resolve(mention)
            entity = resolver.entity(entity_id)
            resolved[entity_id] = Mention(entity_id, entity.name, entity.type)
        span = normalise_time(atom, reference) if reference is not None else None
        out.append(AtomMeaning(tuple(resolved.values()), span))
    return out


def known_full_name(name: str, entity_type: str, people: Sequence[str],
                    resolver: EntityResolver) -> str | None:
    """The one known person ``name`` is a short form of ("Mel" of Melanie), by the
    resolver's own rules, when no entity is named ``name`` yet; else None. The people
    are the deposit's speaker and witnesses, so the answer does not depend on which
    of their names the conversation happened to use first."""
    key = name_key(name)
    if entity_type not in ("person", "unknown") or resolver.find(name, type=entity_type) is not None:
        return None
    matches = {person for person in people if abbreviation_rule(
        key, name_key(person), "person", "person", resolver.nicknames, resolver.min_prefix)}
    return matches.pop() if len(matches) == 1 else None


@dataclass(frozen=True)
class QueryMention:
    """A known entity named in a question, with where it is named."""

    id: str
    start: int
    end: int


_NAME_WORD = re.compile(r"[A-Z][\w'’.-]*")


def query_entities(query: str, resolver: EntityResolver) -> list[QueryMention]:
    """The known entities a question names, in order (nothing is created).

    Questions are short and their entities are already known to the namespace, so runs
    of capitalised words are looked up in the resolver (longest run first) instead of
    running the NER model on every query: a dictionary lookup, not a model call.
    """
    words = [(m.start(), m.end()) for m in _NAME_WORD.finditer(query)]
    found: list[QueryMention] = []
    i = 0
    while i < len(words):
        for width in (3, 2, 1):
            run = words[i:i + width]
            if len(run) < width or any(query[a[1]:b[0]].strip() for a, b in zip(run, run[1:])):
                continue
            start, end = run[0][0], run[-1][1]
            entity_id = resolver.find(query[start:end].rstrip(".'’"))
            if entity_id is not None:
                found.append(QueryMention(entity_id, start, end))
                i += width
                break
        else:
            i += 1
    return found


def without_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with the given character spans removed (and spaces tidied)."""
    out, cursor = [], 0
    for start, end in sorted(spans):
        out.append(text[cursor:start])
        cursor = max(cursor, end)
    out.append(text[cursor:])
    return " ".join("".join(out).split())
