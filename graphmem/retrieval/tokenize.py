"""Turn text into BM25 terms: lowercase unicode words, stopwords out, light stemming.

The stemmer is steps 1a-1c of Porter's algorithm (plurals, -ed/-ing, final y), written
here so that no extra package is needed: "paintings", "painted" and "painting" all become
"paint", "making" and "make" both "make". Words with a digit are kept whole ("2022",
"3pm", "mp3"), so dates and counts still match exactly. Chinese and Japanese script has
no spaces, so a run of it becomes overlapping character bigrams ("曹操大怒" -> "曹操",
"操大", "大怒"), the usual unsegmented choice for BM25 over CJK text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["STOPWORDS", "stem_word", "tokenize", "tokenize_many"]

# Letters and digits only; an apostrophe splits ("Caroline's" -> "caroline", "s") and the
# stray "s"/"t"/"ll" pieces are stopwords.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_DIGIT = re.compile(r"\d")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are aren as at be because been
    before being below between both but by can cannot could couldn d did didn do does doesn
    doing don down during each few for from further had hadn has hasn have haven having he
    her here hers herself him himself his how i if in into is isn it its itself just ll m
    ma me more most mustn my myself no nor not now o of off on once only or other our ours
    ourselves out over own re s same shan she should shouldn so some such t than that the
    their theirs them themselves then there these they this those through to too under
    until up ve very was wasn we were weren what when where which while who whom why will
    with won would wouldn y you your yours yourself yourselves also yes yeah oh ok okay
    """.split()
)

_VOWELS = frozenset("aeiou")


def _is_consonant(word: str, i: int) -> bool:
    """Porter's consonant test: y is a consonant at the start or after a vowel."""
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in the stem."""
    m, prev_vowel = 0, False
    for i in range(len(stem)):
        vowel = not _is_consonant(stem, i)
        if prev_vowel and not vowel:
            m += 1
        prev_vowel = vowel
    return m


def _has_vowel(stem: str) -> bool:
    return any(not _is_consonant(stem, i) for i in range(len(stem)))


def _ends_cvc(stem: str) -> bool:
    """Consonant-vowel-consonant ending whose last letter is not w, x or y ("hop")."""
    return (
        len(stem) >= 3
        and _is_consonant(stem, len(stem) - 1)
        and not _is_consonant(stem, len(stem) - 2)
        and _is_consonant(stem, len(stem) - 3)
        and stem[-1] not in "wxy"
    )


def _step_1a(word: str) -> str:
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ies"):
        return word[:-2]
    if word.endswith("ss") or word.endswith("us") or word.endswith("is"):
        return word
    if word.endswith("s") and len(word) > 3:
        return word[:-1]
    return word


def _step_1b(word: str) -> str:
    if word.endswith("eed"):
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ing", "ed"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if len(stem) < 2 or not _has_vowel(stem):
                return word
            return _repair_1b(stem)
    return word


def _repair_1b(stem: str) -> str:
    """Undo what removing -ed/-ing broke: "hop(p)" -> "hop", "mak" -> "make"."""
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    doubled = len(stem) >= 2 and stem[-1] == stem[-2]
    if doubled and stem[-1] not in "lsz" and _is_consonant(stem, len(stem) - 1):
        return stem[:-1]
    if _measure(stem) == 1 and _ends_cvc(stem):
        return stem + "e"
    return stem


def _step_1c(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and _has_vowel(word[:-1]):
        return word[:-1] + "i"
    return word


def stem_word(word: str) -> str:
    """Light stem of one lowercase word; words with digits and short words are kept."""
    if len(word) <= 3 or _DIGIT.search(word):
        return word
    return _step_1c(_step_1b(_step_1a(word)))


def tokenize(text: str) -> list[str]:
    """BM25 terms of a text, in order, with repeats (term frequency matters)."""
    terms: list[str] = []
    for match in _WORD.finditer(text.lower()):
        word = match.group()
        if word in STOPWORDS:
            continue
        if _CJK.search(word):
            terms.extend(_split_cjk(word))
        else:
            terms.append(stem_word(word))
    return terms


def _split_cjk(word: str) -> list[str]:
    """Other text as its own term, each CJK run as character bigrams (one char alone)."""
    terms: list[str] = []
    position = 0
    for run in _CJK.finditer(word):
        if run.start() > position:
            terms.append(stem_word(word[position : run.start()]))
        chars = run.group()
        terms.extend([chars] if len(chars) == 1 else [chars[i : i + 2] for i in range(len(chars) - 1)])
        position = run.end()
    if position < len(word):
        terms.append(stem_word(word[position:]))
    return terms


def tokenize_many(texts: Iterable[str]) -> list[list[str]]:
    """Tokenize each text."""
    return [tokenize(text) for text in texts]
