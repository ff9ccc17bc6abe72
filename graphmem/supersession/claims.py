"""What one statement claims, read from its dependency parse: is it a state (which a
later state of the same thing can replace) or an event (an action or an utterance, true
for good once it happened), what is it about (anchors) and what value does it give.

State or event is decided from the main predicate, not from a list of phrasings:

==============================  ==========================================================
copula (be, become, remain)     state: "the launch is on March 3", "Ana is in Berlin"
question                        nothing is claimed
verb.communication              an utterance (event), unless its goal is a value on a
                                scale ("revised to $70,000")
passive, not in the past        state (resultative): "is scheduled for", "is led by"
past, its object counted        event: "hired 12 engineers", "paid $50", "shipped 40
(a number or an amount; not a   crates to the depot" (what was moved or paid, not a
verb of having)                 value given to a thing)
verb.stative / .possession /    state: lives in, owns, belongs to, leads, works at, holds
.social (WordNet lexicographer
class of the verb, the most
frequent among its first senses)
verb.change / .motion           a change of state when it has a goal, a source or a
                                "back"/"again": "moved to Munich", "switched X to Y";
                                else an event ("the bus moved")
a way to put (WordNet           a caused change of state: "put Maya in charge of X",
troponym) with an object placed "set the vase on the shelf" (not "hit Jerry on the
in/on/to something              head": hitting is no way of putting)
a goal that is a value on a     state: "pushed to May 5", "cut to 4 people", "staffed
scale (time, money, number)     the desk with 5 people" (with: only given to an object);
                                a time on/at/in an action without an object is when it
                                happened ("ran 10 km on Sunday"), not a goal
a way to choose or decide       state: "the team picked Vercel", "we chose X" (WordNet
                                troponyms of choose / decide): the choice holds
any other class, not past       state (habitual or ongoing): "we use Postgres",
                                "Ana prefers tea", "we are planning X for May"
any other class, past           event: "Tom hit Jerry", "Ana visited Berlin"
==============================  ==========================================================

Participants (graphmem.supersession.participants) are the noun phrases of the main
clause (subordinate clauses left out), each with a type: ``time``, ``money``, ``number``, ``name`` (a proper name), ``thing``
(a common noun: ``definite`` with the/this/our..., or bare) and the role it fills.
Anchors (what the claim is about) are its definite things, or its names when it has
none: "Lukas owns the billing integration" is about the integration (a thing has one
owner, an owner many things), "Ana lives in Berlin" about Ana. Values are every typed
participant that is not marked as the value replaced ("from X to Y", "replaced X with
Y", "instead of X").

The small tagger reads some present verbs after a noun as a plural noun ("the public
beta returns to April 7": the noun phrase "beta returns", no verb). A plural noun that
no verb governs, right after a singular noun and followed by what follows a verb, is
read again as the verb ("does return": same tense and predicate).

Owns ``Claim`` and ``read_claim``. May import graphmem.text (the parser and WordNet) and
graphmem.supersession.participants; nothing else of graphmem.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from graphmem.supersession.participants import SCALE_TYPES, Participant, participants
from graphmem.text.lexicon import Lexicon

Kind = Literal["state", "event", "utterance", "none"]
STATE_CLASSES = frozenset({"stative", "possession", "social"})
CHANGE_CLASSES = frozenset({"change", "motion"})
COPULAS = frozenset({"be", "become", "remain", "stay", "seem"})
#: verbs of having: a count they take is the state itself ("we had 9 people on the team")
HAVING = frozenset({"have", "own", "possess", "hold", "keep", "contain", "cost"})
#: prepositions of a time that says when an action happened ("ran on Sunday")
WHEN_PREPS = frozenset({"on", "at", "in"})
#: prepositions that mark where a change of state ends or starts
GOAL_PREPS = frozenset({"to", "into", "onto", "from", "for", "as", "on", "at"})
#: where a verb of putting puts its object ("put Maya in charge", "set the vase on the
#: shelf"): a caused change of location or state
PLACING = frozenset({"in", "into", "on", "onto", "to"})
#: verbs whose troponyms make a choice that then holds ("picked Vercel", "chose X")
DECIDING = ("choose", "decide")
#: aspectual adverbs that presuppose another value before (a change of state)
CHANGE_ADVERBS = frozenset({"now", "instead", "anymore", "again", "back", "longer"})
SUBORDINATE = frozenset({"advcl", "relcl", "ccomp", "csubj", "parataxis", "mark", "acl",
                         "punct", "xcomp"})


@dataclass(frozen=True)
class Claim:
    """What a statement claims (see the module docstring)."""

    kind: Kind
    predicate: str = ""
    verb_class: str = ""  # the WordNet class, "copula", or "" when none applies
    classes: frozenset[str] = frozenset()  # the classes of the verb's first senses
    participants: tuple[Participant, ...] = ()
    negated: bool = False
    changes: bool = False  # a change of state: a goal, a source, or now/instead/again/back
    why: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def anchors(self) -> frozenset[str]:
        """What the claim is about: its definite things ("the launch": a thing has one
        date, one owner), else its names ("Ana lives in Berlin")."""
        things = frozenset(p.key for p in self.participants if p.anchor and p.type == "thing")
        return things or frozenset(p.key for p in self.participants if p.anchor)

    def values(self, type_: str) -> frozenset[str]:
        """The keys of the values of one type (the replaced ones left out)."""
        return frozenset(p.key for p in self.participants if p.value and p.type == type_)

    def replaced_values(self, type_: str) -> frozenset[str]:
        """The keys of the values the claim says were given up ("from 6 to 3": 6)."""
        return frozenset(p.key for p in self.participants if p.replaced and p.type == type_)

    def value_types(self) -> frozenset[str]:
        return frozenset(p.type for p in self.participants if p.value)

    def roles_of(self, key: str) -> frozenset[str]:
        return frozenset(p.role for p in self.participants if p.key == key)


#: the verb senses read: the most frequent ones (WordNet orders senses by frequency)
SENSES = 3


def verb_class(lemma: str, lexicon: Lexicon, senses: int = SENSES) -> str:
    """The most frequent lexicographer class among ``lemma``'s first verb senses (the
    earlier sense wins a tie), or "" for a verb WordNet does not know."""
    classes = lexicon.verb_classes(lemma)[:senses]
    if not classes:
        return ""
    counts = Counter(classes)
    best = max(counts.values())
    return next(c for c in classes if counts[c] == best)


# -- the clause -------------------------------------------------------------------------

def _segment(doc) -> list:
    """The tokens after the last colon that has a verb after it ("Reminder: the review
    is on May 5"): the part of the sentence that states something."""
    tokens = list(doc)
    for i in range(len(tokens) - 1, -1, -1):
        if tokens[i].text in (":", ";", "—") and any(t.pos_ in ("VERB", "AUX") for t in tokens[i:]):
            return tokens[i + 1:]
    return tokens


def _depth(tok) -> int:
    depth = 0
    while tok.head.i != tok.i and depth < 50:
        tok, depth = tok.head, depth + 1
    return depth


def main_predicate(doc):
    """The highest verb (or copula) of the stating part; "let's X" gives X."""
    segment = _segment(doc)
    verbs = [t for t in segment if t.pos_ in ("VERB", "AUX") and t.dep_ not in ("aux", "auxpass")]
    if not verbs:
        return None, segment
    head = min(verbs, key=_depth)
    if head.lemma_.lower() == "let":
        inner = [c for c in head.children if c.dep_ in ("ccomp", "xcomp") and c.pos_ == "VERB"]
        head = inner[0] if inner else head
    return head, segment


def _clause(head, segment) -> list:
    """The head's own clause: its subtree less subordinate clauses, inside the segment."""
    inside = {t.i for t in segment}
    out, stack = [], [head]
    while stack:
        tok = stack.pop()
        if tok.i not in inside:
            continue
        out.append(tok)
        stack.extend(c for c in tok.children if c.dep_ not in SUBORDINATE)
    return sorted(out, key=lambda t: t.i)


# -- the claim ---------------------------------------------------------------------------

def _past(head) -> bool:
    if head.tag_ == "VBD":
        return True
    return any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in head.children)


