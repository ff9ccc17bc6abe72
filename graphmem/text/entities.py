"""Entity extraction: the people, places, organisations and things a statement names.

spaCy's small English model finds most names; in chat text it misses some (a name that
follows a greeting, a lowercase-looking product), so runs of proper nouns (tag NNP/NNPS,
capitalised, not opening a sentence, not already inside an entity) are kept as
``unknown``-typed mentions that the resolver can match to a typed entity, and a known
person's name is a mention wherever it stands. Pronouns are never entities;
``refers_to_speaker`` tells the caller that "I"/"my" point at the speaker. Resolution of
mentions to entities lives in ``entity_resolution`` and is re-exported here.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator, Literal, Sequence

from graphmem.errors import InvalidInput
from graphmem.text.entity_resolution import Entity, EntityResolver, Merge, name_key
from graphmem.text.nlp import Parser

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span

__all__ = ["EntityMention", "EntityType", "extract_entities", "extract_entities_batch",
           "refers_to_speaker", "Entity", "EntityResolver", "Merge", "name_key"]

EntityType = Literal["person", "place", "organisation", "group", "thing", "event", "work", "unknown"]
LABEL_TYPES: dict[str, EntityType] = {
    "PERSON": "person", "GPE": "place", "LOC": "place", "FAC": "place", "ORG": "organisation",
    "NORP": "group", "PRODUCT": "thing", "EVENT": "event", "WORK_OF_ART": "work",
}
LEADING_WORDS = {"the", "a", "an", "my", "our", "your", "his", "her", "their", "its"}
PRONOUNS = {"i", "me", "my", "mine", "myself", "you", "your", "he", "him", "his", "she", "her",
            "it", "we", "us", "our", "they", "them", "their", "y'all"}
# Chat abbreviations and interjections that the tagger sometimes calls proper nouns.
NOT_NAMES = {"lol", "omg", "btw", "tbh", "imo", "idk", "fyi", "ok", "okay", "haha", "wow", "hey", "hi",
             "hello", "thanks", "thank", "yeah", "yep", "yup", "yes", "no", "nah", "oh", "ah", "aww",
             "bye", "dm", "pm", "am", "congrats", "congratulations", "glad", "awesome", "cool",
             "great", "nice", "sure", "sorry", "yay", "hmm", "ugh", "cheers", "welcome", "wanna",
             "gonna", "gotta", "anyway", "last", "next", "totally", "absolutely", "definitely",
             "exactly", "agreed"}
CALENDAR_WORDS = {name.lower() for name in (*calendar.month_name, *calendar.month_abbr,
                                            *calendar.day_name, *calendar.day_abbr) if name}
CALENDAR_WORDS |= {"tues", "weds", "thur", "thurs", "sept"}
QUOTED = re.compile(r'["“]([^"“”\n]{2,80}?)[.,!?]?["”]')
SENTENCE_END = {".", "!", "?", "\n", "…", ":", ";", '"', "“", "(", "-", "—"}
FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself)\b", re.IGNORECASE)


@dataclass(frozen=True)
class EntityMention:
    """A name in a text: its surface form, type, and character offsets ``[start, end)``."""

    name: str
    type: EntityType
    start: int
    end: int


def extract_entities(text: str, *, speaker: str | None = None,
                     known_people: Iterable[str] = (),
                     parser: Parser | None = None) -> list[EntityMention]:
    """The named entities of ``text`` in text order (no pronouns).

    ``speaker`` and ``known_people`` are names the caller knows to be people (the
    conversation's participants): a mention of one of them is typed ``person`` whatever
    the model said, and an untyped one that is a prefix of one ("Mel") is too.
    """
    return extract_entities_batch([text], speakers=[speaker], known_people=known_people,
                                  parser=parser)[0]


def extract_entities_batch(texts: Sequence[str], *, speakers: Sequence[str | None] | None = None,
                           known_people: Iterable[str] = (), batch_size: int = 256,
                           parser: Parser | None = None) -> list[list[EntityMention]]:
    """``extract_entities`` for many texts at once, through spaCy's ``nlp.pipe``
    (``parser``: whose cache to use; none given, nothing is kept)."""
    check_texts(texts, speakers)
    people = {name_key(name) for name in known_people if name}
    results = []
    for index, doc in enumerate((parser or Parser(cache_size=0)).parse_many(texts, batch_size=batch_size)):
        speaker = speakers[index] if speakers else None
        known = people | ({name_key(speaker)} if speaker else set())
        results.append(mentions_in_doc(doc, known))
    return results


def refers_to_speaker(text: str) -> bool:
    """True when ``text`` speaks of its speaker in the first person ("I", "my", "I'm")."""
    return bool(FIRST_PERSON.search(text.replace("’", "'")))


def check_texts(texts: Sequence[str], speakers: Sequence[str | None] | None) -> None:
    """InvalidInput unless ``texts`` are strings and ``speakers`` (if given) match them."""
    if isinstance(texts, str):
        raise InvalidInput("extract_entities_batch takes a list of texts, got one str; "
                           "use extract_entities for a single text")
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInput(f"text {index} is {type(text).__name__}, not str")
    if speakers is not None and len(speakers) != len(texts):
        raise InvalidInput(f"got {len(speakers)} speakers for {len(texts)} texts; give one per text")


def mentions_in_doc(doc: Doc, known_people: set[str]) -> list[EntityMention]:
    """Entity mentions of one parsed text: quoted titles, NER entities, proper-noun runs."""
    mentions = quoted_titles(doc.text)
    in_title = lambda start, end: any(t.start <= start and end <= t.end for t in mentions)  # noqa: E731
    mentions += [mention for ent in doc.ents if ent.label_ in LABEL_TYPES and not common_opener(ent)
                 for mention in [mention_from_span(ent, LABEL_TYPES[ent.label_])]
                 if mention and not in_title(mention.start, mention.end)]
    covered = {index for ent in doc.ents for index in range(ent.start, ent.end)}
    covered |= {token.i for token in doc if in_title(token.idx, token.idx + len(token.text))}
    for run in proper_noun_runs(doc, covered):
        mention = mention_from_span(run, "unknown")
        if mention:
            mentions.append(mention)
    mentions += known_people_named(doc, known_people, mentions)
    typed = [type_known_person(mention, known_people) for mention in mentions]
    return sorted(typed, key=lambda mention: mention.start)


def known_people_named(doc: Doc, known_people: set[str],
                       found: list[EntityMention]) -> list[EntityMention]:
    """Capitalised words that are a known person's name, wherever they stand and however
    the tagger read them, outside the mentions already ``found``. A statement rewritten
    from the first person opens with its speaker ("Caroline is so excited"), where the
    small model often tags the name a common noun."""
    if not known_people:
        return []
    taken = [(mention.start, mention.end) for mention in found]
    out = []
    for token in doc:
        start, end = token.idx, token.idx + len(token.text)
        if token.text[:1].isupper() and name_key(token.text) in known_people \
                and not any(a < end and start < b for a, b in taken):
            out.append(EntityMention(token.text, "person", start, end))
    return out


def common_opener(ent: Span) -> bool:
    """A lone sentence-opening word the tagger calls common ("Art's great", "Cherish it"):
    the small model often takes such capitalised openers for names."""
    return len(ent) == 1 and opens_sentence(ent[0]) and ent[0].tag_ not in ("NNP", "NNPS")


def opens_sentence(token) -> bool:
    """True for the first token of a text or one after sentence-ending punctuation."""
    if token.i == 0:
        return True
    previous = token.doc[token.i - 1]
    return previous.text in SENTENCE_END or "\n" in previous.text


def quoted_titles(text: str) -> list[EntityMention]:
    """Quoted titles ("Inception", "The Legend of Zelda"): most longer words capitalised."""
    titles = []
    for match in QUOTED.finditer(text):
        title = match.group(1).strip()
        long_words = [word for word in title.split() if len(word) > 3 or word[:1].isdigit()]
        capitalised = [word for word in long_words if word[:1].isupper() or word[:1].isdigit()]
        if (title[:1].isupper() or title[:1].isdigit()) and len(title.split()) <= 8 and long_words \
                and len(capitalised) == len(long_words) and looks_like_name(title):
            start = match.start(1) + match.group(1).index(title)
            titles.append(EntityMention(title, "work", start, start + len(title)))
    return titles


def mention_from_span(span: Span, entity_type: EntityType) -> EntityMention | None:
    """A mention from a span, trimmed to its capitalised core: no "the"/"my", greeting,
    possessive "'s", punctuation, or words before a comma ("ya, Melanie" -> "Melanie")."""
    tokens = list(span)
    while "," in [token.text for token in tokens]:
        comma = [token.text for token in tokens].index(",")
        if any(is_name_edge(token) for token in tokens[:comma]):
            break  # "Paris, France" stays whole
        tokens = tokens[comma + 1:]
    while tokens and not is_name_edge(tokens[0]) and not (
            entity_type == "work" and tokens[0].lower_ == "the" and len(tokens) > 1):
        tokens.pop(0)  # a title keeps its "The": "The Alchemist"
    while tokens and not is_name_edge(tokens[-1]):
        tokens.pop()
    if not tokens:
        return None
    start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
    name = span.doc.text[start:end].rstrip("-–—'’\"”")
    if name.endswith(("'s", "’s")):
        name = name[:-2]
    if not looks_like_name(name):
        return None
    return EntityMention(name, entity_type, start, start + len(name))


def is_name_edge(token) -> bool:
    """A token a name may start or end with: capitalised or a number, not a greeting."""
    text = token.text
    return ((text[:1].isupper() or text[:1].isdigit()) and token.lower_ not in LEADING_WORDS
            and token.lower_ not in NOT_NAMES and token.tag_ != "POS"
            and token.lower_.rstrip(".") not in CALENDAR_WORDS)


def looks_like_name(name: str) -> bool:
    """False for pronouns, interjections, and text with no capital letter or digit."""
    key = name.lower()
    if key in PRONOUNS or key in NOT_NAMES or key.rstrip(".") in CALENDAR_WORDS or len(key) < 2:
        return False
    return any(char.isupper() or char.isdigit() for char in name)


def proper_noun_runs(doc: Doc, covered: set[int]) -> Iterator[Span]:
    """Runs of capitalised proper nouns outside entities; a lone sentence opener is skipped."""
    index = 0
    while index < len(doc):
        token = doc[index]
        if not is_name_token(token) or index in covered:
            index += 1
            continue
        end = index + 1
        while end < len(doc) and end not in covered and is_name_token(doc[end]):
            end += 1
        if end < len(doc) and doc[end].text.isdigit() and doc[end].ent_type_ in ("", "CARDINAL"):
            end += 1  # "FIFA 23", "Windows 11"
        if end - index > 1 or not opens_sentence(token):
            yield doc[index:end]
        index = end


def is_name_token(token) -> bool:
    """A proper-noun token that starts with a capital (or is an acronym), not a date word."""
    return (token.tag_ in ("NNP", "NNPS") and token.text[:1].isupper() and token.text != "I"
            and token.lower_.rstrip(".") not in CALENDAR_WORDS
            and token.ent_type_ not in ("DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT",
                                        "QUANTITY"))


def type_known_person(mention: EntityMention, known_people: set[str]) -> EntityMention:
    """The mention typed ``person`` if it names a known person (the caller knows better
    than the small model, which calls some first names a group or a place)."""
    if not known_people or mention.type == "person":
        return mention
    key = name_key(mention.name)
    if key in known_people or (mention.type == "unknown" and len(key) >= 3 and any(
            person.split()[0].startswith(key) for person in known_people if person)):
        return EntityMention(mention.name, "person", mention.start, mention.end)
    return mention
