"""WordNet relations between two words: synonyms, antonyms, scale mates, co-hyponyms.

Owns the compact WordNet table shipped in ``graphmem/text/data`` (built from Debian's
``wordnet-base`` by ``scripts/build_wordnet.py``; WordNet's licence travels with it) and
the questions the equivalence judge asks of it. Imports only the standard library.

A ``Lexicon`` is an immutable table; load it once with
``Lexicon.load()`` (about 0.5 s) and hand it to whoever needs it. ``default_lexicon()``
is a lock-guarded cache of that one immutable load.

Relations between two lemmas ``a`` and ``b`` (``relation``), first that applies:

=============  ==========================================================================
synonym        they share a synset (car/automobile): not a difference
antonym        a sense of one is WordNet's antonym of a sense of the other, directly,
               through the heads of their adjective clusters (scorching/freezing via
               hot/cold) or carried over a derivational link (winner/loser)
scale          two adjectives from different clusters that are values of the same
               attribute (hot/warm: temperature)
hyponym        one is a kind of the other (amoxicillin/penicillin)
co-hyponym     noun senses with a common hypernym within two steps, that hypernym at
               least ``MIN_SHARED_DEPTH`` below the root (aspirin/ibuprofen, blue/green,
               dublin/cork)
=============  ==========================================================================
"""

from __future__ import annotations

import functools
import json
import lzma
import threading
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "wordnet-compact.json.xz"
#: a common hypernym this close to the root (entity, object, abstraction...) says nothing
MIN_SHARED_DEPTH = 4
#: noun senses considered for kinship: rarer senses give spurious cousins
KIN_SENSES = 4
_SUFFIXES = {  # WordNet's own detachment rules (morphy), by part of speech
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
}


@dataclass(frozen=True)
class Relation:
    """How two words relate, and the words' senses that show it."""

    kind: str
    a: str
    b: str
    via: str = ""

    def __str__(self) -> str:
        joiner = {"antonym": "≠", "scale": "≠", "co-hyponym": "≠", "hyponym": "⊂"}.get(self.kind, "/")
        return f"{self.a}{joiner}{self.b}" + (f" ({self.via})" if self.via else "")


