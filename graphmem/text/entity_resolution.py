"""Entity resolution: many mentions, one entity per real-world thing, per namespace.

``EntityResolver.resolve`` maps a mention to a stable entity id. Aliases are merged by
rules a reader can check: case, whitespace, a leading "the" and possessives ("Mel's");
a person's short name that is a prefix of the first name of exactly one known person
("Mel" -> "Melanie"), or that person's first name alone ("John" -> "John Smith");
common English nicknames ("Bob" -> "Robert"); an acronym of exactly one known name
("NYC" -> "New York City"); and aliases the caller registers (``add_alias``). Ambiguous
short names are not merged: they become entities of their own.

Resolution is stable: once a name has resolved to an entity it keeps resolving there.
A later, longer name never silently absorbs an earlier short one; ``suggest_merges``
proposes such merges and ``merge`` applies one and returns the ``Merge`` event the graph
stores to re-point MENTIONS edges.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping, Protocol

from graphmem.errors import InvalidInput

NICKNAMES: dict[str, tuple[str, ...]] = {
    "bob": ("robert",), "bobby": ("robert",), "rob": ("robert",), "robbie": ("robert",),
    "bill": ("william",), "billy": ("william",), "will": ("william",), "liam": ("william",),
    "liz": ("elizabeth",), "beth": ("elizabeth",), "betty": ("elizabeth",), "lizzie": ("elizabeth",),
    "jim": ("james",), "jimmy": ("james",), "jamie": ("james",), "mike": ("michael",),
    "mikey": ("michael",), "dave": ("david",), "danny": ("daniel",), "tom": ("thomas",),
    "tommy": ("thomas",), "tony": ("anthony",), "kate": ("katherine", "catherine", "kathryn"),
    "katie": ("katherine", "catherine", "kathryn"), "cathy": ("catherine",), "kathy": ("katherine",),
    "jen": ("jennifer",), "jenny": ("jennifer",), "joe": ("joseph",), "joey": ("joseph",),
    "jack": ("john",), "johnny": ("john",), "peggy": ("margaret",), "maggie": ("margaret",),
    "meg": ("margaret", "megan"), "dick": ("richard",), "rick": ("richard",), "ricky": ("richard",),
    "ted": ("edward", "theodore"), "eddie": ("edward",), "ed": ("edward",), "chuck": ("charles",),
    "charlie": ("charles", "charlotte"), "harry": ("henry", "harold"), "hank": ("henry",),
    "sue": ("susan", "suzanne"), "susie": ("susan",), "patty": ("patricia",), "trish": ("patricia",),
    "steve": ("steven", "stephen"), "andy": ("andrew",), "drew": ("andrew",), "matt": ("matthew",),
    "greg": ("gregory",), "jeff": ("jeffrey",), "larry": ("lawrence",), "jerry": ("gerald",),
    "nate": ("nathan", "nathaniel"), "becky": ("rebecca",), "abby": ("abigail",),
    "nick": ("nicholas",), "vicky": ("victoria",), "sandy": ("sandra",), "mandy": ("amanda",),
}
PERSONAL_TYPES = ("person", "unknown")


class MentionLike(Protocol):
    """Anything with a name and a type, such as an ``EntityMention``."""

    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...


@dataclass(frozen=True)
class Entity:
    """One resolved entity: id, canonical name, type, known aliases, and where it went."""

    id: str
    name: str
    type: str
    aliases: tuple[str, ...] = ()
    merged_into: str | None = None


@dataclass(frozen=True)
class Merge:
    """An entity absorbed by another: re-point its MENTIONS from ``absorbed`` to ``into``."""

    absorbed: str
    into: str
    reason: str


def name_key(name: str) -> str:
    """The matching form of a name: NFKC, casefolded, no possessive, no leading "the"."""
    text = unicodedata.normalize("NFKC", name).replace("’", "'").strip()
    text = re.sub(r"(?:'s|s')$", lambda m: "s" if m.group(0) == "s'" else "", text)
    text = re.sub(r"^the\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"[^\w&+'\-.\s]", "", text).strip(" .-'")
    return " ".join(text.split()).casefold()


def display_name(name: str) -> str:
    """A name as shown: whitespace collapsed, possessive dropped ("Mel's" -> "Mel")."""
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    return re.sub(r"(?:'s|’s)$", "", text)


def compatible(first: str, second: str) -> bool:
    """Types that may name the same entity: equal, or one of them unknown."""
    return first == second or "unknown" in (first, second)


@dataclass
class EntityResolver:
    """Mentions to stable entity ids for one namespace; see the module docstring."""

    namespace: str = "default"
    nicknames: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: NICKNAMES)
    min_prefix: int = 3
    _entities: dict[str, Entity] = field(default_factory=dict, repr=False)
    _by_key: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _first_words: list[str] = field(default_factory=list, repr=False)
    _by_first_word: dict[str, set[str]] = field(default_factory=dict, repr=False)
    _by_initials: dict[str, set[str]] = field(default_factory=dict, repr=False)
    merges: list[Merge] = field(default_factory=list)

    @classmethod
    def from_entities(cls, entities: Iterable[Entity], namespace: str = "default") -> EntityResolver:
        """A resolver that continues from stored entities (as returned by ``entities``)."""
        resolver = cls(namespace=namespace)
        for entity in entities:
            resolver._entities[entity.id] = entity
            for alias in (entity.name, *entity.aliases):
                resolver._index(name_key(alias), entity.id)
        return resolver

    def resolve(self, mention: MentionLike | str, type: str = "unknown") -> str:
        """The entity id of a mention (or of a bare name with ``type``), creating one if new."""
        name, entity_type = (mention, type) if isinstance(mention, str) else (mention.name, mention.type)
        key = name_key(name)
        if not key:
            raise InvalidInput(f"cannot resolve entity name {name!r}: it has no letters or digits")
        entity_id = self._lookup(key, entity_type) or self._match_longer(key, entity_type)
        if entity_id is None:
            return self._create(name, key, entity_type)
        self._learn(entity_id, name, key, entity_type)
        return entity_id

    def find(self, mention: MentionLike | str, type: str = "unknown") -> str | None:
        """The entity a mention names, or None; creates and learns nothing (for queries)."""
        name, entity_type = (mention, type) if isinstance(mention, str) else (mention.name, mention.type)
        key = name_key(name)
        if not key:
            return None
        return self._lookup(key, entity_type) or self._match_longer(key, entity_type)

    def know(self, entity: Entity) -> None:
        """Take in an entity resolved elsewhere (another process), keeping its id."""
        if entity.id not in self._entities:
            self._entities[entity.id] = entity
        for alias in (entity.name, *entity.aliases):
            key = name_key(alias)
            if key:
                self._index(key, entity.id)

    def resolve_all(self, mentions: Iterable[MentionLike]) -> list[str]:
        """``resolve`` for each mention, in order."""
        return [self.resolve(mention) for mention in mentions]

    def add_alias(self, alias: str, entity_id: str) -> None:
        """Make ``alias`` resolve to ``entity_id``; InvalidInput if it already names another."""
        target = self.canonical(entity_id)
        key = name_key(alias)
        if not key:
            raise InvalidInput(f"alias {alias!r} has no letters or digits")
        taken = [other for other in self._live(key) if other != target]
        if taken:
            raise InvalidInput(f"alias {alias!r} already names entity {taken[0]!r}; "
                               f"merge({taken[0]!r}, {target!r}) to join them instead")
        self._learn(target, alias, key, self._entities[target].type)

    def merge(self, absorbed: str, into: str, reason: str = "explicit") -> Merge:
        """Fold entity ``absorbed`` into ``into``; its names now resolve to ``into``."""
        source, target = self.canonical(absorbed), self.canonical(into)
        if source == target:
            raise InvalidInput(f"cannot merge {absorbed!r} into {into!r}: they are already one entity")
        old = self._entities[source]
        for alias in (old.name, *old.aliases):
            self._learn(target, alias, name_key(alias), old.type)
        self._entities[source] = replace(old, merged_into=target)
        event = Merge(source, target, reason)
        self.merges.append(event)
        return event

    def suggest_merges(self) -> list[Merge]:
        """Short-name entities that now match exactly one longer one by the alias rules."""
        suggestions = []
        for entity in self.entities():
            match = self._unique_longer(name_key(entity.name), entity.type, exclude=entity.id)
            if match:
                suggestions.append(Merge(entity.id, match[0], match[1]))
        return suggestions

    def canonical(self, entity_id: str) -> str:
        """The live entity ``entity_id`` now stands for (following merges)."""
        if entity_id not in self._entities:
            raise InvalidInput(f"unknown entity id {entity_id!r} in namespace {self.namespace!r}")
        while (target := self._entities[entity_id].merged_into) is not None:
            entity_id = target
        return entity_id

    def entity(self, entity_id: str) -> Entity:
        """The live entity for an id (following merges)."""
        return self._entities[self.canonical(entity_id)]

    def entities(self, *, include_merged: bool = False) -> list[Entity]:
        """Every entity, in creation order; merged-away ones only if asked."""
        return [entity for entity in self._entities.values() if include_merged or not entity.merged_into]

    def _live(self, key: str) -> list[str]:
        """Live entity ids that a key names, oldest first, without duplicates."""
        ids = [self.canonical(entity_id) for entity_id in self._by_key.get(key, [])]
        return list(dict.fromkeys(ids))

    def _lookup(self, key: str, entity_type: str) -> str | None:
        """An entity already known by exactly this key and a compatible type."""
        matches = [eid for eid in self._live(key) if compatible(self._entities[eid].type, entity_type)]
        same = [eid for eid in matches if self._entities[eid].type == entity_type]
        chosen = same or matches
        return chosen[0] if chosen else None

    def _match_longer(self, key: str, entity_type: str) -> str | None:
        """The one longer-named entity that a short name stands for, if exactly one."""
        match = self._unique_longer(key, entity_type)
        return match[0] if match else None

    def _unique_longer(self, key: str, entity_type: str, exclude: str | None = None) -> tuple[str, str] | None:
        """(entity id, rule) of the single live entity ``key`` abbreviates, else None."""
        found: dict[str, str] = {}
        for entity_id in self._abbreviation_candidates(key):
            entity = self._entities[entity_id]
            if entity_id == exclude or entity.merged_into or not compatible(entity.type, entity_type):
                continue
            for alias in (entity.name, *entity.aliases):
                rule = abbreviation_rule(key, name_key(alias), entity.type, entity_type,
                                         self.nicknames, self.min_prefix)
                if rule:
                    found.setdefault(entity_id, rule)
        return next(iter(found.items())) if len(found) == 1 else None

    def _abbreviation_candidates(self, key: str) -> set[str]:
        """Entities whose first word starts with ``key``, is a formal name of it, or whose
        initials spell it: the only ones the abbreviation rules can match (an index, so
        resolution stays fast in a namespace with many entities)."""
        if " " in key:
            return set()
        candidates = set(self._by_initials.get(key, ()))
        position = bisect.bisect_left(self._first_words, key)
        while position < len(self._first_words) and self._first_words[position].startswith(key):
            candidates |= self._by_first_word[self._first_words[position]]
            position += 1
        for formal in self.nicknames.get(key, ()):
            candidates |= self._by_first_word.get(formal, set())
        return {self.canonical(entity_id) for entity_id in candidates}

    def _create(self, name: str, key: str, entity_type: str) -> str:
        """A new entity for a name no rule matched."""
        base = f"{entity_type}:{key.replace(' ', '-')}"
        entity_id, suffix = base, 2
        while entity_id in self._entities:
            entity_id, suffix = f"{base}~{suffix}", suffix + 1
        self._entities[entity_id] = Entity(entity_id, display_name(name), entity_type)
        self._index(key, entity_id)
        return entity_id

    def _learn(self, entity_id: str, name: str, key: str, entity_type: str) -> None:
        """Remember ``name`` as an alias of the entity; firm up an unknown type."""
        entity = self._entities[entity_id]
        known = {name_key(alias) for alias in (entity.name, *entity.aliases)}
        aliases = entity.aliases if key in known else (*entity.aliases, display_name(name))
        new_type = entity_type if entity.type == "unknown" else entity.type
        self._entities[entity_id] = replace(entity, aliases=aliases, type=new_type)
        self._index(key, entity_id)

    def _index(self, key: str, entity_id: str) -> None:
        """Record that ``key`` names ``entity_id``, by whole key, first word and initials."""
        ids = self._by_key.setdefault(key, [])
        if entity_id not in ids:
            ids.append(entity_id)
        first = key.split()[0]
        if first not in self._by_first_word:
            bisect.insort(self._first_words, first)
        self._by_first_word.setdefault(first, set()).add(entity_id)
        if " " in key:
            self._by_initials.setdefault(initials(key), set()).add(entity_id)


def abbreviation_rule(short: str, long: str, long_type: str, short_type: str,
                      nicknames: Mapping[str, tuple[str, ...]], min_prefix: int) -> str | None:
    """The rule by which ``short`` abbreviates ``long`` ("prefix", "nickname", ...), or None."""
    if short == long or " " in short:
        return None  # multi-word names merge only when equal or by an explicit alias
    if long_type != "person" and short.isalpha() and len(short) >= 2 and short == initials(long):
        return "acronym"
    if not (long_type in PERSONAL_TYPES and short_type in PERSONAL_TYPES):
        return None
    first = long.split()[0]
    if " " in long and short == first:
        return "first name"
    if len(short) >= min_prefix and first.startswith(short) and len(first) > len(short):
        return "prefix"
    if first in nicknames.get(short, ()):
        return "nickname"
    return None


def initials(name: str) -> str:
    """First letters of a name's words: "new york city" -> "nyc"."""
    return "".join(word[0] for word in name.split() if word[0].isalnum())
