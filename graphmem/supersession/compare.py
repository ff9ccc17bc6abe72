"""When a later claim replaces an earlier one: the rule, as a pure function of two claims.

A later claim supersedes an earlier one when

1. both are states (graphmem.supersession.claims): an event or an utterance never
   replaces anything and is never replaced ("Tom hit Jerry" / "Jerry hit Tom"), except
   (1b) an action whose value the later state names as given up ("we staffed the QA
   team with 6 people" / "the QA team went from 6 to 3 people");
2. they share an anchor (a name or a definite thing: "Ana", "the launch");
3. they give another value of one type for it: a value of the later one that the
   earlier does not give, and one of the earlier that the later does not give (the
   value the later names as replaced, "from March 3", counts as not given); or the
   same values with the opposite polarity ("Ana no longer lives in Berlin");
4. the values are on a scale (time, money, number: the anchor's date, amount, count),
   or the predicates name one attribute: the same verb or WordNet synonyms, a state
   class among the first senses of both (possession, social or stative), or one is a
   copula or a change of state (a goal, a replaced value, now/instead/again/back),
   which carries over the attribute of the claim it changes — except that a change
   naming the value it gives up ("switched from Vim to VS Code") carries over no
   attribute to a claim without that value ("Ana lives in Munich");
5. when the only shared anchors are names and the values that differ are both
   subjects, the claims are about the values, not the anchor ("Ana lives in Berlin" /
   "Ben lives in Berlin"): nothing is replaced; and of a named anchor only names and
   amounts and counts are compared: a person's common nouns (feelings, pastimes,
   "Melanie is proud of the kids" / "Melanie's kids love the summer") are too open,
   and a person's times say when something happened ("went to a workshop last
   Friday" / "went to a parade last week"), where a thing's time is its value ("the
   launch is on March 3");
6. an opposite polarity replaces only a claim of the same predicate (or a synonym, or
   a state class of both) that gives a value besides its subject, the same one ("Ana
   lives in Berlin" / "Ana no longer lives in Berlin"): "Caroline is thankful" /
   "Caroline couldn't have done it" say nothing of each other.

Owns ``supersedes``. Imports graphmem.supersession.claims and graphmem.text.lexicon.
"""

from __future__ import annotations

from graphmem.supersession.claims import SCALE_TYPES, STATE_CLASSES, Claim
from graphmem.text.lexicon import Lexicon


def supersedes(later: Claim, earlier: Claim, lexicon: Lexicon) -> str | None:
    """Why ``later`` replaces ``earlier`` (rules of the module docstring), or None."""
    if later.kind != "state" or earlier.kind not in ("state", "event"):
        return None
    shared = later.anchors & earlier.anchors
    if not shared:
        return None
    if earlier.kind == "event":
        return _named_as_replaced(later, earlier, shared)
    if later.negated != earlier.negated:
        return _polarity(later, earlier, shared, lexicon)
    if later.negated:
        return None
    for type_ in sorted(later.value_types() & earlier.value_types()):
        if type_ == "time" and all(_is_name(later, a) for a in shared):
            continue  # a person's times say when things happened, not what they are
        new = later.values(type_) - earlier.values(type_) - shared
        old = earlier.values(type_) - later.values(type_) - shared
        if not new or not old:
            continue
        replaced = later.replaced_values(type_)
        if replaced and not old & replaced and not same_attribute(
                later, earlier, lexicon, carry_over=False):
            continue  # a change that names what it gives up carries no other attribute
        if type_ not in SCALE_TYPES and not same_attribute(later, earlier, lexicon):
            continue
        if _about_the_values(later, earlier, shared, new, old):
            continue
        if type_ in ("thing", "bare") and all(_is_name(later, a) for a in shared):
            continue  # a person's common-noun values (feelings, pastimes) are too open
        anchor = sorted(shared)[0]
        return f"{anchor}: {type_} {'/'.join(sorted(old))} -> {'/'.join(sorted(new))}"
    return None


def _named_as_replaced(later: Claim, earlier: Claim, shared: frozenset[str]) -> str | None:
    """Rule 1b: an action that gave the anchor a value ("we staffed the QA team with 6
    people") is replaced by a state that names that value as the one given up ("the QA
    team went from 6 to 3 people")."""
    for type_ in sorted(later.value_types() & earlier.value_types()):
        given_up = later.replaced_values(type_) & earlier.values(type_)
        if given_up and later.values(type_) - earlier.values(type_):
            return f"{sorted(shared)[0]}: {type_} {'/'.join(sorted(given_up))} given up"
    return None


def same_attribute(a: Claim, b: Claim, lexicon: Lexicon, *, carry_over: bool = True) -> bool:
    """Whether two predicates name one attribute (rule 4 of the module docstring);
    ``carry_over=False``: without a copula or a change of state carrying over the
    other's."""
    if a.predicate == b.predicate:
        return True
    if carry_over and ("copula" in (a.verb_class, b.verb_class) or a.changes or b.changes):
        return True
    if a.classes & b.classes & STATE_CLASSES:  # a sense of each in one state class
        return True
    relation = lexicon.relation(a.predicate, b.predicate)
    return relation is not None and relation.kind == "synonym"


def _about_the_values(later: Claim, earlier: Claim, shared: frozenset[str],
                      new: frozenset[str], old: frozenset[str]) -> bool:
    """Rule 5: only names shared, and the differing values are the subjects."""
    if any(not _is_name(later, key) for key in shared):
        return False
    return all("subj" in later.roles_of(k) for k in new) and \
        all("subj" in earlier.roles_of(k) for k in old)


def _is_name(claim: Claim, key: str) -> bool:
    return any(p.key == key and p.type == "name" for p in claim.participants)


def _polarity(later: Claim, earlier: Claim, shared: frozenset[str],
              lexicon: Lexicon) -> str | None:
    """The same values, one claim negated: the later polarity holds from then on."""
    types = later.value_types() | earlier.value_types()
    given = any(p.value and p.role != "subj" for c in (later, earlier) for p in c.participants)
    same = given and all(later.values(t) == earlier.values(t) for t in types)
    if same and same_attribute(later, earlier, lexicon, carry_over=False):
        side = "no longer" if later.negated else "again"
        return f"{sorted(shared)[0]}: {side} ({later.predicate})"
    return None
