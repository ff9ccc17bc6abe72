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
a goal that is a value on a     state: "pushed to May 5", "cut to 4 people"
scale (time, money, number)
a way to choose or decide       state: "the team picked Vercel", "we chose X" (WordNet
                                troponyms of choose / decide): the choice holds
any other class, not past       state (habitual or ongoing): "we use Postgres",
                                "Ana prefers tea", "we are planning X for May"
any other class, past           event: "Tom hit Jerry", "Ana visited Berlin"
==============================  ==========================================================

Participants are the noun phrases of the main clause (subordinate clauses left out),
each with a type: ``time``, ``money``, ``number``, ``name`` (a proper name), ``thing``
(a common noun: ``definite`` with the/this/our..., or bare) and the role it fills.
Anchors (what the claim is about) are its definite things, or its names when it has
none: "Lukas owns the billing integration" is about the integration (a thing has one
owner, an owner many things), "Ana lives in Berlin" about Ana. Values are every typed
participant that is not marked as the value replaced ("from X to Y", "replaced X with
Y", "instead of X").

Owns ``Claim`` and ``read_claim``. May import graphmem.text (the parser and WordNet);
nothing else of graphmem.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from graphmem.text.lexicon import Lexicon

Kind = Literal["state", "event", "utterance", "none"]
STATE_CLASSES = frozenset({"stative", "possession", "social"})
CHANGE_CLASSES = frozenset({"change", "motion"})
SCALE_TYPES = frozenset({"time", "money", "number"})
COPULAS = frozenset({"be", "become", "remain", "stay", "seem"})
#: prepositions that mark where a change of state ends or starts
GOAL_PREPS = frozenset({"to", "into", "onto", "from", "for", "as", "on", "at"})
#: where a verb of putting puts its object ("put Maya in charge", "set the vase on the
#: shelf"): a caused change of location or state
PLACING = frozenset({"in", "into", "on", "onto", "to"})
#: verbs whose troponyms make a choice that then holds ("picked Vercel", "chose X")
DECIDING = ("choose", "decide")
#: aspectual adverbs that presuppose another value before (a change of state)
CHANGE_ADVERBS = frozenset({"now", "instead", "anymore", "again", "back", "longer"})
#: words naming the time of speaking, not a value ("from today X leads")
DEICTIC = frozenset({"today", "tonight", "now", "tomorrow", "yesterday", "currently"})
MONTHS_DAYS = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split())
#: verbs whose object is the value given up ("replaced Postgres with MySQL")
REPLACING = frozenset({"replace", "substitute", "swap", "exchange", "trade"})
SUBORDINATE = frozenset({"advcl", "relcl", "ccomp", "csubj", "parataxis", "mark", "acl",
                         "punct", "xcomp"})
NOMINAL = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "attr", "acomp", "dative", "oprd",
                     "appos", "conj", "npadvmod", "nmod"})
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
_DEFINITE = frozenset({"the", "this", "that", "these", "those"})
_INDEFINITE = frozenset({"a", "an", "some", "any", "another", "every", "each", "no"})


@dataclass(frozen=True)
class Participant:
    """A noun phrase of the clause: its normalised ``key``, ``type``, grammatical
    ``role`` (subj, obj, or the preposition that governs it) and whether it is the
    value the statement says was replaced."""

    key: str
    type: str  # time, money, number, name, thing (definite), bare, indefinite
    role: str
    replaced: bool = False

    @property
    def anchor(self) -> bool:
        return self.type in ("name", "thing") and not self.replaced

    @property
    def value(self) -> bool:
        return self.type != "indefinite" and not self.replaced


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


# -- participants ----------------------------------------------------------------------

def _number_key(text: str) -> str | None:
    low = text.lower().replace(",", "")
    if low in _NUMBER_WORDS:
        return _NUMBER_WORDS[low]
    return low if re.fullmatch(r"\d+(\.\d+)?", low) else None


def _scale_type(tok, money: set[int]) -> str | None:
    if tok.i in money:
        return "money"
    low = tok.lower_
    if low in DEICTIC or tok.pos_ not in ("NUM", "PROPN", "NOUN", "ADJ"):
        return None
    if tok.ent_type_ in ("DATE", "TIME") or low in MONTHS_DAYS:
        return "time"
    if tok.ent_type_ == "MONEY" or (tok.like_num and _number_key(tok.text)):
        return "number"
    return None


def _money_tokens(clause) -> set[int]:
    """Numbers that are amounts of money ("$40,000", "40k euros")."""
    out = set()
    for tok in clause:
        if tok.ent_type_ == "MONEY" and _number_key(tok.text) is not None:
            out.add(tok.i)
        elif tok.like_num and any(c.tag_ == "$" or c.text in "$€£" for c in tok.children):
            out.add(tok.i)
        elif tok.like_num and tok.i > 0 and tok.doc[tok.i - 1].text in "$€£":
            out.add(tok.i)
    return out


