"""Derive graphmem's compact lexicon from the WordNet 3.0 database files.

Input: the database Debian's ``wordnet-base`` installs (``apt-get install wordnet-base``,
files in /usr/share/wordnet). Output: ``graphmem/text/data/wordnet-compact.json.xz``,
which ``graphmem.text.lexicon`` reads. Only what the equivalence judge asks is kept:

  senses      single-word lemma (and two-word verb: take_over) -> its synsets, most frequent sense first, at most
              ``MAX_SENSES`` per part of speech (synsets renumbered densely)
  pos         synset -> "n" "v" "a" "s" "r"
  hyper       noun synset -> its hypernyms and instance hypernyms
  head        adjective satellite -> the head of its cluster (similar-to)
  antonym     synset pairs whose lemmas are antonyms (WordNet's lexical "!" pointer)
  attribute   adjective head -> the attribute nouns it is a value of (hot -> temperature)
  derived     word-level antonym pairs carried over derivational links and adverb
              pertainyms (win/lose -> winner/loser, quick/slow -> quickly/slowly)
  proper      lemmas WordNet writes only capitalised (Dublin, Jerry): names
  exc         irregular forms -> base forms (the morphology exception lists)
  vhyper      verb synset -> its hypernyms (troponymy: "pick" is a way to "choose")
  lexfile     verb synset -> its lexicographer file's name without "verb." (stative,
              possession, social, change, motion, communication, contact, ...): what
              kind of situation the sense names (graphmem.supersession reads it)

Run:  python scripts/build_wordnet.py [--wordnet /usr/share/wordnet]
The licence of WordNet is copied next to the output (it must travel with the data).
"""

from __future__ import annotations

import argparse
import json
import lzma
import shutil
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "graphmem" / "text" / "data" / "wordnet-compact.json.xz"
LICENCE_SOURCES = (Path("/usr/share/doc/wordnet-base/copyright"),)
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
MAX_SENSES = 12
#: WordNet's lexicographer files 29-43 (lexnames(5WN)): the verb classes
VERB_LEXFILES = ("body", "change", "cognition", "communication", "competition", "consumption",
                 "contact", "creation", "emotion", "motion", "perception", "possession",
                 "social", "stative", "weather")


def read_data(wordnet: Path):
    """Yield (pos, offset, lexfile, type, words, pointers) per synset of each data file."""
    for pos, name in POS_FILES.items():
        for line in (wordnet / f"data.{name}").open(encoding="latin-1"):
            if line.startswith(" "):
                continue
            fields = line.split("|")[0].split()
            offset, lexfile, ss_type = fields[0], int(fields[1]), fields[2]
            n_words = int(fields[3], 16)
            words = [fields[4 + 2 * i].split("(")[0] for i in range(n_words)]
            at = 4 + 2 * n_words
            n_ptr = int(fields[at])
            pointers = [tuple(fields[at + 1 + 4 * i: at + 5 + 4 * i]) for i in range(n_ptr)]
            yield pos, offset, lexfile, ss_type, words, pointers


