"""A question as the channels read it: its text, vector, entities, kind, time and the
agents it names, derived once per recall."""

from __future__ import annotations

import re
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Mapping, Sequence

import numpy as np

from graphmem.retrieval.classify import QueryClass, classify_query
from graphmem.retrieval.config import RecallConfig, weights_to_run
from graphmem.retrieval.vocabulary import content_words
from graphmem.text.annotate import query_entities, without_spans
from graphmem.text.nlp import Parser
from graphmem.text.temporal_query import TemporalIntent, temporal_query
from graphmem.view import NamespaceView

#: An entity mentioned by more than this share of the asker's memories (and by more
#: than SALIENCE_MIN_COUNT of them) does not discriminate between them, like a stop word.
SALIENCE_MAX_SHARE = 0.2
SALIENCE_MIN_COUNT = 10
#: the channels that read the agents a question names (the names are looked up only
#: when one of them will run)
_READ_SUBJECTS = ("speaker", "said", "kinds")
#: the channels that read the question's content words without the agents' names
_READ_ASKED = ("expand",)
_NAME_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class AskedWords:
    """The question's content words, none of them an agent's name (`vocabulary.content_words`),
    as the expand channel reads them: their vectors are computed on the embedder's
    thread while the first channels rank; ``embed_soon`` also embeds the namespace's
    words that are new since the last question."""

    words: tuple[str, ...]
    names: frozenset[str]  # the namespace's agents' ids and names, lowercase, and their words
    embedding: Future[np.ndarray] | None
    embed_soon: Callable[[Sequence[str]], Future[np.ndarray]]

    @property
    def vectors(self) -> np.ndarray:
        """A unit vector per word of ``words``."""
        return self.embedding.result() if self.embedding is not None else np.zeros((0, 0))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_soon(texts).result()


@dataclass(frozen=True)
class Query:
    """A question, with what the pipeline derives from it once. Its vector is computed
    while the question is read and the word channels rank (``embedding``); ``vector``
    waits for it."""

    text: str
    embedding: Future[np.ndarray]
    entity_ids: list[str]
    kind: QueryClass
    intent: TemporalIntent | None = None
    # the agents it names and the question without their names, found when a channel
    # first reads them (`subjects`, `relation_text`): telling a lower-case name from a
    # common noun takes a parse, which a question no such channel ranks need not pay
    naming: Callable[[], tuple[list[str], str]] = field(default=lambda: ([], ""))
    asked: AskedWords | None = None  # read by the expand channel (None: it will not run)

    @cached_property
    def _named(self) -> tuple[list[str], str]:
        return self.naming()

    @property
    def subjects(self) -> list[str]:
        """The agents the question names."""
        return self._named[0]

    @property
    def relation_text(self) -> str:
        """The question without the names of its subjects."""
        return self._named[1]

    @property
    def vector(self) -> np.ndarray:
        """The question's unit vector (as the dense channel reads it)."""
        return self.embedding.result()[0]


def parse_query(text: str, *, view: NamespaceView, agent: str, config: RecallConfig,
                embed_soon: Callable[[Sequence[str]], Future[np.ndarray]],
                agent_names: Callable[[], Mapping[str, str]]) -> Query:
    """Everything the channels need of ``text``, asked by ``agent``.

    ``agent_names`` gives the namespace's agents (id -> name); it is called only when a
    channel that reads the agents a question names will run.
    """
    mentions = query_entities(text, view.resolver)
    salient = salient_entities(view, agent, [m.id for m in mentions])
    # A name on most of the asker's memories (a conversation's own speakers) says
    # little about which memory answers; it would pull the embedding towards every
    # memory of that person, so the dense channel reads the question without it.
    dense_text = without_spans(text, [(m.start, m.end) for m in mentions
                                      if m.id not in salient]) or text
    embedded = embed_soon([dense_text])
    kind = classify_query(text)
    # every channel that may run, the route's target kind's included
    weights = weights_to_run(config, kind if config.classify else None)
    # the time a question names also orders claims that replaced one another
    intent = temporal_query(text)
    reads_names = any(weights.get(c, 0) > 0 for c in (*_READ_SUBJECTS, *_READ_ASKED))
    asked = (asked_words(text, agent_names(), embed_soon)
             if any(weights.get(c, 0) > 0 for c in _READ_ASKED) else None)

    def naming() -> tuple[list[str], str]:
        names = agent_names() if reads_names else {}
        subjects = named_agents(text, names)
        return subjects, without_names(text, {a: names[a] for a in subjects})

    return Query(text=text, embedding=embedded, entity_ids=salient, kind=kind,
                 intent=intent, naming=naming, asked=asked)


