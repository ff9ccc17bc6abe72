"""Judge whether two memory texts say the same thing.

The write path calls ``judge_equivalence`` for each (new atom, candidate
memory) pair with their cosine similarity. Texts are compared *after*
perspective normalisation (``atomise`` turns "I said" by Hamlet into "Hamlet
said"), so two witnesses' accounts of one speech read alike.

Rules, in order (the first that applies decides):

==  ================================================================  =============
1   ``context``  deposits at different places                          different
    deposits far apart in time: different, unless rules 4-5 find     (contradiction)
    a conflict (two claims about one thing: the later supersedes);
    an event or an utterance at another time is no conflict ("Tom
    hit Jerry" / "Jerry hit Tom" an hour later: both happened;
    graphmem.supersession.claims reads which is which)
2   similarity below ``contradiction_floor``                          different
3   ``quote``    both report speech, the quoted words differ          different
    ``speaker``  same words, attributed to different speakers         different
    (two utterances, both true: not a conflict)
4   ``names`` ``numbers`` ``dates`` ``negation`` disagree             contradiction
    (a name, number or date that only one text has, below            (different)
    ``threshold``, is a detail one adds to a different statement,
    not another value: different; a word capitalised only where a
    sentence opens is a name only if the tagger reads it as one:
    "Wow, Caroline!" names one person)
5   the meaning differs (graphmem.text.readings, read only here,       contradiction
    in the band where a verdict depends on it):
    ``roles``    a party swapped into another role of the same
                 predicate, or a role filled by another party
                 (passive read as its active)
    ``antonym``  a word replaced by its WordNet antonym (open/closed,
                 gained/lost, more/less, before/after)
    ``scale``    an adjective replaced by another value of the same
                 attribute (hot/warm)
    ``kind``     a noun or adjective replaced by a co-hyponym
                 (aspirin/ibuprofen, dublin/cork, blue/green) or by a
                 hyponym (amoxicillin/penicillin)
6   same quoted words (difflib ratio >= 0.9) by the same speaker      equivalent
    (the character-level match is stronger evidence than the
    embedding; the similarity only has to clear the floor)
7   similarity at or above ``threshold``                              equivalent
8   the same content words up to WordNet synonyms, same roles         equivalent
    (another voice, tense or order; the floor is enough)
9   otherwise                                                         different
==  ================================================================  =============

Every verdict says why in ``reason`` ("roles swapped: subject of 'thank'
omar≠jerry"), and ``failed_guards`` names the guards that failed.

When both texts quote the same words by the same speaker, the ``names`` guard
looks only inside the quotes: the narration may name different listeners
("Hamlet said to Horatio" / "Hamlet said"), which is the same speech; and the
roles of rule 5 are not compared (the narration differs by design), only words.

Compare a new atom with a memory's deposited ``variants``, not with its
canonical text: the canonical text may end in an "(also: ...)" clause naming
parties that no single wording names, which the ``names`` guard would count
against the atom.

``LLMJudge`` asks a chat model instead and keeps a veto: a merge it approves
is refused when any guard of rules 1, 3 (speaker), 4 or 5 fails, because
merging would fold one party, value or claim into another.

The WordNet lexicon is loaded on first use (about 1 s); pass ``lexicon=`` to
share one you hold, or leave it to ``graphmem.text.lexicon.default_lexicon``.
"""

from __future__ import annotations

import difflib
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from graphmem.atomise import outside_quotes, quoted_spans
from graphmem.canonical import capitalised_names, names_read
from graphmem.errors import InvalidInput
from graphmem.llm import LLMOutputInvalid, RetryPolicy, invoke_json
from graphmem.supersession.claims import read_claim
from graphmem.text import readings
from graphmem.text.lexicon import Lexicon, default_lexicon
from graphmem.text.nlp import Parser

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_CONTRADICTION_FLOOR", "DEFAULT_THRESHOLD", "DepositContext", "LLMJudge",
           "Verdict", "check_guards", "judge_equivalence", "meaning_differs", "speaker_of"]

DEFAULT_THRESHOLD = 0.85
"""Cosine similarity (all-MiniLM-L6-v2) from which guarded texts merge; see benchmarks/judge_calibration.py."""
DEFAULT_CONTRADICTION_FLOOR = 0.75
"""Below this similarity a failed guard is just a different memory, not a contradiction."""
QUOTE_MATCH_RATIO = 0.9
"""difflib ratio two normalised quotations need to count as the same words."""
DEFAULT_MAX_TIME_GAP = 5.0
"""Seconds two accounts' event times may lie apart and still be one event. Pass the time
the event happened (``t``, shared by its witnesses), not when each account was recorded:
in the Hamlet replay 60 s let the Ghost's three "Swear." merge (precision 0.994), 5 s did not (0.998)."""

