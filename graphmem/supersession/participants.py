"""The participants of a statement's main clause: each noun phrase with a type (time,
money, number, name, definite thing, bare or indefinite noun), its role (subj, obj or
the governing preposition) and whether the statement gives it up ("from X to Y",
"replaced X with Y", "instead of X"); and ``name_copy``, the text the parser reads.

Owns ``Participant``, ``participants`` and ``name_copy``. May import graphmem.text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.text.lexicon import Lexicon

SCALE_TYPES = frozenset({"time", "money", "number"})
CLOCK = frozenset({"am", "pm", "o'clock", "o’clock"})
#: words naming the time of speaking, not a value ("from today X leads")
DEICTIC = frozenset({"today", "tonight", "now", "tomorrow", "yesterday", "currently"})
MONTHS_DAYS = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split())
#: verbs whose object is the value given up ("replaced Postgres with MySQL")
REPLACING = frozenset({"replace", "substitute", "swap", "exchange", "trade"})
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


def _number_key(text: str) -> str | None:
    low = text.lower().replace(",", "")
    if low in _NUMBER_WORDS:
        return _NUMBER_WORDS[low]
    return low if re.fullmatch(r"\d+(\.\d+)?", low) else None


def _clock_time(tok) -> bool:
    """A number read on a clock ("8 am", "9 pm", "10 o'clock"), whatever the recogniser
    says (it tags "9 am" a time and "8 am" sometimes not)."""
    nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    return tok.like_num and nxt is not None and nxt.lower_.replace(".", "") in CLOCK


def _scale_type(tok, money: set[int]) -> str | None:
    if tok.i in money:
        return "money"
    low = tok.lower_
    if low.replace(".", "") in CLOCK and tok.i > 0 and tok.doc[tok.i - 1].like_num:
        return "time"
    if low in DEICTIC or tok.pos_ not in ("NUM", "PROPN", "NOUN", "ADJ"):
        return None
    if tok.ent_type_ in ("DATE", "TIME") or low in MONTHS_DAYS or _clock_time(tok):
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
                    (tok.doc[nxt].pos_ in ("NUM", "PROPN", "NOUN")
                     or tok.doc[nxt].lower_.replace(".", "") in CLOCK) and \
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