def _is_name(tok, segment_start: int, lexicon: Lexicon | None = None) -> bool:
    text = tok.text
    if not text[:1].isalpha():
        return False
    if text[:1].isupper() and lexicon is not None and tok.pos_ in ("NOUN", "PROPN") and \
            (lexicon.is_name(tok.lower_) or not lexicon.known(tok.lower_)):
        return True  # a capitalised first word WordNet writes only as a name, or not at all
    if tok.pos_ == "PROPN" or any(c.isupper() for c in text[1:]):
        return True
    if text[:1].isupper() and tok.pos_ in ("VERB", "ADJ", "ADV") and tok.dep_ in NOMINAL:
        return True  # a verb cannot fill a noun's role: a name the tagger misread ("Fly")
    return text[:1].isupper() and tok.i != segment_start and tok.lower_ not in _DEFINITE


def _role(tok) -> str:
    """subj, obj, or the preposition governing ``tok`` (through conjunctions)."""
    while tok.dep_ in ("conj", "appos", "compound", "nummod", "quantmod") and tok.head.i != tok.i:
        tok = tok.head
    dep = tok.dep_
    if dep == "nsubj":
        return "subj"
    if dep in ("nsubjpass", "dobj", "attr", "dative", "oprd"):
        return "obj"
    if dep == "pobj":
        prep = tok.head
        if prep.lower_ == "by" and prep.dep_ == "agent":
            return "subj"
        return prep.lower_
    return dep


def _replaced(tok, head) -> bool:
    """The value the statement says was given up: "from X (to Y)", "instead of X",
    "replaced X (with Y)"."""
    probe = tok
    while probe.dep_ in ("conj", "appos", "compound", "nummod", "quantmod") and probe.head.i != probe.i:
        probe = probe.head
    if probe.dep_ == "pobj":
        prep = probe.head
        if prep.lower_ == "from" and any(s.lower_ == "to" for s in prep.head.children):
            return True
        if prep.lower_ == "of" and prep.head.lower_ == "instead":
            return True
    if probe.dep_ == "dobj" and probe.head.lemma_.lower() in REPLACING:
        return True
    # "went from 5 to 7 people": the parser hangs both numbers on the noun
    before = [t.lower_ for t in tok.doc[max(0, tok.i - 2):tok.i]]
    after = [t.lower_ for t in tok.doc[tok.i + 1:tok.i + 3]]
    return "from" in before and "to" in after


def _run_before(tok) -> list:
    """Nouns just before ``tok`` in the same role of the same head: a compound the
    parser split ("handed the backend workstream": two objects)."""
    run: list = []
    i = tok.i - 1
    while i >= 0 and tok.doc[i].pos_ == "NOUN" and tok.doc[i].dep_ == tok.dep_ \
            and tok.doc[i].head.i == tok.head.i:
        run.insert(0, tok.doc[i])
        i -= 1
    return run


def _split_compound(tok) -> bool:
    """``tok`` is the first part of such a split compound (its last noun speaks for it)."""
    nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    return nxt is not None and nxt.pos_ == "NOUN" and nxt.dep_ == tok.dep_ \
        and nxt.head.i == tok.head.i and tok.dep_ in ("dobj", "pobj", "nsubj")


def _phrase_key(tok, names: dict[int, str]) -> str:
    words = [c for c in tok.children if c.dep_ in ("compound", "amod") and c.i < tok.i]
    words += _run_before(tok)
    lemma = tok.lemma_.lower() if tok.pos_ == "NOUN" else tok.lower_
    return " ".join([names.get(w.idx, w.lower_) for w in sorted(words, key=lambda w: w.i)]
                    + [names.get(tok.idx, lemma)])


def _determiner(tok) -> str:
    modifiers = [c for c in tok.children if c.dep_ in ("compound", "amod")] + _run_before(tok)
    for c in [*tok.children, *(g for m in modifiers for g in m.children)]:
        if c.dep_ == "poss":
            return "definite"
        if c.dep_ in ("det", "predet"):
            low = c.lower_
            if low in _DEFINITE:
                return "definite"
            if low in _INDEFINITE:
                return "indefinite"
        if c.dep_ == "nummod" or c.like_num:
            return "indefinite"
    return "bare"