def build(wordnet: Path) -> dict:
    ids: dict[tuple[str, str], int] = {}
    synsets: dict[int, tuple[str, list[str], list[tuple]]] = {}
    lexfiles: dict[int, int] = {}

    def sid(pos: str, offset: str) -> int:
        key = ("a" if pos == "s" else pos, offset)
        return ids.setdefault(key, len(ids))

    for pos, offset, lexfile, ss_type, words, pointers in read_data(wordnet):
        synsets[sid(pos, offset)] = (ss_type, words, pointers)
        if pos == "v":
            lexfiles[sid(pos, offset)] = lexfile

    hyper, head, attribute = defaultdict(list), {}, defaultdict(list)
    vhyper = defaultdict(list)
    antonym_pairs, lexical_antonyms = set(), set()
    derivations = defaultdict(set)  # (word, pos) -> derivationally related (word, pos)
    for s, (ss_type, words, pointers) in synsets.items():
        for symbol, offset, pos, source_target in pointers:
            other = sid(pos, offset)
            src, tgt = int(source_target[:2], 16), int(source_target[2:], 16)
            if symbol in ("@", "@i") and ss_type == "n":
                hyper[s].append(other)
            elif symbol == "@" and ss_type == "v":
                vhyper[s].append(other)
            elif symbol == "&" and ss_type == "s":
                head[s] = other
            elif symbol == "=" and ss_type == "a":
                attribute[s].append(other)
            elif symbol == "!":
                antonym_pairs.add((min(s, other), max(s, other)))
                a = words[src - 1].lower()
                b = synsets_word(synsets, other, tgt)
                if b:
                    lexical_antonyms.add(((a, _pos(ss_type)), (b, _pos(synsets[other][0]))))
            elif symbol in ("+", "\\") and src and tgt:
                a = (words[src - 1].lower(), _pos(ss_type))
                b = synsets_word(synsets, other, tgt)
                if b:
                    derivations[a].add((b, pos if pos != "s" else "a"))
                    derivations[(b, pos if pos != "s" else "a")].add(a)
    derived = set()
    for (a, b) in lexical_antonyms:
        for da in derivations.get(a, ()):
            for db in derivations.get(b, ()):
                if da[1] == db[1] and da[0] != db[0] and "_" not in da[0] + db[0]:
                    derived.add(tuple(sorted((da[0], db[0]))))

    exc = {}
    for name in POS_FILES.values():
        for line in (wordnet / f"{name}.exc").open(encoding="latin-1"):
            form, *bases = line.split()
            if "_" not in form and bases:
                exc.setdefault(form, bases[0])

    senses, proper, lower_seen = {}, set(), set()
    for pos, name in POS_FILES.items():
        for line in (wordnet / f"index.{name}").open(encoding="latin-1"):
            if line.startswith(" "):
                continue
            fields = line.split()
            lemma = fields[0]
            if "_" in lemma and (pos != "v" or lemma.count("_") > 1):
                continue  # phrasal verbs of two words stay (take_over, set_aside)
            n_synsets, n_ptr = int(fields[2]), int(fields[3])
            offsets = fields[6 + n_ptr: 6 + n_ptr + n_synsets][:MAX_SENSES]
            senses.setdefault(lemma, []).extend(sid(pos, o) for o in offsets)
    for _, words, _ in synsets.values():
        for w in words:
            if "_" in w:
                continue
            (proper if w[:1].isupper() else lower_seen).add(w.lower())
    proper -= lower_seen

    derived |= _adverb_antonyms(synsets, senses, exc, head, antonym_pairs, sid)
    used = sorted({s for ss in senses.values() for s in ss} | _closure(hyper, senses) | set(head.values()))
    return {
        "source": "WordNet 3.0 (Princeton University), see WORDNET-LICENSE",
        "senses": senses,
        "pos": {str(s): synsets[s][0] for s in used},
        "hyper": {str(s): v for s, v in hyper.items()},
        "head": {str(s): h for s, h in head.items()},
        "antonym": sorted(antonym_pairs),
        "attribute": {str(s): v for s, v in attribute.items()},
        "derived": sorted(derived),
        "proper": sorted(proper),
        "exc": exc,
        "vhyper": {str(s): v for s, v in vhyper.items() if s in lexfiles},
        "lexfile": {str(s): VERB_LEXFILES[lexfiles[s] - 29] for s in used if s in lexfiles},
    }


def _adverb_antonyms(synsets, senses, exc, head, antonym_pairs, sid) -> set[tuple[str, str]]:
    """Adverbs whose adjectives are antonyms: WordNet links "after" to "later" and
    "before" to "earlier" but gives the adverbs no antonym pointer of their own."""
    cluster = lambda s: head.get(s, s)  # noqa: E731
    opposite = defaultdict(set)
    for a, b in antonym_pairs:
        opposite[cluster(a)].add(cluster(b))
        opposite[cluster(b)].add(cluster(a))
    by_cluster = defaultdict(set)
    for s, (ss_type, words, pointers) in synsets.items():
        if ss_type != "r":
            continue
        adjectives = {sid(pos, offset) for symbol, offset, pos, _ in pointers if symbol == "\\"}
        for w in words:
            base = exc.get(w.lower(), w.lower())
            adjectives |= {x for x in senses.get(base, [])[:2] if synsets[x][0] in ("a", "s")}
        for adjective in adjectives:
            by_cluster[cluster(adjective)].add(s)
    pairs = set()
    for h, adverbs in by_cluster.items():
        for other in opposite.get(h, ()):
            for a in adverbs:
                for b in by_cluster.get(other, ()):
                    pairs |= {tuple(sorted((x.lower(), y.lower()))) for x in synsets[a][1]
                              for y in synsets[b][1] if "_" not in x + y and x.lower() != y.lower()}
    return pairs


def _pos(ss_type: str) -> str:
    return "a" if ss_type == "s" else ss_type


def synsets_word(synsets: dict, s: int, number: int) -> str | None:
    entry = synsets.get(s)
    if entry is None or not 0 < number <= len(entry[1]):
        return None
    return entry[1][number - 1].lower()


def _closure(hyper: dict, senses: dict) -> set[int]:
    seen: set[int] = set()
    stack = [s for ss in senses.values() for s in ss]
    while stack:
        s = stack.pop()
        if s in seen:
            continue
        seen.add(s)
        stack.extend(hyper.get(s, ()))
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if not (args.wordnet / "data.noun").exists():
        raise SystemExit(f"no WordNet database in {args.wordnet}: apt-get install wordnet-base")
    table = build(args.wordnet)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    blob = json.dumps(table, separators=(",", ":"), sort_keys=True).encode()
    args.out.write_bytes(lzma.compress(blob, preset=9 | lzma.PRESET_EXTREME))
    for source in LICENCE_SOURCES:
        if source.exists():
            shutil.copyfile(source, args.out.parent / "WORDNET-LICENSE")
    print(f"{args.out}: {args.out.stat().st_size / 1e6:.2f} MB "
          f"({len(table['senses'])} lemmas, {len(table['antonym'])} antonym pairs, "
          f"{len(table['derived'])} derived pairs, {len(table['proper'])} names)")


if __name__ == "__main__":
    main()