def _passive(head) -> bool:
    return any(c.dep_ in ("auxpass", "nsubjpass") for c in head.children)


def read_claim(doc, lexicon: Lexicon, names: dict[int, str] | None = None) -> Claim:
    """The claim of one parsed statement (a spaCy Doc of the full pipeline); ``names``:
    the name each placeholder of a ``name_copy`` stands for, by character offset."""
    names = names or {}
    text = doc.text.strip()
    if text.endswith("?"):
        return Claim("none", why="a question")
    misread = _verb_read_as_noun(doc, lexicon)
    if misread is not None:
        reread = _reread_as_verb(doc, misread[0], misread[1], lexicon, names)
        if reread is not None:
            return reread
    head, segment = main_predicate(doc)
    if head is None:
        return Claim("none", why="no verb")
    clause = _clause(head, segment)
    people = participants(clause, head, segment[0].i if segment else 0, lexicon, names)
    adverbs = {t.lower_ for t in clause if t.dep_ in ("advmod", "neg", "prt")}
    negated = any(t.dep_ == "neg" for t in clause if t.head.i == head.i or t.head.head.i == head.i)
    lemma = head.lemma_.lower()
    particle = next((c.lower_ for c in head.children if c.dep_ == "prt"), None)
    if particle and lexicon.verb_classes(f"{lemma}_{particle}"):
        lemma = f"{lemma}_{particle}"  # a phrasal verb WordNet knows: take_over, set_aside
    copula = lemma in COPULAS or head.pos_ == "AUX"
    klass = "copula" if copula else verb_class(lemma, lexicon)
    caused = any(p.role == "obj" for p in people)
    # "ran 10 km on Sunday": a time on/at/in an action without an object says when it
    # happened, not where a change ends
    aimed = [p for p in people if caused or not (p.type == "time" and p.role in WHEN_PREPS)]
    goals = {p.role for p in aimed} & GOAL_PREPS
    scale_goal = any(p.type in SCALE_TYPES and (p.role in GOAL_PREPS or (
        caused and p.role == "with")) for p in aimed)  # "staffed the desk with 5 people"
    changes = bool(adverbs & CHANGE_ADVERBS) or (klass in CHANGE_CLASSES and bool(goals)) \
        or any(p.replaced for p in people)
    counted = not copula and lemma not in HAVING and any(
        p.role == "obj" and p.type in ("number", "money") for p in people)
    kind, why = _kind(klass, head, copula=copula, goals=goals,
                      roles={p.role for p in people}, scale_goal=scale_goal,
                      back=bool(adverbs & {"back", "again"}), caused=caused,
                      counted=counted,
                      decision=not copula and any(lexicon.verb_is_a(lemma, root)
                                                  for root in DECIDING),
                      placing=not copula and lexicon.verb_is_a(lemma, "put"))
    classes = frozenset(lexicon.verb_classes(lemma)[:SENSES]) if not copula else frozenset()
    return Claim(kind, lemma, klass, classes, tuple(people), negated, changes, why)


