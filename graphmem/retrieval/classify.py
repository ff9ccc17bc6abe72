"""The control step of recall: say what kind of question this is, without a model.

Kinds: temporal (when, how long, before/after, dates), identity (who someone is, their
name, job, relationship, what kind of person), preference (likes, favourites, wishes,
recommendations), multi_hop (answers that join several memories: both, in common,
comparisons, "would X likely ...", lists of all things someone did, such as "Which
cities has X visited?") and factual (the rest). Each cue is a regular expression with a
weight; a kind's score is the sum of the weights of its cues that match. The best score
is the primary kind (ties go to the order of `KIND_PRIORITY`), kinds scoring half as
much or 1.0 are secondary, and the confidence is the primary's share of all cue weight,
so a question that matches nothing is "factual" at low confidence. Deterministic: same
text, same answer. Apart from its kind, a question may speak in the first person
(`speaks_of_asker`): then it asks about its asker, whose own rules and tastes bear on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["KIND_PRIORITY", "QueryClass", "QueryKind", "class_from_cues", "classify_query", "cue_hits", "speaks_of_asker"]


class QueryKind(StrEnum):
    """What a question asks for; it chooses the channel weights of recall."""

    TEMPORAL = "temporal"
    IDENTITY = "identity"
    PREFERENCE = "preference"
    FACTUAL = "factual"
    MULTI_HOP = "multi_hop"


KIND_PRIORITY: tuple[QueryKind, ...] = (
    QueryKind.MULTI_HOP,
    QueryKind.TEMPORAL,
    QueryKind.IDENTITY,
    QueryKind.PREFERENCE,
    QueryKind.FACTUAL,
)


@dataclass(frozen=True)
class QueryClass:
    """The classifier's answer: primary kind, its confidence (0-1), other kinds present,
    the names of the cues that fired (for `recall(..., explain=True)`), and whether the
    question speaks in the first person (`speaks_of_asker`)."""

    kind: QueryKind
    confidence: float
    secondary: frozenset[QueryKind] = frozenset()
    cues: tuple[str, ...] = ()
    about_asker: bool = False

    def has(self, kind: QueryKind) -> bool:
        """True if the kind is primary or secondary."""
        return kind == self.kind or kind in self.secondary


_MONTHS = (
    r"jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t|tember)?"
    r"|oct(ober)?|nov(ember)?|dec(ember)?"
)
_UNITS = r"years?|months?|weeks?|weekends?|days?|nights?|hours?|minutes?|decades?|centur(y|ies)"
_SEASONS = r"spring|summer|autumn|fall|winter|morning|evening|night|holidays?"
_TRAITS = (
    r"name|job|occupation|profession|career|role|title|relationship|identity|nationality"
    r"|ethnicity|gender|pronouns?|age|background|personality|status|hometown|religion"
)
_TRAITS = rf"(?:{_TRAITS})s?"
_LIKE_VERBS = r"like|likes|liked|love|loves|loved|enjoy|enjoys|enjoyed|prefer|prefers|preferred"
_PLURAL_THINGS = (
    r"activities|things|items|events|places|hobbies|books|movies|songs|games|sports|pets|ways"
    r"|kinds|types|names|people|countries|cities|locations|instruments|subjects|changes"
)

# A plural noun right before the question's verb ("What activities does ...", "Which
# cities has ...", "What new yoga poses did ...") asks for every instance, which
# several memories hold. Words that merely end in "s" are not plurals: "-ss", "-us",
# "-is" endings, and the function words below.
_NOT_PLURAL = (
    r"is|was|has|does|this|his|its|us|as|yes|always|sometimes|perhaps|whereas|plus|less"
    r"|unless|across|towards|afterwards|besides|news"
)
_PLURAL_OBJECT = (
    r"\b(what|which)\s+((kinds?|sorts?|types?)\s+of\s+)?([\w'-]+\s+){0,3}"
    rf"(?!(?:{_NOT_PLURAL})\b)[a-z][\w-]*[^siu\W]s\s+(has|have|had|does|do|did|is|are|was|were)\b"
)

# "What was the weather like?" asks for a description, not a liking.
_LIKE_CUE = (
    r"^(?!\W*(what|how)\s+(is|was|are|were|'s)\b.*\blike\W*$)"
    rf".*\b({_LIKE_VERBS})\b(?!\s+(this|that|a|an|the)\b)"
)

# (kind, cue name, pattern, weight); patterns run on the lowercased text.
_CUES: tuple[tuple[QueryKind, str, str, float], ...] = (
    (QueryKind.TEMPORAL, "when-question", r"^\W*when\b", 3.0),
    (QueryKind.TEMPORAL, "when-clause", r"(?<!^)\bwhen\b", 0.75),
    (QueryKind.TEMPORAL, "what-time", rf"\b(what|which)\s+(year|month|day|date|time|week|season|age|{_SEASONS})\b", 3.0),
    (QueryKind.TEMPORAL, "how-long", r"\bhow\s+(long|soon|often|recently)\b", 3.0),
    (QueryKind.TEMPORAL, "how-many-units", rf"\bhow\s+many\s+({_UNITS})\b", 3.0),
    (QueryKind.TEMPORAL, "order", r"\b(before|after|since|until|till|during|between|ago|earlier|later|first|last time|previously)\b", 0.75),
    (QueryKind.TEMPORAL, "relative-time", rf"\b(last|next|this|that|past|coming|previous)\s+({_UNITS}|{_SEASONS})\b", 1.0),
    (QueryKind.TEMPORAL, "deictic-time", r"\b(yesterday|today|tomorrow|tonight|recently|lately|nowadays|currently)\b", 0.75),
    (QueryKind.TEMPORAL, "month", rf"\b({_MONTHS})\b(?!\s+(i|we|you|he|she|they|it|be|have|not)\b)", 0.5),
    (QueryKind.TEMPORAL, "year", r"\b(1[89]|20)\d{2}s?\b", 0.5),
    (QueryKind.TEMPORAL, "numeric-date", r"\b\d{1,4}[/.-]\d{1,2}([/.-]\d{1,4})?\b", 0.5),
    (QueryKind.IDENTITY, "who-is", r"\bwho\s+(is|was|are|were|'s)\b", 3.0),
    (QueryKind.IDENTITY, "who-question", r"^\W*who\b", 1.5),
    (QueryKind.IDENTITY, "trait", rf"\b({_TRAITS})\b", 2.0),
    (QueryKind.IDENTITY, "kind-of-person", r"\b(what|which)\s+(kind|sort|type)\s+of\s+(person|people|man|woman|friend)\b", 3.0),
    (QueryKind.IDENTITY, "identify-as", r"\bidentif(y|ies|ied)\s+as\b", 3.0),
    (QueryKind.IDENTITY, "origin", r"\bwhere\s+(is|was|are|were|does|did|do)\s+\w+(\s+\w+)?\s+(from|live|grow\s+up|born|raised)\b", 3.0),
    (QueryKind.IDENTITY, "how-old", r"\bhow\s+old\b", 2.0),
    (QueryKind.IDENTITY, "describe-person", r"\b(describe|personality|character traits?)\b", 1.5),
    (QueryKind.PREFERENCE, "like-verb", _LIKE_CUE, 2.5),
    (QueryKind.PREFERENCE, "like-verb-object", rf"\b({_LIKE_VERBS})\s+(this|that|a|an|the)\b", 1.5),
    (QueryKind.PREFERENCE, "favourite", r"\bfavou?rites?\b", 3.0),
    (QueryKind.PREFERENCE, "taste", r"\b(fond|fan|keen)\s+of\b|\b(into|passionate about|interested in|interests?|hobby|hobbies|passions?)\b", 2.0),
    (QueryKind.PREFERENCE, "dislike", r"\b(dislikes?|hates?|hated|can'?t stand|avoids?|allergic)\b", 2.0),
    (QueryKind.PREFERENCE, "recommend", r"\b(recommend|recommendations?|suggest|suggestions?|advice|should\s+(i|we)\s+(try|get|buy|watch|read|go|eat|visit))\b", 2.5),
    # a request for advice for the asker ("the best way for me to ...", "any tips?"):
    # what the asker likes and avoids decides the answer
    (QueryKind.PREFERENCE, "advice-for-me", r"\b(best\s+way|best\s+option|tips?|ideas?|how\s+(can|should|do)\s+i|help\s+me|for\s+me|should\s+i)\b", 2.5),
    (QueryKind.PREFERENCE, "wish", r"\b(want|wants|wish|wishes|hope|hopes|dream|dreams|would\s+like)\s+to\b", 1.5),
    (QueryKind.MULTI_HOP, "both", r"\bboth\b", 2.5),
    (QueryKind.MULTI_HOP, "in-common", r"\b(in\s+common|similar|similarit(y|ies)|the\s+same\s+as)\b", 2.5),
    (QueryKind.MULTI_HOP, "comparison", r"\b(compare|compared|comparison|differ|different|difference|(more|less|fewer|better|worse|older|younger|bigger|smaller)\s+than)\b", 2.5),
    (QueryKind.MULTI_HOP, "inference", r"\b(would|could|might)\b.*\b(likely|probably|be considered|still)\b|\blikely\b", 2.5),
    (QueryKind.MULTI_HOP, "and-also", r"\band\b.*\balso\b|\bas\s+well\s+as\b|\beither\b.*\bor\b", 2.0),
    (QueryKind.MULTI_HOP, "two-people", r"\b[A-Z][\w'-]+\s+and\s+[A-Z][\w'-]+\b", 1.5),
    (QueryKind.MULTI_HOP, "aggregate", rf"\b(all|every|each|list|total|how\s+many|what\s+are\s+some)\b|\b(what|which)\s+(\w+\s+){{0,2}}({_PLURAL_THINGS})\b", 1.5),
    (QueryKind.MULTI_HOP, "plural-object", _PLURAL_OBJECT, 1.5),
    (QueryKind.MULTI_HOP, "cause", r"\bwhy\b|\b(because|reason|led\s+to|result(ed)?\s+in|cause[ds]?)\b", 1.0),
    (QueryKind.FACTUAL, "wh-question", r"^\W*(what|where|which|how|did|does|do|is|are|was|were|has|have)\b", 1.25),
    (QueryKind.FACTUAL, "place", r"\bwhere\b", 1.0),
)

# Case matters only for the cue that looks for capitalised names.
_CASE_SENSITIVE = frozenset({"two-people"})
_COMPILED = tuple(
    (kind, name, re.compile(pattern) if name in _CASE_SENSITIVE else re.compile(pattern, re.IGNORECASE), weight)
    for kind, name, pattern, weight in _CUES
)
_NO_CUE_CONFIDENCE = 0.3
# A kind is secondary at half the primary's score, or at this much evidence of its own
# (a date anchor in a "what" question makes time a secondary concern).
_SECONDARY_FLOOR = 1.0


#: the first person: "I" as a word (a capital), the others in any case, but "us" only in
#: lower case ("the US" is a country)
_FIRST_PERSON = re.compile(r"\bI\b|\b(?i:me|my|mine|myself|we|our|ours|ourselves)\b|\bus\b")


def speaks_of_asker(question: str) -> bool:
    """True when ``question`` speaks in the first person ("what would suit me?", "my
    office"): it asks about its asker. A question about named others ("What does
    Melanie like?") does not.

    >>> speaks_of_asker("Which mouse should I buy?"), speaks_of_asker("Is Ana from the US?")
    (True, False)
    """
    return _FIRST_PERSON.search(question) is not None


def classify_query(text: str) -> QueryClass:
    """Classify a question by cue words, question forms and time expressions.

    >>> classify_query("When did Ana move to Lisbon?").kind
    <QueryKind.TEMPORAL: 'temporal'>
    >>> classify_query("What do Ana and Ben have in common?").kind
    <QueryKind.MULTI_HOP: 'multi_hop'>
    """
    return class_from_cues(cue_hits(text), about_asker=speaks_of_asker(text))


def cue_hits(text: str) -> tuple[tuple[QueryKind, str, float], ...]:
    """(kind, cue name, weight) of every cue that matches ``text``, in table order."""
    normalised = text.replace("\u2019", "'").strip()
    return tuple((kind, name, weight) for kind, name, pattern, weight in _COMPILED
                 if pattern.search(normalised))


def class_from_cues(hits: tuple[tuple[QueryKind, str, float], ...], *,
                    about_asker: bool = False) -> QueryClass:
    """The class that matched cues give (split from `classify_query` so that a selection
    protocol can score the classifier with some cues removed without re-reading text);
    ``about_asker``: the question speaks in the first person."""
    scores = {kind: 0.0 for kind in QueryKind}
    for kind, _, weight in hits:
        scores[kind] += weight
    fired = [name for _, name, _ in hits]
    top = max(scores.values())
    if top == 0:
        return QueryClass(QueryKind.FACTUAL, _NO_CUE_CONFIDENCE, about_asker=about_asker)
    primary = next(kind for kind in KIND_PRIORITY if scores[kind] == top)
    secondary = frozenset(
        kind for kind, score in scores.items()
        if kind not in (primary, QueryKind.FACTUAL) and score >= min(top / 2, _SECONDARY_FLOOR)
    )
    confidence = round(top / sum(scores.values()), 3)
    return QueryClass(primary, confidence, secondary, tuple(fired), about_asker)