Kind = Literal["equivalent", "contradiction", "different"]
CONTENT_GUARDS = ("names", "numbers", "dates", "negation")
MEANING_GUARDS = ("roles", "antonym", "scale", "kind")
VETO_GUARDS = frozenset({"names", "speaker", "context", *CONTENT_GUARDS, *MEANING_GUARDS})


@dataclass(frozen=True)
class Verdict:
    """The judge's answer: what to do with the pair, why, and which guards failed."""

    kind: Kind
    reason: str
    failed_guards: tuple[str, ...] = ()


@dataclass(frozen=True)
class DepositContext:
    """When and where a memory was deposited; ``at`` is a datetime or epoch seconds."""

    at: datetime | float | None = None
    place: str | None = None


# Features ---------------------------------------------------------------------

_NUMBER_WORDS: dict[str, float] = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
                      "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
                      "million": 10**6, "billion": 10**9, "dozen": 12, "half": 0.5})
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?")
_DATE_WORDS = frozenset(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    monday tuesday wednesday thursday friday saturday sunday
    yesterday today tomorrow tonight morning afternoon evening midnight noon
    am pm a.m p.m o'clock o’clock""".split()
)
_NEGATIONS = frozenset("not no never nor none nobody nothing neither nowhere cannot".split())


def _numbers(text: str) -> list[float]:
    values = [float(n.replace(",", "")) for n in _NUMBER.findall(text)
              if n.replace(",", "").replace(".", "", 1).isdigit()]
    words = (re.split(r"['’]", w)[0] for w in _WORD.findall(text.lower()))  # "one's" -> "one"
    values += [float(_NUMBER_WORDS[w]) for w in words if w in _NUMBER_WORDS]
    return sorted(values)


def _date_words(text: str) -> set[str]:
    low = text.lower()
    words = {w for w in re.findall(r"[a-z]+(?:\.[a-z])?|o['’]clock", low) if w in _DATE_WORDS}
    words |= set(re.findall(r"\b\d{1,2}:\d{2}\b", low))
    return words


def _negations(text: str) -> int:
    words = _WORD.findall(text.lower())
    return sum(re.split(r"['’]", w)[0] in _NEGATIONS or w.endswith(("n't", "n’t")) for w in words)


def _normalise_words(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower().replace("’", "'")).split())


def _without_negation(text: str) -> str:
    return " ".join(w for w in _normalise_words(text).split()
                    if w not in _NEGATIONS and not w.endswith("n't"))


def _quotes(text: str) -> str:
    return " ".join(text[s:e] for s, e in quoted_spans(text))


_SPEECH_VERBS = frozenset(
    """said say says saying told tell tells asked ask asks replied replies answered answers
    cried cries shouted whispered called exclaimed declared added continued remarked muttered
    spoke speaks speak wrote writes""".split()
)


def speaker_of(text: str) -> str | None:
    """The name a report of speech attributes it to: the nearest name before a
    speech verb in the narration, else the first name after it, else the first name."""
    narration = outside_quotes(text)
    words = narration.split()
    verb_at = next((i for i, w in enumerate(words) if w.strip(",.:;").lower() in _SPEECH_VERBS), None)
    if verb_at is None:
        names = capitalised_names(narration, bridge=False)
        return names[0] if names else None
    before = capitalised_names(" ".join(words[:verb_at]), bridge=False)
    if before:
        return before[-1]
    after = capitalised_names(" ".join(words[verb_at + 1:]), bridge=False)
    return after[0] if after else None


def _names_only_in(a: str, b: str, parser: Parser | None = None) -> tuple[bool, bool]:
    """Whether ``a`` names someone ``b`` never mentions (in any case), and the reverse. A
    word that is capitalised only where a sentence opens counts as a name only if the
    tagger reads it as one ("Tom hit Jerry" yes; "Wow, Caroline!", "Sounds great",
    "Plus, ..." no)."""
    words_a, words_b = set(_normalise_words(a).split()), set(_normalise_words(b).split())
    return _names_missing(a, words_b, parser), _names_missing(b, words_a, parser)