# -- a verb the tagger read as a plural noun ---------------------------------------------

#: where a plural noun heads a phrase that no verb governs ("the beta returns to May 2"
#: parsed as one noun phrase, alone or beside an imperative lead-in)
_UNGOVERNED = frozenset({"ROOT", "appos", "conj", "parataxis", "dep", "npadvmod"})
#: what follows a verb and not a noun: a preposition, a time, an adverb, a particle
_AFTER_VERB = frozenset({"prep", "npadvmod", "advmod", "prt"})
_DEFINITE = frozenset({"the", "this", "that", "these", "those"})


def _verb_base(word: str, lexicon: Lexicon) -> str | None:
    """The verb of which ``word`` is the third person singular (returns -> return)."""
    low = word.lower()
    for suffix, ending in (("s", ""), ("es", ""), ("ies", "y")):
        if low.endswith(suffix) and lexicon.verb_classes(low[:len(low) - len(suffix)] + ending):
            return low[:len(low) - len(suffix)] + ending
    return None


def _verb_read_as_noun(doc, lexicon: Lexicon) -> tuple[Any, str] | None:
    """A plural noun that is really the clause's verb, and that verb: "the public beta
    returns to April 7" tagged as the noun phrase "beta returns" with no verb. Its shape:
    a definite plural noun no verb governs, with no verb in its phrase, a singular noun
    right before it as its modifier, and after it what follows a verb (to April 7, next
    week)."""
    for tok in doc:
        if tok.tag_ != "NNS" or tok.dep_ not in _UNGOVERNED or tok.i == 0:
            continue
        before = doc[tok.i - 1]
        if not (before.tag_ == "NN" and before.dep_ in ("compound", "amod") and before.head.i == tok.i):
            continue
        if any(t.pos_ in ("VERB", "AUX") for t in tok.subtree) or not _definite(tok):
            continue
        if not any(c.dep_ in _AFTER_VERB and c.i > tok.i for c in tok.children):
            continue
        base = _verb_base(tok.text, lexicon)
        if base is not None:
            return tok, base
    return None


