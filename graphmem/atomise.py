"""Split a deposit into self-contained statements (atoms).

The deterministic path costs about a millisecond per deposit: a regex sentence
splitter that knows abbreviations, ellipses and quotation marks, a merge of
fragments too short to stand alone, and a rewrite of first-person words to the
speaker's name outside quoted speech ("I said" -> "Hamlet said", "my sister" ->
"Hamlet's sister"). Quoted speech is never split and never rewritten: a deposit
``Hamlet said: "To be, or not to be..."`` is one atom, the quote verbatim.

Only the first person singular is resolved: "we", "us", "our" name a group
the deposit does not define, and "you" is the listener, so they are left as
they are.

Quotation marks recognised: straight ``"`` (paired in order) and curly ``“ ”``.
Single quotes are not treated as quotation marks, because ``’`` is also the
apostrophe (``’Tis``, ``who’s``).

``LLMAtomiser`` asks a langchain-core chat model for the same thing and checks
the answer; unusable output falls back to the deterministic splitter and is
recorded in ``LLMAtomiser.fallbacks``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

from graphmem.llm import LLMOutputInvalid, RetryPolicy, invoke_json

log = logging.getLogger(__name__)

__all__ = [
    "LLMAtomiser",
    "atomise",
    "outside_quotes",
    "quoted_spans",
    "resolve_perspective",
    "split_sentences",
]

MIN_ATOM_WORDS = 3
"""A sentence with fewer words than this is merged into its neighbour."""

ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof st jr sr vs etc e.g i.e cf no nos fig gen col capt lt sgt
    mt ft inc ltd co corp dept univ approx est rev hon gov sen rep pres vol pp ch sec art op
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thurs fri sat sun
    """.split()
)

_OPEN_CLOSE = {"“": "”"}
_BOUNDARY = re.compile(r"(?:[.!?]+|…|\.\.\.)[\"”’)\]]*(\s+)(?=[\"“(\[]?[A-Z0-9])")
_PARAGRAPH = re.compile(r"\n\s*\n")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Return ``(start, end)`` of each quotation, quote marks included.

    An opening mark with no closing mark runs to the end of the text, so an
    unfinished quote is still kept whole.
    """
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        ch = text[i]
        closer = '"' if ch == '"' else _OPEN_CLOSE.get(ch)
        if closer is None:
            i += 1
            continue
        end = text.find(closer, i + 1)
        stop = len(text) if end < 0 else end + 1
        spans.append((i, stop))
        i = stop
    return spans


def outside_quotes(text: str) -> str:
    """Return the text with every quotation removed (the narration only)."""
    parts, last = [], 0
    for start, end in quoted_spans(text):
        parts.append(text[last:start])
        last = end
    parts.append(text[last:])
    return " ".join(" ".join(parts).split())


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < pos < end - 1 for start, end in spans)


def _is_abbreviation(before: str) -> bool:
    match = _WORD_BEFORE.search(before)
    if not match:
        return False
    word = match.group(1)
    if len(word) == 1 and word.isupper():  # an initial: "J. Smith"
        return True
    return word.lower().rstrip(".") in ABBREVIATIONS or word.lower() in ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, never inside a quotation or after an abbreviation."""
    sentences: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        spans = quoted_spans(paragraph)
        start = 0
        for match in _BOUNDARY.finditer(paragraph):
            cut = match.start(1)
            if _inside(cut, spans) or _is_abbreviation(paragraph[:cut]):
                continue
            sentences.append(paragraph[start:cut])
            start = match.end(1)
        sentences.append(paragraph[start:])
    return [s.strip() for s in sentences if s.strip()]


def merge_fragments(sentences: list[str], min_words: int = MIN_ATOM_WORDS) -> list[str]:
    """Join sentences shorter than ``min_words`` words onto a neighbour.

    A short sentence goes onto the one before it; a short first sentence waits
    for the next. A deposit that is only a fragment stays one atom.
    """
    merged: list[str] = []
    pending = ""
    for sentence in sentences:
        if pending:
            sentence = f"{pending} {sentence}"
            pending = ""
        if len(sentence.split()) >= min_words:
            merged.append(sentence)
        elif merged:
            merged[-1] = f"{merged[-1]} {sentence}"
        else:
            pending = sentence
    if pending:
        merged.append(pending)
    return merged


# First-person rewriting ------------------------------------------------------

_THIRD_PERSON = {"am": "is", "'m": "is", "’m": "is", "have": "has", "'ve": "has",
                 "’ve": "has", "do": "does", "'ll": "will", "’ll": "will"}
# Common present-tense verbs that take an -s after the speaker's name; a closed
# list, because guessing verbs without a tagger would mangle adverbs ("I alone").
_PRESENT_VERBS = frozenset(
    """think know want like love hate say see go feel believe remember need hope
    live work mean fear swear tell ask come take give make hear find wish doubt
    pray beg promise guess suppose understand agree enjoy plan try play
    keep get let leave bring call recall forget prefer own read write run walk
    watch wonder worry""".split()
)
_PARTICIPLES = frozenset(
    "been gone done had got made said told left met heard known thought brought bought "
    "found kept lost felt seen begun run sent spent won".split()
)
_ROMAN_CONTEXT = frozenset("act chapter part book scene volume world war henry richard".split())
_WORDS = re.compile(r"([A-Za-z]+(?:['’][A-Za-z]+)?)")
_CONTRACTED_I = re.compile(r"I['’](m|ve|ll|d)$")