def participants(clause, head, segment_start: int, lexicon: Lexicon | None = None,
                 names: dict[int, str] | None = None) -> list[Participant]:
    names = names or {}
    money = _money_tokens(clause)
    found: list[Participant] = []
    used: set[int] = set()
    for tok in clause:
        if tok.i in used or tok.i == head.i:
            continue
        scale = _scale_type(tok, money)
        if scale is not None:
            span = [tok]
            nxt = tok.i + 1
            while nxt < len(tok.doc) and tok.doc[nxt] in clause and \
                    tok.doc[nxt].pos_ in ("NUM", "PROPN", "NOUN") and \
                    _scale_type(tok.doc[nxt], money) == scale:
                span.append(tok.doc[nxt])
                nxt += 1
            used.update(t.i for t in span)
            key = " ".join(_number_key(t.text) or t.lower_ for t in span)
            anchor_tok = max(span, key=lambda t: t.dep_ in NOMINAL)
            found.append(Participant(key, scale, _role(anchor_tok), _replaced(anchor_tok, head)))
            continue
        if tok.pos_ == "PRON" or tok.lower_ in DEICTIC or \
                not any(c.isalpha() for c in tok.text):
            continue
        is_name = tok.idx in names or _is_name(tok, segment_start, lexicon)
        if is_name and tok.dep_ in NOMINAL | {"compound", "nummod"}:
            span = [tok]
            if tok.dep_ == "compound":
                continue  # the head carries the whole name, or the thing it names ("QA team")
            span = sorted([*(c for c in tok.children if c.dep_ == "compound"
                             and (c.idx in names or _is_name(c, segment_start, lexicon))),
                           tok], key=lambda t: t.i)
            used.update(t.i for t in span)
            found.append(Participant(" ".join(names.get(t.idx, t.lower_) for t in span),
                                     "name", _role(tok),
                                     _replaced(tok, head)))
        elif tok.pos_ in ("NOUN", "PROPN", "NUM") and tok.dep_ in NOMINAL \
                and not (tok.pos_ == "NOUN" and _split_compound(tok)):
            kind = {"definite": "thing"}.get(_determiner(tok), _determiner(tok))
            found.append(Participant(_phrase_key(tok, names), kind, _role(tok),
                                     _replaced(tok, head)))
    return found


# -- the claim ---------------------------------------------------------------------------

def _past(head) -> bool:
    if head.tag_ == "VBD":
        return True
    return any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in head.children)


def _passive(head) -> bool:
    return any(c.dep_ in ("auxpass", "nsubjpass") for c in head.children)


_CAPITALISED = re.compile(r"[A-Z][\w'’-]*")
_PLACEHOLDERS = ("Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry")


def name_copy(text: str) -> tuple[str, dict[int, str]]:
    """The text the parser reads, and the name each placeholder stands for (by offset).

    A capitalised word inside a sentence is a name, and a name that is also an English
    verb misleads the parser ("going back to Render" reads as "to render"): each such
    word is replaced by a placeholder name the parser knows (the same word by the same
    one), except month and day names, which the entity recogniser reads as dates.
    """
    out: list[str] = []
    names: dict[int, str] = {}
    chosen: dict[str, str] = {}
    cursor = shift = 0
    for match in _CAPITALISED.finditer(text):
        word = match.group(0)
        before = text[:match.start()].rstrip()
        if not before or before[-1] in ".!?:;\"“" or word.lower() in MONTHS_DAYS or word == "I":
            continue
        placeholder = chosen.setdefault(word.lower(), _PLACEHOLDERS[len(chosen) % len(_PLACEHOLDERS)])
        out.append(text[cursor:match.start()])
        names[match.start() + shift] = word.lower().rstrip(".")
        out.append(placeholder)
        shift += len(placeholder) - len(word)
        cursor = match.end()
    out.append(text[cursor:])
    return "".join(out), names


def read_claim(doc, lexicon: Lexicon, names: dict[int, str] | None = None) -> Claim:
    """The claim of one parsed statement (a spaCy Doc of the full pipeline); ``names``:
    the name each placeholder of a ``name_copy`` stands for, by character offset."""
    names = names or {}
    text = doc.text.strip()
    if text.endswith("?"):
        return Claim("none", why="a question")
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
    goals = {p.role for p in people} & GOAL_PREPS
    scale_goal = any(p.type in SCALE_TYPES and p.role in GOAL_PREPS for p in people)
    changes = bool(adverbs & CHANGE_ADVERBS) or (klass in CHANGE_CLASSES and bool(goals)) \
        or any(p.replaced for p in people)
    caused = any(p.role == "obj" for p in people)
    kind, why = _kind(klass, head, copula=copula, goals=goals,
                      roles={p.role for p in people}, scale_goal=scale_goal,
                      back=bool(adverbs & {"back", "again"}), caused=caused,
                      decision=not copula and any(lexicon.verb_is_a(lemma, root)
                                                  for root in DECIDING),
                      placing=not copula and lexicon.verb_is_a(lemma, "put"))
    classes = frozenset(lexicon.verb_classes(lemma)[:SENSES]) if not copula else frozenset()
    return Claim(kind, lemma, klass, classes, tuple(people), negated, changes, why)


def _kind(klass: str, head, *, copula: bool, goals: set[str], roles: set[str],
          scale_goal: bool, back: bool, caused: bool, decision: bool,
          placing: bool) -> tuple[Kind, str]:
    """State, event or utterance, and why (the table of the module docstring)."""
    if copula:
        return "state", "copula"
    if klass == "communication" and not scale_goal:
        return "utterance", "verb.communication"
    if _passive(head) and not _past(head):
        return "state", "passive, not past (resultative)"
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