def _definite(tok) -> bool:
    """The phrase is definite ("the", "this", "our", "Priya's"): the subject of a
    statement, where a bare or "any" phrase is more often a fragment ("any fun plans for
    the summer")."""
    return any(c.dep_ == "poss" or (c.dep_ == "det" and c.lower_ in _DEFINITE)
               for part in (tok, *tok.children) for c in part.children)


def _reread_as_verb(doc, tok, base: str, lexicon: Lexicon,
                    names: dict[int, str]) -> Claim | None:
    """The claim of ``doc`` parsed again with ``tok`` written as the unambiguous present
    "does <base>" (same tense and predicate); None when the parse still finds no verb
    there. Placeholders after the word move by the length it gained."""
    from graphmem.text.nlp import Parser

    text = doc.text
    verb = f"does {base}"
    copy = text[:tok.idx] + verb + text[tok.idx + len(tok.text):]
    shift = len(verb) - len(tok.text)
    moved = {(at + shift if at > tok.idx else at): name for at, name in names.items()}
    redone = Parser(full=True, cache_size=0).parse(copy)
    head, _ = main_predicate(redone)
    if head is None or head.idx != tok.idx + len("does "):
        return None
    return read_claim(redone, lexicon, moved)


def _kind(klass: str, head, *, copula: bool, goals: set[str], roles: set[str],
          scale_goal: bool, back: bool, caused: bool, counted: bool, decision: bool,
          placing: bool) -> tuple[Kind, str]:
    """State, event or utterance, and why (the table of the module docstring)."""
    if copula:
        return "state", "copula"
    if klass == "communication" and not scale_goal:
        return "utterance", "verb.communication"
    if _passive(head) and not _past(head):
        return "state", "passive, not past (resultative)"
    if counted and _past(head):
        return "event", "a past action on a counted object: it happened"
    if klass in STATE_CLASSES:
        return "state", f"verb.{klass}"
    if klass in CHANGE_CLASSES and (goals or back):
        return "state", f"verb.{klass} with a goal or source: a change of state"
    if placing and caused and roles & PLACING:
        return "state", "putting an object somewhere (a troponym of put): a caused change"
    if scale_goal:
        return "state", "a goal on a scale (time, money, number)"
    if decision:
        return "state", "a way to choose or decide (WordNet troponym): the choice holds"
    if not _past(head):
        return "state", f"verb.{klass or '?'}, not past (habitual or ongoing)"
    return "event", f"verb.{klass or '?'} in the past"
