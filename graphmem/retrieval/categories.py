"""The members of a category a question asks about, from WordNet (offline).

"Which countries has Melanie visited?" is answered by "we spent a week in Sweden", which
shares no word with it. WordNet lists Sweden under country: the hyponyms (kinds and
instances) of the question's category noun, a few steps down, are words its answers
may use. Drift is bounded three ways: only the first ``SENSES`` noun senses of a word,
only ``STEPS`` steps down, and a noun counts as a category only with at least
``MIN_MEMBERS`` single-word members (a leaf noun such as "pet" expands to nothing).

    category_members(text) -> the member words of every category noun in ``text``

Reads the compact table of ``graphmem.text.lexicon``; imports nothing else of graphmem.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict

from graphmem.text.lexicon import Lexicon, default_lexicon

SENSES = 2
STEPS = 3
MIN_MEMBERS = 10
MAX_MEMBERS = 400
_WORD = re.compile(r"[A-Za-z]+")
_SKIP = frozenset({"what", "which", "who", "when", "where", "how", "does", "did", "has",
                   "have", "thing", "things", "kind", "kinds", "type", "types", "way",
                   "ways", "time", "times", "something", "anything", "lot", "one"})


@functools.cache
def _tables() -> tuple[Lexicon, dict[int, tuple[int, ...]], dict[int, tuple[str, ...]]]:
    lexicon = default_lexicon()
    below: dict[int, list[int]] = defaultdict(list)
    for synset, parents in lexicon.hyper.items():
        for parent in parents:
            below[parent].append(synset)
    words: dict[int, list[str]] = defaultdict(list)
    for lemma, synsets in lexicon.senses.items():
        if lemma.isalpha():
            for synset in synsets:
                words[synset].append(lemma)
    return (lexicon, {s: tuple(c) for s, c in below.items()},
            {s: tuple(sorted(w)) for s, w in words.items()})


def members_of(noun: str) -> list[str]:
    """The single-word members of ``noun`` as a category, nearest kinds first (empty if
    it is no category)."""
    lexicon, below, words = _tables()
    out: list[str] = []
    for form in lexicon.base_forms(noun)[:1]:
        senses = [s for s in lexicon.synsets(form) if lexicon.pos.get(s) == "n"][:SENSES]
        for sense in senses:
            found: list[str] = []
            frontier, seen = [sense], {sense}
            for _ in range(STEPS):
                frontier = [c for s in frontier for c in below.get(s, ()) if c not in seen]
                seen.update(frontier)
                found.extend(w for s in frontier for w in words.get(s, ()))
            found = [w for w in dict.fromkeys(found) if w != form]
            if len(found) >= MIN_MEMBERS:
                out.extend(found)
    return list(dict.fromkeys(out))[:MAX_MEMBERS]


def category_members(text: str) -> list[str]:
    """The members of every category noun of ``text`` (names and question words left
    out), in the order the nouns come."""
    lexicon = _tables()[0]
    out: list[str] = []
    for word in _WORD.findall(text):
        if word[0].isupper() and lexicon.is_name(word) or word.lower() in _SKIP:
            continue
        out.extend(members_of(word.lower()))
    return list(dict.fromkeys(out))[:MAX_MEMBERS]