def asked_words(text: str, names: Mapping[str, str],
                embed_soon: Callable[[Sequence[str]], Future[np.ndarray]]) -> AskedWords:
    """``text``'s content words less the agents' (id -> name) ids and names, their
    embedding started."""
    lowered = {s.lower() for pair in names.items() for s in pair}
    every = frozenset(lowered | {w for s in lowered for w in _NAME_WORD.findall(s)})
    words = tuple(dict.fromkeys(content_words(text, every)))
    return AskedWords(words=words, names=every,
                      embedding=embed_soon(list(words)) if words else None,
                      embed_soon=embed_soon)


def salient_entities(view: NamespaceView, agent: str, entity_ids: Sequence[str]) -> list[str]:
    """The entities that single out few of ``agent``'s memories."""
    owned = view.owned_ids(agent)
    if not owned:
        return list(entity_ids)
    limit = max(SALIENCE_MIN_COUNT, SALIENCE_MAX_SHARE * len(owned))
    # few mentions in all single out few of the asker's: not intersected (the asker's
    # ids need not be made, `NamespaceView.owned_ids`)
    return [e for e in dict.fromkeys(entity_ids)
            for mentioning in (view.mentioning(e),)
            if len(mentioning) <= limit or len(mentioning & owned) <= limit]


def without_names(text: str, names: Mapping[str, str]) -> str:
    """``text`` without the given agents' ids and names (and a possessive 's after them):
    what a question asks about the agents it names."""
    for agent, name in names.items():
        for word in sorted({agent, name}, key=len, reverse=True):
            if len(word) > 1:
                text = re.sub(rf"(?<!\w){re.escape(word)}(?:'s|’s)?(?!\w)", " ", text,
                              flags=re.IGNORECASE)
    return " ".join(text.split())


def named_agents(query: str, names: Mapping[str, str],
                 parser: Parser | None = None) -> list[str]:
    """The agents (id -> registered name) a question names, by id or by name.

    A name that is also a common noun ("user", "assistant") names the agent only where it
    stands for someone: modifying another noun in a compound ("the user experience", "an
    assistant tool") it names a kind of thing, not the agent. A capitalised word inside
    the question is read as a name without a parse, and so is an id with a digit or an
    underscore in it ("agent-03"); any other match is parsed (``parser``: a full
    pipeline's; none given, the shared weights with no cache).
    """
    docs: list = []

    def parsed():
        if not docs:
            docs.append((parser or Parser(full=True, cache_size=0)).parse(query))
        return docs[0]

    def names_party(word: str) -> bool:
        return any(_identifier(word)  # "agent-03", "bot_2": no common noun, no parse
                   or _capitalised_inside(query, m.start())
                   or not _noun_modifier(parsed(), m.start(), m.end())
                   for m in re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", query, re.IGNORECASE))

    return [agent for agent, name in names.items()
            if any(len(word) > 1 and names_party(word) for word in {agent, name})]


def _identifier(word: str) -> bool:
    """A digit or an underscore: an id made for a program ("agent-03", "bot_2"), never a
    common noun that could describe a thing."""
    return any(ch.isdigit() or ch == "_" for ch in word)


def _capitalised_inside(text: str, start: int) -> bool:
    """The word at ``start`` is capitalised and does not start a sentence."""
    before = text[:start].rstrip()
    return text[start:start + 1].isupper() and bool(before) and before[-1] not in ".!?:;\"“"


def _noun_modifier(doc, start: int, end: int) -> bool:
    """The words at [start, end) are a common noun modifying another noun ("user" in
    "user experience"): they describe a thing rather than name a party."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return False
    root = span.root
    return (root.dep_ == "compound" and root.pos_ == "NOUN"
            and root.head.pos_ in ("NOUN", "PROPN") and root.head not in span)
