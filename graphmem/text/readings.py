"""What a statement says, as far as the equivalence judge must know: who does what to
whom (roles from the dependency parse) and which words carry its meaning.

Owns ``Reading`` (read from one text) and ``compare`` (how two readings differ, with a
reason a person can check). May import graphmem.text.nlp (the spaCy pipeline and its
parse cache) and graphmem.text.lexicon (WordNet); nothing else of graphmem.

Differences ``compare`` reports, in this order (the first found is the reason):

==========  =================================================================================
roles       one party holds another role of the same predicate (swapped: "Omar thanked
            Priya" / "Priya thanked Omar"), or one role is filled by different parties in
            the two ("Omar" / "Ali thanked Priya"). Passive is read as its active: the
            passive subject is the object, the "by" phrase the subject; "to X" and the
            dative are the recipient. Pronouns fill no role (they name no one by themselves).
antonym     a word of one is WordNet's antonym of a word of the other (open/closed,
scale       gained/lost, before/after), or both are values of one attribute (hot/warm)
kind        a noun or adjective of one is a co-hyponym (aspirin/ibuprofen, dublin/cork,
            blue/green) or a hyponym (amoxicillin/penicillin) of one of the other
==========  =================================================================================

``same_content`` is true when the content words (nouns, verbs, adjectives, adverbs,
numbers; not stop words) of the two are the same up to WordNet synonyms: with no
difference above, the two then say the same thing in another voice, tense or order.

Lower-case names parse as common nouns ("omar thanked jerry." has no verb), so each
text is read from a case-restored copy: a word WordNet writes only capitalised, or does
not know and is no stop word, is capitalised, and so is the first word. The copy depends
only on the words, not on their case, so the case of a name never changes a reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.text.lexicon import Lexicon, Relation

ROLE_NAMES = {"subj": "subject", "obj": "object", "to": "recipient"}
CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
KIN_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


@dataclass(frozen=True)
class Reading:
    """One text's roles ({(predicate, role): parties}) and words ({lemma: coarse POS})."""

    roles: dict[tuple[str, str], frozenset[str]]
    words: dict[str, str]
    content: frozenset[str]


@dataclass(frozen=True)
class Difference:
    """How two readings differ: ``kind`` (roles, antonym, scale, kind) and why."""

    kind: str
    reason: str


def restore_case(text: str, lexicon: Lexicon) -> str:
    """A copy with names capitalised (see the module docstring) and the rest lower-cased
    where it was capitalised only by position; the copy ignores the input's case."""
    from spacy.lang.en.stop_words import STOP_WORDS

    def fix(match: re.Match) -> str:
        word = match.group(0)
        low = word.lower()
        if low in STOP_WORDS or len(low) < 2:
            return low
        if lexicon.is_name(low) or not lexicon.known(low.replace("’", "'").split("'")[0]):
            return low[:1].upper() + low[1:]
        return low

    restored = _WORD.sub(fix, text)
    return re.sub(r"^(\W*)([a-z])", lambda m: m.group(1) + m.group(2).upper(), restored)


def read(docs, lexicon: Lexicon) -> list[Reading]:
    """The Reading of each parsed Doc."""
    return [_read(doc, lexicon) for doc in docs]


def _read(doc, lexicon: Lexicon) -> Reading:
    roles: dict[tuple[str, str], set[str]] = {}
    words: dict[str, str] = {}
    content = set()
    for tok in doc:
        if not tok.is_alpha:
            continue
        lemma = tok.lemma_.lower() if tok.pos_ != "PROPN" else tok.text.lower()
        words.setdefault(lemma, tok.pos_)
        if tok.pos_ in CONTENT_POS and not tok.is_stop:
            content.add(lemma)
        if tok.pos_ in ("VERB", "AUX"):
            for role, party in _roles_of(tok):
                roles.setdefault((tok.lemma_.lower(), role), set()).add(party)
    return Reading({k: frozenset(v) for k, v in roles.items()}, words, frozenset(content))


def _party(tok) -> list[str]:
    """The parties a role-filling token names: itself and its conjuncts (pronouns: none)."""
    out = []
    for t in [tok, *tok.conjuncts]:
        if t.pos_ == "PRON":
            continue
        out.append(t.lemma_.lower() if t.pos_ != "PROPN" else t.text.lower())
    return out


