"""Consolidation's wording: with a chat model configured, a summary of the statements;
without one (or when the model's answer is unusable), the most central statement."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from graphmem.llm import LLMOutputInvalid, RetryPolicy, invoke_json

log = logging.getLogger(__name__)

SUMMARISE_PROMPT = """These statements are memories that say related things:

{statements}

Write ONE self-contained statement of the fact they establish together. Keep every name,
number, date and place they agree on; do not add anything they do not say. Answer with
JSON only: {{"fact": "..."}}"""


def central_statement(texts: Sequence[str], vectors: np.ndarray) -> str:
    """The statement most similar to all the others (extractive consolidation)."""
    return texts[int(np.argmax((vectors @ vectors.T).sum(axis=1)))]


class LLMSummariser:
    """Summarise with a langchain-core chat model; falls back to the central statement."""

    def __init__(self, chat_model: Any, *, retry: RetryPolicy | None = None) -> None:
        self.chat_model = chat_model
        self.retry = retry or RetryPolicy()
        self.fallbacks: list[str] = []

    def __call__(self, texts: Sequence[str], vectors: np.ndarray) -> str:
        prompt = SUMMARISE_PROMPT.format(statements="\n".join(f"- {t}" for t in texts))
        try:
            return invoke_json(self.chat_model, prompt, parse=_fact, retry=self.retry)
        except LLMOutputInvalid as exc:
            log.warning("LLM summary unusable, consolidating extractively: %s", exc)
            self.fallbacks.append(str(exc))
            return central_statement(texts, vectors)


def _fact(value: Any) -> str:
    fact = value.get("fact") if isinstance(value, dict) else None
    if not isinstance(fact, str) or not fact.strip():
        raise LLMOutputInvalid(f'expected {{"fact": "..."}}, got {value!r}')
    return fact.strip()
