"""What a statement says, as far as the equivalence judge must know: who does what to
whom (roles from the dependency parse) and which words carry its meaning.

Owns ``Reading`` (read from one text) and ``compare`` (how two readings differ, with a
reason a person can check). May import graphmem.text.nlp (the spaCy pipeline and its
parse cache) and graphmem.text.lexicon (WordNet); nothing else of graphmem.

Differences ``compare`` reports, in this order (the first found is the reason):

==========  =================================================================================
roles       one party holds another role of the same predicate (swapped: "Omar thanked
            Priya" / "Priya thanked Omar"), or one role is filled by another named party
            ("omar" / "ali thanked priya": lower case, which the names guard cannot see)
            or by another party while the first is still mentioned ("the nurse" / "the
            nurse's assistant helped the doctor"). Passive is read as its active: the
            passive subject is the object, the "by" phrase the subject; "to X" and the
            dative are the recipient, "from X" the source (to and from flip a direction).
            Pronouns fill no role (they name no one by themselves).
antonym     a word of one is WordNet's antonym of a word of the other (open/closed,
scale       gained/lost, before/after), or both are values of one attribute (hot/warm)
kind        a noun or adjective of one is a co-hyponym (aspirin/ibuprofen, dublin/cork,
            blue/green) or a hyponym (amoxicillin/penicillin) of one of the other
==========  =================================================================================

``same_content`` is true when the content words (nouns, verbs, adjectives, adverbs,
numbers; not stop words) of the two are the same up to WordNet synonyms: with no
difference above, the two then say the same thing in another voice, tense or order.

Lower-case and rare names parse badly ("omar thanked jerry." and even "Noah forgave
Mia." come out without a verb), so each text is parsed from a copy in which every name
is replaced by a placeholder name the parser knows well (the first by "Alice", the
second by "Bob", ...), and the first word is capitalised; the reading maps the
placeholders back to the names. A name is a word that is no stop word and that WordNet
writes only capitalised or does not know, or a capitalised word inside a sentence. For
names that are not English words the copy depends only on the words, not their case, so
their case never changes a reading; a name that is also a word ("lily", "mark") is read
as a name only when capitalised inside a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.text.lexicon import Lexicon, Relation
from graphmem.text.nlp import Parser

ROLE_NAMES = {"subj": "subject", "obj": "object", "to": "recipient/goal", "from": "source"}
#: roles marked by a preposition: a party moving between them is no misparse
MARKED = frozenset({"to", "from"})
CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
KIN_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_SENTENCE_END = re.compile(r"[.!?:]")


@dataclass(frozen=True)
class Reading:
    """One text's roles ({(predicate, role): parties}), words ({lemma: coarse POS}), content
    words, and each lemma's form in the text (sooner for soon: WordNet knows the form)."""

    roles: dict[tuple[str, str], frozenset[str]]
    words: dict[str, str]
    content: frozenset[str]
    forms: dict[str, str]
    names: tuple[str, ...] = ()  # the names, in order of appearance
    passive: bool = False


@dataclass(frozen=True)
class Difference:
    """How two readings differ: ``kind`` (roles, antonym, scale, kind) and why."""

    kind: str
    reason: str


PLACEHOLDERS = ("Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Irene",
                "Jack", "Laura", "Mark")


def placeholder_copy(text: str, lexicon: Lexicon) -> tuple[str, dict[int, str]]:
    """The copy the parser reads (see the module docstring) and, by character offset in
    the copy, the name each placeholder stands for (lower case)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    names: dict[str, str] = {}
    at: dict[int, str] = {}
    out: list[str] = []
    end = 0
    for match in _WORD.finditer(text):
        word = match.group(0)
        low = word.lower().replace("’", "'")
        stem = low.split("'")[0]
        out.append(text[end:match.start()])
        end = match.end()
        starts_sentence = not re.search(r"[A-Za-z0-9,;]", _SENTENCE_END.split(text[:match.start()])[-1])
        is_name = (stem not in STOP_WORDS and len(stem) > 1
                   and (lexicon.is_name(stem) or not lexicon.known(stem)
                        or (word[:1].isupper() and not starts_sentence)))
        if is_name and (stem in names or len(names) < len(PLACEHOLDERS)):
            name = names[stem] if stem in names else names.setdefault(stem, PLACEHOLDERS[len(names)])
            at[sum(map(len, out))] = stem
            out.append(name + word[len(stem):])
        else:
            out.append(low)
    out.append(text[end:])
    copy = "".join(out)
    first = re.search(r"[a-z]", copy)
    if first and not re.search(r"[A-Za-z]", copy[:first.start()]):
        copy = copy[:first.start()] + copy[first.start()].upper() + copy[first.start() + 1:]
    return copy, at


def _word(tok, names: dict[int, str]) -> str:
    """The token's lemma, or the name its placeholder stands for."""
    if tok.idx in names:
        return names[tok.idx]
    return tok.lemma_.lower() if tok.pos_ != "PROPN" else tok.text.lower()