def _roles_of(verb) -> list[tuple[str, str]]:
    found = []
    for child in verb.children:
        dep = child.dep_
        if dep == "nsubj":
            found += [("subj", p) for p in _party(child)]
        elif dep in ("nsubjpass", "dobj"):
            found += [("obj", p) for p in _party(child)]
        elif dep == "agent":
            found += [("subj", p) for g in child.children if g.dep_ == "pobj" for p in _party(g)]
        elif dep == "dative" or (dep == "prep" and child.lower_ == "to"):
            objects = [g for g in child.children if g.dep_ == "pobj"]
            targets = objects or ([child] if dep == "dative" and child.pos_ != "ADP" else [])
            found += [("to", p) for g in targets for p in _party(g)]
    return found


def read_texts(texts: list[str], lexicon: Lexicon) -> list[Reading]:
    """The Reading of each text, parsed from its case-restored copy (parses are cached)."""
    from graphmem.text.nlp import parse_many

    return read(parse_many([restore_case(t, lexicon) for t in texts], parser=True), lexicon)


def compare(a: Reading, b: Reading, lexicon: Lexicon, *, roles: bool = True) -> Difference | None:
    """The first difference between two readings (see the module docstring), or None;
    ``roles=False`` compares only the words."""
    if not roles:
        return _words_differ(a, b, lexicon)
    return _roles_swapped(a, b, lexicon) or _words_differ(a, b, lexicon) or _roles_replaced(a, b, lexicon)


def _same_predicate(x: str, y: str, lexicon: Lexicon) -> bool:
    if x == y:
        return True
    relation = lexicon.relation(x, y)
    return relation is not None and relation.kind == "synonym"


def _shared_predicates(a: Reading, b: Reading, lexicon: Lexicon):
    """(predicate, its roles in a, its roles in b) for each predicate both readings have."""
    verbs_b = sorted({v for v, _ in b.roles})
    for va in sorted({v for v, _ in a.roles}):
        for vb in verbs_b:
            if _same_predicate(va, vb, lexicon):
                yield (va, {r: a.roles.get((va, r), frozenset()) for r in ROLE_NAMES},
                       {r: b.roles.get((vb, r), frozenset()) for r in ROLE_NAMES})


def _roles_swapped(a: Reading, b: Reading, lexicon: Lexicon) -> Difference | None:
    for verb, held_a, held_b in _shared_predicates(a, b, lexicon):
        for ra in ROLE_NAMES:
            for rb in ROLE_NAMES:
                moved = held_a[ra] & held_b[rb] - held_a[rb] - held_b[ra] if ra != rb else set()
                if moved:
                    other = "+".join(sorted(held_b[ra])) or "nobody"
                    return Difference("roles", f"roles swapped: {ROLE_NAMES[ra]} of {verb!r} "
                                               f"{'+'.join(sorted(held_a[ra]))}≠{other}")
    return None


def _roles_replaced(a: Reading, b: Reading, lexicon: Lexicon) -> Difference | None:
    for verb, held_a, held_b in _shared_predicates(a, b, lexicon):
        for role in ("subj", "obj"):
            x, y = held_a[role], held_b[role]
            if x and y and not x & y and not _all_synonyms(x, y, lexicon):
                return Difference("roles", f"roles differ: {ROLE_NAMES[role]} of {verb!r} "
                                           f"{'+'.join(sorted(x))}≠{'+'.join(sorted(y))}")
    return None


def _all_synonyms(xs: frozenset[str], ys: frozenset[str], lexicon: Lexicon) -> bool:
    return all(any(_same_predicate(x, y, lexicon) for y in ys) for x in xs)


def _words_differ(a: Reading, b: Reading, lexicon: Lexicon) -> Difference | None:
    only_a = [w for w in a.words if w not in b.words]
    only_b = [w for w in b.words if w not in a.words]
    kin: Relation | None = None
    for x in only_a:
        for y in only_b:
            relation = lexicon.relation(x, y)
            if relation is None or relation.kind == "synonym":
                continue
            if relation.kind in ("antonym", "scale"):
                label = "antonyms" if relation.kind == "antonym" else "different values on one scale"
                return Difference(relation.kind, f"{label}: {relation}")
            if kin is None and a.words[x] in KIN_POS and b.words[y] in KIN_POS:
                kin = relation
    if kin is not None:
        label = "co-hyponyms" if kin.kind == "co-hyponym" else "one is a kind of the other"
        return Difference("kind", f"{label}: {kin}")
    return None


def same_content(a: Reading, b: Reading, lexicon: Lexicon) -> bool:
    """The content words agree up to WordNet synonyms (see the module docstring)."""
    only_a, only_b = a.content - b.content, b.content - a.content
    return (_all_synonyms(frozenset(only_a), frozenset(only_b), lexicon)
            and _all_synonyms(frozenset(only_b), frozenset(only_a), lexicon))