def _names_missing(text: str, other: set[str], parser: Parser | None) -> bool:
    def missing(names: list[str]) -> bool:
        # "Monday" is the dates guard's business
        return any(name.lower() not in _DATE_WORDS
                   and not set(_normalise_words(name).split()) <= other for name in names)

    # the tagger only where a capitalised word is missing from the other text
    names = capitalised_names(text)
    return missing(names) and missing(names_read(text, parser, names=names))


def _context_disagrees(a: DepositContext | None, b: DepositContext | None, max_gap: float) -> str | None:
    if a is None or b is None:
        return None
    if a.at is not None and b.at is not None:
        if isinstance(a.at, datetime) != isinstance(b.at, datetime):
            raise InvalidInput("DepositContext.at must be datetimes on both sides or epoch seconds on both")
        if isinstance(a.at, datetime) and isinstance(b.at, datetime):
            gap = abs((a.at - b.at).total_seconds())
        else:
            gap = abs(float(a.at) - float(b.at))  # type: ignore[arg-type]
        if gap > max_gap:
            return f"deposited {gap:.0f} s apart (more than {max_gap:.0f} s)"
    if a.place and b.place and a.place.strip().casefold() != b.place.strip().casefold():
        return f"deposited at different places ({a.place!r} / {b.place!r})"
    return None


def check_guards(a: str, b: str, parser: Parser | None = None) -> tuple[str, ...]:
    """Names of the guards on which two texts disagree (empty: all agree)."""
    return _assess(a, b, parser)[0]


def _same_words(a: str, b: str) -> bool:
    """Both texts quote exactly the same words (up to case and punctuation)."""
    quote_a, quote_b = _quotes(a), _quotes(b)
    return bool(quote_a) and _normalise_words(quote_a) == _normalise_words(quote_b)


def meaning_differs(a: str, b: str, *, lexicon: Lexicon | None = None,
                    compare_roles: bool = True,
                    parser: Parser | None = None) -> tuple[str, str] | None:
    """(guard, reason) for the first difference of meaning between ``a`` and ``b``
    (rule 5 of the module docstring), or None. Parses both (with ``parser``'s cache)."""
    lexicon = lexicon or default_lexicon()
    ra, rb = readings.read_texts([a, b], lexicon, parser)
    found = readings.compare(ra, rb, lexicon, roles=compare_roles)
    return (found.kind, found.reason) if found else None


def _same_content(a: str, b: str, lexicon: Lexicon, parser: Parser | None) -> bool:
    ra, rb = readings.read_texts([a, b], lexicon, parser)
    return readings.same_content(ra, rb, lexicon)


def _assess(a: str, b: str, parser: Parser | None = None
            ) -> tuple[tuple[str, ...], bool, frozenset[str]]:
    """The failed guards, whether both texts report the same words by the same speaker,
    and the failed guards on which only one text says something (a name, a number or a
    date the other leaves out: a detail one account adds, not a value the other
    contradicts)."""
    failed: list[str] = []
    one_sided: set[str] = set()
    quote_a, quote_b = _quotes(a), _quotes(b)
    same_speech = False
    if quote_a and quote_b:
        # negation is its own guard: "I will go" / "I will not go" is one speech remembered two ways
        ratio = difflib.SequenceMatcher(None, _without_negation(quote_a), _without_negation(quote_b)).ratio()
        if ratio < QUOTE_MATCH_RATIO:
            failed.append("quote")
        speaker_a, speaker_b = speaker_of(a), speaker_of(b)
        if speaker_a and speaker_b and speaker_a.casefold() != speaker_b.casefold():
            failed.append("speaker")
        same_speech = not failed and bool(speaker_a and speaker_b)
    name_a, name_b = (quote_a, quote_b) if same_speech else (a, b)
    only_a, only_b = _names_only_in(name_a, name_b, parser)
    if only_a or only_b:
        failed.append("names")
        if not (only_a and only_b):
            one_sided.add("names")
    for guard, values in (("numbers", _numbers), ("dates", _date_words)):
        va, vb = values(a), values(b)
        if va != vb:
            failed.append(guard)
            if not (va and vb):
                one_sided.add(guard)
    if _negations(a) != _negations(b):
        failed.append("negation")
    return tuple(failed), same_speech and not failed, frozenset(one_sided)


# The judges ---------------------------------------------------------------------

def _check_similarity(similarity: float) -> float:
    try:
        value = float(similarity)
    except (TypeError, ValueError):
        raise InvalidInput(f"similarity must be a number, got {similarity!r}") from None
    if not -1.0001 <= value <= 1.0001:
        raise InvalidInput(f"similarity must be a cosine in [-1, 1], got {value}")
    return value