def _read(doc, names: dict[int, str]) -> Reading:
    roles: dict[tuple[str, str], set[str]] = {}
    words: dict[str, str] = {}
    forms: dict[str, str] = {}
    content = set()
    for tok in doc:
        if not tok.is_alpha:
            continue
        lemma = _word(tok, names)
        words.setdefault(lemma, "PROPN" if tok.idx in names else tok.pos_)
        forms.setdefault(lemma, tok.lower_ if tok.idx not in names else lemma)
        if (tok.pos_ in CONTENT_POS and not tok.is_stop) or tok.idx in names:
            content.add(lemma)
        if tok.pos_ in ("VERB", "AUX"):
            for role, party in _roles_of(tok, names):
                roles.setdefault((tok.lemma_.lower(), role), set()).add(party)
    order = tuple(dict.fromkeys(names[t.idx] for t in doc if t.idx in names))
    passive = any(t.dep_ in ("agent", "nsubjpass", "auxpass") or t.lower_ == "by" for t in doc)
    return Reading({k: frozenset(v) for k, v in roles.items()}, words, frozenset(content), forms,
                   order, passive)


def _party(tok, names: dict[int, str]) -> list[str]:
    """The parties a role-filling token names: itself and its conjuncts (pronouns: none),
    with the titles and appositions that name the same party ("Captain Reyes", "the
    captain, Reyes"); each as written (lower case): the lemmatiser reads a name at the
    start of a sentence as a plural ("Ines" -> "ine") but not inside one."""
    out = []
    for head in [tok, *tok.conjuncts]:
        same = [head, *(c for c in head.children if c.dep_ in ("appos", "compound"))]
        out += [names.get(t.idx, t.lower_) for t in same if t.pos_ != "PRON"]
    return out


def _roles_of(verb, names: dict[int, str]) -> list[tuple[str, str]]:
    found = []
    for child in verb.children:
        dep = child.dep_
        if dep == "nsubj":
            found += [("subj", p) for p in _party(child, names)]
        elif dep in ("nsubjpass", "dobj"):
            found += [("obj", p) for p in _party(child, names)]
        elif dep == "agent":
            found += [("subj", p) for g in child.children if g.dep_ == "pobj" for p in _party(g, names)]
        elif dep == "dative" or (dep == "prep" and child.lower_ == "to"):
            objects = [g for g in child.children if g.dep_ == "pobj"]
            targets = objects or ([child] if dep == "dative" and child.pos_ != "ADP" else [])
            found += [("to", p) for g in targets for p in _party(g, names)]
        elif dep == "prep" and child.lower_ == "from":
            found += [("from", p) for g in child.children if g.dep_ == "pobj" for p in _party(g, names)]
    return found


def read_texts(texts: list[str], lexicon: Lexicon, parser: Parser | None = None) -> list[Reading]:
    """The Reading of each text, parsed from its case-restored copy by ``parser`` (a full
    pipeline's, whose cache keeps the parses; none given, nothing is kept)."""
    copies = [placeholder_copy(t, lexicon) for t in texts]
    docs = (parser or Parser(full=True, cache_size=0)).parse_many([c for c, _ in copies])
    return [_read(doc, names) for doc, (_, names) in zip(docs, copies)]


def compare(a: Reading, b: Reading, lexicon: Lexicon, *, roles: bool = True) -> Difference | None:
    """The first difference between two readings (see the module docstring), or None;
    ``roles=False`` compares only the words."""
    if not roles:
        return _words_differ(a, b, lexicon)
    return (_roles_swapped(a, b, lexicon) or _names_reordered(a, b) or _words_differ(a, b, lexicon)
            or _roles_replaced(a, b, lexicon))


def _names_reordered(a: Reading, b: Reading) -> Difference | None:
    """Where the parse found no roles in one text (the small model misreads some verbs,
    "forgave"), two active sentences naming the same people in another order."""
    if (a.roles and b.roles) or a.passive or b.passive:
        return None
    shared = set(a.names) & set(b.names)
    order_a = [n for n in a.names if n in shared]
    order_b = [n for n in b.names if n in shared]
    if len(shared) >= 2 and order_a != order_b:
        return Difference("roles", f"roles swapped (read from word order, no parse): "
                                   f"{'/'.join(order_a)}≠{'/'.join(order_b)}")
    return None


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
                # a party moving into a role left empty may be a misparse (inversion):
                # a swap needs someone else in the role it left, unless a preposition
                # marks both roles ("moved to Boston" / "moved from Boston")
                if moved and (held_b[ra] or {ra, rb} <= MARKED):
                    other = "+".join(sorted(held_b[ra])) or "nobody"
                    return Difference("roles", f"roles swapped: {ROLE_NAMES[ra]} of {verb!r} "
                                               f"{'+'.join(sorted(held_a[ra]))}≠{other}")
    return None


def _roles_replaced(a: Reading, b: Reading, lexicon: Lexicon) -> Difference | None:
    for verb, held_a, held_b in _shared_predicates(a, b, lexicon):
        for role in ("subj", "obj"):
            x, y = held_a[role], held_b[role]
            # a name replaced by another is a different party, and so is a party still
            # named in the other text but no longer in this role ("the nurse" / "the
            # nurse's assistant"); other common nouns differ by kind (the words rule) or
            # by wording (the similarity decides: cops / police)
            named = (x | y) & (set(a.names) | set(b.names))
            demoted = (x - y) & _mentioned(b) or (y - x) & _mentioned(a)
            if x and y and not x & y and (named or demoted) and not _all_synonyms(x, y, lexicon):
                return Difference("roles", f"roles differ: {ROLE_NAMES[role]} of {verb!r} "
                                           f"{'+'.join(sorted(x))}≠{'+'.join(sorted(y))}")
    return None


def _mentioned(r: Reading) -> set[str]:
    return set(r.words) | set(r.forms.values())


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
                relation = lexicon.relation(a.forms.get(x, x), b.forms.get(y, y)) or relation
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