@dataclass(frozen=True)
class Lexicon:
    """The compact WordNet table and the relations the judge asks about."""

    senses: dict[str, tuple[int, ...]]
    pos: dict[int, str]
    hyper: dict[int, tuple[int, ...]]
    head: dict[int, int]
    antonyms: frozenset[tuple[int, int]]
    attribute: dict[int, frozenset[int]]
    derived: frozenset[tuple[str, str]]
    proper: frozenset[str]
    exceptions: dict[str, str]
    lexfile: dict[int, str] = field(default_factory=dict, compare=False, repr=False)
    vhyper: dict[int, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)
    depths: dict[int, int] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def load(cls, path: Path = DATA) -> Lexicon:
        """Read the compact table (``FileNotFoundError`` names the build script)."""
        if not path.exists():
            raise FileNotFoundError(f"{path} is missing; build it with scripts/build_wordnet.py")
        raw = json.loads(lzma.decompress(path.read_bytes()))
        hyper = {int(k): tuple(v) for k, v in raw["hyper"].items()}
        return cls(
            senses={k: tuple(v) for k, v in raw["senses"].items()},
            pos={int(k): v for k, v in raw["pos"].items()},
            hyper=hyper,
            head={int(k): v for k, v in raw["head"].items()},
            antonyms=frozenset((a, b) for a, b in raw["antonym"]),
            attribute={int(k): frozenset(v) for k, v in raw["attribute"].items()},
            derived=frozenset((a, b) for a, b in raw["derived"]),
            proper=frozenset(raw["proper"]),
            exceptions=dict(raw["exc"]),
            lexfile={int(k): v for k, v in raw.get("lexfile", {}).items()},
            vhyper={int(k): tuple(v) for k, v in raw.get("vhyper", {}).items()},
            depths=_depths(hyper),
        )

    # words --------------------------------------------------------------------

    def base_forms(self, word: str) -> list[str]:
        """The lemmas WordNet knows for an inflected ``word`` (its own form first)."""
        word = word.lower()
        forms = [word] if word in self.senses else []
        if word in self.exceptions:
            forms.append(self.exceptions[word])
        for rules in _SUFFIXES.values():
            for suffix, ending in rules:
                if word.endswith(suffix) and len(word) > len(suffix) + 1:
                    base = word[: -len(suffix)] + ending
                    if base in self.senses and base not in forms:
                        forms.append(base)
        return forms

    def known(self, word: str) -> bool:
        return bool(self.base_forms(word))

    def is_name(self, word: str) -> bool:
        """A word WordNet writes only capitalised (dublin, jerry) and that is no form of
        a common word ("lent" is a form of lend, not only the season)."""
        word = word.lower()
        return word in self.proper and all(f in self.proper for f in self.base_forms(word))

    def synsets(self, lemma: str) -> tuple[int, ...]:
        return self.senses.get(lemma.lower(), ())

    def verb_classes(self, word: str) -> tuple[str, ...]:
        """The lexicographer classes of ``word``'s verb senses, most frequent sense first
        ("stative", "possession", "communication", ...; see WordNet's lexnames)."""
        out: list[str] = []
        for form in self.base_forms(word) or [word.lower()]:
            out += [self.lexfile[s] for s in self.synsets(form) if s in self.lexfile]
        return tuple(out)

    def verb_is_a(self, word: str, kind: str, senses: int = 3) -> bool:
        """Whether one of ``word``'s first verb senses is ``kind``'s first verb sense or
        a way of doing it (WordNet troponymy: to pick is to choose)."""
        target = next((s for s in self.synsets(kind) if s in self.lexfile), None)
        if target is None:
            return False
        for form in self.base_forms(word) or [word.lower()]:
            stack = [s for s in self.synsets(form) if s in self.lexfile][:senses]
            seen: set[int] = set()
            while stack:
                s = stack.pop()
                if s == target:
                    return True
                if s not in seen:
                    seen.add(s)
                    stack.extend(self.vhyper.get(s, ()))
        return False

    # relations ----------------------------------------------------------------

    def relation(self, a: str, b: str) -> Relation | None:
        """How words ``a`` and ``b`` relate, over their base forms (the first relation
        found, in the order of the module docstring), or None."""
        a, b = a.lower(), b.lower()
        if a == b:
            return None
        found = [r for x in self.base_forms(a) or [a] for y in self.base_forms(b) or [b]
                 if (r := self.lemma_relation(x, y)) is not None]
        order = ("antonym", "scale", "synonym", "hyponym", "co-hyponym")
        if any(r.kind == "synonym" for r in found) and not any(r.kind in order[:2] for r in found):
            return next(r for r in found if r.kind == "synonym")
        return min(found, key=lambda r: order.index(r.kind), default=None)

    def lemma_relation(self, a: str, b: str) -> Relation | None:
        """How lemma ``a`` relates to lemma ``b`` (see the module docstring), or None."""
        if a == b:
            return None
        sa, sb = self.synsets(a), self.synsets(b)
        if not sa or not sb:
            return None
        if self._antonyms(a, b, sa, sb):
            return Relation("antonym", a, b)
        if self._shared_attribute(sa, sb):
            return Relation("scale", a, b)
        if set(sa) & set(sb):
            return Relation("synonym", a, b)
        return self._kinship(a, b, sa, sb)

    def _cluster(self, s: int) -> int:
        return self.head.get(s, s)

    def _antonyms(self, a: str, b: str, sa: tuple[int, ...], sb: tuple[int, ...]) -> bool:
        if (min(a, b), max(a, b)) in self.derived:
            return True
        clusters_b = {self._cluster(s) for s in sb} | set(sb)
        for s in sa:
            for mine in {s, self._cluster(s)}:
                for other in clusters_b:
                    if (min(mine, other), max(mine, other)) in self.antonyms:
                        return True
        return False

    def _shared_attribute(self, sa: tuple[int, ...], sb: tuple[int, ...]) -> bool:
        """The most frequent adjective senses lie in different clusters on one scale, and
        neither word has a sense in the other's main cluster (close has one in near's:
        near-synonyms). Rarer shared synsets do not count: hot and warm share one as
        "close to the goal"."""
        adj_a = [s for s in sa if self.pos.get(s) in ("a", "s")]
        adj_b = [s for s in sb if self.pos.get(s) in ("a", "s")]
        if not adj_a or not adj_b:
            return False
        head_a, head_b = self._cluster(adj_a[0]), self._cluster(adj_b[0])
        if head_a in {self._cluster(s) for s in adj_b} or head_b in {self._cluster(s) for s in adj_a}:
            return False
        return bool(self.attribute.get(head_a, frozenset()) & self.attribute.get(head_b, frozenset()))

    def _nouns(self, senses: tuple[int, ...]) -> list[int]:
        return [s for s in senses if self.pos.get(s) == "n"][:KIN_SENSES]

    def _kinship(self, a: str, b: str, sa: tuple[int, ...], sb: tuple[int, ...]) -> Relation | None:
        na, nb = self._nouns(sa), self._nouns(sb)
        if not na or not nb:
            return None
        ancestors_a = {s: self._ancestors(s) for s in na}
        ancestors_b = {s: self._ancestors(s) for s in nb}
        if any(x in ancestors_b[y] for x in na for y in nb):
            return Relation("hyponym", b, a)
        if any(y in ancestors_a[x] for x in na for y in nb):
            return Relation("hyponym", a, b)
        for x in na:
            near_a = self._near(x)
            for y in nb:
                shared = near_a & self._near(y)
                if any(self.depth(s) >= MIN_SHARED_DEPTH for s in shared):
                    return Relation("co-hyponym", a, b)
        return None

    def _near(self, s: int) -> set[int]:
        """Hypernyms up to two steps above ``s``."""
        first = set(self.hyper.get(s, ()))
        return first | {g for p in first for g in self.hyper.get(p, ())}

    def _ancestors(self, s: int) -> set[int]:
        seen: set[int] = set()
        stack = list(self.hyper.get(s, ()))
        while stack:
            x = stack.pop()
            if x not in seen:
                seen.add(x)
                stack.extend(self.hyper.get(x, ()))
        return seen

    def depth(self, s: int) -> int:
        """Fewest hypernym steps from noun synset ``s`` up to a root."""
        return self.depths.get(s, 0)


def _depths(hyper: dict[int, tuple[int, ...]]) -> dict[int, int]:
    """Each noun synset's fewest hypernym steps to a root, computed once at load."""
    depths: dict[int, int] = {}
    for start in hyper:
        stack = [start]
        while stack:
            s = stack[-1]
            pending = [p for p in hyper.get(s, ()) if p not in depths]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            parents = hyper.get(s, ())
            depths[s] = 1 + min(depths[p] for p in parents) if parents else 0
    return depths


_lock = threading.Lock()


@functools.cache
def _shipped() -> Lexicon:
    return Lexicon.load()


def default_lexicon() -> Lexicon:
    """The shipped table, loaded once per process (under a lock: loading twice at once
    would only waste time, but the lock makes the one immutable table certain)."""
    with _lock:
        return _shipped()