def judge_equivalence(
    a: str, b: str, similarity: float, *,
    threshold: float = DEFAULT_THRESHOLD,
    contradiction_floor: float = DEFAULT_CONTRADICTION_FLOOR,
    context_a: DepositContext | None = None,
    context_b: DepositContext | None = None,
    max_time_gap: float = DEFAULT_MAX_TIME_GAP,
    lexicon: Lexicon | None = None,
    parser: Parser | None = None,
) -> Verdict:
    """Decide whether memory texts ``a`` and ``b`` (cosine ``similarity``) are one memory.

    See the module docstring for the rules. ``context_a``/``context_b`` carry
    deposit time and place: repeated short lines ("My lord.") said at
    different times read identically, and only the context tells them apart.
    """
    similarity = _check_similarity(similarity)
    if contradiction_floor > threshold:
        raise InvalidInput(f"contradiction_floor ({contradiction_floor}) must not exceed threshold ({threshold})")
    context = _context_disagrees(context_a, context_b, max_time_gap)
    if context and context.startswith("deposited at different places"):
        return Verdict("different", context, ("context",))
    # Apart in time, two accounts are not one event (never merged), but two claims about
    # one thing can still conflict: the later one then supersedes the earlier.
    verdict = _judge_content(a, b, similarity, threshold=threshold,
                             contradiction_floor=contradiction_floor, lexicon=lexicon,
                             parser=parser)
    if context and verdict.kind != "contradiction":
        return Verdict("different", context, ("context",))
    if context and _an_event(a, b, lexicon, parser):
        return Verdict("different", f"{context}; events at different times both happened",
                       ("context",))
    return verdict


def _an_event(a: str, b: str, lexicon: Lexicon | None, parser: Parser | None) -> bool:
    """Whether either text reports an action or an utterance (not a state)."""
    lexicon = lexicon or default_lexicon()
    docs = (parser or Parser(full=True, cache_size=0)).parse_many([a, b])
    return any(read_claim(doc, lexicon).kind in ("event", "utterance") for doc in docs)


def _judge_content(a: str, b: str, similarity: float, *, threshold: float,
                   contradiction_floor: float, lexicon: Lexicon | None,
                   parser: Parser | None) -> Verdict:
    """Rules 2 to 9 (the texts alone)."""
    if similarity < contradiction_floor:
        return Verdict("different", f"similarity {similarity:.3f} below {contradiction_floor:.2f}")
    failed, same_speech, one_sided = _assess(a, b, parser)
    if "quote" in failed or "speaker" in failed:
        return Verdict("different", "different utterances: " + ", ".join(failed) + " differ", failed)
    if failed and set(failed) <= one_sided and similarity < threshold:
        # a detail one text adds, in texts that would not merge without it either
        return Verdict("different", f"similar ({similarity:.3f}) but {', '.join(failed)} "
                                    "named in one text only", failed)
    if failed:
        return Verdict("contradiction", f"similar ({similarity:.3f}) but {', '.join(failed)} disagree", failed)
    # Rule 5 parses, so it runs only here, where a merge is at stake; identical quotes
    # by one speaker differ only in narration, which rules 3-4 have read.
    lexicon = lexicon or default_lexicon()
    if not (same_speech and _same_words(a, b)):
        differs = meaning_differs(a, b, lexicon=lexicon, compare_roles=not same_speech,
                                  parser=parser)
        if differs:
            return Verdict("contradiction", f"similar ({similarity:.3f}) but {differs[1]}", (differs[0],))
    if same_speech:  # the quoted words already match at character level: the floor is enough
        return Verdict("equivalent", f"same words by the same speaker, similarity {similarity:.3f}")
    if similarity >= threshold:
        return Verdict("equivalent", f"similarity {similarity:.3f} >= {threshold:.2f}, all guards agree")
    if _same_content(a, b, lexicon, parser):
        return Verdict("equivalent", f"same content words and roles (voice, tense or order differ), "
                                     f"similarity {similarity:.3f}")
    return Verdict("different", f"similarity {similarity:.3f} below {threshold:.2f}")


JUDGE_PROMPT = """Do these two memory statements describe the same fact or event?
A: {a}
B: {b}
"equivalent": true only if they say the same thing about the same people, places, numbers and times.
"contradiction": true if they are about the same thing but cannot both be true.
Answer with one JSON object and nothing else:
{{"equivalent": true or false, "contradiction": true or false, "reason": "one sentence"}}"""