def _conjugate(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _agree(verb: str) -> str:
    """The form of a verb after a third-person name, for the verbs we know."""
    low = verb.lower()
    if low in _THIRD_PERSON:
        return _THIRD_PERSON[low]
    return _conjugate(verb) if low in _PRESENT_VERBS else verb


def _rewrite_first_person(segment: str, speaker: str) -> str:
    tokens = _WORDS.split(segment)  # even indexes: separators, odd: words
    for i in range(1, len(tokens), 2):
        word = tokens[i]
        nxt = i + 2 if i + 2 < len(tokens) and tokens[i + 1].isspace() else None
        if word == "I":
            previous = tokens[i - 2].lower() if i >= 2 else ""
            if previous in _ROMAN_CONTEXT:
                continue
            tokens[i] = speaker
            if nxt is not None:
                tokens[nxt] = _agree(tokens[nxt])
        elif contraction := _CONTRACTED_I.match(word):
            short = contraction.group(1)
            if short == "d":
                following = tokens[nxt].lower() if nxt is not None else ""
                verb = "had" if following.endswith(("ed", "en")) or following in _PARTICIPLES else "would"
            else:
                verb = _THIRD_PERSON["'" + short]
            tokens[i] = f"{speaker} {verb}"
        elif word.lower() in ("me", "myself"):
            tokens[i] = speaker
        elif word.lower() in ("my", "mine"):
            tokens[i] = f"{speaker}'s"
    return "".join(tokens)


def resolve_perspective(text: str, speaker: str | None) -> str:
    """Rewrite first-person words outside quotations to the speaker's name.

    ``"I said"`` -> ``"<speaker> said"``, ``"my sister"`` -> ``"<speaker>'s
    sister"``, ``"I am"`` -> ``"<speaker> is"``. Text inside quotation marks is
    kept verbatim. With no speaker the text is returned unchanged.
    """
    if not speaker or not speaker.strip():
        return text
    speaker = speaker.strip()
    parts, last = [], 0
    for start, end in quoted_spans(text):
        parts.append(_rewrite_first_person(text[last:start], speaker))
        parts.append(text[start:end])
        last = end
    parts.append(_rewrite_first_person(text[last:], speaker))
    return "".join(parts)


def atomise(text: str, *, speaker: str | None = None) -> list[str]:
    """Split a deposit into self-contained statements.

    Sentences are split outside quotations only, first-person words outside
    quotations become the speaker's name when one is given, and fragments under
    ``MIN_ATOM_WORDS`` words are merged into a neighbour. Sentences are found
    before the rewriting: a sentence that began with "I" may begin with a
    lower-case name ("ana") after it. Empty or blank text gives an empty list.
    """
    if not isinstance(text, str):
        raise TypeError(f"atomise() needs a str, got {type(text).__name__}")
    return merge_fragments([resolve_perspective(sentence, speaker)
                            for sentence in split_sentences(text)])


# LLM atomiser ----------------------------------------------------------------

ATOMISE_PROMPT = """Split the memory below into self-contained statements.
Rules:
- Each statement must make sense on its own: replace pronouns with the names they refer to.
- {perspective}
- Keep quoted speech verbatim and whole: never split or rewrite text inside quotation marks.
- Do not add facts that are not in the memory.
Answer with a JSON list of strings and nothing else.

Memory:
{text}"""


def _normalise_quote(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def check_atoms(value: Any, source: str) -> list[str]:
    """Validate an LLM's atoms: a non-empty list of non-empty strings that keeps every quotation.

    Raises ``LLMOutputInvalid`` with what was wrong.
    """
    if not isinstance(value, list) or not value:
        raise LLMOutputInvalid(f"expected a non-empty JSON list of statements, got {json.dumps(value)[:200]}")
    atoms = []
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise LLMOutputInvalid(f"every statement must be a non-empty string, got {item!r}")
        atoms.append(" ".join(item.split()))
    joined = _normalise_quote(" ".join(atoms))
    for start, end in quoted_spans(source):
        quote = _normalise_quote(source[start:end])
        if quote and quote not in joined:
            raise LLMOutputInvalid(f"quoted speech was not kept verbatim: {source[start:end][:80]!r}")
    return atoms


class LLMAtomiser:
    """Atomise with a langchain-core chat model; same call signature as ``atomise``.

    The model must answer a JSON list of statements. Output that cannot be
    parsed or fails ``check_atoms`` after the retries falls back to the
    deterministic ``atomise``; each fallback is appended to ``self.fallbacks``
    (the source text and the reason) and logged. A model that keeps failing to
    answer at all raises ``LLMCallFailed``: that is an outage, not bad output.
    First-person words the model left are resolved deterministically.
    """

    def __init__(self, chat_model: Any, *, retry: RetryPolicy | None = None,
                 fallback: Callable[..., list[str]] = atomise) -> None:
        self.chat_model = chat_model
        self.retry = retry or RetryPolicy()
        self.fallback = fallback
        self.fallbacks: list[dict[str, str]] = []

    def __call__(self, text: str, *, speaker: str | None = None) -> list[str]:
        if not text.strip():
            return []
        perspective = (
            f'The memory is told by {speaker}: write "I", "me", "my" as {speaker}, '
            f"except inside quotation marks." if speaker else
            "Keep the narrator's perspective as it is."
        )
        prompt = ATOMISE_PROMPT.format(perspective=perspective, text=text)
        try:
            atoms = invoke_json(self.chat_model, prompt,
                                parse=lambda value: check_atoms(value, text), retry=self.retry)
        except LLMOutputInvalid as exc:
            log.warning("LLM atomiser output unusable, using the deterministic splitter: %s", exc)
            self.fallbacks.append({"text": text, "reason": str(exc)})
            return self.fallback(text, speaker=speaker)
        return [resolve_perspective(atom, speaker) for atom in atoms]
