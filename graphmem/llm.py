"""Call a langchain-core chat model with retries and parse its answer (text or JSON).

Every LLM step in graphmem goes through ``invoke_text``: it sends one prompt,
hands the reply's text to a parser, and retries with exponential backoff.
``invoke_json`` (atomising, judging equivalence) is ``invoke_text`` with the JSON
pulled out of the reply first (code fences and chatter around it are tolerated);
the benchmark judges of `graphmem.evaluation.answer` parse plain text. After the
last attempt a graphmem error is raised:

    GraphmemError
    └── LLMError
        ├── LLMCallFailed      the model raised on every attempt (outage, rate limit)
        └── LLMOutputInvalid   the model answered, but never with usable output

langchain-core itself is not imported here: any object with ``invoke(input)``
returning a message (or a string) works, which is what every chat model does.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graphmem.errors import GraphmemError, LLMCallFailed, LLMError, LLMOutputInvalid  # noqa: F401

log = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = ["LLMCallFailed", "LLMError", "LLMOutputInvalid", "RetryPolicy", "extract_json", "invoke_json",
           "invoke_text", "message_text"]


@dataclass(frozen=True)
class RetryPolicy:
    """How often to try a chat model and how long to wait between failed calls.

    The wait after failed call ``n`` (0-based) is ``min(base_delay * 2**n, max_delay)``.
    Unusable answers are retried at once: waiting does not fix a bad answer.
    """

    attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"RetryPolicy.attempts must be at least 1, got {self.attempts}")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("RetryPolicy delays must not be negative")

    def delay(self, failure: int) -> float:
        """Seconds to wait after the ``failure``-th failed call (0-based)."""
        return min(self.base_delay * 2**failure, self.max_delay)


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def message_text(reply: Any) -> str:
    """The text of a chat model reply: a message's content, or a plain string."""
    content = getattr(reply, "content", reply)
    if isinstance(content, list):  # content blocks: keep the text parts
        content = "".join(part if isinstance(part, str) else str(part.get("text", ""))
                          for part in content)
    if not isinstance(content, str):
        raise LLMOutputInvalid(f"the model replied with {type(content).__name__}, not text")
    return content


def extract_json(text: str) -> Any:
    """Parse the JSON value in a reply, ignoring code fences and text around it."""
    fenced = _FENCE.search(text)
    candidate = fenced.group(1) if fenced else text
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        pass
    starts = [i for i in (candidate.find("["), candidate.find("{")) if i >= 0]
    if starts:
        start = min(starts)
        end = max(candidate.rfind("]"), candidate.rfind("}"))
        if end > start:
            try:
                return json.loads(candidate[start:end + 1])
            except json.JSONDecodeError:
                pass
    raise LLMOutputInvalid(f"no JSON value in the model's reply: {text[:200]!r}")


def invoke_text(chat_model: Any, prompt: Any, *, parse: Callable[[str], T],
                retry: RetryPolicy | None = None,
                observe: Callable[[Any, float], None] | None = None) -> T:
    """Send ``prompt`` to ``chat_model`` and return ``parse(text_of_reply)``.

    ``parse`` validates the reply's text and raises ``LLMOutputInvalid`` (or
    ``ValueError``/``TypeError``) when it is not usable; the prompt is then sent again.
    A call that raises is retried after the policy's backoff. ``observe(reply, seconds)``
    is told of every attempt (``reply`` is None when the call raised), for callers that
    count tokens and time. Raises ``LLMCallFailed`` when the last attempt failed to call
    the model, ``LLMOutputInvalid`` when it answered with unusable output.
    """
    retry = retry or RetryPolicy()
    call_failures = 0
    last: Exception | None = None
    for attempt in range(1, retry.attempts + 1):
        start = time.perf_counter()
        try:
            reply = chat_model.invoke(prompt)
        except Exception as exc:  # noqa: BLE001 - any provider error is retried
            if observe is not None:
                observe(None, time.perf_counter() - start)
            last = exc
            log.warning("chat model call %d/%d failed: %s", attempt, retry.attempts, exc)
            if attempt < retry.attempts:
                retry.sleep(retry.delay(call_failures))
            call_failures += 1
            continue
        if observe is not None:
            observe(reply, time.perf_counter() - start)
        try:
            return parse(message_text(reply))
        except (LLMOutputInvalid, ValueError, TypeError) as exc:
            last = exc if isinstance(exc, LLMOutputInvalid) else LLMOutputInvalid(str(exc))
            log.warning("chat model answer %d/%d unusable: %s", attempt, retry.attempts, last)
    if isinstance(last, LLMOutputInvalid):
        raise LLMOutputInvalid(f"after {retry.attempts} attempts the model gave no usable answer: {last}") from last
    raise LLMCallFailed(
        f"the chat model failed on all {retry.attempts} attempts; last error: {last!r}. "
        "Check the model's configuration, credentials and rate limits."
    ) from last


def invoke_json(chat_model: Any, prompt: Any, *, parse: Callable[[Any], T],
                retry: RetryPolicy | None = None) -> T:
    """Send ``prompt`` to ``chat_model`` and return ``parse(json_of_reply)``.

    `invoke_text` with the JSON value of the reply (see `extract_json`) handed to
    ``parse``; retries and errors are the same.
    """
    return invoke_text(chat_model, prompt, parse=lambda text: parse(extract_json(text)),
                       retry=retry)