def parse_llm_verdict(value: Any) -> Verdict:
    """Validate ``{"equivalent": bool, "contradiction": bool, "reason": str}`` into a Verdict."""
    if not isinstance(value, dict):
        raise LLMOutputInvalid(f"expected a JSON object, got {type(value).__name__}")
    equivalent, contradiction = value.get("equivalent"), value.get("contradiction")
    reason = value.get("reason", "")
    if not isinstance(equivalent, bool) or not isinstance(contradiction, bool):
        raise LLMOutputInvalid(f'"equivalent" and "contradiction" must be true/false, got {value!r}')
    if equivalent and contradiction:
        raise LLMOutputInvalid("a pair cannot be both equivalent and a contradiction")
    if not isinstance(reason, str):
        raise LLMOutputInvalid(f'"reason" must be a string, got {reason!r}')
    kind: Kind = "equivalent" if equivalent else "contradiction" if contradiction else "different"
    return Verdict(kind, reason.strip() or "no reason given")


class LLMJudge:
    """Judge equivalence with a langchain-core chat model; same call as ``judge_equivalence``.

    Pairs below ``min_similarity`` are ``different`` without a model call. An
    approved merge is vetoed (returned ``different``, the reason kept) when a
    guard of ``VETO_GUARDS`` fails: context, speaker, names, numbers, dates,
    negation, or a difference of meaning (roles, antonym, scale, kind). Unusable output after the retries
    falls back to ``judge_equivalence`` and is recorded in ``self.fallbacks``;
    a model that never answers raises ``LLMCallFailed``.
    """

    def __init__(self, chat_model: Any, *, retry: RetryPolicy | None = None,
                 min_similarity: float = DEFAULT_CONTRADICTION_FLOOR,
                 lexicon: Lexicon | None = None) -> None:
        self.chat_model = chat_model
        self.retry = retry or RetryPolicy()
        self.min_similarity = min_similarity
        self.fallbacks: list[dict[str, str]] = []
        self._lexicon = lexicon
        self._parser = Parser(full=True)  # its own cache of the parses the vetoes read

    @property
    def lexicon(self) -> Lexicon:
        """The WordNet table the vetoes read (the shared default unless one was given)."""
        if self._lexicon is None:
            self._lexicon = default_lexicon()
        return self._lexicon

    def __call__(self, a: str, b: str, similarity: float, *,
                 context_a: DepositContext | None = None, context_b: DepositContext | None = None,
                 max_time_gap: float = DEFAULT_MAX_TIME_GAP, **deterministic: Any) -> Verdict:
        similarity = _check_similarity(similarity)
        if similarity < self.min_similarity:
            return Verdict("different", f"similarity {similarity:.3f} below {self.min_similarity:.2f}; model not asked")
        try:
            verdict = invoke_json(self.chat_model, JUDGE_PROMPT.format(a=a, b=b),
                                  parse=parse_llm_verdict, retry=self.retry)
        except LLMOutputInvalid as exc:
            log.warning("LLM judge output unusable, using the deterministic judge: %s", exc)
            self.fallbacks.append({"a": a, "b": b, "reason": str(exc)})
            return judge_equivalence(a, b, similarity, context_a=context_a, context_b=context_b,
                                     max_time_gap=max_time_gap, lexicon=self.lexicon,
                                     parser=self._parser, **deterministic)
        if verdict.kind != "equivalent":
            return verdict
        return self._veto(a, b, verdict, context_a, context_b, max_time_gap)

    def _veto(self, a: str, b: str, verdict: Verdict, context_a: DepositContext | None,
              context_b: DepositContext | None, max_time_gap: float) -> Verdict:
        """The model's merge, unless a deterministic guard forbids it (hard veto)."""
        failed, same_speech, _ = _assess(a, b, self._parser)
        reasons = [f"{', '.join(g for g in failed if g in VETO_GUARDS)} disagree"] if \
            set(failed) & VETO_GUARDS else []
        vetoed = [g for g in failed if g in VETO_GUARDS]
        context = _context_disagrees(context_a, context_b, max_time_gap)
        if context:
            vetoed.append("context")
            reasons.append(context)
        if not vetoed and not (same_speech and _same_words(a, b)):
            differs = meaning_differs(a, b, lexicon=self.lexicon, compare_roles=not same_speech,
                                      parser=self._parser)
            if differs:
                vetoed.append(differs[0])
                reasons.append(differs[1])
        if vetoed:
            return Verdict("different", f"model said equivalent ({verdict.reason}) but vetoed: "
                           f"{'; '.join(reasons)}", tuple(sorted(vetoed)))
        return verdict
